#!/usr/bin/env bash
# Retakes the window screenshots of docs/screenshots/1366x768 and 1920x1080
# with `gdstudio --screenshot` under Xvfb at each screen size.
# usage: docs/screenshots/retake.sh GDSTUDIO [OUT_DIR]
# Run from the project folder, with the test models in ../shared (MANIFEST.md there).
set -euo pipefail
gds=$(realpath "$1")
out=${2:-docs/screenshots}
models=../shared/models
mobilenet=$models/mobilenet_v1_0.25_128_frozen.pb
io=(--inputs=input --outputs=MobilenetV1/Predictions/Reshape_1)
steps='strip_unused_nodes(type=float, shape="1,128,128,3") fold_constants(ignore_errors=true) fold_batch_norms'
for size in 1366x768 1920x1080; do
  mkdir -p "$out/$size"
  shot() {
    local name=$1
    shift
    xvfb-run -a -s "-screen 0 ${size}x24" "$gds" "$@" --size="$size" --screenshot="$out/$size/$name.png"
  }
  shot mobilenet_open "$mobilenet"
  shot mobilenet_three_steps "$mobilenet" "${io[@]}" --apply="$steps"
  shot mobilenet_benchmark "$mobilenet" "${io[@]}" --benchmark
  shot mobilenet_accuracy "$mobilenet" "${io[@]}" --accuracy=../shared/data/images \
    --class_names="$models/mobilenet_v1_0.25_128_labels.txt"
  shot inception_hub "$models/tfnet_inception_v3_hub.meta"
  shot training_graph "$models/tfnet_vd_cnn_train.meta"
  shot tf2_savedmodel "$models/tf2/binary_cnn_256/saved_model.pb"
done
# The Accuracy dock's Budget tab (accuracy_budget.png) comes from its UI test
# at both sizes: GDS_BUDGET_SCREENSHOT=PREFIX build/tests/ui_tests
# --gtest_filter=TfliteBudgetPage.* writes PREFIX_1366x768.png and PREFIX_1920x1080.png.
