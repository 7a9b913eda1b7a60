// The 8-bit convolution (conv.h): oneDNN's int8 convolution for constant
// weights on the dnnl backend, else im2col + the 8-bit GEMM.
#include "engine/lowp/conv.h"

#include <utility>

#include "engine/lowp/conv_dnnl.h"
#include "engine/lowp/im2col.h"
#include "engine/thread_pool.h"

namespace gds::engine::lowp {

Conv2DState::Conv2DState() = default;
Conv2DState::~Conv2DState() = default;

const DnnlConv2D* Conv2DState::dnnlFor(std::vector<std::int64_t> key,
                                       const std::function<std::unique_ptr<DnnlConv2D>()>& make) {
  if (key != key_) {
    dnnl_ = make();
    key_ = std::move(key);
  }
  return dnnl_.get();
}

void conv2D(GemmBackend backend, const ops::ConvGeometry& s, const std::uint8_t* input, std::int32_t input_zero,
            const GemmRhs& rhs, std::int32_t* output, const ThreadPool* pool, Conv2DState* state,
            const GemmEpilogue& epilogue) {
  const std::int64_t m = s.batch * s.out_h * s.out_w;
  const std::int64_t k = s.filter_h * s.filter_w * s.in_c;
  if (m == 0 || s.out_c == 0) return;
  if (input_zero < 0 || input_zero > 255 || backend == GemmBackend::kReference) {
    conv2DReference(s, input, input_zero, rhs.u8(), rhs.zeroPoint(), output);
    if (epilogue) epilogue(0, m);
    return;
  }
  if (backend == GemmBackend::kDnnl && state->weights_constant && dnnlConvCompiled()) {
    const int threads = pool ? pool->numThreads() : 1;
    const DnnlConv2D* dnnl = state->dnnlFor(
        {s.batch, s.in_h, s.in_w, s.in_c, s.out_h, s.out_w, s.out_c, s.filter_h, s.filter_w, s.stride_h, s.stride_w,
         s.pad_top, s.pad_left, s.dilation_h, s.dilation_w, threads, rhs.zeroPoint(),
         reinterpret_cast<std::int64_t>(rhs.u8())},
        [&] { return DnnlConv2D::create(s, rhs, threads); });
    if (dnnl) {
      dnnl->run(input, input_zero, output, pool, epilogue);
      return;
    }
  }
  std::vector<std::uint8_t>* scratch = &state->patches;
  const bool pointwise = s.filter_h == 1 && s.filter_w == 1 && s.stride_h == 1 && s.stride_w == 1 &&
                         s.pad_top == 0 && s.pad_left == 0 && s.out_h == s.in_h && s.out_w == s.in_w;
  const std::uint8_t* a = input;
  if (!pointwise) {
    scratch->resize(static_cast<std::size_t>(m * k));
    std::uint8_t* patches = scratch->data();
    const std::uint8_t pad = static_cast<std::uint8_t>(input_zero);
    if (pool && pool->numThreads() > 1) {
      pool->parallelFor(m, static_cast<double>(k), [&](std::int64_t r0, std::int64_t r1) {
        im2colRows(s, input, pad, r0, r1, patches + r0 * k);
      });
    } else {
      im2colRows(s, input, pad, 0, m, patches);
    }
    a = patches;
  }
  gemm(backend, GemmLhs{a, m, k, k, input_zero}, rhs, output, s.out_c, pool, epilogue);
}

}  // namespace gds::engine::lowp
