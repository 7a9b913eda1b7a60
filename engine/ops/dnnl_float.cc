// oneDNN convolution / inner-product primitives for the float kernels (see
// engine/ops/dnnl_float.h). oneDNN's C++ API reports failures with exceptions;
// they stay in this file: a primitive that cannot be made is a null result
// and the caller keeps its Eigen path.
#include "engine/ops/dnnl_float.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/ops/dnnl_common.h"

namespace gds::engine::dnnl_float {

#ifdef GDS_HAVE_DNNL
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

using dnnl_common::baseAttr;
using dnnl_common::cpuEngine;
using dnnl_common::filterLayout;
using dnnl_common::isReference;
using dnnl_common::padsAfter;
using dnnl_common::roundUp64;
using dnnl_common::singleThreaded;
using dnnl_common::threadScratch;

// Post-ops in TensorFlow's order: (sum with the output's contents,) then the activation.
dnnl::primitive_attr activationAttr(ops::Activation activation, bool sum = false) {
  dnnl::primitive_attr attr = baseAttr();
  if (activation == ops::Activation::kNone && !sum) return attr;
  dnnl::post_ops post;
  if (sum) post.append_sum(1.0f);
  if (activation == ops::Activation::kRelu) post.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  if (activation == ops::Activation::kRelu6) post.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, 0.0f, 6.0f);
  attr.set_post_ops(post);
  return attr;
}

// The bias as a oneDNN memory (zeros when there is none).
memory biasMemory(std::int64_t channels, const float* bias) {
  memory m({{channels}, Dt::f32, Tag::x}, cpuEngine());
  float* dst = static_cast<float*>(m.get_data_handle());
  for (std::int64_t c = 0; c < channels; ++c) dst[c] = bias ? bias[c] : 0.0f;
  return m;
}

// Weights in the primitive's preferred layout, reordered from the user's.
memory reorderWeights(const memory::desc& user_desc, const float* data, const memory::desc& wanted,
                      dnnl::stream& stream) {
  memory user(user_desc, cpuEngine(), const_cast<float*>(data));
  memory out(wanted, cpuEngine());
  dnnl::reorder(user, out).execute(stream, user, out);
  stream.wait();
  return out;
}

// A primitive with its weights and bias. The source and destination
// memories are made once and pointed at each run's buffers (a primitive runs
// on one thread at a time); one stream per thread, as several primitives run
// at once on the pool.
struct Prepared {
  dnnl::primitive primitive;
  memory src, dst, weights, bias;
  memory scratchpad;  // its bytes: the running thread's scratch
  std::string implementation;
  // A primitive in oneDNN's own layout (Winograd): the NHWC input is
  // reordered into `inner_src` and `inner_dst` back into the NHWC output,
  // both in the thread's scratch after the scratchpad.
  bool reordered = false;
  memory inner_src, inner_dst;
  dnnl::reorder to_inner, from_inner;

  void setScratchpad(const memory::desc& desc) { scratchpad = memory(desc, cpuEngine(), nullptr); }

  void run(const float* in, float* out) {
    dnnl::stream& stream = dnnl_common::threadStream();
    singleThreaded();
    src.set_data_handle(const_cast<float*>(in));
    dst.set_data_handle(out);
    const std::size_t pad_bytes = roundUp64(scratchpad.get_desc().get_size());
    std::size_t bytes = pad_bytes;
    if (reordered) bytes += roundUp64(inner_src.get_desc().get_size()) + inner_dst.get_desc().get_size();
    char* base = threadScratch(bytes);
    scratchpad.set_data_handle(base);
    if (!reordered) {
      primitive.execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_BIAS, bias},
                                 {DNNL_ARG_DST, dst}, {DNNL_ARG_SCRATCHPAD, scratchpad}});
      stream.wait();
      return;
    }
    inner_src.set_data_handle(base + pad_bytes);
    inner_dst.set_data_handle(base + pad_bytes + roundUp64(inner_src.get_desc().get_size()));
    to_inner.execute(stream, src, inner_src);
    primitive.execute(stream, {{DNNL_ARG_SRC, inner_src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_BIAS, bias},
                               {DNNL_ARG_DST, inner_dst}, {DNNL_ARG_SCRATCHPAD, scratchpad}});
    from_inner.execute(stream, inner_dst, dst);
    stream.wait();
  }
};

}  // namespace

