#include "engine/rewrite/quantized_fusion.h"

#include <algorithm>
#include <memory>
#include <set>

#include "engine/rewrite/fused_nodes.h"
#include "engine/rewrite/quantized_fusion_impl.h"

namespace gds::engine {
namespace quantized_fusion_impl {

// Follows the stages after `cur` (an int32 value with its range when
// int32, else quint8), appending them to c; returns the last node taken.
int ChainFinder::extend(Chain* c_ptr, int cur, bool int32) {
  Chain& c = *c_ptr;
  while (true) {
    if (fetched_.count(cur)) break;
    if (int32) {
      if (!extendRequantize(cur, &c)) break;
      cur = c.members.back();
      int32 = false;
      continue;
    }
    const int next = soleConsumer(cur);
    if (next < 0 || fed_.count(next) || used_[static_cast<std::size_t>(next)]) break;
    const NodeDef& x = g_.node(next);
    const bool binary = x.op() == "QuantizedBiasAdd" || x.op() == "QuantizedAdd";
    if (!readsTriple(next, cur, {0, 1, 2}, binary ? std::vector<int>{0, 2, 3} : std::vector<int>{0, 1, 2})) break;
    if (x.op() == "QuantizedAdd" && isConstantDerived(x.input(1))) {
      // quantize_nodes' Add of a bias vector (unfolded batch norms).
      if (typeAttrOr(x, "T1", tensorflow::DT_QUINT8) != tensorflow::DT_QUINT8 ||
          typeAttrOr(x, "T2", tensorflow::DT_QUINT8) != tensorflow::DT_QUINT8 ||
          typeAttrOr(x, "Toutput", tensorflow::DT_QINT32) != tensorflow::DT_QINT32 || dataInputs(next).size() != 6)
        break;
      c.stages.push_back("Add");
      for (int i : {1, 4, 5}) c.extra_inputs.push_back(x.input(i));
      c.members.push_back(next);
      cur = next;
      int32 = true;
    } else if (x.op() == "QuantizedBiasAdd") {
      if (typeAttrOr(x, "T1", tensorflow::DT_QUINT8) != tensorflow::DT_QUINT8 ||
          typeAttrOr(x, "T2", tensorflow::DT_QUINT8) != tensorflow::DT_QUINT8 ||
          typeAttrOr(x, "out_type", tensorflow::DT_QINT32) != tensorflow::DT_QINT32)
        break;
      const auto in = dataInputs(next);
      if (in.size() != 6) break;
      c.stages.push_back("BiasAdd");
      for (int i : {1, 4, 5}) c.extra_inputs.push_back(x.input(i));
      c.members.push_back(next);
      cur = next;
      int32 = true;
    } else if (x.op() == "QuantizedRelu" || x.op() == "QuantizedRelu6") {
      if (typeAttrOr(x, "Tinput", tensorflow::DT_QUINT8) != tensorflow::DT_QUINT8 ||
          typeAttrOr(x, "out_type", tensorflow::DT_QUINT8) != tensorflow::DT_QUINT8 || dataInputs(next).size() != 3)
        break;
      c.stages.push_back(x.op() == "QuantizedRelu" ? "Relu" : "Relu6");
      c.members.push_back(next);
      cur = next;
    } else if (isPlainDequantize(next)) {
      c.stages.push_back("Dequantize");
      c.dequantize_mode = stringAttrOr(x, "mode", "MIN_COMBINED");
      c.members.push_back(next);
      cur = next;
      break;  // float ends the chain
    } else {
      break;
    }
  }
  return cur;
}

// QuantizeV2(x, Min(Reshape(x, [-1]), 0), Max(Reshape(x, [-1]), 0)) to
// quint8 with no axis; range_nodes: the Reshape, Min and Max, read by
// nothing else.
bool ChainFinder::ownRangeQuantize(int q, std::vector<int>* range_nodes) {
  const NodeDef& node = g_.node(q);
  if (node.op() != "QuantizeV2" || used_[static_cast<std::size_t>(q)] || fed_.count(q)) return false;
  if (model::attrType(node, "T") != tensorflow::DT_QUINT8) return false;
  if (const auto* axis = model::findAttr(node, "axis"); axis && axis->i() != -1) return false;
  const auto in = dataInputs(q);
  if (in.size() != 3 || in[1].port != 0 || in[2].port != 0) return false;
  const int min_node = in[1].node, max_node = in[2].node;
  if (g_.op(min_node) != "Min" || g_.op(max_node) != "Max") return false;
  int reshape = -1;
  for (int r : {min_node, max_node}) {
    if (fed_.count(r) || fetched_.count(r) || used_[static_cast<std::size_t>(r)]) return false;
    if (soleConsumer(r) != q || g_.consumers(r).size() != 1) return false;
    const auto rin = dataInputs(r);
    if (rin.size() != 2 || !intConstIs(rin[1].node, 0) || rin[0].port != 0) return false;
    if (model::attrBool(g_.node(r), "keep_dims", false)) return false;
    if (reshape >= 0 && reshape != rin[0].node) return false;
    reshape = rin[0].node;
  }
  if (g_.op(reshape) != "Reshape" || fed_.count(reshape) || fetched_.count(reshape) ||
      used_[static_cast<std::size_t>(reshape)])
    return false;
  for (const auto& c : g_.consumers(reshape))
    if (c.node != min_node && c.node != max_node) return false;
  const auto reshape_in = dataInputs(reshape);
  if (reshape_in.size() != 2 || reshape_in[0].node != in[0].node || reshape_in[0].port != in[0].port ||
      !intConstIs(reshape_in[1].node, -1))
    return false;
  if (typeAttrOr(g_.node(reshape), "T", tensorflow::DT_FLOAT) != tensorflow::DT_FLOAT) return false;
  *range_nodes = {reshape, min_node, max_node};
  return true;
}

// The consumers of x besides the quantization q and its range nodes:
// Consts quantize_nodes hangs on x by control edges for the Reshape's and
// reductions' operands (they go with the chain); false for anything else.
bool ChainFinder::anchoredConsts(int x, int q, const std::vector<int>& range_nodes, std::vector<int>* anchored) const {
  const std::set<int> range_set(range_nodes.begin(), range_nodes.end());
  for (const auto& consumer : g_.consumers(x)) {
    if (consumer.node == q || consumer.node == range_nodes[0]) continue;
    if (consumer.port != -1 || g_.op(consumer.node) != "Const" || fetched_.count(consumer.node) ||
        used_[static_cast<std::size_t>(consumer.node)])
      return false;
    for (const auto& reader : g_.consumers(consumer.node))
      if (!range_set.count(reader.node)) return false;
    anchored->push_back(consumer.node);
  }
  return true;
}

// Takes chain c ending at `tail` when its extra inputs come from outside it.
bool ChainFinder::accept(Chain c, int tail, Chain* chain) {
  const std::set<int> members(c.members.begin(), c.members.end());
  for (const std::string& in : c.extra_inputs) {
    const int src = g_.find(model::nodeNameOf(in));
    if (src < 0 || members.count(src)) return false;
  }
  c.tail = tail;
  for (int m : c.members) used_[static_cast<std::size_t>(m)] = true;
  *chain = std::move(c);
  return true;
}

std::vector<model::Graph::Input> ChainFinder::dataInputs(int n) const {
  std::vector<model::Graph::Input> data;
  for (const auto& in : g_.inputs(n))
    if (!in.control) data.push_back(in);
  return data;
}

// The tensor is a Const or a QuantizeV2 of one (a bias vector quantized
// at run time), so its shape is fixed and small.
bool ChainFinder::isConstantDerived(const std::string& input) const {
  const int n = g_.find(model::nodeNameOf(input));
  if (n < 0) return false;
  if (g_.op(n) == "Const") return true;
  if (g_.op(n) != "QuantizeV2") return false;
  const auto in = dataInputs(n);
  return !in.empty() && g_.op(in[0].node) == "Const";
}

// A Dequantize of quint8 to float, MIN_FIRST or MIN_COMBINED, no axis.
bool ChainFinder::isPlainDequantize(int n) const {
  const NodeDef& x = g_.node(n);
  if (x.op() != "Dequantize") return false;
  const std::string mode = stringAttrOr(x, "mode", "MIN_COMBINED");
  const tensorflow::AttrValue* axis = model::findAttr(x, "axis");
  return (mode == "MIN_FIRST" || mode == "MIN_COMBINED") && dataInputs(n).size() == 3 &&
         typeAttrOr(x, "T", tensorflow::DT_QUINT8) == tensorflow::DT_QUINT8 &&
         typeAttrOr(x, "dtype", tensorflow::DT_FLOAT) == tensorflow::DT_FLOAT &&
         (!axis || axis->i() == -1) && !model::attrBool(x, "narrow_range", false);
}

// Node n is a Const holding the single int value v (shape [] or [1]).
bool ChainFinder::intConstIs(int n, std::int64_t v) const {
  const NodeDef& x = g_.node(n);
  if (x.op() != "Const") return false;
  const tensorflow::AttrValue* value = model::findAttr(x, "value");
  if (!value) return false;
  auto t = model::decodeTensor(value->tensor());
  if (!t.ok() || t->size() != 1 || t->shape.size() > 1) return false;
  if (t->dtype != tensorflow::DT_INT32 && t->dtype != tensorflow::DT_INT64) return false;
  return static_cast<std::int64_t>(t->valueAt(0)) == v;
}

// Node `reader` reads src:ports[i] as its data input inputs[i].
bool ChainFinder::readsTriple(int reader, int src, const std::vector<int>& ports,
                              const std::vector<int>& inputs) const {
  const auto in = dataInputs(reader);
  for (std::size_t i = 0; i < ports.size(); ++i) {
    const std::size_t k = static_cast<std::size_t>(inputs[i]);
    if (k >= in.size() || in[k].node != src || in[k].port != ports[i]) return false;
  }
  return true;
}

// The one node consuming every output of n (data or control), or -1.
int ChainFinder::soleConsumer(int n) const {
  int only = -1;
  for (const auto& c : g_.consumers(n)) {
    if (only >= 0 && c.node != only) return -1;
    only = c.node;
  }
  return only;
}

// cur (int32, range at ports 1 and 2) -> Requantize to quint8, with or
// without its own RequantizationRange.
bool ChainFinder::extendRequantize(int cur, Chain* c) {
  int requantize = -1, range = -1;
  for (const auto& consumer : g_.consumers(cur)) {
    const std::string& op = g_.op(consumer.node);
    if (op == "Requantize" && (requantize < 0 || requantize == consumer.node))
      requantize = consumer.node;
    else if (op == "RequantizationRange" && (range < 0 || range == consumer.node))
      range = consumer.node;
    else
      return false;
  }
  if (requantize < 0 || fed_.count(requantize) || used_[static_cast<std::size_t>(requantize)]) return false;
  const NodeDef& r = g_.node(requantize);
  if (typeAttrOr(r, "out_type", tensorflow::DT_QUINT8) != tensorflow::DT_QUINT8 ||
      typeAttrOr(r, "Tinput", tensorflow::DT_QINT32) != tensorflow::DT_QINT32 || dataInputs(requantize).size() != 5)
    return false;
  if (!readsTriple(requantize, cur, {0, 1, 2}, {0, 1, 2})) return false;
  if (range >= 0) {
    // The dynamic form: the range is read only by this Requantize.
    if (fed_.count(range) || fetched_.count(range) || used_[static_cast<std::size_t>(range)]) return false;
    if (typeAttrOr(g_.node(range), "Tinput", tensorflow::DT_QINT32) != tensorflow::DT_QINT32) return false;
    if (!readsTriple(range, cur, {0, 1, 2}, {0, 1, 2}) || dataInputs(range).size() != 3) return false;
    if (!readsTriple(requantize, range, {0, 1}, {3, 4})) return false;
    for (const auto& consumer : g_.consumers(range))
      if (consumer.node != requantize) return false;
    c->stages.push_back("Requantize");
    c->members.push_back(range);
  } else {
    c->stages.push_back("RequantizeToRange");
    c->extra_inputs.push_back(r.input(3));
    c->extra_inputs.push_back(r.input(4));
  }
  c->members.push_back(requantize);
  return true;
}

// Static shapes of the graph (computed on first use), with the plan's
// input shapes.
const model::InferredShapes& ChainFinder::shapes() {
  if (!shapes_) shapes_ = std::make_unique<model::InferredShapes>(model::inferShapes(g_, input_shapes_));
  return *shapes_;
}

}  // namespace quantized_fusion_impl

using tensorflow::NodeDef;

std::shared_ptr<tensorflow::GraphDef> fuseQuantizedLayers(const tensorflow::GraphDef& graph,
                                                          const std::vector<std::string>& feeds,
                                                          const std::vector<std::string>& fetches,
                                                          QuantizedFusionStats* stats,
                                                          const std::map<std::string, model::Shape>& input_shapes) {
  if (stats) *stats = {};
  // Cheap exit for graphs without 8-bit layers (every float graph).
  bool any = false;
  for (const NodeDef& n : graph.node())
    if (n.op() == "QuantizedConv2D" || n.op() == "QuantizedMatMul" || n.op() == "QuantizeV2") {
      any = true;
      break;
    }
  if (!any) return nullptr;
  auto built = model::Graph::build(graph);
  if (!built.ok()) return nullptr;  // Plan::compile reports the graph's error itself
  const model::Graph& g = *built;
  std::set<int> fed, fetched;
  for (const std::string& f : feeds)
    if (int i = g.find(model::parseTensorName(f).node); i >= 0) fed.insert(i);
  for (const std::string& f : fetches)
    if (int i = g.find(model::parseTensorName(f).node); i >= 0) fetched.insert(i);

  quantized_fusion_impl::ChainFinder finder(g, fed, fetched, input_shapes);
  std::vector<quantized_fusion_impl::ChainFinder::Chain> chains;
  for (int n = 0; n < g.size(); ++n) {
    quantized_fusion_impl::ChainFinder::Chain c;
    if (finder.find(n, &c)) chains.push_back(std::move(c));
  }
  // Pools first: their quantization would otherwise be taken alone.
  for (int n = 0; n < g.size(); ++n) {
    quantized_fusion_impl::ChainFinder::Chain c;
    if (finder.findPadPool(n, &c)) chains.push_back(std::move(c));
  }
  for (int n = 0; n < g.size(); ++n) {
    quantized_fusion_impl::ChainFinder::Chain c;
    if (finder.findAdd(n, &c) || finder.findQuantize(n, &c)) chains.push_back(std::move(c));
  }
  if (chains.empty()) return nullptr;

  // Node index -> chain whose fused node replaces it (at the tail's place).
  std::vector<int> chain_of(static_cast<std::size_t>(g.size()), -1);
  for (std::size_t k = 0; k < chains.size(); ++k)
    for (int m : chains[k].members) chain_of[static_cast<std::size_t>(m)] = static_cast<int>(k);

  auto out = std::make_shared<tensorflow::GraphDef>();
  *out->mutable_versions() = graph.versions();
  if (graph.has_library()) *out->mutable_library() = graph.library();
  out->mutable_node()->Reserve(graph.node_size());
  int removed = 0;
  for (int n = 0; n < g.size(); ++n) {
    const int k = chain_of[static_cast<std::size_t>(n)];
    if (k < 0) {
      *out->add_node() = g.node(n);
      continue;
    }
    const quantized_fusion_impl::ChainFinder::Chain& c = chains[static_cast<std::size_t>(k)];
    if (n != c.tail) {
      ++removed;
      continue;
    }
    const NodeDef& head = g.node(c.head);
    NodeDef* fused = out->add_node();
    fused->set_name(g.name(c.tail));
    fused->set_device(head.device());
    if (c.pool >= 0) {
      fused->set_op("_QuantizedPadMaxPool");  // inputs: the Dequantize's (extra_inputs)
    } else if (!c.add_op.empty()) {
      fused->set_op("_QuantizedAddOwnRange");  // inputs: the two Dequantizes' (extra_inputs)
    } else if (head.op() == "QuantizeV2") {
      fused->set_op("_QuantizeV2OwnRange");
      fused->add_input(head.input(0));
    } else {
      fused->set_op(head.op() == "QuantizedConv2D" ? "_FusedQuantizedConv2D" : "_FusedQuantizedMatMul");
      for (int i = 0; i < 6; ++i) fused->add_input(head.input(i));
    }
    for (const std::string& in : c.extra_inputs) fused->add_input(in);
    std::set<std::string> controls;
    const std::set<int> members(c.members.begin(), c.members.end());
    for (int m : c.members)
      for (const auto& in : g.inputs(m))
        if (in.control && !members.count(in.node)) controls.insert("^" + g.name(in.node));
    for (const std::string& ctl : controls) fused->add_input(ctl);
    *fused->mutable_attr() = c.quantize >= 0 ? g.node(c.quantize).attr() : head.attr();
    std::vector<const NodeDef*> replaced;
    for (int m : c.members) replaced.push_back(&g.node(m));
    recordFusedNodes(replaced, g.node(c.pool >= 0 ? c.pool : c.head), fused);
    if (c.pool >= 0) {
      auto& attrs = *fused->mutable_attr();
      for (const char* name : {"ksize", "strides"}) attrs[name] = g.node(c.pool).attr().at(name);
      auto* list = attrs["pad_hw"].mutable_list();
      for (std::int64_t v : c.pads) list->add_i(v);
      attrs["dequantize_mode"].set_s(c.dequantize_mode);
      continue;  // no stages
    }
    if (!c.add_op.empty()) {
      auto& attrs = *fused->mutable_attr();
      attrs["add_op"].set_s(c.add_op);
      attrs["mode_a"].set_s(c.add_modes[0]);
      attrs["mode_b"].set_s(c.add_modes[1]);
    }
    auto* list = (*fused->mutable_attr())["fused_ops"].mutable_list();
    for (const std::string& s : c.stages) list->add_s(s);
    if (!c.dequantize_mode.empty()) (*fused->mutable_attr())["dequantize_mode"].set_s(c.dequantize_mode);
  }
  if (stats) {
    stats->layers = static_cast<int>(chains.size());
    stats->nodes_removed = removed;
  }
  return out;
}

}  // namespace gds::engine
