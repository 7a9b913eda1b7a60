#!/usr/bin/env python3
"""Synthetic Keras model files, one per layer case, with NumPy references.

Writes, into OUT_DIR, for each case NAME:
  NAME.keras (or NAME.h5)   the model, laid out as Keras writes it
                            (keras.src.saving.saving_lib for .keras,
                            legacy_h5_format / hdf5_format for .h5);
  NAME.in<k>.npy            its inputs;
  NAME.out<k>.npy           the outputs computed here with NumPy in float64
                            from the layers' published semantics (Keras'
                            call() code), independently of gdstudio;
and manifest.json listing the cases (file, input names, output count).
Bad files for the error tests go to OUT_DIR/bad/.

Needs Debian's python3-numpy and python3-h5py (test-only tools).
usage: keras_layers.py OUT_DIR
"""
import io
import json
import math
import os
import sys
import zipfile

import h5py
import numpy as np

RNG = np.random.default_rng(20240611)
CASES = []


# ---------------------------------------------------------------------------
# Writers

def snake(name):
    import re
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def layer(cls, name, inbound=None, **config):
    config = dict(config)
    config["name"] = name
    entry = {"module": "keras.layers", "class_name": cls, "config": config, "registered_name": None, "name": name}
    if inbound is not None:
        entry["inbound_nodes"] = inbound
    return entry


def ktensor(name, node=0, index=0):
    return {"class_name": "__keras_tensor__", "config": {"shape": None, "dtype": "float32",
                                                         "keras_history": [name, node, index]}}


def call(*inputs, kwargs=None):
    first = ktensor(*inputs[0]) if len(inputs) == 1 else [ktensor(*i) for i in inputs]
    return {"args": [first], "kwargs": kwargs or {}}


def input_layer(name, shape, dtype="float32"):
    return layer("InputLayer", name, [], batch_shape=[None] + list(shape), dtype=dtype, sparse=False)


def sequential(layers, name="sequential"):
    return {"module": "keras", "class_name": "Sequential",
            "config": {"name": name, "trainable": True, "layers": layers}}


def functional(layers, inputs, outputs, name="functional"):
    return {"module": "keras.src.models.functional", "class_name": "Functional",
            "config": {"name": name, "trainable": True, "layers": layers,
                       "input_layers": [[i, 0, 0] for i in inputs],
                       "output_layers": [list(o) if isinstance(o, tuple) else [o, 0, 0] for o in outputs]}}


def store_paths(model, prefix=""):
    """Object path -> layer entry, numbered per class as saving_lib does."""
    used = {}
    out = []
    for entry in model["config"]["layers"]:
        name = snake(entry["class_name"])
        if name in used:
            used[name] += 1
            name = "%s_%d" % (name, used[name])
        else:
            used[name] = 0
        path = prefix + "layers/" + name
        out.append((path, entry))
        if entry["class_name"] in ("Functional", "Sequential"):
            out.extend(store_paths(entry, path + "/"))
    return out


def write_keras(path, model, weights, version="3.8.0", separator="/", layers_attr="layers"):
    """weights: layer name -> list of arrays, or {sub: list} for parts."""
    buf = io.BytesIO()
    with h5py.File(buf, "w") as f:
        f.create_group("vars")
        for obj_path, entry in store_paths(model):
            obj_path = obj_path.replace("layers/", layers_attr + "/")
            name = entry["config"]["name"]
            value = weights.get(name, [])
            parts = value.items() if isinstance(value, dict) else [("", value)]
            for sub, arrays in parts:
                full = obj_path + ("/" + sub if sub else "")
                group = f.create_group(full.replace("/", separator)) if separator != "/" else f.require_group(full)
                v = group.create_group("vars")
                for i, a in enumerate(arrays):
                    keep = isinstance(a, np.ndarray) and a.dtype.kind in "iu"
                    v[str(i)] = a if keep else np.asarray(a, dtype=np.float32)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("metadata.json", json.dumps({"keras_version": version, "date_saved": "2024-06-11@00:00:00"}))
        z.writestr("config.json", json.dumps(model))
        z.writestr("model.weights.h5", buf.getvalue())


def write_h5(path, model, weights, version="2.15.0"):
    """weights: layer name -> list of (weight name, array)."""
    with h5py.File(path, "w") as f:
        f.attrs["model_config"] = json.dumps(model).encode("utf8")
        f.attrs["keras_version"] = version.encode("utf8")
        f.attrs["backend"] = b"tensorflow"
        g = f.create_group("model_weights")
        names = [e["config"]["name"] for e in model["config"]["layers"]]
        g.attrs["layer_names"] = np.array([n.encode("utf8") for n in names])
        for n in names:
            lg = g.create_group(n)
            pairs = weights.get(n, [])
            lg.attrs["weight_names"] = np.array([w.encode("utf8") for w, _ in pairs], dtype="S")
            for w, a in pairs:
                lg.create_dataset(w, data=np.asarray(a, dtype=np.float32))


def case(name, model, weights, inputs, outputs, fmt="keras", version=None, tol=1e-4, **kw):
    path = os.path.join(OUT, name + "." + ("h5" if fmt == "h5" else "keras"))
    if fmt == "h5":
        write_h5(path, model, weights, version or "2.15.0")
    else:
        write_keras(path, model, weights, version or "3.8.0", **kw)
    input_names = []
    for k, (iname, value) in enumerate(inputs):
        np.save(os.path.join(OUT, "%s.in%d.npy" % (name, k)), np.asarray(value, dtype=np.float32))
        input_names.append(iname)
    for k, value in enumerate(outputs):
        np.save(os.path.join(OUT, "%s.out%d.npy" % (name, k)), np.asarray(value, dtype=np.float32))
    CASES.append({"name": name, "file": os.path.basename(path), "inputs": input_names,
                  "outputs": len(outputs), "tol": tol})


