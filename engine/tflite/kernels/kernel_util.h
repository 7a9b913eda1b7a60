// The base class and helpers shared by the TFLite dialect's kernel files
// (register.cc registers them; conv.cc, elementwise.cc,
// pooling.cc and array.cc hold the kernels by op family):
// dtype, fused activation and per-tensor quantization read from the dialect.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/kernel.h"
#include "engine/lowp/armnn.h"
#include "engine/lowp/requantize.h"
#include "engine/tflite/float32.h"
#include "engine/tflite/int16.h"
#include "engine/tflite/int8.h"
#include "model/tflite/dialect.h"

namespace gds::engine::tflkern {

namespace mt = model::tflite;
using tensorflow::DT_FLOAT;
using tensorflow::DT_HALF;
using tensorflow::DT_INT32;
using tensorflow::DT_INT64;
using tensorflow::DT_INT8;
using tensorflow::DT_INT16;


inline std::string shapeStr(const Shape& s) { return model::shapeString(s); }

// Per-tensor quantization of a tensor: one scale and zero point.
struct QParams {
  float scale = 0;
  std::int32_t zero_point = 0;
};

// What every tfl.* kernel shares: output dtypes from the dialect's
// _output_types, input quantization from the producers' attrs, the fused
// activation.
class TflKernel : public OpKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit& init) const override {
    std::vector<DataType> types;
    if (init.getAttr(mt::kOutputTypesAttr, &types).ok() && !types.empty()) return types;
    return {init.inputType(0)};
  }

 protected:
  // Whether data input i is absent (reads tfl.no_value) or missing.
  static bool absent(const KernelInit& init, int i) {
    if (i >= init.numInputs()) return true;
    int port = 0;
    const tensorflow::NodeDef* p = init.inputProducer(i, &port);
    return p && p->op() == mt::kNoValueOp;
  }
  static mt::Quantization inputQuantization(const KernelInit& init, int i) {
    int port = 0;
    const tensorflow::NodeDef* p = init.inputProducer(i, &port);
    return p ? mt::quantizationOf(*p, port) : mt::Quantization{};
  }
  // One scale and zero point of input i (or the output when i < 0), an
  // int8 tensor or (type DT_INT16) a 16x8 one, whose zero point is 0;
  // errors name the tensor.
  static Status perTensor(const KernelInit& init, int i, QParams* q, DataType type = DT_INT8) {
    const mt::Quantization m = i < 0 ? mt::quantizationOf(init.node(), 0) : inputQuantization(init, i);
    const std::string what = i < 0 ? std::string("the output") : "input " + std::to_string(i);
    const std::string name = model::dtypeName(type);
    if (m.scale.size() != 1 || (m.zero_point.size() != 1 && !m.zero_point.empty()))
      return init.error(what + " is " + name + " but has no per-tensor quantization (scale and zero point), got " +
                        m.str());
    if (!(m.scale[0] > 0) || !std::isfinite(m.scale[0]))
      return init.error(what + " has quantization scale " + std::to_string(m.scale[0]) + "; expected a positive number");
    q->scale = m.scale[0];
    q->zero_point = m.zero_point.empty() ? 0 : static_cast<std::int32_t>(m.zero_point[0]);
    if (type == DT_INT16 && q->zero_point != 0)
      return init.error(what + " is int16 with zero point " + std::to_string(q->zero_point) +
                        "; TensorFlow Lite's 16x8 kernels need 0");
    if (q->zero_point < -128 || q->zero_point > 127)
      return init.error(what + " has zero point " + std::to_string(q->zero_point) + "; int8 needs one in [-128, 127]");
    return Status::Ok();
  }
  // The dtype the kernel computes in: float32 or int8 (input 0's); and
  // whose int8 arithmetic (PlanOptions::arithmetic).
  // int16 (16x8) where the op has TensorFlow Lite's int16 kernel
  // (allow_int16).
  Status readType(const KernelInit& init, bool allow_int16 = false) {
    arith_ = init.arithmetic();
    type_ = init.inputType(0);
    if (type_ == DT_INT16 && allow_int16) {
      if (armnn())
        return init.error("16x8 (int16 activations) is outside the Arm NN arithmetic (Arm NN 20.08's TfLite parser "
                          "reads no int64 bias); run it with --arithmetic=tflite-builtin");
      return Status::Ok();
    }
    if (type_ != DT_FLOAT && type_ != DT_INT8)
      return init.error("input 0 is " + model::dtypeName(type_) + "; this op runs on float32 and int8" +
                        (type_ == DT_INT16 ? " (TensorFlow Lite has no 16x8 kernel for it)" : ""));
    return Status::Ok();
  }
  // The fused activation's int16 bounds (CalculateActivationRangeQuantized).
  Status int16ActivationRange(const KernelInit& init, const QParams& out) {
    if (!tflite::activationRange(activation_.c_str(), out.scale, out.zero_point, &qmin_, &qmax_, -32768, 32767))
      return init.error("fused_activation_function " + activation_ + " is not supported for int16");
    return Status::Ok();
  }
  Status readActivation(const KernelInit& init) {
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::string>("fused_activation_function", &activation_, "NONE"));
    float lo, hi;
    if (!tflite::activationRange(activation_.c_str(), &lo, &hi))
      return init.error("fused_activation_function " + activation_ +
                        " is not supported (NONE, RELU, RELU6 and RELU_N1_TO_1 are)");
    fmin_ = lo;
    fmax_ = hi;
    return Status::Ok();
  }
  // The fused activation's int8 bounds: TFLite's CalculateActivationRangeQuantized,
  // or with `xnnpack` (an operator the XNNPACK delegate runs) its
  // xnn_qs8_quantize of the float bounds.
  Status int8ActivationRange(const KernelInit& init, const QParams& out, bool xnnpack = false) {
    if (!tflite::activationRange(activation_.c_str(), out.scale, out.zero_point, &qmin_, &qmax_))
      return init.error("fused_activation_function " + activation_ + " is not supported for int8");
    if (xnnpack) lowp::xnnActivationRange(fmin_, fmax_, out.scale, out.zero_point, &qmin_, &qmax_);
    return Status::Ok();
  }
  // Arm NN's activation layer for the fused activation (its TfLite parser
  // adds one after the operator; RELU_N1_TO_1 it refuses).
  Status armnnActivation(const KernelInit& init, lowp::armnn::Activation* a) const {
    if (activation_ == "NONE") *a = lowp::armnn::Activation::kNone;
    else if (activation_ == "RELU") *a = lowp::armnn::Activation::kRelu;
    else if (activation_ == "RELU6") *a = lowp::armnn::Activation::kRelu6;
    else
      return init.error("Arm NN 20.08's TfLite parser does not support the fused activation " + activation_ +
                        " (--arithmetic=armnn)");
    return Status::Ok();
  }
  bool armnn() const { return arith_ == lowp::Arithmetic::kArmnn; }
  bool xnnpack() const { return arith_ == lowp::Arithmetic::kTfliteXnnpack; }
  bool builtin() const { return arith_ == lowp::Arithmetic::kTfliteBuiltin; }
  bool reference() const { return arith_ == lowp::Arithmetic::kTfliteReference; }
  Status requireType(const KernelContext& ctx, int i, DataType t) const {
    if (ctx.input(i).dtype() != t)
      return ctx.error("input " + std::to_string(i) + " is " + model::dtypeName(ctx.input(i).dtype()) + ", expected " +
                       model::dtypeName(t));
    return Status::Ok();
  }

  DataType type_ = DT_FLOAT;
  lowp::Arithmetic arith_ = lowp::kDefaultArithmetic;
  std::string activation_ = "NONE";
  float fmin_ = 0, fmax_ = 0;
  std::int32_t qmin_ = -128, qmax_ = 127;
};

