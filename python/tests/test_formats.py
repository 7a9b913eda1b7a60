"""The other formats from Python: a TensorFlow 2 SavedModel (signatures, freezing, a run
checked against numpy on its own weights and against the command line, conversion to
.tflite with its signature), TensorFlow Lite files (run bit for bit against Arm NN's
stored outputs, save and reload) and a Keras file (run against TensorFlow Lite's output,
converted with its layers' names as the command line converts it)."""

import numpy as np
import pytest

import gdstudio as gd

CONV1D = "tf2/nordpool_conv1d"


@pytest.fixture(scope="module")
def saved_model(shared):
    return gd.load(shared / "models" / CONV1D)


def test_tf2_saved_model_signatures_and_freezing(saved_model):
    assert saved_model.kind == "SavedModel"
    serving = next(s for s in saved_model.signatures if s.key == "serving_default")
    assert serving.method == "tensorflow/serving/predict"
    assert serving.function == "__inference_signature_wrapper_536872"
    assert serving.inputs == [gd.SignatureTensor("input_1", "serving_default_input_1:0", np.dtype("float32"),
                                                 (None, 5, 1))]
    assert serving.outputs == [gd.SignatureTensor("dense", "StatefulPartitionedCall:0", np.dtype("float32"), (None, 1))]
    s = saved_model.summary()
    assert s["object_based"] and s["tensorflow_version"] == "2.10.0"
    # Unfrozen, it reads variables: the error says what to do.
    with pytest.raises(gd.RunError, match="the graph reads variables; freeze it first"):
        saved_model.run({"serving_default_input_1": np.zeros((1, 5, 1), np.float32)},
                        outputs="StatefulPartitionedCall")
    frozen = gd.freeze(saved_model)
    assert frozen.kind == "GraphDef"
    assert frozen.inputs == [gd.TensorSpec("input_1", np.dtype("float32"), (None, 5, 1), "")]
    assert frozen.outputs == [gd.TensorSpec("dense", np.dtype("float32"), (None, 1), "")]
    assert not any(n.op in ("VarHandleOp", "StatefulPartitionedCall", "ReadVariableOp") for n in frozen.nodes)
    with pytest.raises(gd.FreezeError, match="no_such_signature"):
        gd.freeze(saved_model, signature="no_such_signature")


def test_tf2_frozen_run_is_the_layers_arithmetic_and_the_clis(saved_model, cli, tmp_path):
    frozen = gd.freeze(saved_model)
    x = np.random.default_rng(3).uniform(-1, 1, (4, 5, 1)).astype(np.float32)
    y = frozen.run({"input_1": x})["dense"]
    assert y.shape == (4, 1)
    # Conv1D(32, kernel 5, valid) -> Flatten -> Dense(1, relu), on the frozen weights.
    weight = {n.name: n.attr["value"].astype(np.float64) for n in frozen.nodes if n.op == "Const"}
    conv = np.einsum("bk,kj->bj", x[:, :, 0], weight["conv1d/kernel"][:, 0, :]) + weight["conv1d/bias"]
    expected = np.maximum(conv @ weight["dense/kernel"] + weight["dense/bias"], 0)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)
    # The command line's freeze and run give the same bits.
    cli("freeze", f"--input_saved_model_dir={saved_model.path}", f"--output_graph={tmp_path / 'frozen.pb'}")
    assert (tmp_path / "frozen.pb").read_bytes() == frozen.to_bytes()
    np.save(tmp_path / "x.npy", x)
    cli("run", f"--graph={tmp_path / 'frozen.pb'}", f"--input=input_1={tmp_path / 'x.npy'}", "--output=dense",
        f"--out_dir={tmp_path}")
    assert np.load(tmp_path / "dense.npy").tobytes() == y.tobytes()