def rand(*shape, scale=1.0):
    return RNG.uniform(-1, 1, size=shape) * scale


def one_layer(name, cls, in_shape, weights=(), fn=None, x=None, **config):
    """A Sequential of an InputLayer and one layer; fn computes its output."""
    model = sequential([input_layer("input_layer", in_shape), layer(cls, "layer", **config)])
    x = rand(2, *in_shape) if x is None else x
    case(name, model, {"layer": list(weights)}, [("input_layer", x)], [fn(x)])


# ---------------------------------------------------------------------------
# NumPy references (float64)

def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def softplus(v):
    return np.log1p(np.exp(-np.abs(v))) + np.maximum(v, 0)


ERF = np.vectorize(math.erf)
ACTIVATIONS = {
    "linear": lambda v: v, "relu": lambda v: np.maximum(v, 0), "relu6": lambda v: np.clip(v, 0, 6),
    "sigmoid": sigmoid, "tanh": np.tanh, "elu": lambda v: np.where(v > 0, v, np.expm1(v)),
    "selu": lambda v: 1.0507009873554805 * np.where(v > 0, v, 1.6732632423543772 * np.expm1(v)),
    "softplus": softplus, "softsign": lambda v: v / (1 + np.abs(v)), "exponential": np.exp,
    "swish": lambda v: v * sigmoid(v), "silu": lambda v: v * sigmoid(v),
    "gelu": lambda v: 0.5 * v * (1 + ERF(v / math.sqrt(2))),
    "hard_sigmoid": lambda v: np.clip(v / 6 + 0.5, 0, 1),
    "hard_silu": lambda v: v * np.clip(v / 6 + 0.5, 0, 1), "hard_swish": lambda v: v * np.clip(v / 6 + 0.5, 0, 1),
    "mish": lambda v: v * np.tanh(softplus(v)), "leaky_relu": lambda v: np.where(v > 0, v, 0.2 * v),
    "softmax": lambda v: softmax(v, -1), "log_softmax": lambda v: np.log(softmax(v, -1)),
    "hard_tanh": lambda v: np.clip(v, -1, 1), "log_sigmoid": lambda v: -softplus(-v),
    "tanh_shrink": lambda v: v - np.tanh(v), "squareplus": lambda v: (v + np.sqrt(v * v + 4)) / 2,
    "celu": lambda v: np.maximum(v, 0) + np.minimum(0, np.expm1(v)),
    "sparse_sigmoid": lambda v: np.clip((v + 1) / 2, 0, 1),
    "sparse_plus": lambda v: np.where(v <= -1, 0, np.where(v >= 1, v, (v + 1) ** 2 / 4)),
    "hard_shrink": lambda v: np.where(np.abs(v) > 0.5, v, 0),
    "soft_shrink": lambda v: np.where(v > 0.5, v - 0.5, np.where(v < -0.5, v + 0.5, 0)),
}


def softmax(v, axis):
    e = np.exp(v - v.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def same_pads(size, k, stride, dilation):
    eff = (k - 1) * dilation + 1
    out = -(-size // stride)
    total = max((out - 1) * stride + eff - size, 0)
    return total // 2, total - total // 2


def conv2d(x, k, strides=(1, 1), padding="valid", dilation=(1, 1), groups=1):
    if groups > 1:
        xs = np.split(x, groups, axis=3)
        ks = np.split(k, groups, axis=3)
        return np.concatenate([conv2d(a, b, strides, padding, dilation) for a, b in zip(xs, ks)], axis=3)
    kh, kw = k.shape[:2]
    if padding == "same":
        ph = same_pads(x.shape[1], kh, strides[0], dilation[0])
        pw = same_pads(x.shape[2], kw, strides[1], dilation[1])
        x = np.pad(x, ((0, 0), ph, pw, (0, 0)))
    oh = (x.shape[1] - ((kh - 1) * dilation[0] + 1)) // strides[0] + 1
    ow = (x.shape[2] - ((kw - 1) * dilation[1] + 1)) // strides[1] + 1
    out = np.zeros((x.shape[0], oh, ow, k.shape[3]))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i * dilation[0]:i * dilation[0] + (oh - 1) * strides[0] + 1:strides[0],
                      j * dilation[1]:j * dilation[1] + (ow - 1) * strides[1] + 1:strides[1], :]
            out += patch @ k[i, j]
    return out


def depthwise2d(x, k, strides=(1, 1), padding="valid", dilation=(1, 1)):
    kh, kw, c, m = k.shape
    if padding == "same":
        x = np.pad(x, ((0, 0), same_pads(x.shape[1], kh, strides[0], dilation[0]),
                       same_pads(x.shape[2], kw, strides[1], dilation[1]), (0, 0)))
    oh = (x.shape[1] - ((kh - 1) * dilation[0] + 1)) // strides[0] + 1
    ow = (x.shape[2] - ((kw - 1) * dilation[1] + 1)) // strides[1] + 1
    out = np.zeros((x.shape[0], oh, ow, c * m))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i * dilation[0]:i * dilation[0] + (oh - 1) * strides[0] + 1:strides[0],
                      j * dilation[1]:j * dilation[1] + (ow - 1) * strides[1] + 1:strides[1], :]
            out += (patch[..., :, None] * k[i, j]).reshape(x.shape[0], oh, ow, c * m)
    return out


