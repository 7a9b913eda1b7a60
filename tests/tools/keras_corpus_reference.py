#!/usr/bin/env python3
"""NumPy reference outputs for the corpus Keras files that have no usable
TensorFlow-made .tflite (see ../shared/models/keras/MANIFEST.md), computed
from the files themselves (h5py and zipfile) by a small float64 interpreter
of their layer chains, written from Keras' layer semantics and independent
of gdstudio. The layer math comes from keras_layers.py beside this script.

For each file STEM handled, writes OUT_DIR/STEM.input.npy (a seeded input,
or the corpus's own input when it has one) and OUT_DIR/STEM.numpy_output.npy.

usage: keras_corpus_reference.py CORPUS_DIR OUT_DIR
"""
import json
import os
import sys
import zipfile
import io

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import keras_layers as kl  # noqa: E402

# stem -> (input shape of a batch-1 run, low, high)
FILES = {
    "toycar_dense_ae_k2.4": None,  # its corpus input
    "can_gru_k2.15": ([1, 1, 4], -1, 1),
    "lettuce_lstm_k3.6": ([1, 12, 9], -1, 1),
    "autompg_normalization_k3.3": ([1, 9], 0, 100),
    "docclean_conv_ae_k2.14": ([1, 32, 48, 3], 0, 1),
    "ultrasonic_conv1d_k3.10": ([1, 2500, 1], -1, 1),
}


class KerasArchive:
    """A .keras file: weights by saving_lib's object paths."""

    def __init__(self, path):
        z = zipfile.ZipFile(path)
        self.config = json.loads(z.read("config.json"))
        self.h5 = h5py.File(io.BytesIO(z.read("model.weights.h5")), "r")
        # Each layer's object name: its class in snake case, numbered per
        # class in the model's layer list.
        self.paths, used = {}, {}
        for entry in self.config["config"]["layers"]:
            name = kl.snake(entry["class_name"])
            used[name] = used.get(name, -1) + 1
            self.paths[entry["config"]["name"]] = name if used[name] == 0 else "%s_%d" % (name, used[name])

    def weights(self, entry, sub=""):
        path = self.paths[entry["config"]["name"]] + ("/" + sub if sub else "")
        for root in ("layers/", "_layer_checkpoint_dependencies/"):
            for p in (root + path, (root + path).replace("/", "\\")):
                if p + "/vars" in self.h5 or (p in self.h5 and "vars" in self.h5[p]):
                    g = self.h5[p]["vars"]
                    return [g[str(i)][()].astype(np.float64) for i in range(len(g))]
        return []


class LegacyH5:
    def __init__(self, path):
        self.h5 = h5py.File(path, "r")
        self.config = json.loads(self.h5.attrs["model_config"])

    def weights(self, entry, sub=""):
        g = self.h5["model_weights"][entry["config"]["name"]]
        names = [n.decode() if isinstance(n, bytes) else n for n in g.attrs["weight_names"]]
        return [g[n][()].astype(np.float64) for n in names]


def act(name, v):
    return kl.ACTIVATIONS[name or "linear"](v)


def run_layer(store, entry, x):
    cls, c = entry["class_name"], entry["config"]
    if entry.get("class_name") == "InputLayer":
        return x
    if cls in ("Dropout",):
        return x
    w = store.weights(entry, "cell" if cls in ("GRU", "LSTM") else "")
    if cls == "Dense":
        y = np.tensordot(x, w[0], axes=[[x.ndim - 1], [0]]) + (w[1] if len(w) > 1 else 0)
        return act(c.get("activation"), y)
    if cls == "BatchNormalization":
        g, b, m, v = w
        return (x - m) / np.sqrt(v + c["epsilon"]) * g + b
    if cls == "Activation":
        return act(c["activation"], x)
    if cls == "ReLU":
        assert not c.get("max_value") and not c.get("negative_slope")
        return np.maximum(x, 0)
    if cls == "Normalization":
        return (x - w[0]) / np.maximum(np.sqrt(w[1]), 1e-7)
    if cls == "Conv2D":
        y = kl.conv2d(x, w[0], tuple(c["strides"]), c["padding"], tuple(c["dilation_rate"])) + w[1]
        return act(c["activation"], y)
    if cls == "Conv1D":
        y = kl.conv2d(x[:, None], w[0][None], (1, c["strides"][0]), c["padding"], (1, c["dilation_rate"][0]))[:, 0]
        return act(c["activation"], y + w[1])
    if cls == "MaxPooling2D":
        return kl.pool2d(x, tuple(c["pool_size"]), tuple(c["strides"]), c["padding"], "max")
    if cls == "MaxPooling1D":
        return kl.pool2d(x[:, None], (1, c["pool_size"][0]), (1, c["strides"][0]), c["padding"], "max")[:, 0]
    if cls == "UpSampling2D":
        return x.repeat(c["size"][0], axis=1).repeat(c["size"][1], axis=2)
    if cls == "GlobalAveragePooling1D":
        return x.mean(axis=1)
    if cls == "Reshape":
        return x.reshape([x.shape[0]] + c["target_shape"])
    if cls == "GRU":
        cell = kl.gru_cell(w[0], w[1], w[2], reset_after=c["reset_after"])
        return kl.run_rnn(x, cell, c["units"], return_sequences=c["return_sequences"])[0]
    if cls == "LSTM":
        cell = kl.lstm_cell(w[0], w[1], w[2])
        return kl.run_rnn(x, cell, c["units"], return_sequences=c["return_sequences"], n_states=2)[0]
    raise ValueError("no reference for " + cls)


def main():
    corpus, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for stem, spec in FILES.items():
        path = os.path.join(corpus, stem + (".h5" if os.path.exists(os.path.join(corpus, stem + ".h5")) else ".keras"))
        store = LegacyH5(path) if path.endswith(".h5") else KerasArchive(path)
        if spec is None:
            x = np.load(os.path.join(corpus, stem + ".input.npy")).astype(np.float64)
        else:
            shape, lo, hi = spec
            x = np.random.default_rng(1234).uniform(lo, hi, size=shape)
        np.save(os.path.join(out, stem + ".input.npy"), x.astype(np.float32))
        x = x.astype(np.float32).astype(np.float64)
        for entry in store.config["config"]["layers"]:
            x = run_layer(store, entry, x)
        np.save(os.path.join(out, stem + ".numpy_output.npy"), x.astype(np.float32))


if __name__ == "__main__":
    main()
