#!/usr/bin/env python3
"""Reference outputs of the Keras recurrent models of the TF2 corpus,
computed with NumPy from the checkpoint weights by Keras' own recurrences
(tf.keras.layers.GRU with reset_after=True, LSTM), independently of the
frozen graphs whose While loops gdstudio lowers.

usage: keras_rnn_reference.py TF2INSPECT_DIR SAVED_MODEL_DIR INPUT.npy OUTPUT.npy
"""
import os
import sys

sys.path.insert(0, sys.argv[1])
import numpy as np  # noqa: E402
import tfsm  # noqa: E402


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def value(bundle, key):
    return bundle.tensor(key + '/.ATTRIBUTES/VARIABLE_VALUE').astype(np.float64)


def lstm(seq, w, u, b, activation, return_sequences):
    h = np.zeros((seq.shape[0], u.shape[0]))
    c = np.zeros_like(h)
    outs = []
    for t in range(seq.shape[1]):
        i, f, cc, o = np.split(seq[:, t, :] @ w + h @ u + b, 4, axis=1)
        c = sigmoid(f) * c + sigmoid(i) * activation(cc)
        h = sigmoid(o) * activation(c)
        outs.append(h)
    return np.stack(outs, 1) if return_sequences else h


def nordpool_gru(bundle, x):
    w, u, b = (value(bundle, 'variables/%d' % k) for k in range(3))
    h = np.zeros((x.shape[0], u.shape[0]))
    for t in range(x.shape[1]):
        xz, xr, xh = np.split(x[:, t, :] @ w + b[0], 3, axis=1)
        rz, rr, rh = np.split(h @ u + b[1], 3, axis=1)
        z, r = sigmoid(xz + rz), sigmoid(xr + rr)
        h = z * h + (1 - z) * np.tanh(xh + r * rh)
    d = np.maximum(h @ value(bundle, 'layer_with_weights-1/kernel') + value(bundle, 'layer_with_weights-1/bias'), 0)
    return d @ value(bundle, 'layer_with_weights-2/kernel') + value(bundle, 'layer_with_weights-2/bias')


def stock_lstm(bundle, x):
    seq = x
    for layer in range(4):
        w, u, b = (value(bundle, 'variables/%d' % (3 * layer + k)) for k in range(3))
        seq = lstm(seq, w, u, b, lambda v: np.maximum(v, 0), True)
    return seq @ value(bundle, 'layer_with_weights-4/kernel') + value(bundle, 'layer_with_weights-4/bias')


def tweet_lstm(bundle, x):
    seq = value(bundle, 'layer_with_weights-0/embeddings')[x.astype(np.int64)]
    w, u, b = (value(bundle, 'variables/%d' % k) for k in (1, 2, 3))
    h = lstm(seq, w, u, b, np.tanh, False)
    return sigmoid(h @ value(bundle, 'layer_with_weights-2/kernel') + value(bundle, 'layer_with_weights-2/bias'))


MODELS = {'nordpool_gru_cudnn': nordpool_gru, 'stock_lstm4_relu': stock_lstm,
          'tweet_sentiment_embedding_lstm': tweet_lstm}


def main():
    model_dir = sys.argv[2].rstrip('/')
    _, _, bundle = tfsm.load(model_dir)
    x = np.load(sys.argv[3]).astype(np.float64)
    np.save(sys.argv[4], MODELS[os.path.basename(model_dir)](bundle, x).astype(np.float32))


if __name__ == '__main__':
    main()
