#!/usr/bin/env bash
# TFLite int8 (gdstudio's TFLite-exact path) vs our float graph and the
# calibrated per-channel 8-bit graph (bench_tflite) on MobileNet v1 1.0/224
# (random weights) and a generated ResNet-50, at 1 and 2 threads. The
# ResNet-50 (100 MB) is generated into a temporary folder by the shared graph
# generator, never committed.
#
#   bench/bench_tflite.sh BUILD_DIR [SHARED_DIR] [RUNS=10]
set -euo pipefail
BUILD="$(cd "${1:?usage: bench/bench_tflite.sh BUILD_DIR [SHARED_DIR] [RUNS]}" && pwd)"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SHARED="$(cd "${2:-$HERE/../../shared}" && pwd)"
RUNS="${3:-10}"
BIN="$BUILD/bench/bench_tflite"
[ -x "$BIN" ] || { echo "no $BIN (build the bench_tflite target first)" >&2; exit 2; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
/usr/bin/python3 "$SHARED/tools/graphgen/make.py" resnet50 "$WORK/resnet50.pb" > /dev/null
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
"$BIN" --models="$SHARED/models" --resnet50="$WORK/resnet50.pb" --runs="$RUNS" --tmp="$WORK" "${@:4}"
