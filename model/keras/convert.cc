#include "model/keras/convert.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "model/keras/convert_impl.h"
#include "model/memory_budget.h"

namespace gds::model::keras {

namespace tf = tensorflow;

namespace {

// TensorFlow's node name rule ([A-Za-z0-9.][A-Za-z0-9_.\-/>]*): Keras
// names outside it keep their spelling in the layer list only.
std::string nodeName(const std::string& keras_name) {
  std::string out;
  for (char c : keras_name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '>';
    out += ok ? c : '_';
  }
  if (out.empty() || !(std::isalnum(static_cast<unsigned char>(out[0])) || out[0] == '.')) out = "k" + out;
  return out;
}

std::string joinShape(const Shape& s) { return shapeString(s); }

// Layers whose output carries their input's Keras mask (supports_masking
// with the default compute_mask).
bool passesMask(const std::string& cls) {
  static const std::set<std::string> kPass = {
      "Activation", "ReLU", "LeakyReLU", "PReLU", "ELU", "Softmax", "ThresholdedReLU", "Dropout", "SpatialDropout1D",
      "GaussianNoise", "GaussianDropout", "AlphaDropout", "ActivityRegularization", "BatchNormalization",
      "LayerNormalization", "Dense", "Rescaling", "Masking", "TimeDistributed"};
  return kPass.count(cls) > 0;
}

}  // namespace

class Converter {
 public:
  Converter(const WeightStore& store, const KerasVersion& version, bool legacy_h5)
      : store_(store), version_(version), legacy_h5_(legacy_h5), ops_(builder_) {}

  Result<ConvertedModel> convert(const ModelDef& model);
  Result<std::vector<KTensor>> runModel(const ModelDef& m, const std::vector<KTensor>& inputs,
                                        const std::vector<std::string>& h5_path);
  // `owner`: the model's layer whose weights these are (the wrapper, for a
  // layer inside a Bidirectional or TimeDistributed).
  Result<std::vector<KTensor>> callLayer(const LayerDef& layer, const LayerCall& call, std::vector<KTensor> inputs,
                                         const WeightRef& ref, const std::string& sub_prefix, const LayerDef* owner);

  TfOps& ops() { return ops_; }
  const KerasVersion& version() const { return version_; }
  const WeightStore& store() const { return store_; }
  bool legacyH5() const { return legacy_h5_; }
  std::map<std::pair<const void*, std::string>, KTensor>& weightCache() { return weight_cache_; }

 private:
  Result<KTensor> inputPlaceholder(const LayerDef& layer);

  const WeightStore& store_;
  KerasVersion version_;
  bool legacy_h5_;
  GraphBuilder builder_;
  TfOps ops_;
  std::map<std::pair<const void*, std::string>, KTensor> weight_cache_;
};

// ---------------------------------------------------------------------------
// LayerContext

LayerContext::LayerContext(Converter& converter, const LayerDef& layer, const LayerCall& call,
                           std::vector<KTensor> inputs, WeightRef ref, std::string sub_prefix, const LayerDef* owner)
    : converter_(converter), layer_(layer), call_(call), inputs_(std::move(inputs)), ref_(std::move(ref)),
      sub_prefix_(std::move(sub_prefix)), owner_(owner ? owner : &layer) {}

TfOps& LayerContext::ops() { return converter_.ops(); }
const KerasVersion& LayerContext::version() const { return converter_.version(); }

Status LayerContext::error(const std::string& message) const {
  return Status::Error("layer '" + layer_.name + "' (" + layer_.class_name + "): " + message);
}

Result<KTensor> LayerContext::input() const {
  if (inputs_.size() != 1)
    return error("expects one input tensor, got " + std::to_string(inputs_.size()));
  return inputs_[0];
}

Result<KTensor> LayerContext::input(int rank, const std::vector<int>& static_axes) const {
  auto x = input();
  if (!x.ok()) return x;
  if (rank > 0 && x->rank() != rank)
    return error("expects a rank-" + std::to_string(rank) + " input, got " + joinShape(x->shape));
  for (int axis : static_axes)
    if (axis >= x->rank() || x->dim(axis) < 0)
      return error("needs dimension " + std::to_string(axis) + " of its input " + joinShape(x->shape) +
                   " to be known");
  return x;
}

bool LayerContext::has(const char* key) const { return config().contains(key) && !config()[key].is_null(); }

const Json& LayerContext::value(const char* key) const {
  static const Json null_value;
  return config().contains(key) ? config()[key] : null_value;
}

Result<std::int64_t> LayerContext::integer(const char* key) const {
  if (!has(key)) return error("its config has no '" + std::string(key) + "'");
  return integer(key, 0);
}

Result<std::int64_t> LayerContext::integer(const char* key, std::int64_t fallback) const {
  if (!has(key)) return fallback;
  const Json& v = value(key);
  if (v.is_number_integer() || v.is_number_unsigned()) return v.get<std::int64_t>();
  if (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<std::int64_t>(v.get<double>())))
    return static_cast<std::int64_t>(v.get<double>());
  return error("'" + std::string(key) + "' is " + v.dump() + ", expected an integer");
}

