// The graph analysis behind summarize_graph: inputs, variables and outputs
// spotted, parameter counts and bytes, op types, FLOPs, the ranking of likely
// inputs and outputs, the TFLite dialect's model tensors, and a TF2
// SavedModel's signatures (formatted by summary_text.cc and summary_json.cc).
#include "model/summary.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <unordered_set>

#include "model/attr.h"
#include "model/functions.h"
#include "model/saved_model_v2.h"
#include "model/summary_impl.h"
#include "model/tflite/dialect.h"

namespace gds::model {

using summary_impl::tensorSize;

namespace {

using tensorflow::DataType;
using tensorflow::NodeDef;

SummaryNode describe(const NodeDef& n) {
  SummaryNode s;
  s.name = n.name();
  s.op = n.op();
  if (const auto* d = findAttr(n, "dtype"); d && d->value_case() == tensorflow::AttrValue::kType) s.dtype = d->type();
  if (const auto* sh = findAttr(n, "shape")) {
    s.has_shape = true;
    bool known = true;
    s.shape = shapeFromProto(sh->shape(), &known);
    s.known_rank = known;
    for (auto d : s.shape)
      if (d < -1) s.known_rank = false;  // invalid: PartialTensorShape treats it as unknown
    if (!s.known_rank) s.shape.clear();
  }
  return s;
}

}  // namespace

bool summary_impl::tensorSize(const tensorflow::TensorProto& t, std::int64_t* elements, std::int64_t* bytes) {
  DataType dt = t.dtype();
  if (dt == tensorflow::DT_INVALID || static_cast<int>(dt) > 100) return false;
  if (t.tensor_shape().unknown_rank()) return false;
  std::int64_t n = 1;
  for (const auto& d : t.tensor_shape().dim())
    if (d.size() < 0 || __builtin_mul_overflow(n, d.size(), &n)) return false;
  std::size_t elem = dtypeSize(dt);
  if (dt == tensorflow::DT_STRING) {
    std::int64_t b = 0;
    std::int64_t count = std::min<std::int64_t>(t.string_val_size(), n);
    for (std::int64_t k = 0; k < count; ++k) b += static_cast<std::int64_t>(t.string_val(static_cast<int>(k)).size());
    *elements = n;
    *bytes = b;
    return true;
  }
  if (elem == 0) {
    if (dt != tensorflow::DT_RESOURCE && dt != tensorflow::DT_VARIANT) return false;
    *elements = n;
    *bytes = 0;
    return true;
  }
  std::int64_t b;
  if (__builtin_mul_overflow(n, static_cast<std::int64_t>(elem), &b)) return false;
  if (!t.tensor_content().empty() && static_cast<std::int64_t>(t.tensor_content().size()) != b) return false;
  *elements = n;
  *bytes = b;
  return true;
}

namespace {

// Saturating sum (corrupt graphs may declare absurd sizes).
void addTo(std::int64_t* total, std::int64_t v) {
  if (__builtin_add_overflow(*total, v, total)) *total = INT64_MAX;
}

std::int64_t product(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  return a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r) ? -1 : r;
}

enum class Contraction { None, Conv, Depthwise, MatMul, Tflite };

Contraction contractionKind(const std::string& op) {
  static const std::map<std::string, Contraction> kinds = {
      {"Conv2D", Contraction::Conv},
      {"QuantizedConv2D", Contraction::Conv},
      {"QuantizedFusedConv2D", Contraction::Conv},
      {"_FusedConv2D", Contraction::Conv},
      {"_FusedQuantizedConv2D", Contraction::Conv},
      {"FusedPadConv2D", Contraction::Conv},
      {"FusedResizeAndPadConv2D", Contraction::Conv},
      {"DepthwiseConv2dNative", Contraction::Depthwise},
      {"QuantizedFusedDepthwiseConv2dNative", Contraction::Depthwise},
      {"_FusedDepthwiseConv2dNative", Contraction::Depthwise},
      {"MatMul", Contraction::MatMul},
      {"QuantizedMatMul", Contraction::MatMul},
      {"QuantizedFusedMatMul", Contraction::MatMul},
      {"_FusedMatMul", Contraction::MatMul},
      {"_FusedQuantizedMatMul", Contraction::MatMul},
      {"tfl.conv_2d", Contraction::Tflite},
      {"tfl.depthwise_conv_2d", Contraction::Tflite},
      {"tfl.fully_connected", Contraction::Tflite},
  };
  auto it = kinds.find(op);
  return it == kinds.end() ? Contraction::None : it->second;
}

// benchmark_model's CalculateFlops for one node; -1 when shapes are unknown.
std::int64_t nodeFlops(const Graph& g, const InferredShapes& shapes, int i) {
  const NodeDef& n = g.node(i);
  const std::string& op = n.op();
  auto dataInput = [&](int k) -> const TensorInfo& {
    int seen = 0;
    for (const auto& in : g.inputs(i))
      if (!in.control && seen++ == k) return shapes.at(in.node, in.port);
    return shapes.at(-1);
  };
  std::int64_t out = shapes.at(i, 0).elements();
  const Contraction kind = contractionKind(op);
  if (kind == Contraction::Conv || kind == Contraction::Depthwise) {
    // The filter follows the paddings (and the size) in the Pad-fused forms.
    const int filter = op == "FusedPadConv2D" ? 2 : op == "FusedResizeAndPadConv2D" ? 3 : 1;
    const TensorInfo& f = dataInput(filter);
    if (out < 0 || !f.fullyKnown() || f.shape.size() != 4) return -1;
    std::int64_t r = product(product(out, f.shape[0]), f.shape[1]);
    if (kind == Contraction::Conv) r = product(r, f.shape[2]);
    return product(r, 2);
  }
  // TFLite dialect layers (filters OHWI, [1,H,W,C*M], [out,in]); their
  // output shapes are recorded on the node.
  if (kind == Contraction::Tflite) {
    bool known = false;
    const std::int64_t elements = numElements(tflite::outputShape(n, 0, &known));
    const TensorInfo& f = dataInput(1);
    if (!known || elements < 0 || !f.fullyKnown()) return -1;
    if (op == "tfl.fully_connected") return f.shape.size() == 2 ? product(product(elements, f.shape[1]), 2) : -1;
    if (f.shape.size() != 4) return -1;
    std::int64_t r = product(product(elements, f.shape[1]), f.shape[2]);
    if (op == "tfl.conv_2d") r = product(r, f.shape[3]);
    return product(r, 2);
  }
  if (kind == Contraction::MatMul) {
    const TensorInfo& a = dataInput(0);
    if (out < 0 || !a.known_rank || a.shape.size() != 2) return -1;
    bool ta = false;
    if (const auto* t = findAttr(n, "transpose_a")) ta = t->b();
    std::int64_t k = a.shape[ta ? 0 : 1];
    return product(product(k, out), 2);
  }
  return 0;
}

// Longest data paths through the non-auxiliary part of the graph: depth[i]
// from any input to i, height[i] from i to any output (in edges). Loops'
// back edges are skipped (topoOrder ignores them), so both are finite.
void pathLengths(const Graph& g, const std::vector<AuxiliaryKind>& aux, std::vector<int>* depth,
                 std::vector<int>* height) {
  const int n = g.size();
  depth->assign(static_cast<std::size_t>(n), 0);
  height->assign(static_cast<std::size_t>(n), 0);
  std::vector<int> position(static_cast<std::size_t>(n), 0);
  const auto& order = g.topoOrder();
  for (std::size_t k = 0; k < order.size(); ++k) position[static_cast<std::size_t>(order[k])] = static_cast<int>(k);
  auto main = [&](int i) { return aux[static_cast<std::size_t>(i)] == AuxiliaryKind::None; };
  auto forward = [&](int from, int to) { return position[static_cast<std::size_t>(from)] < position[static_cast<std::size_t>(to)]; };
  for (int i : order) {
    if (!main(i)) continue;
    for (const auto& in : g.inputs(i))
      if (!in.control && main(in.node) && forward(in.node, i))
        (*depth)[static_cast<std::size_t>(i)] = std::max((*depth)[static_cast<std::size_t>(i)], (*depth)[static_cast<std::size_t>(in.node)] + 1);
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int i = *it;
    if (!main(i)) continue;
    for (const auto& c : g.consumers(i))
      if (c.port >= 0 && main(c.node) && forward(i, c.node))
        (*height)[static_cast<std::size_t>(i)] = std::max((*height)[static_cast<std::size_t>(i)], (*height)[static_cast<std::size_t>(c.node)] + 1);
  }
}

// A Placeholder that carries data: not a boolean flag, a captured variable
// (resource) or a numeric scalar (a hyper-parameter such as keep_prob); a
// string scalar is data (encoded images, WAV clips).
bool dataLike(const SummaryNode& n) {
  const auto base = static_cast<tensorflow::DataType>(baseDtype(n.dtype));
  if (base == tensorflow::DT_BOOL || base == tensorflow::DT_RESOURCE || base == tensorflow::DT_VARIANT) return false;
  if (base == tensorflow::DT_STRING) return true;
  return !n.has_shape || !n.known_rank || !n.shape.empty();
}

void rankSuggestions(const Graph& g, Summary* s) {
  const auto aux = classifyAuxiliary(g);
  for (auto k : aux) s->auxiliary_nodes += k != AuxiliaryKind::None;
  std::vector<int> depth, height;
  pathLengths(g, aux, &depth, &height);
  struct Ranked {
    Suggestion suggestion;
    int group = 0;  // 0 likely, 1 other main-graph nodes, 2 flags, 3 auxiliary
    int order = 0;
  };
  auto sortAndStore = [](std::vector<Ranked>& ranked, std::vector<Suggestion>* out) {
    std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
      if (a.group != b.group) return a.group < b.group;
      return a.suggestion.path_length > b.suggestion.path_length;
    });
    for (auto& r : ranked) out->push_back(std::move(r.suggestion));
  };

  std::vector<Ranked> inputs;
  int longest = 0;
  for (const auto& in : s->inputs) {
    const int i = g.find(in.name);
    if (i >= 0 && dataLike(in) && aux[static_cast<std::size_t>(i)] == AuxiliaryKind::None)
      longest = std::max(longest, height[static_cast<std::size_t>(i)]);
  }
  for (const auto& in : s->inputs) {
    const int i = g.find(in.name);
    if (i < 0) continue;
    Ranked r;
    r.suggestion.name = in.name;
    r.suggestion.op = in.op;
    r.suggestion.auxiliary = aux[static_cast<std::size_t>(i)];
    r.suggestion.path_length = height[static_cast<std::size_t>(i)];
    const bool main = r.suggestion.auxiliary == AuxiliaryKind::None && baseDtype(in.dtype) != tensorflow::DT_RESOURCE;
    // Real data reaches most of the network (labels and masks of a
    // training graph reach only the loss).
    r.suggestion.likely = main && dataLike(in) && 2 * r.suggestion.path_length >= longest;
    r.group = r.suggestion.likely ? 0 : !main ? 3 : dataLike(in) ? 1 : 2;
    inputs.push_back(std::move(r));
  }
  sortAndStore(inputs, &s->suggested_inputs);

  std::vector<Ranked> outputs;
  longest = 0;
  for (const auto& [name, op] : s->outputs) {
    const int i = g.find(name);
    if (i >= 0 && aux[static_cast<std::size_t>(i)] == AuxiliaryKind::None)
      longest = std::max(longest, depth[static_cast<std::size_t>(i)]);
  }
  for (const auto& [name, op] : s->outputs) {
    const int i = g.find(name);
    if (i < 0) continue;
    Ranked r;
    r.suggestion.name = name;
    r.suggestion.op = op;
    r.suggestion.auxiliary = aux[static_cast<std::size_t>(i)];
    r.suggestion.path_length = depth[static_cast<std::size_t>(i)];
    const bool main = r.suggestion.auxiliary == AuxiliaryKind::None;
    // The ends of the main path: as deep as the deepest output, give or
    // take a few ops (a Softmax beside its ArgMax).
    r.suggestion.likely = main && longest > 0 && 10 * r.suggestion.path_length >= 9 * longest;
    r.group = r.suggestion.likely ? 0 : main ? 1 : 3;
    outputs.push_back(std::move(r));
  }
  sortAndStore(outputs, &s->suggested_outputs);
}

}  // namespace

