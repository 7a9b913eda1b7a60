#include "engine/interpreter_ops.h"

#include <set>

#include "engine/builtin_kernels.h"

namespace gds::engine {

model::RuntimeOps interpreterOps() {
  model::RuntimeOps r;
  r.name = "gdstudio";
  r.title = "gdstudio's interpreter";
  r.source = "the interpreter's kernel registry";
  const auto& registry = builtinKernels();
  for (const auto& op : registry.ops()) {
    r.ops[op] = "";
    std::set<tensorflow::DataType> types;
    bool any = false;  // a kernel registered for every dtype
    for (auto t : registry.dtypes(op)) {
      if (t == tensorflow::DT_INVALID) any = true;
      types.insert(t);
    }
    if (!any && !types.empty()) r.dtypes[op] = std::move(types);
  }
  return r;
}

}  // namespace gds::engine
