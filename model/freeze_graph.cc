#include "model/freeze_graph.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "model/attr.h"
#include "model/graph.h"
#include "meta_graph.pb.h"

namespace gds::model {

bool isVariableOp(const std::string& op) { return op == "Variable" || op == "VariableV2" || op == "VarHandleOp"; }

const tensorflow::NodeDef* firstVariable(const tensorflow::GraphDef& graph) {
  for (const auto& n : graph.node())
    if (isVariableOp(n.op())) return &n;
  return nullptr;
}

namespace {

// Ops that pass a resource handle through unchanged; between a VarHandleOp
// and its ReadVariableOp their "T" becomes the variable's dtype
// (_CONTROL_FLOW_OP_NAMES_OR_IDENTITY in graph_util_impl.py).
bool isResourcePassThrough(const std::string& op) {
  return op == "Identity" || op == "Switch" || op == "Enter" || op == "Exit" || op == "Merge" ||
         op == "NextIteration";
}

// Reference-typed control flow over a VariableV2; once the variable is a
// Const these must become their value-typed twins or the graph will not load.
const char* nonRefTwin(const std::string& op) {
  static const std::map<std::string, const char*> twins = {
      {"RefIdentity", "Identity"}, {"RefEnter", "Enter"}, {"RefExit", "Exit"},
      {"RefSwitch", "Switch"},     {"RefMerge", "Merge"}, {"RefNextIteration", "NextIteration"}};
  auto it = twins.find(op);
  return it == twins.end() ? nullptr : it->second;
}

std::string colocatedName(const std::string& s) { return s.rfind("loc:@", 0) == 0 ? s.substr(5) : s; }

// Name -> index plus consumers of every node, tolerant of dangling inputs
// (training graphs are not validated here; only the kept part matters).
struct NodeIndex {
  std::unordered_map<std::string, int> by_name;
  // consumers[i]: (consumer node, its input index, port read)
  std::vector<std::vector<std::tuple<int, int, int>>> consumers;