def conv2d_transpose(x, k, out_hw, strides, padding):
    """TensorFlow's Conv2DBackpropInput: x (n,ih,iw,ci), k (kh,kw,co,ci)."""
    n, ih, iw, ci = x.shape
    kh, kw, co, _ = k.shape
    pads = [max((i - 1) * s + kk - o, 0) // 2 if padding == "same" else 0
            for i, s, kk, o in ((ih, strides[0], kh, out_hw[0]), (iw, strides[1], kw, out_hw[1]))]
    out = np.zeros((n, out_hw[0], out_hw[1], co))
    for a in range(ih):
        for b in range(iw):
            for i in range(kh):
                for j in range(kw):
                    y, z = a * strides[0] + i - pads[0], b * strides[1] + j - pads[1]
                    if 0 <= y < out_hw[0] and 0 <= z < out_hw[1]:
                        out[:, y, z, :] += x[:, a, b, :] @ k[i, j].T
    return out


def pool2d(x, size, strides, padding, kind):
    if padding == "same":
        ph, pw = same_pads(x.shape[1], size[0], strides[0], 1), same_pads(x.shape[2], size[1], strides[1], 1)
    else:
        ph, pw = (0, 0), (0, 0)
    fill = -np.inf if kind == "max" else 0
    xp = np.pad(x, ((0, 0), ph, pw, (0, 0)), constant_values=fill)
    ones = np.pad(np.ones_like(x), ((0, 0), ph, pw, (0, 0)))
    oh = (xp.shape[1] - size[0]) // strides[0] + 1
    ow = (xp.shape[2] - size[1]) // strides[1] + 1
    out = np.zeros((x.shape[0], oh, ow, x.shape[3]))
    for a in range(oh):
        for b in range(ow):
            win = xp[:, a * strides[0]:a * strides[0] + size[0], b * strides[1]:b * strides[1] + size[1], :]
            cnt = ones[:, a * strides[0]:a * strides[0] + size[0], b * strides[1]:b * strides[1] + size[1], :]
            out[:, a, b, :] = win.max(axis=(1, 2)) if kind == "max" else win.sum(axis=(1, 2)) / cnt.sum(axis=(1, 2))
    return out


def resize_bilinear(x, oh, ow):
    """tf.image.resize bilinear (half-pixel centers)."""
    def weights(out, size):
        scale = size / out
        pos = (np.arange(out) + 0.5) * scale - 0.5
        low = np.floor(pos)
        lo = np.maximum(low, 0).astype(int)
        hi = np.minimum(np.ceil(pos), size - 1).astype(int)
        return lo, hi, pos - low
    y0, y1, fy = weights(oh, x.shape[1])
    x0, x1, fx = weights(ow, x.shape[2])
    top = x[:, y0][:, :, x0] + (x[:, y0][:, :, x1] - x[:, y0][:, :, x0]) * fx[None, None, :, None]
    bottom = x[:, y1][:, :, x0] + (x[:, y1][:, :, x1] - x[:, y1][:, :, x0]) * fx[None, None, :, None]
    return top + (bottom - top) * fy[None, :, None, None]


def resize_nearest(x, oh, ow):
    ys = np.minimum(np.floor((np.arange(oh) + 0.5) * x.shape[1] / oh), x.shape[1] - 1).astype(int)
    xs = np.minimum(np.floor((np.arange(ow) + 0.5) * x.shape[2] / ow), x.shape[2] - 1).astype(int)
    return x[:, ys][:, :, xs]


def run_rnn(x, cell, state_size, go_backwards=False, mask=None, return_sequences=False, zero_output=False, n_states=1):
    steps = list(range(x.shape[1]))
    if go_backwards:
        steps = steps[::-1]
    states = [np.zeros((x.shape[0], state_size)) for _ in range(n_states)]
    outputs, prev = [], np.zeros((x.shape[0], state_size))
    for t in steps:
        out, new = cell(x[:, t, :], states)
        if mask is not None:
            m = mask[:, t][:, None]
            out = np.where(m, out, prev)
            new = [np.where(m, a, b) for a, b in zip(new, states)]
        outputs.append(out)
        prev, states = out, new
    seq = np.stack(outputs, 1)
    if mask is not None and zero_output:
        ordered = mask[:, steps]
        seq = np.where(ordered[:, :, None], seq, 0)
    last = seq[:, -1]
    return (seq if return_sequences else last), states


def lstm_cell(w, u, b, act=np.tanh, rec=sigmoid):
    def cell(x, states):
        h, c = states
        i, f, cc, o = np.split(x @ w + h @ u + b, 4, axis=1)
        c = rec(f) * c + rec(i) * act(cc)
        h = rec(o) * act(c)
        return h, [h, c]
    return cell


def gru_cell(w, u, b, reset_after=True):
    units = u.shape[0]

    def cell(x, states):
        (h,) = states
        if reset_after:
            xz, xr, xh = np.split(x @ w + b[0], 3, axis=1)
            rz, rr, rh = np.split(h @ u + b[1], 3, axis=1)
            z, r = sigmoid(xz + rz), sigmoid(xr + rr)
            hh = np.tanh(xh + r * rh)
        else:
            xz, xr, xh = np.split(x @ w + b, 3, axis=1)
            rz, rr = np.split(h @ u[:, :2 * units], 2, axis=1)
            z, r = sigmoid(xz + rz), sigmoid(xr + rr)
            hh = np.tanh(xh + (r * h) @ u[:, 2 * units:])
        h = z * h + (1 - z) * hh
        return h, [h]
    return cell


def simple_cell(w, u, b, act):
    def cell(x, states):
        h = act(x @ w + b + states[0] @ u)
        return h, [h]
    return cell


# ---------------------------------------------------------------------------
# Cases