// TFLite's output size and leading padding (ComputePaddingHeightWidth).
inline bool windowDim(const std::string& padding, std::int64_t in, std::int64_t k, std::int64_t stride, std::int64_t dil,
               std::int64_t* out, std::int64_t* pad) {
  if (in < 0 || k < 1 || stride < 1 || dil < 1) return false;
  const std::int64_t effective = (k - 1) * dil + 1;
  if (padding == "SAME") *out = (in + stride - 1) / stride;
  else *out = in >= effective ? (in - effective + stride) / stride : 0;
  if (*out < 1 && in > 0) return false;
  const std::int64_t total = (*out - 1) * stride + effective - in;
  *pad = padding == "SAME" && total > 0 ? total / 2 : 0;
  return true;
}

// Integer values of a tensor (int32 or int64).
inline bool intValues(const Tensor& t, std::vector<std::int64_t>* out) {
  out->clear();
  if (t.dtype() == DT_INT32)
    for (std::int64_t i = 0; i < t.numElements(); ++i) out->push_back(t.data<std::int32_t>()[i]);
  else if (t.dtype() == DT_INT64)
    for (std::int64_t i = 0; i < t.numElements(); ++i) out->push_back(t.data<std::int64_t>()[i]);
  else
    return false;
  return true;
}

template <typename K, typename... Args>
KernelFactory make(Args... args) {
  return [=] { return std::unique_ptr<OpKernel>(new K(args...)); };
}

// One register function per kernel file.
void registerConvKernels(KernelRegistry& registry);         // conv.cc
void registerElementwiseKernels(KernelRegistry& registry);  // elementwise.cc
void registerPoolingKernels(KernelRegistry& registry);      // pooling.cc
void registerArrayKernels(KernelRegistry& registry);        // array.cc
void registerSequenceKernels(KernelRegistry& registry);     // sequence.cc

}  // namespace gds::engine::tflkern
