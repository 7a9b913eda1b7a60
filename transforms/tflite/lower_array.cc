// Ops that move data lowered one to one, their constant operands as int32:
// Pad/PadV2/MirrorPad, Reshape/ExpandDims, Squeeze, Concat/ConcatV2,
// Transpose, StridedSlice (TensorFlow's sparse slice spec made dense, new
// axes as a RESHAPE), Slice and Pack.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/tflite/options.h"
#include "transforms/tflite/lower_impl.h"

namespace gds::transforms::tflite::lower_impl {

Status Lowering::lowerPad(int i) {
  auto paddings = constInput(i, 1, "paddings");
  if (!paddings.ok()) return paddings.status();
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto p = int32Const(name(dataInput(i, 1)), *paddings, i);
  if (!p.ok()) return p.status();
  std::vector<std::string> inputs = {*a, *p};
  const char* op_type = "tfl.pad";
  if (op(i) == "PadV2") {
    auto value = operand(i, 2);
    if (!value.ok()) return value.status();
    inputs.push_back(*value);
    op_type = "tfl.padv2";
  } else if (op(i) == "MirrorPad") {
    op_type = "tfl.mirror_pad";
  }
  auto n = addOp(i, op_type, inputs);
  if (!n.ok()) return n.status();
  if (op(i) == "MirrorPad") {
    const std::string mode = stringAttr(node(i), "mode");
    if (mode != "REFLECT" && mode != "SYMMETRIC")
      return Status::Error(where(node(i)) + ": mode must be REFLECT or SYMMETRIC");
    (*(*n)->mutable_attr())["mode"].set_s(mode);
  }
  return Status::Ok();
}

// Reshape and ExpandDims: the static output shape as the shape operand and as
// new_shape (readers such as Arm NN 20.08 take the option).
Status Lowering::lowerReshape(int i) {
  const model::TensorInfo& info = shapes_.at(i, 0);
  if (!info.fullyKnown())
    return Status::Error(where(node(i)) + ": its output shape " + info.shapeText() + " is not static");
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  HostTensor shape = HostTensor::zeros(tensorflow::DT_INT32, {static_cast<std::int64_t>(info.shape.size())});
  for (std::size_t k = 0; k < info.shape.size(); ++k) shape.as<std::int32_t>()[k] = static_cast<std::int32_t>(info.shape[k]);
  const std::string sname = addConst(name(i) + "/shape", shape, false);
  auto n = addOp(i, "tfl.reshape", {*a, sname});
  if (!n.ok()) return n.status();
  auto* list = (*(*n)->mutable_attr())["new_shape"].mutable_list();
  list->Clear();
  for (std::int64_t d : info.shape) list->add_i(d);
  return Status::Ok();
}

Status Lowering::lowerSqueeze(int i) {
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto n = addOp(i, "tfl.squeeze", {*a});
  if (!n.ok()) return n.status();
  auto* list = (*(*n)->mutable_attr())["squeeze_dims"].mutable_list();
  list->Clear();
  // Counted from the front (Keras' Conv1D squeezes -3): Arm NN 20.08 reads
  // the dimensions unsigned and refuses a negative one.
  int port = 0;
  const int src = dataInput(i, 0, &port);
  const model::TensorInfo& in = shapes_.at(src, port);
  const std::int64_t rank = in.known_rank ? static_cast<std::int64_t>(in.shape.size()) : 0;
  for (std::int64_t d : intList(node(i), "squeeze_dims")) list->add_i(d < 0 && rank > 0 ? d + rank : d);
  return Status::Ok();
}

Status Lowering::lowerConcat(int i) {
  const bool v2 = op(i) == "ConcatV2";
  const int count = dataInputCount(i);
  const int axis_input = v2 ? count - 1 : 0;
  auto axis = constInput(i, axis_input, "axis");
  if (!axis.ok()) return axis.status();
  std::vector<std::string> inputs;
  for (int k = 0; k < count; ++k) {
    if (k == axis_input) continue;
    auto v = operand(i, k);
    if (!v.ok()) return v.status();
    inputs.push_back(*v);
  }
  auto n = addOp(i, "tfl.concatenation", inputs);
  if (!n.ok()) return n.status();
  std::int64_t ax = static_cast<std::int64_t>(axis->valueAt(0));
  const std::int64_t rank = static_cast<std::int64_t>(shapes_.at(i, 0).shape.size());
  if (ax < 0) ax += rank;
  (*(*n)->mutable_attr())["axis"].set_i(ax);
  return Status::Ok();
}

Status Lowering::lowerTranspose(int i) {
  auto perm = constInput(i, 1, "permutation");
  if (!perm.ok()) return perm.status();
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto p = int32Const(name(dataInput(i, 1)), *perm, i);
  if (!p.ok()) return p.status();
  auto n = addOp(i, "tfl.transpose", {*a, *p});
  return n.ok() ? Status::Ok() : n.status();
}

// TensorFlow's sparse slice spec (an ellipsis, new axes, fewer entries than
// dimensions: the trailing ones taken whole) made dense, one entry per input
// dimension, as TensorFlow's converter does before TFLite's STRIDED_SLICE,
// whose kernel pads missing entries at the front and takes no ellipsis or
// new axis (legalize_tf.cc, ConvertTFStridedSlice). New axes become a
// RESHAPE of the input, their entries taken whole.
// The input of slice `i` reshaped to `expanded` (its new axes inserted), a
// node of its own named after the slice; returns that node.
Result<std::string> Lowering::reshapeForNewAxes(int i, int src, int port, const std::string& input,
                                                const Shape& expanded, tensorflow::DataType dtype) {
  const std::int64_t dense = static_cast<std::int64_t>(expanded.size());
  HostTensor shape = HostTensor::zeros(tensorflow::DT_INT32, {dense});
  for (std::int64_t k = 0; k < dense; ++k)
    shape.as<std::int32_t>()[k] = static_cast<std::int32_t>(expanded[static_cast<std::size_t>(k)]);
  const std::string shape_const = addConst(name(i) + "/new_axes/shape", shape, false);
  NodeDef* r = out_.graph.add_node();
  r->set_name(claim(name(i) + "/new_axes", false));
  r->set_op("tfl.reshape");
  r->add_input(input);
  r->add_input(shape_const);
  GDS_RETURN_IF_ERROR(mt::optionsToAttrs("ReshapeOptions", nullptr, r));
  auto& at = *r->mutable_attr();
  at[mt::kOutputTypesAttr].mutable_list()->add_type(dtype);
  model::shapeToProto(expanded, at[mt::kOutputShapesAttr].mutable_list()->add_shape());
  auto* list = at["new_shape"].mutable_list();
  list->Clear();
  for (std::int64_t e : expanded) list->add_i(e);
  out_.source[r->name() + ":0"] = name(src) + ":" + std::to_string(port);
  return std::string(r->name());
}

Status Lowering::lowerStridedSlice(int i) {
  int port = 0;
  const int src = dataInput(i, 0, &port);
  const model::TensorInfo& in = shapes_.at(src, port);
  if (!in.fullyKnown()) return Status::Error(where(node(i)) + ": its input shape " + in.shapeText() + " is not static");
  HostTensor spec[3];
  const char* what[] = {"begin", "end", "strides"};
  for (int k = 1; k <= 3; ++k) {
    auto v = constInput(i, k, what[k - 1]);
    if (!v.ok()) return v.status();
    spec[k - 1] = std::move(*v);
  }
  const std::int64_t sparse = spec[0].size();
  if (spec[1].size() != sparse || spec[2].size() != sparse)
    return Status::Error(where(node(i)) + ": begin, end and strides differ in length");
  std::int64_t masks[5] = {0, 0, 0, 0, 0};
  const char* mask_names[] = {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"};
  for (int k = 0; k < 5; ++k)
    if (const auto* m = attrOf(node(i), mask_names[k])) masks[k] = m->i();
  auto bit = [&](int mask, std::int64_t index) { return (masks[mask] >> index) & 1; };
  // The input with the new axes inserted where the spec names them.
  Shape expanded;
  std::int64_t dim = 0;
  const std::int64_t rank = static_cast<std::int64_t>(in.shape.size());
  std::int64_t new_axes = 0;
  for (std::int64_t k = 0; k < sparse; ++k) new_axes += bit(3, k) && !bit(2, k) ? 1 : 0;
  bool saw_ellipsis = false;
  for (std::int64_t k = 0; k < sparse; ++k) {
    if (bit(2, k) && !saw_ellipsis) {
      saw_ellipsis = true;
      // The ellipsis covers the dimensions the entries after it do not name.
      std::int64_t named_after = 0;
      for (std::int64_t j = k + 1; j < sparse; ++j) named_after += bit(3, j) ? 0 : 1;
      for (const std::int64_t end = rank - named_after; dim < end; ++dim)
        expanded.push_back(in.shape[static_cast<std::size_t>(dim)]);
    } else if (bit(3, k)) {
      expanded.push_back(1);
    } else if (dim < rank) {
      expanded.push_back(in.shape[static_cast<std::size_t>(dim++)]);
    } else {
      return Status::Error(where(node(i)) + ": the slice names more dimensions than its input " + in.shapeText() +
                           " has");
    }
  }
  for (; dim < rank; ++dim) expanded.push_back(in.shape[static_cast<std::size_t>(dim)]);
  // Dense entries over `expanded`: an ellipsis or a trailing dimension is
  // taken whole, a new axis whole (it has size 1), the rest as given.
  const std::int64_t dense = static_cast<std::int64_t>(expanded.size());
  HostTensor begin = HostTensor::zeros(tensorflow::DT_INT32, {dense}), end = begin, strides = begin;
  std::int64_t begin_mask = 0, end_mask = 0, shrink_mask = 0, d = 0;
  auto whole = [&](std::int64_t at) {
    strides.as<std::int32_t>()[at] = 1;
    begin_mask |= std::int64_t{1} << at;
    end_mask |= std::int64_t{1} << at;
  };
  saw_ellipsis = false;
  for (std::int64_t k = 0; k < sparse; ++k) {
    if (bit(2, k) && !saw_ellipsis) {
      saw_ellipsis = true;
      std::int64_t named_after = 0;
      for (std::int64_t j = k + 1; j < sparse; ++j) named_after += 1;
      for (const std::int64_t stop = dense - named_after; d < stop; ++d) whole(d);
      continue;
    }
    if (bit(3, k)) {
      whole(d++);
      continue;
    }
    for (int t = 0; t < 3; ++t) {
      const double v = spec[t].valueAt(k);
      if (v < INT32_MIN || v > INT32_MAX)
        return Status::Error(where(node(i)) + ": " + what[t] + " value " + std::to_string(v) + " exceeds int32");
    }
    begin.as<std::int32_t>()[d] = static_cast<std::int32_t>(spec[0].valueAt(k));
    end.as<std::int32_t>()[d] = static_cast<std::int32_t>(spec[1].valueAt(k));
    strides.as<std::int32_t>()[d] = static_cast<std::int32_t>(spec[2].valueAt(k));
    if (bit(0, k)) begin_mask |= std::int64_t{1} << d;
    if (bit(1, k)) end_mask |= std::int64_t{1} << d;
    if (bit(4, k)) shrink_mask |= std::int64_t{1} << d;
    ++d;
  }
  for (; d < dense; ++d) whole(d);
  if (dense > 5)
    return Status::Error(where(node(i)) +
                         ": TensorFlow Lite's STRIDED_SLICE takes at most 5 dimensions, the input has " +
                         std::to_string(dense));
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  std::string input = *a;
  if (new_axes > 0) {
    auto reshaped = reshapeForNewAxes(i, src, port, input, expanded, in.dtype);
    if (!reshaped.ok()) return reshaped.status();
    input = *reshaped;
  }
  std::vector<std::string> inputs = {input};
  const HostTensor* values[] = {&begin, &end, &strides};
  for (int k = 0; k < 3; ++k) inputs.push_back(addConst(name(dataInput(i, k + 1)), *values[k], false));
  auto n = addOp(i, "tfl.strided_slice", inputs);
  if (!n.ok()) return n.status();
  auto& at = *(*n)->mutable_attr();
  at["begin_mask"].set_i(begin_mask);
  at["end_mask"].set_i(end_mask);
  at["ellipsis_mask"].set_i(0);
  at["new_axis_mask"].set_i(0);
  at["shrink_axis_mask"].set_i(shrink_mask);
  return Status::Ok();
}

// Slice -> SLICE (legalize_tf.cc): begin and size as int32 constants, a
// size of -1 ("to the end") written as the static size it stands for
// (Arm NN 20.08's SLICE takes no -1).
Status Lowering::lowerSlice(int i) {
  int port = 0;
  const int src = dataInput(i, 0, &port);
  const model::TensorInfo& in = shapes_.at(src, port);
  auto begin = constInput(i, 1, "begin");
  if (!begin.ok()) return begin.status();
  auto size = constInput(i, 2, "size");
  if (!size.ok()) return size.status();
  if (!in.fullyKnown() || begin->size() != static_cast<std::int64_t>(in.shape.size()) || size->size() != begin->size())
    return Status::Error(where(node(i)) + ": begin and size need one entry per dimension of its static input " +
                         in.shapeText());
  HostTensor sizes = HostTensor::zeros(tensorflow::DT_INT32, size->shape);
  for (std::int64_t d = 0; d < size->size(); ++d) {
    const double n = size->valueAt(d);
    sizes.as<std::int32_t>()[d] = static_cast<std::int32_t>(
        n == -1 ? static_cast<double>(in.shape[static_cast<std::size_t>(d)]) - begin->valueAt(d) : n);
  }
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto b = int32Const(name(dataInput(i, 1)), *begin, i);
  if (!b.ok()) return b.status();
  auto n = addOp(i, "tfl.slice", {*a, *b, addConst(name(dataInput(i, 2)), sizes, false)});
  return n.ok() ? Status::Ok() : n.status();
}

Status Lowering::lowerPack(int i) {
  std::vector<std::string> inputs;
  for (int k = 0; k < dataInputCount(i); ++k) {
    auto v = operand(i, k);
    if (!v.ok()) return v.status();
    inputs.push_back(*v);
  }
  auto n = addOp(i, "tfl.pack", inputs);
  if (!n.ok()) return n.status();
  const auto* axis = attrOf(node(i), "axis");
  std::int64_t ax = axis ? axis->i() : 0;
  if (ax < 0) ax += static_cast<std::int64_t>(shapes_.at(i, 0).shape.size());
  auto& at = *(*n)->mutable_attr();
  at["axis"].set_i(ax);
  at["values_count"].set_i(static_cast<std::int64_t>(inputs.size()));
  return Status::Ok();
}

}  // namespace gds::transforms::tflite::lower_impl