def core_cases():
    w, b = rand(6, 5), rand(5)
    one_layer("dense_relu", "Dense", [6], [w, b], lambda x: np.maximum(x @ w + b, 0), units=5, activation="relu",
              use_bias=True)
    w3 = rand(4, 3)
    one_layer("dense_rank3_nobias_softmax", "Dense", [5, 4], [w3], lambda x: softmax(x @ w3, -1), units=3,
              activation="softmax", use_bias=False)
    for act, fn in ACTIVATIONS.items():
        one_layer("activation_" + act, "Activation", [7], [], fn, x=rand(2, 7, scale=4), activation=act)
    one_layer("activation_fn_dict", "Activation", [7], [], ACTIVATIONS["relu"],
              activation={"module": "keras.activations", "class_name": "function", "config": "relu",
                          "registered_name": "function"})
    one_layer("relu_max_slope_threshold", "ReLU", [8], [],
              lambda x: np.where(x > 0.5, np.minimum(x, 2.0), 0) - 0.1 * np.maximum(-x + 0.5, 0),
              x=rand(2, 8, scale=3), max_value=2.0, negative_slope=0.1, threshold=0.5)
    one_layer("relu_6", "ReLU", [8], [], lambda x: np.clip(x, 0, 6), x=rand(2, 8, scale=9), max_value=6.0)
    one_layer("leaky_relu_layer", "LeakyReLU", [8], [], lambda x: np.where(x > 0, x, 0.15 * x), negative_slope=0.15)
    alpha = rand(1, 3)
    one_layer("prelu_shared_axes", "PReLU", [4, 3], [alpha], lambda x: np.where(x > 0, x, alpha * x),
              shared_axes=[1])
    one_layer("elu_alpha", "ELU", [8], [], lambda x: np.where(x > 0, x, 0.5 * np.expm1(x)), alpha=0.5)
    one_layer("softmax_axis1", "Softmax", [3, 4], [], lambda x: softmax(x, 1), axis=1)
    for cls in ("Dropout", "SpatialDropout1D", "GaussianNoise", "AlphaDropout"):
        one_layer("inference_identity_" + cls.lower(), cls, [4, 3], [], lambda x: x, rate=0.5, stddev=0.3)
    one_layer("rescaling", "Rescaling", [5], [], lambda x: x * (1 / 127.5) - 1, scale=1 / 127.5, offset=-1.0)
    table = rand(10, 4)
    ids = RNG.integers(0, 10, size=(2, 6)).astype(np.float64)
    one_layer("embedding_float_ids", "Embedding", [6], [table], lambda x: table[x.astype(int)], x=ids,
              input_dim=10, output_dim=4, mask_zero=False)
    one_layer("flatten", "Flatten", [2, 3, 4], [], lambda x: x.reshape(2, -1))
    one_layer("flatten_channels_first", "Flatten", [2, 3, 4], [],
              lambda x: x.transpose(0, 2, 3, 1).reshape(2, -1), data_format="channels_first")
    one_layer("reshape_minus1", "Reshape", [2, 3, 4], [], lambda x: x.reshape(2, 4, -1), target_shape=[4, -1])
    one_layer("permute", "Permute", [2, 3, 4], [], lambda x: x.transpose(0, 3, 1, 2), dims=[3, 1, 2])
    one_layer("repeat_vector", "RepeatVector", [3], [], lambda x: np.repeat(x[:, None, :], 4, axis=1), n=4)
    one_layer("lambda_named_function", "Lambda", [5], [], ACTIVATIONS["swish"],
              function={"module": "keras.src.activations.activations", "class_name": "function",
                        "config": "silu", "registered_name": "function"})


def conv_cases():
    k = rand(3, 3, 4, 6)
    bias = rand(6)
    one_layer("conv2d_same_strided_relu", "Conv2D", [7, 8, 4], [k, bias],
              lambda x: np.maximum(conv2d(x, k, (2, 2), "same") + bias, 0), filters=6, kernel_size=[3, 3],
              strides=[2, 2], padding="same", activation="relu", data_format="channels_last")
    one_layer("conv2d_valid_dilated", "Conv2D", [9, 9, 4], [k, bias],
              lambda x: conv2d(x, k, (1, 1), "valid", (2, 2)) + bias, filters=6, kernel_size=[3, 3],
              dilation_rate=[2, 2], padding="valid")
    kg = rand(3, 3, 2, 6)
    one_layer("conv2d_groups", "Conv2D", [6, 6, 4], [kg, bias],
              lambda x: conv2d(x, kg, (1, 1), "same", groups=2) + bias, filters=6, kernel_size=3, groups=2,
              padding="same")
    one_layer("conv2d_channels_first", "Conv2D", [4, 6, 5], [k, bias],
              lambda x: (conv2d(x.transpose(0, 2, 3, 1), k, (1, 1), "same") + bias).transpose(0, 3, 1, 2),
              filters=6, kernel_size=3, padding="same", data_format="channels_first")
    k1 = rand(3, 4, 5)
    b1 = rand(5)
    one_layer("conv1d_causal_dilated", "Conv1D", [10, 4], [k1, b1],
              lambda x: conv2d(np.pad(x, ((0, 0), (4, 0), (0, 0)))[:, None], k1[None], (1, 1), "valid",
                               (1, 2))[:, 0] + b1, filters=5, kernel_size=3, padding="causal", dilation_rate=2)
    one_layer("conv1d_same_strided_tanh", "Conv1D", [11, 4], [k1, b1],
              lambda x: np.tanh(conv2d(x[:, None], k1[None], (1, 2), "same")[:, 0] + b1), filters=5,
              kernel_size=3, strides=2, padding="same", activation="tanh")
    kd = rand(3, 3, 4, 2)
    bd = rand(8)
    one_layer("depthwise_same_multiplier2", "DepthwiseConv2D", [7, 7, 4], [kd, bd],
              lambda x: depthwise2d(x, kd, (2, 2), "same") + bd, kernel_size=3, strides=2, padding="same",
              depth_multiplier=2)
    kd1 = rand(3, 4, 1)
    one_layer("depthwise1d_valid", "DepthwiseConv1D", [9, 4], [kd1],
              lambda x: depthwise2d(x[:, None], kd1[None], (1, 1), "valid")[:, 0], kernel_size=3,
              depth_multiplier=1, use_bias=False)
    ks_d, ks_p, ks_b = rand(3, 3, 4, 1), rand(1, 1, 4, 6), rand(6)
    one_layer("separable_conv2d", "SeparableConv2D", [8, 8, 4], [ks_d, ks_p, ks_b],
              lambda x: np.maximum(conv2d(depthwise2d(x, ks_d, (1, 1), "same"), ks_p) + ks_b, 0), filters=6,
              kernel_size=3, padding="same", activation="relu", depth_multiplier=1)
    ks1_d, ks1_p = rand(3, 4, 2), rand(1, 8, 5)
    one_layer("separable_conv1d", "SeparableConv1D", [9, 4], [ks1_d, ks1_p, b1],
              lambda x: conv2d(depthwise2d(x[:, None], ks1_d[None], (1, 2), "valid"), ks1_p[None])[:, 0] + b1,
              filters=5, kernel_size=3, strides=2, padding="valid", depth_multiplier=2)
    kt, bt = rand(3, 3, 5, 4), rand(5)
    one_layer("conv2d_transpose_same_strided", "Conv2DTranspose", [4, 5, 4], [kt, bt],
              lambda x: conv2d_transpose(x, kt, (8, 10), (2, 2), "same") + bt, filters=5, kernel_size=3,
              strides=2, padding="same")
    one_layer("conv2d_transpose_valid_output_padding", "Conv2DTranspose", [3, 3, 4], [kt, bt],
              lambda x: conv2d_transpose(x, kt, (8, 8), (2, 2), "valid") + bt, filters=5, kernel_size=3,
              strides=2, padding="valid", output_padding=[1, 1])


