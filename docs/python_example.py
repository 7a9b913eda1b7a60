# %% [markdown]
# # MobileNet from a frozen graph to an int8 TensorFlow Lite model, from Python
#
# The user guide's journey with `import gdstudio`: open TensorFlow's MobileNet v1 0.25/128,
# optimise it with the guide's pipeline, run it on a photo, time it, convert it to an int8
# `.tflite` calibrated by a Python generator, and check on the photos that the int8 model stays
# within one photo of the float one, as a CI job would.
#
# Run it as a script (`python3 docs/python_example.py [SHARED_DIR]`, SHARED_DIR holding
# `models/` and `data/`), or open it in Jupyter through jupytext: each `# %%` is a cell.

# %%
import os
import pathlib
import sys
import tempfile

import gdstudio as gd

shared = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("GDS_SHARED_DIR", "../shared"))
models = shared / "models"
photos = shared / "data" / "images"
labels = models / "mobilenet_v1_0.25_128_labels.txt"
work = pathlib.Path(tempfile.mkdtemp())
OUTPUT = "MobilenetV1/Predictions/Reshape_1"

# %% [markdown]
# ## Open the model
# In a notebook, a cell ending with `model` shows its summary.

# %%
model = gd.load(models / "mobilenet_v1_0.25_128_frozen.pb")
print(model)
print("inputs:", model.inputs)
print("outputs:", [o.name for o in model.outputs])
summary = model.summary()
print("FLOPs:", summary["flops"], " parameters:", summary["const_parameters"])

# %% [markdown]
# ## Optimise one step at a time
# The guide's pipeline; each step keeps its before/after figures.

# %%
opt = model.transform('strip_unused_nodes(type=float, shape="1,128,128,3") fold_constants(ignore_errors=true) '
                      'fold_batch_norms fold_old_batch_norms', inputs="input", outputs=OUTPUT)
for step in opt.steps:
    print(f"{step.name:22} {step.nodes_before:4} -> {step.nodes_after:4} nodes  ({step.seconds * 1000:.1f} ms)")

# %% [markdown]
# ## Run it on a photo

# %%
class_names = labels.read_text().splitlines()
photo = gd.read_sample(photos / "chelsea.png", opt)  # [1, 128, 128, 3], (x - 127.5) / 127.5
probabilities = opt.run({"input": photo})[OUTPUT]
best = probabilities[0].argsort()[::-1][:3]
print("chelsea.png:", ", ".join(f"{class_names[i]} ({probabilities[0, i]:.2f})" for i in best))

# %% [markdown]
# ## Time it
# `pandas.DataFrame(timing.node_types)` gives the table by op type.

# %%
timing = gd.benchmark(opt, threads=1, max_num_runs=20, max_time=5)
latency = timing.report["latency_ms"]
print(f"median {latency['median']:.2f} ms over {latency['runs']} runs, {timing.report['flops'] / 1e6:.1f} MFLOPs")
for row in timing.node_types[:3]:
    print(f"  {row['type']:24} {row['avg_ms']:.3f} ms  {row['avg_percent']:.1f}%")

# %% [markdown]
# ## Convert to an int8 TensorFlow Lite model
# The representative dataset is a generator function, as TensorFlow's converter takes it; here it
# reads the photos, but any data pipeline that yields input dicts will do.

# %%
def representative_dataset():
    for path in sorted(photos.iterdir()):
        if path.suffix in (".png", ".jpg"):
            yield {"input": gd.read_sample(path, opt)}


int8 = gd.tflite_convert(opt, work / "mobilenet_int8.tflite", inputs=["input"], outputs=[OUTPUT],
                         quantize="int8", representative_dataset=representative_dataset)
print(f"{int8.path}: {int8.bytes} bytes, {int8.operators} operators, "
      f"calibrated on {int8.calibration_inputs} inputs")

# %% [markdown]
# ## Float against int8 on the photos
# The same figures as `gdstudio compare --dataset`; the layers losing the most come first.

# %%
result = gd.compare(opt, int8.model, inputs=photos, label_map=labels, per_layer=True)
print(f"top-1 agreement {result.agree}/{result.inputs}, mean output SQNR {result.mean_sqnr_db:.1f} dB")
print(f"right on labelled photos: float {result.correct_reference}/{result.labelled}, "
      f"int8 {result.correct_other}/{result.labelled}")
for layer in result.layers[:3]:
    print(f"  {layer.name}: SQNR {layer.sqnr_db:.1f} dB, RMSE/step {layer.rmse_over_step:.2f}")

# %%
# The CI gate: the int8 model may lose at most one labelled photo against float.
assert result.correct_other >= result.correct_reference - 1, "the int8 export lost accuracy"
print("int8 export accepted")
