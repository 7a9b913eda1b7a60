#include "model/keras/tf_ops.h"

#include <algorithm>

namespace gds::model::keras {

namespace tf = tensorflow;

Shape broadcastShapes(const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank, 1);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    out[i] = da == 1 ? db : db == 1 ? da : (da < 0 ? db : da);
  }
  return out;
}

std::int64_t windowedLength(std::int64_t in, std::int64_t k, std::int64_t stride, std::int64_t dilation,
                            const std::string& padding) {
  if (in < 0 || stride <= 0) return -1;
  const std::int64_t effective = (k - 1) * dilation + 1;
  if (padding == "SAME") return (in + stride - 1) / stride;
  return in >= effective ? (in - effective) / stride + 1 : 0;
}

tf::NodeDef* TfOps::node(const std::string& op, const std::string& name, const std::vector<std::string>& inputs,
                         tf::DataType t) {
  auto* n = b_.add(op, name, inputs);
  if (t != tf::DT_INVALID) setAttrType(n, "T", t);
  return n;
}

KTensor TfOps::placeholder(const std::string& name, tf::DataType dtype, const Shape& shape) {
  return KTensor{b_.placeholder(name, dtype, shape), shape, dtype, ""};
}

KTensor TfOps::constant(const std::string& name, const HostTensor& value) {
  return KTensor{b_.constant(name, value), value.shape, value.dtype, ""};
}

KTensor TfOps::scalar(const std::string& name, float value) {
  return KTensor{b_.constantFloat(name, {}, {value}), {}, tf::DT_FLOAT, ""};
}

KTensor TfOps::int32s(const std::string& name, const std::vector<std::int64_t>& values) {
  std::vector<std::int32_t> v(values.begin(), values.end());
  return KTensor{b_.constantInt32(name, {static_cast<std::int64_t>(v.size())}, v),
                 {static_cast<std::int64_t>(v.size())}, tf::DT_INT32, ""};
}

KTensor TfOps::unary(const std::string& op, const std::string& name, const KTensor& x) {
  return KTensor{node(op, name, {x.name}, x.dtype)->name(), x.shape, x.dtype, ""};
}

KTensor TfOps::binary(const std::string& op, const std::string& name, const KTensor& a, const KTensor& b) {
  static const char* kComparisons[] = {"Greater", "GreaterEqual", "Less", "LessEqual", "Equal", "NotEqual"};
  const bool compare = std::find(std::begin(kComparisons), std::end(kComparisons), op) != std::end(kComparisons);
  const bool logical = op == "LogicalAnd" || op == "LogicalOr";
  auto* n = node(op, name, {a.name, b.name}, logical ? tf::DT_INVALID : a.dtype);
  return KTensor{n->name(), broadcastShapes(a.shape, b.shape), compare || logical ? tf::DT_BOOL : a.dtype, ""};
}

KTensor TfOps::leakyRelu(const std::string& name, const KTensor& x, float alpha) {
  auto* n = node("LeakyRelu", name, {x.name});
  setAttrFloat(n, "alpha", alpha);
  return KTensor{n->name(), x.shape, x.dtype, ""};
}

KTensor TfOps::select(const std::string& name, const KTensor& cond, const KTensor& a, const KTensor& b) {
  auto* n = node("SelectV2", name, {cond.name, a.name, b.name}, a.dtype);
  return KTensor{n->name(), broadcastShapes(cond.shape, broadcastShapes(a.shape, b.shape)), a.dtype, ""};
}

KTensor TfOps::matMul(const std::string& name, const KTensor& a, const KTensor& b, bool transpose_a, bool transpose_b) {
  auto* n = node("MatMul", name, {a.name, b.name});
  setAttrBool(n, "transpose_a", transpose_a);
  setAttrBool(n, "transpose_b", transpose_b);
  const std::int64_t rows = transpose_a ? a.dim(1) : a.dim(0);
  const std::int64_t cols = transpose_b ? b.dim(0) : b.dim(1);
  return KTensor{n->name(), {rows, cols}, a.dtype, ""};
}

