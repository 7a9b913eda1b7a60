"""The user guide's journey from Python, checked against the command line: load the
corpus MobileNet, transform it with the guide's pipeline, run it on a photo (the same
bits as `gdstudio run`), convert it to int8 with a Python generator over the photos (the
same file as `gdstudio tflite_convert --calibration_data`), compare float and int8 on the
photos (the same figures as `gdstudio compare`), benchmark and calibrate it."""

import math

import numpy as np
import pytest

import gdstudio as gd

from conftest import GUIDE_PIPELINE, MOBILENET, MOBILENET_OUTPUT, images

OUT = MOBILENET_OUTPUT


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("journey")


@pytest.fixture(scope="module")
def model(shared):
    return gd.load(shared / "models" / MOBILENET)


@pytest.fixture(scope="module")
def opt(model, work):
    opt = model.transform(GUIDE_PIPELINE, inputs="input", outputs=OUT)
    opt.save(work / "opt.pb")
    return opt


@pytest.fixture(scope="module")
def int8(opt, shared, work):
    def representative_dataset():
        for path in images(shared):
            yield {"input": gd.read_sample(path, opt)}

    return gd.tflite_convert(opt, work / "int8.tflite", inputs=["input"], outputs=[OUT], quantize="int8",
                             representative_dataset=representative_dataset)


def test_load_and_transform_with_the_guides_pipeline(model, opt, cli, work):
    assert model.inputs == [gd.TensorSpec("input", np.dtype("float32"), (1, 128, 128, 3), "")]
    assert [o.name for o in model.outputs] == [OUT]
    assert model.summary()["node_count"] == 555
    # The guide: fold_constants leaves 202 nodes, fold_batch_norms 148.
    steps = [(s.name, s.nodes_after) for s in opt.steps]
    assert steps[1:3] == [("fold_constants", 202), ("fold_batch_norms", 148)]
    assert steps[0][0] == "strip_unused_nodes" and steps[3][0] == "fold_old_batch_norms"
    assert opt.steps[2].diff["flops"]["change"] == 0
    # The graph `gdstudio transform` writes, byte for byte.
    cli("transform", f"--in_graph={model.path}", f"--out_graph={work / 'cli_opt.pb'}", "--inputs=input",
        f"--outputs={OUT}", f"--transforms={GUIDE_PIPELINE}")
    assert (work / "cli_opt.pb").read_bytes() == opt.to_bytes()


def test_run_on_a_photo_gives_gdstudio_runs_bits(opt, shared, cli, work):
    photo = shared / "data" / "images" / "chelsea.png"
    x = gd.read_sample(photo, opt)
    assert x.shape == (1, 128, 128, 3) and x.dtype == np.float32
    assert -1 <= x.min() and x.max() <= 1
    np.save(work / "chelsea.npy", x)
    probs = opt.run({"input": x})[OUT]
    cli("run", f"--graph={work / 'opt.pb'}", f"--input=input={work / 'chelsea.npy'}", f"--output={OUT}",
        f"--out_dir={work / 'run'}")
    expected = np.load(work / "run" / (OUT.replace("/", "_") + ".npy"))
    assert probs.dtype == expected.dtype and probs.shape == expected.shape
    assert probs.tobytes() == expected.tobytes()
    labels = (shared / "models" / "mobilenet_v1_0.25_128_labels.txt").read_text().splitlines()
    top5 = [labels[i] for i in probs[0].argsort()[::-1][:5]]
    assert any(name.split(":")[-1].strip() in ("tabby, tabby cat", "tiger cat", "Egyptian cat", "lynx, catamount")
               for name in top5), top5


def test_int8_from_a_python_generator_is_the_clis_file(int8, opt, shared, cli, work):
    assert int8.calibration_inputs == 7
    assert int8.path == str(work / "int8.tflite")
    assert int8.bytes == (work / "int8.tflite").stat().st_size
    assert int8.model.kind == "TensorFlow Lite"
    assert int8.model.inputs[0].dtype == np.float32  # QUANTIZE at the input
    assert int8.operators == sum(1 for n in int8.model.nodes if n.op.startswith("tfl.") and n.op != "tfl.no_value")
    cli("tflite_convert", f"--graph_def_file={work / 'opt.pb'}", f"--output_file={work / 'cli_int8.tflite'}",
        "--input_arrays=input", f"--output_arrays={OUT}", "--quantize=int8",
        f"--calibration_data={shared / 'data' / 'images'}")
    assert (work / "cli_int8.tflite").read_bytes() == (work / "int8.tflite").read_bytes()
    # A folder gives the same file, and so does a list of lists in input order.
    same = gd.tflite_convert(opt, work / "folder.tflite", inputs="input", outputs=OUT, quantize="int8",
                             representative_dataset=shared / "data" / "images")
    assert (work / "folder.tflite").read_bytes() == (work / "int8.tflite").read_bytes()
    assert same.calibration_inputs == 7
    samples = [[gd.read_sample(p, opt)] for p in images(shared)]
    gd.tflite_convert(opt, work / "lists.tflite", inputs="input", outputs=OUT, quantize="int8",
                      representative_dataset=samples)
    assert (work / "lists.tflite").read_bytes() == (work / "int8.tflite").read_bytes()


