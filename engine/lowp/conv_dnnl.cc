// oneDNN's int8 convolution for the 8-bit layers (see conv_dnnl.h). oneDNN's
// C++ API reports failures with exceptions; they stay in this file: a
// convolution that cannot be made is a null result and conv2D keeps its
// im2col + GEMM path.
#include "engine/lowp/conv_dnnl.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <unordered_map>
#include <vector>

#include "engine/ops/dnnl_common.h"
#include "engine/thread_pool.h"

namespace gds::engine::lowp {

#ifdef GDS_HAVE_DNNL

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;
using dnnl_common::cpuEngine;

// The source zero point's share of the sums, for kernels run without it:
// x_zero * (sum of the weights of the taps that fall inside the input), per
// output channel. Which taps fall inside depends only on where the window
// sits against the borders: one range of filter rows per output row class
// and one of filter columns per output column class (one class each in the
// interior, a few at the borders), so the per-channel sums are kept per
// pair of classes.
struct ZeroPointSums {
  std::int64_t channels = 0;
  std::vector<int> row_class, col_class;  // per output row / column
  int col_classes = 0;
  std::vector<std::int32_t> sums;  // [row class][column class][channel]

  // weights: HWIO int8 [fh, fw, in_c, out_c].
  void build(const ops::ConvGeometry& s, const std::int8_t* weights) {
    channels = s.out_c;
    // Valid filter rows [first, last) of each output row, as classes.
    auto classes = [](std::int64_t out, std::int64_t in, std::int64_t filter, std::int64_t stride,
                      std::int64_t pad, std::int64_t dilation, std::vector<int>* of,
                      std::vector<std::pair<std::int64_t, std::int64_t>>* ranges) {
      of->resize(static_cast<std::size_t>(out));
      for (std::int64_t o = 0; o < out; ++o) {
        std::int64_t first = filter, last = 0;
        for (std::int64_t f = 0; f < filter; ++f) {
          const std::int64_t i = o * stride - pad + f * dilation;
          if (i >= 0 && i < in) {
            first = std::min(first, f);
            last = f + 1;
          }
        }
        const std::pair<std::int64_t, std::int64_t> range(first, std::max(first, last));
        auto it = std::find(ranges->begin(), ranges->end(), range);
        if (it == ranges->end()) it = ranges->insert(ranges->end(), range);
        (*of)[static_cast<std::size_t>(o)] = static_cast<int>(it - ranges->begin());
      }
    };
    std::vector<std::pair<std::int64_t, std::int64_t>> rows, cols;
    classes(s.out_h, s.in_h, s.filter_h, s.stride_h, s.pad_top, s.dilation_h, &row_class, &rows);
    classes(s.out_w, s.in_w, s.filter_w, s.stride_w, s.pad_left, s.dilation_w, &col_class, &cols);
    col_classes = static_cast<int>(cols.size());
    sums.assign(rows.size() * cols.size() * static_cast<std::size_t>(channels), 0);
    for (std::size_t ry = 0; ry < rows.size(); ++ry)
      for (std::size_t rx = 0; rx < cols.size(); ++rx) {
        std::int32_t* out = sums.data() + (ry * cols.size() + rx) * static_cast<std::size_t>(channels);
        for (std::int64_t fy = rows[ry].first; fy < rows[ry].second; ++fy)
          for (std::int64_t fx = cols[rx].first; fx < cols[rx].second; ++fx)
            for (std::int64_t k = 0; k < s.in_c; ++k) {
              const std::int8_t* w = weights + ((fy * s.filter_w + fx) * s.in_c + k) * channels;
              for (std::int64_t c = 0; c < channels; ++c) out[c] += w[c];
            }
      }
  }

  // x_zero * the sums, for one run (wrapping, as the int32 accumulators do).
  std::vector<std::uint32_t> scaled(std::int32_t input_zero) const {
    std::vector<std::uint32_t> out(sums.size());
    const std::uint32_t zero = static_cast<std::uint32_t>(input_zero);
    for (std::size_t i = 0; i < sums.size(); ++i) out[i] = zero * static_cast<std::uint32_t>(sums[i]);
    return out;
  }