KTensor TfOps::batchMatMul(const std::string& name, const KTensor& a, const KTensor& b, bool adj_x, bool adj_y) {
  auto* n = node("BatchMatMulV2", name, {a.name, b.name});
  setAttrBool(n, "adj_x", adj_x);
  setAttrBool(n, "adj_y", adj_y);
  Shape batch_a(a.shape.begin(), a.shape.end() - 2), batch_b(b.shape.begin(), b.shape.end() - 2);
  Shape out = broadcastShapes(batch_a, batch_b);
  out.push_back(adj_x ? a.dim(-1) : a.dim(-2));
  out.push_back(adj_y ? b.dim(-2) : b.dim(-1));
  return KTensor{n->name(), out, a.dtype, ""};
}

KTensor TfOps::biasAdd(const std::string& name, const KTensor& x, const KTensor& bias) {
  auto* n = node("BiasAdd", name, {x.name, bias.name});
  setAttrString(n, "data_format", "NHWC");
  return KTensor{n->name(), x.shape, x.dtype, ""};
}

namespace {

void setWindow(tf::NodeDef* n, const TfOps::Window& w) {
  setAttrString(n, "data_format", "NHWC");
  setAttrInts(n, "strides", {1, w.strides[0], w.strides[1], 1});
  setAttrString(n, "padding", w.padding);
}

Shape convShape(const KTensor& x, std::int64_t kh, std::int64_t kw, std::int64_t channels, const TfOps::Window& w) {
  return {x.dim(0), windowedLength(x.dim(1), kh, w.strides[0], w.dilations[0], w.padding),
          windowedLength(x.dim(2), kw, w.strides[1], w.dilations[1], w.padding), channels};
}

}  // namespace

KTensor TfOps::conv2d(const std::string& name, const KTensor& x, const KTensor& filter, const Window& w) {
  auto* n = node("Conv2D", name, {x.name, filter.name});
  setWindow(n, w);
  setAttrInts(n, "dilations", {1, w.dilations[0], w.dilations[1], 1});
  setAttrBool(n, "use_cudnn_on_gpu", true);
  setAttrInts(n, "explicit_paddings", {});
  return KTensor{n->name(), convShape(x, filter.dim(0), filter.dim(1), filter.dim(3), w), x.dtype, ""};
}

KTensor TfOps::depthwiseConv2d(const std::string& name, const KTensor& x, const KTensor& filter, const Window& w) {
  auto* n = node("DepthwiseConv2dNative", name, {x.name, filter.name});
  setWindow(n, w);
  setAttrInts(n, "dilations", {1, w.dilations[0], w.dilations[1], 1});
  setAttrInts(n, "explicit_paddings", {});
  return KTensor{n->name(), convShape(x, filter.dim(0), filter.dim(1), filter.dim(2) * filter.dim(3), w), x.dtype,
                 ""};
}

KTensor TfOps::conv2dTranspose(const std::string& name, const KTensor& x, const KTensor& filter, const Window& w,
                               const Shape& output_shape) {
  std::string sizes;
  if (output_shape[0] >= 0) {
    sizes = int32s(name + "/input_sizes", output_shape).name;
  } else {
    // The batch comes from the input at run time, as Keras' traced
    // tf.shape(inputs)[0] does.
    KTensor shape = shapeOf(name + "/Shape", x);
    KTensor batch = sliceIndex(name + "/strided_slice", shape, 0, 0);
    std::vector<KTensor> parts = {batch};
    for (int k = 1; k < 4; ++k) {
      HostTensor v = HostTensor::zeros(tf::DT_INT32, {});
      v.as<std::int32_t>()[0] = static_cast<std::int32_t>(output_shape[static_cast<std::size_t>(k)]);
      parts.push_back(constant(name + "/stack/" + std::to_string(k), v));
    }
    sizes = pack(name + "/stack", parts, 0).name;
  }
  auto* n = node("Conv2DBackpropInput", name, {sizes, filter.name, x.name});
  setWindow(n, w);
  setAttrInts(n, "dilations", {1, w.dilations[0], w.dilations[1], 1});
  setAttrBool(n, "use_cudnn_on_gpu", true);
  setAttrInts(n, "explicit_paddings", {});
  Shape out = output_shape;
  if (out[0] < 0) out[0] = x.dim(0);
  return KTensor{n->name(), out, x.dtype, ""};
}

