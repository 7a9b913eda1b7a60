#include "engine/allocation.h"

#include "model/memory_budget.h"

namespace gds::engine {

Status checkAllocation(tensorflow::DataType dtype, const model::Shape& shape) {
  const tensorflow::DataType base = model::baseDtype(dtype);
  const std::string what = model::dtypeName(base) + model::shapeString(shape);
  for (auto d : shape)
    if (d < 0) return Status::Error(what + ": dimension of size " + std::to_string(d) + "; expected sizes >= 0");
  // Strings count their std::string objects; their characters come later.
  const std::int64_t element_size = base == tensorflow::DT_STRING ? static_cast<std::int64_t>(sizeof(std::string))
                                                                  : static_cast<std::int64_t>(model::dtypeSize(base));
  return model::checkAllocation(model::numElements(shape), element_size, what);
}

Status checkOutputAllocation(int output, tensorflow::DataType dtype, const model::Shape& shape) {
  Status s = checkAllocation(dtype, shape);
  return s.ok() ? s : Status::Error("output " + std::to_string(output) + " " + s.message());
}

}  // namespace gds::engine