def test_tf2_saved_model_to_tflite_keeps_its_signature(saved_model, cli, tmp_path):
    result = gd.tflite_convert(saved_model, tmp_path / "conv1d.tflite")
    cli("tflite_convert", f"--saved_model_dir={saved_model.path}", f"--output_file={tmp_path / 'cli.tflite'}")
    assert (tmp_path / "conv1d.tflite").read_bytes() == (tmp_path / "cli.tflite").read_bytes()
    (signature,) = result.model.signatures
    assert signature.key == "serving_default"
    assert [(t.key, t.name) for t in signature.inputs] == [("input_1", "input_1:0")]
    # The output tensor is named after its output array, as TensorFlow's converter names it.
    assert [(t.key, t.name) for t in signature.outputs] == [("dense", "dense:0")]
    x = np.random.default_rng(4).uniform(-1, 1, (1, 5, 1)).astype(np.float32)
    expected = gd.freeze(saved_model).run({"input_1": x})["dense"]
    (out,) = result.model.outputs
    np.testing.assert_allclose(result.model.run({"input_1": x})[out.name], expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["hello_world_int8", "hello_world_float", "micro_speech_int8"])
def test_tflite_runs_give_arm_nns_outputs(shared, name):
    model = gd.load(shared / "models" / "tflite" / f"{name}.tflite")
    assert model.kind == "TensorFlow Lite"
    (inp,) = model.inputs
    (out,) = model.outputs
    x = np.load(shared / "models" / "tflite" / f"{name}.input.npy")
    expected = np.load(shared / "models" / "tflite" / f"{name}.output.npy")
    assert inp.dtype == x.dtype and inp.shape == x.shape
    y = model.run({inp.name: x})[out.name]
    assert y.dtype == expected.dtype and y.shape == expected.shape
    if y.dtype == np.int8:
        assert y.tobytes() == expected.tobytes()  # integer arithmetic: bit for bit
    else:
        np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)


def test_arithmetic_picks_the_runtime_an_int8_model_is_run_as(shared, cli, tmp_path):
    # openmv_mobilenet_int8's output as Arm NN computed it: XNNPACK rounds as Arm NN does; TensorFlow
    # Lite's built-in and reference kernels end one step away on some classes.
    path = shared / "models" / "tflite" / "openmv_mobilenet_int8.tflite"
    model = gd.load(path)
    x = np.load(shared / "models" / "tflite" / "openmv_mobilenet_int8.input.npy")
    armnn = np.load(shared / "models" / "tflite" / "openmv_mobilenet_int8.output.npy")
    (inp,) = model.inputs
    (out,) = model.outputs
    got = {}
    for arithmetic in ("tflite-xnnpack", "tflite-builtin", "tflite-reference", "armnn"):
        got[arithmetic] = model.run({inp.name: x}, arithmetic=arithmetic)[out.name]
        folder = tmp_path / arithmetic
        cli("run", f"--graph={path}", f"--input={shared / 'models' / 'tflite' / 'openmv_mobilenet_int8.input.npy'}",
            f"--out_dir={folder}", f"--arithmetic={arithmetic}")
        (written,) = folder.glob("*.npy")
        assert got[arithmetic].tobytes() == np.load(written).tobytes(), arithmetic
    assert got["tflite-xnnpack"].tobytes() == armnn.tobytes()
    assert got["armnn"].tobytes() == armnn.tobytes()
    assert got["tflite-builtin"].tolist() == [[-50, 52, -1, -5, 34]]
    assert got["tflite-reference"].tolist() == [[-50, 52, -2, -4, 34]]
    # The default is what a device runs: XNNPACK.
    assert model.run({inp.name: x})[out.name].tobytes() == armnn.tobytes()
    with pytest.raises(gd.ArgumentError,
                       match="arithmetic must be tflite-xnnpack, tflite-builtin, tflite-reference or armnn, got 'fast'"):
        model.run({inp.name: x}, arithmetic="fast")
    with pytest.raises(gd.ArgumentError, match="arithmetic must be .* got 'xnnpack'"):
        gd.benchmark(model, arithmetic="xnnpack")
    assert len(gd.benchmark(model, warmup_runs=0, max_num_runs=2, arithmetic="armnn").latencies_ms) == 2


