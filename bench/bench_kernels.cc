// Float kernel throughput on the convolution shapes of ResNet-50 and
// MobileNet v1 1.0/224 (batch 1), at 1 and 2 threads: GFLOP/s of the engine's
// optimized Conv2D (im2col + GEMM) with each GEMM backend (Eigen, and oneDNN
// sgemm on the pool's threads when built in) and DepthwiseConv2dNative.
// Peer measured in the same run: oneDNN's dnnl_sgemm on the same GEMM shape
// (M = output pixels, N = output channels, K = kh*kw*in_channels). The peer
// does not pay for im2col, so ratio >= 1 means the whole convolution is at
// least as fast as the bare GEMM of a tuned BLAS. On CPUs where the engine's
// Winograd F(4x4, 3x3) runs (AVX2), the 3x3 stride-1 shapes get a row of it
// against oneDNN's direct convolution.
//
//   build/bench/bench_kernels [--runs=N] [--threads=1,2] [--filter=SUBSTRING] [--no_peer]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "app/kernel_environment.h"
#include "engine/kernel_choice.h"
#include "engine/ops/conv.h"
#include "engine/ops/dnnl_float_parallel.h"
#include "engine/ops/gemm.h"
#include "engine/ops/winograd.h"
#include "engine/thread_pool.h"

#if __has_include(<oneapi/dnnl/dnnl.h>)
#include <oneapi/dnnl/dnnl.h>
extern "C" void omp_set_num_threads(int);
#define GDS_BENCH_DNNL 1
#endif