Result<double> LayerContext::number(const char* key, double fallback) const {
  if (!has(key)) return fallback;
  const Json& v = value(key);
  if (!v.is_number()) return error("'" + std::string(key) + "' is " + v.dump() + ", expected a number");
  return v.get<double>();
}

Result<bool> LayerContext::flag(const char* key, bool fallback) const {
  if (!has(key)) return fallback;
  const Json& v = value(key);
  if (!v.is_boolean()) return error("'" + std::string(key) + "' is " + v.dump() + ", expected true or false");
  return v.get<bool>();
}

Result<std::string> LayerContext::string(const char* key, const std::string& fallback) const {
  if (!has(key)) return fallback;
  const Json& v = value(key);
  if (!v.is_string()) return error("'" + std::string(key) + "' is " + v.dump().substr(0, 100) + ", expected a string");
  return v.get<std::string>();
}

Result<std::vector<std::int64_t>> LayerContext::ints(const char* key, std::size_t n) const {
  if (!has(key)) return error("its config has no '" + std::string(key) + "'");
  return ints(key, n, 0);
}

Result<std::vector<std::int64_t>> LayerContext::ints(const char* key, std::size_t n, std::int64_t fallback) const {
  if (!has(key)) return std::vector<std::int64_t>(n, fallback);
  const Json& v = value(key);
  auto isInt = [](const Json& j) { return j.is_number_integer() || j.is_number_unsigned(); };
  std::vector<std::int64_t> out;
  if (isInt(v)) {
    out.assign(n, v.get<std::int64_t>());
  } else if (v.is_array() && v.size() == n && std::all_of(v.begin(), v.end(), isInt)) {
    for (const auto& e : v) out.push_back(e.get<std::int64_t>());
  } else {
    return error("'" + std::string(key) + "' is " + v.dump().substr(0, 100) + ", expected " + std::to_string(n) +
                 " integers");
  }
  for (auto d : out)
    if (d < 0 || d > (std::int64_t{1} << 31))
      return error("'" + std::string(key) + "' holds " + std::to_string(d) + ", out of range");
  return out;
}

Result<bool> LayerContext::channelsFirst() const {
  auto f = string("data_format", "channels_last");
  if (!f.ok()) return f.status();
  if (*f != "channels_last" && *f != "channels_first")
    return error("data_format '" + *f + "' is neither channels_last nor channels_first");
  return *f == "channels_first";
}

