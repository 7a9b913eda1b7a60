// Ops that Keras layers trace beyond the rest of the lowering, one to one
// as TensorFlow's converter lowers them (legalize_tf.cc, lower_tf.cc):
// Unpack -> UNPACK and Split -> SPLIT (unrolled recurrent layers),
// GatherV2 -> GATHER (Embedding), Tile -> TILE (RepeatVector), SelectV2 ->
// SELECT_V2 and the comparisons (masks), Elu -> ELU, Softplus ->
// LOG(EXP(x) + 1) (TensorFlow Lite has no softplus; mish uses it),
// BatchMatMulV2 -> BATCH_MATMUL (Dot) and Conv2DBackpropInput ->
// TRANSPOSE_CONV (Conv2DTranspose; the filter [h, w, out, in] becomes
// TensorFlow Lite's [out, h, w, in]).
#include <cstdint>
#include <string>
#include <vector>

#include "model/tflite/builtin_ops.h"
#include "model/tflite/options.h"
#include "transforms/tflite/lower_impl.h"

namespace gds::transforms::tflite::lower_impl {

// Outputs 1..count-1 of node i, after addOp made output 0.
void Lowering::addOutputs(NodeDef* n, int i, int count) {
  auto& attrs = *n->mutable_attr();
  for (int k = 1; k < count; ++k) {
    const model::TensorInfo& info = shapes_.at(i, k);
    attrs[mt::kOutputTypesAttr].mutable_list()->add_type(info.dtype == tensorflow::DT_INVALID ? tensorflow::DT_FLOAT
                                                                                                : info.dtype);
    model::shapeToProto(info.shape, attrs[mt::kOutputShapesAttr].mutable_list()->add_shape());
    alias_[name(i) + ":" + std::to_string(k)] = n->name() + ":" + std::to_string(k);
    out_.source[n->name() + ":" + std::to_string(k)] = name(i) + ":" + std::to_string(k);
  }
}

// A node of its own before node i's last op (named after node i), with
// node i's output type and shape.
Result<std::string> Lowering::addInner(int i, const std::string& suffix, const char* op_type,
                                       const std::vector<std::string>& inputs) {
  const model::TensorInfo& info = shapes_.at(i, 0);
  if (!info.fullyKnown())
    return Status::Error(where(node(i)) + ": its output shape " + info.shapeText() + " is not static");
  NodeDef* n = out_.graph.add_node();
  n->set_name(claim(name(i) + "/" + suffix, false));
  n->set_op(op_type);
  for (const auto& in : inputs) n->add_input(in);
  const mt::BuiltinOp* builtin = mt::builtinByOpType(op_type);
  if (builtin && builtin->options) GDS_RETURN_IF_ERROR(mt::optionsToAttrs(builtin->options, nullptr, n));
  auto& at = *n->mutable_attr();
  at[mt::kOutputTypesAttr].mutable_list()->add_type(info.dtype == tensorflow::DT_INVALID ? tensorflow::DT_FLOAT
                                                                                         : info.dtype);
  model::shapeToProto(info.shape, at[mt::kOutputShapesAttr].mutable_list()->add_shape());
  out_.source[n->name() + ":0"] = name(i) + ":0";
  return n->name();
}

namespace {

std::int64_t normalizedAxis(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

}  // namespace

Status Lowering::lowerUnpack(int i) {
  int port = 0;
  const int src = dataInput(i, 0, &port);
  const std::size_t rank = shapes_.at(src, port).shape.size();
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  const auto* num = attrOf(node(i), "num");
  if (!num || num->i() < 1) return Status::Error(where(node(i)) + ": its num attr is missing");
  auto n = addOp(i, "tfl.unpack", {*a});
  if (!n.ok()) return n.status();
  const auto* axis = attrOf(node(i), "axis");
  (*(*n)->mutable_attr())["num"].set_i(num->i());
  (*(*n)->mutable_attr())["axis"].set_i(normalizedAxis(axis ? axis->i() : 0, rank));
  addOutputs(*n, i, static_cast<int>(num->i()));
  return Status::Ok();
}

Status Lowering::lowerSplit(int i) {
  auto dim = constInput(i, 0, "split_dim");
  if (!dim.ok()) return dim.status();
  int port = 0;
  const int src = dataInput(i, 1, &port);
  const std::size_t rank = shapes_.at(src, port).shape.size();
  HostTensor axis = HostTensor::zeros(tensorflow::DT_INT32, {});
  axis.as<std::int32_t>()[0] = static_cast<std::int32_t>(normalizedAxis(static_cast<std::int64_t>(dim->valueAt(0)), rank));
  auto a = operand(i, 1);
  if (!a.ok()) return a.status();
  const auto* num = attrOf(node(i), "num_split");
  if (!num || num->i() < 1) return Status::Error(where(node(i)) + ": its num_split attr is missing");
  auto n = addOp(i, "tfl.split", {addConst(name(dataInput(i, 0)), axis, false), *a});
  if (!n.ok()) return n.status();
  (*(*n)->mutable_attr())["num_splits"].set_i(num->i());
  addOutputs(*n, i, static_cast<int>(num->i()));
  return Status::Ok();
}

Status Lowering::lowerGather(int i) {
  auto axis = constInput(i, 2, "axis");
  if (!axis.ok()) return axis.status();
  const auto* batch_dims = attrOf(node(i), "batch_dims");
  if (batch_dims && batch_dims->i() != 0) return Status::Error(where(node(i)) + ": batch_dims other than 0");
  int port = 0;
  const int src = dataInput(i, 0, &port);
  const std::size_t rank = shapes_.at(src, port).shape.size();
  auto params = operand(i, 0);
  if (!params.ok()) return params.status();
  auto indices = operand(i, 1);
  if (!indices.ok()) return indices.status();
  auto n = addOp(i, "tfl.gather", {*params, *indices});
  if (!n.ok()) return n.status();
  (*(*n)->mutable_attr())["axis"].set_i(normalizedAxis(static_cast<std::int64_t>(axis->valueAt(0)), rank));
  (*(*n)->mutable_attr())["batch_dims"].set_i(0);
  return Status::Ok();
}

Status Lowering::lowerTile(int i) {
  auto multiples = constInput(i, 1, "multiples");
  if (!multiples.ok()) return multiples.status();
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto m = int32Const(name(dataInput(i, 1)), *multiples, i);
  if (!m.ok()) return m.status();
  auto n = addOp(i, "tfl.tile", {*a, *m});
  return n.ok() ? Status::Ok() : n.status();
}

Status Lowering::lowerSelect(int i) {
  std::vector<std::string> inputs;
  for (int k = 0; k < 3; ++k) {
    auto v = operand(i, k);
    if (!v.ok()) return v.status();
    inputs.push_back(*v);
  }
  auto n = addOp(i, "tfl.select_v2", inputs);
  return n.ok() ? Status::Ok() : n.status();
}

// softplus(x) = log(exp(x) + 1), as TensorFlow's converter writes it.
Status Lowering::lowerSoftplus(int i) {
  auto a = operand(i, 0);
  if (!a.ok()) return a.status();
  auto e = addInner(i, "Exp", "tfl.exp", {*a});
  if (!e.ok()) return e.status();
  HostTensor one = HostTensor::zeros(tensorflow::DT_FLOAT, {});
  one.as<float>()[0] = 1.0f;
  auto sum = addInner(i, "add", "tfl.add", {*e, addConst(name(i) + "/one", one, false)});
  if (!sum.ok()) return sum.status();
  auto n = addOp(i, "tfl.log", {*sum});
  return n.ok() ? Status::Ok() : n.status();
}

Status Lowering::lowerBatchMatMul(int i) {
  auto x = operand(i, 0);
  if (!x.ok()) return x.status();
  auto y = operand(i, 1);
  if (!y.ok()) return y.status();
  auto n = addOp(i, "tfl.batch_matmul", {*x, *y});
  if (!n.ok()) return n.status();
  const auto* adj_x = attrOf(node(i), "adj_x");
  const auto* adj_y = attrOf(node(i), "adj_y");
  (*(*n)->mutable_attr())["adj_x"].set_b(adj_x && adj_x->b());
  (*(*n)->mutable_attr())["adj_y"].set_b(adj_y && adj_y->b());
  return Status::Ok();
}

Status Lowering::lowerConvTranspose(int i) {
  GDS_RETURN_IF_ERROR(requireNhwc(i));
  auto pad = padding(i);
  if (!pad.ok()) return pad.status();
  const std::vector<std::int64_t> strides = intList(node(i), "strides"), dilations = intList(node(i), "dilations");
  if (strides.size() != 4 || strides[0] != 1 || strides[3] != 1)
    return Status::Error(where(node(i)) + ": strides must be [1,h,w,1]");
  for (std::int64_t d : dilations)
    if (d != 1) return Status::Error(where(node(i)) + ": TensorFlow Lite's TRANSPOSE_CONV has no dilations");
  auto sizes = constInput(i, 0, "input_sizes");
  if (!sizes.ok()) return sizes.status();
  auto filter = constInput(i, 1, "filter");
  if (!filter.ok()) return filter.status();
  if (filter->shape.size() != 4 || filter->dtype != tensorflow::DT_FLOAT)
    return Status::Error(where(node(i)) + ": the filter must be a float [h, w, out, in] constant");
  // [h, w, out, in] -> [out, h, w, in]
  const std::int64_t kh = filter->shape[0], kw = filter->shape[1], co = filter->shape[2], ci = filter->shape[3];
  HostTensor ohwi = HostTensor::zeros(tensorflow::DT_FLOAT, {co, kh, kw, ci});
  for (std::int64_t y = 0; y < kh; ++y)
    for (std::int64_t x = 0; x < kw; ++x)
      for (std::int64_t o = 0; o < co; ++o)
        for (std::int64_t c = 0; c < ci; ++c)
          ohwi.as<float>()[((o * kh + y) * kw + x) * ci + c] = filter->as<float>()[((y * kw + x) * co + o) * ci + c];
  auto shape = int32Const(name(dataInput(i, 0)), *sizes, i);
  if (!shape.ok()) return shape.status();
  auto in = operand(i, 2);
  if (!in.ok()) return in.status();
  // The optional bias is absent (the BiasAdd after it stays an ADD).
  if (!used_.count(mt::kNoValueNode)) {
    NodeDef* none = out_.graph.add_node();
    none->set_name(mt::kNoValueNode);
    none->set_op(mt::kNoValueOp);
    used_.insert(mt::kNoValueNode);
  }
  auto n = addOp(i, "tfl.transpose_conv",
                 {*shape, addConst(name(dataInput(i, 1)), ohwi, false), *in, std::string(mt::kNoValueNode)});
  if (!n.ok()) return n.status();
  auto& at = *(*n)->mutable_attr();
  at["padding"].set_s(*pad);
  at["stride_h"].set_i(strides[1]);
  at["stride_w"].set_i(strides[2]);
  return Status::Ok();
}

}  // namespace gds::transforms::tflite::lower_impl
