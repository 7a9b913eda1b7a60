// DecodeJpeg, DecodePng and DecodeImage kernels (uint8 output, HWC).
#include <cstring>

#include "engine/kernels/nn_kernel_util.h"
#include "engine/ops/image_decode.h"

namespace gds::engine {

namespace {

enum class Format { kJpeg, kPng, kAny };

class DecodeImageKernel : public OpKernel {
 public:
  explicit DecodeImageKernel(Format format) : format_(format) {}
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {tensorflow::DT_UINT8}; }
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("channels", &channels_, 0));
    DataType dtype = tensorflow::DT_UINT8;
    GDS_RETURN_IF_ERROR(init.getAttrOr("dtype", &dtype, tensorflow::DT_UINT8));
    if (dtype != tensorflow::DT_UINT8)
      return init.error("dtype " + model::dtypeName(dtype) + " is not supported (uint8 only)");
    std::int64_t ratio = 1;
    GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("ratio", &ratio, 1));
    if (ratio != 1) return init.error("ratio " + std::to_string(ratio) + " is not supported (1 only)");
    if (format_ == Format::kJpeg) {
      // TensorFlow's DecodeJpeg: "" and INTEGER_FAST are JDCT_IFAST.
      std::string dct;
      GDS_RETURN_IF_ERROR(init.getAttrOr<std::string>("dct_method", &dct, ""));
      if (!dct.empty() && dct != "INTEGER_FAST" && dct != "INTEGER_ACCURATE")
        return init.error("dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}, got '" + dct + "'");
      dct_ = dct == "INTEGER_ACCURATE" ? ops::JpegDct::kIntegerAccurate : ops::JpegDct::kIntegerFast;
    }
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& contents = ctx.input(0);
    if (contents.dtype() != tensorflow::DT_STRING || contents.numElements() != 1)
      return ctx.error("contents must be a string scalar holding the encoded image");
    const std::string& bytes = contents.strings()[0];
    ops::DecodedImage image;
    const int channels = static_cast<int>(channels_);
    std::string problem;
    switch (format_) {
      case Format::kJpeg: problem = ops::decodeJpeg(bytes, channels, &image, dct_); break;
      case Format::kPng: problem = ops::decodePng(bytes, channels, &image); break;
      case Format::kAny: problem = ops::decodeImage(bytes, channels, &image); break;
    }
    if (!problem.empty()) return ctx.error(problem);
    Tensor* out = ctx.allocateOutput(0, tensorflow::DT_UINT8, {image.height, image.width, image.channels});
    if (!image.pixels.empty()) std::memcpy(out->raw(), image.pixels.data(), image.pixels.size());
    return Status::Ok();
  }

 private:
  Format format_;
  std::int64_t channels_ = 0;
  ops::JpegDct dct_ = ops::JpegDct::kIntegerFast;
};

}  // namespace

void registerImageDecodeKernels(KernelRegistry& registry) {
  registry.add("DecodeJpeg", [] { return std::unique_ptr<OpKernel>(new DecodeImageKernel(Format::kJpeg)); });
  registry.add("DecodePng", [] { return std::unique_ptr<OpKernel>(new DecodeImageKernel(Format::kPng)); });
}

}  // namespace gds::engine
