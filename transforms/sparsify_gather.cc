// sparsify_gather(input_checkpoint, group_init_node=group_deps): turns an
// embedding lookup into a hash-table lookup over the table's non-zero rows,
// as TensorFlow's tools/graph_transforms/sparsify_gather.cc does:
//
//   Const|Variable|VariableV2 -> Identity -> Gather|GatherV2(axis 0) <- ids
// becomes
//   <w>/InitializeTable(<w>/HashTable, <w>/indices (int64 Const), <w>/values (float Const))
//   ids ---> <gather>/LookupTableFind(<w>/HashTable, ids, <gather>/Const = 0)
//        ---> <gather> = ExpandDims(LookupTableFind, -1)
// with ^<w>/InitializeTable on the NoOp `group_init_node` (created when the
// graph has none). The table must be float [N, 1]; rows with |v| < 1e-5 are
// dropped (an all-zero table keeps the pair (0, 0), since InitializeTable
// rejects empty keys). A variable's value comes from input_checkpoint,
// through the save/Assign* -> RestoreV2 entry that fills it (its
// shape_and_slice picks a partition's rows). As in TensorFlow, the Identity
// and the table go even when other nodes read them: those nodes lose the
// input (a ConcatV2 left with one value becomes an Identity), and nodes no
// one reads any more (initializers, Assigns) are deleted, except --inputs,
// --outputs and RestoreV2.
//
// Beyond TensorFlow: ResourceGather(VarHandleOp, ids) (resource variables)
// is rewritten the same way, its value read from the checkpoint.
#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>

#include "model/attr.h"
#include "model/checkpoint.h"
#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

std::string stripCaret(const std::string& input) {
  std::string out;
  for (char c : input)
    if (c != '^') out += c;
  return out;
}

std::vector<std::string> splitOn(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) return out;
    start = pos + 1;
  }
}

// "w/part_1" -> "w": the checkpoint key of a partitioned variable's parts.
std::string monolithicKey(const std::string& name) {
  std::vector<std::string> parts = splitOn(name, '/');
  if (parts.size() >= 2 && parts.back().rfind("part_", 0) == 0) parts.pop_back();
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "/" : "") + parts[i];
  return out;
}

// The shape_and_slice string RestoreV2 uses for `variable`, found through
// the save/Assign* node whose first input is the variable.
Result<std::string> variableSlice(const GraphDef& graph, const std::string& variable, const TransformContext& ctx) {
  std::string restore;
  for (const auto& node : graph.node()) {
    const auto parts = splitOn(node.name(), '/');
    if (parts.size() == 2 && parts[0].rfind("save", 0) == 0 && parts[1].rfind("Assign", 0) == 0 &&
        node.input_size() >= 2 && node.input(0) == variable) {
      restore = node.input(1);
      break;
    }
  }
  const std::string restore_node = splitOn(restore, ':')[0];
  std::string names_node, slices_node;
  for (const auto& node : graph.node())
    if (node.name() == restore_node && node.op() == "RestoreV2" && node.input_size() >= 3) {
      names_node = node.input(1);
      slices_node = node.input(2);
      break;
    }
  std::optional<size_t> offset;
  for (const auto& node : graph.node()) {
    if (node.name() != names_node) continue;
    auto names = tensorAttr(node);
    if (!names.ok()) return ctx.error(node.name() + ": " + names.error());
    for (size_t i = 0; i < names->strings.size(); ++i)
      if (names->strings[i] == monolithicKey(variable)) {
        offset = i;
        break;
      }
  }
  if (!offset) return ctx.error("Unable to find RestoreV2 entry for variable: " + variable);
  for (const auto& node : graph.node()) {
    if (node.name() != slices_node) continue;
    auto slices = tensorAttr(node);
    if (!slices.ok()) return ctx.error(node.name() + ": " + slices.error());
    if (*offset < slices->strings.size()) return slices->strings[*offset];
  }
  return ctx.error("Unable to find slice for variable: " + variable);
}