KTensor TfOps::pool(const std::string& op, const std::string& name, const KTensor& x,
                    const std::vector<std::int64_t>& ksize, const Window& w) {
  auto* n = node(op, name, {x.name});
  setWindow(n, w);
  setAttrInts(n, "ksize", {1, ksize[0], ksize[1], 1});
  return KTensor{n->name(), convShape(x, ksize[0], ksize[1], x.dim(3), w), x.dtype, ""};
}

KTensor TfOps::fusedBatchNorm(const std::string& name, const KTensor& x, const KTensor& scale, const KTensor& offset,
                              const KTensor& mean, const KTensor& variance, float epsilon) {
  auto* n = node("FusedBatchNormV3", name, {x.name, scale.name, offset.name, mean.name, variance.name});
  setAttrType(n, "U", tf::DT_FLOAT);
  setAttrFloat(n, "epsilon", epsilon);
  setAttrFloat(n, "exponential_avg_factor", 1.0f);
  setAttrString(n, "data_format", "NHWC");
  setAttrBool(n, "is_training", false);
  return KTensor{n->name(), x.shape, x.dtype, ""};
}

KTensor TfOps::reshape(const std::string& name, const KTensor& x, const Shape& shape) {
  KTensor target = int32s(name + "/shape", shape);
  Shape out = shape;
  const auto unknown = std::find(out.begin(), out.end(), -1);
  if (unknown != out.end()) {
    std::int64_t known = 1;
    for (auto d : out)
      if (d >= 0) known *= d;
    const std::int64_t total = numElements(x.shape);
    *unknown = total >= 0 && known > 0 ? total / known : -1;
  }
  return reshapeTo(name, x, target, out);
}

KTensor TfOps::reshapeTo(const std::string& name, const KTensor& x, const KTensor& shape, const Shape& result) {
  auto* n = node("Reshape", name, {x.name, shape.name}, x.dtype);
  setAttrType(n, "Tshape", tf::DT_INT32);
  return KTensor{n->name(), result, x.dtype, ""};
}

KTensor TfOps::transpose(const std::string& name, const KTensor& x, const std::vector<std::int64_t>& perm) {
  KTensor p = int32s(name + "/perm", perm);
  auto* n = node("Transpose", name, {x.name, p.name}, x.dtype);
  setAttrType(n, "Tperm", tf::DT_INT32);
  Shape out;
  for (auto axis : perm) out.push_back(x.shape[static_cast<std::size_t>(axis)]);
  return KTensor{n->name(), out, x.dtype, ""};
}

KTensor TfOps::expandDims(const std::string& name, const KTensor& x, std::int64_t axis) {
  HostTensor dim = HostTensor::zeros(tf::DT_INT32, {});
  dim.as<std::int32_t>()[0] = static_cast<std::int32_t>(axis);
  KTensor d = constant(name + "/dim", dim);
  auto* n = node("ExpandDims", name, {x.name, d.name}, x.dtype);
  setAttrType(n, "Tdim", tf::DT_INT32);
  Shape out = x.shape;
  const std::int64_t at = axis < 0 ? axis + x.rank() + 1 : axis;
  out.insert(out.begin() + at, 1);
  return KTensor{n->name(), out, x.dtype, ""};
}

KTensor TfOps::squeeze(const std::string& name, const KTensor& x, const std::vector<std::int64_t>& axes) {
  auto* n = node("Squeeze", name, {x.name}, x.dtype);
  setAttrInts(n, "squeeze_dims", axes);
  Shape out;
  for (int i = 0; i < x.rank(); ++i)
    if (std::find(axes.begin(), axes.end(), i) == axes.end() &&
        std::find(axes.begin(), axes.end(), i - x.rank()) == axes.end())
      out.push_back(x.shape[static_cast<std::size_t>(i)]);
  return KTensor{n->name(), out, x.dtype, ""};
}

