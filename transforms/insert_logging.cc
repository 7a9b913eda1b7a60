// insert_logging(op*, prefix*, show_op, show_name, message, first_n=-1,
// summarize=1024): TensorFlow's insert_logging.cc. For each chosen node
// whose outputs are used, a Print node "<name>__print__" passes output 0
// through and logs every used output; consumers of output 0 read the Print.
// The usual calibration step:
//   insert_logging(op=RequantizationRange, show_name=true, message="__requant_min_max:")
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "model/attr.h"
#include "transforms/builtin.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

using tensorflow::DataType;

// Output dtypes of a node, as far as the logging needs them.
DataType outputType(const NodeDef& node, int port) {
  const std::string& op = node.op();
  if (op == "RequantizationRange") return tensorflow::DT_FLOAT;
  const bool quantized_triple = op == "QuantizeV2" || op == "Requantize" || op.rfind("Quantized", 0) == 0;
  if (quantized_triple && port > 0) return tensorflow::DT_FLOAT;
  for (const char* attr : {"out_type", "Toutput", "T", "dtype"}) {
    if (const auto* t = model::findAttr(node, attr); t && t->value_case() == tensorflow::AttrValue::kType)
      return t->type();
  }
  return tensorflow::DT_FLOAT;
}

Result<GraphDef> insertLogging(const GraphDef& in, const TransformContext& ctx) {
  const std::unordered_set<std::string> ops(ctx.list("op").begin(), ctx.list("op").end());
  const std::vector<std::string>& prefixes = ctx.list("prefix");
  auto message = ctx.getOneString("message", "");
  if (!message.ok()) return message.status();
  auto show_name = ctx.getOneBool("show_name", false);
  if (!show_name.ok()) return show_name.status();
  auto show_op = ctx.getOneBool("show_op", false);
  if (!show_op.ok()) return show_op.status();
  auto first_n = ctx.getOneInt("first_n", -1);
  if (!first_n.ok()) return first_n.status();
  auto summarize = ctx.getOneInt("summarize", 1024);
  if (!summarize.ok()) return summarize.status();

  // Which outputs of each node are consumed.
  std::unordered_map<std::string, std::set<int>> used;
  for (const NodeDef& node : in.node())
    for (const std::string& input : node.input()) {
      InputParts p = inputParts(canonicalInputName(input));
      const std::string port = p.suffix.empty() ? "0" : p.suffix.substr(1);
      char* end = nullptr;
      const long value = std::strtol(port.c_str(), &end, 10);
      if (end == port.c_str() || *end != '\0')
        return ctx.error("Couldn't understand output number in " + input + " (node '" + node.name() + "')");
      used[p.node].insert(static_cast<int>(value));
    }

  std::map<std::string, std::string> renames;
  std::unordered_set<std::string> ignore;
  GraphDef logged;
  for (const NodeDef& node : in.node()) {
    *logged.add_node() = node;
    auto it = used.find(node.name());
    if (it == used.end() || it->second.empty()) continue;
    bool prefix_matches = false;
    for (const std::string& prefix : prefixes)
      if (node.name().compare(0, prefix.size(), prefix) == 0) prefix_matches = true;
    if (!((ops.empty() || ops.count(node.op())) && (prefixes.empty() || prefix_matches))) continue;
    NodeDef* print = logged.add_node();
    print->set_op("Print");
    print->set_name(node.name() + "__print__");
    std::string node_message;
    if (*show_op) node_message += ";" + node.op() + ";";
    if (*show_name) node_message += ";" + print->name() + ";";
    node_message += *message;
    setStringAttr(print, "message", node_message);
    (*print->mutable_attr())["first_n"].set_i(*first_n);
    (*print->mutable_attr())["summarize"].set_i(*summarize);
    print->add_input(node.name() + ":0");
    setTypeAttr(print, "T", outputType(node, 0));
    auto* u = (*print->mutable_attr())["U"].mutable_list();
    for (int port : it->second) {
      print->add_input(node.name() + ":" + std::to_string(port));
      u->add_type(outputType(node, port));
    }
    ignore.insert(print->name());
    renames[node.name() + ":0"] = print->name() + ":0";
  }
  *logged.mutable_library() = in.library();
  if (in.has_versions()) *logged.mutable_versions() = in.versions();
  GraphDef out;
  GDS_RETURN_IF_ERROR(renameNodeInputs(logged, renames, ignore, &out));
  return out;
}

}  // namespace

TransformInfo insertLoggingTransform() {
  return {"insert_logging",
          "Adds Print nodes that log the outputs of chosen nodes (for freeze_requantization_ranges)",
          {{"op", "log nodes of this op type (repeatable)"},
           {"prefix", "log nodes whose name starts with this (repeatable)"},
           {"show_op", "put ';<op>;' in the message"},
           {"show_name", "put ';<name>__print__;' in the message"},
           {"message", "text logged before the values"},
           {"first_n", "log only the first n runs (-1: all)"},
           {"summarize", "number of values logged per tensor (default 1024)"}},
          insertLogging};
}

}  // namespace gds::transforms