def pooling_cases():
    one_layer("maxpool2d_same", "MaxPooling2D", [7, 6, 3], [], lambda x: pool2d(x, (3, 3), (2, 2), "same", "max"),
              pool_size=[3, 3], strides=[2, 2], padding="same")
    one_layer("avgpool2d_same", "AveragePooling2D", [7, 6, 3], [],
              lambda x: pool2d(x, (3, 3), (2, 2), "same", "avg"), pool_size=3, strides=2, padding="same")
    one_layer("avgpool2d_valid_default_strides", "AveragePooling2D", [6, 6, 3], [],
              lambda x: pool2d(x, (2, 2), (2, 2), "valid", "avg"), pool_size=[2, 2], strides=None, padding="valid")
    one_layer("maxpool1d", "MaxPooling1D", [9, 3], [], lambda x: pool2d(x[:, None], (1, 2), (1, 2), "valid", "max")[:, 0],
              pool_size=2, strides=2, padding="valid")
    one_layer("avgpool1d_same", "AveragePooling1D", [9, 3], [],
              lambda x: pool2d(x[:, None], (1, 3), (1, 2), "same", "avg")[:, 0], pool_size=3, strides=2, padding="same")
    one_layer("maxpool2d_channels_first", "MaxPooling2D", [3, 6, 6], [],
              lambda x: pool2d(x.transpose(0, 2, 3, 1), (2, 2), (2, 2), "valid", "max").transpose(0, 3, 1, 2),
              pool_size=2, data_format="channels_first")
    one_layer("gap2d_keepdims", "GlobalAveragePooling2D", [5, 4, 3], [], lambda x: x.mean(axis=(1, 2), keepdims=True),
              keepdims=True)
    one_layer("gmp1d", "GlobalMaxPooling1D", [5, 3], [], lambda x: x.max(axis=1))
    one_layer("gap1d_channels_first", "GlobalAveragePooling1D", [3, 5], [], lambda x: x.mean(axis=2),
              data_format="channels_first")


def reshaping_cases():
    one_layer("zeropadding2d", "ZeroPadding2D", [3, 4, 2], [], lambda x: np.pad(x, ((0, 0), (1, 2), (0, 3), (0, 0))),
              padding=[[1, 2], [0, 3]])
    one_layer("zeropadding1d", "ZeroPadding1D", [3, 2], [], lambda x: np.pad(x, ((0, 0), (2, 1), (0, 0))),
              padding=[2, 1])
    one_layer("cropping2d", "Cropping2D", [6, 7, 2], [], lambda x: x[:, 1:5, 2:6], cropping=[[1, 1], [2, 1]])
    one_layer("cropping1d", "Cropping1D", [6, 2], [], lambda x: x[:, 2:], cropping=[2, 0])
    one_layer("upsampling2d_nearest", "UpSampling2D", [3, 4, 2], [],
              lambda x: x.repeat(2, axis=1).repeat(3, axis=2), size=[2, 3], interpolation="nearest")
    one_layer("upsampling2d_bilinear", "UpSampling2D", [3, 4, 2], [], lambda x: resize_bilinear(x, 6, 8),
              size=[2, 2], interpolation="bilinear")
    one_layer("upsampling1d", "UpSampling1D", [3, 2], [], lambda x: x.repeat(3, axis=1), size=3)
    one_layer("resizing_bilinear", "Resizing", [5, 7, 3], [], lambda x: resize_bilinear(x, 4, 9), height=4, width=9,
              interpolation="bilinear", crop_to_aspect_ratio=False)
    one_layer("resizing_nearest_crop", "Resizing", [6, 9, 3], [], lambda x: resize_nearest(x[:, :, 1:7], 4, 4),
              height=4, width=4, interpolation="nearest", crop_to_aspect_ratio=True)
    one_layer("center_crop", "CenterCrop", [7, 8, 3], [], lambda x: x[:, 1:6, 2:6], height=5, width=4)