  explicit NodeIndex(const tensorflow::GraphDef& g) {
    consumers.resize(static_cast<size_t>(g.node_size()));
    for (int i = 0; i < g.node_size(); ++i) by_name.emplace(g.node(i).name(), i);
    for (int i = 0; i < g.node_size(); ++i) {
      const auto& n = g.node(i);
      for (int k = 0; k < n.input_size(); ++k) {
        TensorRef ref = parseTensorName(n.input(k));
        if (ref.control) continue;
        auto it = by_name.find(ref.node);
        if (it != by_name.end()) consumers[static_cast<size_t>(it->second)].emplace_back(i, k, ref.port);
      }
    }
  }
  int find(const std::string& name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? -1 : it->second;
  }
};

// String values of a Const node (empty optional-like: ok=false when not a string Const).
bool constStrings(const tensorflow::GraphDef& g, const NodeIndex& idx, const std::string& input,
                  std::vector<std::string>* out) {
  int i = idx.find(std::string(nodeNameOf(input)));
  if (i < 0 || g.node(i).op() != "Const") return false;
  const auto* value = findAttr(g.node(i), "value");
  if (!value || !value->has_tensor()) return false;
  auto t = decodeTensor(value->tensor());
  if (!t.ok() || t->dtype != tensorflow::DT_STRING) return false;
  *out = t->strings;
  return true;
}

// Follows a resource or ref handle back through pass-through ops to the node
// that created it.
int traceToSource(const tensorflow::GraphDef& g, const NodeIndex& idx, int node) {
  std::set<int> seen;
  while (node >= 0 && seen.insert(node).second) {
    const auto& n = g.node(node);
    if (!(isResourcePassThrough(n.op()) || nonRefTwin(n.op())) || n.input_size() == 0) return node;
    node = idx.find(std::string(nodeNameOf(n.input(0))));
  }
  return node;
}

struct RestoreSpec {
  std::string key;
  std::string shape_and_slice;
};

// Which checkpoint tensor (and slice) the graph's own restore ops assign to
// each variable: RestoreV2/Restore/RestoreSlice outputs, possibly through
// Identity, feeding Assign (ref variables) or AssignVariableOp (resource
// variables). This is how Saver.restore, and so freeze_graph.py, maps
// variables - including the parts of partitioned variables - to the keys.
std::map<std::string, RestoreSpec> restoreSpecs(const tensorflow::GraphDef& g, const NodeIndex& idx) {
  std::map<std::string, RestoreSpec> specs;
  for (int r = 0; r < g.node_size(); ++r) {
    const auto& n = g.node(r);
    std::vector<std::string> names, slices;
    if (n.op() == "RestoreV2" && n.input_size() >= 3) {
      if (!constStrings(g, idx, n.input(1), &names) || !constStrings(g, idx, n.input(2), &slices)) continue;
    } else if (n.op() == "Restore" && n.input_size() >= 2) {
      if (!constStrings(g, idx, n.input(1), &names)) continue;
    } else if (n.op() == "RestoreSlice" && n.input_size() >= 3) {
      if (!constStrings(g, idx, n.input(1), &names) || !constStrings(g, idx, n.input(2), &slices)) continue;
    } else {
      continue;
    }
    slices.resize(names.size());
    // (node, port) pairs carrying restored value i
    for (const auto& [consumer, input_index, port] : idx.consumers[static_cast<size_t>(r)]) {
      if (port < 0 || static_cast<size_t>(port) >= names.size()) continue;
      std::deque<std::pair<int, int>> todo{{consumer, input_index}};
      std::set<int> seen;
      while (!todo.empty()) {
        auto [c, k] = todo.front();
        todo.pop_front();
        if (!seen.insert(c).second) continue;
        const auto& cn = g.node(c);
        if (cn.op() == "Identity") {
          for (const auto& [c2, k2, p2] : idx.consumers[static_cast<size_t>(c)])
            if (p2 == 0) todo.emplace_back(c2, k2);
        } else if ((cn.op() == "Assign" || cn.op() == "AssignVariableOp") && k == 1 && cn.input_size() >= 1) {
          int var = traceToSource(g, idx, idx.find(std::string(nodeNameOf(cn.input(0)))));
          if (var >= 0 && isVariableOp(g.node(var).op()))
            specs[g.node(var).name()] = {names[static_cast<size_t>(port)], slices[static_cast<size_t>(port)]};
        }
      }
    }
  }
  return specs;
}

}  // namespace

Result<tensorflow::GraphDef> extractSubGraph(const tensorflow::GraphDef& graph, const std::vector<std::string>& dest) {
  std::unordered_map<std::string, int> by_name;
  for (int i = 0; i < graph.node_size(); ++i) by_name.emplace(graph.node(i).name(), i);
  std::vector<char> keep(static_cast<size_t>(graph.node_size()), 0);
  std::deque<int> todo;
  for (const auto& d : dest) {
    std::string name(nodeNameOf(d));
    auto it = by_name.find(name);
    if (it == by_name.end()) return Status::Error("output node '" + name + "' is not in the graph");
    todo.push_back(it->second);
  }
  while (!todo.empty()) {
    int i = todo.front();
    todo.pop_front();
    if (keep[static_cast<size_t>(i)]) continue;
    keep[static_cast<size_t>(i)] = 1;
    const auto& n = graph.node(i);
    for (const auto& in : n.input()) {
      std::string name(nodeNameOf(in));
      auto it = by_name.find(name);
      if (it == by_name.end())
        return Status::Error("node '" + n.name() + "' reads '" + in + "', which is not in the graph");
      todo.push_back(it->second);
    }
    // Colocated nodes are kept too (graph_util_impl._extract_graph_summary).
    if (const auto* cls = findAttr(n, "_class"))
      for (const auto& s : cls->list().s()) {
        auto it = by_name.find(colocatedName(s));
        if (it != by_name.end()) todo.push_back(it->second);
      }
  }
  tensorflow::GraphDef out;
  for (int i = 0; i < graph.node_size(); ++i)
    if (keep[static_cast<size_t>(i)]) *out.add_node() = graph.node(i);
  if (graph.has_library()) *out.mutable_library() = graph.library();
  if (graph.has_versions()) *out.mutable_versions() = graph.versions();
  return out;
}

void makeTensorProto(const HostTensor& t, tensorflow::TensorProto* proto) {
  using tensorflow::DataType;
  proto->Clear();
  proto->set_dtype(t.dtype);
  shapeToProto(t.shape, proto->mutable_tensor_shape());
  const std::int64_t n = std::max<std::int64_t>(t.size(), 0);
  switch (t.dtype) {
    case tensorflow::DT_FLOAT: case tensorflow::DT_DOUBLE: case tensorflow::DT_INT32: case tensorflow::DT_UINT8:
    case tensorflow::DT_INT16: case tensorflow::DT_INT8: case tensorflow::DT_INT64: case tensorflow::DT_QINT8:
    case tensorflow::DT_QUINT8: case tensorflow::DT_QINT16: case tensorflow::DT_QUINT16: case tensorflow::DT_QINT32:
    case tensorflow::DT_UINT32: case tensorflow::DT_UINT64: case tensorflow::DT_HALF:
      if (n > 1) {  // make_tensor_proto's fast path (_TENSOR_CONTENT_TYPES)
        proto->set_tensor_content(t.data.data(), t.data.size());
        return;
      }
      break;
    default: break;
  }
  for (std::int64_t i = 0; i < n; ++i) {
    switch (t.dtype) {
      case tensorflow::DT_FLOAT: proto->add_float_val(t.as<float>()[i]); break;
      case tensorflow::DT_DOUBLE: proto->add_double_val(t.as<double>()[i]); break;
      case tensorflow::DT_INT32: case tensorflow::DT_QINT32: proto->add_int_val(t.as<std::int32_t>()[i]); break;
      case tensorflow::DT_INT16: case tensorflow::DT_QINT16: proto->add_int_val(t.as<std::int16_t>()[i]); break;
      case tensorflow::DT_UINT16: case tensorflow::DT_QUINT16: proto->add_int_val(t.as<std::uint16_t>()[i]); break;
      case tensorflow::DT_INT8: case tensorflow::DT_QINT8: proto->add_int_val(t.as<std::int8_t>()[i]); break;
      case tensorflow::DT_UINT8: case tensorflow::DT_QUINT8: proto->add_int_val(t.as<std::uint8_t>()[i]); break;
      case tensorflow::DT_INT64: proto->add_int64_val(t.as<std::int64_t>()[i]); break;
      case tensorflow::DT_UINT32: proto->add_uint32_val(t.as<std::uint32_t>()[i]); break;
      case tensorflow::DT_UINT64: proto->add_uint64_val(t.as<std::uint64_t>()[i]); break;
      case tensorflow::DT_BOOL: proto->add_bool_val(t.data[static_cast<size_t>(i)] != 0); break;
      case tensorflow::DT_HALF: case tensorflow::DT_BFLOAT16: proto->add_half_val(t.as<std::uint16_t>()[i]); break;
      case tensorflow::DT_COMPLEX64:
        proto->add_scomplex_val(t.as<float>()[2 * i]);
        proto->add_scomplex_val(t.as<float>()[2 * i + 1]);
        break;
      case tensorflow::DT_COMPLEX128:
        proto->add_dcomplex_val(t.as<double>()[2 * i]);
        proto->add_dcomplex_val(t.as<double>()[2 * i + 1]);
        break;
      case tensorflow::DT_STRING: proto->add_string_val(t.strings[static_cast<size_t>(i)]); break;
      default:  // other fixed-size types: raw bytes are the only faithful form
        proto->set_tensor_content(t.data.data(), t.data.size());
        return;
    }
  }
}

namespace {

std::string opSpelling(const tensorflow::NodeDef& n) { return "'" + n.name() + "' (" + n.op() + ")"; }

// The checkpoint value of variable node `var`, and where it came from.
Result<HostTensor> variableValue(const tensorflow::NodeDef& var, const std::map<std::string, RestoreSpec>& specs,
                                 const std::map<std::string, std::string>& keys, const CheckpointReader& ckpt,
                                 FrozenVariable* info) {
  const std::string what = "variable " + opSpelling(var);
  if (auto key = keys.find(var.name()); key != keys.end()) {
    info->checkpoint_key = key->second;
    if (!ckpt.has(key->second))
      return Status::Error(what + " is stored under '" + key->second + "', which checkpoint " + ckpt.prefix() +
                           " does not contain");
    return ckpt.read(key->second);
  }
  auto spec = specs.find(var.name());
  if (spec != specs.end()) {
    info->checkpoint_key = spec->second.key;
    Shape full;
    TensorSlice slice;
    Status s = parseShapeAndSlice(spec->second.shape_and_slice, &full, &slice);
    if (!s.ok()) return s.withContext(what);
    const CheckpointVariable* cv = ckpt.find(spec->second.key);
    if (!cv)
      return Status::Error(what + " is restored from '" + spec->second.key + "', which checkpoint " + ckpt.prefix() +
                           " does not contain");
    if (spec->second.shape_and_slice.empty()) return ckpt.read(cv->name);
    if (full != cv->shape)
      return Status::Error(what + ": the saver expects '" + cv->name + "' of shape " + shapeString(full) +
                           ", checkpoint " + ckpt.prefix() + " holds " + shapeString(cv->shape));
    info->slice = slice.str();
    return ckpt.readSlice(cv->name, slice);
  }
  std::vector<std::string> candidates{var.name()};
  if (const auto* shared = findAttr(var, "shared_name"))
    if (!shared->s().empty() && shared->s() != var.name()) candidates.push_back(shared->s());
  for (const auto& name : candidates)
    if (ckpt.has(name)) {
      info->checkpoint_key = name;
      return ckpt.read(name);
    }
  // A part of a partitioned variable, "<full>/part_<k>", without a restore op
  // to say which slice: the k-th saved slice in order (PartitionedVariable
  // numbers its parts by offset).
  size_t at = var.name().rfind("/part_");
  if (at != std::string::npos) {
    std::string base = var.name().substr(0, at);
    std::string k = var.name().substr(at + 6);
    const CheckpointVariable* cv = ckpt.find(base);
    if (cv && !k.empty() && std::all_of(k.begin(), k.end(), ::isdigit)) {
      std::vector<TensorSlice> parts = cv->slices;
      if (parts.empty()) parts.push_back(TensorSlice::full(static_cast<int>(cv->shape.size())));
      std::sort(parts.begin(), parts.end(), [&](const TensorSlice& a, const TensorSlice& b) {
        std::vector<std::int64_t> sa, sb;
        for (int d = 0; d < a.rank(); ++d) sa.push_back(a.startIn(d));
        for (int d = 0; d < b.rank(); ++d) sb.push_back(b.startIn(d));
        return sa < sb;
      });
      size_t index = std::stoul(k);
      if (index < parts.size()) {
        info->checkpoint_key = base;
        info->slice = parts[index].str();
        return ckpt.readSlice(base, parts[index]);
      }
    }
  }
  return Status::Error(what + " is needed by the outputs but checkpoint " + ckpt.prefix() +
                       " has no value for it (no restore op assigns it and no tensor is named '" + var.name() + "')");
}

// "a, b, c": the signature keys of `meta`, sorted.
std::string signatureKeyList(const tensorflow::MetaGraphDef& meta) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : meta.signature_def()) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  std::string list;
  for (const auto& k : keys) list += (list.empty() ? "" : ", ") + k;
  return list;
}

