// The interpreter's op set as a model::RuntimeOps (for model::checkGraph:
// `gdstudio check_ops --runtime=gdstudio` and the window's Check Ops for
// Runtime), read from builtinKernels() with the dtypes each kernel takes.
#pragma once

#include "model/runtime_ops.h"

namespace gds::engine {

model::RuntimeOps interpreterOps();

}  // namespace gds::engine
