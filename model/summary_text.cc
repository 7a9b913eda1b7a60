// The summary as text: summarize_graph's lines and the extra ones
// (formatSummaryText, a TF2 SavedModel's per signature), the graph's
// structure (formatStructure), and tensor values printed as TensorFlow's
// Tensor::DebugString does, with its number formatting.
#include "model/summary.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "model/attr.h"
#include "model/summary_impl.h"

namespace gds::model {

using summary_impl::tensorSize;
using summary_impl::tfTypeName;

namespace {

using tensorflow::DataType;
using tensorflow::NodeDef;

std::string joinInts(const Shape& s, const char* sep) {
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) r += (i ? sep : "") + std::to_string(s[i]);
  return r;
}

// TensorFlow's FloatToBuffer/DoubleToBuffer: shortest of %.6g / %.9g (float)
// or %.15g / %.17g (double) that reads back exactly.
std::string floatText(float v) {
  char buf[64];
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  std::snprintf(buf, sizeof buf, "%.*g", FLT_DIG, static_cast<double>(v));
  if (std::strtof(buf, nullptr) != v) std::snprintf(buf, sizeof buf, "%.*g", FLT_DIG + 3, static_cast<double>(v));
  return buf;
}
std::string doubleText(double v) {
  char buf[64];
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  std::snprintf(buf, sizeof buf, "%.*g", DBL_DIG, v);
  if (std::strtod(buf, nullptr) != v) std::snprintf(buf, sizeof buf, "%.*g", DBL_DIG + 2, v);
  return buf;
}

// absl::CEscape-like escaping used by Tensor::SummarizeValue for strings.
std::string cEscape(const std::string& s) {
  std::string r;
  for (unsigned char c : s) {
    switch (c) {
      case '\n': r += "\\n"; break;
      case '\r': r += "\\r"; break;
      case '\t': r += "\\t"; break;
      case '\"': r += "\\\""; break;
      case '\'': r += "\\'"; break;
      case '\\': r += "\\\\"; break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\%03o", c);
          r += buf;
        } else {
          r += static_cast<char>(c);
        }
    }
  }
  return r;
}

std::string elementText(const HostTensor& t, std::int64_t i) {
  switch (baseDtype(t.dtype)) {
    case tensorflow::DT_FLOAT: return floatText(t.as<float>()[i]);
    case tensorflow::DT_HALF: case tensorflow::DT_BFLOAT16: return floatText(static_cast<float>(t.valueAt(i)));
    case tensorflow::DT_DOUBLE: return doubleText(t.as<double>()[i]);
    case tensorflow::DT_STRING: return cEscape(t.strings[static_cast<size_t>(i)]);
    case tensorflow::DT_INT64: return std::to_string(t.as<std::int64_t>()[i]);
    case tensorflow::DT_UINT64: return std::to_string(t.as<std::uint64_t>()[i]);
    case tensorflow::DT_UINT32: return std::to_string(t.as<std::uint32_t>()[i]);
    case tensorflow::DT_BOOL: return t.as<std::uint8_t>()[i] ? "1" : "0";
    default: return std::to_string(static_cast<std::int64_t>(t.valueAt(i)));
  }
}

// Tensor.cc's PrintOneDim (the non-v2 summary).
void printOneDim(const HostTensor& t, size_t dim, std::int64_t limit, std::int64_t* index, std::string* out) {
  if (*index >= limit) return;
  std::int64_t count = t.shape[dim];
  if (dim == t.shape.size() - 1) {
    for (std::int64_t i = 0; i < count; ++i) {
      if (*index >= limit) {
        if (dim != 0) *out += "...";
        return;
      }
      if (i > 0) *out += " ";
      *out += elementText(t, (*index)++);
    }
    return;
  }
  for (std::int64_t i = 0; i < count; ++i) {
    bool open = false;
    if (*index < limit) {
      *out += "[";
      open = true;
    }
    printOneDim(t, dim + 1, limit, index, out);
    if (*index < limit || open) *out += "]";
  }
}

}  // namespace

std::string humanReadableNum(std::int64_t value) {
  std::string s;
  if (value < 0) {
    s += "-";
    value = value == INT64_MIN ? INT64_MAX : -value;
  }
  char buf[64];
  if (value < 1000) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(value));
  } else if (value >= static_cast<std::int64_t>(1e15)) {
    std::snprintf(buf, sizeof buf, "%0.3G", static_cast<double>(value));
  } else {
    static const char units[] = "kMBT";
    const char* unit = units;
    while (value >= 1000000) {
      value /= 1000;
      ++unit;
    }
    std::snprintf(buf, sizeof buf, "%.2f%c", value / 1000.0, *unit);
  }
  return s + buf;
}