def test_a_photo_feeds_an_int8_tflite_input_quantized_with_its_scale(shared, cli, tmp_path):
    # openmv_mobilenet_int8 takes grey pixels quantized with scale 1 and zero point -128: read with
    # mean 0 and std 1 a photo becomes pixel - 128; with the default scaling to [-1, 1] it collapses
    # onto -128 and -127 (TFLite's QUANTIZE: round half away from zero, then clamp).
    path = shared / "models" / "tflite" / "openmv_mobilenet_int8.tflite"
    photo = shared / "data" / "images" / "coffee.png"
    model = gd.load(path)
    (inp,) = model.inputs
    (out,) = model.outputs
    q = gd.read_sample(photo, model=model, mean=0, std=1)
    assert q.dtype == np.int8 and q.shape == (1, 96, 96, 1)
    assert int(q.max()) - int(q.min()) > 100
    assert set(np.unique(gd.read_sample(photo, model=model)).tolist()) <= {-128, -127}
    want = model.run({inp.name: q})[out.name]
    cli("run", f"--graph={path}", f"--input={photo}", "--input_mean=0", "--input_std=1", f"--out_dir={tmp_path}")
    (written,) = tmp_path.glob("*.npy")
    assert np.load(written).tobytes() == want.tobytes()


def test_tflite_quantization_signature_and_save(shared, tmp_path):
    model = gd.load(shared / "models" / "tflite" / "hello_world_int8.tflite")
    assert model.producer == "MLIR Converted."
    assert model.inputs[0].quantization == "scale=0.0244801 zero_point=-128"
    assert [s.key for s in model.signatures] == ["serving_default"]
    model.save(tmp_path / "copy.tflite")
    again = gd.load(tmp_path / "copy.tflite")
    assert again.to_bytes("pb") == model.to_bytes("pb")
    assert again.to_bytes("tflite") == (tmp_path / "copy.tflite").read_bytes()
    with pytest.raises(gd.ConvertError, match="hello_world_int8.tflite is already a TensorFlow Lite model$"):
        gd.tflite_convert(model, tmp_path / "again.tflite")


def test_keras_file_runs_and_converts_with_its_layers_names(shared, cli, tmp_path):
    path = shared / "models" / "keras" / "icu_mlp_k3.12.h5"
    model = gd.load(path)
    assert model.kind == "Keras"
    assert model.producer == "Keras 3.12.1, HDF5 (.h5)"
    (serving,) = model.signatures
    assert serving.key == "serving_default"
    assert [(t.key, t.name) for t in serving.inputs] == [("input_layer", "input_layer:0")]
    assert [(t.key, t.name) for t in serving.outputs] == [("dense_2", "dense_2:0")]
    x = np.load(shared / "models" / "keras" / "icu_mlp_k3.12.input.npy")
    expected = np.load(shared / "models" / "keras" / "icu_mlp_k3.12.tflite_output.npy")
    np.testing.assert_allclose(model.run({"input_layer": x})["dense_2"], expected, rtol=1e-5, atol=1e-6)
    # tflite_convert takes the layers as the arrays, as the command line's --keras_model_file.
    result = gd.tflite_convert(model, tmp_path / "icu.tflite")
    cli("tflite_convert", f"--keras_model_file={path}", f"--output_file={tmp_path / 'cli.tflite'}")
    assert (tmp_path / "icu.tflite").read_bytes() == (tmp_path / "cli.tflite").read_bytes()
    (signature,) = result.model.signatures
    assert [t.key for t in signature.inputs] == ["input_layer"]
    assert [t.key for t in signature.outputs] == ["dense_2"]
    (out,) = result.model.outputs
    np.testing.assert_allclose(result.model.run({"input_layer": x})[out.name], expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(gd.LoadError, match="a Keras model \\(zip archive or HDF5 file\\) is read from a file"):
        gd.load_bytes(path.read_bytes(), name="icu.h5")
