// Merge layers (keras/src/layers/merging): Add, Subtract, Multiply,
// Average, Maximum, Minimum fold their inputs pairwise left to right as
// Keras' _merge_function does; Concatenate is a ConcatV2; Dot is Keras'
// batch_dot (a BatchMatMulV2 over the contracted axes, or a Mul and Sum for
// two vectors), with optional L2 normalization first.
#include <cmath>

#include "model/keras/convert_impl.h"

namespace gds::model::keras {

namespace {

Result<std::vector<KTensor>> one(Result<KTensor> t) {
  if (!t.ok()) return t.status();
  return std::vector<KTensor>{*t};
}

Result<std::vector<KTensor>> foldLayer(LayerContext& ctx, const std::string& op, const std::string& name) {
  const auto& xs = ctx.inputs();
  if (xs.size() < 2) return ctx.error("merges at least two inputs, got " + std::to_string(xs.size()));
  TfOps& ops = ctx.ops();
  KTensor out = xs[0];
  for (std::size_t i = 1; i < xs.size(); ++i)
    out = ops.binary(op, i == 1 ? name : name + "_" + std::to_string(i - 1), out, xs[i]);
  return std::vector<KTensor>{out};
}

Result<std::vector<KTensor>> subtractLayer(LayerContext& ctx) {
  if (ctx.inputs().size() != 2)
    return ctx.error("subtracts exactly two inputs, got " + std::to_string(ctx.inputs().size()));
  return one(ctx.ops().binary("Sub", "sub", ctx.inputs()[0], ctx.inputs()[1]));
}

Result<std::vector<KTensor>> averageLayer(LayerContext& ctx) {
  auto sum = foldLayer(ctx, "AddV2", "add");
  if (!sum.ok()) return sum;
  TfOps& ops = ctx.ops();
  const float n = static_cast<float>(ctx.inputs().size());
  return one(ops.binary("RealDiv", "truediv", (*sum)[0], ops.scalar("truediv/y", n)));
}

Result<std::vector<KTensor>> concatenateLayer(LayerContext& ctx) {
  const auto& xs = ctx.inputs();
  if (xs.empty()) return ctx.error("has no inputs");
  auto axis = ctx.integer("axis", -1);
  if (!axis.ok()) return axis.status();
  const int rank = xs[0].rank();
  for (const auto& x : xs)
    if (x.rank() != rank) return ctx.error("concatenates inputs of different ranks");
  std::int64_t a = *axis < 0 ? *axis + rank : *axis;
  if (a < 0 || a >= rank) return ctx.error("axis " + std::to_string(*axis) + " is out of range");
  if (xs.size() == 1) return std::vector<KTensor>{xs[0]};
  return one(ctx.ops().concat("concat", xs, a));
}

// tf.math.l2_normalize along `axis`: x * rsqrt(max(sum(x^2), 1e-12)).
KTensor l2Normalize(TfOps& ops, const std::string& name, const KTensor& x, std::int64_t axis) {
  KTensor sq = ops.reduce("Sum", name + "/Sum", ops.unary("Square", name + "/Square", x), {axis}, true);
  KTensor m = ops.binary("Maximum", name + "/Maximum", sq, ops.scalar(name + "/Maximum/y", 1e-12f));
  return ops.binary("Mul", name, x, ops.unary("Rsqrt", name + "/Rsqrt", m));
}

// Keras' batch_dot for the axes a (of x) and b (of y): the contracted axes
// moved to the end of x and after the batch of y, a BatchMatMulV2, and the
// result reshaped to keep the non-contracted axes in order.
Result<std::vector<KTensor>> dotLayer(LayerContext& ctx) {
  if (ctx.inputs().size() != 2) return ctx.error("takes two inputs, got " + std::to_string(ctx.inputs().size()));
  KTensor x = ctx.inputs()[0], y = ctx.inputs()[1];
  auto normalize = ctx.flag("normalize", false);
  if (!normalize.ok()) return normalize.status();
  const Json& axes = ctx.value("axes");
  std::int64_t ax = 0, ay = 0;
  if (axes.is_number_integer()) {
    ax = ay = axes.get<std::int64_t>();
  } else if (axes.is_array() && axes.size() == 2 && axes[0].is_number_integer() && axes[1].is_number_integer()) {
    ax = axes[0].get<std::int64_t>();
    ay = axes[1].get<std::int64_t>();
  } else {
    return ctx.error("axes " + axes.dump().substr(0, 100) + " is not an int or two ints");
  }
  if (ax < 0) ax += x.rank();
  if (ay < 0) ay += y.rank();
  if (ax < 1 || ax >= x.rank() || ay < 1 || ay >= y.rank())
    return ctx.error("axes " + axes.dump() + " do not name non-batch axes of " + shapeString(x.shape) + " and " +
                     shapeString(y.shape));
  if (x.rank() > 3 || y.rank() > 3) return ctx.error("Dot of inputs of rank above 3 is not converted");
  TfOps& ops = ctx.ops();
  if (*normalize) {
    x = l2Normalize(ops, "l2_normalize", x, ax);
    y = l2Normalize(ops, "l2_normalize_1", y, ay);
  }
  if (x.rank() == 2 && y.rank() == 2) {  // two vectors per example: (batch, 1)
    KTensor prod = ops.binary("Mul", "mul", x, y);
    return one(ops.reduce("Sum", "Sum", prod, {1}, true));
  }
  // Rank 3 (or a vector with a rank-3 tensor): x contracted on its last axis, y on axis 1.
  KTensor a = x, b = y;
  if (a.rank() == 2) a = ops.expandDims("ExpandDims", a, 1);
  else if (ax == 1) a = ops.transpose("transpose", a, {0, 2, 1});
  if (b.rank() == 2) b = ops.expandDims("ExpandDims_1", b, 2);
  else if (ay == 2) b = ops.transpose("transpose_1", b, {0, 2, 1});
  KTensor out = ops.batchMatMul("MatMul", a, b, false, false);
  std::vector<std::int64_t> drop;
  if (x.rank() == 2) drop.push_back(1);
  if (y.rank() == 2) drop.push_back(2);
  if (!drop.empty()) out = ops.squeeze("Squeeze", out, drop);
  return one(out);
}

}  // namespace

void addMergeLayers(LayerRegistry& r) {
  r["Add"] = [](LayerContext& ctx) { return foldLayer(ctx, "AddV2", "add"); };
  r["Multiply"] = [](LayerContext& ctx) { return foldLayer(ctx, "Mul", "mul"); };
  r["Maximum"] = [](LayerContext& ctx) { return foldLayer(ctx, "Maximum", "Maximum"); };
  r["Minimum"] = [](LayerContext& ctx) { return foldLayer(ctx, "Minimum", "Minimum"); };
  r["Subtract"] = subtractLayer;
  r["Average"] = averageLayer;
  r["Concatenate"] = concatenateLayer;
  r["Dot"] = dotLayer;
}

}  // namespace gds::model::keras
