"""docs/python_example.py, the notebook-style walk through the user guide's journey, runs
as a script from start to end and prints what the guide says it shows."""

import os
import subprocess
import sys

from conftest import SOURCE_DIR


def test_the_notebook_example_runs(shared):
    r = subprocess.run([sys.executable, str(SOURCE_DIR / "docs" / "python_example.py"), str(shared)],
                       capture_output=True, text=True, env=os.environ, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "inputs: [TensorSpec(name='input', dtype=dtype('float32'), shape=(1, 128, 128, 3), quantization='')]" in lines
    assert "outputs: ['MobilenetV1/Predictions/Reshape_1']" in lines
    assert any(line.startswith("fold_constants") and line.split()[1:4] == ["555", "->", "202"] for line in lines)
    assert any(line.startswith("fold_batch_norms") and line.split()[1:4] == ["202", "->", "148"] for line in lines)
    assert any(line.startswith("chelsea.png: ") and "cat" in line for line in lines), lines
    assert any(line.startswith("top-1 agreement ") and line.endswith(" dB") for line in lines)
    assert lines[-1] == "int8 export accepted"