def merge_cases():
    def two_input(name, cls, fn, shapes=([4], [4]), **config):
        model = functional([input_layer("a", shapes[0]), input_layer("b", shapes[1]),
                            layer(cls, "merge", [call(("a",), ("b",))], **config)], ["a", "b"], ["merge"])
        a, b = rand(2, *shapes[0]), rand(2, *shapes[1])
        case(name, model, {}, [("a", a), ("b", b)], [fn(a, b)])
    two_input("merge_add", "Add", lambda a, b: a + b)
    two_input("merge_subtract", "Subtract", lambda a, b: a - b)
    two_input("merge_multiply", "Multiply", lambda a, b: a * b)
    two_input("merge_average", "Average", lambda a, b: (a + b) / 2)
    two_input("merge_maximum", "Maximum", lambda a, b: np.maximum(a, b))
    two_input("merge_minimum", "Minimum", lambda a, b: np.minimum(a, b))
    two_input("merge_concatenate_axis1", "Concatenate", lambda a, b: np.concatenate([a, b], 1), ([2, 3], [4, 3]),
              axis=1)
    two_input("dot_vectors", "Dot", lambda a, b: (a * b).sum(1, keepdims=True), axes=1)

    def l2n(v, axis):
        return v / np.sqrt(np.maximum((v * v).sum(axis, keepdims=True), 1e-12))
    two_input("dot_3d_normalized", "Dot", lambda a, b: np.einsum("bij,bik->bjk", l2n(a, 1), l2n(b, 1)),
              ([3, 4], [3, 5]), axes=[1, 1], normalize=True)


def normalization_cases():
    g, be, m, v = rand(5), rand(5), rand(5), RNG.uniform(0.5, 2, 5)
    bn = lambda x, eps: (x - m) / np.sqrt(v + eps) * g + be  # noqa: E731
    one_layer("batchnorm_dense_keras3", "BatchNormalization", [5], [g, be, m, v], lambda x: bn(x, 1e-3),
              axis=-1, epsilon=1e-3, center=True, scale=True)
    one_layer("batchnorm_no_scale", "BatchNormalization", [5], [be, m, v],
              lambda x: (x - m) / np.sqrt(v + 0.01) + be, axis=-1, epsilon=0.01, center=True, scale=False)
    gc = rand(3)
    mc, vc, bc = rand(3), RNG.uniform(0.5, 2, 3), rand(3)
    one_layer("batchnorm_channels_first", "BatchNormalization", [3, 4, 4], [gc, bc, mc, vc],
              lambda x: (x - mc[:, None, None]) / np.sqrt(vc[:, None, None] + 1e-3) * gc[:, None, None]
              + bc[:, None, None], axis=1, epsilon=1e-3)
    # Keras 2's fused path (rank 4, channels last) raises epsilon to 1.001e-5.
    model = sequential([input_layer("input_layer", [3, 3, 5]),
                        layer("BatchNormalization", "batch_normalization", axis=[3], epsilon=1e-7)])
    vs = RNG.uniform(1e-6, 1e-5, 5)
    x = rand(2, 3, 3, 5, scale=1e-3)
    case("batchnorm_keras2_fused_epsilon", model,
         {"batch_normalization": [("batch_normalization/gamma:0", g), ("batch_normalization/beta:0", be),
                                  ("batch_normalization/moving_mean:0", m * 1e-3),
                                  ("batch_normalization/moving_variance:0", vs)]},
         [("input_layer", x)], [(x - m * 1e-3) / np.sqrt(vs + 1.001e-5) * g + be], fmt="h5", version="2.15.0")
    lg, lb = rand(6), rand(6)

    def ln(x, eps, axes=(-1,)):
        mu = x.mean(axis=axes, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=axes, keepdims=True)
        return (x - mu) / np.sqrt(var + eps)
    one_layer("layernorm", "LayerNormalization", [3, 6], [lg, lb], lambda x: ln(x, 1e-3) * lg + lb, axis=[-1],
              epsilon=1e-3)
    lg2 = rand(3, 6)
    one_layer("layernorm_two_axes_no_center", "LayerNormalization", [3, 6], [lg2], lambda x: ln(x, 1e-5, (1, 2)) * lg2,
              axis=[1, 2], epsilon=1e-5, center=False)
    nm, nv = rand(4), RNG.uniform(0.5, 2, 4)
    one_layer("normalization_adapted", "Normalization", [4], [nm, nv, np.array(10, dtype=np.int64)],
              lambda x: (x - nm) / np.maximum(np.sqrt(nv), 1e-7), axis=-1)
    one_layer("normalization_config_invert", "Normalization", [4], [],
              lambda x: nm + x * np.maximum(np.sqrt(nv), 1e-7), axis=-1, mean=nm.tolist(), variance=nv.tolist(),
              invert=True)
    one_layer("unit_normalization", "UnitNormalization", [5], [],
              lambda x: x / np.sqrt(np.maximum((x * x).sum(-1, keepdims=True), 1e-12)), axis=-1)


