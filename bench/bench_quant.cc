// Whole-graph latency of the 8-bit path against our float path, measured in
// the same run: each float model goes through the tutorial's 8-bit pipeline
// (transforms::eightBitPipeline, as `gdstudio transform` applies it) in
// three variants: TensorFlow's recipe, per_channel=true (the one that meets
// the accuracy target), and that per-channel graph with its ranges frozen by
// engine::calibrate on four seeded random inputs (as `gdstudio calibrate`
// does, so each layer requantizes in one pass). The graphs run in the
// interpreter at 1 and 2 threads; each 8-bit graph once per GEMM backend
// (oneDNN's integer kernels where the CPU has VNNI, the exact AVX2 GEMM where
// it has AVX2, gemmlowp always), every plan taking turns run by run. One
// table, a row per variant: median ms and speedup = float ms / 8-bit ms
// (--clock=cpu: process CPU time instead of wall time, for a loaded machine).
// oneDNN picks its kernels' instruction set at run time (AMX where the CPU
// has it); ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI limits it to VNNI, and the
// header line says which one ran.
// With --gemm, first the 8-bit GEMM throughput per backend against our float
// GEMM on ResNet-50's convolution shapes.
//
//   bench_quant --models=SHARED/models [--resnet50=RESNET50.pb] [--runs=N] [--threads=1,2] [--gemm]
//               [--no_fusion] [--clock=wall|cpu]
// bench/bench_quant.sh generates the ResNet-50 (100 MB, never committed) and
// runs this.
#include <algorithm>
#include <chrono>
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
#include "engine/eval/calibrate.h"
#include "engine/kernel_choice.h"
#include "engine/lowp/conv_dnnl.h"
#include "engine/lowp/gemm.h"
#include "engine/ops/gemm.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "engine/thread_pool.h"
#include "model/io.h"
#include "transforms/pipeline.h"

using namespace gds;
namespace lowp = gds::engine::lowp;
using Clock = std::chrono::steady_clock;

