// Core Keras layers: Dense, Embedding, Rescaling, Masking, the inference
// no-ops (Dropout and its kin), Lambda and TFOpLambda where the function is
// a known one, as keras/src/layers/core/*.py and tf.keras' core layers
// trace them.
#include <cmath>

#include "model/keras/convert_impl.h"

namespace gds::model::keras {

namespace {

namespace tf = tensorflow;

Result<std::vector<KTensor>> one(Result<KTensor> t) {
  if (!t.ok()) return t.status();
  return std::vector<KTensor>{*t};
}

// x @ kernel over the last axis: MatMul for rank 2; for higher ranks
// tf.tensordot's Reshape -> MatMul -> Reshape.
Result<KTensor> denseMatMul(LayerContext& ctx, const KTensor& x, const KTensor& kernel) {
  TfOps& ops = ctx.ops();
  if (x.rank() == 2) return ops.matMul("MatMul", x, kernel);
  const std::int64_t in = x.dim(-1), units = kernel.dim(1);
  int unknown = 0;
  for (int i = 1; i < x.rank() - 1; ++i) unknown += x.dim(i) < 0 ? 1 : 0;
  KTensor flat = ops.reshape("Tensordot/Reshape", x, {-1, in});
  KTensor product = ops.matMul("Tensordot/MatMul", flat, kernel);
  Shape out(x.shape.begin(), x.shape.end() - 1);
  out.push_back(units);
  if (unknown == 0) {
    Shape target = out;
    target[0] = -1;
    return ops.reshape("Tensordot", product, target);
  }
  // Unknown inner dimensions: the leading dimensions read at run time.
  KTensor shape = ops.shapeOf("Tensordot/Shape", x);
  KTensor lead = ops.slice("Tensordot/strided_slice", shape, {0}, {x.rank() - 1});
  KTensor tail = ops.int32s("Tensordot/units", {units});
  return ops.reshapeTo("Tensordot", product, ops.concat("Tensordot/concat", {lead, tail}, 0), out);
}

Result<std::vector<KTensor>> denseLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  if (x->rank() < 2 || x->dim(-1) < 0)
    return ctx.error("needs an input of rank 2 or more with a known last dimension, got " + shapeString(x->shape));
  auto units = ctx.integer("units");
  auto use_bias = ctx.flag("use_bias", true);
  if (!units.ok()) return units.status();
  if (!use_bias.ok()) return use_bias.status();
  if (*units <= 0) return ctx.error("units is " + std::to_string(*units));
  std::vector<std::string> names = {"kernel"};
  std::vector<Shape> shapes = {{x->dim(-1), *units}};
  if (*use_bias) {
    names.push_back("bias");
    shapes.push_back({*units});
  }
  auto w = ctx.weights(names, shapes);
  if (!w.ok()) return w.status();
  auto y = denseMatMul(ctx, *x, (*w)[0]);
  if (!y.ok()) return y.status();
  KTensor out = *y;
  if (*use_bias) out = ctx.ops().biasAdd("BiasAdd", out, (*w)[1]);
  return one(ctx.activation(ctx.value("activation"), out));
}

// Dropout, noise and regularization layers are the identity at inference.
Result<std::vector<KTensor>> identityLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  KTensor out = ctx.ops().unary("Identity", "Identity", *x);
  out.mask = x->mask;
  return std::vector<KTensor>{out};
}

// Embedding: ids cast to int32 when they are not integers, then a gather
// of rows (Keras 3 ops.take / Keras 2 embedding_lookup). Keras 3's take
// also maps negative ids to id + input_dim first (Less/SelectV2/AddV2 in
// its trace); valid ids are never negative, so that is left out. mask_zero
// adds a mask of the non-zero ids.
Result<std::vector<KTensor>> embeddingLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  auto input_dim = ctx.integer("input_dim");
  auto output_dim = ctx.integer("output_dim");
  auto mask_zero = ctx.flag("mask_zero", false);
  if (!input_dim.ok()) return input_dim.status();
  if (!output_dim.ok()) return output_dim.status();
  if (!mask_zero.ok()) return mask_zero.status();
  if (*input_dim <= 0 || *output_dim <= 0) return ctx.error("input_dim and output_dim must be positive");
  auto w = ctx.weights({"embeddings"}, {{*input_dim, *output_dim}});
  if (!w.ok()) return w.status();
  TfOps& ops = ctx.ops();
  KTensor ids = *x;
  if (ids.dtype != tf::DT_INT32 && ids.dtype != tf::DT_INT64) ids = ops.cast("Cast", ids, tf::DT_INT32);
  KTensor out = ops.gather("embedding_lookup", (*w)[0], ids, 0);
  if (*mask_zero) {
    HostTensor zero = HostTensor::zeros(ids.dtype, {});
    out.mask = ops.binary("NotEqual", "NotEqual", ids, ops.constant("NotEqual/y", zero)).name;
  }
  return std::vector<KTensor>{out};
}