  // Subtracts `scaled` (x_zero * the sums) from output rows [row_begin,
  // row_end).
  void subtract(const ops::ConvGeometry& s, const std::vector<std::uint32_t>& scaled, std::int64_t row_begin,
                std::int64_t row_end, std::int32_t* output) const {
    for (std::int64_t r = row_begin; r < row_end; ++r) {
      const std::int64_t oy = (r / s.out_w) % s.out_h, ox = r % s.out_w;
      const std::size_t cls = static_cast<std::size_t>(row_class[static_cast<std::size_t>(oy)]) *
                                  static_cast<std::size_t>(col_classes) +
                              static_cast<std::size_t>(col_class[static_cast<std::size_t>(ox)]);
      const std::uint32_t* __restrict corr = scaled.data() + cls * static_cast<std::size_t>(channels);
      std::uint32_t* __restrict o = reinterpret_cast<std::uint32_t*>(output + r * channels);
      for (std::int64_t c = 0; c < channels; ++c) o[c] -= corr[c];
    }
  }
};

// (w_zero - 128) * sum over the window of (x - x_zero), subtracted from
// every channel of output rows [row_begin, row_end) (wrapping, as the int32
// accumulators do).
void subtractWindowSums(const ops::ConvGeometry& s, const std::uint8_t* input, std::int32_t input_zero,
                        std::int32_t weight_offset, std::int64_t row_begin, std::int64_t row_end,
                        std::int32_t* output) {
  for (std::int64_t row = row_begin; row < row_end; ++row) {
    const std::int64_t b = row / (s.out_h * s.out_w);
    const std::int64_t oy = (row / s.out_w) % s.out_h;
    const std::int64_t ox = row % s.out_w;
    std::uint32_t sum = 0;
    std::int64_t cells = 0;
    ops::forEachWindowTap(s, b, oy, ox, [&](std::int64_t, std::int64_t, std::int64_t pixel) {
      const std::uint8_t* x = input + pixel * s.in_c;
      std::uint32_t channel_sum = 0;
      for (std::int64_t c = 0; c < s.in_c; ++c) channel_sum += x[c];
      sum += channel_sum;
      cells += s.in_c;
    });
    const std::uint32_t window = sum - static_cast<std::uint32_t>(cells) * static_cast<std::uint32_t>(input_zero);
    const std::uint32_t correction = static_cast<std::uint32_t>(weight_offset) * window;
    std::int32_t* o = output + row * s.out_c;
    for (std::int64_t c = 0; c < s.out_c; ++c)
      o[c] = static_cast<std::int32_t>(static_cast<std::uint32_t>(o[c]) - correction);
  }
}

// u8 x s8 products summed in int32 without saturation.
bool exactKernel(const std::string& impl) {
  return !dnnl_common::isReference(impl) &&
         (impl.find("vnni") != std::string::npos || impl.find("amx") != std::string::npos);
}

// Accumulators per band: some 1 MB, still in the core's L2 cache for the
// epilogue (smaller bands cost the convolution more than they save).
constexpr std::int64_t kBandValues = 256 * 1024;
// Below ~8 MOP (some 10 us with VNNI) per part, another thread costs about
// what it saves (depthwise layers: see ops::convThreadParts).
constexpr double kOpsPerPart = 8e6;

}  // namespace

struct DnnlConv2D::Impl {
  struct Part {
    dnnl::convolution_forward primitive;
    memory src, dst, weights, zero, bias, scratchpad;
    // The input it reads: images [image_begin, + images), rows
    // [in_row_begin, + in_rows) of each.
    std::int64_t image_begin = 0, images = 0, in_row_begin = 0, in_rows = 0;
    std::int64_t row_begin = 0, row_end = 0;  // output rows (pixels) it computes
    std::int64_t ch_begin = 0, ch_end = 0;    // output channels; 0, 0: all
  };
  ops::ConvGeometry s;
  bool depthwise = false;
  std::int64_t channels = 0;  // of the output
  std::vector<Part> parts;
  bool channel_slices = false;
  std::int32_t weight_offset = 0;  // the int8 weights' zero point
  // Depthwise kernels take the input's zero point; other convolutions take
  // the input as it is and the zero point's share is subtracted afterwards
  // (ZeroPointSums): oneDNN's kernels without a source zero point are
  // faster (its brgemm kernels, AMX among them, take none).
  ZeroPointSums zero_sums;  // not depthwise, not requantizing
  std::string implementation;
  // createRequantizing's: int8 outputs, the caller's geometry (s is it
  // with the padding in the input), and per output channel the sum of its
  // positive weights and of the magnitudes of its negative ones.
  bool requantizing = false;
  ops::ConvGeometry source;
  std::vector<std::int64_t> positive_sums, negative_sums;

