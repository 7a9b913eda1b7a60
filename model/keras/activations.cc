// Keras activations (keras.activations, every name Keras 2 and 3 accept as
// an activation string) and the activation layers (ReLU, LeakyReLU, PReLU,
// ELU, Softmax, ThresholdedReLU, Activation), as the ops TensorFlow traces
// for them (keras/src/backend/tensorflow/nn.py, tf.keras.backend).
#include <cmath>

#include "model/keras/convert_impl.h"

namespace gds::model::keras {

namespace {

using tensorflow::DT_FLOAT;

// tf.clip_by_value: Minimum with the upper bound, then Maximum with the lower.
KTensor clip(TfOps& ops, const KTensor& x, float lo, float hi) {
  KTensor m = ops.binary("Minimum", "clip_by_value/Minimum", x, ops.scalar("clip_by_value/Minimum/y", hi));
  return ops.binary("Maximum", "clip_by_value", m, ops.scalar("clip_by_value/y", lo));
}

// Softmax or LogSoftmax along `axis`: TensorFlow's kernels take the last
// axis, so another axis is swapped to the end and back (nn_ops._softmax).
KTensor softmaxAlong(TfOps& ops, const std::string& op, const KTensor& x, std::int64_t axis) {
  const int rank = x.rank();
  if (axis < 0) axis += rank;
  if (axis == rank - 1 || rank == 0) return ops.softmax(op, op, x);
  std::vector<std::int64_t> perm;
  for (int i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[static_cast<std::size_t>(axis)], perm.back());
  KTensor t = ops.transpose("transpose", x, perm);
  return ops.transpose("transpose_1", ops.softmax(op, op, t), perm);
}

// Keras 3's hard_sigmoid: relu6(x + 3) / 6; Keras 2's: clip(0.2 x + 0.5, 0, 1).
KTensor hardSigmoid(LayerContext& ctx, const KTensor& x) {
  TfOps& ops = ctx.ops();
  if (ctx.version().keras2()) {
    KTensor m = ops.binary("Mul", "mul", x, ops.scalar("mul/y", 0.2f));
    return clip(ops, ops.binary("AddV2", "add", m, ops.scalar("add/y", 0.5f)), 0.0f, 1.0f);
  }
  KTensor a = ops.binary("AddV2", "add", x, ops.scalar("add/y", 3.0f));
  return ops.binary("RealDiv", "truediv", ops.unary("Relu6", "Relu6", a), ops.scalar("truediv/y", 6.0f));
}

// tf.nn.gelu (nn_ops.gelu): the erf form, or the tanh approximation.
KTensor gelu(TfOps& ops, const KTensor& x, bool approximate) {
  KTensor inner;
  if (approximate) {
    KTensor cube = ops.binary("Pow", "Gelu/Pow", x, ops.scalar("Gelu/Pow/y", 3.0f));
    KTensor t = ops.binary("AddV2", "Gelu/add", x, ops.binary("Mul", "Gelu/mul", cube, ops.scalar("Gelu/mul/x", 0.044715f)));
    t = ops.binary("Mul", "Gelu/mul_1", t, ops.scalar("Gelu/mul_1/x", 0.7978845608028654f));
    inner = ops.unary("Tanh", "Gelu/Tanh", t);
  } else {
    KTensor t = ops.binary("RealDiv", "Gelu/truediv", x, ops.scalar("Gelu/Cast", 1.4142135623730951f));
    inner = ops.unary("Erf", "Gelu/Erf", t);
  }
  KTensor one_plus = ops.binary("AddV2", "Gelu/add_1", inner, ops.scalar("Gelu/add_1/x", 1.0f));
  KTensor half_x = ops.binary("Mul", "Gelu/mul_2", x, ops.scalar("Gelu/mul_2/y", 0.5f));
  return ops.binary("Mul", "Gelu/mul_3", half_x, one_plus);
}

KTensor softplus(TfOps& ops, const KTensor& x) { return ops.unary("Softplus", "Softplus", x); }

// x where it exceeds `theta`, else 0: x * cast(x > theta).
KTensor thresholded(TfOps& ops, const KTensor& x, float theta) {
  KTensor g = ops.binary("Greater", "Greater", x, ops.scalar("Greater/y", theta));
  return ops.binary("Mul", "mul", x, ops.cast("Cast", g, DT_FLOAT));
}

// Keras' relu(x, negative_slope, max_value, threshold) (activations.ReLU.static_call,
// and tf.keras.backend.relu in Keras 2: the same ops).
KTensor reluFull(TfOps& ops, KTensor x, float negative_slope, std::optional<float> max_value, float threshold) {
  KTensor negative_part;
  if (negative_slope != 0.0f) {
    if (!max_value && threshold == 0.0f) return ops.leakyRelu("LeakyRelu", x, negative_slope);
    KTensor neg = ops.unary("Neg", "Neg", x);
    if (threshold != 0.0f) neg = ops.binary("AddV2", "add", neg, ops.scalar("add/y", threshold));
    negative_part = ops.unary("Relu", "Relu_1", neg);
  }
  bool clip_max = max_value.has_value();
  if (threshold != 0.0f) {
    x = thresholded(ops, x, threshold);
  } else if (max_value && *max_value == 6.0f) {
    x = ops.unary("Relu6", "Relu6", x);
    clip_max = false;
  } else {
    x = ops.unary("Relu", "Relu", x);
  }
  if (clip_max) x = clip(ops, x, 0.0f, *max_value);
  if (negative_slope != 0.0f) {
    KTensor scaled_neg = ops.binary("Mul", "mul_1", ops.scalar("mul_1/x", negative_slope), negative_part);
    x = ops.binary("Sub", "sub", x, scaled_neg);
  }
  return x;
}

Result<std::vector<KTensor>> one(Result<KTensor> t) {
  if (!t.ok()) return t.status();
  return std::vector<KTensor>{*t};
}

Result<std::vector<KTensor>> reluLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  auto slope = ctx.number("negative_slope", 0.0);
  auto threshold = ctx.number("threshold", 0.0);
  if (!slope.ok()) return slope.status();
  if (!threshold.ok()) return threshold.status();
  std::optional<float> max_value;
  if (ctx.has("max_value")) {
    auto m = ctx.number("max_value", 0.0);
    if (!m.ok()) return m.status();
    max_value = static_cast<float>(*m);
  }
  return one(reluFull(ctx.ops(), *x, static_cast<float>(*slope), max_value, static_cast<float>(*threshold)));
}

Result<std::vector<KTensor>> leakyReluLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  auto slope = ctx.number(ctx.has("negative_slope") ? "negative_slope" : "alpha", 0.3);
  if (!slope.ok()) return slope.status();
  return one(ctx.ops().leakyRelu("LeakyRelu", *x, static_cast<float>(*slope)));
}