KTensor TfOps::concat(const std::string& name, const std::vector<KTensor>& xs, std::int64_t axis) {
  std::vector<std::string> inputs;
  for (const auto& x : xs) inputs.push_back(x.name);
  HostTensor a = HostTensor::zeros(tf::DT_INT32, {});
  a.as<std::int32_t>()[0] = static_cast<std::int32_t>(axis);
  inputs.push_back(constant(name + "/axis", a).name);
  auto* n = node("ConcatV2", name, inputs, xs[0].dtype);
  setAttrInt(n, "N", static_cast<std::int64_t>(xs.size()));
  setAttrType(n, "Tidx", tf::DT_INT32);
  Shape out = xs[0].shape;
  const auto at = static_cast<std::size_t>(axis < 0 ? axis + xs[0].rank() : axis);
  std::int64_t total = 0;
  for (const auto& x : xs) total = total < 0 || x.shape[at] < 0 ? -1 : total + x.shape[at];
  out[at] = total;
  for (std::size_t d = 0; d < out.size(); ++d)
    if (d != at && out[d] < 0)
      for (const auto& x : xs) out[d] = std::max(out[d], x.shape[d]);
  return KTensor{n->name(), out, xs[0].dtype, ""};
}

KTensor TfOps::pack(const std::string& name, const std::vector<KTensor>& xs, std::int64_t axis) {
  std::vector<std::string> inputs;
  for (const auto& x : xs) inputs.push_back(x.name);
  auto* n = node("Pack", name, inputs, xs[0].dtype);
  setAttrInt(n, "N", static_cast<std::int64_t>(xs.size()));
  setAttrInt(n, "axis", axis);
  Shape out = xs[0].shape;
  out.insert(out.begin() + (axis < 0 ? axis + xs[0].rank() + 1 : axis), static_cast<std::int64_t>(xs.size()));
  return KTensor{n->name(), out, xs[0].dtype, ""};
}

std::vector<KTensor> TfOps::unpack(const std::string& name, const KTensor& x, std::int64_t axis) {
  const std::int64_t count = x.dim(static_cast<int>(axis));
  auto* n = node("Unpack", name, {x.name}, x.dtype);
  setAttrInt(n, "num", count);
  setAttrInt(n, "axis", axis);
  Shape part = x.shape;
  part.erase(part.begin() + axis);
  std::vector<KTensor> out;
  for (std::int64_t k = 0; k < count; ++k)
    out.push_back(KTensor{k == 0 ? n->name() : n->name() + ":" + std::to_string(k), part, x.dtype, ""});
  return out;
}

std::vector<KTensor> TfOps::split(const std::string& name, const KTensor& x, std::int64_t axis, int parts) {
  HostTensor a = HostTensor::zeros(tf::DT_INT32, {});
  a.as<std::int32_t>()[0] = static_cast<std::int32_t>(axis);
  KTensor dim = constant(name + "/split_dim", a);
  auto* n = node("Split", name, {dim.name, x.name}, x.dtype);
  setAttrInt(n, "num_split", parts);
  Shape part = x.shape;
  auto& d = part[static_cast<std::size_t>(axis < 0 ? axis + x.rank() : axis)];
  d = d < 0 ? -1 : d / parts;
  std::vector<KTensor> out;
  for (int k = 0; k < parts; ++k)
    out.push_back(KTensor{k == 0 ? n->name() : n->name() + ":" + std::to_string(k), part, x.dtype, ""});
  return out;
}

KTensor TfOps::tile(const std::string& name, const KTensor& x, const std::vector<std::int64_t>& multiples) {
  KTensor m = int32s(name + "/multiples", multiples);
  auto* n = node("Tile", name, {x.name, m.name}, x.dtype);
  setAttrType(n, "Tmultiples", tf::DT_INT32);
  Shape out = x.shape;
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = out[i] < 0 ? -1 : out[i] * multiples[i];
  return KTensor{n->name(), out, x.dtype, ""};
}

