// Normalization layers at inference:
// - BatchNormalization with its moving statistics: tf.nn.batch_normalization's
//   ops (Keras 3, and Keras 2 off the fused path), or FusedBatchNormV3 where
//   Keras 2 took its fused path (rank 4, channels last), whose epsilon
//   TensorFlow raises to at least 1.001e-5 (nn_impl.fused_batch_norm);
// - LayerNormalization: tf.nn.moments over its axes, then the same affine
//   form (keras/src/layers/normalization/layer_normalization.py);
// - Normalization (preprocessing): (x - mean) / max(sqrt(variance), 1e-7),
//   or its inverse; UnitNormalization: an L2 normalization.
#include <algorithm>
#include <cmath>

#include "model/keras/convert_impl.h"

namespace gds::model::keras {

namespace {

namespace tf = tensorflow;

// TensorFlow's minimum epsilon for fused batch norm (cuDNN's).
constexpr float kFusedMinEpsilon = 1.001e-5f;
// keras.backend.epsilon().
constexpr float kKerasEpsilon = 1e-7f;

Result<std::vector<KTensor>> one(Result<KTensor> t) {
  if (!t.ok()) return t.status();
  return std::vector<KTensor>{*t};
}

// The layer's axes (an int or a list), made non-negative and sorted.
Result<std::vector<std::int64_t>> readAxes(LayerContext& ctx, const KTensor& x, std::int64_t fallback) {
  const Json& v = ctx.value("axis");
  std::vector<std::int64_t> axes;
  if (v.is_null()) axes.push_back(fallback);
  else if (v.is_number_integer()) axes.push_back(v.get<std::int64_t>());
  else if (v.is_array())
    for (const auto& a : v) {
      if (!a.is_number_integer()) return ctx.error("axis " + v.dump() + " holds " + a.dump());
      axes.push_back(a.get<std::int64_t>());
    }
  else return ctx.error("axis is " + v.dump().substr(0, 100));
  for (auto& a : axes) {
    if (a < 0) a += x.rank();
    if (a < 1 || a >= x.rank()) return ctx.error("axis " + v.dump() + " is not a non-batch axis of " + shapeString(x.shape));
    if (x.dim(static_cast<int>(a)) < 0)
      return ctx.error("needs dimension " + std::to_string(a) + " of its input " + shapeString(x.shape) + " to be known");
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) return ctx.error("axis " + v.dump() + " repeats");
  return axes;
}

// A per-feature weight reshaped to broadcast against x (ones at the other axes).
KTensor broadcastTo(TfOps& ops, const std::string& name, const KTensor& w, const KTensor& x,
                    const std::vector<std::int64_t>& axes) {
  if (axes.size() == 1 && axes[0] == x.rank() - 1) return w;
  Shape shape(static_cast<std::size_t>(x.rank()), 1);
  for (auto a : axes) shape[static_cast<std::size_t>(a)] = x.dim(static_cast<int>(a));
  return ops.reshape(name, w, shape);
}

// tf.nn.batch_normalization: inv = rsqrt(variance + eps) [* scale];
// x * inv + (offset - mean * inv).
KTensor batchNormOps(TfOps& ops, const KTensor& x, const KTensor& mean, const KTensor& variance, const KTensor* scale,
                     const KTensor* offset, float epsilon) {
  KTensor inv = ops.unary("Rsqrt", "batchnorm/Rsqrt",
                          ops.binary("AddV2", "batchnorm/add", variance, ops.scalar("batchnorm/add/y", epsilon)));
  if (scale) inv = ops.binary("Mul", "batchnorm/mul", inv, *scale);
  KTensor scaled_x = ops.binary("Mul", "batchnorm/mul_1", x, inv);
  KTensor mean_inv = ops.binary("Mul", "batchnorm/mul_2", mean, inv);
  KTensor shift = offset ? ops.binary("Sub", "batchnorm/sub", *offset, mean_inv)
                         : ops.unary("Neg", "batchnorm/Neg", mean_inv);
  return ops.binary("AddV2", "batchnorm/add_1", scaled_x, shift);
}

// The options BatchNormalization and LayerNormalization share, with their
// Keras defaults (axis -1, epsilon 1e-3, center and scale on).
struct NormOptions {
  std::vector<std::int64_t> axes;
  double epsilon = 1e-3;
  bool center = true, scale = true;
};

Result<NormOptions> readNormOptions(LayerContext& ctx, const KTensor& x) {
  auto axes = readAxes(ctx, x, -1);
  auto epsilon = ctx.number("epsilon", 1e-3);
  auto center = ctx.flag("center", true);
  auto scale = ctx.flag("scale", true);
  for (const Status& s : {axes.status(), epsilon.status(), center.status(), scale.status()})
    if (!s.ok()) return s;
  NormOptions o;
  o.axes = std::move(axes).value();
  o.epsilon = *epsilon;
  o.center = *center;
  o.scale = *scale;
  return o;
}

Result<std::vector<KTensor>> batchNormLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  auto options = readNormOptions(ctx, *x);
  if (!options.ok()) return options.status();
  auto renorm = ctx.flag("renorm", false);
  if (!renorm.ok()) return renorm.status();
  const std::vector<std::int64_t>& axes = options->axes;
  const double epsilon = options->epsilon;
  const bool center = options->center, scale = options->scale;
  if (axes.size() != 1) return ctx.error("normalizing over several axes " + ctx.value("axis").dump() + " is not converted");
  if (*renorm) return ctx.error("batch renormalization (renorm=True) is not converted");
  const std::int64_t axis = axes[0], channels = x->dim(static_cast<int>(axis));
  std::vector<std::string> names;
  if (scale) names.push_back("gamma");
  if (center) names.push_back("beta");
  names.push_back("moving_mean");
  names.push_back("moving_variance");
  auto w = ctx.weights(names, std::vector<Shape>(names.size(), Shape{channels}));
  if (!w.ok()) return w.status();
  const KTensor* gamma = scale ? &(*w)[0] : nullptr;
  const KTensor* beta = center ? &(*w)[scale ? 1 : 0] : nullptr;
  const KTensor& mean = (*w)[names.size() - 2];
  const KTensor& variance = (*w)[names.size() - 1];
  TfOps& ops = ctx.ops();
  const auto eps = static_cast<float>(epsilon);
  if (ctx.version().keras2() && x->rank() == 4 && axis == 3) {
    std::vector<float> ones(static_cast<std::size_t>(channels), 1.0f), zeros(ones.size(), 0.0f);
    KTensor g = gamma ? *gamma : KTensor{ops.builder().constantFloat("Const", {channels}, ones), {channels}, tf::DT_FLOAT, ""};
    KTensor b = beta ? *beta : KTensor{ops.builder().constantFloat("Const_1", {channels}, zeros), {channels}, tf::DT_FLOAT, ""};
    return one(ops.fusedBatchNorm("FusedBatchNormV3", *x, g, b, mean, variance, std::max(eps, kFusedMinEpsilon)));
  }
  KTensor m = broadcastTo(ops, "Reshape", mean, *x, axes);
  KTensor v = broadcastTo(ops, "Reshape_1", variance, *x, axes);
  KTensor g, b;
  if (gamma) g = broadcastTo(ops, "Reshape_2", *gamma, *x, axes);
  if (beta) b = broadcastTo(ops, "Reshape_3", *beta, *x, axes);
  return one(batchNormOps(ops, *x, m, v, gamma ? &g : nullptr, beta ? &b : nullptr, eps));
}

Result<std::vector<KTensor>> layerNormLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  auto options = readNormOptions(ctx, *x);
  if (!options.ok()) return options.status();
  auto rms = ctx.flag("rms_scaling", false);
  if (!rms.ok()) return rms.status();
  const std::vector<std::int64_t>& axes = options->axes;
  const double epsilon = options->epsilon;
  const bool center = options->center, scale = options->scale;
  Shape param;
  for (auto a : axes) param.push_back(x->dim(static_cast<int>(a)));
  std::vector<std::string> names;
  if (scale || *rms) names.push_back("gamma");
  if (center && !*rms) names.push_back("beta");
  auto w = ctx.weights(names, std::vector<Shape>(names.size(), param));
  if (!w.ok()) return w.status();
  float eps = static_cast<float>(epsilon);
  // Keras 2 normalized trailing axes with fused batch norm, whose epsilon
  // TensorFlow raises to its minimum.
  bool trailing = true;
  for (std::size_t i = 0; i < axes.size(); ++i)
    trailing = trailing && axes[i] == x->rank() - static_cast<std::int64_t>(axes.size()) + static_cast<std::int64_t>(i);
  if (ctx.version().keras2() && trailing) eps = std::max(eps, kFusedMinEpsilon);
  TfOps& ops = ctx.ops();
  KTensor mean = ops.reduce("Mean", "moments/mean", *x, axes, true);
  KTensor variance = ops.reduce("Mean", "moments/variance",
                                ops.binary("SquaredDifference", "moments/SquaredDifference", *x, mean), axes, true);
  KTensor inv = ops.unary("Rsqrt", "Rsqrt", ops.binary("AddV2", "add", variance, ops.scalar("add/y", eps)));
  if (*rms) {
    // rms_scaling: x * rsqrt(var + eps) * gamma.
    KTensor g = broadcastTo(ops, "Reshape", (*w)[0], *x, axes);
    return one(ops.binary("Mul", "mul_1", ops.binary("Mul", "mul", *x, inv), g));
  }
  if (scale) inv = ops.binary("Mul", "mul", inv, broadcastTo(ops, "Reshape", (*w)[0], *x, axes));
  KTensor res = ops.binary("Mul", "mul_1", ops.unary("Neg", "Neg", mean), inv);
  if (center) res = ops.binary("AddV2", "add_1", res, broadcastTo(ops, "Reshape_1", (*w)[scale ? 1 : 0], *x, axes));
  return one(ops.binary("AddV2", "add_2", ops.binary("Mul", "mul_2", *x, inv), res));
}