// PReLU: relu(x) - alpha * relu(-x), alpha shared over `shared_axes`.
Result<std::vector<KTensor>> preluLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  Shape alpha_shape(x->shape.begin() + 1, x->shape.end());
  const Json& shared = ctx.value("shared_axes");
  if (shared.is_number_integer()) {
    const auto a = shared.get<std::int64_t>();
    if (a < 1 || a >= x->rank()) return ctx.error("shared_axes holds axis " + std::to_string(a));
    alpha_shape[static_cast<std::size_t>(a - 1)] = 1;
  } else if (shared.is_array()) {
    for (const auto& a : shared) {
      if (!a.is_number_integer() || a.get<std::int64_t>() < 1 || a.get<std::int64_t>() >= x->rank())
        return ctx.error("shared_axes holds " + a.dump());
      alpha_shape[static_cast<std::size_t>(a.get<std::int64_t>() - 1)] = 1;
    }
  }
  for (auto d : alpha_shape)
    if (d < 0) return ctx.error("needs the input's non-batch dimensions " + shapeString(x->shape) + " to be known");
  auto w = ctx.weights({"alpha"}, {alpha_shape});
  if (!w.ok()) return w.status();
  TfOps& ops = ctx.ops();
  KTensor pos = ops.unary("Relu", "Relu", *x);
  KTensor neg = ops.unary("Relu", "Relu_1", ops.unary("Neg", "Neg", *x));
  KTensor scaled_neg = ops.binary("Mul", "mul", ops.unary("Neg", "Neg_1", (*w)[0]), neg);
  return one(ops.binary("AddV2", "add", pos, scaled_neg));
}

