// Freezing a TF2 SavedModel: the concrete function of a signature (or of an
// object function) inlined into a GraphDef, its captured variables read from
// the checkpoint as constants, assets as their paths, arguments as
// Placeholders and results as Identity nodes named after the signature's keys.
#include "model/saved_model_v2.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/attr.h"
#include "model/functions.h"
#include "model/graph.h"
#include "model/op_metadata.h"
#include "model/saved_model_v2_impl.h"

namespace gds::model {
namespace fs = std::filesystem;

namespace {

using tensorflow::DataType;
using tensorflow::NodeDef;
using tensorflow::SavedObject;
using tensorflow::SavedObjectGraph;
using tensorflow::StructuredValue;

using saved_model_v2_impl::childId;
using saved_model_v2_impl::kindName;
using saved_model_v2_impl::signatureCallNode;
using saved_model_v2_impl::validNode;

// A leaf of a nested structure (nest.flatten order: sequences in order,
// dicts by sorted key), with the dict key or spec name that names it.
struct Leaf {
  std::string name;
  bool tensor = false;  // TensorSpec / BoundedTensorSpec
  bool composite = false;
  const tensorflow::TensorShapeProto* shape = nullptr;
  DataType dtype = tensorflow::DT_INVALID;
};
void flatten(const StructuredValue& v, const std::string& name, std::vector<Leaf>* out, int depth = 0) {
  if (depth > 64) return;
  switch (v.kind_case()) {
    case StructuredValue::kTensorSpecValue:
      out->push_back({name.empty() ? v.tensor_spec_value().name() : name, true, false, &v.tensor_spec_value().shape(),
                      v.tensor_spec_value().dtype()});
      return;
    case StructuredValue::kBoundedTensorSpecValue:
      out->push_back({name.empty() ? v.bounded_tensor_spec_value().name() : name, true, false,
                      &v.bounded_tensor_spec_value().shape(), v.bounded_tensor_spec_value().dtype()});
      return;
    case StructuredValue::kTypeSpecValue: out->push_back({name, false, true, nullptr, tensorflow::DT_INVALID}); return;
    case StructuredValue::kListValue:
      for (const auto& x : v.list_value().values()) flatten(x, "", out, depth + 1);
      return;
    case StructuredValue::kTupleValue:
      for (const auto& x : v.tuple_value().values()) flatten(x, "", out, depth + 1);
      return;
    case StructuredValue::kNamedTupleValue:
      for (const auto& p : v.named_tuple_value().values()) flatten(p.value(), p.key(), out, depth + 1);
      return;
    case StructuredValue::kDictValue: {
      std::vector<std::string> keys;
      for (const auto& [k, x] : v.dict_value().fields()) keys.push_back(k);
      std::sort(keys.begin(), keys.end());
      for (const auto& k : keys) flatten(v.dict_value().fields().at(k), k, out, depth + 1);
      return;
    }
    default: return;  // None, numbers, strings, bools: not tensors
  }
}

// A node name TensorFlow accepts ([A-Za-z0-9.][A-Za-z0-9_.\-/]*).
std::string nodeNameFor(const std::string& key) {
  std::string s;
  for (char c : key) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '/') ? c : '_';
  while (!s.empty() && s.back() == '/') s.pop_back();
  if (s.empty() || !(std::isalnum(static_cast<unsigned char>(s[0])) || s[0] == '.')) s = "t" + s;
  return s;
}

// What freezing works on: the concrete function and how its arguments and
// results are named.
struct Target {
  std::string what;      // "signature 'serving_default'"
  std::string function;  // the concrete function
  std::vector<int> captured;
  struct Input {
    std::string name;
    int arg = 0;
    DataType dtype = tensorflow::DT_INVALID;
    tensorflow::TensorShapeProto shape;  // unknown_rank when not known
  };
  std::vector<Input> inputs;
  struct Output {
    std::string name;
    int ret = 0;
  };
  std::vector<Output> outputs;
};

std::string joinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::vector<std::string> signatureKeys(const LoadedModel& m) {
  std::vector<std::string> keys;
  for (const Signature* s : userSignatures(m)) keys.push_back(s->key);
  return keys;
}

std::string functionChoices(const SavedObjectGraph& g) {
  std::vector<std::string> paths;
  for (const auto& f : objectFunctions(g)) paths.push_back(f.path);
  return paths.empty() ? "none" : joinNames(paths);
}

Result<Target> signatureTarget(const LoadedModel& m, const Signature& sig, const FunctionLibrary& lib) {
  Target t;
  t.what = "signature '" + sig.key + "'";
  t.function = sig.function;
  if (t.function.empty()) return Status::Error(t.what + ": cannot tell which function it runs");
  const tensorflow::FunctionDef* f = lib.find(t.function);
  if (!f) return Status::Error(t.what + " runs function '" + t.function + "', which is not in the function library");
  t.captured = sig.captured;
  const auto& og = m.meta.object_graph_def();
  const int args = f->signature().input_arg_size();
  const int user = args - static_cast<int>(t.captured.size());
  if (user < 0 || user != static_cast<int>(sig.input_tensors.size()))
    return Status::Error(t.what + " has " + std::to_string(sig.input_tensors.size()) + " inputs, but function '" +
                         t.function + "' takes " + std::to_string(args) + " arguments of which " +
                         std::to_string(t.captured.size()) + " are captured objects");
  const NodeDef* call = signatureCallNode(m.graph, sig);
  if (call && call->attr().at("f").func().name() != t.function) call = nullptr;
  const tensorflow::SavedBareConcreteFunction* bare = nullptr;
  if (int sigs = og.nodes_size() ? childId(og.nodes(0), "signatures") : -1; validNode(og, sigs))
    if (int fn = childId(og.nodes(sigs), sig.key);
        validNode(og, fn) && og.nodes(fn).kind_case() == SavedObject::kBareConcreteFunction)
      bare = &og.nodes(fn).bare_concrete_function();
  for (const auto& in : sig.input_tensors) {
    Target::Input x;
    x.name = in.key;
    x.dtype = in.dtype;
    x.arg = -1;
    if (call) {
      std::string want = parseTensorName(in.tensor).str();
      for (int k = 0; k < call->input_size(); ++k)
        if (parseTensorName(call->input(k)).str() == want) x.arg = k;
    } else if (bare) {
      for (int k = 0; k < bare->argument_keywords_size(); ++k)
        if (bare->argument_keywords(k) == in.key) x.arg = k;
    } else {
      for (int k = 0; k < user; ++k)
        if (f->signature().input_arg(k).name() == in.key) x.arg = k;
    }
    if (x.arg < 0 || x.arg >= user)
      return Status::Error(t.what + ": cannot tell which argument of function '" + t.function + "' input '" + in.key +
                           "' (" + in.tensor + ") is");
    if (in.known_rank) shapeToProto(in.shape, &x.shape);
    else x.shape.set_unknown_rank(true);
    t.inputs.push_back(std::move(x));
  }
  std::vector<Leaf> out_leaves;
  if (auto cf = og.concrete_functions().find(t.function); cf != og.concrete_functions().end())
    flatten(cf->second.output_signature(), "", &out_leaves);
  for (const auto& out : sig.output_tensors) {
    Target::Output o;
    o.name = out.key;
    o.ret = -1;
    if (call) {
      TensorRef r = parseTensorName(out.tensor);
      if (r.node == call->name()) o.ret = r.port;
    } else {
      for (size_t k = 0; k < out_leaves.size(); ++k)
        if (out_leaves[k].name == out.key) o.ret = static_cast<int>(k);
    }
    if (o.ret < 0 || o.ret >= f->signature().output_arg_size())
      return Status::Error(t.what + ": cannot tell which result of function '" + t.function + "' output '" +
                           out.key + "' (" + out.tensor + ") is");
    t.outputs.push_back(std::move(o));
  }
  return t;
}

// `name`: a concrete function, or the object path of a function with one.
// *found is false when `name` is neither.
Result<Target> functionTarget(const LoadedModel& m, const std::string& name, const FunctionLibrary& lib, bool* found) {
  const auto& og = m.meta.object_graph_def();
  Target t;
  *found = true;
  if (lib.find(name)) {
    t.function = name;
    t.what = "function '" + name + "'";
  } else {
    for (const auto& f : objectFunctions(og)) {
      if (f.path != name && "root." + f.path != name) continue;
      if (f.concrete_functions.size() != 1) {
        return Status::Error("function '" + f.path + "' has " + std::to_string(f.concrete_functions.size()) +
                             " concrete functions; name one with --signature_name: " +
                             joinNames(f.concrete_functions));
      }
      t.function = f.concrete_functions[0];
      t.what = "function '" + f.path + "' (" + t.function + ")";
    }
  }
  if (t.function.empty()) {
    *found = false;
    return Status::Error("'" + name + "' is not a function");
  }
  const tensorflow::FunctionDef* f = lib.find(t.function);
  if (!f) return Status::Error(t.what + " is not in the function library");
  auto cf = og.concrete_functions().find(t.function);
  if (cf != og.concrete_functions().end()) t.captured.assign(cf->second.bound_inputs().begin(), cf->second.bound_inputs().end());
  const int args = f->signature().input_arg_size();
  const int user = args - static_cast<int>(t.captured.size());
  if (user < 0)
    return Status::Error(t.what + " captures " + std::to_string(t.captured.size()) + " objects but takes " +
                         std::to_string(args) + " arguments");
  std::vector<Leaf> in_leaves, out_leaves;
  if (cf != og.concrete_functions().end()) {
    flatten(cf->second.canonicalized_input_signature(), "", &in_leaves);
    flatten(cf->second.output_signature(), "", &out_leaves);
  }
  for (const auto& l : in_leaves)
    if (l.composite) return Status::Error(t.what + " takes a composite tensor input ('" + l.name + "'), which cannot be frozen");
  const bool named = static_cast<int>(in_leaves.size()) == user;
  const tensorflow::AttrValue* shapes = nullptr;
  if (auto it = f->attr().find("_input_shapes"); it != f->attr().end()) shapes = &it->second;
  for (int k = 0; k < user; ++k) {
    Target::Input x;
    const auto& arg = f->signature().input_arg(k);
    x.arg = k;
    x.name = named && !in_leaves[static_cast<size_t>(k)].name.empty() ? in_leaves[static_cast<size_t>(k)].name : arg.name();
    x.dtype = arg.type();
    if (named && in_leaves[static_cast<size_t>(k)].shape) x.shape = *in_leaves[static_cast<size_t>(k)].shape;
    else if (shapes && k < shapes->list().shape_size()) x.shape = shapes->list().shape(k);
    else x.shape.set_unknown_rank(true);
    t.inputs.push_back(std::move(x));
  }
  const int outs = f->signature().output_arg_size();
  const bool out_named = static_cast<int>(out_leaves.size()) == outs;
  for (int k = 0; k < outs; ++k) {
    std::string n = out_named ? out_leaves[static_cast<size_t>(k)].name : "";
    t.outputs.push_back({n.empty() ? "output_" + std::to_string(k) : n, k});
  }
  return t;
}

// What runs without a signature named: serving_default, else the only
// signature; null when neither exists.
const Signature* defaultSignature(const std::vector<const Signature*>& sigs) {
  for (const Signature* s : sigs)
    if (s->key == "serving_default") return s;
  return sigs.size() == 1 ? sigs[0] : nullptr;
}

Result<Target> chooseTarget(const LoadedModel& m, const FreezeOptions& options, const FunctionLibrary& lib) {
  const auto sigs = userSignatures(m);
  const auto& og = m.meta.object_graph_def();
  const Signature* chosen = nullptr;
  if (!options.signature.empty()) {
    for (const Signature* s : sigs)
      if (s->key == options.signature) chosen = s;
    if (!chosen) {
      bool found = false;
      auto f = functionTarget(m, options.signature, lib, &found);
      if (found) return f;
      return Status::Error("signature '" + options.signature + "' not found; signatures: " +
                           (sigs.empty() ? std::string("none") : joinNames(signatureKeys(m))) +
                           "; functions: " + functionChoices(og));
    }
  } else {
    chosen = defaultSignature(sigs);
    if (!chosen && sigs.empty())
      return Status::Error("the SavedModel has no signatures; choose a function to freeze with --signature_name "
                           "(functions: " + functionChoices(og) + ")");
    bool outputs_given = false;
    for (const auto& o : options.output_nodes) outputs_given = outputs_given || !o.empty();
    if (!chosen)
      return Status::Error(std::string(outputs_given ? "the output nodes belong to a signature, and there is "
                                                     : "no output nodes given and ") +
                           "no 'serving_default' signature; choose one with --signature_name: " +
                           joinNames(signatureKeys(m)));
  }
  return signatureTarget(m, *chosen, lib);
}

bool isResourceOp(const std::string& op) {
  return op == "VarHandleOp" || op == "ReadVariableOp" || op == "AssignVariableOp" || op == "AssignAddVariableOp" ||
         op == "AssignSubVariableOp" || op == "VarIsInitializedOp" || op == "DestroyResourceOp" ||
         op == "DisableCopyOnRead" || op == "VariableV2" || op == "Variable" || op.rfind("Resource", 0) == 0 ||
         op.find("HashTable") != std::string::npos || op.rfind("LookupTable", 0) == 0;
}

bool isWriteOp(const std::string& op) {
  return op == "AssignVariableOp" || op == "AssignAddVariableOp" || op == "AssignSubVariableOp" ||
         op.rfind("ResourceApply", 0) == 0 || op.rfind("ResourceSparseApply", 0) == 0 ||
         op.rfind("ResourceScatter", 0) == 0 || op == "ResourceStridedSliceAssign";
}

// Ops whose execution matters beyond their outputs: control flow (frames,
// deadness), stateful ops, and ops this program does not know.
bool mayHaveEffects(const std::string& op) {
  static const std::set<std::string> flow = {"Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter",
                                             "Exit", "RefExit", "NextIteration", "RefNextIteration", "LoopCond",
                                             "_SwitchN", "ControlTrigger"};
  static const std::set<std::string> pure = {"Const", "Identity", "IdentityN", "NoOp", "Placeholder",
                                             "PlaceholderWithDefault"};
  if (flow.count(op)) return true;
  if (pure.count(op)) return false;
  const auto* meta = OpRegistry::instance().find(op);
  return !meta || meta->stateful();
}

// Control edges from nodes whose whole fan-in has no effects (the NoOps that
// ordered variable reads which are now constants) order nothing: drop them.
void dropPureControlEdges(tensorflow::GraphDef* g) {
  std::unordered_map<std::string, int> by_name;
  for (int i = 0; i < g->node_size(); ++i) by_name.emplace(g->node(i).name(), i);
  std::vector<char> state(static_cast<size_t>(g->node_size()), 0);  // 0 new, 1 open, 2 done
  std::vector<char> effects(static_cast<size_t>(g->node_size()), 0);
  for (int root = 0; root < g->node_size(); ++root) {
    if (state[static_cast<size_t>(root)]) continue;
    std::vector<std::pair<int, int>> stack{{root, 0}};
    state[static_cast<size_t>(root)] = 1;
    while (!stack.empty()) {
      auto& [n, k] = stack.back();
      const NodeDef& node = g->node(n);
      if (k < node.input_size()) {
        auto it = by_name.find(std::string(nodeNameOf(node.input(k++))));
        if (it == by_name.end()) continue;
        int p = it->second;
        if (state[static_cast<size_t>(p)] == 0) {
          state[static_cast<size_t>(p)] = 1;
          stack.emplace_back(p, 0);
        } else if (state[static_cast<size_t>(p)] == 1) {
          effects[static_cast<size_t>(n)] = 1;  // a cycle: only loops make those
        } else if (effects[static_cast<size_t>(p)]) {
          effects[static_cast<size_t>(n)] = 1;
        }
        continue;
      }
      if (mayHaveEffects(node.op())) effects[static_cast<size_t>(n)] = 1;
      state[static_cast<size_t>(n)] = 2;
      int done = n;
      stack.pop_back();
      if (!stack.empty() && effects[static_cast<size_t>(done)]) effects[static_cast<size_t>(stack.back().first)] = 1;
    }
  }
  for (auto& node : *g->mutable_node()) {
    int w = 0;
    for (int k = 0; k < node.input_size(); ++k) {
      const std::string in = node.input(k);
      if (!in.empty() && in[0] == '^') {
        auto it = by_name.find(in.substr(1));
        if (it != by_name.end() && !effects[static_cast<size_t>(it->second)]) continue;
      }
      node.set_input(w++, in);
    }
    while (node.input_size() > w) node.mutable_input()->RemoveLast();
  }
}

// TensorFlow's loader adds the attrs a SavedModel saved without their
// defaults (MetaInfoDef.stripped_default_attrs); so does the frozen graph.
void addDefaultAttrs(tensorflow::GraphDef* g, const tensorflow::OpList& op_list) {
  std::unordered_map<std::string, const tensorflow::OpDef*> defs;
  for (const auto& op : op_list.op()) defs.emplace(op.name(), &op);
  for (auto& n : *g->mutable_node()) {
    auto* attrs = n.mutable_attr();
    if (auto d = defs.find(n.op()); d != defs.end()) {
      for (const auto& a : d->second->attr())
        if (a.has_default_value() && !attrs->count(a.name())) (*attrs)[a.name()] = a.default_value();
    } else if (const auto* meta = OpRegistry::instance().find(n.op())) {
      for (const auto& a : meta->attrs())
        if (a.has_default_value() && !attrs->count(a.name())) (*attrs)[a.name()] = a.default_value();
    }
  }
}

// Unique valid node names for the graph that calls the function.
class NodeNames {
 public:
  std::string claim(const std::string& base) {
    std::string n = nodeNameFor(base);
    for (int k = 1; names_.count(n); ++k) n = nodeNameFor(base) + "_" + std::to_string(k);
    names_.insert(n);
    return n;
  }