def rnn_cases():
    f, u, t = 3, 4, 5
    w, r, b = rand(f, 4 * u), rand(u, 4 * u), rand(4 * u)
    x = rand(2, t, f)

    def rnn_model(name, cls, weights, fn, x=x, **config):
        model = sequential([input_layer("input_layer", list(x.shape[1:])), layer(cls, "rnn", **config)])
        case(name, model, {"rnn": weights}, [("input_layer", x)], [fn(x)])
    rnn_model("lstm_sequences", "LSTM", {"cell": [w, r, b]},
              lambda x: run_rnn(x, lstm_cell(w, r, b), u, return_sequences=True, n_states=2)[0],
              units=u, return_sequences=True)
    rnn_model("lstm_backwards_relu", "LSTM", {"cell": [w, r, b]},
              lambda x: run_rnn(x, lstm_cell(w, r, b, act=lambda v: np.maximum(v, 0)), u, go_backwards=True,
                                n_states=2)[0], units=u, go_backwards=True, activation="relu")
    wg, rg, bg = rand(f, 3 * u), rand(u, 3 * u), rand(2, 3 * u)
    rnn_model("gru_reset_after", "GRU", {"cell": [wg, rg, bg]},
              lambda x: run_rnn(x, gru_cell(wg, rg, bg), u)[0], units=u, reset_after=True)
    bg1 = rand(3 * u)
    rnn_model("gru_reset_before_sequences_backwards", "GRU", {"cell": [wg, rg, bg1]},
              lambda x: run_rnn(x, gru_cell(wg, rg, bg1, reset_after=False), u, go_backwards=True,
                                return_sequences=True)[0], units=u, reset_after=False, return_sequences=True,
              go_backwards=True)
    ws, rs, bs = rand(f, u), rand(u, u), rand(u)
    rnn_model("simplernn_relu", "SimpleRNN", {"cell": [ws, rs, bs]},
              lambda x: run_rnn(x, simple_cell(ws, rs, bs, lambda v: np.maximum(v, 0)), u)[0], units=u,
              activation="relu")
    rnn_model("rnn_generic_lstmcell", "RNN", {"cell": [w, r, b]},
              lambda x: run_rnn(x, lstm_cell(w, r, b), u, n_states=2)[0],
              cell={"module": "keras.layers", "class_name": "LSTMCell",
                    "config": {"name": "lstm_cell", "units": u, "activation": "tanh",
                               "recurrent_activation": "sigmoid", "use_bias": True}})
    w2, r2, b2 = rand(f, 4 * u), rand(u, 4 * u), rand(4 * u)
    inner = {"module": "keras.layers", "class_name": "LSTM",
             "config": {"name": "lstm", "units": u, "return_sequences": True}}
    backward = {"module": "keras.layers", "class_name": "LSTM",
                "config": {"name": "backward_lstm", "units": u, "return_sequences": True, "go_backwards": True}}
    rnn_model("bidirectional_concat_sequences", "Bidirectional",
              {"forward_layer/cell": [w, r, b], "backward_layer/cell": [w2, r2, b2]},
              lambda x: np.concatenate([run_rnn(x, lstm_cell(w, r, b), u, return_sequences=True, n_states=2)[0],
                                        run_rnn(x, lstm_cell(w2, r2, b2), u, go_backwards=True, return_sequences=True,
                                                n_states=2)[0][:, ::-1]], -1),
              layer=inner, backward_layer=backward, merge_mode="concat")
    inner_last = {"module": "keras.layers", "class_name": "GRU", "config": {"name": "gru", "units": u}}
    bg2 = rand(2, 3 * u)
    rnn_model("bidirectional_sum_keras2_backward", "Bidirectional",
              {"forward_layer/cell": [wg, rg, bg], "backward_layer/cell": [wg * 0.5, rg, bg2]},
              lambda x: run_rnn(x, gru_cell(wg, rg, bg), u)[0]
              + run_rnn(x, gru_cell(wg * 0.5, rg, bg2), u, go_backwards=True)[0],
              layer=inner_last, merge_mode="sum")
    wd, bd = rand(f, 2), rand(2)
    rnn_model("time_distributed_dense", "TimeDistributed", {"layer": [wd, bd]}, lambda x: np.tanh(x @ wd + bd),
              layer={"module": "keras.layers", "class_name": "Dense",
                     "config": {"name": "dense", "units": 2, "activation": "tanh"}})
    # A mask from Embedding(mask_zero) through an LSTM and a masked mean.
    table = rand(7, f)
    ids = np.array([[3, 1, 0, 0, 0], [2, 4, 6, 1, 0]], dtype=np.float64)
    mask = ids != 0
    model = sequential([input_layer("input_layer", [t]),
                        layer("Embedding", "embedding", input_dim=7, output_dim=f, mask_zero=True),
                        layer("LSTM", "lstm", units=u, return_sequences=True),
                        layer("GlobalAveragePooling1D", "pool")])
    seq = run_rnn(table[ids.astype(int)], lstm_cell(w, r, b), u, mask=mask, return_sequences=True, n_states=2)[0]
    pooled = (seq * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
    case("masked_embedding_lstm_average", model, {"embedding": [table], "lstm": {"cell": [w, r, b]}},
         [("input_layer", ids)], [pooled])
    model = sequential([input_layer("input_layer", [t, f]), layer("Masking", "masking", mask_value=0.0),
                        layer("GRU", "gru", units=u)])
    xm = x.copy()
    xm[0, 3:] = 0
    case("masking_gru", model, {"gru": {"cell": [wg, rg, bg]}}, [("input_layer", xm)],
         [run_rnn(xm, gru_cell(wg, rg, bg), u, mask=(xm != 0).any(-1))[0]])


def model_cases():
    # Transfer learning: a nested Functional base (Conv2D + pooling) under a
    # Dense head, the base's weights under layers/functional/layers/...
    k, bk = rand(3, 3, 3, 4), rand(4)
    base = functional([input_layer("base_input", [6, 6, 3]),
                       layer("Conv2D", "base_conv", [call(("base_input",))], filters=4, kernel_size=3,
                             padding="same", activation="relu"),
                       layer("GlobalAveragePooling2D", "base_pool", [call(("base_conv",))])],
                      ["base_input"], ["base_pool"], name="base")
    base.update({"name": "base", "inbound_nodes": [call(("image",))]})
    wd, bd = rand(4, 2), rand(2)
    model = functional([input_layer("image", [6, 6, 3]), base,
                        layer("Dense", "head", [call(("base",))], units=2, activation="softmax")],
                       ["image"], ["head"], name="transfer")
    x = rand(2, 6, 6, 3)
    feat = np.maximum(conv2d(x, k, (1, 1), "same") + bk, 0).mean(axis=(1, 2))
    case("nested_functional_base", model, {"base_conv": [k, bk], "head": [wd, bd]}, [("image", x)],
         [softmax(feat @ wd + bd, -1)])
    # A shared layer called on two inputs; two outputs.
    ws, bs = rand(3, 2), rand(2)
    model = functional([input_layer("left", [3]), input_layer("right", [3]),
                        layer("Dense", "shared", [call(("left",)), call(("right",))], units=2),
                        layer("Subtract", "diff", [call(("shared", 0, 0), ("shared", 1, 0))])],
                       ["left", "right"], ["diff", ("shared", 1, 0)], name="siamese")
    a, b = rand(2, 3), rand(2, 3)
    case("shared_layer_two_outputs", model, {"shared": [ws, bs]}, [("left", a), ("right", b)],
         [(a @ ws + bs) - (b @ ws + bs), b @ ws + bs])
    # Keras 2 files: a .keras from Keras 2.14 (_layer_checkpoint_dependencies),
    # one from Keras 2.15 on Windows (backslash paths) and legacy .h5 models.
    wa, ba = rand(4, 3), rand(3)
    seq = sequential([input_layer("input_1", [4]), layer("Dense", "dense", units=3, activation="relu")])
    x = rand(2, 4)
    expect = [np.maximum(x @ wa + ba, 0)]
    case("keras214_layer_checkpoint_dependencies", seq, {"dense": [wa, ba]}, [("input_1", x)], expect,
         version="2.14.0", layers_attr="_layer_checkpoint_dependencies")
    case("keras215_windows_backslashes", seq, {"dense": [wa, ba]}, [("input_1", x)], expect, version="2.15.0",
         separator="\\")
    seq_k2 = sequential([layer("Dense", "dense", units=3, activation="relu", batch_input_shape=[None, 4])])
    case("h5_keras2_sequential_implicit_input", seq_k2, {"dense": [("dense/kernel:0", wa), ("dense/bias:0", ba)]},
         [("dense_input", x)], expect, fmt="h5", version="2.4.0")
    lam = sequential([input_layer("input_1", [4]),
                      layer("TFOpLambda", "tf.math.multiply", function="math.multiply")])
    k2 = lam["config"]["layers"]
    k2[1]["inbound_nodes"] = [[["input_1", 0, 0, {"y": 0.25, "name": None}]]]
    lam = functional(k2, ["input_1"], ["tf.math.multiply"], name="model")
    for entry in lam["config"]["layers"]:
        if entry["class_name"] == "InputLayer":
            entry["config"]["batch_input_shape"] = entry["config"].pop("batch_shape")
            entry["inbound_nodes"] = []
    case("h5_keras2_tfoplambda", lam, {}, [("input_1", x)], [x * 0.25], fmt="h5", version="2.13.1")


def bad_files():
    bad = os.path.join(OUT, "bad")
    os.makedirs(bad, exist_ok=True)
    good = os.path.join(OUT, "dense_relu.keras")
    with zipfile.ZipFile(good) as z:
        members = {n: z.read(n) for n in z.namelist()}

    def rezip(name, drop=(), replace=None):
        with zipfile.ZipFile(os.path.join(bad, name), "w") as z:
            for n, data in members.items():
                if n in drop:
                    continue
                z.writestr(n, (replace or {}).get(n, data))
    rezip("missing_weights.keras", drop=("model.weights.h5",))
    rezip("missing_config.keras", drop=("config.json",))
    config = json.loads(members["config.json"])
    wrong = json.loads(json.dumps(config))
    wrong["config"]["layers"][1]["config"]["units"] = 7
    rezip("wrong_shape.keras", replace={"config.json": json.dumps(wrong).encode()})
    unknown = json.loads(json.dumps(config))
    unknown["config"]["layers"][1]["class_name"] = "NoSuchLayer"
    rezip("unknown_class.keras", replace={"config.json": json.dumps(unknown).encode()})
    absurd = json.loads(json.dumps(config))
    absurd["config"]["layers"][0]["config"]["batch_shape"] = [None, 6, 2 ** 31, 2 ** 31]
    rezip("absurd_shape.keras", replace={"config.json": json.dumps(absurd).encode()})
    buf = io.BytesIO()
    with h5py.File(buf, "w") as f:
        f.create_group("vars")
        f.create_group("layers/dense/vars")["0"] = np.zeros((6, 5), np.float32)
    rezip("absent_weight.keras", replace={"model.weights.h5": buf.getvalue()})
    h5 = os.path.join(OUT, "batchnorm_keras2_fused_epsilon.h5")
    data = open(h5, "rb").read()
    open(os.path.join(bad, "truncated.h5"), "wb").write(data[:len(data) // 2])
    open(os.path.join(bad, "truncated.keras"), "wb").write(open(good, "rb").read()[:1500])


def main():
    global OUT
    OUT = sys.argv[1]
    os.makedirs(OUT, exist_ok=True)
    for group in (core_cases, conv_cases, pooling_cases, reshaping_cases, merge_cases, normalization_cases,
                  rnn_cases, model_cases):
        group()
    bad_files()
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(CASES, f, indent=1)


if __name__ == "__main__":
    main()
