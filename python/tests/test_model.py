"""Models from Python: loading every way, what a model tells about itself, saving,
transforms, drawing, and errors as gdstudio.Error subclasses carrying gdstudio's message.
On the bundled sample model (resources/sample_model.pb), so no corpus is needed."""

import numpy as np
import pytest

import gdstudio as gd

SOFTMAX = "MobilenetV1/Predictions/Softmax"


@pytest.fixture(scope="module")
def sample(sample_model_path):
    return gd.load(sample_model_path)


def test_inputs_outputs_and_summary(sample, sample_model_path):
    assert sample.kind == "GraphDef"
    assert sample.path == str(sample_model_path)
    assert sample.inputs == [gd.TensorSpec("input", np.dtype("float32"), (1, 64, 64, 3), "")]
    assert sample.outputs == [gd.TensorSpec(SOFTMAX, np.dtype("float32"), (1, 10), "")]
    s = sample.summary()
    # summarize's figures (`gdstudio summarize --format=json`).
    assert s["node_count"] == 176
    assert s["const_parameters"] == 6337
    assert s["inputs"][0]["name"] == "input"
    assert s["outputs"][0] == {"name": SOFTMAX, "op": "Softmax"}
    assert sample.summary_text().startswith(
        "Found 1 possible inputs: (name=input, type=float(1), shape=[1,64,64,3]) \nNo variables spotted.\n")
    assert list(sample.ops.items())[:3] == [("Const", 54), ("Identity", 47), ("Mul", 21)]
    assert sum(sample.ops.values()) == 176
    # FLOPs with a user's input shape: batch 2 doubles them.
    assert sample.summary({"input": [2, 64, 64, 3]})["flops"] == 2 * s["flops"]


def test_nodes_and_attributes(sample):
    nodes = sample.nodes
    assert len(nodes) == 176
    assert nodes[0] == gd.Node("input", "Placeholder", [], "", {"dtype": "float", "shape": (1, 64, 64, 3)})
    conv = next(n for n in nodes if n.op == "Conv2D")
    assert conv.attr["padding"] == "SAME"
    assert conv.attr["strides"] == [1, 2, 2, 1]
    assert conv.attr["T"] == "float"
    weights = sample.node(conv.inputs[1].split(":")[0])
    while weights.op == "Identity":
        weights = sample.node(weights.inputs[0])
    assert weights.op == "Const"
    value = weights.attr["value"]
    assert isinstance(value, np.ndarray) and value.dtype == np.float32 and value.ndim == 4
    with pytest.raises(KeyError, match="no node 'nope'"):
        sample.node("nope")


def test_load_bytes_and_save_round_trip(sample, tmp_path):
    data = sample.to_bytes()
    again = gd.load_bytes(data, name="sample.pb")
    assert again.path == "sample.pb"
    assert again.to_bytes() == data
    text = sample.to_bytes("pbtxt")
    assert text.startswith(b"node {")
    assert gd.load_bytes(text).to_bytes() == data
    sample.save(tmp_path / "copy.pbtxt")
    assert (tmp_path / "copy.pbtxt").read_bytes() == text
    sample.save(tmp_path / "copy.pb")
    assert gd.load(tmp_path / "copy.pb").to_bytes() == data
    with pytest.raises(gd.SaveError, match="is a TensorFlow graph: convert it with gdstudio.tflite_convert"):
        sample.save(tmp_path / "copy.tflite")
    assert not (tmp_path / "copy.tflite").exists()


def test_transform_returns_a_new_model_with_each_steps_figures(sample):
    opt = sample.transform("fold_constants(ignore_errors=true) fold_batch_norms", inputs="input", outputs=SOFTMAX)
    assert sample.summary()["node_count"] == 176  # the model it came from is unchanged
    assert [(s.name, s.nodes_before, s.nodes_after) for s in opt.steps] == [
        ("fold_constants", 176, 73), ("fold_batch_norms", 73, 59)]
    first = opt.steps[0]
    assert first.text == "fold_constants(ignore_errors=true)"
    assert first.params == {"ignore_errors": ["true"]}
    assert first.summary.startswith("nodes 176 -> 73 (-103), ")
    # The before/after figures `gdstudio diff --format=json` prints.
    assert first.diff["nodes"] == {"before": 176, "after": 73, "change": -103}
    assert first.diff["op_types"]["Identity"] == {"before": 47, "after": 0, "change": -47}
    assert first.diff["flops"]["change"] == 0
    assert not first.ignored_error
    assert opt.outputs[0].name == SOFTMAX
    assert len(opt.nodes) == 59
    calls = []
    sample.transform("fold_constants fold_batch_norms", inputs="input", outputs=SOFTMAX,
                     progress=lambda done, total, name: calls.append((done, total, name)))
    assert calls == [(1, 2, "fold_constants"), (2, 2, "fold_batch_norms")]
    names = [t.name for t in gd.transforms()]
    assert "fold_batch_norms" in names and "strip_unused_nodes" in names


def test_render_draws_the_rich_graph(sample, tmp_path):
    svg = sample.render()
    assert svg.startswith('<?xml version="1.0" encoding="UTF-8" standalone="no"?>')
    assert "<svg" in svg and "Conv2D" in svg
    dot = sample.render("dot")
    assert dot.startswith("digraph")
    png = sample.render("png", path=tmp_path / "graph.png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "graph.png").read_bytes() == png
    with pytest.raises(gd.RenderError, match="render: format must be svg, png, pdf or dot, got 'gif'"):
        sample.render("gif")


def test_notebook_display_is_the_summary(sample):
    html = sample._repr_html_()
    assert html.startswith("<div><b>&lt;gdstudio.Model ")
    assert "Found 1 possible inputs: (name=input, type=float(1), shape=[1,64,64,3])" in html
    assert repr(sample) == f"<gdstudio.Model '{sample.path}': GraphDef, 176 nodes>"


def test_errors_carry_gdstudios_message(sample, tmp_path):
    with pytest.raises(gd.LoadError) as e:
        gd.load("/nonexistent/model.pb")
    assert str(e.value) == "/nonexistent/model.pb: no such file"
    (tmp_path / "bad.pb").write_bytes(b"\xff\xff\xff\xff garbage")
    with pytest.raises(gd.LoadError, match=r"bad.pb: not a valid GraphDef \(corrupt or truncated protobuf, 12 bytes\)$"):
        gd.load(tmp_path / "bad.pb")
    with pytest.raises(gd.LoadError, match="^blob: file is empty$"):
        gd.load_bytes(b"", name="blob")
    with pytest.raises(gd.TransformError, match="^fold_constants: ignore_errors should be true or false, found 'maybe'$"):
        sample.transform("fold_constants(ignore_errors=maybe)")
    with pytest.raises(gd.TransformError, match="^--transforms: missing '\\)' after the parameters of 'fold_constants' "
                                                "at column 34, found the end of the string$"):
        sample.transform("fold_constants(ignore_errors=true")
    with pytest.raises(gd.TransformError, match="^Transform 'nosuch' not recognized. Valid transforms: "):
        sample.transform("nosuch")
    with pytest.raises(gd.ArgumentError, match="^format must be pb, pbtxt or tflite, got 'onnx'$"):
        sample.to_bytes("onnx")
    with pytest.raises(gd.ArgumentError, match="^expected a gdstudio.Model or a path, got int$"):
        gd.benchmark(3)