bool countsForFlops(const std::string& op) { return contractionKind(op) != Contraction::None; }

namespace {

// Whether the node records per-tensor dtypes or quantization (dialect.h).
bool recordsTensors(const NodeDef& n) {
  return n.attr().count(tflite::kOutputTypesAttr) || n.attr().count(tflite::kScaleAttr) ||
         n.attr().count(tflite::kInputIndexAttr) || n.attr().count(tflite::kOutputIndexAttr);
}

TensorSummary tensorSummary(const NodeDef& n, int port) {
  TensorSummary t;
  t.name = tflite::tensorName(n, port);
  t.dtype = tflite::outputType(n, port);
  t.shape = tflite::outputShape(n, port, &t.known_rank);
  const tflite::Quantization q = tflite::quantizationOf(n, port);
  if (!q.empty()) t.quantization = q.str();
  return t;
}

// The model's input and output tensors: Placeholders by _input_index, outputs
// by _output_index (else every output of the nodes nothing consumes).
void modelTensors(const Graph& graph, const std::vector<bool>& consumed, Summary* s) {
  const tensorflow::GraphDef& def = graph.def();
  bool any = false;
  for (const auto& n : def.node()) any = any || recordsTensors(n);
  if (!any) return;
  std::vector<std::pair<std::int64_t, TensorSummary>> inputs, outputs;
  bool marked_outputs = false;
  for (const auto& n : def.node())
    marked_outputs = marked_outputs || n.attr().count(tflite::kOutputIndexAttr);
  for (int i = 0; i < def.node_size(); ++i) {
    const NodeDef& n = def.node(i);
    if (n.op() == "Placeholder") {
      const auto* index = findAttr(n, tflite::kInputIndexAttr);
      inputs.emplace_back(index ? index->i() : (std::int64_t{1} << 40) + i, tensorSummary(n, 0));
    }
    if (marked_outputs) {
      const auto* index = findAttr(n, tflite::kOutputIndexAttr);
      if (!index) continue;
      for (int port = 0; port < index->list().i_size(); ++port)
        if (index->list().i(port) >= 0) outputs.emplace_back(index->list().i(port), tensorSummary(n, port));
    } else if (!consumed[static_cast<std::size_t>(i)] && n.op() != "Const" && n.op() != "Placeholder") {
      for (int port = 0; port < tflite::outputCount(n); ++port)
        outputs.emplace_back((std::int64_t{1} << 40) + i, tensorSummary(n, port));
    }
  }
  auto byPosition = [](const auto& a, const auto& b) { return a.first < b.first; };
  std::stable_sort(inputs.begin(), inputs.end(), byPosition);
  std::stable_sort(outputs.begin(), outputs.end(), byPosition);
  for (auto& [k, t] : inputs) s->input_tensors.push_back(std::move(t));
  for (auto& [k, t] : outputs) s->output_tensors.push_back(std::move(t));
}

}  // namespace