KTensor eluWithAlpha(TfOps& ops, const KTensor& x, float alpha) {
  KTensor e = ops.unary("Elu", "Elu", x);
  if (alpha == 1.0f) return e;
  KTensor positive = ops.binary("Greater", "Greater", x, ops.scalar("Greater/y", 0.0f));
  return ops.select("SelectV2", positive, e, ops.binary("Mul", "mul", e, ops.scalar("mul/x", alpha)));
}

Result<std::vector<KTensor>> eluLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  auto alpha = ctx.number("alpha", 1.0);
  if (!alpha.ok()) return alpha.status();
  return one(eluWithAlpha(ctx.ops(), *x, static_cast<float>(*alpha)));
}

Result<std::vector<KTensor>> softmaxLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  const Json& axis = ctx.value("axis");
  std::int64_t a = -1;
  if (axis.is_number_integer()) a = axis.get<std::int64_t>();
  else if (axis.is_array() && axis.size() == 1 && axis[0].is_number_integer()) a = axis[0].get<std::int64_t>();
  else if (!axis.is_null()) return ctx.error("softmax over axes " + axis.dump() + " is not supported");
  if (a < -x->rank() || a >= x->rank()) return ctx.error("axis " + std::to_string(a) + " is out of range");
  return one(softmaxAlong(ctx.ops(), "Softmax", *x, a));
}

Result<std::vector<KTensor>> thresholdedReluLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  auto theta = ctx.number("theta", 1.0);
  if (!theta.ok()) return theta.status();
  return one(thresholded(ctx.ops(), *x, static_cast<float>(*theta)));
}

Result<std::vector<KTensor>> activationLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  return one(ctx.activation(ctx.value("activation"), *x));
}

}  // namespace

KTensor relu6Like(TfOps& ops, const KTensor& x, float max_value) {
  return reluFull(ops, x, 0.0f, max_value, 0.0f);
}

KTensor scaled(TfOps& ops, const std::string& name, const KTensor& x, float factor) {
  return ops.binary("Mul", name, x, ops.scalar(name + "/y", factor));
}