// The output nodes: given, else the outputs of a signature (options.signature,
// else serving_default, else the only one), whose inputs and outputs are
// recorded in `result` by key.
Result<std::vector<std::string>> chooseOutputs(const tensorflow::MetaGraphDef* meta, const FreezeOptions& options,
                                               FreezeResult* result) {
  std::vector<std::string> outputs;
  for (const auto& o : options.output_nodes)
    if (!o.empty()) outputs.emplace_back(nodeNameOf(o));
  if (!outputs.empty()) return outputs;
  if (!meta || meta->signature_def().empty())
    return Status::Error("no output nodes given (--output_node_names) and the model has no signature to choose them");
  std::string key = options.signature;
  if (key.empty()) {
    if (meta->signature_def().count("serving_default")) key = "serving_default";
    else if (meta->signature_def().size() == 1) key = meta->signature_def().begin()->first;
    else
      return Status::Error("no output nodes given and no 'serving_default' signature; choose one of: " +
                           signatureKeyList(*meta));
  }
  auto it = meta->signature_def().find(key);
  if (it == meta->signature_def().end())
    return Status::Error("signature '" + key + "' not found; available: " + signatureKeyList(*meta));
  for (const auto& [alias, info] : it->second.outputs())
    if (info.name().empty())
      return Status::Error("signature '" + key + "': output '" + alias + "' is not a plain tensor");
  std::map<std::string, std::string> sorted_outs;
  for (const auto& [alias, info] : it->second.outputs()) sorted_outs[alias] = info.name();
  for (const auto& [alias, name] : sorted_outs) {
    std::string node(nodeNameOf(name));
    if (std::find(outputs.begin(), outputs.end(), node) == outputs.end()) outputs.push_back(node);
  }
  std::map<std::string, std::string> sorted_ins;
  for (const auto& [alias, info] : it->second.inputs()) sorted_ins[alias] = info.name();
  for (const auto& [alias, name] : sorted_ins) result->inputs.push_back(name);
  result->signature_inputs.assign(sorted_ins.begin(), sorted_ins.end());
  result->signature_outputs.assign(sorted_outs.begin(), sorted_outs.end());
  return outputs;
}

