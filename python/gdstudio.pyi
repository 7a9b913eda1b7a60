"""GraphDef Studio from Python: open TensorFlow graphs, SavedModels and TensorFlow Lite models,
transform them with the Graph Transform Tool's transforms, run them in gdstudio's interpreter,
benchmark and compare them, and convert them to TensorFlow Lite (float or int8)."""

import os
from typing import Any, Callable, Dict, Iterable, List, Literal, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

__version__: str

PathLike = Union[str, os.PathLike]
Shape = Optional[Tuple[Optional[int], ...]]
# A sample: values by input name, values in input order, or one value for a one-input model.
Sample = Union[Mapping[str, Any], Sequence[Any], np.ndarray]
# progress(done, total, what); total is -1 when unknown.
Progress = Optional[Callable[[int, int, str], Any]]
# Whose int8 rounding an 8-bit .tflite model follows (gdstudio --arithmetic).
Arithmetic = Literal["tflite-xnnpack", "tflite-builtin", "tflite-reference", "armnn"]

class Error(Exception):
    """Base class of gdstudio's errors; str(e) is gdstudio's message."""

class LoadError(Error):
    """A model file (or bytes) could not be read: the message names the file."""

class SaveError(Error):
    """A model could not be written; a file already there is left as it was."""

class TransformError(Error):
    """A transform failed: the message names the transform and parameter."""

class FreezeError(Error):
    """Freezing failed: the message names the variable, checkpoint or signature."""

class RunError(Error):
    """Compiling or running a model failed: the message names the node, op or input."""

class ConvertError(Error):
    """Conversion to TensorFlow Lite or calibration failed."""

class RenderError(Error):
    """The graph could not be drawn."""

class ArgumentError(Error, ValueError):
    """An argument has the wrong value (also a ValueError)."""

class TensorSpec(NamedTuple):
    """A model input or output: name, numpy dtype (None when unknown), shape (None for an unknown
    dimension; None for an unknown rank) and quantization ('scale=... zero_point=...' or '')."""
    name: str
    dtype: Optional[np.dtype]
    shape: Shape
    quantization: str

class Node(NamedTuple):
    """A node of the graph: name, op type, inputs ('node:port', '^control'), device and attributes."""
    name: str
    op: str
    inputs: List[str]
    device: str
    attr: Dict[str, Any]

class SignatureTensor(NamedTuple):
    """A signature's input or output: its alias, tensor name, numpy dtype and shape."""
    key: str
    name: str
    dtype: Optional[np.dtype]
    shape: Shape

class Signature(NamedTuple):
    """A SignatureDef: key, method name, the function it runs (TF2) and its inputs and outputs."""
    key: str
    method: str
    function: str
    inputs: List[SignatureTensor]
    outputs: List[SignatureTensor]

class Step(NamedTuple):
    """One transform step: what ran, how long, node counts before and after, the ignored error if
    any, the one-line summary and the before/after difference (as `gdstudio diff --format=json`)."""
    name: str
    text: str
    params: Dict[str, List[str]]
    seconds: float
    nodes_before: int
    nodes_after: int
    ignored_error: bool
    message: str
    summary: str
    diff: Optional[Dict[str, Any]]

class TransformInfo(NamedTuple):
    """A transform of the catalogue: its name, one-line summary and (name, help) parameters."""
    name: str
    summary: str
    params: List[Tuple[str, str]]

class BenchmarkResult(NamedTuple):
    """benchmark's result: report is the document of `gdstudio benchmark --format=json`, nodes and
    node_types its tables (lists of dicts), latencies_ms every timed run, tables TensorFlow's
    benchmark_model tables as text."""
    report: Dict[str, Any]
    nodes: List[Dict[str, Any]]
    node_types: List[Dict[str, Any]]
    latencies_ms: List[float]
    tables: str

class OutputError(NamedTuple):
    """An output compared: errors of `other` against `reference`; for a classifier the rows whose
    top-1 agree, the top-5 overlap and (one sample) the top-1 class ids per row."""
    name: str
    samples: int
    count: int
    max_abs: float
    mean_abs: float
    rmse: float
    sqnr_db: float
    cosine: float
    classifier: bool
    rows: int
    top1_agree: int
    top5_overlap: float
    top1_reference: Optional[List[int]]
    top1_other: Optional[List[int]]