std::string partialShapeText(bool known_rank, const Shape& shape) {
  return known_rank ? shapeString(shape) : "<unknown>";
}

Result<std::string> tensorDebugString(const tensorflow::TensorProto& proto, int max_values) {
  std::int64_t elements = 0, bytes = 0;
  if (!tensorSize(proto, &elements, &bytes)) return Status::Error("tensor does not decode");
  DataType dt = baseDtype(proto.dtype());
  std::string values;
  std::int64_t limit = std::min<std::int64_t>(max_values, elements);
  bool printable = dt == tensorflow::DT_STRING || (dtypeSize(dt) > 0 && dt != tensorflow::DT_QINT32 &&
                                                    dt != tensorflow::DT_COMPLEX64 && dt != tensorflow::DT_COMPLEX128);
  if (!printable) {
    for (std::int64_t i = 0; i < limit; ++i) values += i ? " ?" : "?";
    if (max_values < elements) values += "...";
  } else if (limit > 0) {
    // Decode only the first `limit` elements (a single value may "fill" a
    // shape of billions); printOneDim never reads further.
    tensorflow::TensorProto head;
    head.set_dtype(proto.dtype());
    head.mutable_tensor_shape()->add_dim()->set_size(limit);
    if (!proto.tensor_content().empty()) {
      head.set_tensor_content(proto.tensor_content().substr(0, static_cast<size_t>(limit) * dtypeSize(dt)));
    } else {
      head.mutable_float_val()->CopyFrom(proto.float_val());
      head.mutable_double_val()->CopyFrom(proto.double_val());
      head.mutable_int_val()->CopyFrom(proto.int_val());
      head.mutable_int64_val()->CopyFrom(proto.int64_val());
      head.mutable_bool_val()->CopyFrom(proto.bool_val());
      head.mutable_half_val()->CopyFrom(proto.half_val());
      head.mutable_string_val()->CopyFrom(proto.string_val());
      head.mutable_uint32_val()->CopyFrom(proto.uint32_val());
      head.mutable_uint64_val()->CopyFrom(proto.uint64_val());
    }
    auto t = decodeTensor(head);
    if (t.ok()) t->shape = shapeFromProto(proto.tensor_shape());
    if (!t.ok()) return t.status();
    if (t->shape.empty()) {
      for (std::int64_t i = 0; i < limit; ++i) values += (i ? " " : "") + elementText(*t, i);
      if (elements > limit) values += "...";
    } else {
      std::int64_t index = 0;
      printOneDim(*t, 0, limit, &index, &values);
      if (elements > limit) values += "...";
    }
  }
  return "Tensor<type: " + dtypeName(dt) + " shape: " + shapeString(shapeFromProto(proto.tensor_shape())) +
         " values: " + values + ">";
}
namespace {

std::string nodeInfo(const SummaryNode& n) {
  std::string shape = !n.has_shape ? "None" : partialShapeText(n.known_rank, n.shape);
  return "(name=" + n.name + ", type=" + tfTypeName(n.dtype) + "(" + std::to_string(static_cast<int>(n.dtype)) +
         "), shape=" + shape + ") ";
}

std::string opTypesText(const std::vector<std::pair<std::string, int>>& ops) {
  std::string out = "Op types used: ";
  for (size_t i = 0; i < ops.size(); ++i) out += (i ? ", " : "") + std::to_string(ops[i].second) + " " + ops[i].first;
  return out + "\n";
}

// A TF2 SavedModel: summarize_graph's lines for each signature's function
// instead of the outer graph, which only holds Placeholders, variable
// handles and the calls.
std::string formatObjectGraphText(const Summary& s) {
  std::string out = "SavedModel for TensorFlow " + (s.tensorflow_version.empty() ? "2" : s.tensorflow_version) +
                    ": " + std::to_string(s.signatures.size()) + " signatures, " + std::to_string(s.functions) +
                    " functions\n";
  if (s.signatures.empty())
    out += "No signatures: freeze a function of the object graph with gdstudio freeze --signature_name=PATH\n";
  for (const auto& sig : s.signatures) {
    out += "Signature " + sig.key + " (" + (sig.method.empty() ? "no method" : sig.method) + ") runs " +
           (sig.function.empty() ? "an unknown function" : sig.function) + ":\n";
    auto list = [&](const std::vector<SummaryNode>& nodes, const std::string& what) {
      if (nodes.empty()) return "No " + what + " spotted.\n";
      std::string line = "Found " + std::to_string(nodes.size()) + " " + (what == "inputs" || what == "outputs" ? "possible " : "") + what + ": ";
      for (const auto& n : nodes) line += nodeInfo(n);
      return line + "\n";
    };
    out += list(sig.inputs, "inputs");
    out += list(sig.outputs, "outputs");
    out += list(sig.variables, "variables");
    out += "Found " + std::to_string(sig.variable_parameters) + " (" + humanReadableNum(sig.variable_parameters) +
           ") variable parameters in " + std::to_string(sig.functions) + " functions\n";
    out += opTypesText(sig.op_types);
    out += "To use with gdstudio freeze try these arguments:\n";
    out += "gdstudio freeze --input_saved_model_dir=" + s.path + " --signature_name=" + sig.key +
           " --output_graph=frozen.pb\n";
  }
  if (!s.keras_model.empty()) out += "Keras model " + s.keras_model + "\n";
  out += "Found " + std::to_string(s.node_count) + " nodes in the outer graph, file size " +
         std::to_string(s.file_bytes) + " bytes (" + humanReadableNum(s.file_bytes) + ")\n";
  return out;
}

}  // namespace