 private:
  std::set<std::string> names_;
};

// `n` made the node that stands for captured object `id`, bound to argument
// `arg` of the function: a VarHandleOp for a variable (its checkpoint key
// noted when `object` is given), a Const holding an asset's path, or the
// graph's own Const.
Status capturedObjectNode(const LoadedModel& model, const Target& t, int id, int arg, DataType arg_type,
                          const Result<ObjectCheckpoint>* object, NodeNames& names, NodeDef* n,
                          FunctionGraph& result) {
  const SavedObjectGraph& og = model.meta.object_graph_def();
  if (!validNode(og, id))
    return Status::Error(t.what + " captures object node " + std::to_string(id) + ", which does not exist");
  const SavedObject& o = og.nodes(id);
  if (o.kind_case() == SavedObject::kVariable) {
    if (arg_type != tensorflow::DT_RESOURCE)
      return Status::Error(t.what + ": argument " + std::to_string(arg) + " of '" + t.function +
                           "' is bound to variable '" + o.variable().name() + "' but is not a resource");
    n->set_name(names.claim(o.variable().name().empty() ? "variable_" + std::to_string(id) : o.variable().name()));
    n->set_op("VarHandleOp");
    (*n->mutable_attr())["dtype"].set_type(o.variable().dtype());
    *(*n->mutable_attr())["shape"].mutable_shape() = o.variable().shape();
    (*n->mutable_attr())["shared_name"].set_s(o.variable().name());
    (*n->mutable_attr())["container"].set_s("");
    if (object) {
      if (!object->ok()) return object->status();
      auto key = (*object)->variableKey(id);
      if (!key.ok()) return key.status();
      result.variable_keys[n->name()] = *key;
    }
  } else if (o.kind_case() == SavedObject::kAsset) {
    int a = o.asset().asset_file_def_index();
    if (a < 0 || a >= model.meta.asset_file_def_size())
      return Status::Error(t.what + " captures asset " + std::to_string(a) + ", which the MetaGraph does not list");
    const std::string& file = model.meta.asset_file_def(a).filename();
    n->set_name(names.claim("asset/" + file));
    n->set_op("Const");
    HostTensor path;
    path.dtype = tensorflow::DT_STRING;
    path.strings.push_back((fs::path(model.file).parent_path() / "assets" / file).string());
    (*n->mutable_attr())["dtype"].set_type(tensorflow::DT_STRING);
    makeTensorProto(path, (*n->mutable_attr())["value"].mutable_tensor());
  } else if (o.kind_case() == SavedObject::kConstant) {
    const NodeDef* c = nullptr;
    for (const auto& x : model.graph.node())
      if (x.name() == o.constant().operation()) c = &x;
    if (!c || c->op() != "Const")
      return Status::Error(t.what + " captures constant '" + o.constant().operation() +
                           "', which is not a Const of the graph");
    *n = *c;
    n->set_name(names.claim(c->name()));
  } else {
    auto paths = objectPaths(og);
    return Status::Error(t.what + " captures object " +
                         (paths[static_cast<size_t>(id)].empty() ? "node " + std::to_string(id) : paths[static_cast<size_t>(id)]) +
                         ", a " + kindName(o) + "; only variables, assets and constants can be frozen");
  }
  return Status::Ok();
}

}  // namespace

