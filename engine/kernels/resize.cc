// ResizeBilinear, ResizeNearestNeighbor, SpaceToBatchND and BatchToSpaceND.
#include <cstring>

#include "engine/kernels/nn_kernel_util.h"
#include "engine/ops/nn.h"

namespace gds::engine {

namespace {

// Input converted to float (ResizeBilinear accepts any real type and always
// outputs float).
bool toFloat(const Tensor& t, std::vector<float>* out) {
  const std::int64_t n = t.numElements();
  out->resize(static_cast<size_t>(n));
  auto convert = [&](auto* p) {
    for (std::int64_t i = 0; i < n; ++i) (*out)[static_cast<size_t>(i)] = static_cast<float>(p[i]);
  };
  switch (t.dtype()) {
    case tensorflow::DT_UINT8: convert(t.data<std::uint8_t>()); break;
    case tensorflow::DT_INT8: convert(t.data<std::int8_t>()); break;
    case tensorflow::DT_UINT16: convert(t.data<std::uint16_t>()); break;
    case tensorflow::DT_INT16: convert(t.data<std::int16_t>()); break;
    case tensorflow::DT_INT32: convert(t.data<std::int32_t>()); break;
    case tensorflow::DT_INT64: convert(t.data<std::int64_t>()); break;
    case tensorflow::DT_DOUBLE: convert(t.data<double>()); break;
    default: return false;
  }
  return true;
}

enum class ResizeMethod { kBilinear, kNearestNeighbor };

class ResizeKernel : public OpKernel {
 public:
  explicit ResizeKernel(ResizeMethod method) : bilinear_(method == ResizeMethod::kBilinear) {}
  std::vector<DataType> outputTypes(const KernelInit& init) const override {
    return {bilinear_ ? tensorflow::DT_FLOAT : init.inputType(0)};
  }
  Status init(const KernelInit& init) override {
    GDS_RETURN_IF_ERROR(init.getAttrOr("align_corners", &align_corners_, false));
    GDS_RETURN_IF_ERROR(init.getAttrOr("half_pixel_centers", &half_pixel_, false));
    if (align_corners_ && half_pixel_)
      return init.error("align_corners and half_pixel_centers cannot both be true (TensorFlow rejects it)");
    return Status::Ok();
  }
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.dims() != 4) return ctx.error("images must be 4-D [batch, height, width, channels], got " + model::shapeString(x.shape()));
    std::vector<std::int64_t> size;
    if (!nn::intValues(ctx.input(1), &size) || size.size() != 2)
      return ctx.error("size must be an int32 tensor of 2 values (new_height, new_width)");
    if (size[0] <= 0 || size[1] <= 0) return ctx.error("size " + nn::listString(size) + " must be positive");
    if (x.dim(1) <= 0 || x.dim(2) <= 0) return ctx.error("cannot resize an empty image " + model::shapeString(x.shape()));
    const Shape out_shape = {x.dim(0), size[0], size[1], x.dim(3)};
    if (bilinear_) {
      std::vector<float> converted;
      const float* in = x.data<float>();
      if (x.dtype() != tensorflow::DT_FLOAT) {
        if (!toFloat(x, &converted)) return ctx.error("images of type " + model::dtypeName(x.dtype()) + " are not supported");
        in = converted.data();
      }
      Tensor* out = ctx.allocateOutput(0, tensorflow::DT_FLOAT, out_shape);
      ops::resizeBilinear(in, x.dim(0), x.dim(1), x.dim(2), x.dim(3), size[0], size[1], align_corners_, half_pixel_,
                          out->data<float>());
    } else {
      const std::size_t es = model::dtypeSize(x.dtype());
      if (es == 0) return ctx.error("images of type " + model::dtypeName(x.dtype()) + " are not supported");
      Tensor* out = ctx.allocateOutput(0, x.dtype(), out_shape);
      ops::resizeNearest(x.raw(), es, x.dim(0), x.dim(1), x.dim(2), x.dim(3), size[0], size[1], align_corners_,
                         half_pixel_, out->raw());
    }
    return Status::Ok();
  }

 private:
  bool bilinear_;
  bool align_corners_ = false, half_pixel_ = false;
};