// What freezing decides about the nodes of the extracted graph, by index.
struct FrozenNodes {
  std::map<int, HostTensor> values;  // variables to convert -> their checkpoint values
  std::map<int, FrozenVariable> infos;
  // Nodes between a frozen VarHandleOp and its readers: their T becomes the
  // variable's dtype.
  std::map<int, tensorflow::DataType> retyped;
  std::set<int> readers;  // ReadVariableOp, ResourceGather(Nd) of a frozen variable
  std::map<int, const char*> unref;  // ref-typed control flow -> its value-typed twin
};

// Reads every variable to convert (allowed by the options) from the
// checkpoint, checking its dtype and declared shape.
Status readVariables(const tensorflow::GraphDef& g, const std::map<std::string, RestoreSpec>& specs,
                     const CheckpointReader& ckpt, const FreezeOptions& options, FrozenNodes* frozen) {
  auto allowed = [&](const std::string& name) {
    const auto& allow = options.variable_allowlist;
    const auto& deny = options.variable_denylist;
    if (!allow.empty() && std::find(allow.begin(), allow.end(), name) == allow.end()) return false;
    return std::find(deny.begin(), deny.end(), name) == deny.end();
  };
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    if (!isVariableOp(n.op()) || !allowed(n.name())) continue;
    FrozenVariable info;
    info.node = n.name();
    info.op = n.op();
    auto value = variableValue(n, specs, options.variable_keys, ckpt, &info);
    if (!value.ok()) return value.status();
    const auto* dtype = findAttr(n, "dtype");
    if (!dtype) return Status::Error("variable " + opSpelling(n) + " has no 'dtype' attr");
    if (baseDtype(dtype->type()) != value->dtype)
      return Status::Error("variable " + opSpelling(n) + " is " + dtypeName(baseDtype(dtype->type())) +
                           " but checkpoint " + ckpt.prefix() + " holds " + dtypeName(value->dtype) + " for '" +
                           info.checkpoint_key + "'");
    if (const auto* shape = findAttr(n, "shape")) {
      bool known = true;
      Shape declared = shapeFromProto(shape->shape(), &known);
      bool fully = known && std::all_of(declared.begin(), declared.end(), [](std::int64_t d) { return d >= 0; });
      // Old graphs write an empty shape attr for "unknown"; only a fully
      // known, non-scalar declaration (or a scalar one matching) is checked.
      if (fully && (!declared.empty() || value->shape.empty()) && declared != value->shape)
        return Status::Error("variable " + opSpelling(n) + " has shape " + shapeString(declared) + " but checkpoint " +
                             ckpt.prefix() + " holds " + shapeString(value->shape) + " for '" + info.checkpoint_key +
                             "'" + (info.slice.empty() ? "" : " slice " + info.slice));
    }
    frozen->values.emplace(i, std::move(value.value()));
    frozen->infos.emplace(i, std::move(info));
  }
  return Status::Ok();
}

