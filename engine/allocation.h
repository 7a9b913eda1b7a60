// Allocation checks: every tensor the engine allocates (kernel outputs, a
// kernel's temporaries, Const values) has its size checked against the
// memory budget (model/memory_budget.h) first. Sizes computed by kernels
// come from tensor values (Fill's dims, Tile's multiples, a depthwise
// filter's channel multiplier, ...); checking them where tensors are
// allocated covers them all without a check in each kernel.
#pragma once

#include <stdexcept>
#include <string>

#include "types.pb.h"
#include "model/status.h"
#include "model/tensor.h"

namespace gds::engine {

// Thrown by the allocating Tensor constructor and KernelContext::
// allocateOutput when checkAllocation refuses a size. The executor turns it
// into an error naming the node (and so does the plan compiler for kernels'
// init); it never leaves the engine.
class AllocationRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Ok when dtype x shape has no negative dimension, its size fits 64 bits and
// the memory budget, else "float[100000,100000]: 10000000000 elements (37 GiB)
// exceed the memory budget of ... (set GDS_MEMORY_BUDGET to change it)".
Status checkAllocation(tensorflow::DataType dtype, const model::Shape& shape);
// The same for a kernel's output `output`: "output 0 float[...]: ...".
// Kernels that build tables sized by the output check it before they do.
Status checkOutputAllocation(int output, tensorflow::DataType dtype, const model::Shape& shape);

}  // namespace gds::engine