Summary summarize(const Graph& graph, const SummaryOptions& options) {
  const tensorflow::GraphDef& def = graph.def();
  Summary s;
  s.path = options.path;
  s.file_bytes = options.file_bytes;
  s.node_count = def.node_size();
  std::vector<bool> consumed(def.node_size(), false);
  for (int i = 0; i < graph.size(); ++i)
    for (const auto& in : graph.inputs(i)) consumed[in.node] = true;
  static const std::unordered_set<std::string> kUnlikelyOutputs = {"Const", "Assign", "NoOp", "Placeholder"};
  std::map<std::string, int> op_counts;
  for (int i = 0; i < def.node_size(); ++i) {
    const NodeDef& n = def.node(i);
    const std::string& op = n.op();
    if (op == "Placeholder") s.inputs.push_back(describe(n));
    if (op == "Variable" || op == "VariableV2") s.variables.push_back(describe(n));
    if (!consumed[i] && !kUnlikelyOutputs.count(op)) s.outputs.emplace_back(n.name(), op);
    ++op_counts[op];
    if (!n.device().empty()) ++s.devices[n.device()];
    if (op == "Const" || op == "Variable" || op == "VariableV2") {
      const auto* v = findAttr(n, "value");
      std::int64_t elements = 0, bytes = 0;
      if (v && v->value_case() == tensorflow::AttrValue::kTensor && tensorSize(v->tensor(), &elements, &bytes)) {
        if (op == "Const") {
          addTo(&s.const_parameters, elements);
          addTo(&s.const_bytes, bytes);
        } else {
          addTo(&s.variable_parameters, elements);
        }
      } else if (op == "Const") {
        s.warnings.push_back("Decoding Tensor failed for node " + n.name());
      }
    }
    if (op == "Variable" || op == "VariableV2" || op == "VarHandleOp") {
      const auto* sh = findAttr(n, "shape");
      const auto* dt = findAttr(n, "dtype");
      if (sh) {
        std::int64_t elements = numElements(shapeFromProto(sh->shape()));
        if (elements >= 0 && !sh->shape().unknown_rank()) {
          addTo(&s.variable_shape_parameters, elements);
          if (dt) addTo(&s.variable_bytes, std::max<std::int64_t>(0, product(elements, static_cast<std::int64_t>(dtypeSize(dt->type())))));
        }
      }
    }
  }
  s.control_edges = graph.controlEdgeCount();
  modelTensors(graph, consumed, &s);
  for (const auto& f : def.library().function())
    for (const auto& n : f.node_def()) ++op_counts[n.op()];
  // The same call as summarize_graph (std::sort, count descending, starting
  // from name order), so ties come out in the same order.
  s.op_types.assign(op_counts.begin(), op_counts.end());
  std::sort(s.op_types.begin(), s.op_types.end(),
            [](std::pair<std::string, int> a, std::pair<std::string, int> b) { return a.second > b.second; });

  bool any_floppable = false;
  for (int i = 0; i < graph.size() && !any_floppable; ++i) any_floppable = countsForFlops(graph.op(i));
  if (any_floppable) {
    // benchmark_model runs an unknown batch as 1; so do the FLOPs here,
    // saying which inputs it applied to (flops_batch_one).
    ShapeOverrides overrides = options.input_shapes;
    for (const auto& in : s.inputs) {
      if (overrides.count(in.name) || !in.known_rank || in.shape.empty() || in.shape[0] >= 0) continue;
      Shape one = in.shape;
      one[0] = 1;
      overrides[in.name] = one;
      s.flops_batch_one.push_back(in.name);
    }
    InferredShapes shapes = inferShapes(graph, overrides);
    for (int i = 0; i < graph.size(); ++i) {
      if (!countsForFlops(graph.op(i))) continue;
      std::int64_t f = nodeFlops(graph, shapes, i);
      if (f < 0) {
        s.flops_unknown_nodes.push_back(graph.name(i));
        continue;
      }
      addTo(&s.flops, f);
      addTo(&s.flops_by_type[graph.op(i)], f);
    }
  }
  rankSuggestions(graph, &s);
  return s;
}

