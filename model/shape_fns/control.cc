// Control flow and plumbing (control_flow_ops.cc, array_ops.cc, no_op.cc).
#include "model/shape_fns/shape_fn.h"

namespace gds::model::shape_fns {
namespace {

void switchOp(ShapeContext& c) {
  c.set(0, TensorInfo{c.in(0).dtype, c.in(0).known_rank, c.in(0).shape});
  c.set(1, TensorInfo{c.in(0).dtype, c.in(0).known_rank, c.in(0).shape});
}

void merge(ShapeContext& c) {
  // Inputs from a loop's NextIteration are not inferred yet: take input 0.
  c.set(0, TensorInfo{c.passDtype(0), c.in(0).known_rank, c.in(0).shape});
  c.set(1, TensorInfo::ranked(tensorflow::DT_INT32, {}));
}

void loopCond(ShapeContext& c) {
  c.set(0, TensorInfo::ranked(tensorflow::DT_BOOL, {}));
}

void noOp(ShapeContext& c) {
  c.set(0, TensorInfo::unknown());
}

void identityN(ShapeContext& c) {
  for (int k = 0; k < c.dataInputs(); ++k) c.set(k, c.in(k));
}

}  // namespace

void registerControlShapeFns(ShapeFnRegistry& r) {
  r.add({"Switch", "RefSwitch"}, switchOp);
  r.add({"Merge", "RefMerge"}, merge);
  r.add({"LoopCond"}, loopCond);
  r.add({"NoOp"}, noOp);
  r.add({"IdentityN"}, identityN);
}

}  // namespace gds::model::shape_fns
