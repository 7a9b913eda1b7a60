"""Shared pieces of the gdstudio module's tests.

ctest runs them with the build's module on PYTHONPATH. GDS_SHARED_DIR names the model
corpus (models/ and data/; tests that need it skip without it) and GDS_GDSTUDIO the
command line the module's results are checked against; ctest's defaults for both are
the build's (GDS_SHARED_DIR_DEFAULT, GDS_GDSTUDIO_DEFAULT)."""

import json
import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("GDS_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SHARED_DIR = pathlib.Path(os.environ.get("GDS_SHARED_DIR") or os.environ.get("GDS_SHARED_DIR_DEFAULT")
                          or SOURCE_DIR.parent / "shared")
GDSTUDIO = os.environ.get("GDS_GDSTUDIO") or os.environ.get("GDS_GDSTUDIO_DEFAULT", "")

MOBILENET = "mobilenet_v1_0.25_128_frozen.pb"
MOBILENET_OUTPUT = "MobilenetV1/Predictions/Reshape_1"
# The user guide's pipeline for MobileNet (docs/user-guide.md, "Optimise one step at a time").
GUIDE_PIPELINE = ('strip_unused_nodes(type=float, shape="1,128,128,3") fold_constants(ignore_errors=true) '
                  'fold_batch_norms fold_old_batch_norms')


@pytest.fixture(scope="session")
def sample_model_path():
    return SOURCE_DIR / "resources" / "sample_model.pb"


@pytest.fixture(scope="session")
def shared():
    if not (SHARED_DIR / "models").is_dir():
        pytest.skip(f"model corpus not found at {SHARED_DIR} (set GDS_SHARED_DIR)")
    return SHARED_DIR


@pytest.fixture(scope="session")
def cli():
    """Runs the gdstudio command line: cli(args) -> stdout; cli.json(args) -> parsed --format=json."""
    if not GDSTUDIO or not os.access(GDSTUDIO, os.X_OK):
        pytest.skip("the gdstudio command line is not built (GDS_GDSTUDIO)")

    class Cli:
        def __call__(self, *args):
            env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
            r = subprocess.run([GDSTUDIO, *map(str, args)], capture_output=True, text=True, env=env)
            assert r.returncode == 0, f"gdstudio {' '.join(map(str, args))}: {r.stderr}"
            return r.stdout

        def json(self, *args):
            return json.loads(self(*args, "--format=json"))

    return Cli()


def images(shared_dir):
    """The photos of the test data, sorted as a dataset folder lists them (labels.csv left out)."""
    folder = shared_dir / "data" / "images"
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg"))


def matmul_chain(layers):
    """A GraphDef (text) computing y = tanh(y @ x) `layers` times from y = x, x a square
    float matrix of any size: a run as long as one wants, one node after another."""
    lines = ['node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } '
             'attr { key: "shape" value { shape { dim { size: -1 } dim { size: -1 } } } } }']
    prev = "x"
    for i in range(layers):
        lines.append(f'node {{ name: "m{i}" op: "MatMul" input: "{prev}" input: "x" '
                     'attr { key: "T" value { type: DT_FLOAT } } }')
        lines.append(f'node {{ name: "t{i}" op: "Tanh" input: "m{i}" attr {{ key: "T" value {{ type: DT_FLOAT }} }} }}')
        prev = f"t{i}"
    return "\n".join(lines).encode(), prev