// SpaceToBatchND or its inverse BatchToSpaceND.
enum class SpaceBatchDirection { kSpaceToBatch, kBatchToSpace };

class SpaceBatchKernel : public OpKernel {
 public:
  explicit SpaceBatchKernel(SpaceBatchDirection direction)
      : to_batch_(direction == SpaceBatchDirection::kSpaceToBatch) {}
  Status compute(KernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    std::vector<std::int64_t> block, pads;
    if (!nn::intValues(ctx.input(1), &block) || ctx.input(1).dims() != 1)
      return ctx.error("block_shape must be a 1-D int32/int64 tensor");
    const std::string pad_name = to_batch_ ? "paddings" : "crops";
    if (!nn::intValues(ctx.input(2), &pads) || pads.size() != 2 * block.size())
      return ctx.error(pad_name + " must be an int32/int64 [" + std::to_string(block.size()) + ", 2] tensor");
    const size_t m = block.size();
    if (static_cast<size_t>(x.dims()) < 1 + m)
      return ctx.error("input " + model::shapeString(x.shape()) + " has fewer than 1 + " + std::to_string(m) + " dimensions");
    std::int64_t prod = 1;
    for (auto b : block) {
      if (b < 1) return ctx.error("block_shape " + nn::listString(block) + " must be >= 1");
      prod *= b;
    }
    std::vector<std::int64_t> before(m);
    Shape out = x.shape();
    if (to_batch_) {
      out[0] = x.dim(0) * prod;
      for (size_t i = 0; i < m; ++i) {
        const std::int64_t padded = x.dim(static_cast<int>(1 + i)) + pads[2 * i] + pads[2 * i + 1];
        if (pads[2 * i] < 0 || pads[2 * i + 1] < 0 || padded % block[i] != 0)
          return ctx.error("padded dimension " + std::to_string(i + 1) + " (" + std::to_string(padded) +
                           ") is not divisible by block size " + std::to_string(block[i]));
        out[1 + i] = padded / block[i];
        before[i] = pads[2 * i];
      }
    } else {
      if (x.dim(0) % prod != 0)
        return ctx.error("input batch " + std::to_string(x.dim(0)) + " is not divisible by the block size product " +
                         std::to_string(prod));
      out[0] = x.dim(0) / prod;
      for (size_t i = 0; i < m; ++i) {
        const std::int64_t full = x.dim(static_cast<int>(1 + i)) * block[i];
        if (pads[2 * i] < 0 || pads[2 * i + 1] < 0 || pads[2 * i] + pads[2 * i + 1] > full)
          return ctx.error("crops " + nn::listString(pads) + " are larger than dimension " + std::to_string(i + 1));
        out[1 + i] = full - pads[2 * i] - pads[2 * i + 1];
        before[i] = pads[2 * i];
      }
    }
    const std::size_t es = model::dtypeSize(x.dtype());
    if (es == 0) return ctx.error("type " + model::dtypeName(x.dtype()) + " is not supported");
    Tensor* t = ctx.allocateOutput(0, x.dtype(), out);
    if (t->numElements() == 0) return Status::Ok();
    if (to_batch_) ops::spaceToBatch(x.raw(), es, x.shape(), block, before, out, t->raw());
    else ops::batchToSpace(x.raw(), es, x.shape(), block, before, out, t->raw());
    return Status::Ok();
  }

 private:
  bool to_batch_;
};

}  // namespace

void registerResizeKernels(KernelRegistry& registry) {
  registry.add("ResizeBilinear", [] { return std::unique_ptr<OpKernel>(new ResizeKernel(ResizeMethod::kBilinear)); });
  registry.add("ResizeNearestNeighbor", [] {
    return std::unique_ptr<OpKernel>(new ResizeKernel(ResizeMethod::kNearestNeighbor));
  });
  registry.add("SpaceToBatchND", [] {
    return std::unique_ptr<OpKernel>(new SpaceBatchKernel(SpaceBatchDirection::kSpaceToBatch));
  });
  registry.add("BatchToSpaceND", [] {
    return std::unique_ptr<OpKernel>(new SpaceBatchKernel(SpaceBatchDirection::kBatchToSpace));
  });
}

}  // namespace gds::engine