// The table's value: a Const's tensor, or a variable's from the checkpoint.
Result<model::HostTensor> tableValue(const GraphDef& graph, const NodeDef& weights,
                                     const std::optional<model::CheckpointReader>& checkpoint,
                                     const TransformContext& ctx) {
  if (weights.op() == "Const") {
    auto t = tensorAttr(weights);
    if (!t.ok()) return ctx.error(weights.name() + ": " + t.error());
    return t;
  }
  if (!checkpoint)
    return ctx.error("'" + weights.name() + "' is a " + weights.op() +
                     ": give input_checkpoint=PREFIX to read the table's value");
  std::string shape_and_slice;
  if (weights.op() != "VarHandleOp") {
    auto s = variableSlice(graph, weights.name(), ctx);
    if (!s.ok()) return s.status();
    shape_and_slice = *s;
  }
  const std::string key = weights.op() == "VarHandleOp" ? weights.name() : monolithicKey(weights.name());
  if (!shape_and_slice.empty()) {
    model::Shape full;
    model::TensorSlice slice;
    GDS_RETURN_IF_ERROR(model::parseShapeAndSlice(shape_and_slice, &full, &slice));
    if (!slice.isFull()) {
      auto t = checkpoint->readSlice(key, slice);
      if (!t.ok()) return ctx.error(weights.name() + ": " + t.error());
      return t;
    }
  }
  auto t = checkpoint->read(key);
  if (!t.ok()) return ctx.error(weights.name() + ": " + t.error());
  return t;
}

model::HostTensor scalarFloat(float v) {
  model::HostTensor t = model::HostTensor::zeros(tensorflow::DT_FLOAT, {});
  t.as<float>()[0] = v;
  return t;
}

struct Pass {
  OpTypePattern pattern;
  bool through_identity;  // the table is read through an Identity
};

// One round of a pass: reference counts of every input (control inputs
// counted by name), the InitializeTable nodes made and the nodes to delete.
struct Round {
  std::unordered_map<std::string, int>* refs;
  std::vector<std::string> init_tables, removed;
};

// The embedding table a matched gather reads, checked as TensorFlow checks
// it: axis 0, float, shape [N, 1].
Result<model::HostTensor> gatheredTable(const GraphDef& current, const NodeMatch& match, const Pass& pass,
                                        const std::optional<model::CheckpointReader>& checkpoint,
                                        const TransformContext& ctx) {
  const NodeDef& gather = match.def();
  if (gather.op() == "GatherV2") {
    auto axis = tensorAttr(match.inputs[2].def());
    if (!axis.ok()) return ctx.error(match.inputs[2].def().name() + ": " + axis.error());
    if (axis->dtype != tensorflow::DT_INT32 && axis->dtype != tensorflow::DT_INT64)
      return ctx.error("Gather axis was not int32 or int64.");
    const auto a = static_cast<std::int64_t>(axis->valueAt(0));
    if (a != 0)
      return ctx.error("Transform only applicable to subgraph with GatherV2 over axis 0. Found axis " +
                       std::to_string(a) + ".");
  }
  if (gather.op() == "ResourceGather" && gather.attr().count("batch_dims") && gather.attr().at("batch_dims").i() != 0)
    return ctx.error("'" + gather.name() + "': only ResourceGather with batch_dims 0 is rewritten");
  const NodeDef& weights = (pass.through_identity ? match.inputs[0].inputs[0] : match.inputs[0]).def();
  const auto* dtype_attr = model::findAttr(weights, "dtype");
  const tensorflow::DataType dtype = dtype_attr ? dtype_attr->type() : tensorflow::DT_INVALID;
  if (dtype != tensorflow::DT_FLOAT)
    return ctx.error("Transform only applicable to subgraph with 'Const','Variable', or 'VariableV2' of "
                     "dtype 'DT_FLOAT'. Found '" + weights.op() + "' with name '" + weights.name() +
                     "' and dtype '" + tensorflow::DataType_Name(dtype) + "'.");
  auto value = tableValue(current, weights, checkpoint, ctx);
  if (!value.ok()) return value.status();
  if (value->dtype != tensorflow::DT_FLOAT || value->shape.size() != 2 || value->shape[1] != 1)
    return ctx.error("Transform only applicable to subgraph with 'Const' with tensor of shape [N, 1]. But "
                     "instead get shape " + model::shapeString(value->shape) + ".");
  return value;
}

