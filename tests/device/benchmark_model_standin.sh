#!/bin/sh
# A stand-in for TensorFlow Lite's benchmark_model in the adb tests: checks
# the flags TensorFlow's guide uses, then prints the profile of the
# benchmark README (tests/device/data/tflite_readme_op_profiling.txt, copied
# beside it) as an older build does, on standard output.
graph=""
threads=""
for a in "$@"; do
  case "$a" in
    --graph=*) graph="${a#--graph=}" ;;
    --num_threads=*) threads="${a#--num_threads=}" ;;
  esac
done
[ -f "$graph" ] || { echo "ERROR: Could not open '$graph'." >&2; exit 1; }
echo "STARTING!"
echo "Num threads: [$threads]"
echo "Graph: [$graph]"
cat "$(dirname "$0")/tflite_readme_op_profiling.txt"