class LayerError(NamedTuple):
    """A tensor found in both models by name: its error, quantization step and RMSE / step."""
    name: str
    samples: int
    count: int
    max_abs: float
    mean_abs: float
    rmse: float
    sqnr_db: float
    cosine: float
    step: float
    rmse_over_step: float

class Comparison(NamedTuple):
    """compare on one input: OutputError records, and LayerError records worst first."""
    outputs: List[OutputError]
    layers: List[LayerError]

class SampleResult(NamedTuple):
    """One sample of a dataset comparison."""
    file: str
    top1_reference: str
    top1_other: str
    sqnr_db: float
    labelled: bool
    correct_reference: bool
    correct_other: bool

class Confusion(NamedTuple):
    """Samples where the two models' top-1 classes differ, by pair of classes."""
    reference: str
    other: str
    count: int

class DatasetComparison(NamedTuple):
    """compare over several inputs, with the figures of `gdstudio compare --dataset`."""
    inputs: int
    agree: int
    labelled: int
    correct_reference: int
    correct_other: int
    mean_sqnr_db: float
    samples: List[SampleResult]
    confusion: List[Confusion]
    outputs: List[OutputError]
    layers: List[LayerError]

class ConvertResult(NamedTuple):
    """tflite_convert's result: the written .tflite opened again, its path and size, the writer's
    counts, the converter's notes, the number of representative inputs and the accuracy_budget
    search (as `tflite_convert --format=json` prints it), or None."""
    model: "Model"
    path: str
    bytes: int
    operators: int
    tensors: int
    buffers: int
    shared_buffers: int
    constant_bytes: int
    notes: List[str]
    calibration_inputs: int
    accuracy_budget: Optional[Dict[str, Any]]

class Range(NamedTuple):
    """A RequantizationRange frozen by calibrate: the range chosen and the (min, max) each input gave."""
    node: str
    frozen_min: float
    frozen_max: float
    observed: List[Tuple[float, float]]

class Calibration(NamedTuple):
    """calibrate's result: the graph with its ranges frozen, and the Range records."""
    model: "Model"
    ranges: List[Range]

class Model:
    """A model gdstudio opened, or one a transform, freeze or conversion made. Immutable."""
    @property
    def path(self) -> str: ...
    @property
    def kind(self) -> str:
        """'GraphDef', 'MetaGraphDef', 'SavedModel', 'TensorFlow Lite' or 'Keras'."""
    @property
    def producer(self) -> str: ...
    @property
    def warnings(self) -> List[str]: ...
    @property
    def inputs(self) -> List[TensorSpec]: ...
    @property
    def outputs(self) -> List[TensorSpec]: ...
    @property
    def ops(self) -> Dict[str, int]: ...
    @property
    def nodes(self) -> List[Node]: ...
    @property
    def signatures(self) -> List[Signature]: ...
    @property
    def steps(self) -> List[Step]: ...
    def node(self, name: str) -> Node: ...
    def summary(self, input_shapes: Optional[Mapping[str, Sequence[int]]] = None) -> Dict[str, Any]:
        """summarize's figures (the document of `gdstudio summarize --format=json`)."""
    def summary_text(self) -> str: ...
    def to_bytes(self, format: str = "pb") -> bytes:
        """'pb', 'pbtxt' or 'tflite'."""
    def save(self, path: PathLike) -> None:
        """.tflite, .pbtxt (text) or a binary GraphDef, written atomically."""
    def transform(self, transforms: str, inputs: Union[None, str, Sequence[str]] = None,
                  outputs: Union[None, str, Sequence[str]] = None, progress: Progress = None) -> "Model":
        """Graph Transform Tool transforms in TensorFlow's --transforms grammar; a new Model."""
    def run(self, feeds: Mapping[str, Any], outputs: Union[None, str, Sequence[str]] = None, threads: int = 1,
            reference: bool = False, winograd: bool = True,
            arithmetic: Arithmetic = "tflite-xnnpack") -> Dict[str, Any]:
        """{output name: ndarray}; the GIL is released while it runs; Ctrl+C stops it."""
    def render(self, format: str = "svg", left_to_right: bool = False,
               path: Optional[PathLike] = None) -> Union[str, bytes]:
        """The graph drawn by Graphviz: 'svg' or 'dot' (str), 'png' or 'pdf' (bytes)."""
    def _repr_html_(self) -> str: ...

