#!/usr/bin/env bash
# 8-bit vs float whole-graph latency (bench_quant) on MobileNet v1 1.0/224
# (random weights), MobileNet v1 0.25/128 and a generated ResNet-50, at 1 and 2
# threads, for each 8-bit GEMM backend; on CPUs with AMX, a second table with
# oneDNN held to AVX-512 VNNI. Then the forced-AVX2 tables: the same run and
# bench_tflite (TFLite int8 vs float vs per-channel) with our own dispatch
# capped at AVX2 (GDS_CPU=avx2) and oneDNN's too (ONEDNN_MAX_CPU_ISA=AVX2),
# as on a CPU with AVX2 and no AVX-512/VNNI (on such a CPU they measure the
# same as the first table). The ResNet-50 (100 MB) is generated into a
# temporary folder by the shared graph generator, never committed.
# SKIP_AVX2_TABLE=1 leaves the forced-AVX2 tables out.
#
#   bench/bench_quant.sh BUILD_DIR [SHARED_DIR] [RUNS=20]
set -euo pipefail
BUILD="$(cd "${1:?usage: bench/bench_quant.sh BUILD_DIR [SHARED_DIR] [RUNS]}" && pwd)"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SHARED="$(cd "${2:-$HERE/../../shared}" && pwd)"
RUNS="${3:-20}"
BIN="$BUILD/bench/bench_quant"
[ -x "$BIN" ] || { echo "no $BIN (build the bench_quant target first)" >&2; exit 2; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
/usr/bin/python3 "$SHARED/tools/graphgen/make.py" resnet50 "$WORK/resnet50.pb" > /dev/null
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
"$BIN" --models="$SHARED/models" --resnet50="$WORK/resnet50.pb" --runs="$RUNS" "${@:4}"
# The same with oneDNN held to AVX-512 VNNI (no AMX), where the CPU has more.
if [ -z "${ONEDNN_MAX_CPU_ISA:-}" ] && grep -q amx_int8 /proc/cpuinfo 2>/dev/null; then
  echo
  echo "== oneDNN limited to AVX-512 VNNI (ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI)"
  ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI "$BIN" --models="$SHARED/models" --resnet50="$WORK/resnet50.pb" \
    --runs="$RUNS" "${@:4}"
fi

if [ -z "${SKIP_AVX2_TABLE:-}" ]; then
  echo
  echo "== Forced AVX2: GDS_CPU=avx2 ONEDNN_MAX_CPU_ISA=AVX2 (no AVX-512, no VNNI)"
  GDS_CPU=avx2 ONEDNN_MAX_CPU_ISA=AVX2 "$BIN" --models="$SHARED/models" --resnet50="$WORK/resnet50.pb" \
    --runs="$RUNS" "${@:4}"
  TFL="$BUILD/bench/bench_tflite"
  if [ -x "$TFL" ]; then
    echo
    echo "== Forced AVX2, TFLite int8 (bench_tflite): GDS_CPU=avx2 ONEDNN_MAX_CPU_ISA=AVX2"
    GDS_CPU=avx2 ONEDNN_MAX_CPU_ISA=AVX2 "$TFL" --models="$SHARED/models" --resnet50="$WORK/resnet50.pb" \
      --runs="$RUNS" --tmp="$WORK" "${@:4}"
  else
    echo "(no $TFL: build the bench_tflite target for the TFLite int8 rows)"
  fi
fi