// The readers of frozen resource variables and the pass-through nodes
// between them. A reader must trace back to one frozen variable only.
Status traceResourceReaders(const tensorflow::GraphDef& g, const NodeIndex& idx, FrozenNodes* frozen) {
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    if (n.op() != "ReadVariableOp" && n.op() != "ResourceGather" && n.op() != "ResourceGatherNd") continue;
    if (n.input_size() == 0) continue;
    int src = idx.find(std::string(nodeNameOf(n.input(0))));
    std::vector<int> chain;
    std::set<int> seen;
    std::deque<int> todo{src};
    bool reaches_frozen = false, reaches_other = false;
    while (!todo.empty()) {
      int c = todo.front();
      todo.pop_front();
      if (c < 0 || !seen.insert(c).second) continue;
      const auto& cn = g.node(c);
      if (isResourcePassThrough(cn.op())) {
        chain.push_back(c);
        if (cn.input_size() > 0) todo.push_back(idx.find(std::string(nodeNameOf(cn.input(0)))));
        if (cn.op() == "Merge" && cn.input_size() > 1) todo.push_back(idx.find(std::string(nodeNameOf(cn.input(1)))));
      } else if (frozen->values.count(c)) {
        reaches_frozen = true;
      } else {
        reaches_other = true;
      }
    }
    // Not a frozen variable (denylisted, or a resource such as a function
    // argument): the reader stays as it is.
    if (!reaches_frozen) continue;
    if (reaches_other)
      return Status::Error("node " + opSpelling(n) +
                           " reads a resource that is not always the same frozen variable; cannot freeze it");
    const auto* dtype = findAttr(n, "dtype");
    if (!dtype) return Status::Error("node " + opSpelling(n) + " has no 'dtype' attr");
    for (int c : chain) frozen->retyped.emplace(c, dtype->type());
    frozen->readers.insert(i);
  }
  return Status::Ok();
}

