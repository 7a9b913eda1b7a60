// The conversion's private half, shared by convert.cc (walking the model's
// layers and calls) and the layers_*.cc files (one converter per Keras
// layer class): the context a layer converter gets and the registry.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/keras/config.h"
#include "model/keras/tf_ops.h"
#include "model/keras/weights.h"

namespace gds::model::keras {

class Converter;

// A weight a layer stores but does not compute with (Normalization's count).
inline const Shape kUnusedWeight = {-2};

// One call of one layer being converted. Ops are emitted inside the layer's
// name scope; errors name the layer and its class.
class LayerContext {
 public:
  LayerContext(Converter& converter, const LayerDef& layer, const LayerCall& call, std::vector<KTensor> inputs,
               WeightRef ref, std::string sub_prefix, const LayerDef* owner);

  const LayerDef& layer() const { return layer_; }
  const Json& config() const { return layer_.config; }
  const LayerCall& call() const { return call_; }
  std::vector<KTensor>& inputs() { return inputs_; }
  TfOps& ops();
  const KerasVersion& version() const;

  Status error(const std::string& message) const;
  // The only input, or an error when the layer got several.
  Result<KTensor> input() const;
  // The only input with a known rank `rank` (0: any) and known dimensions
  // at `static_axes`.
  Result<KTensor> input(int rank, const std::vector<int>& static_axes = {}) const;

  // Config values; the fallback when the key is absent or null. A wrong
  // type or value is an error naming the key.
  bool has(const char* key) const;
  const Json& value(const char* key) const;
  Result<std::int64_t> integer(const char* key) const;
  Result<std::int64_t> integer(const char* key, std::int64_t fallback) const;
  Result<double> number(const char* key, double fallback) const;
  Result<bool> flag(const char* key, bool fallback) const;
  Result<std::string> string(const char* key, const std::string& fallback) const;
  // An int or a list of `n` ints (kernel_size, strides, ...).
  Result<std::vector<std::int64_t>> ints(const char* key, std::size_t n) const;
  Result<std::vector<std::int64_t>> ints(const char* key, std::size_t n, std::int64_t fallback) const;
  // Keras' channels_last / channels_first (data_format, default channels_last).
  Result<bool> channelsFirst() const;

  // The layer's weights as Consts in its scope (made once per layer and
  // shared by its calls), checked against `shapes` (-1: any size). A weight
  // whose shape is kUnusedWeight is counted but not made a Const.
  Result<std::vector<KTensor>> weights(const std::vector<std::string>& names, const std::vector<Shape>& shapes,
                                       const std::string& sub = "");

  // An activation (a name, a serialized function or an activation layer).
  Result<KTensor> activation(const Json& spec, const KTensor& x);
  // Converts a layer given by its serialized config (the layer inside a
  // Bidirectional or TimeDistributed) on `inputs`; its weights are under
  // `sub` of this layer.
  Result<std::vector<KTensor>> callInner(const Json& layer_json, const std::vector<KTensor>& inputs,
                                         const std::string& sub, const std::string& scope);

 private:
  Converter& converter_;
  const LayerDef& layer_;
  const LayerCall& call_;
  std::vector<KTensor> inputs_;
  WeightRef ref_;
  std::string sub_prefix_;
  const LayerDef* owner_;
};

using LayerConverter = std::function<Result<std::vector<KTensor>>(LayerContext&)>;
using LayerRegistry = std::map<std::string, LayerConverter>;

// Each file registers its layer classes.
void addActivationLayers(LayerRegistry& r);
void addCoreLayers(LayerRegistry& r);
void addConvLayers(LayerRegistry& r);
void addPoolingLayers(LayerRegistry& r);
void addReshapingLayers(LayerRegistry& r);
void addMergeLayers(LayerRegistry& r);
void addNormalizationLayers(LayerRegistry& r);
void addRecurrentLayers(LayerRegistry& r);
const LayerRegistry& layerRegistry();

// activations.cc: a Keras activation by name ("relu", "gelu", ...).
Result<KTensor> applyActivationName(LayerContext& ctx, const std::string& name, const KTensor& x);
// Elementwise helpers shared by the layer files.
KTensor relu6Like(TfOps& ops, const KTensor& x, float max_value);
KTensor scaled(TfOps& ops, const std::string& name, const KTensor& x, float factor);

}  // namespace gds::model::keras
