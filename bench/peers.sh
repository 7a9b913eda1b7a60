#!/usr/bin/env bash
# End-to-end latency of gdstudio's interpreter against ONNX Runtime and OpenCV
# DNN in the same run, with the peer harness in ../shared/tools/peers
# (compare.sh; gdstudio is its EXTRA_ENGINE), on MobileNet v1 1.0/224
# (random weights), MobileNet v1 0.25/128 and a generated ResNet-50, at 1 and
# 2 threads. compare.sh prints median/min ms, GFLOP/s and the error against
# TensorFlow.js for every engine; this script adds one summary line per model
# with gdstudio's ratio to each peer (peer_ms / gdstudio_ms: >= 1 means faster)
# and a final summary table of all models and thread counts.
#
# 8-bit: a second comparison per model and thread count times gdstudio's
# fastest 8-bit variant, the TFLite int8 model (`gdstudio tflite_convert
# --quantize=int8`, run with TFLite's arithmetic) against ONNX Runtime's int8
# peer (compare.sh's onnxruntime-int8: quantize_onnx.py's QDQ model, uint8
# activations, int8 per-channel weights). Both are calibrated on the same
# folder: the timed input and four seeded noisy copies. INT8=0 skips it.
#
#   bench/peers.sh BUILD_DIR [SHARED_DIR] [RUNS=20]
#   MODELS="mobilenet_224 mobilenet_025 resnet50" THREADS_LIST="1 2" REPEAT=3 bench/peers.sh build
#
# REPEAT=N runs every comparison N times, alternating the engines in time,
# and the summary takes each engine's median over the N medians (a shared,
# loaded machine changes speed from minute to minute).
#
# Needs (see the harness README): node + npm ci in tools/peers, Debian's
# python3-numpy python3-onnx python3-protobuf python3-opencv.
set -uo pipefail
BUILD="$(cd "${1:?usage: bench/peers.sh BUILD_DIR [SHARED_DIR] [RUNS]}" && pwd)"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SHARED="$(cd "${2:-$HERE/../../shared}" && pwd)"
RUNS="${3:-20}"
PEERS="$SHARED/tools/peers"
PY=/usr/bin/python3
export GDS="$BUILD/bin/gdstudio"
[ -x "$GDS" ] || { echo "no $GDS (build the gdstudio target first)" >&2; exit 2; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# gdstudio as compare.sh's EXTRA_ENGINE: outputs with `gdstudio run`, timing
# with `gdstudio benchmark --format=json` turned into the harness's JSON line.
#   bash gdstudio_engine.sh ENGINE_NAME [GRAPH]
# GRAPH defaults to compare.sh's $MODEL (the float graph); the 8-bit
# comparison passes the TFLite int8 model converted once per model.
cat > "$WORK/gdstudio_engine.sh" <<'ENGINE'
set -euo pipefail
engine="$1"
graph="${2:-$MODEL}"
"$GDS" run --graph="$graph" --input="$INPUT_NAME=$INPUT" --output="$OUTPUT" --out_dir="$OUT_DIR" \
  --num_threads="$THREADS" > /dev/null
shape="$(/usr/bin/python3 -c "import sys, numpy as np; print(','.join(map(str, np.load(sys.argv[1]).shape)))" "$INPUT")"
"$GDS" benchmark --graph="$graph" --input_layer="$INPUT_NAME" --input_layer_shape="$shape" --input_layer_type=float \
  --input_layer_files="$INPUT" --output_layer="$OUTPUT" --max_num_runs="$RUNS" --max_time=60 --warmup_runs=3 \
  --num_threads="$THREADS" --format=json |
  /usr/bin/python3 -c "import json, sys; j = json.load(sys.stdin); l = j['latency_ms']
print(json.dumps({'engine': sys.argv[1], 'ms': {'median': l['median'], 'min': l['min'], 'max': l['max'], 'runs': l['runs']}}))" "$engine"
ENGINE
export EXTRA_ENGINE="gdstudio=bash '$WORK/gdstudio_engine.sh' gdstudio"

calib_dir() {  # dir input.npy: the input and four seeded noisy copies
  mkdir -p "$1"
  "$PY" -c "
import sys, numpy as np
x = np.load(sys.argv[2]); np.save(sys.argv[1] + '/0.npy', x)
r = np.random.RandomState(1)
for i in range(1, 5): np.save(f'{sys.argv[1]}/{i}.npy', (x + r.normal(0, 0.1 * x.std(), x.shape)).astype(np.float32))
" "$1" "$2"
}

input_npy() {  # path shape...
  "$PY" -c "import sys, numpy as np; s = tuple(map(int, sys.argv[2:])); np.save(sys.argv[1], np.random.RandomState(0).uniform(-1, 1, s).astype(np.float32))" "$@"
}

MODELS="${MODELS:-mobilenet_224 mobilenet_025 resnet50}"
for m in $MODELS; do
  case "$m" in
    mobilenet_224)
      model="$SHARED/models/generated/mobilenet_v1_1.0_224_random.pb"
      in_name=input; out_name=MobilenetV1/Predictions/Reshape_1; input_npy "$WORK/$m.npy" 1 224 224 3 ;;
    mobilenet_025)
      model="$SHARED/models/mobilenet_v1_0.25_128_frozen.pb"
      in_name=input; out_name=MobilenetV1/Predictions/Reshape_1; input_npy "$WORK/$m.npy" 1 128 128 3 ;;
    resnet50)
      model="$WORK/resnet50.pb"
      "$PY" "$SHARED/tools/graphgen/make.py" resnet50 "$model" > /dev/null
      in_name=input_1; out_name=predictions/Softmax; input_npy "$WORK/$m.npy" 1 224 224 3 ;;
    *) echo "unknown model $m" >&2; continue ;;
  esac
  int8=0
  if [ "${INT8:-1}" != 0 ]; then
    calib_dir "$WORK/$m.calib" "$WORK/$m.npy"
    shape="$("$PY" -c "import sys, numpy as np; print(','.join(map(str, np.load(sys.argv[1]).shape)))" "$WORK/$m.npy")"
    if "$GDS" tflite_convert --graph_def_file="$model" --output_file="$WORK/$m.int8.tflite" --input_arrays="$in_name" \
         --output_arrays="$out_name" --input_shapes="$shape" --quantize=int8 --calibration_data="$WORK/$m.calib" \
         > "$WORK/$m.convert.txt" 2>&1; then
      int8=1
    else
      echo "gdstudio tflite_convert --quantize=int8 failed: $(tail -1 "$WORK/$m.convert.txt")" >&2
    fi
  fi
  for t in ${THREADS_LIST:-1 2}; do
    : > "$WORK/$m.$t.txt"
    for ((k = 1; k <= ${REPEAT:-1}; ++k)); do
      echo "== $m, $t thread(s), run $k of ${REPEAT:-1}"
      ENGINES="onnxruntime opencv" REF=onnxruntime RUNS_opencv=5 \
        "$PEERS/compare.sh" "$model" "$in_name" "$WORK/$m.npy" "$out_name" "$RUNS" "$t" | tee -a "$WORK/$m.$t.txt"
      if [ "$int8" = 1 ]; then
        echo "== $m, $t thread(s), 8-bit, run $k of ${REPEAT:-1}"
        EXTRA_ENGINE="gdstudio-int8=bash '$WORK/gdstudio_engine.sh' gdstudio-int8 '$WORK/$m.int8.tflite'" \
          CALIB="$WORK/$m.calib" ENGINES="onnxruntime onnxruntime-int8" REF=onnxruntime \
          "$PEERS/compare.sh" "$model" "$in_name" "$WORK/$m.npy" "$out_name" "$RUNS" "$t" | tee -a "$WORK/$m.$t.txt"
      fi
    done
    "$PY" - "$WORK/$m.$t.txt" "$m" "$t" >> "$WORK/summary.txt" <<'ROW'
