#include "device/variant_bench.h"

#include <nlohmann/json.hpp>

#include "engine/eval/benchmark.h"
#include "engine/eval/benchmark_report.h"

namespace gds::device {
namespace {

Result<engine::BenchmarkResult> benchmarkOnDesktop(const BuiltVariant& v, const VariantsRequest& r) {
  auto graph = std::make_shared<tensorflow::GraphDef>(v.graph);
  engine::InferenceRewrites rewrites;
  rewrites.fold_and_fuse = r.optimize_graph;
  rewrites.fuse_quantized = r.optimize_graph;
  auto compiled = engine::compileForBenchmark(graph, v.inputs, v.outputs, r.plan, rewrites);
  if (!compiled.ok()) return compiled.status();
  engine::BenchmarkOptions o = r.desktop_options;
  o.graph_nodes = compiled->graph_nodes;
  o.fused_ops = compiled->fused_ops;
  return engine::runBenchmark(*compiled->plan, r.source.feeds, o);
}

}  // namespace

Result<std::vector<VariantRun>> runVariants(const VariantsRequest& r) {
  std::vector<VariantRun> runs;
  const RuntimeKind runtime = r.device ? r.device->runtime : RuntimeKind::Gdstudio;
  for (VariantKind kind : r.kinds) {
    if (r.progress) r.progress(std::string("building ") + variantLabel(kind));
    auto built = buildVariant(kind, r.source, runtime, r.temp_folder);
    if (!built.ok()) return built.status();
    VariantRun run;
    run.variant = std::move(*built);
    runs.push_back(std::move(run));
  }
  std::unique_ptr<DeviceBench> bench;
  if (r.device) {
    auto opened = DeviceBench::open(*r.device);
    if (!opened.ok()) return opened.status();
    bench = std::move(*opened);
  }
  // In turns: each variant on the desktop, then on the device.
  for (auto& run : runs) {
    if (r.desktop) {
      if (r.progress) r.progress("benchmarking " + run.variant.label + " on the desktop");
      auto result = benchmarkOnDesktop(run.variant, r);
      if (result.ok()) run.desktop = std::move(*result);
      else run.desktop_error = run.variant.label + ": " + result.error();
    }
    if (!bench) continue;
    if (!run.variant.skip.empty()) {
      run.device_error = run.variant.skip;
      continue;
    }
    auto device = bench->run(run.variant.device);
    if (device.ok()) {
      run.device = std::move(*device);
      continue;
    }
    run.device_error = device.error();
    // A lost device ends the turns; a runtime failing on one variant does not.
    if (device.error().find(": connect: ") != std::string::npos ||
        device.error().find("the connection was lost") != std::string::npos ||
        device.error().find(": run: cancelled") != std::string::npos)
      return device.status();
  }
  if (bench) GDS_RETURN_IF_ERROR(bench->close());
  return runs;
}

std::string formatVariantsReport(const std::vector<VariantRun>& runs, const std::string& device,
                                 const DeviceTableOptions& tables) {
  std::string out;
  std::vector<SideBySide> rows;
  bool any_device = false;
  for (const auto& run : runs) any_device = any_device || run.device || !run.device_error.empty();
  for (const auto& run : runs) {
    if (!any_device && run.desktop) {
      // Variants without a device: the desktop's own tables.
      engine::StatsOptions stats;
      stats.csv = tables.csv;
      out += "Variant: " + run.variant.label + "\n" + engine::formatTables(*run.desktop, stats, false) +
             engine::formatLatencyLine(*run.desktop) + "\n";
    }
    SideBySide row;
    row.label = run.variant.label;
    if (run.desktop) row.desktop_ms = run.desktop->no_stats_us.avg() / 1000.0;
    if (run.device) {
      out += formatDeviceTables(*run.device, tables) + "\n";
      row.device_ms = run.device->profile.latency.avg_us / 1000.0;
    } else if (!run.device_error.empty()) {
      out += "Variant: " + run.variant.label + ": not run on the device: " + run.device_error + "\n\n";
      row.error = run.device_error;
    }
    if (!run.desktop_error.empty()) out += "Variant: " + run.desktop_error + " (on the desktop)\n\n";
    rows.push_back(row);
  }
  out += "Mean latency in ms, " + (any_device ? "desktop (gdstudio) and " + device : std::string("desktop (gdstudio)")) +
         ":\n";
  return out + formatSideBySide(rows, device, tables.csv);
}

nlohmann::json variantsJson(const std::vector<VariantRun>& runs, const std::string& device) {
  nlohmann::json variants = nlohmann::json::array();
  for (const auto& run : runs) {
    nlohmann::json v = {{"variant", run.variant.label}};
    if (run.desktop) {
      engine::ReportContext context;
      context.graph = run.variant.label;
      v["desktop"] = engine::benchmarkJson(*run.desktop, context);
    }
    if (!run.desktop_error.empty()) v["desktop_error"] = run.desktop_error;
    if (run.device) v["device"] = deviceRunJson(*run.device);
    if (!run.device_error.empty()) v["device_error"] = run.device_error;
    variants.push_back(v);
  }
  nlohmann::json j = {{"device", device}, {"variants", variants}};
  const VariantRun* fastest = nullptr;
  for (const auto& run : runs)
    if (run.device && (!fastest || run.device->profile.latency.avg_us < fastest->device->profile.latency.avg_us))
      fastest = &run;
  if (fastest) j["fastest_on_device"] = {{"variant", fastest->variant.label},
                                         {"mean_ms", fastest->device->profile.latency.avg_us / 1000.0}};
  return j;
}

}  // namespace gds::device
