// Control-flow ops (Switch, Merge, Enter, Exit, NextIteration, LoopCond and
// their Ref variants). The Plan's executor routes their values between
// frames and iterations itself (engine/executor.cc, after TensorFlow's
// executor); these kernels exist so the registry knows the ops and so init
// checks their attrs at compile time.
#include "engine/kernels/kernel_util.h"

namespace gds::engine {
namespace {

class ControlFlowKernel : public OpKernel {
 public:
  explicit ControlFlowKernel(int outputs) : outputs_(outputs) {}
  Status init(const KernelInit& init) override {
    const std::string& op = init.node().op();
    if (op == "Enter" || op == "RefEnter") {
      std::string frame;
      GDS_RETURN_IF_ERROR(init.getAttr("frame_name", &frame));
      if (frame.empty()) return init.error("attr 'frame_name' is empty");
      std::int64_t parallel = 10;
      GDS_RETURN_IF_ERROR(init.getAttrOr<std::int64_t>("parallel_iterations", &parallel, 10));
      if (parallel <= 0) return init.error("attr 'parallel_iterations' must be positive");
    }
    if ((op == "Switch" || op == "RefSwitch") && init.inputType(1) != tensorflow::DT_INVALID &&
        init.inputType(1) != tensorflow::DT_BOOL)
      return init.error("pred must be bool, got " + model::dtypeName(init.inputType(1)));
    if (op == "LoopCond" && init.inputType(0) != tensorflow::DT_INVALID && init.inputType(0) != tensorflow::DT_BOOL)
      return init.error("input must be bool, got " + model::dtypeName(init.inputType(0)));
    return Status::Ok();
  }
  int numOutputs(const KernelInit&) const override { return outputs_; }
  Status compute(KernelContext& ctx) override {
    return ctx.error("control-flow op is executed by the plan's executor, not as a kernel");
  }

 private:
  int outputs_;
};

}  // namespace

void registerControlFlowKernels(KernelRegistry& r) {
  for (const char* op : {"Switch", "RefSwitch", "Merge", "RefMerge"})
    r.add(op, [] { return std::make_unique<ControlFlowKernel>(2); });
  for (const char* op : {"Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration", "LoopCond"})
    r.add(op, [] { return std::make_unique<ControlFlowKernel>(1); });
}

}  // namespace gds::engine