def test_float16_weights_are_the_clis_file(opt, cli, work):
    half = gd.tflite_convert(opt, work / "f16.tflite", inputs="input", outputs=OUT, quantize="float16")
    cli("tflite_convert", f"--graph_def_file={work / 'opt.pb'}", f"--output_file={work / 'cli_f16.tflite'}",
        "--input_arrays=input", f"--output_arrays={OUT}", "--quantize=float16")
    assert (work / "cli_f16.tflite").read_bytes() == (work / "f16.tflite").read_bytes()
    assert half.calibration_inputs == 0
    assert sum(1 for n in half.model.nodes if n.op == "tfl.dequantize") == 56  # 28 weights, 28 biases
    with pytest.raises(gd.ArgumentError, match="quantize must be None, 'int8', 'float16', 'dynamic' or 'int16x8', got 'int4'"):
        gd.tflite_convert(opt, work / "x.tflite", inputs="input", outputs=OUT, quantize="int4")


def test_dynamic_range_is_the_clis_file(opt, cli, work):
    dynamic = gd.tflite_convert(opt, work / "dyn.tflite", inputs="input", outputs=OUT, quantize="dynamic")
    cli("tflite_convert", f"--graph_def_file={work / 'opt.pb'}", f"--output_file={work / 'cli_dyn.tflite'}",
        "--input_arrays=input", f"--output_arrays={OUT}", "--post_training_quantize")
    assert (work / "cli_dyn.tflite").read_bytes() == (work / "dyn.tflite").read_bytes()
    assert dynamic.calibration_inputs == 0
    # The 19 weights of 1024 or more elements are int8; the model's activations stay float.
    assert sum(1 for n in dynamic.model.nodes if n.op == "Const" and n.attr.get("dtype") == "int8") == 19


def test_calibration_method_is_the_clis(opt, shared, cli, work):
    photos = shared / "data" / "images"
    mse = gd.tflite_convert(opt, work / "mse.tflite", inputs="input", outputs=OUT, quantize="int8",
                            representative_dataset=photos, calibration_method="histogram_mse_max_frequency")
    cli("tflite_convert", f"--graph_def_file={work / 'opt.pb'}", f"--output_file={work / 'cli_mse.tflite'}",
        "--input_arrays=input", f"--output_arrays={OUT}", "--quantize=int8", f"--calibration_data={photos}",
        "--calibration_method=histogram_mse_max_frequency")
    assert (work / "cli_mse.tflite").read_bytes() == (work / "mse.tflite").read_bytes()
    assert mse.calibration_inputs == 7
    min_max = gd.tflite_convert(opt, work / "mm.tflite", inputs="input", outputs=OUT, quantize="int8",
                                representative_dataset=photos)
    assert (work / "mm.tflite").read_bytes() != (work / "mse.tflite").read_bytes()
    assert min_max.calibration_inputs == 7
    with pytest.raises(gd.ArgumentError, match="calibration_method: 'kl' is not a calibration method"):
        gd.tflite_convert(opt, work / "bad.tflite", inputs="input", outputs=OUT, quantize="int8",
                          representative_dataset=photos, calibration_method="kl")
    assert not (work / "bad.tflite").exists()