// Ref-typed control flow fed by frozen VariableV2s becomes value-typed.
void findRefTwins(const tensorflow::GraphDef& g, const NodeIndex& idx, FrozenNodes* frozen) {
  for (const auto& [v, t] : frozen->values) {
    std::deque<int> todo{v};
    std::set<int> seen;
    while (!todo.empty()) {
      int c = todo.front();
      todo.pop_front();
      if (!seen.insert(c).second) continue;
      for (const auto& [consumer, k, port] : idx.consumers[static_cast<size_t>(c)]) {
        (void)k;
        (void)port;
        if (const char* twin = nonRefTwin(g.node(consumer).op())) {
          frozen->unref.emplace(consumer, twin);
          todo.push_back(consumer);
        }
      }
    }
  }
}

// Kept nodes that write a frozen variable: their outputs were asked for, so
// they stay, but they cannot run on a Const.
void warnAboutWriters(const tensorflow::GraphDef& g, const NodeIndex& idx, const FrozenNodes& frozen,
                      std::vector<std::string>* warnings) {
  for (const auto& [v, t] : frozen.values)
    for (const auto& [consumer, k, port] : idx.consumers[static_cast<size_t>(v)]) {
      (void)port;
      const auto& cn = g.node(consumer);
      if (k == 0 && !frozen.readers.count(consumer) && !frozen.retyped.count(consumer) &&
          !frozen.unref.count(consumer) && cn.op() != "Identity" && cn.op() != "ReadVariableOp")
        warnings->push_back("node " + opSpelling(cn) + " uses variable '" + g.node(v).name() +
                            "', which is now a constant; the frozen graph cannot run it");
    }
}

// A frozen variable's ResourceGather as freeze_graph writes it: GatherV2
// with a Const axis 0.
Status addGather(const tensorflow::NodeDef& n, tensorflow::GraphDef* out) {
  const auto* batch_dims = findAttr(n, "batch_dims");
  if (batch_dims && batch_dims->i() != 0)
    return Status::Error("node " + opSpelling(n) + ": batch_dims != 0 cannot be frozen (as in freeze_graph)");
  const auto* tindices = findAttr(n, "Tindices");
  tensorflow::DataType axis_type = tindices ? tindices->type() : tensorflow::DT_INT32;
  auto* axis = out->add_node();
  axis->set_name(n.name() + "/axis");
  axis->set_op("Const");
  (*axis->mutable_attr())["dtype"].set_type(axis_type);
  HostTensor zero = HostTensor::zeros(axis_type, {});
  makeTensorProto(zero, (*axis->mutable_attr())["value"].mutable_tensor());
  auto* c = out->add_node();
  c->set_name(n.name());
  c->set_op("GatherV2");
  c->add_input(n.input(0));
  if (n.input_size() > 1) c->add_input(n.input(1));
  c->add_input(axis->name());
  (*c->mutable_attr())["Tparams"] = *findAttr(n, "dtype");
  (*c->mutable_attr())["Tindices"].set_type(axis_type);
  (*c->mutable_attr())["Taxis"].set_type(axis_type);
  if (const auto* cls = findAttr(n, "_class")) (*c->mutable_attr())["_class"] = *cls;
  return Status::Ok();
}

