#include "model/dot_export.h"

#include <functional>
#include <map>
#include <memory>
#include <sstream>

#include "model/op_colours.h"
#include "model/shape_inference.h"

namespace gds::model {
namespace {

// DOT double-quoted string: escape quotes and backslashes.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}


}  // namespace

std::string graphToDot(const tensorflow::GraphDef& graph) {
  // Same text as graph_to_dot.py: names are written unescaped, as it does.
  std::string out = "digraph graphname {\n";
  for (const auto& node : graph.node()) {
    out += "  \"" + node.name() + "\" [label=\"" + node.op() + "\"];\n";
    for (const auto& input : node.input()) {
      std::string name = input.substr(0, input.find(':'));
      if (!name.empty() && name[0] == '^') name.erase(0, 1);
      out += "  \"" + name + "\" -> \"" + node.name() + "\";\n";
    }
  }
  out += "}\n";
  return out;
}

std::string richDot(const Graph& graph, bool left_to_right) {
  const auto shapes = inferShapes(graph);
  // Scope tree: clusters nest like the name scopes.
  struct Scope {
    std::map<std::string, std::unique_ptr<Scope>> children;
    std::vector<int> nodes;
  };
  Scope root;
  for (int i = 0; i < graph.size(); ++i) {
    const std::string& name = graph.name(i);
    Scope* s = &root;
    size_t start = 0, slash;
    while ((slash = name.find('/', start)) != std::string::npos) {
      auto& child = s->children[name.substr(0, slash)];
      if (!child) child = std::make_unique<Scope>();
      s = child.get();
      start = slash + 1;
    }
    s->nodes.push_back(i);
  }
  std::ostringstream out;
  out << "digraph graphname {\n"
      << "  rankdir=" << (left_to_right ? "LR" : "TB") << ";\n"
      << "  node [shape=box, style=\"rounded,filled\", fontname=\"DejaVu Sans\", fontsize=10];\n"
      << "  edge [color=\"#606060\", fontname=\"DejaVu Sans\", fontsize=8];\n";
  int cluster = 0;
  std::function<void(const Scope&, const std::string&, int)> writeScope = [&](const Scope& s, const std::string& path,
                                                                         int depth) {
    std::string indent(2 * depth + 2, ' ');
    for (int i : s.nodes) {
      const CategoryColours st = categoryColours(OpRegistry::instance().category(graph.op(i)));
      std::string shape_text = shapes.at(i, 0).str();
      out << indent << quoted(graph.name(i)) << " [label=" << quoted(graph.op(i) + "\n" + graph.name(i) + "\n" + shape_text)
          << ", fillcolor=" << quoted(st.header.hex()) << ", fontcolor=" << quoted(st.text.hex()) << "];\n";
    }
    for (const auto& [child_path, child] : s.children) {
      out << indent << "subgraph cluster_" << cluster++ << " {\n"
          << indent << "  label=" << quoted(child_path) << ";\n"
          << indent << "  style=\"rounded,filled\"; fillcolor=" << quoted(scopeFrameFill(depth).hex()) << "; color="
          << quoted(scopeFrameBorder().hex()) << ";\n";
      writeScope(*child, child_path, depth + 1);
      out << indent << "}\n";
    }
    (void)path;
  };
  writeScope(root, "", 0);
  for (int v = 0; v < graph.size(); ++v)
    for (const auto& in : graph.inputs(v)) {
      out << "  " << quoted(graph.name(in.node)) << " -> " << quoted(graph.name(v));
      if (in.control) {
        out << " [style=dashed, color=\"#a0a0a0\"]";
      } else {
        out << " [label=" << quoted(shapes.at(in.node, in.port).str()) << "]";
      }
      out << ";\n";
    }
  out << "}\n";
  return out.str();
}

}  // namespace gds::model