  // Requantizing: padded input rows [part.in_row_begin, + in_rows) of the
  // part's images, x + 128 with `pad` in the padding, into `out`.
  void copyInput(const Part& part, const std::int8_t* x, std::uint8_t pad, std::uint8_t* out) const {
    const ops::ConvGeometry& from = source;
    const std::int64_t c = s.in_c, row = s.in_w * c;
    // Columns [first, last) of each padded row come from the input.
    const std::int64_t first = std::min(s.in_w, from.pad_left), last = std::min(s.in_w, from.pad_left + from.in_w);
    for (std::int64_t b = part.image_begin; b < part.image_begin + part.images; ++b)
      for (std::int64_t y = part.in_row_begin; y < part.in_row_begin + part.in_rows; ++y, out += row) {
        const std::int64_t sy = y - from.pad_top;
        if (sy < 0 || sy >= from.in_h || last <= first) {
          std::memset(out, pad, static_cast<std::size_t>(row));
          continue;
        }
        std::memset(out, pad, static_cast<std::size_t>(first * c));
        toUnsigned(x + ((b * from.in_h + sy) * from.in_w + first - from.pad_left) * c, (last - first) * c,
                   out + first * c);
        std::memset(out + last * c, pad, static_cast<std::size_t>((s.in_w - last) * c));
      }
  }