// A list of floats from the config, as a HostTensor of `shape`.
Result<HostTensor> configValues(LayerContext& ctx, const char* key, const Shape& shape) {
  const Json& v = ctx.value(key);
  std::vector<float> values;
  if (v.is_number()) values.push_back(v.get<float>());
  else if (v.is_array())
    for (const auto& e : v) {
      if (!e.is_number()) return ctx.error("'" + std::string(key) + "' holds " + e.dump());
      values.push_back(e.get<float>());
    }
  else return ctx.error("'" + std::string(key) + "' is " + v.dump().substr(0, 100));
  const std::int64_t n = numElements(shape);
  HostTensor t = HostTensor::zeros(tf::DT_FLOAT, shape);
  if (static_cast<std::int64_t>(values.size()) != n && values.size() != 1)
    return ctx.error("'" + std::string(key) + "' holds " + std::to_string(values.size()) + " values, expected " +
                     std::to_string(n));
  for (std::int64_t i = 0; i < n; ++i) t.as<float>()[i] = values[values.size() == 1 ? 0 : static_cast<std::size_t>(i)];
  return t;
}

Result<std::vector<KTensor>> normalizationLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  auto invert = ctx.flag("invert", false);
  if (!invert.ok()) return invert.status();
  std::vector<std::int64_t> axes;
  if (!ctx.value("axis").is_null() || !ctx.config().contains("axis")) {
    auto a = readAxes(ctx, *x, -1);
    if (!a.ok()) return a.status();
    axes = *a;
  }
  Shape kept, broadcast(static_cast<std::size_t>(x->rank()), 1);
  for (auto a : axes) {
    kept.push_back(x->dim(static_cast<int>(a)));
    broadcast[static_cast<std::size_t>(a)] = x->dim(static_cast<int>(a));
  }
  HostTensor mean, variance;
  if (ctx.has("mean") && ctx.has("variance")) {
    auto m = configValues(ctx, "mean", broadcast);
    auto v = configValues(ctx, "variance", broadcast);
    if (!m.ok()) return m.status();
    if (!v.ok()) return v.status();
    mean = *m;
    variance = *v;
  } else {
    // count (an integer the layer keeps for adapt()) is read, not used.
    auto w = ctx.weights({"mean", "variance", "count"}, {kept, kept, kUnusedWeight});
    if (!w.ok()) return w.status();
    TfOps& ops = ctx.ops();
    KTensor m = broadcastTo(ops, "Reshape", (*w)[0], *x, axes);
    KTensor v = broadcastTo(ops, "Reshape_1", (*w)[1], *x, axes);
    return one([&] {
      KTensor denom = ops.binary("Maximum", "Maximum", ops.unary("Sqrt", "Sqrt", v), ops.scalar("Maximum/y", kKerasEpsilon));
      if (*invert) return ops.binary("AddV2", "add", m, ops.binary("Mul", "mul", *x, denom));
      return ops.binary("RealDiv", "truediv", ops.binary("Sub", "sub", *x, m), denom);
    }());
  }
  TfOps& ops = ctx.ops();
  KTensor m = ops.constant("mean", mean), v = ops.constant("variance", variance);
  KTensor denom = ops.binary("Maximum", "Maximum", ops.unary("Sqrt", "Sqrt", v), ops.scalar("Maximum/y", kKerasEpsilon));
  if (*invert) return one(ops.binary("AddV2", "add", m, ops.binary("Mul", "mul", *x, denom)));
  return one(ops.binary("RealDiv", "truediv", ops.binary("Sub", "sub", *x, m), denom));
}

Result<std::vector<KTensor>> unitNormLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  auto axes = readAxes(ctx, *x, -1);
  if (!axes.ok()) return axes.status();
  TfOps& ops = ctx.ops();
  KTensor sq = ops.reduce("Sum", "Sum", ops.unary("Square", "Square", *x), *axes, true);
  KTensor m = ops.binary("Maximum", "Maximum", sq, ops.scalar("Maximum/y", 1e-12f));
  return one(ops.binary("Mul", "mul", *x, ops.unary("Rsqrt", "Rsqrt", m)));
}

}  // namespace

void addNormalizationLayers(LayerRegistry& r) {
  r["BatchNormalization"] = batchNormLayer;
  r["LayerNormalization"] = layerNormLayer;
  r["Normalization"] = normalizationLayer;
  r["UnitNormalization"] = unitNormLayer;
}

}  // namespace gds::model::keras
