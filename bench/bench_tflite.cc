// Whole-graph latency of a TensorFlow Lite int8 model run in gdstudio with
// TFLite's arithmetic (the .tflite `gdstudio tflite_convert --quantize=int8`
// writes, read back from the file) against, in the same run, our float graph
// and the per-channel 8-bit graph of the 8-bit pipeline with its ranges
// calibrated (the fastest 8-bit GraphDef variant, see bench_quant.cc). Both
// 8-bit variants are calibrated on the same four seeded random inputs. 1 and
// 2 threads; median ms, the three variants taking turns run by run; ratios float / TFLite int8 (> 1: int8 faster) and
// per-channel / TFLite int8 (>= 1: no slower than the per-channel path).
// A line under each row times the TFLite model under each runtime's
// arithmetic (--arithmetic), taking turns with the others, as a ratio to
// the default (tflite-xnnpack).
//
//   bench_tflite --models=SHARED/models [--resnet50=RESNET50.pb] [--runs=N] [--threads=1,2] [--profile=1]
//                [--clock=wall|cpu]
// (--profile=1: after each row, per variant, the op types that took the
// most time in one profiled run; --clock=cpu: process CPU time per run
// instead of wall time, for a loaded machine)
// bench/bench_tflite.sh generates the ResNet-50 (100 MB, never committed) and
// runs this.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "app/kernel_environment.h"
#include "bench/bench_args.h"
#include "bench/plan_timing.h"
#include "engine/cpu_features.h"
#include "engine/eval/calibrate.h"
#include "engine/lowp/conv_dnnl.h"
#include "engine/lowp/gemm.h"
#include "engine/lowp/requantize.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "engine/tflite/fast.h"
#include "model/io.h"
#include "model/tflite/writer.h"
#include "transforms/pipeline.h"
#include "transforms/tflite/convert.h"

using namespace gds;

