#include "engine/ops/dnnl_float_parallel.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "engine/thread_pool.h"

namespace gds::engine::dnnl_float {

ParallelConvolution::~ParallelConvolution() = default;

std::unique_ptr<ParallelConvolution> ParallelConvolution::create(const ops::ConvGeometry& s, bool depthwise,
                                                                 const float* filter, const float* bias,
                                                                 ops::Activation activation, bool add_to_output,
                                                                 bool winograd_allowed, int threads) {
  std::unique_ptr<ParallelConvolution> pc(new ParallelConvolution());
  const std::int64_t channels = depthwise ? s.in_c * s.out_c : s.out_c;
  pc->rows_ = s.batch * s.out_h * s.out_w;
  pc->channels_ = channels;
  pc->add_to_output_ = add_to_output;
  // Below ~1 MFLOP (some 10 us) per thread, handing work to the pool's
  // spinning worker costs about what the split saves.
  const std::int64_t by_work = ops::convThreadParts(s, depthwise, threads, 1e6);
  std::vector<Part>& parts = pc->parts_;
  const Convolution* first = nullptr;
  const bool winograd = winograd_allowed && Convolution::winogradPays(s, depthwise);
  // Slices of the output channels where the filter outweighs the input
  // (even a single output pixel, as a classifier's 1x1 convolution has).
  const auto slices = ops::convChannelSlices(s, depthwise, by_work);
  const std::int64_t units = s.batch > 1 ? s.batch : s.out_h;
  const std::int64_t count = std::min(units, by_work);
  if (!slices.empty()) {
    for (const auto& [begin, end] : slices) {
      Part part;
      part.ch_begin = begin;
      part.ch_end = end;
      ops::ConvGeometry p = s;
      p.out_c = part.ch_end - part.ch_begin;
      Convolution::Options o;
      o.add_to_output = add_to_output;
      o.winograd = winograd;
      o.filter_ld = s.out_c;
      part.primitive = Convolution::create(p, false, filter + part.ch_begin, bias ? bias + part.ch_begin : nullptr,
                                           activation, o);
      if (!part.primitive) return nullptr;
      parts.push_back(std::move(part));
    }
    return pc;
  }
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t u0 = units * i / count, u1 = units * (i + 1) / count;
    ops::ConvGeometry p = s;
    Part part;
    if (count == 1) {
      // The whole convolution.
    } else if (s.batch > 1) {
      p.batch = u1 - u0;
      part.in_offset = u0 * s.in_h * s.in_w * s.in_c;
      part.out_offset = u0 * s.out_h * s.out_w * channels;
    } else {
      std::int64_t in0 = 0;
      p = ops::convRowBand(s, u0, u1, &in0);
      part.in_offset = in0 * s.in_w * s.in_c;
      part.out_offset = u0 * s.out_w * channels;
    }
    Convolution::Options o;
    o.add_to_output = add_to_output;
    o.share = first;
    o.winograd = winograd;
    part.primitive = Convolution::create(p, depthwise, filter, bias, activation, o);
    if (!part.primitive) return nullptr;
    if (!first) first = part.primitive.get();
    parts.push_back(std::move(part));
  }
  return pc;
}

void ParallelConvolution::run(const float* in, float* out, const ThreadPool& pool) const {
  const std::int64_t rows = rows_, channels = channels_;
  auto runParts = [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t p = b; p < e; ++p) {
      const Part& part = parts_[static_cast<size_t>(p)];
      if (part.ch_end == 0) {
        part.primitive->run(in + part.in_offset, out + part.out_offset);
        continue;
      }
      // A slice of the output channels: computed densely, then copied into
      // its columns (with a residual, the columns' sums first copied out).
      const std::int64_t width = part.ch_end - part.ch_begin;
      thread_local std::vector<float> slice;
      slice.resize(static_cast<size_t>(rows * width));
      if (add_to_output_)
        for (std::int64_t r = 0; r < rows; ++r)
          std::memcpy(slice.data() + r * width, out + r * channels + part.ch_begin, sizeof(float) * width);
      part.primitive->run(in, slice.data());
      for (std::int64_t r = 0; r < rows; ++r)
        std::memcpy(out + r * channels + part.ch_begin, slice.data() + r * width, sizeof(float) * width);
    }
  };
  if (parts_.size() == 1) runParts(0, 1);
  else pool.parallelFor(static_cast<std::int64_t>(parts_.size()), 1e9, runParts);
}

ParallelInnerProduct::~ParallelInnerProduct() = default;

std::unique_ptr<ParallelInnerProduct> ParallelInnerProduct::create(std::int64_t m, std::int64_t n, std::int64_t k,
                                                                   const float* b, bool transpose_b, const float* bias,
                                                                   ops::Activation activation, int threads) {
  std::unique_ptr<ParallelInnerProduct> pp(new ParallelInnerProduct());
  const double flops = 2.0 * static_cast<double>(m * n * k);
  const bool by_rows = m > 1;
  const std::int64_t units = by_rows ? m : n / 16;
  const std::int64_t count = std::max<std::int64_t>(
      1, std::min<std::int64_t>({units, threads, static_cast<std::int64_t>(flops / 1e6)}));
  for (std::int64_t i = 0; i < count; ++i) {
    Part part;
    if (by_rows || count == 1) {
      const std::int64_t r0 = m * i / count, r1 = m * (i + 1) / count;
      part.a_offset = r0 * k;
      part.c_offset = r0 * n;
      part.primitive =
          InnerProduct::create(r1 - r0, n, k, b, transpose_b ? k : n, transpose_b, bias, activation, n);
    } else {
      // Column blocks, multiples of 16 wide.
      const std::int64_t j0 = units * i / count * 16, j1 = i + 1 == count ? n : units * (i + 1) / count * 16;
      part.c_offset = j0;
      part.primitive = InnerProduct::create(m, j1 - j0, k, transpose_b ? b + j0 * k : b + j0, transpose_b ? k : n,
                                            transpose_b, bias ? bias + j0 : nullptr, activation, n);
    }
    if (!part.primitive) return nullptr;
    pp->parts_.push_back(std::move(part));
  }
  return pp;
}

void ParallelInnerProduct::run(const float* a, float* c, const ThreadPool& pool) const {
  auto runParts = [&](std::int64_t p0, std::int64_t p1) {
    for (std::int64_t p = p0; p < p1; ++p) {
      const Part& part = parts_[static_cast<size_t>(p)];
      part.primitive->run(a + part.a_offset, c + part.c_offset);
    }
  };
  if (parts_.size() == 1) runParts(0, 1);
  else pool.parallelFor(static_cast<std::int64_t>(parts_.size()), 1e9, runParts);
}

}  // namespace gds::engine::dnnl_float
