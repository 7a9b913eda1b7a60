// Dequantize (quint8/qint8/quint16/qint16/qint32 -> float): MIN_COMBINED,
// MIN_FIRST and SCALED with narrow_range and axis, TF's dequantize_op.cc.
#include "engine/kernels/nn_kernel_util.h"
#include "engine/quantized/dequantize.h"

namespace gds::engine {

namespace {

class DequantizeKernel : public OpKernel {
 public:
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {tensorflow::DT_FLOAT}; }
  Status init(const KernelInit& init) override {
    std::string mode;
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::string>("mode", &mode, "MIN_COMBINED"));
    if (mode == "MIN_COMBINED") mode_ = quantized::QuantizeMode::kMinCombined;
    else if (mode == "MIN_FIRST") mode_ = quantized::QuantizeMode::kMinFirst;
    else if (mode == "SCALED") mode_ = quantized::QuantizeMode::kScaled;
    else return init.error("mode '" + mode + "' is not supported (expected MIN_COMBINED, MIN_FIRST or SCALED)");
    GDS_RETURN_IF_ERROR(init.getAttrOr("narrow_range", &narrow_range_, false));
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("axis", &axis_, -1));
    DataType out = tensorflow::DT_FLOAT;
    GDS_RETURN_IF_ERROR(init.getAttrOr("dtype", &out, tensorflow::DT_FLOAT));
    if (out != tensorflow::DT_FLOAT) return init.error("output dtype " + model::dtypeName(out) + " is not supported (float only)");
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    quantized::QuantizedType type;
    switch (x.dtype()) {
      case tensorflow::DT_QUINT8: case tensorflow::DT_UINT8: type = quantized::QuantizedType::kQUInt8; break;
      case tensorflow::DT_QINT8: case tensorflow::DT_INT8: type = quantized::QuantizedType::kQInt8; break;
      case tensorflow::DT_QUINT16: case tensorflow::DT_UINT16: type = quantized::QuantizedType::kQUInt16; break;
      case tensorflow::DT_QINT16: case tensorflow::DT_INT16: type = quantized::QuantizedType::kQInt16; break;
      case tensorflow::DT_QINT32: case tensorflow::DT_INT32: type = quantized::QuantizedType::kQInt32; break;
      default: return ctx.error("input type " + model::dtypeName(x.dtype()) + " is not a quantized type");
    }
    if (axis_ >= x.dims()) return ctx.error("axis " + std::to_string(axis_) + " is out of range for input " + model::shapeString(x.shape()));
    std::int64_t pre = 1, slices = 1, post = x.numElements();
    if (axis_ >= 0) {
      slices = x.dim(static_cast<int>(axis_));
      pre = 1;
      for (int i = 0; i < axis_; ++i) pre *= x.dim(i);
      post = 1;
      for (int i = static_cast<int>(axis_) + 1; i < x.dims(); ++i) post *= x.dim(i);
      if (mode_ == quantized::QuantizeMode::kMinFirst && slices != 1)
        return ctx.error("MIN_FIRST mode is not implemented for Dequantize with axis != -1 (as in TensorFlow)");
    }
    const Tensor& lo = ctx.input(1);
    const Tensor& hi = ctx.input(2);
    if (lo.dtype() != tensorflow::DT_FLOAT || hi.dtype() != tensorflow::DT_FLOAT || lo.numElements() != slices ||
        hi.numElements() != slices)
      return ctx.error("min_range and max_range must be float with " + std::to_string(slices) + " element(s)");
    Tensor* out = ctx.allocateOutput(0, tensorflow::DT_FLOAT, x.shape());
    quantized::dequantize(x.raw(), type, pre, slices, post, mode_, lo.data<float>(), hi.data<float>(), narrow_range_,
                    out->data<float>());
    return Status::Ok();
  }

 private:
  quantized::QuantizeMode mode_ = quantized::QuantizeMode::kMinCombined;
  bool narrow_range_ = false;
  std::int64_t axis_ = -1;
};

}  // namespace

void registerDequantizeKernels(KernelRegistry& registry) {
  registry.add("Dequantize", [] { return std::unique_ptr<OpKernel>(new DequantizeKernel()); });
}

}  // namespace gds::engine