// A float or a list of floats (Rescaling's scale and offset).
Result<KTensor> floatsConst(LayerContext& ctx, const char* key, double fallback) {
  const Json& v = ctx.value(key);
  if (v.is_null()) return ctx.ops().scalar(std::string(key) == "scale" ? "mul/y" : "add/y", static_cast<float>(fallback));
  std::vector<float> values;
  if (v.is_number()) {
    values.push_back(v.get<float>());
  } else if (v.is_array() && !v.empty()) {
    for (const auto& e : v) {
      if (!e.is_number()) return ctx.error("'" + std::string(key) + "' holds " + e.dump());
      values.push_back(e.get<float>());
    }
  } else {
    return ctx.error("'" + std::string(key) + "' is " + v.dump().substr(0, 100) + ", expected a number or a list");
  }
  Shape shape = v.is_number() ? Shape{} : Shape{static_cast<std::int64_t>(values.size())};
  return KTensor{ctx.ops().builder().constantFloat(std::string(key) == "scale" ? "mul/y" : "add/y", shape, values),
                 shape, tf::DT_FLOAT, ""};
}

Result<std::vector<KTensor>> rescalingLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  auto scale = floatsConst(ctx, "scale", 1.0);
  auto offset = floatsConst(ctx, "offset", 0.0);
  if (!scale.ok()) return scale.status();
  if (!offset.ok()) return offset.status();
  TfOps& ops = ctx.ops();
  KTensor in = x->dtype == tf::DT_FLOAT ? *x : ops.cast("Cast", *x, tf::DT_FLOAT);
  return one(ops.binary("AddV2", "add", ops.binary("Mul", "mul", in, *scale), *offset));
}

// Masking: the input times any(x != mask_value) over the last axis, which
// is also the mask the following layers get.
Result<std::vector<KTensor>> maskingLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  auto value = ctx.number("mask_value", 0.0);
  if (!value.ok()) return value.status();
  TfOps& ops = ctx.ops();
  KTensor ne = ops.binary("NotEqual", "NotEqual", *x, ops.scalar("NotEqual/y", static_cast<float>(*value)));
  KTensor r = ops.int32s("Any/reduction_indices", {x->rank() - 1});
  auto* any = ops.builder().add("Any", "Any", {ne.name, r.name});
  setAttrType(any, "Tidx", tf::DT_INT32);
  setAttrBool(any, "keep_dims", true);
  Shape kept = x->shape;
  kept.back() = 1;
  KTensor keep{any->name(), kept, tf::DT_BOOL, ""};
  KTensor out = ops.binary("Mul", "mul", *x, ops.cast("Cast", keep, tf::DT_FLOAT));
  out.mask = ops.squeeze("Squeeze", keep, {x->rank() - 1}).name;
  return std::vector<KTensor>{out};
}

// The last component of a dotted or slashed function name.
std::string baseName(const std::string& s) {
  const auto at = s.find_last_of("./");
  return at == std::string::npos ? s : s.substr(at + 1);
}

// Functions a Lambda may name: Keras activations and their TensorFlow ops.
const std::map<std::string, std::string>& knownFunctions() {
  static const std::map<std::string, std::string> kKnown = {
      {"relu", "relu"},       {"relu6", "relu6"},     {"sigmoid", "sigmoid"},   {"tanh", "tanh"},
      {"softmax", "softmax"}, {"softplus", "softplus"}, {"softsign", "softsign"}, {"elu", "elu"},
      {"selu", "selu"},       {"exp", "exponential"}, {"exponential", "exponential"}, {"swish", "swish"},
      {"silu", "silu"},       {"gelu", "gelu"},       {"log_softmax", "log_softmax"}, {"leaky_relu", "leaky_relu"},
      {"hard_sigmoid", "hard_sigmoid"}, {"mish", "mish"}, {"linear", "linear"}, {"identity", "linear"}};
  return kKnown;
}

