#include "engine/kernels/float_layers.h"

#include <cstring>

#include "engine/allocation.h"
#include "engine/ops/dnnl_float.h"
#include "engine/ops/gemm.h"
#include "engine/thread_pool.h"

namespace gds::engine {

bool useOneDnn(bool reference, bool weights_constant) {
  return !reference && weights_constant && dnnl_float::available() &&
         ops::gemmBackend() == ops::GemmBackend::kOneDnn;
}

void FloatConvolution::run(const ThreadPool& pool, const ops::ConvGeometry& s, const float* in, const float* filter,
                           const float* bias, float* out, const float* addend) {
  const std::int64_t rows = s.batch * s.out_h * s.out_w;
  const std::int64_t channels = s.outputChannels(options_.depthwise);
  if (addsInPlace()) {
    const std::array<std::int64_t, 5> key = {s.batch, s.in_h, s.in_w, s.in_c, pool.numThreads()};
    auto it = primitives_.find(key);
    if (it == primitives_.end()) it = primitives_.emplace(key, makeFast(s, filter, bias, pool.numThreads())).first;
    const Fast& fast = it->second;
    if (fast.winograd || fast.dnnl) {
      // Both add the residual to what the output holds (oneDNN's sum post-op).
      if (addend && addend != out) std::memcpy(out, addend, sizeof(float) * static_cast<size_t>(rows * channels));
      if (fast.winograd) fast.winograd->run(in, out, pool);
      else fast.dnnl->run(in, out, pool);
      return;
    }
  }
  std::vector<float> addend_copy;
  if (addend && addend == out) {  // the output took the addend's buffer
    addend_copy.assign(addend, addend + rows * channels);
    addend = addend_copy.data();
  }
  if (options_.depthwise) {
    if (options_.reference) ops::depthwiseConv2dReference(s, in, filter, out);
    else ops::depthwiseConv2dOptimized(s, in, filter, out, &pool);
  } else {
    if (options_.reference) ops::conv2dReference(s, in, filter, out);
    else ops::conv2dOptimized(s, in, filter, out, &pool, &scratch_);
  }
  ops::biasActivation(out, rows, channels, bias, options_.activation, &pool, addend);
}

FloatConvolution::Fast FloatConvolution::makeFast(const ops::ConvGeometry& s, const float* filter, const float* bias,
                                                  int threads) const {
  Fast fast;
  // Its transformed filter takes four times the filter's memory (36 values
  // per 9): within the memory budget only, else the direct convolution.
  if (options_.winograd && dnnl_float::Convolution::winogradPays(s, options_.depthwise) &&
      !dnnl_float::Convolution::winogradAvailable() &&
      checkAllocation(tensorflow::DT_FLOAT, {ops::WinogradF43::transformedFilterSize(s)}).ok())
    fast.winograd = ops::WinogradF43::create(s, filter, bias, options_.activation, options_.add);
  if (!fast.winograd)
    fast.dnnl = dnnl_float::ParallelConvolution::create(s, options_.depthwise, filter, bias, options_.activation,
                                                        options_.add, options_.winograd, threads);
  return fast;
}

void FloatMatMul::run(const ThreadPool& pool, const float* a, const float* b, const float* bias, std::int64_t m,
                      std::int64_t n, std::int64_t k, float* c) {
  if (!options_.transpose_a && m > 0 && n > 0 && k > 0 && useOneDnn(options_.reference, options_.weights_constant)) {
    const int threads = pool.numThreads();
    auto it = primitives_.find({m, threads});
    if (it == primitives_.end())
      it = primitives_
               .emplace(std::make_pair(m, threads),
                        dnnl_float::ParallelInnerProduct::create(m, n, k, b, options_.transpose_b, bias,
                                                                 options_.activation, threads))
               .first;
    if (const dnnl_float::ParallelInnerProduct* ip = it->second.get()) {
      ip->run(a, c, pool);
      return;
    }
  }
  if (options_.reference) ops::gemmReference(a, b, c, m, n, k, options_.transpose_a, options_.transpose_b);
  else ops::gemm(a, b, c, m, n, k, options_.transpose_a, options_.transpose_b, &pool);
  ops::biasActivation(c, m, n, bias, options_.activation, &pool);
}

}  // namespace gds::engine