struct Convolution::Impl : Prepared {};

std::unique_ptr<Convolution> Convolution::createWinograd(const ops::ConvGeometry& s, const float* filter,
                                                         const float* bias, ops::Activation activation,
                                                         const Options& options) {
  const Convolution* share = options.share;
  try {
    singleThreaded();
    std::int64_t pad_bottom, pad_right;
    padsAfter(s, &pad_bottom, &pad_right);
    const memory::dims src_dims = {s.batch, s.in_c, s.in_h, s.in_w};
    const memory::dims dst_dims = {s.batch, s.out_c, s.out_h, s.out_w};
    memory::desc any_src(src_dims, Dt::f32, Tag::any), any_dst(dst_dims, Dt::f32, Tag::any);
    memory::desc any_w({s.out_c, s.in_c, s.filter_h, s.filter_w}, Dt::f32, Tag::any), bias_md({s.out_c}, Dt::f32, Tag::x);
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_winograd,
                                         any_src, any_w, bias_md, any_dst, {1, 1}, {0, 0}, {s.pad_top, s.pad_left},
                                         {pad_bottom, pad_right});
    // oneDNN has two Winograd kernels: F(2x2, 3x3) and F(4x4, 3x3). Per
    // layer alone, one thread, AVX-512 (Zen 5): 56x56x64 0.65 ms (2x3)
    // against 0.55 (4x3), 14x14x256 0.53 against 0.58, direct 1.10 and 0.98;
    // 28x28x128 and bands of rows with padding on one side only have
    // F(4x4, 3x3) alone (0.48 ms, direct 1.02). So F(4x4, 3x3) from 28x28
    // outputs up, F(2x2, 3x3) below, each where the other is missing. Both
    // stay within the direct convolution's rounding: largest error 2e-6 of
    // the largest output on uniform data, the direct one's 1-2e-6.
    const bool large = s.out_h * s.out_w >= 28 * 28;
    const char* const preferred[] = {large ? "wino_4x3" : "wino_2x3", large ? "wino_2x3" : "wino_4x3"};
    dnnl::convolution_forward::primitive_desc pd;
    bool found = false;
    for (const char* name : preferred) {
      pd = dnnl::convolution_forward::primitive_desc(desc, activationAttr(activation), cpuEngine());
      do found = std::string(pd.impl_info_str()).find(name) != std::string::npos;
      while (!found && pd.next_impl());
      if (found) break;
    }
    if (!found) return nullptr;
    auto impl = std::make_unique<Impl>();
    impl->implementation = pd.impl_info_str();
    impl->primitive = dnnl::convolution_forward(pd);
    impl->setScratchpad(pd.scratchpad_desc());
    if (share && share->impl_->weights.get_desc() == pd.weights_desc()) {
      impl->weights = share->impl_->weights;
      impl->bias = share->impl_->bias;
    } else {
      // Winograd's weight layout has no reorder from strided HWIO: go
      // through a plain OIHW copy.
      dnnl::stream stream(cpuEngine());
      memory plain({{s.out_c, s.in_c, s.filter_h, s.filter_w}, Dt::f32, Tag::oihw}, cpuEngine());
      memory::dims w_dims, w_strides;
      filterLayout(s, false, options.filter_ld > 0 ? options.filter_ld : s.out_c, &w_dims, &w_strides);
      memory user(memory::desc(w_dims, Dt::f32, w_strides), cpuEngine(), const_cast<float*>(filter));
      dnnl::reorder(user, plain).execute(stream, user, plain);
      impl->weights = memory(pd.weights_desc(), cpuEngine());
      dnnl::reorder(plain, impl->weights).execute(stream, plain, impl->weights);
      stream.wait();
      impl->bias = biasMemory(s.out_c, bias);
    }
    impl->src = memory(memory::desc(src_dims, Dt::f32, Tag::nhwc), cpuEngine(), nullptr);
    impl->dst = memory(memory::desc(dst_dims, Dt::f32, Tag::nhwc), cpuEngine(), nullptr);
    impl->reordered = true;
    impl->inner_src = memory(pd.src_desc(), cpuEngine(), nullptr);
    impl->inner_dst = memory(pd.dst_desc(), cpuEngine(), nullptr);
    // Reorders made to need no scratchpad, so they too can run at once on
    // several threads.
    const dnnl::reorder::primitive_desc in_pd(cpuEngine(), impl->src.get_desc(), cpuEngine(), pd.src_desc(),
                                              baseAttr());
    const dnnl::reorder::primitive_desc out_pd(cpuEngine(), pd.dst_desc(), cpuEngine(), impl->dst.get_desc(),
                                               baseAttr());
    if (in_pd.scratchpad_desc().get_size() != 0 || out_pd.scratchpad_desc().get_size() != 0) return nullptr;
    impl->to_inner = dnnl::reorder(in_pd);
    impl->from_inner = dnnl::reorder(out_pd);
    return std::unique_ptr<Convolution>(new Convolution(std::move(impl)));
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

Convolution::Convolution(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Convolution::~Convolution() = default;

namespace {
// The convolutions oneDNN's Winograd kernels take.
bool winogradShape(const ops::ConvGeometry& s, bool depthwise) {
  return !depthwise && s.filter_h == 3 && s.filter_w == 3 && s.stride_h == 1 && s.stride_w == 1 &&
         s.dilation_h == 1 && s.dilation_w == 1;
}
}  // namespace

bool Convolution::winogradPays(const ops::ConvGeometry& s, bool depthwise) {
  return winogradShape(s, depthwise) && s.in_c >= 64 && s.out_c >= 64 && s.out_h * s.out_w >= 196;
}

bool Convolution::winogradAvailable() {
  static const bool available = [] {
    ops::ConvGeometry s;  // ResNet-50's conv2 3x3 layer
    s.in_h = s.in_w = s.out_h = s.out_w = 56;
    s.in_c = s.out_c = 64;
    s.filter_h = s.filter_w = 3;
    s.pad_top = s.pad_left = 1;
    const std::vector<float> filter(static_cast<std::size_t>(9 * s.in_c * s.out_c), 0.0f);
    return createWinograd(s, filter.data(), nullptr, ops::Activation::kNone, Options()) != nullptr;
  }();
  return available;
}

std::unique_ptr<Convolution> Convolution::create(const ops::ConvGeometry& s, bool depthwise, const float* filter,
                                                 const float* bias, ops::Activation activation,
                                                 const Options& options) {
  const bool add_to_output = options.add_to_output;
  const Convolution* share = options.share;
  if (options.winograd && !add_to_output && winogradShape(s, depthwise)) {
    if (auto w = createWinograd(s, filter, bias, activation, options)) return w;
  }
  try {
    singleThreaded();
    const std::int64_t out_c = depthwise ? s.in_c * s.out_c : s.out_c;
    const memory::dims src_dims = {s.batch, s.in_c, s.in_h, s.in_w};
    const memory::dims dst_dims = {s.batch, out_c, s.out_h, s.out_w};
    // TensorFlow's filter layouts described by strides: HWIO, or [kh, kw, C, M]
    // as groups C of M outputs and 1 input each.
    memory::dims w_dims, w_strides;
    filterLayout(s, depthwise, options.filter_ld > 0 ? options.filter_ld : s.out_c, &w_dims, &w_strides);
    std::int64_t pad_bottom, pad_right;
    padsAfter(s, &pad_bottom, &pad_right);
    memory::desc src_md(src_dims, Dt::f32, Tag::nhwc), dst_md(dst_dims, Dt::f32, Tag::nhwc);
    memory::desc any_w(w_dims, Dt::f32, Tag::any), bias_md({out_c}, Dt::f32, Tag::x);
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                         src_md, any_w, bias_md, dst_md, {s.stride_h, s.stride_w},
                                         {s.dilation_h - 1, s.dilation_w - 1}, {s.pad_top, s.pad_left},
                                         {pad_bottom, pad_right});
    dnnl::convolution_forward::primitive_desc pd(desc, activationAttr(activation, add_to_output), cpuEngine());
    auto impl = std::make_unique<Impl>();
    impl->implementation = pd.impl_info_str();
    if (isReference(impl->implementation)) return nullptr;
    impl->primitive = dnnl::convolution_forward(pd);
    impl->setScratchpad(pd.scratchpad_desc());
    if (share && share->impl_->weights.get_desc() == pd.weights_desc()) {
      impl->weights = share->impl_->weights;  // the same buffer (oneDNN memories are shared handles)
      impl->bias = share->impl_->bias;
    } else {
      dnnl::stream stream(cpuEngine());
      impl->weights = reorderWeights(memory::desc(w_dims, Dt::f32, w_strides), filter, pd.weights_desc(), stream);
      impl->bias = biasMemory(out_c, bias);
    }
    impl->src = memory(src_md, cpuEngine(), nullptr);
    impl->dst = memory(dst_md, cpuEngine(), nullptr);
    return std::unique_ptr<Convolution>(new Convolution(std::move(impl)));
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

void Convolution::run(const float* input, float* output) const { impl_->run(input, output); }

const std::string& Convolution::implementation() const { return impl_->implementation; }

struct InnerProduct::Impl : Prepared {};

InnerProduct::InnerProduct(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
InnerProduct::~InnerProduct() = default;

std::unique_ptr<InnerProduct> InnerProduct::create(std::int64_t m, std::int64_t n, std::int64_t k, const float* b,
                                                   std::int64_t ldb, bool transpose_b, const float* bias,
                                                   ops::Activation activation, std::int64_t ldc) {
  try {
    singleThreaded();
    memory::desc src_md({m, k}, Dt::f32, Tag::nc), dst_md({m, n}, Dt::f32, memory::dims{ldc, 1});
    memory::desc any_w({n, k}, Dt::f32, Tag::any), bias_md({n}, Dt::f32, Tag::x);
    dnnl::inner_product_forward::desc desc(dnnl::prop_kind::forward_inference, src_md, any_w, bias_md, dst_md);
    dnnl::inner_product_forward::primitive_desc pd(desc, activationAttr(activation), cpuEngine());
    auto impl = std::make_unique<Impl>();
    impl->implementation = pd.impl_info_str();
    if (isReference(impl->implementation)) return nullptr;
    impl->primitive = dnnl::inner_product_forward(pd);
    impl->setScratchpad(pd.scratchpad_desc());
    // b is [k, ldb] ("io": output channel stride 1) or [n, ldb = k] when transposed.
    const memory::dims w_strides = transpose_b ? memory::dims{ldb, 1} : memory::dims{1, ldb};
    dnnl::stream stream(cpuEngine());
    impl->weights = reorderWeights(memory::desc({n, k}, Dt::f32, w_strides), b, pd.weights_desc(), stream);
    impl->bias = biasMemory(n, bias);
    impl->src = memory(src_md, cpuEngine(), nullptr);
    impl->dst = memory(dst_md, cpuEngine(), nullptr);
    return std::unique_ptr<InnerProduct>(new InnerProduct(std::move(impl)));
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

void InnerProduct::run(const float* a, float* out) const { impl_->run(a, out); }

const std::string& InnerProduct::implementation() const { return impl_->implementation; }

bool available() { return true; }

#else  // oneDNN not built in: nothing to create.

struct Convolution::Impl {
  std::string implementation;
};
Convolution::Convolution(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Convolution::~Convolution() = default;
std::unique_ptr<Convolution> Convolution::create(const ops::ConvGeometry&, bool, const float*, const float*,
                                                 ops::Activation, const Options&) {
  return nullptr;
}
std::unique_ptr<Convolution> Convolution::createWinograd(const ops::ConvGeometry&, const float*, const float*,
                                                         ops::Activation, const Options&) {
  return nullptr;
}
bool Convolution::winogradPays(const ops::ConvGeometry&, bool) { return false; }
bool Convolution::winogradAvailable() { return false; }
void Convolution::run(const float*, float*) const {}
const std::string& Convolution::implementation() const { return impl_->implementation; }

struct InnerProduct::Impl {
  std::string implementation;
};
InnerProduct::InnerProduct(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
InnerProduct::~InnerProduct() = default;
std::unique_ptr<InnerProduct> InnerProduct::create(std::int64_t, std::int64_t, std::int64_t, const float*,
                                                   std::int64_t, bool, const float*, ops::Activation, std::int64_t) {
  return nullptr;
}
void InnerProduct::run(const float*, float*) const {}
const std::string& InnerProduct::implementation() const { return impl_->implementation; }

bool available() { return false; }

#endif

}  // namespace gds::engine::dnnl_float