// The gather as a hash table of the table's non-zero entries: HashTable,
// InitializeTable, LookupTableFind and an ExpandDims named as the gather
// (its consumers keep reading the same name).
void addHashTable(const NodeMatch& match, const std::string& w_name, const model::HostTensor& value,
                  const std::set<std::string>& output_nodes, Round* round, std::vector<NodeDef>* new_nodes) {
  const NodeDef& gather = match.def();
  std::vector<std::int64_t> keys;
  std::vector<float> values;
  const float* w = value.as<float>();
  for (std::int64_t i = 0; i < value.size(); ++i)
    if (std::fabs(w[i]) >= 1.0e-5f) {
      keys.push_back(i);
      values.push_back(w[i]);
    }
  if (keys.empty()) {  // InitializeTable refuses an empty table
    keys.push_back(0);
    values.push_back(0);
  }
  model::HostTensor key_tensor = model::HostTensor::zeros(tensorflow::DT_INT64, {static_cast<std::int64_t>(keys.size())});
  std::copy(keys.begin(), keys.end(), key_tensor.as<std::int64_t>());
  const std::string& g_name = gather.name();
  NodeDef indices = makeConst(w_name + "/indices", key_tensor);
  NodeDef values_node = makeConst(w_name + "/values", floatTensor({static_cast<std::int64_t>(values.size())}, values));
  NodeDef table;
  table.set_name(w_name + "/HashTable");
  table.set_op("HashTable");
  setTypeAttr(&table, "key_dtype", tensorflow::DT_INT64);
  setTypeAttr(&table, "value_dtype", tensorflow::DT_FLOAT);
  NodeDef init;
  init.set_name(w_name + "/InitializeTable");
  init.set_op("InitializeTable");
  setTypeAttr(&init, "Tkey", tensorflow::DT_INT64);
  setTypeAttr(&init, "Tval", tensorflow::DT_FLOAT);
  round->init_tables.push_back(init.name());
  NodeDef lookup;
  lookup.set_name(g_name + "/LookupTableFind");
  lookup.set_op("LookupTableFind");
  setTypeAttr(&lookup, "Tin", tensorflow::DT_INT64);
  setTypeAttr(&lookup, "Tout", tensorflow::DT_FLOAT);
  NodeDef default_value = makeConst(g_name + "/Const", scalarFloat(0.0f));
  model::HostTensor minus_one = model::HostTensor::zeros(tensorflow::DT_INT32, {});
  minus_one.as<std::int32_t>()[0] = -1;
  NodeDef dim = makeConst(g_name + "/ExpandDims/Const", minus_one);
  NodeDef expand;
  expand.set_name(g_name);
  expand.set_op("ExpandDims");
  setTypeAttr(&expand, "T", tensorflow::DT_FLOAT);
  auto connect = [round](NodeDef* to, const std::string& input) {
    to->add_input(input);
    (*round->refs)[input] += 1;
  };
  connect(&init, table.name());
  connect(&init, indices.name());
  connect(&init, values_node.name());
  connect(&lookup, table.name());
  connect(&lookup, gather.input(1));
  connect(&lookup, default_value.name());
  connect(&expand, lookup.name());
  connect(&expand, dim.name());
  new_nodes->push_back(match.inputs[1].def());  // the ids
  // Beyond TensorFlow, which drops it: an axis Const another GatherV2 still
  // reads stays.
  if (gather.op() == "GatherV2" && output_nodes.count(match.inputs[2].def().name()))
    new_nodes->push_back(match.inputs[2].def());
  for (NodeDef* n : {&indices, &values_node, &table, &init, &lookup, &default_value, &dim, &expand})
    new_nodes->push_back(std::move(*n));
}

// The group_init_node NoOp (made when missing) waits for every new table.
void groupTableInits(GraphDef* graph, const std::string& group_init_node, Round* round) {
  NodeDef* init_op = nullptr;
  for (auto& node : *graph->mutable_node())
    if (node.name() == group_init_node && node.op() == "NoOp") {
      init_op = &node;
      break;
    }
  if (!init_op) {
    init_op = graph->add_node();
    init_op->set_name(group_init_node);
    init_op->set_op("NoOp");
  }
  for (const auto& name : round->init_tables) {
    init_op->add_input("^" + name);
    (*round->refs)[name] += 1;
  }
}

// Deletes the removed nodes, drops the inputs that named them, and cascades
// to nodes left without a purpose (TensorFlow's clean-up, kept as is).
Status removeCascade(GraphDef* graph, Round* round, const TransformContext& ctx) {
  auto& refs = *round->refs;
  auto& removed = round->removed;
  while (!removed.empty()) {
    const std::string name = removed.back();
    removed.pop_back();
    int i = 0;
    while (i < graph->node_size()) {
      NodeDef* node = graph->mutable_node(i);
      if (node->name() == name && node->op() != "RestoreV2") {
        for (const auto& input : node->input()) {
          const std::string parsed = stripCaret(input);
          if (--refs[parsed] == 0) removed.push_back(parsed);
        }
        graph->mutable_node()->DeleteSubrange(i, 1);
        continue;
      }
      bool deleted_inputs = false;
      for (int j = node->input_size() - 1; j >= 0; --j)
        if (node->input(j) == name || node->input(j) == "^" + name) {
          node->mutable_input()->DeleteSubrange(j, 1);
          deleted_inputs = true;
        }
      if (deleted_inputs) {
        if (node->op() == "ConcatV2") {
          if (node->input_size() > 2) {
            (*node->mutable_attr())["N"].set_i(node->input_size() - 1);
          } else if (node->input_size() == 2) {
            const std::string axis = node->input(1);
            if (refs[axis] != 1) return ctx.error("Expect axis tensor of ConcatV2 node to only be referenced once.");
            refs[axis] -= 1;
            removed.push_back(axis);
            node->mutable_input()->RemoveLast();
            node->mutable_attr()->erase("N");
            node->mutable_attr()->erase("Tidx");
            node->set_op("Identity");
          } else {
            return ctx.error("ConcatV2 should have at least two elements");
          }
        }
        const std::string& op = node->op();
        if ((op == "Assign" || op == "Reshape" || op == "Equal" || op == "Mean" || op == "ScalarSummary") &&
            node->input_size() == 1)
          removed.push_back(node->name());
        if (node->input_size() == 0) removed.push_back(node->name());
      }
      ++i;
    }
  }
  return Status::Ok();
}

