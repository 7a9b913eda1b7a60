#include "ui/command_line.h"

namespace gds::ui {
namespace {

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

std::string dimsText(const IoMark& m) {
  std::string out;
  for (std::size_t i = 0; i < m.shape.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(m.shape[i]);
  }
  return out;
}

}  // namespace

std::string shellQuote(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./=:,+@%") ==
                          std::string::npos)
    return arg;
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

std::string stripUnusedStep(const std::vector<IoMark>& marks) {
  std::vector<const IoMark*> inputs;
  for (const auto& m : marks)
    if (m.kind == IoMark::Kind::Input) inputs.push_back(&m);
  if (inputs.empty()) return "";
  if (inputs.size() == 1) {
    const IoMark& m = *inputs[0];
    std::string step = "strip_unused_nodes(type=" + model::dtypeName(m.dtype);
    if (m.shape_known) step += ", shape=\"" + dimsText(m) + "\"";
    return step + ")";
  }
  std::string step = "strip_unused_nodes(";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const IoMark& m = *inputs[i];
    if (i) step += ", ";
    step += "name=" + m.name + ", type_for_name=" + model::dtypeName(m.dtype);
    if (m.shape_known) step += ", shape_for_name=\"" + dimsText(m) + "\"";
  }
  return step + ")";
}

std::string transformCommand(CommandTool tool, const std::string& in_graph, const std::string& out_graph,
                             const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                             const std::vector<std::string>& steps) {
  std::string cmd = tool == CommandTool::Gdstudio ? "gdstudio transform"
                                                  : "bazel-bin/tensorflow/tools/graph_transforms/transform_graph";
  cmd += " \\\n  --in_graph=" + shellQuote(in_graph);
  cmd += " \\\n  --out_graph=" + shellQuote(out_graph);
  cmd += " \\\n  --inputs=" + shellQuote(join(inputs, ","));
  cmd += " \\\n  --outputs=" + shellQuote(join(outputs, ","));
  cmd += " \\\n  --transforms='";
  for (std::size_t i = 0; i < steps.size(); ++i) {
    cmd += "\n    " + steps[i];
  }
  // A single quote inside a step would end the shell string; steps never
  // contain one after the parser's canonical spelling, which uses double quotes.
  cmd += "'";
  return cmd;
}

}  // namespace gds::ui
