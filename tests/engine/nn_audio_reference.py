#!/usr/bin/env python3
"""Independent re-derivation of TensorFlow's speech front end (no numpy, no TF)
used to produce the expected numbers in nn_audio_test.cc.

DecodeWav (16-bit PCM / 32768) -> AudioSpectrogram (periodic Hann window,
zero-padded to the next power of two, naive DFT, |X|^2) -> Mfcc (TF's
mfcc_mel_filterbank.cc: HTK mel 1127*ln(1+f/700), sqrt of the power, triangular
weights; log with floor 1e-12; mfcc_dct.cc: sqrt(2/N) cos(pi*i*(j+0.5)/N)).

usage: nn_audio_reference.py CLIP.wav WINDOW STRIDE DCT FRAME [FRAME...]
"""
import math
import struct
import sys


def read_wav(path):
    b = open(path, "rb").read()
    assert b[:4] == b"RIFF" and b[8:12] == b"WAVE"
    pos, ch, rate, data = 12, None, None, None
    while pos + 8 <= len(b):
        cid, size = b[pos:pos + 4], struct.unpack("<I", b[pos + 4:pos + 8])[0]
        body = b[pos + 8:pos + 8 + size]
        if cid == b"fmt ":
            _, ch, rate = struct.unpack("<HHI", body[:8])
        elif cid == b"data":
            data = body
            break
        pos += 8 + size + (size & 1)
    n = len(data) // (2 * ch)
    samples = [struct.unpack("<h", data[2 * (i * ch):2 * (i * ch) + 2])[0] / 32768.0 for i in range(n)]
    return samples, rate


def power_frame(samples, start, window):
    fft = 1
    while fft < window:
        fft *= 2
    w = [0.5 - 0.5 * math.cos(2 * math.pi * i / window) for i in range(window)]
    x = [samples[start + i] * w[i] for i in range(window)] + [0.0] * (fft - window)
    out = []
    for k in range(fft // 2 + 1):
        re = sum(x[j] * math.cos(2 * math.pi * j * k / fft) for j in range(fft))
        im = sum(x[j] * math.sin(2 * math.pi * j * k / fft) for j in range(fft))
        out.append(re * re + im * im)
    return out


def mfcc(power, rate, dct, channels=40, lower=20.0, upper=4000.0):
    n = len(power)
    mel = lambda f: 1127.0 * math.log1p(f / 700.0)
    lo, hi = mel(lower), mel(upper)
    centers = [lo + (hi - lo) / (channels + 1) * (i + 1) for i in range(channels + 1)]
    hz = 0.5 * rate / (n - 1)
    start, end = int(1.5 + lower / hz), int(upper / hz)
    bands, ch = [], 0
    for i in range(n):
        if i < start or i > end:
            bands.append(-2)
            continue
        while ch < channels and centers[ch] < mel(i * hz):
            ch += 1
        bands.append(ch - 1)
    out = [0.0] * channels
    for i in range(start, end + 1):
        c = bands[i]
        wgt = ((centers[c + 1] - mel(i * hz)) / (centers[c + 1] - centers[c]) if c >= 0
               else (centers[0] - mel(i * hz)) / (centers[0] - lo))
        s = math.sqrt(power[i])
        if c >= 0:
            out[c] += s * wgt
        if c + 1 < channels:
            out[c + 1] += s - s * wgt
    logs = [math.log(max(v, 1e-12)) for v in out]
    norm = math.sqrt(2.0 / channels)
    return [sum(norm * math.cos(math.pi / channels * i * (j + 0.5)) * logs[j] for j in range(channels))
            for i in range(dct)]


def main():
    path, window, stride, dct = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    samples, rate = read_wav(path)
    samples = (samples + [0.0] * 16000)[:16000]  # desired_samples=16000
    print("samples", len(samples), "rate", rate, "first", samples[:3])
    for f in map(int, sys.argv[5:]):
        p = power_frame(samples, f * stride, window)
        print("frame", f, "power[1,10,100]", [p[1], p[10], p[100]])
        print("frame", f, "mfcc[0:4]", mfcc(p, rate, dct)[:4])


if __name__ == "__main__":
    main()