namespace {

struct Model {
  std::string label, path, input, output;
  std::vector<std::int64_t> shape;
};

// Per op type: the time of one profiled run (after the timed ones), most
// expensive first, as "op ms (share)".
std::string opProfile(engine::Plan& plan, const engine::Tensor& input, int top) {
  engine::RunProfile profile;
  (void)plan.run({input}, &profile);  // warm the profile's buffers
  if (!plan.run({input}, &profile).ok()) return "";
  std::map<std::string, std::int64_t> by_op;
  std::int64_t total = 0;
  for (std::size_t i = 0; i < profile.nodes.size() && i < plan.nodes().size(); ++i) {
    by_op[plan.nodes()[i].op] += profile.nodes[i].duration_ns;
    total += profile.nodes[i].duration_ns;
  }
  std::vector<std::pair<std::int64_t, std::string>> sorted;
  for (const auto& [op, ns] : by_op) sorted.push_back({ns, op});
  std::sort(sorted.rbegin(), sorted.rend());
  std::string out;
  for (int i = 0; i < top && i < static_cast<int>(sorted.size()); ++i) {
    char buf[128];
    const double ms = static_cast<double>(sorted[i].first) / 1e6;
    const double share =
        100.0 * static_cast<double>(sorted[i].first) / static_cast<double>(std::max<std::int64_t>(total, 1));
    std::snprintf(buf, sizeof buf, "%s%s %.1f ms (%.0f%%)", i ? ", " : "", sorted[i].second.c_str(), ms, share);
    out += buf;
  }
  return out;
}

struct Variant {
  std::string name;
  std::shared_ptr<tensorflow::GraphDef> graph;
  std::string input, output;
  // The TFLite model runs once per arithmetic (--arithmetic).
  engine::lowp::Arithmetic arithmetic = engine::lowp::kDefaultArithmetic;
};

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// The float graph, the calibrated per-channel 8-bit graph and the TFLite
// int8 model (written and read back as a user opens it), once under each
// arithmetic with the default third (the table's column). Empty, with the
// error printed, when one cannot be made.
std::vector<Variant> buildVariants(const Model& m, const model::LoadedModel& loaded, const std::string& tmp) {
  std::vector<std::vector<engine::Tensor>> samples;
  for (unsigned k = 0; k < 4; ++k) samples.push_back({bench::randomInput(m.shape, 11 + k)});
  std::vector<Variant> variants;
  variants.push_back({"float", std::make_shared<tensorflow::GraphDef>(loaded.graph), m.input, m.output});
  // Per-channel 8-bit GraphDef, ranges calibrated.
  std::string shape_text;
  for (std::size_t i = 0; i < m.shape.size(); ++i) shape_text += (i ? "," : "") + std::to_string(m.shape[i]);
  transforms::PipelineOptions popt;
  popt.compute_diff = false;
  auto eight = transforms::applyTransforms(loaded.graph, transforms::eightBitPipeline({m.input}, {shape_text}, true),
                                           {m.input}, {m.output}, popt);
  if (!eight.ok()) {
    std::fprintf(stderr, "%s: 8-bit pipeline: %s\n", m.label.c_str(), eight.error().c_str());
    return {};
  }
  auto calibrated = engine::calibrate(eight->graph, {m.input}, samples);
  if (!calibrated.ok()) {
    std::fprintf(stderr, "%s: calibration: %s\n", m.label.c_str(), calibrated.error().c_str());
    return {};
  }
  variants.push_back({"per-channel", std::make_shared<tensorflow::GraphDef>(std::move(calibrated->graph)), m.input,
                      m.output});
  // The TFLite int8 model, written and read back as a user opens it.
  transforms::tflite::ConvertOptions copt;
  copt.inputs = {m.input};
  copt.outputs = {m.output};
  copt.quantize = transforms::tflite::Quantize::Int8;
  copt.calibration = samples;
  auto converted = transforms::tflite::convertToTflite(loaded.graph, copt);
  if (!converted.ok()) {
    std::fprintf(stderr, "%s: tflite_convert: %s\n", m.label.c_str(), converted.error().c_str());
    return {};
  }
  const std::string file = tmp + "/bench_tflite_" + m.label + ".tflite";
  Status saved = model::tflite::saveTflite(converted->graph, file);
  auto reread = saved.ok() ? model::load(file) : Result<model::LoadedModel>(saved);
  std::remove(file.c_str());
  if (!reread.ok()) {
    std::fprintf(stderr, "%s: %s\n", m.label.c_str(), reread.error().c_str());
    return {};
  }
  auto tflite = std::make_shared<tensorflow::GraphDef>(std::move(reread->graph));
  const std::string tflite_output = transforms::tflite::fileOutputs(*converted).at(0);
  // The default arithmetic third (the table's column), then the others.
  variants.push_back({"tflite", tflite, m.input, tflite_output, engine::lowp::kDefaultArithmetic});
  for (engine::lowp::Arithmetic a : engine::lowp::allArithmetics())
    if (a != engine::lowp::kDefaultArithmetic)
      variants.push_back({engine::lowp::arithmeticName(a), tflite, m.input, tflite_output, a});
  return variants;
}

// Times the variants taking turns at each thread count and prints a table row,
// the TFLite model's time under each arithmetic, and (profile) per-op shares.
void timeVariants(const Model& m, const std::vector<Variant>& variants, const std::vector<int>& thread_counts,
                  int runs, bench::TimingClock clock, bool profile) {
  const engine::Tensor input = bench::randomInput(m.shape, 3);
  for (int threads : thread_counts) {
    engine::PlanOptions options;
    options.num_threads = threads;
    std::vector<std::unique_ptr<engine::Plan>> plans;
    std::vector<engine::Plan*> live;
    std::vector<std::size_t> index;  // variant of each live plan
    for (std::size_t i = 0; i < variants.size(); ++i) {
      options.arithmetic = variants[i].arithmetic;
      auto plan = engine::compileForInference(variants[i].graph, {variants[i].input}, {variants[i].output}, options);
      if (!plan.ok()) {
        std::fprintf(stderr, "%s %s: %s\n", m.label.c_str(), variants[i].name.c_str(), plan.error().c_str());
        continue;
      }
      plans.push_back(std::move(*plan));
      live.push_back(plans.back().get());
      index.push_back(i);
    }
    std::vector<std::string> errors;
    const std::vector<double> timed = bench::alternatingMedianMs(live, input, runs, clock, &errors);
    std::vector<double> ms(variants.size(), -1);
    std::vector<std::string> profiles;
    for (std::size_t p = 0; p < live.size(); ++p) {
      const Variant& v = variants[index[p]];
      ms[index[p]] = timed[p];
      if (timed[p] < 0) std::fprintf(stderr, "%s %s: %s\n", m.label.c_str(), v.name.c_str(), errors[p].c_str());
      if (profile && timed[p] >= 0) profiles.push_back("  " + v.name + ": " + opProfile(*live[p], input, 6));
    }
    std::printf("%-18s\t%d\t%.2f\t%.2f\t%.2f\t%.2fx\t%.2fx\n", m.label.c_str(), threads, ms[0], ms[1], ms[2],
                ms[0] / ms[2], ms[1] / ms[2]);
    // The TFLite int8 model under each runtime's arithmetic, against the default.
    std::string modes = "  TFLite int8 by arithmetic: " + std::string(engine::lowp::arithmeticName(variants[2].arithmetic)) +
                        " " + fixed(ms[2]) + " ms";
    for (std::size_t i = 3; i < variants.size(); ++i)
      modes += ", " + variants[i].name + " " + fixed(ms[i]) + " ms (" + fixed(ms[i] / ms[2]) + "x)";
    std::printf("%s\n", modes.c_str());
    for (const std::string& line : profiles) std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  gds::app::applyKernelEnvironment();
  const int runs = std::stoi(bench::flag(argc, argv, "runs", "10"));
  const std::vector<int> thread_counts = bench::intList(bench::flag(argc, argv, "threads", "1,2"));
  const std::string models_dir = bench::flag(argc, argv, "models", "");
  const std::string resnet = bench::flag(argc, argv, "resnet50", "");
  const std::string tmp = bench::flag(argc, argv, "tmp", "/tmp");
  const bool profile = bench::flag(argc, argv, "profile", "0") == "1";
  const bench::TimingClock clock =
      bench::flag(argc, argv, "clock", "wall") == "cpu" ? bench::TimingClock::kCpu : bench::TimingClock::kWall;
  if (models_dir.empty() && resnet.empty()) {
    std::fprintf(stderr,
                 "usage: %s --models=SHARED/models [--resnet50=RESNET50.pb] [--runs=10] [--threads=1,2] "
                 "[--profile=1] [--clock=wall|cpu]\n",
                 argv[0]);
    return 2;
  }
  const engine::lowp::GemmBackend backend = engine::lowp::defaultGemmBackend();
  const std::string backend_text =
      backend == engine::lowp::GemmBackend::kDnnl
          ? "oneDNN (kernels up to " + engine::lowp::dnnlIsa() + ")"
          : backend == engine::lowp::GemmBackend::kAvx2 ? std::string("exact AVX2 int16-pair GEMM (no VNNI here)")
                                                             : std::string(engine::lowp::gemmBackendName(backend));
  std::printf("CPU dispatch: %s\n8-bit accumulators (per-channel and TFLite int8): %s\n",
              engine::cpuFeaturesSummary().c_str(), backend_text.c_str());
  std::vector<Model> models;
  if (!models_dir.empty())
    models.push_back({"mobilenet_1.0_224", models_dir + "/generated/mobilenet_v1_1.0_224_random.pb", "input",
                      "MobilenetV1/Predictions/Reshape_1", {1, 224, 224, 3}});
  if (!resnet.empty()) models.push_back({"resnet50", resnet, "input_1", "predictions/Softmax", {1, 224, 224, 3}});
  std::printf("whole graph, median %s ms of %d runs (variants taking turns); float/x = float ms / TFLite int8 ms, pc/x = per-channel ms / TFLite "
              "int8 ms\n",
              bench::clockName(clock), runs);
  std::printf("%-18s\tthreads\tfloat\tper-channel\tTFLite int8\tfloat/x\tpc/x\n", "model");
  for (const Model& m : models) {
    auto loaded = model::load(m.path);
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s: %s\n", m.label.c_str(), loaded.error().c_str());
      continue;
    }
    const std::vector<Variant> variants = buildVariants(m, *loaded, tmp);
    if (variants.empty()) continue;
    timeVariants(m, variants, thread_counts, runs, clock, profile);
  }
  return 0;
}