Result<FunctionGraph> functionGraph(const LoadedModel& model, const CheckpointReader* ckpt,
                                   const FreezeOptions& options) {
  const SavedObjectGraph& og = model.meta.object_graph_def();
  const tensorflow::OpList& op_list = model.meta.meta_info_def().stripped_op_list();
  FunctionLibrary lib(model.graph.library(), &op_list);
  auto target = chooseTarget(model, options, lib);
  if (!target.ok()) return target.status();
  const Target& t = *target;
  const tensorflow::FunctionDef& fdef = *lib.find(t.function);
  auto in_types = argumentTypes(fdef, fdef.attr(), false);
  if (!in_types.ok()) return in_types.status();
  auto out_types = argumentTypes(fdef, fdef.attr(), true);
  if (!out_types.ok()) return out_types.status();

  // The graph that calls the function: Placeholders, captured objects, the call.
  tensorflow::GraphDef g;
  NodeNames names;
  const int user = static_cast<int>(in_types->size()) - static_cast<int>(t.captured.size());
  std::vector<std::string> arg_tensors(in_types->size());
  FunctionGraph result;
  result.what = t.what;
  result.function = t.function;
  for (const auto& in : t.inputs) {
    NodeDef* p = g.add_node();
    p->set_name(names.claim(in.name));
    p->set_op("Placeholder");
    (*p->mutable_attr())["dtype"].set_type((*in_types)[static_cast<size_t>(in.arg)]);
    *(*p->mutable_attr())["shape"].mutable_shape() = in.shape;
    arg_tensors[static_cast<size_t>(in.arg)] = p->name();
    result.inputs.push_back(p->name());
    result.signature_inputs.emplace_back(in.name, p->name() + ":0");
  }
  std::optional<Result<ObjectCheckpoint>> object;
  if (ckpt) object.emplace(ObjectCheckpoint::open(og, *ckpt));
  for (size_t k = 0; k < t.captured.size(); ++k) {
    const int arg = user + static_cast<int>(k);
    NodeDef* n = g.add_node();
    GDS_RETURN_IF_ERROR(capturedObjectNode(model, t, t.captured[k], arg, (*in_types)[static_cast<size_t>(arg)],
                                           object ? &*object : nullptr, names, n, result));
    arg_tensors[static_cast<size_t>(arg)] = n->name();
  }
  NodeDef* call = g.add_node();
  call->set_name(names.claim("StatefulPartitionedCall"));
  call->set_op("StatefulPartitionedCall");
  for (const auto& a : arg_tensors) call->add_input(a);
  (*call->mutable_attr())["f"].mutable_func()->set_name(t.function);
  for (DataType d : *in_types) (*call->mutable_attr())["Tin"].mutable_list()->add_type(d);
  for (DataType d : *out_types) (*call->mutable_attr())["Tout"].mutable_list()->add_type(d);
  for (const auto& o : t.outputs) {
    NodeDef* id = g.add_node();
    id->set_name(names.claim(o.name));
    id->set_op("Identity");
    id->add_input(o.ret == 0 ? call->name() : call->name() + ":" + std::to_string(o.ret));
    (*id->mutable_attr())["T"].set_type((*out_types)[static_cast<size_t>(o.ret)]);
    result.outputs.push_back(id->name());
    result.signature_outputs.emplace_back(o.name, id->name() + ":0");
  }
  *g.mutable_library() = model.graph.library();

  InlineOptions inline_options;
  inline_options.op_defs = &op_list;
  for (const auto& o : options.output_nodes)
    if (!o.empty()) inline_options.keep_fetchable.insert(std::string(nodeNameOf(o)));
  auto inlined = inlineFunctions(g, inline_options);
  if (!inlined.ok()) return inlined.status().withContext(t.what);
  for (const auto& w : inlined->warnings) result.warnings.push_back(w);
  for (const auto& x : inlined->inlined) {
    if (x.function.empty()) ++result.lowered_control_flow;
    else ++result.inlined_calls;
  }
  result.graph = std::move(inlined->graph);
  if (model.graph.has_versions()) *result.graph.mutable_versions() = model.graph.versions();
  return result;
}