namespace {

template <typename Fn>
double bestSeconds(int reps, Fn fn) {
  fn();  // warm-up
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = Clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

std::vector<lowp::GemmBackend> eightBitBackends() {
  std::vector<lowp::GemmBackend> b;
  if (lowp::dnnlAvailable()) b.push_back(lowp::GemmBackend::kDnnl);
  if (lowp::avx2GemmAvailable()) b.push_back(lowp::GemmBackend::kAvx2);
  b.push_back(lowp::GemmBackend::kGemmlowp);
  return b;
}

void gemmTable(int reps, const std::vector<int>& thread_counts) {
  struct Shape3 {
    const char* name;
    std::int64_t m, n, k;
  };
  const Shape3 shapes[] = {
      {"conv2 3x3 64", 3136, 64, 576},   {"conv2 1x1 64->256", 3136, 256, 64},
      {"conv3 3x3 128", 784, 128, 1152}, {"conv3 1x1 128->512", 784, 512, 128},
      {"conv4 3x3 256", 196, 256, 2304}, {"conv4 1x1 256->1024", 196, 1024, 256},
      {"conv5 3x3 512", 49, 512, 4608},  {"conv1 7x7 3->64", 12544, 64, 147},
  };
  const auto backends = eightBitBackends();
  std::printf("8-bit GEMM vs float GEMM, GOP/s (2*M*N*K / best of %d runs); ratio = 8-bit / float\n", reps);
  std::printf("%-22s\tthr\t%6s\t%6s\t%6s\t%8s", "shape", "M", "N", "K", "float");
  for (auto b : backends) std::printf("\t%8s\tratio", lowp::gemmBackendName(b));
  std::printf("\n");
  std::mt19937 rng(1);
  for (int threads : thread_counts) {
    engine::ThreadPool pool(threads);
    for (const Shape3& s : shapes) {
      std::vector<float> af(static_cast<std::size_t>(s.m * s.k)), bf(static_cast<std::size_t>(s.k * s.n)),
          cf(static_cast<std::size_t>(s.m * s.n));
      std::vector<std::uint8_t> a8(af.size()), b8(bf.size());
      std::uniform_int_distribution<int> d(0, 255);
      for (std::size_t i = 0; i < af.size(); ++i)
        af[i] = static_cast<float>(a8[i] = static_cast<std::uint8_t>(d(rng))) / 255.0f;
      for (std::size_t i = 0; i < bf.size(); ++i)
        bf[i] = static_cast<float>(b8[i] = static_cast<std::uint8_t>(d(rng))) / 255.0f;
      std::vector<std::int32_t> c32(cf.size());
      const double ops = 2.0 * static_cast<double>(s.m) * s.n * s.k;
      const double tf = bestSeconds(
          reps, [&] { engine::ops::gemm(af.data(), bf.data(), cf.data(), s.m, s.n, s.k, false, false, &pool); });
      std::printf("%-22s\t%d\t%6lld\t%6lld\t%6lld\t%8.1f", s.name, threads, static_cast<long long>(s.m),
                  static_cast<long long>(s.n), static_cast<long long>(s.k), ops / tf * 1e-9);
      lowp::GemmRhs rhs(b8.data(), s.k, s.n, s.n, false, 117);
      for (auto b : backends) {
        const double tq = bestSeconds(reps, [&] {
          lowp::gemm(b, lowp::GemmLhs{a8.data(), s.m, s.k, s.k, 131}, rhs, c32.data(), s.n, &pool);
        });
        std::printf("\t%8.1f\t%5.2fx", ops / tq * 1e-9, tf / tq);
      }
      std::printf("\n");
    }
  }
  std::printf("\n");
}

struct Model {
  std::string label, path, input, output;
  std::vector<std::int64_t> shape;
};

int countOp(const engine::Plan& plan, const char* prefix) {
  int n = 0;
  for (const auto& node : plan.nodes()) n += node.op.rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

void graphTable(const std::vector<Model>& models, int runs, const std::vector<int>& thread_counts, bool fuse,
                bench::TimingClock clock) {
  const auto backends = eightBitBackends();
  std::printf("whole graph, median %s ms of %d runs (plans taking turns); speedup = float ms / 8-bit ms (> 1: 8-bit "
              "is faster)%s\n",
              bench::clockName(clock), runs, fuse ? "" : "; 8-bit layer fusion OFF");
  std::printf("%-16s\t%-11s\tthreads\tfloat", "model", "8-bit");
  for (auto b : backends) std::printf("\t8-bit %s\tspeedup", lowp::gemmBackendName(b));
  std::printf("\n");
  for (const Model& m : models) {
    auto loaded = model::load(m.path);
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s: %s\n", m.label.c_str(), loaded.error().c_str());
      continue;
    }
    std::string shape_text;
    for (std::size_t i = 0; i < m.shape.size(); ++i) shape_text += (i ? "," : "") + std::to_string(m.shape[i]);
    transforms::PipelineOptions popt;
    popt.compute_diff = false;
    struct Variant {
      const char* name;
      std::shared_ptr<tensorflow::GraphDef> graph;
    };
    std::vector<Variant> variants;
    for (const bool per_channel : {false, true}) {
      auto eight = transforms::applyTransforms(
          loaded->graph, transforms::eightBitPipeline({m.input}, {shape_text}, per_channel), {m.input}, {m.output},
          popt);
      const char* name = per_channel ? "per-channel" : "tf-recipe";
      if (!eight.ok()) {
        std::fprintf(stderr, "%s: 8-bit pipeline (%s): %s\n", m.label.c_str(), name, eight.error().c_str());
        continue;
      }
      variants.push_back({name, std::make_shared<tensorflow::GraphDef>(std::move(eight->graph))});
      if (!per_channel) continue;
      // Frozen output ranges from four representative (random) inputs.
      std::vector<std::vector<engine::Tensor>> samples;
      std::mt19937 sample_rng(11);
      std::uniform_real_distribution<float> sd(-1.0f, 1.0f);
      for (int k = 0; k < 4; ++k) {
        engine::Tensor t(tensorflow::DT_FLOAT, m.shape);
        for (std::int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = sd(sample_rng);
        samples.push_back({t});
      }
      auto calibrated = engine::calibrate(*variants.back().graph, {m.input}, samples);
      if (!calibrated.ok()) {
        std::fprintf(stderr, "%s: calibration: %s\n", m.label.c_str(), calibrated.error().c_str());
        continue;
      }
      variants.push_back({"calibrated", std::make_shared<tensorflow::GraphDef>(std::move(calibrated->graph))});
    }
    auto float_graph = std::make_shared<tensorflow::GraphDef>(std::move(loaded->graph));
    engine::Tensor input(tensorflow::DT_FLOAT, m.shape);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (std::int64_t i = 0; i < input.numElements(); ++i) input.data<float>()[i] = d(rng);
    for (int threads : thread_counts) {
      engine::PlanOptions options;
      options.num_threads = threads;
      auto fplan = engine::compileForInference(float_graph, {m.input}, {m.output}, options);
      if (!fplan.ok()) {
        std::fprintf(stderr, "%s float: %s\n", m.label.c_str(), fplan.error().c_str());
        break;
      }
      // Every plan first (float, then each variant on each backend: the
      // backend is chosen when a plan is made), then timed taking turns.
      engine::InferenceRewrites rewrites;
      rewrites.fuse_quantized = fuse;
      std::vector<std::unique_ptr<engine::Plan>> qplans;  // [variant][backend], null when it failed
      std::vector<engine::Plan*> live = {fplan->get()};
      for (const Variant& v : variants)
        for (auto b : backends) {
          auto qplan = [&] {
            engine::ScopedKernelChoice choice(b);
            return engine::compileForInference(v.graph, {m.input}, {m.output}, options, rewrites);
          }();
          if (!qplan.ok()) {
            std::fprintf(stderr, "%s 8-bit %s %s: %s\n", m.label.c_str(), v.name, lowp::gemmBackendName(b),
                         qplan.error().c_str());
            qplans.push_back(nullptr);
            continue;
          }
          qplans.push_back(std::move(*qplan));
          live.push_back(qplans.back().get());
        }
      std::vector<std::string> errors;
      const std::vector<double> timed = bench::alternatingMedianMs(live, input, runs, clock, &errors);
      const double tf = timed[0];
      if (tf < 0) {
        std::fprintf(stderr, "%s float: %s\n", m.label.c_str(), errors[0].c_str());
        break;
      }
      std::size_t next = 1;  // index in live / timed
      for (std::size_t vi = 0; vi < variants.size(); ++vi) {
        const Variant& v = variants[vi];
        std::printf("%-16s\t%-11s\t%d\t%.2f", m.label.c_str(), v.name, threads, tf);
        int fused = 0;
        for (std::size_t bi = 0; bi < backends.size(); ++bi) {
          const engine::Plan* qplan = qplans[vi * backends.size() + bi].get();
          const double tq = qplan ? timed[next] : -1;
          if (qplan && tq < 0)
            std::fprintf(stderr, "%s 8-bit %s %s: %s\n", m.label.c_str(), v.name,
                         lowp::gemmBackendName(backends[bi]), errors[next].c_str());
          if (qplan) ++next;
          if (tq < 0) {
            std::printf("\terror\t-");
            continue;
          }
          // Plan-fused TensorFlow-recipe chains, or quantize_nodes' own
          // per-channel fused layers.
          fused = countOp(*qplan, "_FusedQuantized") + countOp(*qplan, "QuantizedFused");
          std::printf("\t%.2f\t%.2fx", tq, tf / tq);
        }
        std::printf("\t(%d fused 8-bit layers)\n", fused);
        std::fflush(stdout);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  gds::app::applyKernelEnvironment();
  const int runs = std::stoi(bench::flag(argc, argv, "runs", "20"));
  const std::vector<int> threads = bench::intList(bench::flag(argc, argv, "threads", "1,2"));
  const std::string models_dir = bench::flag(argc, argv, "models", "");
  const std::string resnet = bench::flag(argc, argv, "resnet50", "");
  if (bench::flag(argc, argv, "help", "") == "true" ||
      (models_dir.empty() && resnet.empty() && bench::flag(argc, argv, "gemm", "") != "true")) {
    std::fprintf(stderr,
                 "usage: %s --models=SHARED/models [--resnet50=RESNET50.pb] [--runs=20] [--threads=1,2] [--gemm] "
                 "[--no_fusion] [--clock=wall|cpu]\n(bench/bench_quant.sh makes the ResNet-50 and runs this)\n",
                 argv[0]);
    return 2;
  }
  std::printf("CPU dispatch: %s\n", engine::cpuFeaturesSummary().c_str());
  std::string names;
  for (lowp::GemmBackend b : eightBitBackends()) {
    names += names.empty() ? "" : ", ";
    names += lowp::gemmBackendName(b);
    if (b == lowp::GemmBackend::kDnnl) names += " (oneDNN, kernels up to " + lowp::dnnlIsa() + ")";
    if (b == lowp::GemmBackend::kAvx2) names += " (exact int16-pair GEMM)";
  }
  std::printf("8-bit GEMM backends: %s%s\n\n", names.c_str(),
              lowp::dnnlAvailable() ? "" : "; no oneDNN VNNI here");
  if (bench::flag(argc, argv, "gemm", "") == "true") gemmTable(5, threads);
  std::vector<Model> models;
  if (!resnet.empty()) models.push_back({"resnet50", resnet, "input_1", "predictions/Softmax", {1, 224, 224, 3}});
  if (!models_dir.empty()) {
    models.push_back({"mobilenet_1.0_224",
                      models_dir + "/generated/mobilenet_v1_1.0_224_random.pb",
                      "input",
                      "MobilenetV1/Predictions/Reshape_1",
                      {1, 224, 224, 3}});
    models.push_back({"mobilenet_0.25_128",
                      models_dir + "/mobilenet_v1_0.25_128_frozen.pb",
                      "input",
                      "MobilenetV1/Predictions/Reshape_1",
                      {1, 128, 128, 3}});
  }
  graphTable(models, runs, threads, bench::flag(argc, argv, "no_fusion", "") != "true",
             bench::flag(argc, argv, "clock", "wall") == "cpu" ? bench::TimingClock::kCpu : bench::TimingClock::kWall);
  return 0;
}