def test_int16x8_is_the_clis_file(opt, shared, cli, work):
    photos = shared / "data" / "images"
    q16 = gd.tflite_convert(opt, work / "q16.tflite", inputs="input", outputs=OUT, quantize="int16x8",
                            representative_dataset=photos)
    cli("tflite_convert", f"--graph_def_file={work / 'opt.pb'}", f"--output_file={work / 'cli_q16.tflite'}",
        "--input_arrays=input", f"--output_arrays={OUT}", "--quantize=int16x8", f"--calibration_data={photos}")
    assert (work / "cli_q16.tflite").read_bytes() == (work / "q16.tflite").read_bytes()
    assert q16.calibration_inputs == 7
    # int8 weights, int64 biases (one per convolution), the input quantized to int16.
    consts = [n.attr.get("dtype") for n in q16.model.nodes if n.op == "Const"]
    assert consts.count("int64") == 28 and consts.count("int8") == 28
    assert [n.name for n in q16.model.nodes if n.op == "tfl.quantize"] == ["input_int16"]
    with pytest.raises(gd.ArgumentError, match="quantize='int16x8' needs representative_dataset"):
        gd.tflite_convert(opt, work / "bad.tflite", inputs="input", outputs=OUT, quantize="int16x8")
    with pytest.raises(gd.ArgumentError, match="'int16' \\(16x8\\), got 'int4'"):
        gd.tflite_convert(opt, work / "bad.tflite", inputs="input", outputs=OUT, quantize="int16x8",
                          representative_dataset=photos, inference_input_type="int4")
    assert not (work / "bad.tflite").exists()


def test_denylisted_operators_are_the_clis(opt, shared, cli, work):
    photos = shared / "data" / "images"
    layer = "MobilenetV1/MobilenetV1/Conv2d_10_pointwise/Relu6"
    mixed = gd.tflite_convert(opt, work / "mixed.tflite", inputs="input", outputs=OUT, quantize="int8",
                              representative_dataset=photos, denylisted_nodes=[layer])
    cli("tflite_convert", f"--graph_def_file={work / 'opt.pb'}", f"--output_file={work / 'cli_mixed.tflite'}",
        "--input_arrays=input", f"--output_arrays={OUT}", "--quantize=int8", f"--calibration_data={photos}",
        f"--denylisted_nodes={layer}")
    assert (work / "cli_mixed.tflite").read_bytes() == (work / "mixed.tflite").read_bytes()
    # The layer keeps its float weights, between a DEQUANTIZE and a QUANTIZE.
    ops = [n.op for n in mixed.model.nodes]
    assert ops.count("tfl.dequantize") == 2 and ops.count("tfl.quantize") == 2
    with pytest.raises(gd.ArgumentError, match="need quantize='int8'"):
        gd.tflite_convert(opt, work / "bad.tflite", inputs="input", outputs=OUT, denylisted_ops="SOFTMAX")
    assert not (work / "bad.tflite").exists()


def test_accuracy_budget_is_the_clis(opt, shared, cli, work):
    photos = shared / "data" / "images"
    layer = "MobilenetV1/MobilenetV1/Conv2d_10_pointwise/Relu6"
    r = gd.tflite_convert(opt, work / "budget.tflite", inputs="input", outputs=OUT, quantize="int8",
                          representative_dataset=photos, accuracy_budget="agreement:100%")
    expected = cli.json("tflite_convert", f"--graph_def_file={work / 'opt.pb'}",
                        f"--output_file={work / 'cli_budget.tflite'}", "--input_arrays=input", f"--output_arrays={OUT}",
                        "--quantize=int8", f"--calibration_data={photos}", "--accuracy_budget=agreement:100%")
    assert (work / "cli_budget.tflite").read_bytes() == (work / "budget.tflite").read_bytes()
    b, e = r.accuracy_budget, expected["accuracy_budget"]
    assert b["budget"] == "agreement:100%" and b["chosen"] == e["chosen"] == 1
    assert b["path"][1]["float_operators"] == [layer]
    # The same figures but the desktop latency, which is timed in each run.
    def untimed(candidates):
        return [{k: v for k, v in c.items() if k != "latency_ms"} for c in candidates]
    assert untimed(b["path"]) == untimed(e["path"]) and untimed(b["ranking"]) == untimed(e["ranking"])
    assert b["sensitivity"] == e["sensitivity"]
    first = b["sensitivity"][0]
    assert first["node"] == layer and first["op"] == "CONV_2D"
    assert first["why"].startswith(f"float, it removes {100 * first['error_share']:.1f}% of the output error")
    assert gd.tflite_convert(opt, work / "plain.tflite", inputs="input", outputs=OUT).accuracy_budget is None
    # A budget out of reach: nothing written, the best figure said.
    with pytest.raises(gd.ConvertError, match="accuracy_budget=sqnr:60: no model meets it; the best reached is "):
        gd.tflite_convert(opt, work / "bad.tflite", inputs="input", outputs=OUT, quantize="int8",
                          representative_dataset=photos, accuracy_budget="sqnr:60", accuracy_budget_max_float=1)
    def samples():
        for path in images(shared):
            yield {"input": gd.read_sample(path, opt)}
    with pytest.raises(gd.ArgumentError, match="give accuracy_data"):
        gd.tflite_convert(opt, work / "bad.tflite", inputs="input", outputs=OUT, quantize="int8",
                          representative_dataset=samples, accuracy_budget="agreement:100%")
    with pytest.raises(gd.ArgumentError, match="accuracy_data and label_map are for accuracy_budget"):
        gd.tflite_convert(opt, work / "bad.tflite", inputs="input", outputs=OUT, label_map=["a"])
    with pytest.raises(gd.ArgumentError, match="accuracy_budget: 'top5:1' is not an accuracy budget"):
        gd.tflite_convert(opt, work / "bad.tflite", inputs="input", outputs=OUT, quantize="int8",
                          representative_dataset=photos, accuracy_budget="top5:1")
    assert not (work / "bad.tflite").exists()