  // One part's primitive for shape p, weights from `weights` (HWIO rows of
  // ld int8 values, or depthwise [fh, fw, c, multiplier]); false on failure.
  // With q, an int8 output through q's output stage (part->ch_begin: the
  // part's first channel's scale).
  static bool make(const ops::ConvGeometry& p, bool depthwise, const std::int8_t* weights, std::int64_t ld,
                   const Part* share, Part* part, std::string* impl, const Requantization* q) {
    const std::int64_t out_c = depthwise ? p.in_c * p.out_c : p.out_c;
    const memory::dims src_dims = {p.batch, p.in_c, p.in_h, p.in_w};
    const memory::dims dst_dims = {p.batch, out_c, p.out_h, p.out_w};
    std::int64_t pad_bottom, pad_right;
    dnnl_common::padsAfter(p, &pad_bottom, &pad_right);
    memory::dims w_dims, w_strides;
    dnnl_common::filterLayout(p, depthwise, ld, &w_dims, &w_strides);
    memory::desc src_md(src_dims, Dt::u8, Tag::nhwc), dst_md(dst_dims, q ? Dt::s8 : Dt::s32, Tag::nhwc);
    memory::desc any_w(w_dims, Dt::s8, Tag::any);
    const memory::desc bias_md = q ? memory::desc({out_c}, Dt::s32, Tag::x) : memory::desc();
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                         src_md, any_w, bias_md, dst_md, {p.stride_h, p.stride_w},
                                         {p.dilation_h - 1, p.dilation_w - 1}, {p.pad_top, p.pad_left},
                                         {pad_bottom, pad_right});
    dnnl::primitive_attr attr = dnnl_common::baseAttr();
    if (depthwise && !q) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    if (q) {
      const bool per_channel = q->scale.size() > 1;
      const auto first = q->scale.begin() + (per_channel ? part->ch_begin : 0);
      attr.set_output_scales(per_channel ? 1 << 1 : 0, std::vector<float>(first, first + (per_channel ? out_c : 1)));
      dnnl::post_ops stage;
      stage.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, static_cast<float>(q->qmin - q->zero_point),
                           static_cast<float>(q->qmax - q->zero_point));
      stage.append_eltwise(1.0f, dnnl::algorithm::eltwise_round, 0.0f, 0.0f);
      stage.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, 1.0f, static_cast<float>(q->zero_point));
      attr.set_post_ops(stage);
    }
    // AMX where it pays: each AMX run costs some 10 us of tile set-up (CPU
    // queries that trap under virtualization), which only products with
    // long enough sums earn back. Measured against VNNI with oneDNN's
    // brgemm kernels: 1.7-2.8x faster from 1x1x128 sums up, slower below.
    // Otherwise oneDNN's first exact kernel (always VNNI for depthwise).
    const bool want_amx = !depthwise && p.filter_h * p.filter_w * p.in_c >= 128;
    auto isAmx = [](const std::string& name) { return name.find("amx") != std::string::npos; };
    int chosen = -1;
    {
      dnnl::convolution_forward::primitive_desc walk(desc, attr, cpuEngine());
      for (int k = 0;; ++k) {
        const std::string name = walk.impl_info_str();
        if (exactKernel(name)) {
          if (isAmx(name) == want_amx) {
            chosen = k;
            break;
          }
          if (chosen < 0) chosen = k;
        }
        if (!walk.next_impl()) break;
      }
    }
    if (chosen < 0) return false;
    dnnl::convolution_forward::primitive_desc pd(desc, attr, cpuEngine());
    for (int k = 0; k < chosen; ++k) pd.next_impl();
    *impl = pd.impl_info_str();
    part->primitive = dnnl::convolution_forward(pd);
    if (share && share->weights.get_desc() == pd.weights_desc()) {
      part->weights = share->weights;
    } else {
      memory user(memory::desc(w_dims, Dt::s8, w_strides), cpuEngine(), const_cast<std::int8_t*>(weights));
      part->weights = memory(pd.weights_desc(), cpuEngine());
      dnnl::stream stream(cpuEngine());
      dnnl::reorder(user, part->weights).execute(stream, user, part->weights);
      stream.wait();
    }
    part->src = memory(src_md, cpuEngine(), nullptr);
    part->dst = memory(dst_md, cpuEngine(), nullptr);
    if (depthwise && !q) part->zero = memory({{1}, Dt::s32, Tag::x}, cpuEngine());
    if (q) part->bias = memory(bias_md, cpuEngine(), nullptr);
    part->scratchpad = memory(pd.scratchpad_desc(), cpuEngine(), nullptr);
    return true;
  }

  // fn(part) for every part, the parts shared among the pool's threads.
  template <typename Fn>
  void forEachPart(const ThreadPool* pool, Fn&& fn) const {
    auto range = [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) fn(parts[static_cast<std::size_t>(i)]);
    };
    const auto n = static_cast<std::int64_t>(parts.size());
    if (n > 1 && pool && pool->numThreads() > 1) pool->parallelFor(n, 1e9, range);
    else range(0, n);
  }

  // Runs one part; a channel slice into the thread's scratch, then copied
  // into its columns. input: uint8 [b, h, w, c], or (requantizing) the
  // caller's int8 input, whose part is copied into the thread's scratch;
  // output: int32 accumulators, or (requantizing) int8 values whose sums
  // start from `start`.
  void runPart(const Part& part, const void* input, std::int32_t input_zero, void* output,
               const std::int32_t* start) const {
    const std::size_t size = requantizing ? 1 : 4;  // bytes per output value
    char* out = static_cast<char*>(output);
    dnnl::stream& stream = dnnl_common::threadStream();
    dnnl_common::singleThreaded();
    const std::size_t pad_bytes = dnnl_common::roundUp64(part.scratchpad.get_desc().get_size());
    const std::int64_t rows = part.row_end - part.row_begin;
    const std::int64_t width = part.ch_end - part.ch_begin;
    const std::size_t slice_bytes =
        dnnl_common::roundUp64(channel_slices ? static_cast<std::size_t>(rows * width) * size : 0);
    const std::size_t copy_bytes =
        requantizing ? static_cast<std::size_t>(part.images * part.in_rows * s.in_w * s.in_c) : 0;
    char* scratch = dnnl_common::threadScratch(pad_bytes + slice_bytes + copy_bytes);
    memory src = part.src, dst = part.dst, scratchpad = part.scratchpad;
    if (requantizing) {
      auto* copy = reinterpret_cast<std::uint8_t*>(scratch + pad_bytes + slice_bytes);
      copyInput(part, static_cast<const std::int8_t*>(input), static_cast<std::uint8_t>(input_zero), copy);
      src.set_data_handle(copy);
    } else {
      const std::int64_t first = (part.image_begin * s.in_h + part.in_row_begin) * s.in_w * s.in_c;
      src.set_data_handle(const_cast<std::uint8_t*>(static_cast<const std::uint8_t*>(input) + first));
    }
    char* slice = scratch + pad_bytes;
    dst.set_data_handle(channel_slices ? slice : out + static_cast<std::size_t>(part.row_begin * channels) * size);
    scratchpad.set_data_handle(scratch);
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src},
                                            {DNNL_ARG_WEIGHTS, part.weights},
                                            {DNNL_ARG_DST, dst},
                                            {DNNL_ARG_SCRATCHPAD, scratchpad}};
    if (depthwise && !requantizing) {
      // The zero point is read when the part runs, on this thread.
      *static_cast<std::int32_t*>(part.zero.get_data_handle()) = input_zero;
      args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, part.zero);
    }
    if (requantizing) {
      memory bias = part.bias;
      bias.set_data_handle(const_cast<std::int32_t*>(start + part.ch_begin));
      args.emplace(DNNL_ARG_BIAS, bias);
    }
    part.primitive.execute(stream, args);
    stream.wait();
    if (channel_slices)
      for (std::int64_t r = 0; r < rows; ++r)
        std::memcpy(out + static_cast<std::size_t>((part.row_begin + r) * s.out_c + part.ch_begin) * size,
                    slice + static_cast<std::size_t>(r * width) * size, static_cast<std::size_t>(width) * size);
  }
};