import statistics, sys
times, gflops = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 6 and f[0] in ('gdstudio', 'onnxruntime', 'opencv', 'gdstudio-int8', 'onnxruntime-int8'):
        try:
            ms, gf = float(f[3]), float(f[5])
        except ValueError:  # a FAILED row: no figures
            continue
        times.setdefault(f[0], []).append(ms)
        gflops.setdefault(f[0], []).append(gf)
rows = {e: (statistics.median(times[e]), f"{statistics.median(gflops[e]):.1f}") for e in times}
def ratio(peer, ours='gdstudio'):
    if peer in rows and ours in rows:
        return f"{rows[peer][0] / rows[ours][0]:.2f}"
    return '-'
ms = lambda e: f"{rows[e][0]:.2f}" if e in rows else 'FAILED'
print(f"{sys.argv[2]:<15}{sys.argv[3]:>8}{ms('gdstudio'):>12}{rows.get('gdstudio', (0, '-'))[1]:>10}"
      f"{ms('onnxruntime'):>10}{ratio('onnxruntime'):>10}{ms('opencv'):>10}{ratio('opencv'):>10}"
      f"{ms('gdstudio-int8'):>10}{ms('onnxruntime-int8'):>10}{ratio('onnxruntime-int8', 'gdstudio-int8'):>10}"
      f"{ratio('gdstudio', 'gdstudio-int8'):>10}")
ROW
    tail -1 "$WORK/summary.txt" | sed 's/^/   /'
  done
done

echo
echo "Summary: median ms; ratio = peer ms / gdstudio ms (>= 1: gdstudio is at least as fast); int8 columns:"
echo "gdstudio's TFLite int8 model and ONNX Runtime int8 (QDQ), int8/gds8 = ORT int8 ms / gdstudio int8 ms,"
echo "f/i8 = gdstudio float ms / gdstudio int8 ms"
printf '%-15s%8s%12s%10s%10s%10s%10s%10s%10s%10s%10s%10s\n' model threads gdstudio GFLOP/s ort ort/gds opencv cv/gds \
  gds-int8 ort-int8 int8/gds8 f/i8
cat "$WORK/summary.txt"