Result<std::vector<KTensor>> LayerContext::weights(const std::vector<std::string>& names,
                                                   const std::vector<Shape>& shapes, const std::string& sub) {
  const std::string full_sub = sub_prefix_ + (sub_prefix_.empty() || sub.empty() ? "" : "/") + sub;
  auto& cache = converter_.weightCache();
  std::vector<KTensor> out;
  bool cached = !names.empty();
  for (const auto& n : names) {
    auto it = cache.find({owner_, full_sub + "|" + n});
    if (it == cache.end()) {
      cached = false;
      break;
    }
    out.push_back(it->second);
  }
  if (cached) return out;
  out.clear();
  auto values = converter_.store().read(ref_, full_sub, names);
  if (!values.ok()) return error(values.error());
  for (std::size_t i = 0; i < names.size(); ++i) {
    HostTensor& v = (*values)[i];
    const Shape& want = shapes[i];
    if (want == kUnusedWeight) {
      cache[{owner_, full_sub + "|" + names[i]}] = KTensor{};
      out.emplace_back();
      continue;
    }
    bool match = v.shape.size() == want.size();
    for (std::size_t d = 0; match && d < want.size(); ++d) match = want[d] < 0 || want[d] == v.shape[d];
    if (!match)
      return error("weight '" + names[i] + "' has shape " + joinShape(v.shape) + " in the file, the layer needs " +
                   joinShape(want));
    if (v.dtype != tf::DT_FLOAT) return error("weight '" + names[i] + "' is not floating point");
    KTensor c = ops().constant(nodeName(names[i]), v);
    cache[{owner_, full_sub + "|" + names[i]}] = c;
    out.push_back(c);
  }
  return out;
}

Result<KTensor> LayerContext::activation(const Json& spec, const KTensor& x) {
  if (spec.is_null()) return x;
  if (spec.is_string()) return applyActivationName(*this, spec.get<std::string>(), x);
  if (spec.is_object() && spec.contains("class_name") && spec["class_name"].is_string()) {
    const std::string cls = spec["class_name"].get<std::string>();
    if (cls == "function" && spec.contains("config") && spec["config"].is_string())
      return applyActivationName(*this, spec["config"].get<std::string>(), x);
    // An activation layer object (activation=keras.layers.LeakyReLU()).
    if (layerRegistry().count(cls) && spec.contains("config") && spec["config"].is_object()) {
      auto outs = callInner(spec, {x}, "", "activation");
      if (!outs.ok()) return outs.status();
      if (outs->size() == 1) return (*outs)[0];
    }
  }
  return error("its activation " + spec.dump().substr(0, 200) + " is not a Keras activation");
}

Result<std::vector<KTensor>> LayerContext::callInner(const Json& layer_json, const std::vector<KTensor>& inputs,
                                                     const std::string& sub, const std::string& scope) {
  if (!layer_json.is_object() || !layer_json.contains("class_name") || !layer_json["class_name"].is_string())
    return error("its inner layer has no class_name");
  LayerDef inner;
  inner.class_name = layer_json["class_name"].get<std::string>();
  inner.config = layer_json.contains("config") ? layer_json["config"] : Json::object();
  if (!inner.config.is_object()) return error("the config of its inner layer is not an object");
  inner.name = inner.config.contains("name") && inner.config["name"].is_string()
                   ? inner.config["name"].get<std::string>()
                   : scope;
  LayerCall call;
  call.inputs.resize(inputs.size());
  call.kwargs = Json::object();
  call.args = Json::array();
  // The inner layer's weights are cached under this layer (its owner) and
  // the sub path, so a second call of a shared wrapper reuses them.
  const std::string prefix = sub_prefix_ + (sub_prefix_.empty() || sub.empty() ? "" : "/") + sub;
  return converter_.callLayer(inner, call, inputs, ref_, prefix, owner_);
}

// ---------------------------------------------------------------------------
// Converter

