#include "model/endpoints.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "model/attr.h"
#include "model/freeze.h"
#include "model/graph.h"
#include "model/tflite/dialect.h"

namespace gds::model {
namespace {

namespace mt = tflite;

// "node" -> "node:0"; "node:k" stays.
std::string canonicalTensor(const std::string& name) {
  const TensorRef ref = parseTensorName(name);
  return ref.node + ":" + std::to_string(ref.port);
}

// dtype and static shape of output `port` of `node`: a Placeholder's dtype
// and shape attrs, else the TFLite dialect's _output_types/_output_shapes.
void describeTensor(const tensorflow::NodeDef& node, int port, Endpoint* e) {
  if (node.op() == "Placeholder" || node.op() == "PlaceholderWithDefault") {
    if (const auto* dtype = findAttr(node, "dtype")) e->dtype = dtype->type();
    if (const auto* shape = findAttr(node, "shape"); shape && !shape->shape().unknown_rank()) {
      e->known_rank = true;
      for (const auto& d : shape->shape().dim()) e->shape.push_back(d.size());
    }
    return;
  }
  if (const auto* types = findAttr(node, mt::kOutputTypesAttr); types && port < types->list().type_size())
    e->dtype = types->list().type(port);
  else if (const auto* t = findAttr(node, "T"); t && t->value_case() == tensorflow::AttrValue::kType)
    e->dtype = t->type();
  if (const auto* shapes = findAttr(node, mt::kOutputShapesAttr); shapes && port < shapes->list().shape_size()) {
    const auto& s = shapes->list().shape(port);
    if (!s.unknown_rank()) {
      e->known_rank = true;
      for (const auto& d : s.dim()) e->shape.push_back(d.size());
    }
  }
}

Endpoint endpointFor(const std::unordered_map<std::string, const tensorflow::NodeDef*>& nodes,
                     const std::string& tensor, const std::string& key) {
  Endpoint e;
  e.tensor = canonicalTensor(tensor);
  e.key = key;
  const TensorRef ref = parseTensorName(e.tensor);
  auto it = nodes.find(ref.node);
  if (it != nodes.end()) describeTensor(*it->second, ref.port, &e);
  return e;
}

std::unordered_map<std::string, const tensorflow::NodeDef*> nodesByName(const tensorflow::GraphDef& graph) {
  std::unordered_map<std::string, const tensorflow::NodeDef*> nodes;
  for (const auto& n : graph.node()) nodes.emplace(n.name(), &n);
  return nodes;
}

// The key of `tensor` in the model's signatures (serving_default first).
std::string keyOf(const std::vector<Signature>& signatures, const std::string& tensor, bool input) {
  std::vector<const Signature*> order;
  for (const auto& s : signatures)
    if (s.key == "serving_default") order.insert(order.begin(), &s);
    else order.push_back(&s);
  for (const Signature* s : order)
    for (const auto& [key, t] : input ? s->inputs : s->outputs)
      if (canonicalTensor(t) == tensor) return key;
  return "";
}

void addSignatureAliases(const std::vector<Signature>& signatures, Endpoints* e) {
  for (const auto& s : signatures) {
    for (const auto& [key, t] : s.inputs) e->aliases.emplace_back(key, canonicalTensor(t));
    for (const auto& [key, t] : s.outputs) e->aliases.emplace_back(key, canonicalTensor(t));
  }
}

// A .tflite file's declared inputs (Placeholders by _input_index) and
// outputs (_output_index), and its tensor names where the node name differs.
Endpoints tfliteEndpoints(const LoadedModel& model) {
  Endpoints e;
  e.origin = "the model's declared inputs and outputs";
  const auto nodes = nodesByName(model.graph);
  std::vector<std::pair<std::int64_t, std::string>> inputs, outputs;
  for (const auto& n : model.graph.node()) {
    if (n.op() == "Placeholder") {
      const auto* index = findAttr(n, mt::kInputIndexAttr);
      inputs.emplace_back(index ? index->i() : (std::int64_t{1} << 40) + static_cast<std::int64_t>(inputs.size()),
                          n.name() + ":0");
    }
    if (const auto* index = findAttr(n, mt::kOutputIndexAttr))
      for (int port = 0; port < index->list().i_size(); ++port)
        if (index->list().i(port) >= 0) outputs.emplace_back(index->list().i(port), n.name() + ":" + std::to_string(port));
    if (const auto* names = findAttr(n, mt::kOutputNamesAttr))
      for (int port = 0; port < names->list().s_size(); ++port)
        e.aliases.emplace_back(names->list().s(port), n.name() + ":" + std::to_string(port));
  }
  std::sort(inputs.begin(), inputs.end());
  std::sort(outputs.begin(), outputs.end());
  for (const auto& [pos, t] : inputs) e.inputs.push_back(endpointFor(nodes, t, keyOf(model.signatures, t, true)));
  for (const auto& [pos, t] : outputs) e.outputs.push_back(endpointFor(nodes, t, keyOf(model.signatures, t, false)));
  addSignatureAliases(model.signatures, &e);
  return e;
}

std::string listed(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// The SavedModel signature to freeze: the one asked for, else
// serving_default, else the only one.
Result<std::string> chooseSignature(const LoadedModel& model, const std::string& wanted) {
  const std::vector<std::string> keys = signatureKeys(model);
  if (!wanted.empty()) {
    if (std::find(keys.begin(), keys.end(), wanted) != keys.end()) return wanted;
    // A TF2 function name (freeze's --signature_name also takes those).
    if (model.object_based) return wanted;
    return Status::Error(model.path + " has no signature '" + wanted + "'; its signatures: " + listed(keys));
  }
  if (std::find(keys.begin(), keys.end(), "serving_default") != keys.end()) return std::string("serving_default");
  if (keys.size() == 1) return keys[0];
  if (keys.empty())
    return Status::Error(model.path + " has no signature saying what its inputs and outputs are; freeze it with "
                         "`gdstudio freeze --output_node_names=...` and use the frozen graph");
  return Status::Error(model.path + " has no 'serving_default' signature; choose one with --signature_name: " +
                       listed(keys));
}

// The nodes whose last name component is `name` ("Softmax" ->
// ".../dense_3/Softmax"), at most five.
std::vector<std::string> sameLastComponent(const tensorflow::GraphDef& graph, const std::string& name) {
  std::vector<std::string> found;
  const std::string suffix = "/" + std::string(nodeNameOf(name));
  for (const auto& n : graph.node()) {
    const std::string& s = n.name();
    if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0) {
      found.push_back(s);
      if (found.size() == 5) break;
    }
  }
  return found;
}

}  // namespace

std::vector<std::string> signatureKeys(const LoadedModel& model) {
  std::vector<std::string> keys;
  for (const auto& s : model.signatures)
    if (s.key != "__saved_model_init_op") keys.push_back(s.key);
  return keys;
}

std::string Endpoint::display() const {
  if (!key.empty()) return key;
  const TensorRef ref = parseTensorName(tensor);
  return ref.port == 0 ? ref.node : tensor;
}

std::vector<std::string> graphOutputs(const tensorflow::GraphDef& graph) {
  std::unordered_set<std::string_view> consumed;
  for (const auto& n : graph.node())
    for (const auto& in : n.input()) consumed.insert(nodeNameOf(in));
  static const std::set<std::string> kNotOutputs = {"Const", "Placeholder", "NoOp", "Assign"};
  std::vector<std::string> out;
  for (const auto& n : graph.node()) {
    if (consumed.count(n.name()) || kNotOutputs.count(n.op())) continue;
    if (n.op() == "IdentityN") {
      const int count = dataInputCount(n);
      for (int k = 0; k < count; ++k) out.push_back(n.name() + ":" + std::to_string(k));
      continue;
    }
    out.push_back(n.name() + ":0");
  }
  return out;
}

Endpoints endpointsOf(const LoadedModel& model) {
  if (model.kind == ModelKind::TFLite || mt::isDialectGraph(model.graph)) {
    Endpoints e = tfliteEndpoints(model);
    if (!e.outputs.empty() || model.kind == ModelKind::TFLite) return e;
  }
  Endpoints e;
  e.origin = "the graph's Placeholders and the nodes nothing consumes";
  const auto nodes = nodesByName(model.graph);
  for (const auto& n : model.graph.node())
    if (n.op() == "Placeholder") e.inputs.push_back(endpointFor(nodes, n.name(), keyOf(model.signatures, n.name() + ":0", true)));
  for (const auto& t : graphOutputs(model.graph)) e.outputs.push_back(endpointFor(nodes, t, keyOf(model.signatures, t, false)));
  addSignatureAliases(model.signatures, &e);
  return e;
}

Result<RunnableModel> makeRunnable(LoadedModel loaded, const RunnableOptions& options) {
  RunnableModel r;
  if (loaded.kind != ModelKind::SavedModel) {
    r.endpoints = endpointsOf(loaded);
    r.model = std::move(loaded);
    return r;
  }
  auto key = chooseSignature(loaded, options.signature);
  if (!key.ok()) return key.status();
  FreezeOptions freeze_options;
  freeze_options.signature = *key;
  auto frozen = freeze(loaded, freeze_options);
  if (!frozen.ok()) return frozen.status();
  r.signature = *key;
  r.notes.push_back("froze signature '" + *key + "' of " + loaded.path + " with its checkpoint (" +
                    std::to_string(frozen->converted.size()) + " variables)");
  for (const auto& w : frozen->warnings) r.notes.push_back(w);
  r.model = std::move(loaded);
  r.model.graph = std::move(frozen->graph);
  r.model.kind = ModelKind::GraphDef;  // a frozen graph now
  r.model.object_based = false;
  const auto nodes = nodesByName(r.model.graph);
  Endpoints& e = r.endpoints;
  e.origin = "signature '" + *key + "'";
  for (const auto& [k, t] : frozen->signature_inputs) e.inputs.push_back(endpointFor(nodes, t, k));
  for (const auto& [k, t] : frozen->signature_outputs) e.outputs.push_back(endpointFor(nodes, t, k));
  if (e.outputs.empty())
    for (const auto& o : frozen->outputs) e.outputs.push_back(endpointFor(nodes, o, ""));
  for (const auto& in : e.inputs) e.aliases.emplace_back(in.key, in.tensor);
  for (const auto& out : e.outputs)
    if (!out.key.empty()) e.aliases.emplace_back(out.key, out.tensor);
  // The outer graph's names the signature gave ("serving_default_x:0",
  // "StatefulPartitionedCall:0") still name the same tensors.
  for (const auto& s : r.model.signatures) {
    if (s.key != *key) continue;
    for (const auto& [k, t] : s.inputs)
      for (const auto& in : e.inputs)
        if (in.key == k && canonicalTensor(t) != in.tensor) e.aliases.emplace_back(t, in.tensor);
    for (const auto& [k, t] : s.outputs)
      for (const auto& out : e.outputs)
        if (out.key == k && canonicalTensor(t) != out.tensor) e.aliases.emplace_back(t, out.tensor);
  }
  return r;
}

Result<RunnableModel> openRunnable(const std::string& path, const RunnableOptions& options) {
  LoadOptions load_options;
  load_options.tags = options.tags;
  auto loaded = load(path, load_options);
  if (!loaded.ok()) return loaded.status();
  return makeRunnable(std::move(*loaded), options);
}

Result<std::string> resolveTensor(const RunnableModel& model, const std::string& name, const std::string& what) {
  const tensorflow::GraphDef& graph = model.model.graph;
  const TensorRef ref = parseTensorName(name);
  for (const auto& n : graph.node())
    if (n.name() == ref.node && !ref.control) return ref.node + ":" + std::to_string(ref.port);
  // A signature key or tensor name, as typed or with ":0" dropped.
  for (const std::string& candidate : {name, ref.port == 0 ? ref.node : std::string()}) {
    if (candidate.empty()) continue;
    for (const auto& [alias, tensor] : model.endpoints.aliases)
      if (alias == candidate) return tensor;
  }
  const Endpoints& e = model.endpoints;
  std::string message = what + ": " + model.model.path + " has no node, tensor or signature key named '" + name + "'";
  const auto similar = sameLastComponent(graph, name);
  if (!similar.empty()) message += " (did you mean " + listed(similar) + "?)";
  message += "; its inputs: " + (e.inputs.empty() ? std::string("none") : endpointList(e.inputs)) +
             "; its outputs: " + (e.outputs.empty() ? std::string("none") : endpointList(e.outputs)) + " (" +
             e.origin + ")";
  return Status::Error(message);
}

Result<std::vector<std::string>> resolveTensors(const RunnableModel& model, const std::vector<std::string>& names,
                                                const std::string& what) {
  std::vector<std::string> out;
  for (const auto& n : names) {
    auto t = resolveTensor(model, n, what);
    if (!t.ok()) return t.status();
    out.push_back(*t);
  }
  return out;
}

Result<Shape> concreteShape(const Endpoint& endpoint, const std::string& flag, std::string* note) {
  if (!endpoint.known_rank)
    return Status::Error("input '" + endpoint.display() + "' has no known shape; give it with " + flag);
  Shape shape = endpoint.shape;
  bool changed = false;
  for (auto& d : shape)
    if (d < 0) {
      d = 1;
      changed = true;
    }
  if (changed && note)
    *note = "input '" + endpoint.display() + "': shape " + shapeString(endpoint.shape) +
            " has unknown dimensions; running it as " + shapeString(shape) + " (give another with " + flag + ")";
  return shape;
}

Endpoint endpointOf(const RunnableModel& model, const std::string& tensor) {
  const std::string t = canonicalTensor(tensor);
  for (const auto* list : {&model.endpoints.inputs, &model.endpoints.outputs})
    for (const auto& e : *list)
      if (e.tensor == t) return e;
  return endpointOf(model.model.graph, t);
}

Endpoint endpointOf(const tensorflow::GraphDef& graph, const std::string& tensor) {
  Endpoint e;
  e.tensor = canonicalTensor(tensor);
  const TensorRef ref = parseTensorName(e.tensor);
  for (const auto& n : graph.node())
    if (n.name() == ref.node) describeTensor(n, ref.port, &e);
  return e;
}

std::string endpointList(const std::vector<Endpoint>& endpoints) {
  std::string s;
  for (const auto& e : endpoints) {
    std::string item = e.display();
    if (e.dtype != tensorflow::DT_INVALID)
      item += " (" + dtypeName(e.dtype) + (e.known_rank ? shapeString(e.shape) : std::string()) + ")";
    s += (s.empty() ? "" : ", ") + item;
  }
  return s;
}

}  // namespace gds::model