namespace {

std::vector<std::pair<std::string, int>> sortedCounts(const std::map<std::string, int>& counts) {
  // summarize_graph's order: count descending, ties in name order.
  std::vector<std::pair<std::string, int>> v(counts.begin(), counts.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return v;
}

SummaryNode describeTensor(const SignatureTensor& t) {
  SummaryNode n;
  n.name = t.key;
  n.op = "Placeholder";
  n.dtype = t.dtype;
  n.has_shape = true;
  n.known_rank = t.known_rank;
  n.shape = t.shape;
  return n;
}

void summarizeObjectGraph(const LoadedModel& model, Summary* s) {
  s->object_based = true;
  s->tensorflow_version = model.meta.meta_info_def().tensorflow_version();
  s->functions = model.graph.library().function_size();
  const auto& og = model.meta.object_graph_def();
  FunctionLibrary lib(model.graph.library());
  for (const Signature* sig : userSignatures(model)) {
    SignatureSummary ss;
    ss.key = sig->key;
    ss.method = sig->method_name;
    ss.function = sig->function;
    for (const auto& t : sig->input_tensors) ss.inputs.push_back(describeTensor(t));
    for (const auto& t : sig->output_tensors) {
      ss.outputs.push_back(describeTensor(t));
      ss.outputs.back().op = "Identity";
    }
    for (int id : sig->captured) {
      if (id < 0 || id >= og.nodes_size() || og.nodes(id).kind_case() != tensorflow::SavedObject::kVariable) continue;
      const auto& v = og.nodes(id).variable();
      SummaryNode n;
      n.name = v.name();
      n.op = "VarHandleOp";
      n.dtype = v.dtype();
      n.has_shape = true;
      n.shape = shapeFromProto(v.shape(), &n.known_rank);
      if (!n.known_rank) n.shape.clear();
      std::int64_t elements = n.known_rank ? numElements(n.shape) : -1;
      if (elements > 0) addTo(&ss.variable_parameters, elements);
      ss.variables.push_back(std::move(n));
    }
    std::map<std::string, int> ops;
    if (!ss.function.empty()) {
      auto reached = lib.reachable(ss.function);
      ss.functions = static_cast<int>(reached.size());
      for (const auto& f : reached)
        for (const auto& n : lib.find(f)->node_def()) ++ops[n.op()];
    }
    ss.op_types = sortedCounts(ops);
    s->signatures.push_back(std::move(ss));
  }
  // The Keras model and its top-level layers, in the object graph's order.
  const KerasObject* root = nullptr;
  std::vector<const KerasObject*> layers;
  for (const auto& k : model.keras_objects) {
    if (k.path == "root") root = &k;
    else if (k.path.rfind("root.layer", 0) == 0 && k.path.find('.', 5) == std::string::npos &&
             k.identifier != "_tf_keras_metric")
      layers.push_back(&k);
  }
  std::stable_sort(layers.begin(), layers.end(),
                   [](const KerasObject* a, const KerasObject* b) { return a->node_id < b->node_id; });
  if (root && !root->class_name.empty()) {
    s->keras_model = root->class_name;
    std::string list;
    for (const auto* l : layers) list += (list.empty() ? "" : ", ") + l->class_name + " " + l->name;
    if (!list.empty()) s->keras_model += ": " + list;
  }
}

// A Keras file: the model's class and name, where it came from, and its
// layers (a nested model as one entry with its layer count).
void summarizeKerasFile(const LoadedModel& model, Summary* s) {
  if (model.keras_objects.empty()) return;
  const KerasObject& root = model.keras_objects.front();
  std::string list;
  for (std::size_t i = 1; i < model.keras_objects.size(); ++i) {
    const KerasObject& k = model.keras_objects[i];
    if (k.path.find('/') != std::string::npos) continue;
    std::string entry = k.class_name + " " + k.name;
    const std::string prefix = k.path + "/";
    int nested = 0;
    for (const auto& other : model.keras_objects)
      if (other.path.rfind(prefix, 0) == 0) ++nested;
    if (nested > 0) entry += " (" + std::to_string(nested) + " layers)";
    list += (list.empty() ? "" : ", ") + entry;
  }
  s->keras_model = root.class_name + " '" + root.name + "' (" + model.producer + "): " + list;
}

}  // namespace

Result<Summary> summarizeModel(const LoadedModel& model, const ShapeOverrides& input_shapes) {
  auto graph = Graph::build(model.graph);
  if (!graph.ok()) return graph.status().withContext(model.path);
  SummaryOptions options;
  options.path = model.path;
  options.file_bytes = model.file_bytes;
  options.input_shapes = input_shapes;
  Summary s = summarize(*graph, options);
  for (const Signature* sig : userSignatures(model)) s.signature_keys.push_back(sig->key);
  if (model.object_based) summarizeObjectGraph(model, &s);
  if (model.kind == ModelKind::Keras) summarizeKerasFile(model, &s);
  return s;
}
}  // namespace gds::model
