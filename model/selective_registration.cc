#include "model/selective_registration.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "model/attr.h"
#include "model/tensor.h"

namespace gds::model {
namespace data {
extern const char tensorflow_kernel_classes[];
extern const std::size_t tensorflow_kernel_classes_size;
}  // namespace data

namespace {

struct KernelRow {
  std::vector<std::pair<std::string, std::string>> constraints;  // attr -> dtype name
  std::string kernel_class;
};

// op -> rows, from resources/ops/tensorflow_kernel_classes.txt.
const std::map<std::string, std::vector<KernelRow>>& kernelTable() {
  static const std::map<std::string, std::vector<KernelRow>> table = [] {
    std::map<std::string, std::vector<KernelRow>> t;
    std::istringstream in(std::string(data::tensorflow_kernel_classes, data::tensorflow_kernel_classes_size));
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      const size_t a = line.find('\t'), b = a == std::string::npos ? a : line.find('\t', a + 1);
      if (b == std::string::npos) continue;  // malformed rows are skipped (a test checks there are none)
      KernelRow row;
      const std::string constraints = line.substr(a + 1, b - a - 1);
      row.kernel_class = line.substr(b + 1);
      if (constraints != "*") {
        std::istringstream cs(constraints);
        std::string c;
        while (std::getline(cs, c, ',')) {
          const size_t eq = c.find('=');
          if (eq != std::string::npos) row.constraints.emplace_back(c.substr(0, eq), c.substr(eq + 1));
        }
      }
      t[line.substr(0, a)].push_back(std::move(row));
    }
    return t;
  }();
  return table;
}

// TensorFlow's attr defaults for the constraints the table uses, when a
// node leaves the attr out (older graphs): int32 indices and shapes.
std::string attrDtype(const tensorflow::NodeDef& node, const std::string& key) {
  if (const auto* t = findAttr(node, key); t && t->value_case() == tensorflow::AttrValue::kType)
    return dtypeName(t->type());
  static const std::set<std::string> kInt32Defaults = {"Tidx", "Tpaddings", "out_type", "Tdim", "Tmultiples",
                                                       "index_type", "Tlen", "Tblock_shape", "Tcrops", "TI"};
  if (key == "output_type") return "int64";  // ArgMax / ArgMin
  if (kInt32Defaults.count(key) && node.op() != "QuantizedConv2D" && node.op() != "QuantizedBiasAdd" &&
      node.op() != "QuantizedRelu" && node.op() != "QuantizedRelu6" && node.op() != "Requantize")
    return "int32";
  return "";
}

}  // namespace

std::string kernelClassFor(const tensorflow::NodeDef& node) {
  const auto& table = kernelTable();
  auto it = table.find(node.op());
  if (it == table.end()) return "";
  for (const auto& row : it->second) {
    bool ok = true;
    for (const auto& [attr, dtype] : row.constraints)
      if (attrDtype(node, attr) != dtype) ok = false;
    if (ok) return row.kernel_class;
  }
  return "";
}

Result<std::vector<OpKernel>> opsAndKernels(const std::vector<const tensorflow::GraphDef*>& graphs,
                                            const std::string& default_ops, std::vector<std::string>* warnings) {
  std::set<OpKernel> ops;
  std::set<std::string> warned;
  auto add = [&](const tensorflow::NodeDef& node) {
    const std::string kernel = kernelClassFor(node);
    if (kernel.empty() && warned.insert(node.op()).second && warnings)
      warnings->push_back("no kernel found for op " + node.op() +
                          " (not in gdstudio's table of TensorFlow 1.15 CPU kernel classes for its attributes; "
                          "--default_ops=" + node.op() + ":<class> adds it)");
    ops.insert({node.op(), kernel});
  };
  for (const auto* graph : graphs) {
    for (const auto& node : graph->node()) add(node);
    for (const auto& function : graph->library().function())
      for (const auto& node : function.node_def()) add(node);
  }
  if (!default_ops.empty() && default_ops != "all") {
    std::istringstream in(default_ops);
    std::string item;
    while (std::getline(in, item, ',')) {
      const size_t colon = item.find(':');
      if (colon == std::string::npos || colon == 0)
        return Status::Error("default_ops: expected OP:KERNEL_CLASS, got '" + item + "'");
      ops.insert({item.substr(0, colon), item.substr(colon + 1)});
    }
  }
  std::vector<OpKernel> out(ops.begin(), ops.end());
  return out;
}

