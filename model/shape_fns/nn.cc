// Layers (nn_ops.cc, math_ops.cc, image_ops.cc and their quantized forms):
// convolutions and pools by TF's windowed output size, matrix products,
// batch norms, resizes.
#include "model/shape_fns/shape_fn.h"

namespace gds::model::shape_fns {
namespace {

void convShape(ShapeContext& c, bool depthwise, DataType dtype) {
  const NodeDef& n = c.def();
  const TensorInfo& x = c.in(0);
  const TensorInfo& f = c.in(1);
  std::string fmt = attrString(n, "data_format", "NHWC");
  if (!x.known_rank || x.shape.size() != 4) {
    c.set(0, TensorInfo::unknown(dtype));
    return;
  }
  bool nchw = fmt == "NCHW";
  int hd = nchw ? 2 : 1, wd = nchw ? 3 : 2, cd = nchw ? 1 : 3;
  auto strides = attrInts(n, "strides");
  auto dil = attrInts(n, "dilations");
  auto pads = attrInts(n, "explicit_paddings");
  std::string padding = attrString(n, "padding", "");
  auto at = [](const std::vector<std::int64_t>& v, int k, std::int64_t d) {
    return k < static_cast<int>(v.size()) ? v[k] : d;
  };
  Shape fs = f.known_rank && f.shape.size() == 4 ? f.shape : Shape{-1, -1, -1, -1};
  Shape out(4, -1);
  out[0] = x.shape[0];
  out[hd] = windowed(x.shape[hd], fs[0], at(strides, hd, -1), at(dil, hd, 1), padding, at(pads, 2 * hd, 0),
                     at(pads, 2 * hd + 1, 0));
  out[wd] = windowed(x.shape[wd], fs[1], at(strides, wd, -1), at(dil, wd, 1), padding, at(pads, 2 * wd, 0),
                     at(pads, 2 * wd + 1, 0));
  out[cd] = depthwise ? dimMul(fs[2] >= 0 ? fs[2] : x.shape[cd], fs[3]) : fs[3];
  c.set(0, TensorInfo::ranked(dtype, out));
}

void poolShape(ShapeContext& c, DataType dtype) {
  const NodeDef& n = c.def();
  const TensorInfo& x = c.in(0);
  if (!x.known_rank || x.shape.size() != 4) {
    c.set(0, TensorInfo::unknown(dtype));
    return;
  }
  bool nchw = attrString(n, "data_format", "NHWC") == "NCHW";
  auto k = attrInts(n, "ksize");
  auto s = attrInts(n, "strides");
  std::string padding = attrString(n, "padding", "");
  if (k.size() != 4 || s.size() != 4) {
    c.set(0, TensorInfo::unknown(dtype));
    return;
  }
  Shape out = x.shape;
  for (int d : {nchw ? 2 : 1, nchw ? 3 : 2}) out[d] = windowed(x.shape[d], k[d], s[d], 1, padding, 0, 0);
  c.set(0, TensorInfo::ranked(dtype, out));
}

void conv(ShapeContext& c) { convShape(c, c.op() == "DepthwiseConv2dNative", c.T()); }

void quantizedConv(ShapeContext& c) {
  convShape(c, false, attrType(c.def(), "out_type", tensorflow::DT_QINT32));
  setQuantizedRange(c);
}

void quantizedFusedConv(ShapeContext& c) {
  convShape(c, c.op() == "QuantizedFusedDepthwiseConv2dNative",
            attrType(c.def(), "out_type", tensorflow::DT_QUINT8));
  setQuantizedRange(c);
}

void pool(ShapeContext& c) { poolShape(c, c.T()); }

void quantizedPool(ShapeContext& c) {
  poolShape(c, attrType(c.def(), "T", tensorflow::DT_QUINT8));
  setQuantizedRange(c);
}

void matMul(ShapeContext& c) {
  const std::string& op = c.op();
  const NodeDef& n = c.def();
  const TensorInfo& a = c.in(0);
  const TensorInfo& b = c.in(1);
  DataType dt = op == "MatMul"            ? c.T()
                : op == "QuantizedMatMul" ? attrType(n, "Toutput", tensorflow::DT_QINT32)
                                          : attrType(n, "out_type", tensorflow::DT_QUINT8);
  Shape out = {-1, -1};
  if (a.known_rank && a.shape.size() == 2) out[0] = a.shape[attrBool(n, "transpose_a", false) ? 1 : 0];
  if (b.known_rank && b.shape.size() == 2) out[1] = b.shape[attrBool(n, "transpose_b", false) ? 0 : 1];
  c.set(0, TensorInfo::ranked(dt, out));
  if (op != "MatMul") setQuantizedRange(c);
}

void batchMatMul(ShapeContext& c) {
  const DataType T = c.T();
  const TensorInfo& a = c.in(0);
  const TensorInfo& b = c.in(1);
  if (!a.known_rank || !b.known_rank || a.shape.size() < 2 || b.shape.size() < 2) {
    c.set(0, TensorInfo::unknown(T));
    return;
  }
  TensorInfo ba = TensorInfo::ranked(T, Shape(a.shape.begin(), a.shape.end() - 2));
  TensorInfo bb = TensorInfo::ranked(T, Shape(b.shape.begin(), b.shape.end() - 2));
  auto batch = broadcast(ba, bb, T);
  if (!batch) {
    c.set(0, TensorInfo::unknown(T));
    return;
  }
  Shape out = batch->shape;
  size_t ra = a.shape.size(), rb = b.shape.size();
  out.push_back(attrBool(c.def(), "adj_x", false) ? a.shape[ra - 1] : a.shape[ra - 2]);
  out.push_back(attrBool(c.def(), "adj_y", false) ? b.shape[rb - 2] : b.shape[rb - 1]);
  c.set(0, TensorInfo::ranked(T, out));
}

// y has x's shape; the statistics are vectors of x's channel count.
void batchNorm(ShapeContext& c) {
  const std::string& op = c.op();
  const TensorInfo& x = c.in(0);
  DataType u = attrType(c.def(), "U", tensorflow::DT_FLOAT);
  if (op == "FusedBatchNorm") u = c.T();
  c.set(0, TensorInfo{c.T(), x.known_rank, x.shape});
  if (op == "BatchNormWithGlobalNormalization") return;
  std::int64_t ch = -1;
  if (x.known_rank && x.shape.size() == 4) ch = x.shape[attrString(c.def(), "data_format", "NHWC") == "NCHW" ? 1 : 3];
  if (ch < 0 && c.in(1).known_rank && c.in(1).shape.size() == 1) ch = c.in(1).shape[0];
  for (int k = 1; k <= 4; ++k) c.set(k, TensorInfo::ranked(u, {ch}));
  if (op == "FusedBatchNormV3") c.set(5, TensorInfo::unknown(u));
}

void resize(ShapeContext& c) {
  const std::string& op = c.op();
  const TensorInfo& x = c.in(0);
  const auto* size = c.value(1);
  DataType dt = op == "ResizeBilinear" || op == "ResizeBicubic" ? tensorflow::DT_FLOAT : c.passDtype(0);
  Shape out = {x.known_rank && x.shape.size() == 4 ? x.shape[0] : -1, -1, -1,
               x.known_rank && x.shape.size() == 4 ? x.shape[3] : -1};
  if (size && size->size() == 2) {
    out[1] = (*size)[0];
    out[2] = (*size)[1];
  }
  c.set(0, TensorInfo::ranked(dt, out));
}

void requantizationRange(ShapeContext& c) {
  c.set(0, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
  c.set(1, TensorInfo::ranked(tensorflow::DT_FLOAT, {}));
}

}  // namespace

void registerNnShapeFns(ShapeFnRegistry& r) {
  r.add({"Conv2D", "DepthwiseConv2dNative"}, conv);
  r.add({"QuantizedConv2D"}, quantizedConv);
  r.add({"QuantizedFusedConv2D", "QuantizedFusedDepthwiseConv2dNative"}, quantizedFusedConv);
  r.add({"MaxPool", "AvgPool"}, pool);
  r.add({"QuantizedMaxPool", "QuantizedAvgPool"}, quantizedPool);
  r.add({"MatMul", "QuantizedMatMul", "QuantizedFusedMatMul"}, matMul);
  r.add({"BatchMatMul", "BatchMatMulV2"}, batchMatMul);
  r.add({"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3", "BatchNormWithGlobalNormalization"}, batchNorm);
  r.add({"ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic"}, resize);
  r.add({"RequantizationRange"}, requantizationRange);
}

}  // namespace gds::model::shape_fns