namespace {

using gds::engine::ThreadPool;
namespace ops = gds::engine::ops;

struct ConvCase {
  const char* name;
  int h, w, c, k, oc, stride;
  bool depthwise;
};

const ConvCase kCases[] = {
    {"resnet50/conv1 7x7/2", 224, 224, 3, 7, 64, 2, false},
    {"resnet50/res2 1x1 64->64", 56, 56, 64, 1, 64, 1, false},
    {"resnet50/res2 3x3 64->64", 56, 56, 64, 3, 64, 1, false},
    {"resnet50/res2 1x1 64->256", 56, 56, 64, 1, 256, 1, false},
    {"resnet50/res2 1x1 256->64", 56, 56, 256, 1, 64, 1, false},
    {"resnet50/res3 3x3 128->128", 28, 28, 128, 3, 128, 1, false},
    {"resnet50/res3 1x1 128->512", 28, 28, 128, 1, 512, 1, false},
    {"resnet50/res3 1x1 512->128", 28, 28, 512, 1, 128, 1, false},
    {"resnet50/res4 3x3 256->256", 14, 14, 256, 3, 256, 1, false},
    {"resnet50/res4 1x1 256->1024", 14, 14, 256, 1, 1024, 1, false},
    {"resnet50/res4 1x1 1024->256", 14, 14, 1024, 1, 256, 1, false},
    {"resnet50/res5 3x3 512->512", 7, 7, 512, 3, 512, 1, false},
    {"resnet50/res5 1x1 512->2048", 7, 7, 512, 1, 2048, 1, false},
    {"resnet50/res5 1x1 2048->512", 7, 7, 2048, 1, 512, 1, false},
    {"mobilenet/conv0 3x3/2 3->32", 224, 224, 3, 3, 32, 2, false},
    {"mobilenet/pw 112 32->64", 112, 112, 32, 1, 64, 1, false},
    {"mobilenet/pw 56 128->128", 56, 56, 128, 1, 128, 1, false},
    {"mobilenet/pw 28 256->256", 28, 28, 256, 1, 256, 1, false},
    {"mobilenet/pw 14 512->512", 14, 14, 512, 1, 512, 1, false},
    {"mobilenet/pw 7 1024->1024", 7, 7, 1024, 1, 1024, 1, false},
    {"mobilenet/dw 3x3 112x32", 112, 112, 32, 3, 1, 1, true},
    {"mobilenet/dw 3x3/2 112x64", 112, 112, 64, 3, 1, 2, true},
    {"mobilenet/dw 3x3 56x128", 56, 56, 128, 3, 1, 1, true},
    {"mobilenet/dw 3x3 28x256", 28, 28, 256, 3, 1, 1, true},
    {"mobilenet/dw 3x3 14x512", 14, 14, 512, 3, 1, 1, true},
    {"mobilenet/dw 3x3 7x1024", 7, 7, 1024, 3, 1, 1, true},
};

// Minimum over the runs: on a shared machine the minimum is the time the
// work itself takes; the median also counts time slices lost to other
// processes.
template <typename F>
double minMs(int runs, F&& fn) {
  fn();  // warm-up
  double best = 1e300;
  for (int i = 0; i < runs; ++i) {
    const auto a = std::chrono::steady_clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  return best;
}

std::vector<float> randomVector(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  gds::app::applyKernelEnvironment();
  // OpenMP workers (oneDNN's) must not spin between peer calls while the
  // engine is being timed.
  setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
  int runs = 20;
  std::vector<int> threads = {1, 2};
  std::string filter;
  bool with_peer = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--runs=", 0) == 0) runs = std::max(1, std::atoi(a.c_str() + 7));
    else if (a.rfind("--filter=", 0) == 0) filter = a.substr(9);
    else if (a == "--no_peer") with_peer = false;
    else if (a.rfind("--threads=", 0) == 0) {
      threads.clear();
      for (const char* p = a.c_str() + 10; *p;) {
        threads.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
      }
    } else {
      std::fprintf(stderr, "usage: %s [--runs=N] [--threads=1,2] [--filter=SUBSTRING] [--no_peer]\n", argv[0]);
      return 2;
    }
  }
#ifdef GDS_BENCH_DNNL
  const char* peer = "dnnl_sgemm";
#else
  const char* peer = "(no peer: oneDNN not found)";
#endif
  std::vector<ops::GemmBackend> backends;
  for (auto b : {ops::GemmBackend::kEigen, ops::GemmBackend::kOneDnn})
    if (ops::gemmBackendAvailable(b)) backends.push_back(b);
  std::printf("kernel\tthreads\tMFLOP\tengine_ms\tengine_GFLOP/s\tpeer_ms\tpeer_GFLOP/s\tratio(peer_ms/engine_ms)\n");
  std::printf("# peer: %s on the equivalent GEMM shape; runs=%d (minimum time)\n", peer, runs);
  double total_engine[8] = {0}, total_peer[8] = {0}, total_flop = 0;
  for (const auto& c : kCases) {
    if (!filter.empty() && std::string(c.name).find(filter) == std::string::npos) continue;
    ops::ConvGeometry s;
    s.in_h = c.h;
    s.in_w = c.w;
    s.in_c = c.c;
    s.filter_h = s.filter_w = c.k;
    s.out_c = c.oc;
    s.stride_h = s.stride_w = c.stride;
    ops::computeConvGeometry(ops::Padding::kSame, &s);
    const auto in = randomVector(static_cast<size_t>(c.h * c.w * c.c), 1);
    const auto filt = randomVector(static_cast<size_t>(c.k * c.k * c.c * c.oc), 2);
    const std::int64_t out_ch = c.depthwise ? c.c * c.oc : c.oc;
    std::vector<float> out(static_cast<size_t>(s.out_h * s.out_w * out_ch));
    const std::int64_t m = s.out_h * s.out_w, n = c.oc, k = c.k * c.k * c.c;
    const double flop = c.depthwise ? 2.0 * m * out_ch * c.k * c.k : 2.0 * m * n * k;
    total_flop += flop;
    std::vector<float> scratch, patches;
    if (!c.depthwise) patches = randomVector(static_cast<size_t>(m * k), 3);
    for (size_t ti = 0; ti < threads.size(); ++ti) {
      const int t = threads[ti];
      ThreadPool pool(t);
      double ms = 0;
      std::string engine_name = "depthwise";
      if (c.depthwise) {
        ms = minMs(runs, [&] { ops::depthwiseConv2dOptimized(s, in.data(), filt.data(), out.data(), &pool); });
      } else {
        for (auto b : backends) {
          gds::engine::ScopedKernelChoice choice(b);
          const double t_b = minMs(runs, [&] { ops::conv2dOptimized(s, in.data(), filt.data(), out.data(), &pool, &scratch); });
          engine_name = ms == 0 || t_b < ms ? ops::gemmBackendName(b) : engine_name;
          if (b != backends.back()) std::printf("%s [%s]\t%d\t%.1f\t%.3f\t%.1f\t-\t-\t-\n", c.name, ops::gemmBackendName(b), t, flop / 1e6, t_b, flop / t_b / 1e6);
          ms = ms == 0 ? t_b : std::min(ms, t_b);
        }
      }
      double peer_ms = 0;
#ifdef GDS_BENCH_DNNL
      if (!c.depthwise && with_peer) {
        omp_set_num_threads(t);
        peer_ms = minMs(runs, [&] {
          dnnl_sgemm('N', 'N', m, n, k, 1.0f, patches.data(), k, filt.data(), n, 0.0f, out.data(), n);
        });
      }
#endif
      // Winograd F(4x4, 3x3) where it takes the shape, against oneDNN's
      // direct convolution (what the engine runs otherwise) as the peer.
      if (!c.depthwise && ops::WinogradF43::supports(s, false)) {
        auto wino = ops::WinogradF43::create(s, filt.data(), nullptr, ops::Activation::kNone, false);
        const double w_ms = minMs(runs, [&] { wino->run(in.data(), out.data(), pool); });
        std::printf("%s [winograd F(4x4,3x3)]\t%d\t%.1f\t%.3f\t%.1f\t", c.name, t, flop / 1e6, w_ms, flop / w_ms / 1e6);
        auto direct = gds::engine::dnnl_float::ParallelConvolution::create(s, false, filt.data(), nullptr,
                                                                          ops::Activation::kNone, false, false, t);
        if (direct) {
          const double d_ms = minMs(runs, [&] { direct->run(in.data(), out.data(), pool); });
          std::printf("%.3f\t%.1f\t%.2f\t(peer: oneDNN direct)\n", d_ms, flop / d_ms / 1e6, d_ms / w_ms);
        } else {
          std::printf("-\t-\t-\n");
        }
      }
      if (ti < 8) {
        total_engine[ti] += ms;
        total_peer[ti] += peer_ms;
      }
      std::printf("%s [best: %s]\t%d\t%.1f\t%.3f\t%.1f\t", c.name, engine_name.c_str(), t, flop / 1e6, ms, flop / ms / 1e6);
      if (peer_ms > 0) std::printf("%.3f\t%.1f\t%.2f\n", peer_ms, flop / peer_ms / 1e6, peer_ms / ms);
      else std::printf("-\t-\t-\n");
    }
  }
  for (size_t ti = 0; ti < threads.size() && ti < 8; ++ti)
    std::printf("TOTAL\t%d\t%.1f\t%.3f\t%.1f\t%.3f\t-\t-\n", threads[ti], total_flop / 1e6, total_engine[ti],
                total_flop / total_engine[ti] / 1e6, total_peer[ti]);
  return 0;
}