KTensor TfOps::reduce(const std::string& op, const std::string& name, const KTensor& x,
                      const std::vector<std::int64_t>& axes, bool keep_dims) {
  KTensor r = int32s(name + "/reduction_indices", axes);
  auto* n = node(op, name, {x.name, r.name}, x.dtype);
  setAttrType(n, "Tidx", tf::DT_INT32);
  setAttrBool(n, "keep_dims", keep_dims);
  Shape out;
  for (int i = 0; i < x.rank(); ++i) {
    const bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (!reduced) out.push_back(x.shape[static_cast<std::size_t>(i)]);
    else if (keep_dims) out.push_back(1);
  }
  return KTensor{n->name(), out, x.dtype, ""};
}

KTensor TfOps::pad(const std::string& name, const KTensor& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& pads,
                   const std::string& mirror_mode) {
  HostTensor p = HostTensor::zeros(tf::DT_INT32, {static_cast<std::int64_t>(pads.size()), 2});
  Shape out = x.shape;
  for (std::size_t i = 0; i < pads.size(); ++i) {
    p.as<std::int32_t>()[2 * i] = static_cast<std::int32_t>(pads[i].first);
    p.as<std::int32_t>()[2 * i + 1] = static_cast<std::int32_t>(pads[i].second);
    if (out[i] >= 0) out[i] += pads[i].first + pads[i].second;
  }
  KTensor paddings = constant(name + "/paddings", p);
  auto* n = node(mirror_mode.empty() ? "Pad" : "MirrorPad", name, {x.name, paddings.name}, x.dtype);
  setAttrType(n, "Tpaddings", tf::DT_INT32);
  if (!mirror_mode.empty()) setAttrString(n, "mode", mirror_mode);
  return KTensor{n->name(), out, x.dtype, ""};
}

KTensor TfOps::slice(const std::string& name, const KTensor& x, const std::vector<std::int64_t>& begin,
                     const std::vector<std::int64_t>& end) {
  const auto rank = static_cast<std::int64_t>(begin.size());
  std::vector<std::int64_t> ends(end), strides(static_cast<std::size_t>(rank), 1);
  std::int64_t end_mask = 0;
  Shape out = x.shape;
  for (std::int64_t i = 0; i < rank; ++i) {
    const auto u = static_cast<std::size_t>(i);
    const std::int64_t dim = out[u];
    if (end[u] == kToEnd) {
      end_mask |= std::int64_t{1} << i;
      ends[u] = 0;
      out[u] = dim < 0 ? -1 : std::max<std::int64_t>(dim - begin[u], 0);
    } else if (end[u] < 0) {
      out[u] = dim < 0 ? -1 : std::max<std::int64_t>(dim + end[u] - begin[u], 0);
    } else {
      out[u] = dim < 0 ? end[u] - begin[u] : std::max<std::int64_t>(std::min(end[u], dim) - begin[u], 0);
    }
  }
  KTensor b = int32s(name + "/stack", begin), e = int32s(name + "/stack_1", ends), s = int32s(name + "/stack_2", strides);
  auto* n = node("StridedSlice", name, {x.name, b.name, e.name, s.name}, x.dtype);
  setAttrType(n, "Index", tf::DT_INT32);
  setAttrInt(n, "begin_mask", 0);
  setAttrInt(n, "end_mask", end_mask);
  setAttrInt(n, "ellipsis_mask", 0);
  setAttrInt(n, "new_axis_mask", 0);
  setAttrInt(n, "shrink_axis_mask", 0);
  return KTensor{n->name(), out, x.dtype, ""};
}

KTensor TfOps::sliceIndex(const std::string& name, const KTensor& x, std::int64_t axis, std::int64_t index) {
  const auto rank = static_cast<std::size_t>(x.rank());
  std::vector<std::int64_t> begin(rank, 0), end(rank, 0), strides(rank, 1);
  begin[static_cast<std::size_t>(axis)] = index;
  end[static_cast<std::size_t>(axis)] = index + 1;
  const std::int64_t all = ((std::int64_t{1} << rank) - 1) & ~(std::int64_t{1} << axis);
  KTensor b = int32s(name + "/stack", begin), e = int32s(name + "/stack_1", end), s = int32s(name + "/stack_2", strides);
  auto* n = node("StridedSlice", name, {x.name, b.name, e.name, s.name}, x.dtype);
  setAttrType(n, "Index", tf::DT_INT32);
  setAttrInt(n, "begin_mask", all);
  setAttrInt(n, "end_mask", all);
  setAttrInt(n, "ellipsis_mask", 0);
  setAttrInt(n, "new_axis_mask", 0);
  setAttrInt(n, "shrink_axis_mask", std::int64_t{1} << axis);
  Shape out = x.shape;
  out.erase(out.begin() + axis);
  return KTensor{n->name(), out, x.dtype, ""};
}