Result<KTensor> Converter::inputPlaceholder(const LayerDef& layer) {
  const Json& c = layer.config;
  Json shape_json;
  for (const char* key : {"batch_shape", "batch_input_shape"})
    if (c.contains(key) && c[key].is_array()) shape_json = c[key];
  if (shape_json.is_null())
    return Status::Error("input layer '" + layer.name + "' declares no shape (batch_shape or batch_input_shape)");
  if (shape_json.size() > 8) return Status::Error("input layer '" + layer.name + "' has rank " +
                                                  std::to_string(shape_json.size()));
  Shape shape;
  for (const auto& d : shape_json) {
    if (d.is_null()) {
      shape.push_back(-1);
    } else if ((d.is_number_integer() || d.is_number_unsigned()) && d.get<std::int64_t>() >= 0 &&
               d.get<std::int64_t>() <= (std::int64_t{1} << 31)) {
      shape.push_back(d.get<std::int64_t>());
    } else {
      return Status::Error("input layer '" + layer.name + "' has shape " + shape_json.dump() +
                           " (dimensions must be null or non-negative integers)");
    }
  }
  tf::DataType dtype = tf::DT_FLOAT;
  if (c.contains("dtype") && c["dtype"].is_string()) {
    auto parsed = parseDtype(c["dtype"].get<std::string>());
    if (!parsed.ok()) return Status::Error("input layer '" + layer.name + "': " + parsed.error());
    dtype = *parsed;
  }
  // One example (free dimensions as 1) must fit the memory budget.
  Shape one = shape;
  for (auto& d : one) d = d < 0 ? 1 : d;
  auto elements = checkedElements(one.data(), one.size(), static_cast<std::int64_t>(std::max<std::size_t>(dtypeSize(dtype), 1)),
                                  "input layer '" + layer.name + "' has shape " + shapeString(shape));
  if (!elements.ok()) return elements.status();
  if (c.value("sparse", false) || c.value("ragged", false))
    return Status::Error("input layer '" + layer.name + "' takes sparse or ragged tensors, which have no GraphDef form here");
  return ops_.placeholder(nodeName(layer.name), dtype, shape);
}

Result<std::vector<KTensor>> Converter::callLayer(const LayerDef& layer, const LayerCall& call,
                                                  std::vector<KTensor> inputs, const WeightRef& ref,
                                                  const std::string& sub_prefix, const LayerDef* owner) {
  const auto& registry = layerRegistry();
  auto it = registry.find(layer.class_name);
  if (it == registry.end())
    return Status::Error("layer '" + layer.name + "' (" + layer.class_name + "): the layer class " +
                         layer.class_name + " is not one gdstudio converts" +
                         (layer.module.empty() || layer.module.rfind("keras", 0) == 0
                              ? ""
                              : " (it comes from module " + layer.module + ", not from Keras)"));
  std::string mask;
  if (inputs.size() == 1) mask = inputs[0].mask;
  auto scope = builder_.scope(nodeName(layer.name));
  LayerContext ctx(*this, layer, call, std::move(inputs), ref, sub_prefix, owner);
  auto outs = it->second(ctx);
  if (!outs.ok()) return outs;
  if (!mask.empty() && passesMask(layer.class_name))
    for (auto& o : *outs)
      if (o.mask.empty()) o.mask = mask;
  return outs;
}