Result<FreezeResult> freezeFunctionGraph(const LoadedModel& model, const FunctionGraph& function,
                                         const tensorflow::GraphDef& graph, const CheckpointReader& ckpt,
                                         const FreezeOptions& options) {
  const tensorflow::OpList& op_list = model.meta.meta_info_def().stripped_op_list();
  const std::string& what = function.what;
  FreezeOptions fo = options;
  fo.signature.clear();
  fo.variable_keys = function.variable_keys;
  fo.output_nodes.clear();
  for (const auto& o : options.output_nodes)
    if (!o.empty()) fo.output_nodes.emplace_back(nodeNameOf(o));
  if (fo.output_nodes.empty()) fo.output_nodes = function.outputs;
  auto frozen = freezeGraph(graph, nullptr, ckpt, fo);
  if (!frozen.ok()) return frozen.status().withContext(what);

  // What cannot be frozen: functions that update variables or use other
  // resources (lookup tables, iterators).
  FunctionLibrary lib(graph.library(), &op_list);
  tensorflow::GraphDef& out = frozen->graph;
  std::unordered_map<std::string, const NodeDef*> by_name;
  for (const auto& n : out.node()) by_name.emplace(n.name(), &n);
  for (const auto& n : out.node()) {
    if (isWriteOp(n.op())) {
      std::string var = n.input_size() ? std::string(nodeNameOf(n.input(0))) : "";
      for (int guard = 0; guard < 64 && by_name.count(var) && by_name[var]->op() == "Identity" &&
                          by_name[var]->input_size();
           ++guard)
        var = std::string(nodeNameOf(by_name[var]->input(0)));
      return Status::Error(what + " updates variable '" + var + "' (node '" + n.name() + "', " + n.op() +
                           "); a frozen graph has no variables to update: freeze a signature that only reads them");
    }
    if (isResourceOp(n.op()) || isPartitionedCall(n.op()) || isFunctionalControlFlow(n.op()) || lib.find(n.op()))
      return Status::Error(what + ": node '" + n.name() + "' (" + n.op() + ") uses a resource or function that "
                           "freezing cannot replace");
  }
  dropPureControlEdges(&out);
  auto pruned = extractSubGraph(out, fo.output_nodes);
  if (!pruned.ok()) return pruned.status().withContext(what);
  out = std::move(pruned.value());
  out.clear_library();
  addDefaultAttrs(&out, op_list);
  if (model.graph.has_versions()) *out.mutable_versions() = model.graph.versions();

  frozen->inputs = function.inputs;
  frozen->outputs = fo.output_nodes;
  frozen->signature_inputs = function.signature_inputs;
  if (fo.output_nodes == function.outputs) frozen->signature_outputs = function.signature_outputs;
  frozen->frozen = what;
  frozen->function = function.function;
  frozen->inlined_calls = function.inlined_calls;
  frozen->lowered_control_flow = function.lowered_control_flow;
  for (const auto& w : function.warnings) frozen->warnings.push_back(w);
  return frozen;
}