std::string formatSummaryText(const Summary& s) {
  if (s.object_based) return formatObjectGraphText(s);
  std::string out;
  if (s.inputs.empty()) {
    out += "No inputs spotted.\n";
  } else {
    out += "Found " + std::to_string(s.inputs.size()) + " possible inputs: ";
    for (const auto& n : s.inputs) out += nodeInfo(n);
    out += "\n";
  }
  if (s.variables.empty()) {
    out += "No variables spotted.\n";
  } else {
    out += "Found " + std::to_string(s.variables.size()) + " variables: ";
    for (const auto& n : s.variables) out += nodeInfo(n);
    out += "\n";
  }
  if (s.outputs.empty()) {
    out += "No outputs spotted.\n";
  } else {
    out += "Found " + std::to_string(s.outputs.size()) + " possible outputs: ";
    for (const auto& [name, op] : s.outputs) out += "(name=" + name + ", op=" + op + ") ";
    out += "\n";
  }
  out += "Found " + std::to_string(s.const_parameters) + " (" + humanReadableNum(s.const_parameters) +
         ") const parameters, " + std::to_string(s.variable_parameters) + " (" +
         humanReadableNum(s.variable_parameters) + ") variable parameters, and " + std::to_string(s.control_edges) +
         " control_edges\n";
  // summarize_graph prints these without a line break; one per line here.
  for (const auto& [device, count] : s.devices)
    out += std::to_string(count) + " nodes assigned to device '" + device + "'\n";
  out += opTypesText(s.op_types);

  std::vector<std::string> layers, types, shapes;
  auto addLayer = [&](const SummaryNode& n) {
    layers.push_back(n.name);
    types.push_back(tfTypeName(n.dtype));
    shapes.push_back(n.has_shape && n.known_rank ? joinInts(n.shape, ",") : "");
  };
  for (const auto& n : s.inputs) addLayer(n);
  for (const auto& n : s.variables) addLayer(n);
  auto join = [](const std::vector<std::string>& v, const char* sep) {
    std::string r;
    for (size_t i = 0; i < v.size(); ++i) r += (i ? sep : "") + v[i];
    return r;
  };
  std::vector<std::string> outs;
  for (const auto& o : s.outputs) outs.push_back(o.first);
  out += "To use with gdstudio benchmark try these arguments:\n";
  out += "gdstudio benchmark --graph=" + s.path + " --show_flops --input_layer=" + join(layers, ",") +
         " --input_layer_type=" + join(types, ",") + " --input_layer_shape=" + join(shapes, ":") +
         " --output_layer=" + join(outs, ",") + "\n";

  // Extra lines, not printed by summarize_graph.
  if (!s.keras_model.empty()) out += "Keras model " + s.keras_model + "\n";
  out += "Found " + std::to_string(s.node_count) + " nodes, file size " + std::to_string(s.file_bytes) + " bytes (" +
         humanReadableNum(s.file_bytes) + ")\n";
  out += "Parameter bytes: " + std::to_string(s.const_bytes) + " (" + humanReadableNum(s.const_bytes) + ") const, " +
         std::to_string(s.variable_bytes) + " (" + humanReadableNum(s.variable_bytes) + ") variable (" +
         std::to_string(s.variable_shape_parameters) + " (" + humanReadableNum(s.variable_shape_parameters) +
         ") variable elements by shape)\n";
  out += "FLOPs: " + std::to_string(s.flops) + " (" + humanReadableNum(s.flops) + ")";
  if (!s.flops_batch_one.empty())
    out += ", with batch 1 for " + join(s.flops_batch_one, ", ") + " (unknown batch size; give --input_shape for another)";
  if (!s.flops_unknown_nodes.empty())
    out += ", not counting " + std::to_string(s.flops_unknown_nodes.size()) +
           " nodes with unknown shapes (give --input_shape)";
  out += "\n";

  // The likely inputs and outputs, and a benchmark command with only them
  // when summarize_graph's (every Placeholder and variable, every unconsumed
  // node) differs.
  std::vector<std::string> likely_in, likely_out, in_types, in_shapes;
  for (const auto& sug : s.suggested_inputs) {
    if (!sug.likely) continue;
    likely_in.push_back(sug.name);
    for (const auto& n : s.inputs)
      if (n.name == sug.name) {
        in_types.push_back(tfTypeName(n.dtype));
        Shape shape = n.has_shape && n.known_rank ? n.shape : Shape{};
        if (!shape.empty() && shape[0] < 0) shape[0] = 1;
        in_shapes.push_back(joinInts(shape, ","));
      }
  }
  for (const auto& sug : s.suggested_outputs)
    if (sug.likely) likely_out.push_back(sug.name);
  // Only when the ranking tells more than summarize_graph's lists: some
  // possible input or output is not a likely one.
  const bool ranked = likely_in.size() != s.suggested_inputs.size() || likely_out.size() != s.suggested_outputs.size();
  if (ranked) {
    out += "Suggested inputs (real data first): " + (likely_in.empty() ? std::string("none") : join(likely_in, ", ")) +
           "; outputs (ends of the main path): " + (likely_out.empty() ? std::string("none") : join(likely_out, ", "));
    if (s.auxiliary_nodes > 0)
      out += "; " + std::to_string(s.auxiliary_nodes) + " auxiliary nodes (checkpoints, initialization, gradients, summaries) ranked last";
    out += "\n";
  }
  if (ranked && !likely_in.empty() && !likely_out.empty() && (likely_in != layers || likely_out != outs))
    out += "gdstudio benchmark --graph=" + s.path + " --show_flops --input_layer=" + join(likely_in, ",") +
           " --input_layer_type=" + join(in_types, ",") + " --input_layer_shape=" + join(in_shapes, ":") +
           " --output_layer=" + join(likely_out, ",") + "\n";
  auto tensorLine = [](const char* kind, const TensorSummary& t) {
    return std::string(kind) + " tensor: name=" + t.name + ", type=" + tfTypeName(t.dtype) +
           ", shape=" + partialShapeText(t.known_rank, t.shape) +
           ", quantization=" + (t.quantization.empty() ? "none" : t.quantization) + "\n";
  };
  for (const auto& t : s.input_tensors) out += tensorLine("Input", t);
  for (const auto& t : s.output_tensors) out += tensorLine("Output", t);
  if (!s.signature_keys.empty()) {
    out += "Signatures:";
    for (const auto& k : s.signature_keys) out += " " + k;
    out += "\n";
  }
  return out;
}

Result<std::string> formatStructure(const tensorflow::GraphDef& graph) {
  auto order = executionOrder(graph);
  if (!order.ok()) return order.status();
  std::string out;
  for (int i : *order) {
    const NodeDef& n = graph.node(i);
    out += n.name() + " (" + n.op() + "): [";
    for (int k = 0; k < n.input_size(); ++k) out += (k ? ", " : "") + n.input(k);
    out += "]";
    if (n.op() == "Const") {
      const auto* v = findAttr(n, "value");
      if (v && v->value_case() == tensorflow::AttrValue::kTensor) {
        auto text = tensorDebugString(v->tensor());
        if (text.ok()) out += ", value=" + *text;
      }
    }
    out += "\n";
  }
  return out;
}
}  // namespace gds::model