Status sparsifyPass(GraphDef* graph, const Pass& pass, const std::optional<model::CheckpointReader>& checkpoint,
                    const std::string& group_init_node, const TransformContext& ctx) {
  std::unordered_map<std::string, int> refs;
  for (const auto& node : graph->node())
    for (const auto& input : node.input()) refs[stripCaret(input)] += 1;
  // A node joins at most one match, so gathers sharing their ids need
  // several rounds.
  bool any_match = true;
  while (any_match) {
    any_match = false;
    Round round{&refs, {}, {}};
    const GraphDef current = *graph;
    GraphDef replaced;
    ReplaceOptions options;
    options.allow_inconsistencies = true;
    GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
        current, pass.pattern,
        [&](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>& output_nodes,
            std::vector<NodeDef>* new_nodes) -> Status {
          any_match = true;
          auto value = gatheredTable(current, match, pass, checkpoint, ctx);
          if (!value.ok()) return value.status();
          const NodeDef& weights = (pass.through_identity ? match.inputs[0].inputs[0] : match.inputs[0]).def();
          round.removed.push_back(weights.name());
          if (pass.through_identity) {
            round.removed.push_back(match.inputs[0].def().name());
            for (const auto& input : match.inputs[0].def().input()) refs[stripCaret(input)] -= 1;
          }
          addHashTable(match, weights.name(), *value, output_nodes, &round, new_nodes);
          return Status::Ok();
        },
        options, &replaced));
    groupTableInits(&replaced, group_init_node, &round);
    // --inputs and --outputs are never deleted.
    for (const auto& name : ctx.outputs) refs.erase(name);
    for (const auto& name : ctx.inputs) refs.erase(name);
    for (const auto& [name, count] : refs)
      if (count == 0) round.removed.push_back(name);
    GDS_RETURN_IF_ERROR(removeCascade(&replaced, &round, ctx));
    *graph = std::move(replaced);
  }
  return Status::Ok();
}

Result<GraphDef> sparsifyGather(const GraphDef& in, const TransformContext& ctx) {
  auto group_init = ctx.getOneString("group_init_node", "group_deps");
  if (!group_init.ok()) return group_init.status();
  auto checkpoint_path = ctx.getOneString("input_checkpoint", "");
  if (!checkpoint_path.ok()) return checkpoint_path.status();
  std::optional<model::CheckpointReader> checkpoint;
  if (!checkpoint_path->empty()) {
    auto prefix = model::resolveCheckpointPrefix(*checkpoint_path);
    if (!prefix.ok()) return ctx.error("input_checkpoint: " + prefix.error());
    auto reader = model::CheckpointReader::open(*prefix);
    if (!reader.ok()) return ctx.error("input_checkpoint: " + reader.error());
    checkpoint.emplace(std::move(reader.value()));
  }
  GraphDef graph = in;
  for (auto& node : *graph.mutable_node()) node.mutable_attr()->erase("_output_shapes");
  const std::vector<Pass> passes = {
      {{"Gather", {{"Identity", {{"Const|Variable|VariableV2"}}}, {"*"}}}, true},
      {{"GatherV2", {{"Identity", {{"Const|Variable|VariableV2"}}}, {"*"}, {"Const"}}}, true},
      {{"ResourceGather", {{"VarHandleOp"}, {"*"}}}, false},
  };
  for (const auto& pass : passes) GDS_RETURN_IF_ERROR(sparsifyPass(&graph, pass, checkpoint, *group_init, ctx));
  return graph;
}

}  // namespace

TransformInfo sparsifyGatherTransform() {
  return {"sparsify_gather",
          "Replaces Gather over a float [N, 1] table (Const or checkpointed variable) by a hash-table lookup of "
          "its non-zero rows",
          {{"input_checkpoint", "checkpoint holding the values of variable tables"},
           {"group_init_node", "NoOp that runs the table initializers (default group_deps; created if absent)"}},
          sparsifyGather};
}

}  // namespace gds::transforms
