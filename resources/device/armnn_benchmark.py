#!/usr/bin/env python3
"""Benchmarks a .tflite with Arm NN (pyarmnn's ITfLiteParser) on one backend,
with Arm NN's profiler on, and prints one JSON document: the load time, each
timed run's latency and each layer's time per run, with the layer's name as
the TfLite parser gave it ("Conv2D:0:3" is operator 3 of subgraph 0).

  armnn_benchmark.py MODEL.tflite [--backend CpuAcc] [--num_runs 50]
                     [--warmup_runs 1] [--input IN0.npy ...] [--save_outputs DIR]

Installed with GraphDef Studio (share/gdstudio/) and copied to the device
beside the model by `gdstudio benchmark --device=... --device_runtime=armnn`;
with --save_outputs (`gdstudio compare --device=...`) the last run's outputs
are written to DIR as output_<k>.npy and listed in the document.
Arm NN 20.08's profiler names workloads ("RefConvolution2dWorkload_Execute"),
not layers, and runs them in the optimized graph's topological order; the
layers are read, in that order, from the optimized network's Graphviz dump,
and matched to the workloads by type. Exit status 0 on success, 1 on an
error (one line on standard error naming the layer or operator).
"""
import argparse
import json
import os
import re
import sys
import tempfile
import time


def fail(message):
    print("error: " + message, file=sys.stderr)
    return 1


def layers_in_order(opt_network):
    """(name, type, backend) of every layer of the optimized network, in its topological order."""
    fd, path = tempfile.mkstemp(suffix=".dot")
    os.close(fd)
    try:
        opt_network.SerializeToDot(path)
        with open(path) as f:
            dot = f.read()
    finally:
        os.unlink(path)
    layers = []
    for m in re.finditer(r'^\s*\d+ \[label="\{([^|}]*)\|(.*?)\}"\];', dot, re.M):
        fields = dict(kv.split(" : ", 1) for kv in m.group(2).split("\\l") if " : " in kv)
        layers.append((fields.get("LayerName", ""), fields.get("LayerType", m.group(1)), fields.get("BackendID", "")))
    return layers


def workload_events(node, out):
    """Depth-first: every '<Workload>_Execute_#k' event with its per-run times (us)."""
    for key, value in node.items():
        if not isinstance(value, dict):
            continue
        name = key.rsplit("_#", 1)[0]
        if value.get("type") == "Event" and name.endswith("_Execute") and "Workload" in name:
            times = []
            for k2, v2 in value.items():
                if k2.startswith("Wall clock time_#") and isinstance(v2, dict):
                    times = [float(x) for x in v2.get("raw", [])]
            out.append((name[: -len("_Execute")], times))
        workload_events(value, out)


def workload_type(workload):
    """'RefConvolution2dWorkload' -> 'Convolution2d', 'NeonActivationWorkload' -> 'Activation'."""
    w = re.sub(r"Workload$", "", workload)
    for prefix in ("Ref", "Neon", "Cl", "Sample"):
        if w.startswith(prefix):
            w = w[len(prefix):]
            break
    return w


