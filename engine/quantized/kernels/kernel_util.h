// Helpers shared by the quantized kernel files (engine/quantized/kernels/).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/kernel.h"
#include "engine/kernels/nn_kernel_util.h"
#include "engine/lowp/conv.h"
#include "engine/lowp/gemm.h"
#include "engine/ops/conv.h"
#include "engine/quantized/ops.h"

namespace gds::engine::qkern {

// Kernels with TensorFlow's (tensor, min, max) outputs.
class ThreeOutputKernel : public OpKernel {
 public:
  int numOutputs(const KernelInit&) const override { return 3; }
  std::vector<DataType> outputTypes(const KernelInit&) const override {
    return {out_type_, tensorflow::DT_FLOAT, tensorflow::DT_FLOAT};
  }

 protected:
  DataType out_type_ = tensorflow::DT_QUINT8;
};

// Scalar float range input i ("min_input" ...); errors name the input.
inline Status rangeInput(const KernelContext& ctx, int i, const char* what, float* value) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != tensorflow::DT_FLOAT || t.numElements() != 1)
    return ctx.error(std::string(what) + " (input " + std::to_string(i) + ") must be a float scalar, got " +
                     model::dtypeName(t.dtype()) + model::shapeString(t.shape()));
  *value = t.data<float>()[0];
  return Status::Ok();
}

// Checks input i's dtype; DT_QUINT8 also accepts DT_UINT8 data (same bytes).
inline Status requireType(const KernelContext& ctx, int i, DataType expected, const char* what) {
  DataType got = ctx.input(i).dtype();
  auto base = [](DataType t) {
    switch (t) {
      case tensorflow::DT_UINT8: return tensorflow::DT_QUINT8;
      case tensorflow::DT_INT8: return tensorflow::DT_QINT8;
      case tensorflow::DT_INT32: return tensorflow::DT_QINT32;
      default: return t;
    }
  };
  if (base(got) != base(expected))
    return ctx.error(std::string(what) + " (input " + std::to_string(i) + ") must be " + model::dtypeName(expected) +
                     ", got " + model::dtypeName(got));
  return Status::Ok();
}

inline Status typeAttr(const KernelInit& init, const char* name, DataType fallback, DataType* value) {
  return init.getAttrOr<DataType>(name, value, fallback);
}

inline void setScalar(KernelContext& ctx, int i, float value) {
  Tensor* t = ctx.allocateOutput(i, tensorflow::DT_FLOAT, {});
  t->data<float>()[0] = value;
}

// The GEMM backend a kernel uses: the reference loop when the plan asks for
// reference kernels, otherwise the process default (oneDNN on VNNI CPUs).
inline lowp::GemmBackend backendFor(const KernelInit& init) {
  return init.referenceKernels() ? lowp::GemmBackend::kReference : lowp::defaultGemmBackend();
}

// QuantizeV2's mode, round_mode, narrow_range and ensure_minimum_range attrs
// with TensorFlow's checks and messages (quantize_op.cc).
inline Status readQuantizeV2Options(const KernelInit& init, quantized::QuantizeV2Options* options) {
  std::string mode;
  GDS_RETURN_IF_ERROR(init.getAttrOr<std::string>("mode", &mode, "MIN_COMBINED"));
  if (mode == "MIN_COMBINED") options->mode = quantized::QuantizeMode::kMinCombined;
  else if (mode == "MIN_FIRST") options->mode = quantized::QuantizeMode::kMinFirst;
  else if (mode == "SCALED") options->mode = quantized::QuantizeMode::kScaled;
  else return init.error("Mode string must be 'MIN_COMBINED', 'MIN_FIRST', or 'SCALED', is '" + mode + "'");
  std::string round_mode;
  GDS_RETURN_IF_ERROR(init.getAttrOr<std::string>("round_mode", &round_mode, "HALF_AWAY_FROM_ZERO"));
  if (round_mode == "HALF_AWAY_FROM_ZERO") {
    options->round_mode = quantized::RoundMode::kHalfAwayFromZero;
  } else if (round_mode == "HALF_TO_EVEN") {
    if (mode != "SCALED")
      return init.error("Round mode 'HALF_TO_EVEN' only supported for mode 'SCALED', but mode is '" + mode + "'.");
    options->round_mode = quantized::RoundMode::kHalfToEven;
  } else {
    return init.error("Round mode string must be 'HALF_AWAY_FROM_ZERO' or 'HALF_TO_EVEN', is '" + round_mode + "'");
  }
  GDS_RETURN_IF_ERROR(init.getAttrOr("narrow_range", &options->narrow_range, false));
  return init.getAttrOr("ensure_minimum_range", &options->ensure_minimum_range, 0.01f);
}