Result<std::vector<KTensor>> Converter::runModel(const ModelDef& m, const std::vector<KTensor>& inputs,
                                                 const std::vector<std::string>& h5_path) {
  const std::string where = "model '" + m.name + "'";
  std::map<std::string, const LayerDef*> by_name;
  for (const auto& l : m.layers)
    if (!by_name.emplace(l.name, &l).second) return Status::Error(where + ": two layers are named '" + l.name + "'");
  std::map<std::string, std::vector<std::vector<KTensor>>> produced;
  if (inputs.size() != m.inputs.size())
    return Status::Error(where + " takes " + std::to_string(m.inputs.size()) + " inputs, called with " +
                         std::to_string(inputs.size()));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& ref = m.inputs[i];
    if (!by_name.count(ref.layer)) return Status::Error(where + ": its input layer '" + ref.layer + "' is not a layer");
    produced[ref.layer] = {{inputs[i]}};
  }
  struct Pending {
    const LayerDef* layer;
    std::size_t call;
  };
  std::vector<Pending> pending;
  for (const auto& l : m.layers)
    if (l.class_name != "InputLayer")
      for (std::size_t c = 0; c < l.calls.size(); ++c) pending.push_back({&l, c});
  auto lookup = [&](const TensorRef& r) -> const KTensor* {
    auto p = produced.find(r.layer);
    if (p == produced.end() || r.node >= static_cast<int>(p->second.size())) return nullptr;
    const auto& outs = p->second[static_cast<std::size_t>(r.node)];
    return r.tensor < static_cast<int>(outs.size()) ? &outs[static_cast<std::size_t>(r.tensor)] : nullptr;
  };
  for (bool progress = true; progress && !pending.empty();) {
    progress = false;
    for (auto it = pending.begin(); it != pending.end();) {
      const LayerDef& layer = *it->layer;
      const LayerCall& call = layer.calls[it->call];
      std::vector<KTensor> args;
      bool ready = produced[layer.name].size() == it->call;
      for (const auto& r : call.inputs) {
        const KTensor* t = ready ? lookup(r) : nullptr;
        if (!t) ready = false;
        else args.push_back(*t);
      }
      if (!ready) {
        ++it;
        continue;
      }
      Result<std::vector<KTensor>> outs = Status::Error("unset");
      if (layer.nested) {
        std::vector<std::string> path = h5_path;
        path.push_back(layer.name);
        auto scope = builder_.scope(nodeName(layer.name));
        outs = runModel(*layer.nested, args, path);
      } else {
        WeightRef ref{layer.store_path, h5_path};
        ref.layer_path.push_back(layer.name);
        outs = callLayer(layer, call, std::move(args), ref, "", nullptr);
      }
      if (!outs.ok()) return outs.status();
      produced[layer.name].push_back(std::move(outs).value());
      it = pending.erase(it);
      progress = true;
    }
  }
  if (!pending.empty()) {
    const LayerDef& layer = *pending.front().layer;
    for (const auto& r : layer.calls[pending.front().call].inputs)
      if (!lookup(r))
        return Status::Error("layer '" + layer.name + "' (" + layer.class_name + "): its input " + r.layer + "[" +
                             std::to_string(r.node) + "][" + std::to_string(r.tensor) +
                             "] is never produced (no such layer, call or output, or a cycle)");
    return Status::Error("layer '" + layer.name + "' (" + layer.class_name + ") cannot be ordered (a cycle)");
  }
  std::vector<KTensor> outs;
  for (const auto& r : m.outputs) {
    const KTensor* t = lookup(r);
    if (!t)
      return Status::Error(where + ": its output " + r.layer + "[" + std::to_string(r.node) + "][" +
                           std::to_string(r.tensor) + "] is not produced by any layer");
    outs.push_back(*t);
  }
  return outs;
}

Result<ConvertedModel> Converter::convert(const ModelDef& model) {
  ConvertedModel out;
  std::vector<KTensor> inputs;
  for (const auto& ref : model.inputs) {
    const LayerDef* layer = nullptr;
    for (const auto& l : model.layers)
      if (l.name == ref.layer) layer = &l;
    if (!layer || layer->class_name != "InputLayer")
      return Status::Error("the model input '" + ref.layer + "' is not an InputLayer");
    auto p = inputPlaceholder(*layer);
    if (!p.ok()) return p.status();
    out.inputs.push_back(p->name);
    inputs.push_back(*p);
  }
  auto outs = runModel(model, inputs, {});
  if (!outs.ok()) return outs.status();
  std::map<std::string, int> uses;
  for (const auto& r : model.outputs) ++uses[r.layer];
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < outs->size(); ++i) {
    const auto& r = model.outputs[i];
    std::string name = nodeName(r.layer);
    if (uses[r.layer] > 1 && seen[r.layer]++ > 0) name += "_" + std::to_string(seen[r.layer] - 1);
    // A model output that is its input too is named by the builder's rule.
    const KTensor& t = (*outs)[i];
    out.outputs.push_back(ops_.unary("Identity", name, t).name);
  }
  out.graph = builder_.release();
  return out;
}

const LayerRegistry& layerRegistry() {
  static const LayerRegistry registry = [] {
    LayerRegistry r;
    addActivationLayers(r);
    addCoreLayers(r);
    addConvLayers(r);
    addPoolingLayers(r);
    addReshapingLayers(r);
    addMergeLayers(r);
    addNormalizationLayers(r);
    addRecurrentLayers(r);
    return r;
  }();
  return registry;
}

std::vector<std::string> supportedLayerClasses() {
  std::vector<std::string> out;
  for (const auto& [name, fn] : layerRegistry()) out.push_back(name);
  return out;
}

Result<ConvertedModel> convertModel(const ModelDef& model, const WeightStore& store, const KerasVersion& version,
                                    bool legacy_h5) {
  Converter converter(store, version, legacy_h5);
  return converter.convert(model);
}

}  // namespace gds::model::keras
