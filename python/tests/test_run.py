"""Model.run: numpy in and out (without copies where the dtype and layout allow),
intermediate tensors by name, inputs converted as numpy.asarray would, errors that name
the input, and runs from several Python threads at once with the GIL released."""

import sys
import threading
import time

import numpy as np
import pytest

import gdstudio as gd

from conftest import matmul_chain

SOFTMAX = "MobilenetV1/Predictions/Softmax"
RELU = "MobilenetV1/Conv2d_0/Relu6"


@pytest.fixture(scope="module")
def sample(sample_model_path):
    return gd.load(sample_model_path)


@pytest.fixture(scope="module")
def image():
    return np.random.default_rng(0).uniform(-1, 1, (1, 64, 64, 3)).astype(np.float32)


def test_outputs_by_name_and_intermediate_tensors(sample, image):
    out = sample.run({"input": image})
    assert list(out) == [SOFTMAX]
    probs = out[SOFTMAX]
    assert probs.shape == (1, 10) and probs.dtype == np.float32
    assert abs(float(probs.sum()) - 1) < 1e-5
    both = sample.run({"input": image}, outputs=[RELU, SOFTMAX])
    assert both[RELU].shape == (1, 32, 32, 8)
    assert both[RELU].min() >= 0 and both[RELU].max() <= 6
    # Fetching an intermediate tensor ends the plan-time fusion there; the
    # softmax is the same to rounding.
    np.testing.assert_allclose(both[SOFTMAX], probs, rtol=1e-5, atol=1e-7)
    # The same call twice gives the same bits (the cached plan).
    assert sample.run({"input": image})[SOFTMAX].tobytes() == probs.tobytes()
    # The reference kernels agree to rounding.
    np.testing.assert_allclose(sample.run({"input": image}, reference=True)[SOFTMAX], probs, rtol=1e-4, atol=1e-6)


def test_results_own_the_engines_buffers_and_never_alias(sample, image):
    out = sample.run({"input": image}, outputs=[SOFTMAX, "input"])
    probs = out[SOFTMAX]
    # The engine's buffer, handed over: no copy, kept alive by the array.
    assert not probs.flags.owndata
    assert type(probs.base).__name__ == "PyCapsule"
    assert probs.flags.writeable and probs.flags.c_contiguous
    # A fetched feed shares the caller's buffer: it comes back as a copy.
    echoed = out["input"]
    assert echoed.flags.owndata and not np.shares_memory(echoed, image)
    echoed[...] = 7
    assert image.max() < 1
    # Writing into one result changes no later run.
    probs[...] = -1
    assert sample.run({"input": image})[SOFTMAX].min() >= 0


def test_inputs_are_converted_like_numpy_asarray(sample, image):
    expected = sample.run({"input": image})[SOFTMAX]
    # float64, a non-contiguous view and nested lists all become float32 [1,64,64,3].
    assert sample.run({"input": image.astype(np.float64)})[SOFTMAX].tobytes() == expected.tobytes()
    fortran = np.asfortranarray(image)
    assert sample.run({"input": fortran})[SOFTMAX].tobytes() == expected.tobytes()
    assert sample.run({"input": image.tolist()})[SOFTMAX].tobytes() == expected.tobytes()
    assert sample.run({"input:0": image})[SOFTMAX].tobytes() == expected.tobytes()


def test_input_errors_name_the_input(sample, image):
    with pytest.raises(gd.RunError, match=r"^feed 'input': expected shape \[1,64,64,3\], got \[1,32,32,3\]$"):
        sample.run({"input": np.zeros((1, 32, 32, 3), np.float32)})
    with pytest.raises(gd.RunError, match=r"sample_model.pb: feed 'inputx': no node named 'inputx' in the graph$"):
        sample.run({"inputx": image})
    with pytest.raises(gd.ArgumentError, match="^input 'input': ValueError: could not convert string to float: 'abc'$"):
        sample.run({"input": "abc"})
    with pytest.raises(gd.RunError, match=r"sample_model.pb: node 'input' \(Placeholder\): must be fed: it is a "
                                          "Placeholder of type float that the fetches need; add it to the inputs$"):
        sample.run({})
    with pytest.raises(gd.RunError, match="no node named 'nope'"):
        sample.run({"input": image}, outputs="nope")


def test_string_and_integer_inputs(tmp_path):
    # A graph with a string input and an int32 one (text format, loaded from bytes).
    graph = b"""
node { name: "s" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } }
node { name: "i" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
node { name: "n" op: "Size" input: "s" attr { key: "T" value { type: DT_STRING } }
  attr { key: "out_type" value { type: DT_INT32 } } }
node { name: "sum" op: "AddV2" input: "n" input: "i" attr { key: "T" value { type: DT_INT32 } } }
node { name: "echo" op: "Identity" input: "s" attr { key: "T" value { type: DT_STRING } } }
"""
    m = gd.load_bytes(graph, name="strings.pbtxt")
    assert [(t.name, t.dtype) for t in m.inputs] == [("s", np.dtype("O")), ("i", np.dtype("int32"))]
    out = m.run({"s": [b"ab", "cde"], "i": [10, 20]}, outputs=["sum", "echo"])
    assert out["sum"].tolist() == [12, 22] and out["sum"].dtype == np.int32
    assert out["echo"].tolist() == [b"ab", b"cde"]
    scalar = m.run({"s": b"wxyz", "i": 1}, outputs=["sum", "echo"])
    assert scalar["sum"] == 2 and scalar["echo"] == b"wxyz"


def test_two_threads_run_one_model_at_once(sample):
    rng = np.random.default_rng(1)
    images = [rng.uniform(-1, 1, (1, 64, 64, 3)).astype(np.float32) for _ in range(8)]
    expected = [sample.run({"input": x})[SOFTMAX].tobytes() for x in images]
    results = {}
    errors = []

    def work(k):
        try:
            for rep in range(5):
                for i in range(k, len(images), 2):
                    results[(k, rep, i)] = sample.run({"input": images[i]})[SOFTMAX].tobytes()
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 40
    for (k, rep, i), got in results.items():
        assert got == expected[i], (k, rep, i)


def test_the_gil_is_released_while_the_model_runs():
    # A pure-Python thread keeps time-stamping while the main thread is inside
    # one long run(): with the GIL held while the model runs, it could only run
    # at the call's two ends.
    graph, last = matmul_chain(60)
    chain = gd.load_bytes(graph, name="chain.pbtxt")
    x = np.random.default_rng(2).uniform(-0.05, 0.05, (384, 384)).astype(np.float32)
    chain.run({"x": x[:4, :4]}, outputs=last)  # compile first
    stamps = []
    stop = threading.Event()

    def stamp():
        while not stop.is_set():
            stamps.append(time.perf_counter())

    old = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    t = threading.Thread(target=stamp)
    try:
        t.start()
        time.sleep(0.01)
        start = time.perf_counter()
        chain.run({"x": x}, outputs=last, threads=1)
        end = time.perf_counter()
    finally:
        stop.set()
        t.join()
        sys.setswitchinterval(old)
    if end - start < 0.05:
        pytest.skip(f"the run took {end - start:.3f} s; too short to tell")
    # The call's two ends (argument conversion, taking the GIL back, which a
    # loaded machine can delay) are left out: the middle third of the call is
    # the model running.
    third = (end - start) / 3
    inside = [s for s in stamps if start + third < s < end - third]
    assert len(inside) > 100, "Python code did not run while the model ran"