def test_compare_on_the_photos_gives_gdstudio_compares_figures(opt, int8, shared, cli, work):
    photos = shared / "data" / "images"
    label_map = shared / "models" / "mobilenet_v1_0.25_128_labels.txt"
    result = gd.compare(opt, int8.model, inputs=photos, label_map=label_map, per_layer=False)
    expected = cli.json("compare", f"--graph={work / 'opt.pb'}", f"--graph2={int8.path}", f"--dataset={photos}",
                        f"--label_map={label_map}", f"--output={OUT}")
    assert result.inputs == expected["inputs"] == 7
    assert result.agree == expected["top1_agreement"]
    assert result.labelled == expected["labelled"] == 3
    assert result.correct_reference / result.labelled == expected["accuracy_float"]
    assert result.correct_other / result.labelled == expected["accuracy_8bit"]
    assert result.mean_sqnr_db == expected["mean_sqnr_db"]
    assert [(s.file, s.top1_reference, s.top1_other, s.sqnr_db) for s in result.samples] == [
        (i["file"], i["top1_float"], i["top1_8bit"], i["sqnr_db"]) for i in expected["items"]]
    assert [(c.reference, c.other, c.count) for c in result.confusion] == [
        (c["float"], c["8bit"], c["count"]) for c in expected.get("confusion", [])]
    # The CI gate of the guide: int8 within one labelled photo of float.
    assert result.correct_other >= result.correct_reference - 1
    # A generator of the same photos gives the same per-sample figures
    # (no labels: a folder's labels.csv does not come with a generator).
    gen = gd.compare(opt, int8.model, inputs=({"input": gd.read_sample(p, opt)} for p in images(shared)),
                     per_layer=False)
    assert [s.sqnr_db for s in gen.samples] == [s.sqnr_db for s in result.samples]
    assert gen.agree == result.agree and gen.labelled == 0
    assert [s.file for s in gen.samples] == [f"sample {i}" for i in range(7)]


def test_compare_on_one_photo_gives_the_per_layer_table(opt, int8, shared, cli, work):
    photo = shared / "data" / "images" / "chelsea.png"
    result = gd.compare(opt, int8.model, inputs=photo)
    expected = cli.json("compare", f"--graph={work / 'opt.pb'}", f"--graph2={int8.path}", f"--input={photo}",
                        f"--output={OUT}", "--layers=0")
    (out,) = result.outputs
    (want,) = expected["outputs"]
    assert (out.name, out.max_abs, out.mean_abs, out.rmse, out.sqnr_db, out.cosine) == (
        want["name"], want["max_abs"], want["mean_abs"], want["rmse"], want["sqnr_db"], want["cosine"])
    assert out.classifier and out.rows == want["rows"] and out.top1_agree == want["top1_agree"]
    assert [str(out.top1_reference[0]), str(out.top1_other[0])] == [want["top1_float"], want["top1_8bit"]]
    assert len(result.layers) == len(expected["layers"]) > 20
    for layer, row in zip(result.layers, expected["layers"]):
        sqnr = 999.0 if math.isinf(layer.sqnr_db) else layer.sqnr_db
        assert (layer.name, sqnr, layer.rmse, layer.step, layer.rmse_over_step) == (
            row["name"], row["sqnr_db"], row["rmse"], row["step"], row["rmse_over_step"])
    # The same photo as an array, by input name.
    by_array = gd.compare(opt, int8.model, inputs={"input": gd.read_sample(photo, opt)})
    assert by_array.outputs == result.outputs and by_array.layers == result.layers


