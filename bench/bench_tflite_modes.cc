// Size and latency of each TensorFlow Lite post-training mode gdstudio writes
// against the float32 export, in one run: the .tflite files of
// `tflite_convert` (float32, --quantize=float16, --quantize=dynamic,
// --quantize=int8 and --quantize=int16x8 calibrated on four seeded random
// inputs), written and read back as a user opens them,
// run by gdstudio in turns (median of --runs, default arithmetic). Ratios are
// to float32: size/f32 < 1 smaller, f32/x > 1 faster.
//
//   bench_tflite_modes --models=SHARED/models [--resnet50=RESNET50.pb] [--runs=N] [--threads=1,2]
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "app/kernel_environment.h"
#include "bench/bench_args.h"
#include "bench/plan_timing.h"
#include "engine/cpu_features.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/io.h"
#include "model/tflite/writer.h"
#include "transforms/tflite/convert.h"

using namespace gds;
namespace tt = gds::transforms::tflite;

namespace {

struct Model {
  std::string label, path, input, output;
  std::vector<std::int64_t> shape;
};

struct Export {
  tt::Quantize mode;
  std::size_t bytes = 0;
  std::shared_ptr<tensorflow::GraphDef> graph;
  std::string output;
};

}  // namespace

int main(int argc, char** argv) {
  gds::app::applyKernelEnvironment();
  const int runs = std::stoi(bench::flag(argc, argv, "runs", "20"));
  const std::string models_dir = bench::flag(argc, argv, "models", "");
  const std::string resnet = bench::flag(argc, argv, "resnet50", "");
  const std::vector<int> threads = bench::intList(bench::flag(argc, argv, "threads", "1,2"));
  if (models_dir.empty() && resnet.empty()) {
    std::fprintf(stderr, "usage: %s --models=SHARED/models [--resnet50=RESNET50.pb] [--runs=20] [--threads=1,2]\n",
                 argv[0]);
    return 2;
  }
  std::printf("CPU dispatch: %s\n", engine::cpuFeaturesSummary().c_str());
  std::vector<Model> models;
  if (!models_dir.empty()) {
    models.push_back({"mobilenet_0.25_128", models_dir + "/mobilenet_v1_0.25_128_frozen.pb", "input",
                      "MobilenetV1/Predictions/Reshape_1", {1, 128, 128, 3}});
    models.push_back({"mobilenet_1.0_224", models_dir + "/generated/mobilenet_v1_1.0_224_random.pb", "input",
                      "MobilenetV1/Predictions/Reshape_1", {1, 224, 224, 3}});
  }
  if (!resnet.empty()) models.push_back({"resnet50", resnet, "input_1", "predictions/Softmax", {1, 224, 224, 3}});
  std::printf("median ms of %d runs, the modes taking turns; size/f32 = file bytes / float32 file bytes, f32/x = "
              "float32 ms / mode ms\n",
              runs);
  std::printf("%-20s\t%-8s\tbytes\tsize/f32\tthreads\tms\tf32/x\n", "model", "mode");
  for (const Model& m : models) {
    auto loaded = model::load(m.path);
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s: %s\n", m.label.c_str(), loaded.error().c_str());
      continue;
    }
    std::vector<std::vector<engine::Tensor>> samples;
    for (unsigned k = 0; k < 4; ++k) samples.push_back({bench::randomInput(m.shape, 11 + k)});
    std::vector<Export> exports;
    for (tt::Quantize mode : {tt::Quantize::None, tt::Quantize::Float16, tt::Quantize::Dynamic, tt::Quantize::Int8,
                              tt::Quantize::Int16x8}) {
      tt::ConvertOptions o;
      o.inputs = {m.input};
      o.outputs = {m.output};
      o.quantize = mode;
      if (tt::fullInteger(mode)) o.calibration = samples;
      auto converted = tt::convertToTflite(loaded->graph, o);
      auto bytes = converted.ok() ? model::tflite::writeTflite(converted->graph) : Result<std::string>(converted.status());
      auto read = bytes.ok() ? model::loadBytes(*bytes, m.label + ".tflite") : Result<model::LoadedModel>(bytes.status());
      if (!read.ok()) {
        std::fprintf(stderr, "%s %s: %s\n", m.label.c_str(), tt::quantizeName(mode), read.error().c_str());
        continue;
      }
      exports.push_back({mode, bytes->size(), std::make_shared<tensorflow::GraphDef>(std::move(read->graph)),
                         tt::fileOutputs(*converted).at(0)});
    }
    if (exports.empty() || exports[0].mode != tt::Quantize::None) continue;
    const engine::Tensor input = bench::randomInput(m.shape, 3);
    for (int t : threads) {
      engine::PlanOptions options;
      options.num_threads = t;
      std::vector<std::unique_ptr<engine::Plan>> plans;
      std::vector<engine::Plan*> live;
      for (const Export& e : exports) {
        auto plan = engine::compileForInference(e.graph, {m.input}, {e.output}, options);
        if (!plan.ok()) {
          std::fprintf(stderr, "%s %s: %s\n", m.label.c_str(), tt::quantizeName(e.mode), plan.error().c_str());
          return 1;
        }
        plans.push_back(std::move(*plan));
        live.push_back(plans.back().get());
      }
      std::vector<std::string> errors;
      const std::vector<double> ms = bench::alternatingMedianMs(live, input, runs, bench::TimingClock::kWall, &errors);
      for (std::size_t i = 0; i < exports.size(); ++i)
        std::printf("%-20s\t%-8s\t%zu\t%.3f\t%d\t%.2f\t%.2fx\n", m.label.c_str(), tt::quantizeName(exports[i].mode),
                    exports[i].bytes, double(exports[i].bytes) / double(exports[0].bytes), t, ms[i], ms[0] / ms[i]);
      std::fflush(stdout);
    }
  }
  return 0;
}
