// The Benchmark dock's variants on a device: each built variant written (or
// exported to .tflite for TensorFlow Lite and Arm NN) and run there with
// device::DeviceBench, in turns, rows credited to the current graph's nodes.
#include <QTemporaryDir>

#include <filesystem>
#include <unordered_set>

#include "device/variants.h"
#include "ui/benchmark_run.h"

namespace gds::ui {
namespace {

bool endsTheTurns(const std::string& error) {
  return error.find(": connect: ") != std::string::npos || error.find("the connection was lost") != std::string::npos ||
         error.find(": cancelled") != std::string::npos;
}

}  // namespace

void runVariantsOnDevice(const BenchmarkSettings& settings, const std::vector<std::string>& feed_names,
                         const std::vector<engine::Tensor>& feeds, BenchmarkOutcome* out,
                         const BenchmarkObserver& observer) {
  device::DeviceBenchOptions o = *settings.device;
  o.cancelled = observer.cancelled;
  o.progress = [&observer](const std::string& text) {
    if (observer.progress) observer.progress(0, 0, text);  // busy: no count
  };
  o.num_threads = settings.num_threads > 0 ? settings.num_threads : -1;
  o.warmup_runs = settings.warmup_runs;
  o.num_runs = settings.max_runs > 0 ? settings.max_runs : 50;
  o.max_time_s = settings.max_time_s > 0 ? settings.max_time_s : 150;
  QTemporaryDir folder;
  if (!folder.isValid()) {
    out->device_error = "cannot make a temporary folder for the device's files";
    return;
  }
  auto bench = device::DeviceBench::open(o);
  if (!bench.ok()) {
    out->device_error = bench.error();
    return;
  }
  for (std::size_t v = 0; v < out->variants.size(); ++v) {
    VariantBenchmark& vb = out->variants[v];
    if (!vb.built.graph) continue;
    if (vb.kind == VariantKind::EightBit && device::runtimeTakesTflite(o.runtime)) {
      vb.device_error = device::eightBitRefusal(o.runtime) + " (choose the gdstudio runtime)";
      continue;
    }
    device::VariantSource source;
    source.graph = *vb.built.graph;
    source.is_tflite = isTfliteExport(vb.kind);
    source.inputs = vb.built.inputs.empty() ? feed_names : vb.built.inputs;
    source.outputs = vb.built.outputs;
    source.setFeeds(feeds);
    const std::string dir = folder.path().toStdString() + "/" + std::to_string(v);
    std::filesystem::create_directories(dir);
    auto built = device::buildVariant(device::VariantKind::Float, source, o.runtime, dir);
    if (!built.ok()) {
      vb.device_error = variantShortName(vb.kind).toStdString() + ": " + built.error();
      continue;
    }
    built->device.label = variantShortName(vb.kind).toStdString();
    // Credited to the graph the window shows.
    built->device.graph_nodes.clear();
    if (v < settings.variants.size() && settings.variants[v].source)
      for (const auto& n : settings.variants[v].source->node()) built->device.graph_nodes.insert(n.name());
    auto run = (*bench)->run(built->device);
    if (run.ok()) {
      vb.device = std::move(*run);
      continue;
    }
    vb.device_error = run.error();
    if (endsTheTurns(run.error())) {
      out->device_error = run.error();
      break;
    }
  }
  auto closed = (*bench)->close();
  if (!closed.ok() && out->device_error.empty()) out->device_error = closed.message();
}

}  // namespace gds::ui