DnnlConv2D::DnnlConv2D(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DnnlConv2D::~DnnlConv2D() = default;

std::unique_ptr<DnnlConv2D> DnnlConv2D::create(const ops::ConvGeometry& s, const GemmRhs& rhs, int threads) {
  if (!rhs.s8() || rhs.k() != s.filter_h * s.filter_w * s.in_c || rhs.n() != s.out_c) return nullptr;
  return create(s, rhs.s8(), rhs.zeroPoint() - 128, false, threads);
}

std::unique_ptr<DnnlConv2D> DnnlConv2D::create(const ops::ConvGeometry& s, const std::int8_t* weights,
                                               std::int32_t weight_zero, bool depthwise, int threads) {
  return build(s, weights, weight_zero, depthwise, threads, nullptr);
}

std::unique_ptr<DnnlConv2D> DnnlConv2D::createRequantizing(const ops::ConvGeometry& s, const std::int8_t* weights,
                                                           bool depthwise, const Requantization& q, int threads) {
  const auto scales = static_cast<std::int64_t>(q.scale.size());
  if (s.out_h <= 0 || s.out_w <= 0 || (scales != 1 && scales != s.outputChannels(depthwise))) return nullptr;
  // s on an input holding its padding and no row or column that no window
  // reads: no padding.
  ops::ConvGeometry p = s;
  p.in_h = (s.out_h - 1) * s.stride_h + (s.filter_h - 1) * s.dilation_h + 1;
  p.in_w = (s.out_w - 1) * s.stride_w + (s.filter_w - 1) * s.dilation_w + 1;
  p.pad_top = p.pad_left = 0;
  auto conv = build(p, weights, 0, depthwise, threads, &q);
  if (conv) conv->impl_->source = s;
  return conv;
}

bool DnnlConv2D::startingSums(std::int32_t input_zero, const std::int32_t* bias,
                              std::vector<std::int32_t>* start) const {
  const Impl& im = *impl_;
  start->resize(static_cast<std::size_t>(im.channels));
  constexpr std::int64_t kExact = std::int64_t{1} << 24;  // float's integers are exact up to here
  for (std::size_t c = 0; c < start->size(); ++c) {
    const std::int64_t p = im.positive_sums[c], n = im.negative_sums[c];
    const std::int64_t v = (bias ? bias[c] : 0) - std::int64_t{input_zero} * (p - n);
    // The sum of u8 inputs lies in [-255 n, 255 p]; it, v and their total
    // must all be exact in float.
    if (255 * std::max(p, n) > kExact || std::abs(v) > kExact || v + 255 * p > kExact || v - 255 * n < -kExact)
      return false;
    (*start)[c] = static_cast<std::int32_t>(v);
  }
  return true;
}

std::unique_ptr<DnnlConv2D> DnnlConv2D::build(const ops::ConvGeometry& s, const std::int8_t* weights,
                                              std::int32_t weight_zero, bool depthwise, int threads,
                                              const Requantization* q) {
  if (!weights || s.batch <= 0 || s.out_h <= 0 || s.out_w <= 0 || s.out_c <= 0 || (depthwise && weight_zero != 0))
    return nullptr;
  try {
    dnnl_common::singleThreaded();
    auto impl = std::make_unique<Impl>();
    impl->s = s;
    impl->depthwise = depthwise;
    impl->channels = depthwise ? s.in_c * s.out_c : s.out_c;
    impl->weight_offset = weight_zero;
    if (q) {
      impl->requantizing = true;
      // Weights [k][channels]: HWIO, or depthwise [fh, fw, c, multiplier].
      const std::int64_t channels = impl->channels, k = s.filter_h * s.filter_w * (depthwise ? 1 : s.in_c);
      impl->positive_sums.assign(static_cast<std::size_t>(channels), 0);
      impl->negative_sums.assign(static_cast<std::size_t>(channels), 0);
      for (std::int64_t i = 0; i < k; ++i)
        for (std::int64_t c = 0; c < channels; ++c) {
          const std::int8_t w = weights[i * channels + c];
          (w > 0 ? impl->positive_sums : impl->negative_sums)[static_cast<std::size_t>(c)] += std::abs(w);
        }
    } else if (!depthwise) {
      impl->zero_sums.build(s, weights);
    }
    const std::int64_t m = s.batch * s.out_h * s.out_w;
    const std::int64_t units = s.batch > 1 ? s.batch : s.out_h;
    const std::int64_t count =
        std::max<std::int64_t>(1, std::min(units, ops::convThreadParts(s, depthwise, threads, kOpsPerPart)));
    std::string first_impl;
    const auto slices = ops::convChannelSlices(s, depthwise, count);
    if (!slices.empty()) {
      impl->channel_slices = true;
      for (const auto& [begin, end] : slices) {
        Impl::Part part;
        part.row_begin = 0;
        part.row_end = m;
        part.ch_begin = begin;
        part.ch_end = end;
        ops::ConvGeometry p = s;
        p.out_c = part.ch_end - part.ch_begin;
        part.images = s.batch;
        part.in_rows = s.in_h;
        std::string name;
        if (!Impl::make(p, false, weights + part.ch_begin, s.out_c, nullptr, &part, &name, q)) return nullptr;
        if (first_impl.empty()) first_impl = name;
        impl->parts.push_back(std::move(part));
      }
    } else {
      // Groups of images, or bands of rows of one image: at least one per
      // thread, a multiple of the thread count, each small enough for cache.
      std::int64_t bands = count;
      if (s.batch == 1) {
        const std::int64_t cache_bands = (s.out_h * s.out_w * impl->channels + kBandValues - 1) / kBandValues;
        bands = std::min(units, (std::max(count, cache_bands) + count - 1) / count * count);
      }
      for (std::int64_t i = 0; i < bands; ++i) {
        const std::int64_t u0 = units * i / bands, u1 = units * (i + 1) / bands;
        ops::ConvGeometry p = s;
        Impl::Part part;
        if (s.batch > 1) {
          p.batch = u1 - u0;
          part.row_begin = u0 * s.out_h * s.out_w;
          part.row_end = u1 * s.out_h * s.out_w;
          part.image_begin = u0;
          part.images = u1 - u0;
          part.in_rows = s.in_h;
        } else {
          std::int64_t in0 = 0;
          p = ops::convRowBand(s, u0, u1, &in0);
          part.row_begin = u0 * s.out_w;
          part.row_end = u1 * s.out_w;
          part.images = 1;
          part.in_row_begin = in0;
          part.in_rows = p.in_h;
        }
        std::string name;
        if (!Impl::make(p, depthwise, weights, s.out_c, impl->parts.empty() ? nullptr : &impl->parts.front(), &part,
                        &name, q))
          return nullptr;
        if (first_impl.empty()) first_impl = name;
        impl->parts.push_back(std::move(part));
      }
    }
    impl->implementation = first_impl;
    return std::unique_ptr<DnnlConv2D>(new DnnlConv2D(std::move(impl)));
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

void DnnlConv2D::run(const std::uint8_t* input, std::int32_t input_zero, std::int32_t* output,
                     const ThreadPool* pool, const GemmEpilogue& epilogue) const {
  const Impl& im = *impl_;
  const ops::ConvGeometry& s = im.s;
  const bool zero_share = !im.depthwise && input_zero != 0;
  const std::vector<std::uint32_t> zero_scaled = zero_share ? im.zero_sums.scaled(input_zero) : std::vector<std::uint32_t>();
  auto finish = [&](std::int64_t r0, std::int64_t r1) {
    if (zero_share) im.zero_sums.subtract(s, zero_scaled, r0, r1, output);
    if (im.weight_offset != 0) subtractWindowSums(s, input, input_zero, im.weight_offset, r0, r1, output);
    if (epilogue) epilogue(r0, r1);
  };
  im.forEachPart(pool, [&](const Impl::Part& part) {
    im.runPart(part, input, input_zero, output, nullptr);
    if (!im.channel_slices) finish(part.row_begin, part.row_end);
  });
  if (im.channel_slices) {
    // Every row needs all slices: the epilogue after the last, in blocks.
    const std::int64_t m = s.batch * s.out_h * s.out_w;
    const std::int64_t block = std::max<std::int64_t>(1, kBandValues / std::max<std::int64_t>(1, im.channels));
    const std::int64_t blocks = (m + block - 1) / block;
    auto finishBlocks = [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) finish(i * block, std::min(m, (i + 1) * block));
    };
    if (pool && pool->numThreads() > 1) pool->parallelFor(blocks, static_cast<double>(block * im.channels), finishBlocks);
    else finishBlocks(0, blocks);
  }
}

void DnnlConv2D::runRequantizing(const std::int8_t* input, std::int32_t input_zero,
                                 const std::vector<std::int32_t>& start, std::int8_t* output,
                                 const ThreadPool* pool) const {
  const Impl& im = *impl_;
  im.forEachPart(pool, [&](const Impl::Part& part) { im.runPart(part, input, input_zero, output, start.data()); });
}

const std::string& DnnlConv2D::implementation() const { return impl_->implementation; }
int DnnlConv2D::parts() const { return static_cast<int>(impl_->parts.size()); }

bool dnnlConvCompiled() { return true; }

std::string dnnlIsa() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx2: return "avx2";
    default: return "other";
  }
}