KTensor TfOps::reverse(const std::string& name, const KTensor& x, std::int64_t axis) {
  const auto rank = static_cast<std::size_t>(x.rank());
  std::vector<std::int64_t> begin(rank, 0), end(rank, 0), strides(rank, 1);
  strides[static_cast<std::size_t>(axis)] = -1;
  const std::int64_t all = (std::int64_t{1} << rank) - 1;
  KTensor b = int32s(name + "/stack", begin), e = int32s(name + "/stack_1", end), s = int32s(name + "/stack_2", strides);
  auto* n = node("StridedSlice", name, {x.name, b.name, e.name, s.name}, x.dtype);
  setAttrType(n, "Index", tf::DT_INT32);
  setAttrInt(n, "begin_mask", all);
  setAttrInt(n, "end_mask", all);
  setAttrInt(n, "ellipsis_mask", 0);
  setAttrInt(n, "new_axis_mask", 0);
  setAttrInt(n, "shrink_axis_mask", 0);
  return KTensor{n->name(), x.shape, x.dtype, ""};
}

KTensor TfOps::gather(const std::string& name, const KTensor& params, const KTensor& indices, std::int64_t axis) {
  HostTensor a = HostTensor::zeros(tf::DT_INT32, {});
  a.as<std::int32_t>()[0] = static_cast<std::int32_t>(axis);
  KTensor ax = constant(name + "/axis", a);
  auto* n = node("GatherV2", name, {params.name, indices.name, ax.name}, tf::DT_INVALID);
  setAttrType(n, "Tparams", params.dtype);
  setAttrType(n, "Tindices", indices.dtype);
  setAttrType(n, "Taxis", tf::DT_INT32);
  setAttrInt(n, "batch_dims", 0);
  Shape out(params.shape.begin(), params.shape.begin() + axis);
  out.insert(out.end(), indices.shape.begin(), indices.shape.end());
  out.insert(out.end(), params.shape.begin() + axis + 1, params.shape.end());
  return KTensor{n->name(), out, params.dtype, ""};
}

KTensor TfOps::cast(const std::string& name, const KTensor& x, tf::DataType to) {
  auto* n = node("Cast", name, {x.name}, tf::DT_INVALID);
  setAttrType(n, "SrcT", x.dtype);
  setAttrType(n, "DstT", to);
  setAttrBool(n, "Truncate", false);
  return KTensor{n->name(), x.shape, to, ""};
}

KTensor TfOps::shapeOf(const std::string& name, const KTensor& x) {
  auto* n = node("Shape", name, {x.name}, x.dtype);
  setAttrType(n, "out_type", tf::DT_INT32);
  return KTensor{n->name(), {x.rank()}, tf::DT_INT32, ""};
}

KTensor TfOps::resize(const std::string& op, const std::string& name, const KTensor& x, std::int64_t h, std::int64_t w,
                      bool half_pixel_centers, const std::string& size_tensor) {
  const std::string size = size_tensor.empty() ? int32s(name + "/size", {h, w}).name : size_tensor;
  auto* n = node(op, name, {x.name, size}, x.dtype);
  setAttrBool(n, "align_corners", false);
  setAttrBool(n, "half_pixel_centers", half_pixel_centers);
  return KTensor{n->name(), {x.dim(0), h, w, x.dim(3)}, x.dtype, ""};
}

KTensor TfOps::softmax(const std::string& op, const std::string& name, const KTensor& x) {
  return unary(op, name, x);
}

}  // namespace gds::model::keras