def test_benchmark_reports_benchmark_models_figures(opt, cli, work):
    calls = []
    result = gd.benchmark(opt, max_num_runs=5, max_time=0, threads=1,
                          progress=lambda done, total, phase: calls.append((phase, done)))
    expected = cli.json("benchmark", f"--graph={work / 'opt.pb'}", "--input_layer=input",
                        "--input_layer_shape=1,128,128,3", f"--output_layer={OUT}", "--num_runs=5", "--max_time=0",
                        "--num_threads=1")
    report = result.report
    assert report["latency_ms"]["runs"] == 5 == len(result.latencies_ms)
    assert report["flops"] == expected["flops"]
    assert report["nodes_defined"] == expected["nodes_defined"] == 148
    assert [n["name"] for n in result.nodes] == [n["name"] for n in expected["nodes"]]
    # The op types (ordered by time, which varies between runs).
    assert sorted((t["type"], t["count"]) for t in result.node_types) == sorted(
        (t["type"], t["count"]) for t in expected["node_types"])
    assert report["num_threads"] == 1
    assert report["latency_ms"]["min"] == min(result.latencies_ms)
    assert "Run Order" in result.tables and "FLOPs estimate:" in result.tables
    assert ("timing", 5) in calls and calls[0] == ("warmup", 1)


def test_calibrate_gives_gdstudio_calibrates_graph(opt, shared, cli, work):
    q = opt.transform("quantize_weights quantize_nodes", inputs="input", outputs=OUT)
    q.save(work / "q.pb")
    photos = shared / "data" / "images"
    result = gd.calibrate(q, photos)
    cli("calibrate", f"--graph={work / 'q.pb'}", f"--dataset={photos}", f"--output_graph={work / 'cli_q.pb'}")
    assert result.model.to_bytes() == (work / "cli_q.pb").read_bytes()
    assert len(result.ranges) > 10
    for r in result.ranges:
        assert len(r.observed) == 7
        assert min(lo for lo, _ in r.observed) <= r.frozen_min <= r.frozen_max <= max(hi for _, hi in r.observed)
    # A generator of the photos freezes the same ranges.
    again = gd.calibrate(q, ({"input": gd.read_sample(p, q)} for p in images(shared)))
    assert again.model.to_bytes() == result.model.to_bytes()


def test_records_are_one_call_from_a_dataframe(opt, int8, shared):
    pd = pytest.importorskip("pandas")
    result = gd.compare(opt, int8.model, inputs=shared / "data" / "images")
    layers = pd.DataFrame(result.layers)
    assert list(layers.columns) == list(gd.LayerError._fields)
    assert len(layers) == len(result.layers) and layers["name"].tolist() == [l.name for l in result.layers]
    assert list(pd.DataFrame(result.samples).columns) == list(gd.SampleResult._fields)
    timing = gd.benchmark(opt, max_num_runs=2, max_time=0, threads=1)
    assert "avg_ms" in pd.DataFrame(timing.node_types).columns


def test_recurrent_model_unrolled_with_the_converters_ops_sets(shared, work):
    """The keyword LSTM's tf.nn.dynamic_rnn loop is unrolled (25 steps); the int8 export keeps
    every operator int8 under supported_ops=['TFLITE_BUILTINS_INT8'], as TensorFlow's does."""
    lstm = gd.load(shared / "models" / "kws_lstm_s.pb")
    kw = dict(inputs="Mfcc", outputs="labels_softmax", input_shapes=[(1, 25, 10)])
    flt = gd.tflite_convert(lstm, work / "lstm.tflite", **kw)
    ops = [n.op for n in flt.model.nodes]
    assert ops.count("tfl.fully_connected") == 51 and ops.count("tfl.unpack") == 1
    x = np.random.RandomState(5).uniform(-40, 20, (1, 25, 10)).astype(np.float32)
    want = lstm.run({"Mfcc": x}, outputs=["labels_softmax"])["labels_softmax"]
    got = flt.model.run({"Mfcc": x})["labels_softmax"]
    assert np.abs(got - want).max() < 1e-6
    rng = np.random.RandomState(6)
    frames = [{"Mfcc": rng.uniform(-40, 20, (1, 25, 10)).astype(np.float32)} for _ in range(8)]
    int8 = gd.tflite_convert(lstm, work / "lstm_int8.tflite", quantize="int8", representative_dataset=frames,
                             supported_ops=["TFLITE_BUILTINS_INT8"], **kw)
    ops = [n.op for n in int8.model.nodes]
    assert ops.count("tfl.dequantize") == 1 and ops.count("tfl.split") == 25
    with pytest.raises(gd.ArgumentError, match="'SELECT_TF_OPS' is not an ops set gdstudio writes"):
        gd.tflite_convert(lstm, work / "bad.tflite", supported_ops=["SELECT_TF_OPS"], **kw)
