// 8-bit GEMM throughput per backend against our float GEMM (Eigen), on the
// convolution GEMM shapes of ResNet-50 (im2col: M = output pixels,
// N = output channels, K = kernel area x input channels), at 1 and 2
// threads; then, when a model folder is given, whole-graph latency of a float
// graph and its 8-bit version (quantize_nodes output) per backend.
//
//   bench_quant [--reps=N] [--float=FLOAT.pb --quant=QUANT.pb --input=NAME --output=NAME --shape=1,224,224,3]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/compare.h"
#include "engine/ops/gemm.h"
#include "engine/plan.h"
#include "engine/quantized/gemm.h"
#include "engine/thread_pool.h"
#include "model/io.h"

using namespace gds;
namespace quantized = gds::engine::quantized;
using Clock = std::chrono::steady_clock;

namespace {

struct Shape3 {
  const char* name;
  std::int64_t m, n, k;
};

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

std::string flag(int argc, char** argv, const std::string& name, const std::string& fallback) {
  const std::string prefix = "--" + name + "=";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) return argv[i] + prefix.size();
  return fallback;
}

void gemmTable(int reps) {
  const Shape3 shapes[] = {
      {"conv2 3x3 64", 3136, 64, 576},   {"conv2 1x1 64->256", 3136, 256, 64}, {"conv3 3x3 128", 784, 128, 1152},
      {"conv3 1x1 128->512", 784, 512, 128}, {"conv4 3x3 256", 196, 256, 2304}, {"conv4 1x1 256->1024", 196, 1024, 256},
      {"conv5 3x3 512", 49, 512, 4608},  {"conv1 7x7 3->64", 12544, 64, 147},
  };
  std::vector<quantized::GemmBackend> backends = {quantized::GemmBackend::kGemmlowp};
  if (quantized::dnnlAvailable()) backends.push_back(quantized::GemmBackend::kDnnl);
  std::printf("8-bit GEMM vs float GEMM, GOP/s (2*M*N*K / best of %d runs); ratio = 8-bit / float\n", reps);
  std::printf("%-22s\t%s\t%6s\t%6s\t%6s\t%8s", "shape", "thr", "M", "N", "K", "float");
  for (auto b : backends) std::printf("\t%8s\tratio", quantized::gemmBackendName(b));
  std::printf("\n");
  std::mt19937 rng(1);
  for (int threads : {1, 2}) {
    engine::ThreadPool pool(threads);
    for (const Shape3& s : shapes) {
      std::vector<float> af(static_cast<std::size_t>(s.m * s.k)), bf(static_cast<std::size_t>(s.k * s.n)),
          cf(static_cast<std::size_t>(s.m * s.n));
      std::vector<std::uint8_t> a8(af.size()), b8(bf.size());
      std::uniform_int_distribution<int> d(0, 255);
      for (std::size_t i = 0; i < af.size(); ++i) af[i] = static_cast<float>(a8[i] = static_cast<std::uint8_t>(d(rng))) / 255.0f;
      for (std::size_t i = 0; i < bf.size(); ++i) bf[i] = static_cast<float>(b8[i] = static_cast<std::uint8_t>(d(rng))) / 255.0f;
      std::vector<std::int32_t> c32(cf.size());
      const double ops = 2.0 * static_cast<double>(s.m) * s.n * s.k;
      const double tf = bestSeconds(reps, [&] {
        engine::ops::gemm(af.data(), bf.data(), cf.data(), s.m, s.n, s.k, false, false, &pool);
      });
      std::printf("%-22s\t%d\t%6lld\t%6lld\t%6lld\t%8.1f", s.name, threads, static_cast<long long>(s.m),
                  static_cast<long long>(s.n), static_cast<long long>(s.k), ops / tf * 1e-9);
      quantized::GemmRhs rhs(b8.data(), s.k, s.n, s.n, false, 117);
      for (auto b : backends) {
        const double tq = bestSeconds(reps, [&] {
          quantized::gemm(b, quantized::GemmLhs{a8.data(), s.m, s.k, s.k, 131}, rhs, c32.data(), s.n, &pool);
        });
        std::printf("\t%8.1f\t%5.2fx", ops / tq * 1e-9, tf / tq);
      }
      std::printf("\n");
    }
  }
}

void graphTable(int argc, char** argv, int reps) {
  const std::string float_path = flag(argc, argv, "float", "");
  const std::string quant_path = flag(argc, argv, "quant", "");
  if (float_path.empty() || quant_path.empty()) return;
  const std::string input = flag(argc, argv, "input", "input");
  const std::string output = flag(argc, argv, "output", "");
  std::vector<std::int64_t> shape;
  std::string text = flag(argc, argv, "shape", "1,224,224,3");
  for (std::size_t p = 0; p < text.size();) {
    std::size_t q = text.find(',', p);
    if (q == std::string::npos) q = text.size();
    shape.push_back(std::stoll(text.substr(p, q - p)));
    p = q + 1;
  }
  auto fg = model::load(float_path);
  auto qg = model::load(quant_path);
  if (!fg.ok() || !qg.ok()) {
    std::fprintf(stderr, "cannot load: %s %s\n", fg.ok() ? "" : fg.error().c_str(), qg.ok() ? "" : qg.error().c_str());
    return;
  }
  engine::Tensor in(tensorflow::DT_FLOAT, shape);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (std::int64_t i = 0; i < in.numElements(); ++i) in.data<float>()[i] = d(rng);
  std::printf("\nwhole graph latency, ms (best of %d): %s vs %s\n", reps, float_path.c_str(), quant_path.c_str());
  std::printf("threads\tfloat\tbackend\t8-bit\tspeedup\n");
  std::vector<quantized::GemmBackend> backends = {quantized::GemmBackend::kGemmlowp};
  if (quantized::dnnlAvailable()) backends.push_back(quantized::GemmBackend::kDnnl);
  for (int threads : {1, 2}) {
    engine::PlanOptions options;
    options.num_threads = threads;
    auto fplan = engine::Plan::compile(std::make_shared<tensorflow::GraphDef>(fg->graph), {input}, {output}, options);
    if (!fplan.ok()) {
      std::fprintf(stderr, "%s\n", fplan.error().c_str());
      return;
    }
    const double tf = bestSeconds(reps, [&] { (void)(*fplan)->run({in}); });
    for (auto b : backends) {
      quantized::setDefaultGemmBackend(b);
      auto qplan = engine::Plan::compile(qg->graph, {input}, {output}, options);
      if (!qplan.ok()) {
        std::fprintf(stderr, "%s\n", qplan.error().c_str());
        return;
      }
      auto check = (*qplan)->run({in});
      if (!check.ok()) {
        std::fprintf(stderr, "%s\n", check.error().c_str());
        return;
      }
      const double tq = bestSeconds(reps, [&] { (void)(*qplan)->run({in}); });
      std::printf("%d\t%.2f\t%s\t%.2f\t%.2fx\n", threads, tf * 1e3, quantized::gemmBackendName(b), tq * 1e3, tf / tq);
    }
    quantized::resetDefaultGemmBackend();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = std::stoi(flag(argc, argv, "reps", "5"));
  if (flag(argc, argv, "skip_gemm", "false") != "true") gemmTable(reps);
  graphTable(argc, argv, reps);
  return 0;
}