Result<KTensor> applyActivationName(LayerContext& ctx, const std::string& name, const KTensor& x) {
  TfOps& ops = ctx.ops();
  if (name == "linear" || name.empty()) return x;
  static const std::map<std::string, std::string> kOneOp = {
      {"relu", "Relu"},         {"relu6", "Relu6"},       {"sigmoid", "Sigmoid"}, {"tanh", "Tanh"},
      {"elu", "Elu"},           {"selu", "Selu"},         {"softplus", "Softplus"}, {"softsign", "Softsign"},
      {"exponential", "Exp"}};
  if (auto it = kOneOp.find(name); it != kOneOp.end()) return ops.unary(it->second, it->second, x);
  if (name == "softmax") return softmaxAlong(ops, "Softmax", x, -1);
  if (name == "log_softmax") return softmaxAlong(ops, "LogSoftmax", x, -1);
  if (name == "leaky_relu") return ops.leakyRelu("LeakyRelu", x, 0.2f);
  if (name == "swish" || name == "silu") return ops.binary("Mul", "mul", x, ops.unary("Sigmoid", "Sigmoid", x));
  if (name == "gelu") return gelu(ops, x, false);
  if (name == "hard_sigmoid") return hardSigmoid(ctx, x);
  if (name == "hard_silu" || name == "hard_swish") return ops.binary("Mul", "mul_1", x, hardSigmoid(ctx, x));
  if (name == "mish") return ops.binary("Mul", "mul", x, ops.unary("Tanh", "Tanh", softplus(ops, x)));
  if (name == "crelu") {
    KTensor pos = ops.unary("Relu", "Relu", x);
    KTensor neg = ops.unary("Relu", "Relu_1", ops.unary("Neg", "Neg", x));
    return ops.concat("concat", {pos, neg}, -1);
  }
  if (name == "hard_tanh") return clip(ops, x, -1.0f, 1.0f);
  if (name == "log_sigmoid") return ops.unary("Neg", "Neg_1", softplus(ops, ops.unary("Neg", "Neg", x)));
  if (name == "tanh_shrink") return ops.binary("Sub", "sub", x, ops.unary("Tanh", "Tanh", x));
  if (name == "squareplus") {  // (x + sqrt(x^2 + 4)) / 2
    KTensor s = ops.unary("Sqrt", "Sqrt", ops.binary("AddV2", "add", ops.unary("Square", "Square", x),
                                                      ops.scalar("add/y", 4.0f)));
    return ops.binary("RealDiv", "truediv", ops.binary("AddV2", "add_1", x, s), ops.scalar("truediv/y", 2.0f));
  }
  if (name == "celu") {  // max(x, 0) + min(0, exp(x) - 1) with alpha 1
    KTensor e = ops.binary("Sub", "sub", ops.unary("Exp", "Exp", x), ops.scalar("sub/y", 1.0f));
    return ops.binary("AddV2", "add", ops.unary("Relu", "Relu", x),
                      ops.binary("Minimum", "Minimum", e, ops.scalar("Minimum/y", 0.0f)));
  }
  if (name == "sparse_sigmoid") {  // clip((x + 1) / 2, 0, 1)
    KTensor h = ops.binary("Mul", "mul", ops.binary("AddV2", "add", x, ops.scalar("add/y", 1.0f)),
                           ops.scalar("mul/y", 0.5f));
    return clip(ops, h, 0.0f, 1.0f);
  }
  if (name == "sparse_plus") {  // 0 below -1, x above 1, (x + 1)^2 / 4 between
    KTensor mid = ops.binary("Mul", "mul", ops.unary("Square", "Square", ops.binary("AddV2", "add", x, ops.scalar("add/y", 1.0f))),
                             ops.scalar("mul/y", 0.25f));
    KTensor low = ops.binary("LessEqual", "LessEqual", x, ops.scalar("LessEqual/y", -1.0f));
    KTensor high = ops.binary("GreaterEqual", "GreaterEqual", x, ops.scalar("GreaterEqual/y", 1.0f));
    KTensor zero = ops.binary("Mul", "zeros", x, ops.scalar("zeros/y", 0.0f));
    return ops.select("SelectV2_1", low, zero, ops.select("SelectV2", high, x, mid));
  }
  if (name == "hard_shrink" || name == "soft_shrink") {  // threshold 0.5
    KTensor big = ops.binary("Greater", "Greater", ops.unary("Abs", "Abs", x), ops.scalar("Greater/y", 0.5f));
    KTensor zero = ops.binary("Mul", "zeros", x, ops.scalar("zeros/y", 0.0f));
    if (name == "hard_shrink") return ops.select("SelectV2", big, x, zero);
    KTensor shrunk = ops.binary("Sub", "sub", x, ops.binary("Mul", "mul", ops.unary("Sign", "Sign", x),
                                                            ops.scalar("mul/y", 0.5f)));
    return ops.select("SelectV2", big, shrunk, zero);
  }
  if (name == "glu") {  // a * sigmoid(b), the last axis halved
    if (x.dim(-1) < 0 || x.dim(-1) % 2 != 0)
      return ctx.error("glu needs an even, known last dimension, got " + shapeString(x.shape));
    auto halves = ops.split("split", x, x.rank() - 1, 2);
    return ops.binary("Mul", "mul", halves[0], ops.unary("Sigmoid", "Sigmoid", halves[1]));
  }
  return ctx.error("activation '" + name + "' is not a Keras activation");
}

void addActivationLayers(LayerRegistry& r) {
  r["ReLU"] = reluLayer;
  r["LeakyReLU"] = leakyReluLayer;
  r["PReLU"] = preluLayer;
  r["ELU"] = eluLayer;
  r["Softmax"] = softmaxLayer;
  r["ThresholdedReLU"] = thresholdedReluLayer;
  r["Activation"] = activationLayer;
}

}  // namespace gds::model::keras