// Strides (0 on broadcast dims) of an operand broadcast to out_shape.
inline std::vector<std::int64_t> broadcastStrides(const Shape& in, const Shape& out) {
  std::vector<std::int64_t> strides(out.size(), 0);
  std::int64_t stride = 1;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::size_t d = in.size() - 1 - i;
    const std::size_t o = out.size() - 1 - i;
    strides[o] = in[d] == 1 ? 0 : stride;
    stride *= in[d];
  }
  return strides;
}

// Caches a GemmRhs for a filter buffer and zero point (weights are usually
// Consts: built once, reused by every run).
class RhsCache {
 public:
  const lowp::GemmRhs& get(const std::uint8_t* data, std::int64_t k, std::int64_t n, std::int64_t ldb,
                                bool transposed, std::int32_t zero_point, bool constant) {
    if (!rhs_ || !constant || data != data_ || zero_point != rhs_->zeroPoint() || k != rhs_->k() || n != rhs_->n()) {
      rhs_ = std::make_unique<lowp::GemmRhs>(data, k, n, ldb, transposed, zero_point);
      data_ = data;
    }
    return *rhs_;
  }

 private:
  std::unique_ptr<lowp::GemmRhs> rhs_;
  const std::uint8_t* data_ = nullptr;
};

// The GEMM layer of QuantizedConv2D and QuantizedMatMul (TensorFlow's
// quantized_conv_ops.cc, quantized_matmul_op.cc): attrs, input checks, zero
// points and the int32 product with its range. The plain kernels and the
// fused ones (fused.cc) share it.
class QuantizedGemmLayer {
 public:
  enum Kind { kConv2D, kMatMul };
  // Reads the head op's attrs (Tinput/Tfilter/out_type or T1/T2/Toutput,
  // strides/padding/dilations, transpose_a/b).
  Status init(const KernelInit& init, Kind kind);
  // Checks inputs 0-5 (data, weights and their four range scalars) and
  // works out the output shape and range.
  Status prepare(KernelContext& ctx);
  // The int32 accumulators into out (m x n); `epilogue` runs on each finished
  // block of rows (GemmEpilogue).
  void run(KernelContext& ctx, std::int32_t* out, const lowp::GemmEpilogue& epilogue = nullptr);
  const Shape& outputShape() const { return out_shape_; }
  std::int64_t rows() const { return m_; }      // m: output pixels or rows of a
  std::int64_t columns() const { return n_; }   // n: output channels
  float outputMin() const { return min_out_; }
  float outputMax() const { return max_out_; }
  double flops(const std::vector<Shape>& in, const std::vector<Shape>& out) const;

 private:
  Kind kind_ = kConv2D;
  lowp::GemmBackend backend_ = lowp::GemmBackend::kGemmlowp;
  bool weights_constant_ = false;
  bool transpose_a_ = false, transpose_b_ = false;
  nn::WindowAttrs window_;
  // Set by prepare().
  ops::ConvGeometry conv_;
  const lowp::GemmRhs* rhs_ = nullptr;
  const std::uint8_t* a_data_ = nullptr;
  Shape out_shape_;
  std::int64_t m_ = 0, n_ = 0, k_ = 0;
  std::int32_t a_zero_ = 0;
  float min_out_ = 0, max_out_ = 0;
  RhsCache rhs_cache_;
  std::vector<std::uint8_t> scratch_;  // the transposed a
  lowp::Conv2DState conv_state_;
};

}  // namespace gds::engine::qkern
