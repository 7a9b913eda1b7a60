// ImmutableConst (tensorflow/core/kernels/immutable_constant_op.cc): a
// constant whose bytes live in a memory-mapped model file. The output tensor
// borrows the mapped region; nothing is copied, so the weights are paged in
// from the file only as they are used.
#include "engine/kernel.h"
#include "model/memmapped.h"

namespace gds::engine {
namespace {

class ImmutableConstKernel : public OpKernel {
 public:
  Status init(const KernelInit& init) override {
    DataType dtype = tensorflow::DT_INVALID;
    GDS_RETURN_IF_ERROR(init.getAttr("dtype", &dtype));
    const auto* shape_attr = init.attr("shape");
    if (!shape_attr || !shape_attr->has_shape()) return init.error("has no 'shape' attr");
    bool known = true;
    Shape shape = model::shapeFromProto(shape_attr->shape(), &known);
    if (!known || model::numElements(shape) < 0) return init.error("'shape' must be fully defined");
    std::string region_name;
    GDS_RETURN_IF_ERROR(init.getAttr("memory_region_name", &region_name));
    auto region = model::findMemoryRegion(region_name);
    if (!region.ok()) return init.error(region.error());
    const std::uint64_t expected = static_cast<std::uint64_t>(model::numElements(shape)) * model::dtypeSize(dtype);
    if (model::dtypeSize(dtype) == 0) return init.error("dtype " + model::dtypeName(dtype) + " cannot be memory-mapped");
    if (region->length < expected)
      return init.error("memory region '" + region_name + "' holds " + std::to_string(region->length) +
                        " bytes but " + model::dtypeName(dtype) + model::shapeString(shape) + " needs " +
                        std::to_string(expected));
    value_ = Tensor::borrow(dtype, shape, region->data, region->owner);
    return Status::Ok();
  }
  std::vector<DataType> outputTypes(const KernelInit&) const override { return {value_.dtype()}; }
  bool inferShapes(const KernelInit&, std::vector<Shape>* shapes) const override {
    *shapes = {value_.shape()};
    return true;
  }
  Status compute(KernelContext& ctx) override {
    ctx.setOutput(0, value_);
    return Status::Ok();
  }

 private:
  Tensor value_;
};

}  // namespace

void registerImmutableConstKernels(KernelRegistry& registry) {
  registry.add("ImmutableConst", [] { return std::make_unique<ImmutableConstKernel>(); });
}

}  // namespace gds::engine