// The frozen graph in the original node order: variables as Consts, their
// readers as Identity / GatherV2 / GatherNd, retyped and value-typed nodes.
Status assemble(const tensorflow::GraphDef& g, const FrozenNodes& frozen, FreezeResult* result) {
  tensorflow::GraphDef& out = result->graph;
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    const bool reader = frozen.readers.count(i) > 0;
    if (auto v = frozen.values.find(i); v != frozen.values.end()) {
      auto* c = out.add_node();
      c->set_name(n.name());
      c->set_op("Const");
      tensorflow::AttrValue dtype;
      dtype.set_type(baseDtype(findAttr(n, "dtype")->type()));
      (*c->mutable_attr())["dtype"] = dtype;
      makeTensorProto(v->second, (*c->mutable_attr())["value"].mutable_tensor());
      result->converted.push_back(frozen.infos.at(i));
    } else if (auto r = frozen.retyped.find(i); r != frozen.retyped.end()) {
      auto* c = out.add_node();
      *c = n;
      (*c->mutable_attr())["T"].set_type(r->second);
    } else if (reader && n.op() == "ReadVariableOp") {
      auto* c = out.add_node();
      c->set_name(n.name());
      c->set_op("Identity");
      c->add_input(n.input(0));
      (*c->mutable_attr())["T"] = *findAttr(n, "dtype");
      if (const auto* cls = findAttr(n, "_class")) (*c->mutable_attr())["_class"] = *cls;
    } else if (reader && n.op() == "ResourceGather") {
      GDS_RETURN_IF_ERROR(addGather(n, &out));
    } else if (reader && n.op() == "ResourceGatherNd") {
      auto* c = out.add_node();
      c->set_name(n.name());
      c->set_op("GatherNd");
      c->add_input(n.input(0));
      if (n.input_size() > 1) c->add_input(n.input(1));
      (*c->mutable_attr())["Tparams"] = *findAttr(n, "dtype");
      if (const auto* ti = findAttr(n, "Tindices")) (*c->mutable_attr())["Tindices"] = *ti;
      if (const auto* cls = findAttr(n, "_class")) (*c->mutable_attr())["_class"] = *cls;
    } else if (auto u = frozen.unref.find(i); u != frozen.unref.end()) {
      auto* c = out.add_node();
      *c = n;
      c->set_op(u->second);
      auto t = c->mutable_attr()->find("T");
      if (t != c->mutable_attr()->end()) t->second.set_type(baseDtype(t->second.type()));
    } else {
      *out.add_node() = n;
    }
  }
  // convert_variables_to_constants keeps the library and leaves versions empty.
  if (g.has_library()) *out.mutable_library() = g.library();
  return Status::Ok();
}

}  // namespace

Result<FreezeResult> freezeGraph(const tensorflow::GraphDef& graph, const tensorflow::MetaGraphDef* meta,
                                 const CheckpointReader& ckpt, const FreezeOptions& options) {
  FreezeResult result;
  result.checkpoint_prefix = ckpt.prefix();
  auto outputs = chooseOutputs(meta, options, &result);
  if (!outputs.ok()) return outputs.status();
  result.outputs = *outputs;

  tensorflow::GraphDef full = graph;
  if (options.clear_devices)
    for (auto& n : *full.mutable_node()) n.clear_device();
  auto sub = extractSubGraph(full, *outputs);
  if (!sub.ok()) return sub.status();
  const tensorflow::GraphDef& g = sub.value();
  NodeIndex full_index(full);
  const auto specs = restoreSpecs(full, full_index);
  NodeIndex idx(g);

  FrozenNodes frozen;
  GDS_RETURN_IF_ERROR(readVariables(g, specs, ckpt, options, &frozen));
  GDS_RETURN_IF_ERROR(traceResourceReaders(g, idx, &frozen));
  findRefTwins(g, idx, &frozen);
  warnAboutWriters(g, idx, frozen, &result.warnings);
  GDS_RETURN_IF_ERROR(assemble(g, frozen, &result));
  return result;
}

}  // namespace gds::model