def matches(layer_type, workload):
    w = workload_type(workload)
    # Type-specific workloads carry the data type: RefSoftmaxFloat32, RefDebugQAsymmU8, ...
    return w == layer_type or w.startswith(layer_type) or (layer_type == "MemCopy" and w.startswith("CopyMem"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--backend", default="CpuAcc")
    parser.add_argument("--num_runs", type=int, default=50)
    parser.add_argument("--warmup_runs", type=int, default=1)
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("--save_outputs", default="")
    args = parser.parse_args()
    try:
        import numpy as np
        import pyarmnn as ann
    except ImportError as e:
        return fail("cannot import pyarmnn (%s); install python3-pyarmnn and an Arm NN backend "
                    "(libarmnn-cpuacc-backend, libarmnn-cpuref-backend)" % e)
    start = time.perf_counter()
    try:
        p = ann.ITfLiteParser()
        net = p.CreateNetworkFromBinaryFile(args.model)
        rt = ann.IRuntime(ann.CreationOptions())
        supported = [str(b) for b in rt.GetDeviceSpec().GetSupportedBackends()]
        if args.backend not in supported:
            return fail("the backend %s is not available on this device (it has %s)"
                        % (args.backend, ", ".join(supported) or "none"))
        opt, messages = ann.Optimize(net, [ann.BackendId(args.backend)], rt.GetDeviceSpec(), ann.OptimizerOptions())
        # Read before LoadNetwork, which takes the optimized network over.
        all_layers = layers_in_order(opt)
        net_id, _ = rt.LoadNetwork(opt)
    except Exception as e:  # Arm NN's exceptions name the operator or layer
        return fail("Arm NN cannot load %s on %s: %s" % (os.path.basename(args.model), args.backend,
                                                         str(e).strip().replace("\n", " ")))
    init_us = (time.perf_counter() - start) * 1e6
    in_names = p.GetSubgraphInputTensorNames(0)
    out_names = p.GetSubgraphOutputTensorNames(0)
    in_bindings = [p.GetNetworkInputBindingInfo(0, n) for n in in_names]
    out_bindings = [p.GetNetworkOutputBindingInfo(0, n) for n in out_names]
    dtypes = {ann.DataType_Float32: np.float32, ann.DataType_QAsymmU8: np.uint8, ann.DataType_QAsymmS8: np.int8,
              ann.DataType_Signed32: np.int32}
    arrays = []
    for k, (name, binding) in enumerate(zip(in_names, in_bindings)):
        info = binding[1]
        shape = [info.GetShape()[i] for i in range(info.GetNumDimensions())]
        dtype = dtypes.get(info.GetDataType(), np.float32)
        if k < len(args.input):
            a = np.load(args.input[k])
            if list(a.shape) != shape:
                return fail("input '%s' is %s in the model but %s in %s" % (name, shape, list(a.shape), args.input[k]))
            arrays.append(np.ascontiguousarray(a.astype(dtype)))
        else:
            arrays.append(np.zeros(shape, dtype))
    inputs = ann.make_input_tensors(in_bindings, arrays)
    outputs = ann.make_output_tensors(out_bindings)
    warmup = []
    for _ in range(max(0, args.warmup_runs)):
        t = time.perf_counter()
        rt.EnqueueWorkload(net_id, inputs, outputs)
        warmup.append((time.perf_counter() - t) * 1e6)
    profiler = rt.GetProfiler(net_id)
    profiler.EnableProfiling(True)
    runs = []
    for _ in range(max(1, args.num_runs)):
        t = time.perf_counter()
        rt.EnqueueWorkload(net_id, inputs, outputs)
        runs.append((time.perf_counter() - t) * 1e6)
    profiler.EnableProfiling(False)
    events = []
    workload_events(json.loads(profiler.as_json()), events)
    # Workloads of the inputs and outputs (copies) are not layers of the graph.
    layers = [l for l in all_layers if l[1] not in ("Input", "Output")]
    rows, li = [], 0
    for workload, times in events:
        if workload.startswith("CopyMemGeneric"):
            continue
        row = {"workload": workload, "times_us": times, "name": "", "type": workload_type(workload), "backend": ""}
        # Layers without a workload of their own are skipped until one matches.
        k = li
        while k < len(layers) and not matches(layers[k][1], workload):
            k += 1
        if k < len(layers):
            row["name"], row["type"], row["backend"] = layers[k]
            li = k + 1
        rows.append(row)
    document = {"runtime": "armnn", "backend": args.backend, "init_us": init_us, "warmup_us": warmup,
                "runs_us": runs, "layers": rows}
    if args.save_outputs:
        document["outputs"] = []
        for k, (name, array) in enumerate(zip(out_names, ann.workload_tensors_to_ndarray(outputs))):
            info = out_bindings[k][1]
            shape = [info.GetShape()[i] for i in range(info.GetNumDimensions())]
            file = "output_%d.npy" % k
            np.save(os.path.join(args.save_outputs, file), array.reshape(shape))
            document["outputs"].append({"name": name, "file": file})
    print(json.dumps(document))
    return 0


if __name__ == "__main__":
    sys.exit(main())
