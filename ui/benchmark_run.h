// One benchmark of several variants, as the Benchmark panel runs it in a
// worker: build each variant (the 8-bit one through its pipeline), make the
// feeds once, compile one engine::Plan per variant and run benchmark_model's
// flow on it (engine::runBenchmark), with progress and cancel.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "device/device_benchmark.h"
#include "engine/eval/benchmark.h"
#include "engine/lowp/requantize.h"
#include "ui/input_source.h"
#include "ui/variants.h"

namespace gds::ui {

struct BenchmarkSettings {
  std::vector<VariantSnapshot> variants;  // in the order to run and to show
  InputSource inputs;
  std::vector<IoMark> marks;              // the Document's marks (inputs feed, outputs fetch)
  int num_threads = 0;                    // <= 0: all cores (benchmark_model's -1)
  int warmup_runs = 1;
  int max_runs = 50;                      // <= 0: bounded by max_time_s only
  double max_time_s = 10.0;               // <= 0: bounded by max_runs only
  // The plan's inference rewrites (folding, fusion); false runs every node of
  // the graph as its own kernel, as TensorFlow's benchmark_model does
  // (`gdstudio benchmark --optimize_graph=false`).
  bool optimize_graph = true;
  // Whose int8 arithmetic a TFLite variant's kernels follow (--arithmetic).
  engine::lowp::Arithmetic arithmetic = engine::lowp::kDefaultArithmetic;
  // Also run each variant there, after the desktop runs (the Device group).
  std::optional<device::DeviceBenchOptions> device;
};

struct VariantBenchmark {
  VariantKind kind = VariantKind::Current;
  BuiltVariant built;  // graph, sizes, pipeline
  double init_seconds = 0;  // compileForInference
  int num_threads = 1;
  bool optimize_graph = true;  // BenchmarkSettings::optimize_graph of the run
  engine::BenchmarkResult result;  // stats.nodesDefined(): the variant graph's nodes
  std::optional<device::DeviceRun> device;  // its run on the device, rows credited to the current graph's nodes
  std::string device_error;                 // why it did not run there
};

// What the worker polls and reports to (both optional).
struct BenchmarkObserver {
  std::function<bool()> cancelled;
  // done/total in units of runs over all variants (approximate when the time
  // budget ends a phase early); text: what runs now.
  std::function<void(int done, int total, const std::string& text)> progress;
};

struct BenchmarkOutcome {
  std::vector<VariantBenchmark> variants;
  std::string error;        // empty on success
  bool cancelled = false;
  std::string inputs;       // InputSource::describe()
  // The device could not be used (connect, copy, run, fetch, cleanup: the
  // message names the device and the step); the desktop results stand.
  std::string device_error;
};

// Runs each variant of `out` on settings.device, in turns, after the
// desktop runs (ui/benchmark_device_run.cc).
void runVariantsOnDevice(const BenchmarkSettings& settings, const std::vector<std::string>& feed_names,
                         const std::vector<engine::Tensor>& feeds, BenchmarkOutcome* out,
                         const BenchmarkObserver& observer);

// Runs everything; never throws. An error names the variant and what failed
// (an input, a pipeline step, a node of the plan).
BenchmarkOutcome runBenchmarks(const BenchmarkSettings& settings, const BenchmarkObserver& observer = {});

}  // namespace gds::ui