Result<FreezeResult> freezeObjectGraph(const LoadedModel& model, const CheckpointReader& ckpt,
                                       const FreezeOptions& options) {
  if (!model.saved_graph) {
    auto function = functionGraph(model, &ckpt, options);
    if (!function.ok()) return function.status();
    return freezeFunctionGraph(model, *function, function->graph, ckpt, options);
  }
  // Shown on a function: the functions are in the meta graph's own graph.
  // The function shown is frozen as it is now (after any transforms), another
  // signature as the SavedModel has it.
  LoadedModel saved = model;
  saved.graph = *model.saved_graph;
  saved.saved_graph.reset();
  FreezeOptions choose = options;
  if (choose.signature.empty()) choose.signature = model.shown_signature;
  auto function = functionGraph(saved, &ckpt, choose);
  if (!function.ok()) return function.status();
  const bool shown = choose.signature == model.shown_signature;
  return freezeFunctionGraph(saved, *function, shown ? model.graph : function->graph, ckpt, options);
}

bool showServingFunction(LoadedModel* model) {
  if (!model->object_based || model->saved_graph) return false;
  const Signature* serving = defaultSignature(userSignatures(*model));
  if (!serving) return false;
  const std::string key = serving->key;
  FreezeOptions options;
  options.signature = key;
  auto function = functionGraph(*model, nullptr, options);
  if (!function.ok()) {
    model->warnings.push_back("Showing the SavedModel's own graph: " + function.error());
    return false;
  }
  model->saved_graph = std::make_shared<const tensorflow::GraphDef>(std::move(model->graph));
  model->graph = std::move(function->graph);
  model->shown_function = function->what;
  model->shown_signature = key;
  model->shown_outputs = function->outputs;
  for (auto& w : function->warnings) model->warnings.push_back(std::move(w));
  return true;
}

}  // namespace gds::model
