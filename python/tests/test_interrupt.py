"""Ctrl+C and progress callbacks: SIGINT stops a long run between two nodes and a
benchmark between two runs, raising KeyboardInterrupt, and the model runs normally
afterwards; an exception raised by a progress callback or a sample generator stops
the call and comes out of it."""

import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import gdstudio as gd

from conftest import matmul_chain

# The child process says "ready" on stdout as it starts the call; half a second
# into the call the parent sends SIGINT, as a terminal does for Ctrl+C.
CHILD = textwrap.dedent("""
    import sys, numpy as np, gdstudio as gd
    sys.path.insert(0, {tests!r})
    from conftest import matmul_chain
    graph, last = matmul_chain(400)
    model = gd.load_bytes(graph, name="chain.pbtxt")
    x = np.full((1024, 1024), 1e-3, np.float32)
    small = model.run({{"x": x[:8, :8]}}, outputs=last)[last]  # compiled and cached
    try:
        print("ready", flush=True)
        {call}
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    again = model.run({{"x": x[:8, :8]}}, outputs=last)[last]
    print("runs again" if again.tobytes() == small.tobytes() else "differs", flush=True)
""")


def interrupt(call):
    tests = str(pathlib.Path(__file__).parent)
    child = subprocess.Popen([sys.executable, "-c", CHILD.format(tests=tests, call=call)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=os.environ)
    assert child.stdout.readline() == "ready\n", child.stderr.read()
    time.sleep(0.5)
    child.send_signal(signal.SIGINT)
    try:
        out, err = child.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        raise AssertionError("Ctrl+C did not stop the call within 300 s")
    assert child.returncode == 0, err
    return out.splitlines()


def test_ctrl_c_stops_a_long_run():
    # 400 products of 1024 x 1024 matrices: minutes of work, stopped at once.
    assert interrupt('model.run({"x": x}, outputs=last)') == ["interrupted", "runs again"]


def test_ctrl_c_stops_a_benchmark():
    assert interrupt('gd.benchmark(model, inputs={"x": x[:64, :64]}, outputs=last, max_num_runs=10**9, '
                     'max_time=0, threads=1)') == ["interrupted", "runs again"]


def test_a_progress_callback_that_raises_stops_the_benchmark(sample_model_path):
    seen = []

    def progress(done, total, phase):
        seen.append((phase, done))
        if phase == "timing" and done == 3:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="^enough$"):
        gd.benchmark(sample_model_path, max_num_runs=1000, max_time=0, threads=1, progress=progress)
    assert seen[-1] == ("timing", 3)
    assert ("warmup", 1) in seen


def test_a_failing_sample_generator_stops_compare(sample_model_path):
    model = gd.load(sample_model_path)

    def samples():
        yield {"input": np.zeros((1, 64, 64, 3), np.float32)}
        raise OSError("camera unplugged")

    with pytest.raises(OSError, match="^camera unplugged$"):
        gd.compare(model, model, inputs=samples())
    # A sample that does not fit the model is reported by name.
    with pytest.raises(gd.ArgumentError, match="^sample 1 has no value for the input 'input'$"):
        gd.compare(model, model, inputs=[{"input": np.zeros((1, 64, 64, 3), np.float32)}, {"image": 0}])
