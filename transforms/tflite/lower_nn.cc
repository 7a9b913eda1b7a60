// The other ops lowered one to one, their attrs carried over: element-wise
// math and activations (LOGISTIC, TANH, RELU, LEAKY_RELU, RSQRT, ...),
// SOFTMAX/LOG_SOFTMAX, pooling, reductions, resizing, ARG_MAX and CAST.
#include <string>
#include <vector>

#include "model/tflite/types.h"
#include "transforms/tflite/lower_impl.h"

namespace gds::transforms::tflite::lower_impl {

Status Lowering::lowerUnary(int i, const char* op_type) {
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto n = addOp(i, op_type, {*a});
  return n.ok() ? Status::Ok() : n.status();
}

Status Lowering::lowerSoftmax(int i, const char* op_type) {
  GDS_RETURN_IF_ERROR(lowerUnary(i, op_type));
  if (std::string(op_type) == "tfl.softmax") (*out_.graph.mutable_node(out_.graph.node_size() - 1)->mutable_attr())["beta"].set_f(1.0f);
  return Status::Ok();
}

Status Lowering::lowerLeakyRelu(int i) {
  GDS_RETURN_IF_ERROR(lowerUnary(i, "tfl.leaky_relu"));
  const auto* alpha = attrOf(node(i), "alpha");
  (*out_.graph.mutable_node(out_.graph.node_size() - 1)->mutable_attr())["alpha"].set_f(alpha ? alpha->f() : 0.2f);
  return Status::Ok();
}

Status Lowering::lowerPool(int i, const char* op_type) {
  GDS_RETURN_IF_ERROR(requireNhwc(i));
  auto pad = padding(i);
  if (!pad.ok()) return pad.status();
  const std::vector<std::int64_t> ksize = intList(node(i), "ksize"), strides = intList(node(i), "strides");
  if (ksize.size() != 4 || strides.size() != 4 || ksize[0] != 1 || ksize[3] != 1 || strides[0] != 1 || strides[3] != 1)
    return Status::Error(where(node(i)) + ": ksize and strides must be [1,h,w,1] (pooling over height and width)");
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto n = addOp(i, op_type, {*a});
  if (!n.ok()) return n.status();
  auto& at = *(*n)->mutable_attr();
  at["padding"].set_s(*pad);
  at["filter_height"].set_i(ksize[1]);
  at["filter_width"].set_i(ksize[2]);
  at["stride_h"].set_i(strides[1]);
  at["stride_w"].set_i(strides[2]);
  return Status::Ok();
}

Status Lowering::lowerReduce(int i, const char* op_type) {
  auto axes = constInput(i, 1, "reduction axes");
  if (!axes.ok()) return axes.status();
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto axes_name = int32Const(name(dataInput(i, 1)), *axes, i);
  if (!axes_name.ok()) return axes_name.status();
  auto n = addOp(i, op_type, {*a, *axes_name});
  if (!n.ok()) return n.status();
  const auto* keep = attrOf(node(i), "keep_dims");
  (*(*n)->mutable_attr())["keep_dims"].set_b(keep && keep->b());
  return Status::Ok();
}

Status Lowering::lowerResize(int i, const char* op_type) {
  auto size = constInput(i, 1, "size");
  if (!size.ok()) return size.status();
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto s = int32Const(name(dataInput(i, 1)), *size, i);
  if (!s.ok()) return s.status();
  auto n = addOp(i, op_type, {*a, *s});
  if (!n.ok()) return n.status();
  auto& at = *(*n)->mutable_attr();
  const auto* align = attrOf(node(i), "align_corners");
  const auto* half = attrOf(node(i), "half_pixel_centers");
  at["align_corners"].set_b(align && align->b());
  at["half_pixel_centers"].set_b(half && half->b());
  return Status::Ok();
}

// ArgMax -> ARG_MAX with the axis as an int32 constant and TensorFlow's
// output_type (int64 by default, as ArgMax's).
Status Lowering::lowerArgMax(int i) {
  auto axis = constInput(i, 1, "dimension");
  if (!axis.ok()) return axis.status();
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto c = int32Const(name(dataInput(i, 1)), *axis, i);
  if (!c.ok()) return c.status();
  const auto* type = attrOf(node(i), "output_type");
  const tensorflow::DataType out = type ? type->type() : tensorflow::DT_INT64;
  if (out != tensorflow::DT_INT64 && out != tensorflow::DT_INT32)
    return Status::Error(where(node(i)) + ": output_type must be int32 or int64 for TensorFlow Lite's ARG_MAX");
  auto n = addOp(i, "tfl.arg_max", {*a, *c});
  if (!n.ok()) return n.status();
  (*(*n)->mutable_attr())["output_type"].set_s(mt::tensorTypeName(mt::tensorTypeFromDtype(out)));
  return Status::Ok();
}

Status Lowering::lowerCast(int i) {
  const auto* src = attrOf(node(i), "SrcT");
  const auto* dst = attrOf(node(i), "DstT");
  const int in_type = src ? mt::tensorTypeFromDtype(src->type()) : -1;
  const int out_type = dst ? mt::tensorTypeFromDtype(dst->type()) : -1;
  if (in_type < 0 || out_type < 0) return Status::Error(where(node(i)) + ": TensorFlow Lite has no type for its SrcT/DstT");
  GDS_RETURN_IF_ERROR(lowerUnary(i, "tfl.cast"));
  auto& at = *out_.graph.mutable_node(out_.graph.node_size() - 1)->mutable_attr();
  at["in_data_type"].set_s(mt::tensorTypeName(in_type));
  at["out_data_type"].set_s(mt::tensorTypeName(out_type));
  return Status::Ok();
}

}  // namespace gds::transforms::tflite::lower_impl
