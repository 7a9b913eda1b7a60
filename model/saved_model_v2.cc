// TF2 SavedModels' object graph: object paths, user signatures and the
// functions they run, object functions, Keras layers (keras_metadata.pb or
// the objects' metadata), and the binding of variables to the keys of an
// object-based checkpoint. Freezing is in saved_model_v2_freeze.cc.
#include "model/saved_model_v2.h"

#include <deque>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "keras_metadata.pb.h"
#include "model/attr.h"
#include "model/file_io.h"
#include "model/functions.h"
#include "model/graph.h"
#include "model/saved_model_v2_impl.h"

namespace gds::model {
namespace fs = std::filesystem;
using namespace saved_model_v2_impl;  // the helpers shared with saved_model_v2_freeze.cc

namespace {

using tensorflow::NodeDef;
using tensorflow::SavedObject;
using tensorflow::SavedObjectGraph;

constexpr const char* kObjectGraphKey = "_CHECKPOINTABLE_OBJECT_GRAPH";
constexpr const char* kInitOpSignature = "__saved_model_init_op";

// The concrete function of signature `key` as the object graph records it:
// root.signatures.<key>, a SavedBareConcreteFunction.
std::string signatureFunctionOfObjects(const SavedObjectGraph& g, const std::string& key) {
  if (g.nodes_size() == 0) return "";
  int sigs = childId(g.nodes(0), "signatures");
  if (!validNode(g, sigs)) return "";
  int fn = childId(g.nodes(sigs), key);
  if (!validNode(g, fn) || g.nodes(fn).kind_case() != SavedObject::kBareConcreteFunction) return "";
  return g.nodes(fn).bare_concrete_function().concrete_function_name();
}

}  // namespace

const NodeDef* saved_model_v2_impl::signatureCallNode(const tensorflow::GraphDef& graph, const Signature& s) {
  if (s.output_tensors.empty()) return nullptr;
  std::string node;
  for (const auto& o : s.output_tensors) {
    if (o.tensor.empty()) return nullptr;
    std::string n(nodeNameOf(o.tensor));
    if (!node.empty() && n != node) return nullptr;
    node = n;
  }
  for (const auto& n : graph.node())
    if (n.name() == node) {
      const auto* f = findAttr(n, "f");
      if (!isPartitionedCall(n.op()) || !f || f->value_case() != tensorflow::AttrValue::kFunc)
        return nullptr;
      return &n;
    }
  return nullptr;
}

std::string saved_model_v2_impl::kindName(const SavedObject& o) {
  switch (o.kind_case()) {
    case SavedObject::kUserObject: return "user object";
    case SavedObject::kAsset: return "asset";
    case SavedObject::kFunction: return "function";
    case SavedObject::kVariable: return "variable";
    case SavedObject::kBareConcreteFunction: return "concrete function";
    case SavedObject::kConstant: return "constant";
    case SavedObject::kResource: return "resource";
    case SavedObject::kCapturedTensor: return "captured tensor";
    default: return "empty object";
  }
}

namespace {

void parseKerasJson(const std::string& metadata, KerasObject* k) {
  auto j = nlohmann::json::parse(metadata, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return;
  if (auto c = j.find("class_name"); c != j.end() && c->is_string()) k->class_name = c->get<std::string>();
  if (auto n = j.find("name"); n != j.end() && n->is_string()) k->name = n->get<std::string>();
}

}  // namespace

bool hasObjectGraph(const tensorflow::MetaGraphDef& meta) {
  return meta.has_object_graph_def() && meta.object_graph_def().nodes_size() > 0;
}

std::vector<std::string> objectPaths(const SavedObjectGraph& g) {
  std::vector<std::string> paths(static_cast<size_t>(g.nodes_size()));
  if (g.nodes_size() == 0) return paths;
  std::vector<char> seen(static_cast<size_t>(g.nodes_size()), 0);
  std::deque<int> todo{0};
  paths[0] = "root";
  seen[0] = 1;
  while (!todo.empty()) {
    int n = todo.front();
    todo.pop_front();
    for (const auto& c : g.nodes(n).children()) {
      if (!validNode(g, c.node_id()) || seen[static_cast<size_t>(c.node_id())]) continue;
      seen[static_cast<size_t>(c.node_id())] = 1;
      paths[static_cast<size_t>(c.node_id())] = paths[static_cast<size_t>(n)] + "." + c.local_name();
      todo.push_back(c.node_id());
    }
  }
  return paths;
}

std::vector<const Signature*> userSignatures(const LoadedModel& model) {
  std::vector<const Signature*> out;
  for (const auto& s : model.signatures)
    if (s.key != kInitOpSignature) out.push_back(&s);
  return out;
}

std::vector<ObjectFunction> objectFunctions(const SavedObjectGraph& g) {
  std::vector<ObjectFunction> out;
  auto paths = objectPaths(g);
  for (int i = 0; i < g.nodes_size(); ++i) {
    const std::string& p = paths[static_cast<size_t>(i)];
    if (p.empty() || p.rfind("root.signatures.", 0) == 0) continue;
    ObjectFunction f;
    f.path = p.size() > 5 ? p.substr(5) : p;  // without "root."
    if (g.nodes(i).kind_case() == SavedObject::kFunction) {
      f.concrete_functions.assign(g.nodes(i).function().concrete_functions().begin(),
                                  g.nodes(i).function().concrete_functions().end());
    } else if (g.nodes(i).kind_case() == SavedObject::kBareConcreteFunction) {
      f.concrete_functions.push_back(g.nodes(i).bare_concrete_function().concrete_function_name());
    } else {
      continue;
    }
    out.push_back(std::move(f));
  }
  return out;
}

void describeObjectGraph(LoadedModel* model) {
  if (!hasObjectGraph(model->meta)) return;
  model->object_based = true;
  const SavedObjectGraph& og = model->meta.object_graph_def();
  for (auto& sig : model->signatures) {
    if (sig.key == kInitOpSignature) continue;
    sig.function = signatureFunctionOfObjects(og, sig.key);
    if (sig.function.empty())
      if (const NodeDef* call = signatureCallNode(model->graph, sig)) sig.function = call->attr().at("f").func().name();
    if (sig.function.empty()) {
      model->warnings.push_back("signature '" + sig.key + "': cannot tell which function it runs");
      continue;
    }
    if (auto cf = og.concrete_functions().find(sig.function); cf != og.concrete_functions().end())
      sig.captured.assign(cf->second.bound_inputs().begin(), cf->second.bound_inputs().end());
  }

  // Keras: keras_metadata.pb beside saved_model.pb, else (TF <= 2.4) the
  // metadata of the objects themselves.
  fs::path dir = fs::path(model->file).parent_path();
  fs::path keras = dir / "keras_metadata.pb";
  std::error_code ec;
  if (model->kind == ModelKind::SavedModel && fs::exists(keras, ec)) {
    auto bytes = readFile(keras.string());
    keras::protobuf::SavedMetadata meta;
    if (!bytes.ok() || !meta.ParseFromString(*bytes)) {
      model->warnings.push_back(keras.string() + ": not a valid Keras SavedMetadata; Keras layers are not shown");
      return;
    }
    for (const auto& n : meta.nodes()) {
      KerasObject k;
      k.node_id = n.node_id();
      k.path = n.node_path();
      k.identifier = n.identifier();
      parseKerasJson(n.metadata(), &k);
      model->keras_objects.push_back(std::move(k));
    }
    return;
  }
  auto paths = objectPaths(og);
  for (int i = 0; i < og.nodes_size(); ++i) {
    const SavedObject& o = og.nodes(i);
    if (o.kind_case() != SavedObject::kUserObject || o.user_object().metadata().empty() ||
        o.user_object().identifier().rfind("_tf_keras", 0) != 0 || paths[static_cast<size_t>(i)].empty())
      continue;
    KerasObject k;
    k.node_id = i;
    k.path = paths[static_cast<size_t>(i)];
    k.identifier = o.user_object().identifier();
    parseKerasJson(o.user_object().metadata(), &k);
    model->keras_objects.push_back(std::move(k));
  }
}

Result<ObjectCheckpoint> ObjectCheckpoint::open(const SavedObjectGraph& graph, const CheckpointReader& checkpoint) {
  ObjectCheckpoint oc;
  oc.graph_ = &graph;
  oc.checkpoint_ = &checkpoint;
  const std::string where = "checkpoint " + checkpoint.prefix();
  if (!checkpoint.has(kObjectGraphKey))
    return Status::Error(where + " has no " + std::string(kObjectGraphKey) +
                         " entry: it is not an object-based (TF2) checkpoint, so its keys cannot be matched to the "
                         "SavedModel's variables");
  auto t = checkpoint.read(kObjectGraphKey);
  if (!t.ok()) return t.status().withContext(where + ": " + kObjectGraphKey);
  if (t->dtype != tensorflow::DT_STRING || t->strings.size() != 1)
    return Status::Error(where + ": " + kObjectGraphKey + " should be one string, it is " + dtypeName(t->dtype) + " " +
                         shapeString(t->shape));
  if (!oc.trackable_.ParseFromString(t->strings[0]))
    return Status::Error(where + ": " + kObjectGraphKey + " is not a valid TrackableObjectGraph (corrupt)");
  const auto& tg = oc.trackable_;
  for (int i = 0; i < tg.nodes_size(); ++i)
    for (const auto& c : tg.nodes(i).children())
      if (c.node_id() < 0 || c.node_id() >= tg.nodes_size())
        return Status::Error(where + ": " + kObjectGraphKey + " node " + std::to_string(i) + " names child " +
                             std::to_string(c.node_id()) + " ('" + c.local_name() + "'), which does not exist (" +
                             std::to_string(tg.nodes_size()) + " nodes)");
  oc.paths_ = objectPaths(graph);
  oc.match_.assign(static_cast<size_t>(graph.nodes_size()), -1);
  if (graph.nodes_size() == 0 || tg.nodes_size() == 0) return oc;
  // Walk both graphs from the root, pairing children by name.
  oc.match_[0] = 0;
  std::deque<int> todo{0};
  while (!todo.empty()) {
    int s = todo.front();
    todo.pop_front();
    int t_node = oc.match_[static_cast<size_t>(s)];
    for (const auto& c : graph.nodes(s).children()) {
      if (!validNode(graph, c.node_id()) || oc.match_[static_cast<size_t>(c.node_id())] >= 0) continue;
      for (const auto& tc : tg.nodes(t_node).children())
        if (tc.local_name() == c.local_name()) {
          oc.match_[static_cast<size_t>(c.node_id())] = tc.node_id();
          todo.push_back(c.node_id());
          break;
        }
    }
  }
  return oc;
}

Result<std::string> ObjectCheckpoint::variableKey(int node_id) const {
  if (!validNode(*graph_, node_id)) return Status::Error("object node " + std::to_string(node_id) + " does not exist");
  const SavedObject& o = graph_->nodes(node_id);
  const std::string& name = o.variable().name();
  const std::string path = paths_[static_cast<size_t>(node_id)].empty() ? "node " + std::to_string(node_id)
                                                                          : paths_[static_cast<size_t>(node_id)];
  const std::string what = "variable '" + name + "' (object " + path + ")";
  if (o.kind_case() != SavedObject::kVariable)
    return Status::Error("object " + path + " is a " + kindName(o) + ", not a variable");
  int t = match_[static_cast<size_t>(node_id)];
  const auto& tg = trackable_;
  // Objects the root does not reach by name: node ids are shared by the
  // SavedModel's and the checkpoint's object graphs.
  if (t < 0 && node_id < tg.nodes_size()) {
    for (const auto& a : tg.nodes(node_id).attributes())
      if (a.name() == "VARIABLE_VALUE" && a.full_name() == name) t = node_id;
  }
  if (t < 0)
    return Status::Error(what + " has no object in the object graph of checkpoint " + checkpoint_->prefix());
  for (const auto& a : tg.nodes(t).attributes()) {
    if (a.name() != "VARIABLE_VALUE") continue;
    if (!checkpoint_->has(a.checkpoint_key()))
      return Status::Error(what + " is stored under '" + a.checkpoint_key() + "', which checkpoint " +
                           checkpoint_->prefix() + " does not contain");
    return a.checkpoint_key();
  }
  return Status::Error(what + ": the checkpoint's object graph gives it no value (no VARIABLE_VALUE attribute)");
}
}  // namespace gds::model