Result<std::vector<OpKernel>> parseOpsList(const std::string& json_text, const std::string& what) {
  nlohmann::json j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_array() || j.empty())
    return Status::Error(what + ": expected a JSON list of [op, kernel class] pairs");
  std::set<OpKernel> ops;
  for (const auto& pair : j) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
      return Status::Error(what + ": expected [op, kernel class] pairs of strings, got " + pair.dump());
    ops.insert({pair[0].get<std::string>(), pair[1].get<std::string>()});
  }
  return std::vector<OpKernel>(ops.begin(), ops.end());
}

std::string selectiveRegistrationHeader(const std::vector<OpKernel>& ops_and_kernels, bool include_all,
                                        const std::string& program) {
  std::vector<std::string> lines = {"// This file was autogenerated by " + program, "#ifndef OPS_TO_REGISTER",
                                    "#define OPS_TO_REGISTER"};
  if (include_all) {
    lines.insert(lines.end(), {"#define SHOULD_REGISTER_OP(op) true", "#define SHOULD_REGISTER_OP_KERNEL(clz) true",
                               "#define SHOULD_REGISTER_OP_GRADIENT true"});
  } else {
    std::set<std::string> ops;
    for (const auto& k : ops_and_kernels) ops.insert(k.op);
    std::string block =
        "\n"
        "    namespace {\n"
        "      constexpr const char* skip(const char* x) {\n"
        "        return (*x) ? (*x == ' ' ? skip(x + 1) : x) : x;\n"
        "      }\n"
        "\n"
        "      constexpr bool isequal(const char* x, const char* y) {\n"
        "        return (*skip(x) && *skip(y))\n"
        "                   ? (*skip(x) == *skip(y) && isequal(skip(x) + 1, skip(y) + 1))\n"
        "                   : (!*skip(x) && !*skip(y));\n"
        "      }\n"
        "\n"
        "      template<int N>\n"
        "      struct find_in {\n"
        "        static constexpr bool f(const char* x, const char* const y[N]) {\n"
        "          return isequal(x, y[0]) || find_in<N - 1>::f(x, y + 1);\n"
        "        }\n"
        "      };\n"
        "\n"
        "      template<>\n"
        "      struct find_in<0> {\n"
        "        static constexpr bool f(const char* x, const char* const y[]) {\n"
        "          return false;\n"
        "        }\n"
        "      };\n"
        "    }  // end namespace\n"
        "    constexpr const char* kNecessaryOpKernelClasses[] = {\n";
    for (const auto& k : ops_and_kernels)
      if (!k.kernel_class.empty()) block += "\"" + k.kernel_class + "\",\n";
    block += "};";
    lines.push_back(block);
    lines.push_back(
        "#define SHOULD_REGISTER_OP_KERNEL(clz) (find_in<sizeof(kNecessaryOpKernelClasses) / "
        "sizeof(*kNecessaryOpKernelClasses)>::f(clz, kNecessaryOpKernelClasses))");
    lines.push_back("");
    lines.push_back("constexpr inline bool ShouldRegisterOp(const char op[]) {");
    lines.push_back("  return false");
    for (const auto& op : ops) lines.push_back("     || isequal(op, \"" + op + "\")");
    lines.push_back("  ;");
    lines.push_back("}");
    lines.push_back("#define SHOULD_REGISTER_OP(op) ShouldRegisterOp(op)");
    lines.push_back("");
    lines.push_back(std::string("#define SHOULD_REGISTER_OP_GRADIENT ") + (ops.count("SymbolicGradient") ? "true" : "false"));
  }
  lines.push_back("#endif");
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
  return out;
}

}  // namespace gds::model