#else  // oneDNN not built in: nothing to create.

struct DnnlConv2D::Impl {
  std::string implementation;
};
DnnlConv2D::DnnlConv2D(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DnnlConv2D::~DnnlConv2D() = default;
std::unique_ptr<DnnlConv2D> DnnlConv2D::create(const ops::ConvGeometry&, const GemmRhs&, int) { return nullptr; }
std::unique_ptr<DnnlConv2D> DnnlConv2D::create(const ops::ConvGeometry&, const std::int8_t*, std::int32_t, bool, int) {
  return nullptr;
}
std::unique_ptr<DnnlConv2D> DnnlConv2D::createRequantizing(const ops::ConvGeometry&, const std::int8_t*, bool,
                                                           const Requantization&, int) {
  return nullptr;
}
bool DnnlConv2D::startingSums(std::int32_t, const std::int32_t*, std::vector<std::int32_t>*) const { return false; }
void DnnlConv2D::runRequantizing(const std::int8_t*, std::int32_t, const std::vector<std::int32_t>&, std::int8_t*,
                                 const ThreadPool*) const {}
void DnnlConv2D::run(const std::uint8_t*, std::int32_t, std::int32_t*, const ThreadPool*,
                     const GemmEpilogue&) const {}
const std::string& DnnlConv2D::implementation() const { return impl_->implementation; }
int DnnlConv2D::parts() const { return 0; }
bool dnnlConvCompiled() { return false; }
std::string dnnlIsa() { return ""; }

#endif

}  // namespace gds::engine::lowp