Result<std::vector<KTensor>> lambdaLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  const Json& fn = ctx.value("function");
  std::string name, module;
  if (fn.is_string()) {  // Keras 2: the name, or marshalled bytecode for a lambda
    auto type = ctx.string("function_type", "function");
    if (!type.ok()) return type.status();
    if (*type != "function")
      return ctx.error("its function is a Python " + *type + " (bytecode), which gdstudio cannot run; only a named "
                       "Keras or TensorFlow activation can be converted");
    name = fn.get<std::string>();
    if (ctx.value("module").is_string()) module = ctx.value("module").get<std::string>();
  } else if (fn.is_object() && fn.value("class_name", "") == "__lambda__") {
    return ctx.error("its function is a Python lambda (bytecode), which gdstudio cannot run; only a named Keras or "
                     "TensorFlow activation can be converted");
  } else if (fn.is_object() && fn.contains("config") && fn["config"].is_string()) {
    name = fn["config"].get<std::string>();
    module = fn.value("module", "");
  } else {
    return ctx.error("its function " + fn.dump().substr(0, 200) + " cannot be read");
  }
  const Json& args = ctx.value("arguments");
  if (args.is_object() && !args.empty())
    return ctx.error("its function '" + name + "' is called with arguments " + args.dump().substr(0, 200) +
                     ", which gdstudio does not convert");
  auto it = knownFunctions().find(baseName(name));
  if (it == knownFunctions().end())
    return ctx.error("its function '" + name + "'" + (module.empty() ? "" : " (module " + module + ")") +
                     " is Python code gdstudio cannot run; only named Keras or TensorFlow activations are converted");
  return one(applyActivationName(ctx, it->second, *x));
}

// TFOpLambda (Keras 2: a TensorFlow function called on a Keras tensor in a
// functional model): activations, and arithmetic with a constant operand.
Result<std::vector<KTensor>> tfOpLambdaLayer(LayerContext& ctx) {
  auto x = ctx.input();
  if (!x.ok()) return x.status();
  auto fn = ctx.string("function", "");
  if (!fn.ok()) return fn.status();
  const std::string base = baseName(*fn);
  static const std::map<std::string, std::string> kArith = {
      {"add", "AddV2"}, {"multiply", "Mul"}, {"subtract", "Sub"}, {"truediv", "RealDiv"}, {"divide", "RealDiv"},
      {"maximum", "Maximum"}, {"minimum", "Minimum"}, {"pow", "Pow"}};
  const Json& kwargs = ctx.call().kwargs;
  if (auto it = kArith.find(base); it != kArith.end()) {
    if (!kwargs.is_object() || !kwargs.contains("y") || !kwargs["y"].is_number())
      return ctx.error("tf." + *fn + " is converted with a constant number as its second operand only (got " +
                       (kwargs.is_object() && kwargs.contains("y") ? kwargs["y"].dump().substr(0, 100) : "none") + ")");
    KTensor y = ctx.ops().scalar("y", kwargs["y"].get<float>());
    return one(ctx.ops().binary(it->second, base, *x, y));
  }
  auto known = knownFunctions().find(base);
  if (known != knownFunctions().end()) return one(applyActivationName(ctx, known->second, *x));
  return ctx.error("the TensorFlow function tf." + *fn + " is not one gdstudio converts");
}

}  // namespace

void addCoreLayers(LayerRegistry& r) {
  r["Dense"] = denseLayer;
  for (const char* cls : {"Dropout", "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "GaussianNoise",
                          "GaussianDropout", "AlphaDropout", "ActivityRegularization"})
    r[cls] = identityLayer;
  r["Embedding"] = embeddingLayer;
  r["Rescaling"] = rescalingLayer;
  r["Masking"] = maskingLayer;
  r["Lambda"] = lambdaLayer;
  r["TFOpLambda"] = tfOpLambdaLayer;
}

}  // namespace gds::model::keras