def load(path: PathLike, tags: Union[None, str, Sequence[str]] = None) -> Model:
    """Opens a .pb, .pbtxt, .meta, SavedModel folder, .tflite, .keras or .h5 (recognised by content)."""

def load_bytes(data: bytes, name: str = "<bytes>", tags: Union[None, str, Sequence[str]] = None) -> Model:
    """Opens a model held in memory."""

def freeze(model: Union[Model, PathLike], outputs: Union[None, str, Sequence[str]] = None,
           checkpoint: Optional[PathLike] = None, signature: Optional[str] = None, clear_devices: bool = True,
           variables: Optional[Sequence[str]] = None, exclude_variables: Optional[Sequence[str]] = None) -> Model:
    """freeze_graph: variables become Consts from the checkpoint; TF2 signatures are inlined."""

def transforms() -> List[TransformInfo]:
    """The transform catalogue."""

def read_sample(path: PathLike, model: Union[None, Model, PathLike] = None, input: str = "",
                size: Optional[Tuple[int, int]] = None, mean: float = 127.5, std: float = 127.5) -> Any:
    """One input file as compare and the calibration read it (image, .npy or raw bytes)."""

def benchmark(model: Union[Model, PathLike], inputs: Optional[Mapping[str, Any]] = None,
              outputs: Union[None, str, Sequence[str]] = None, threads: int = -1, warmup_runs: int = 1,
              max_num_runs: int = 1000, max_time: float = 10.0, optimize_graph: bool = True,
              reference: bool = False, winograd: bool = True, arithmetic: Arithmetic = "tflite-xnnpack",
              progress: Progress = None) -> BenchmarkResult:
    """benchmark_model's run flow and tables."""

def compare(reference: Union[Model, PathLike], other: Union[Model, PathLike],
            inputs: Union[Mapping[str, Any], PathLike, Iterable[Sample]],
            outputs: Union[None, str, Sequence[str]] = None, input: str = "",
            size: Optional[Tuple[int, int]] = None, mean: float = 127.5, std: float = 127.5,
            labels: Optional[PathLike] = None, label_map: Union[None, PathLike, Sequence[str]] = None,
            per_layer: bool = True, threads: int = 1, arithmetic: Arithmetic = "tflite-xnnpack",
            progress: Progress = None) -> Union[Comparison, DatasetComparison]:
    """Per-output and per-layer error of `other` against `reference` on the same inputs."""

def tflite_convert(model: Union[Model, PathLike], output_file: PathLike,
                   inputs: Union[None, str, Sequence[str]] = None,
                   outputs: Union[None, str, Sequence[str]] = None,
                   input_shapes: Optional[Sequence[Sequence[int]]] = None, quantize: Optional[str] = None,
                   representative_dataset: Union[None, PathLike, Iterable[Sample], Callable[[], Iterable[Sample]]] = None,
                   input_mean: float = 127.5, input_std: float = 127.5, inference_input_type: str = "float",
                   inference_output_type: str = "float",
                   disable_per_channel_quantization_for_dense_layers: bool = True,
                   signature_key: str = "serving_default", calibration_method: str = "min_max",
                   calibration_num_bins: int = 512, calibration_min_percentile: float = 0.001,
                   calibration_max_percentile: float = 99.999,
                   denylisted_nodes: Union[None, str, Sequence[str]] = None,
                   denylisted_ops: Union[None, str, Sequence[str]] = None,
                   accuracy_budget: Optional[str] = None, accuracy_data: Optional[PathLike] = None,
                   label_map: Union[None, PathLike, Sequence[str]] = None, accuracy_budget_max_float: int = -1,
                   accuracy_budget_best: bool = False,
                   supported_ops: Union[None, str, Sequence[str]] = None, threads: int = 1,
                   progress: Progress = None) -> ConvertResult:
    """Writes a TensorFlow Lite model: float, 'int8' or 'int16x8' (calibrated on representative_dataset),
    'float16' or 'dynamic'."""

def calibrate(model: Union[Model, PathLike],
              representative_dataset: Union[PathLike, Iterable[Sample], Callable[[], Iterable[Sample]]],
              input: str = "", min_percentile: float = 5.0, max_percentile: float = 5.0,
              size: Optional[Tuple[int, int]] = None, mean: float = 127.5, std: float = 127.5, threads: int = 1,
              progress: Progress = None) -> Calibration:
    """Freezes a quantize_nodes graph's requantization ranges from representative inputs."""
