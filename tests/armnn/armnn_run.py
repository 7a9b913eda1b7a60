#!/usr/bin/python3
"""Runs a .tflite through Arm NN (Debian's python3-pyarmnn, TfLiteParser, CpuRef
backend): an independent TensorFlow Lite runtime to check gdstudio's exports.

  armnn_run.py MODEL.tflite --input x.npy [--input y.npy ...] --out_dir DIR
  armnn_run.py MODEL.tflite --samples DIR
  armnn_run.py MODEL.tflite --load_only

Inputs are .npy files in the model's input order (the dtype must match the
input's: float32, int8 or uint8). Each output is written to DIR/output_<k>.npy
(k in the model's output order) and a JSON line describing the inputs and
outputs (name, shape, dtype, quantization scale and offset) is printed. With
--samples, DIR holds sample_<i>_input_<k>.npy for i = 0, 1, ... and each
sample's outputs are written next to them as sample_<i>_output_<k>.npy (one
Arm NN load for many runs).
Exit status: 0 on success, 1 on an error, 77 when pyarmnn is not installed
(callers skip their check then).
"""
import argparse
import json
import os
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--input", action="append", default=[], help=".npy per model input, in order")
    parser.add_argument("--out_dir", default="", help="where to write output_<k>.npy")
    parser.add_argument("--samples", default="", help="folder of sample_<i>_input_<k>.npy to run one by one")
    parser.add_argument("--load_only", action="store_true", help="parse and optimize the model, run nothing")
    parser.add_argument("--backend", default="CpuRef")
    args = parser.parse_args()
    try:
        import numpy as np
        import pyarmnn as ann
    except ImportError as e:  # pragma: no cover - depends on the machine
        print("skip: cannot import pyarmnn (%s); install python3-pyarmnn and libarmnn-cpuref-backend22" % e)
        return 77
    try:
        p = ann.ITfLiteParser()
        net = p.CreateNetworkFromBinaryFile(args.model)
        in_names = p.GetSubgraphInputTensorNames(0)
        out_names = p.GetSubgraphOutputTensorNames(0)
        rt = ann.IRuntime(ann.CreationOptions())
        opt, messages = ann.Optimize(net, [ann.BackendId(args.backend)], rt.GetDeviceSpec(), ann.OptimizerOptions())
        net_id, _ = rt.LoadNetwork(opt)
    except Exception as e:
        print("error: Arm NN cannot load %s: %s" % (args.model, e), file=sys.stderr)
        return 1
    info = {"inputs": [], "outputs": []}
    in_bindings = [p.GetNetworkInputBindingInfo(0, n) for n in in_names]
    out_bindings = [p.GetNetworkOutputBindingInfo(0, n) for n in out_names]

    def describe(name, binding):
        ti = binding[1]
        return {"name": name, "shape": [ti.GetShape()[i] for i in range(ti.GetNumDimensions())],
                "scale": ti.GetQuantizationScale(), "offset": ti.GetQuantizationOffset()}

    for n, b in zip(in_names, in_bindings):
        info["inputs"].append(describe(n, b))
    for n, b in zip(out_names, out_bindings):
        info["outputs"].append(describe(n, b))
    if args.load_only:
        print(json.dumps(info))
        return 0
    runs = []  # (input paths, output path pattern)
    if args.samples:
        i = 0
        while os.path.exists(os.path.join(args.samples, "sample_%d_input_0.npy" % i)):
            paths = [os.path.join(args.samples, "sample_%d_input_%d.npy" % (i, k)) for k in range(len(in_names))]
            runs.append((paths, os.path.join(args.samples, "sample_%d_output_%%d.npy" % i)))
            i += 1
    else:
        if len(args.input) != len(in_names):
            print("error: the model has %d inputs (%s); give one --input per input" % (len(in_names), ", ".join(in_names)),
                  file=sys.stderr)
            return 1
        runs.append((args.input, os.path.join(args.out_dir, "output_%d.npy") if args.out_dir else ""))
    if not runs:
        print("error: %s holds no sample_0_input_0.npy" % args.samples, file=sys.stderr)
        return 1
    for paths, pattern in runs:
        ys = run_once(ann, np, rt, net_id, in_bindings, out_bindings, info, paths)
        if ys is None:
            return 1
        if pattern:
            os.makedirs(os.path.dirname(pattern) or ".", exist_ok=True)
            for k, y in enumerate(ys):
                np.save(pattern % k, y)
    for d, y in zip(info["outputs"], ys):
        d["dtype"] = str(y.dtype)
    print(json.dumps(info))
    return 0


def run_once(ann, np, rt, net_id, in_bindings, out_bindings, info, paths):
    xs = []
    for path, d in zip(paths, info["inputs"]):
        x = np.load(path)
        if list(x.shape) != d["shape"]:
            if x.size != int(np.prod(d["shape"])):
                print("error: %s has shape %s; input '%s' takes %s" % (path, list(x.shape), d["name"], d["shape"]),
                      file=sys.stderr)
                return None
            x = x.reshape(d["shape"])
        xs.append(np.ascontiguousarray(x))
    try:
        inputs = ann.make_input_tensors(in_bindings, xs)
        outputs = ann.make_output_tensors(out_bindings)
        rt.EnqueueWorkload(net_id, inputs, outputs)
        return ann.workload_tensors_to_ndarray(outputs)
    except Exception as e:
        print("error: Arm NN failed to run: %s" % e, file=sys.stderr)
        return None


if __name__ == "__main__":
    sys.exit(main())
