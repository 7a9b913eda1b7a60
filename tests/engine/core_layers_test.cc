// engine/'s layers (docs/architecture.md), read from the sources: every
// #include "engine/..." of a file in engine/ names a header of the file's own
// layer or of a lower one, and the include graph has no cycle, between files
// or between components (a header with its .cc). A new file at
// engine/'s top must be given a layer here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace gds {
namespace {

namespace fs = std::filesystem;

// Lowest first. Folders by prefix; the runtime core at engine/'s top is two
// layers, the kernel interface below the kernels and the plan above them.
// Layers of one rank are siblings and include none of each other: the 8-bit
// arithmetics (TensorFlow's quantized ops, TensorFlow Lite's dialect) share
// only what lowp/ holds, and their kernels only what kernels/ holds.
struct Layer {
  const char* name;
  int rank;
  std::vector<std::string> members;  // "ops/" (a folder) or "plan" (a stem at the top)
};
const std::vector<Layer>& layers() {
  static const std::vector<Layer> kLayers = {
      {"core", 0, {"allocation", "cpu_features", "tensor", "thread_pool", "buffer_pool", "kernel"}},
      {"ops", 1, {"ops/"}},
      {"lowp", 2, {"lowp/"}},
      {"quantized", 3, {"quantized/"}},
      {"tflite", 3, {"tflite/"}},
      {"kernels", 4, {"kernels/"}},
      {"quantized kernels", 5, {"quantized/kernels/"}},
      {"tflite kernels", 5, {"tflite/kernels/"}},
      {"runtime", 6,
       {"builtin_kernels", "interpreter_ops", "plan", "plan_impl", "plan_compiler", "executor", "kernel_choice"}},
      {"rewrite", 7, {"rewrite/"}},
      {"eval", 8, {"eval/"}},
  };
  return kLayers;
}

// Whether a file of layer `from` may include a header of layer `to`: its
// own layer or one of a lower rank.
bool mayInclude(int from, int to) {
  return from == to || layers()[static_cast<std::size_t>(to)].rank < layers()[static_cast<std::size_t>(from)].rank;
}

// The layer of a path relative to engine/ ("ops/conv.h"), -1 if none: the
// longest matching folder, or the stem of a top-level file.
int layerOf(const std::string& rel) {
  int best = -1;
  std::size_t best_len = 0;
  const std::string stem = rel.substr(0, rel.rfind('.'));
  for (std::size_t i = 0; i < layers().size(); ++i)
    for (const std::string& m : layers()[i].members) {
      const bool folder = m.back() == '/';
      if ((folder && rel.compare(0, m.size(), m) == 0 && m.size() > best_len) ||
          (!folder && rel.find('/') == std::string::npos && stem == m)) {
        best = static_cast<int>(i);
        best_len = folder ? m.size() : rel.size();
      }
    }
  return best;
}

// engine/ file (relative path) -> the engine/ headers it includes.
std::map<std::string, std::vector<std::string>> includeGraph(const fs::path& engine) {
  std::map<std::string, std::vector<std::string>> graph;
  for (const auto& entry : fs::recursive_directory_iterator(engine)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".cc")) continue;
    const std::string rel = fs::relative(entry.path(), engine).generic_string();
    auto& edges = graph[rel];
    std::ifstream in(entry.path());
    const std::string prefix = "#include \"engine/";
    for (std::string line; std::getline(in, line);)
      if (line.compare(0, prefix.size(), prefix) == 0)
        edges.push_back(line.substr(prefix.size(), line.rfind('"') - prefix.size()));
  }
  return graph;
}

TEST(EngineLayers, EveryIncludePointsToTheSameOrALowerLayer) {
  const fs::path engine = fs::path(GDS_SOURCE_DIR) / "engine";
  const auto graph = includeGraph(engine);
  ASSERT_GT(graph.size(), 100u) << "read " << engine;
  for (const auto& [file, includes] : graph) {
    const int from = layerOf(file);
    EXPECT_GE(from, 0) << "engine/" << file << " is in no layer (tests/engine/core_layers_test.cc)";
    for (const std::string& h : includes) {
      EXPECT_TRUE(graph.count(h)) << "engine/" << file << " includes engine/" << h << ", which does not exist";
      const int to = layerOf(h);
      if (from < 0 || to < 0) continue;
      EXPECT_TRUE(mayInclude(from, to)) << "engine/" << file << " (" << layers()[static_cast<std::size_t>(from)].name
                                        << ") includes engine/" << h << " ("
                                        << layers()[static_cast<std::size_t>(to)].name
                                        << "), a higher or a sibling layer";
    }
  }
  // The rule itself: folders by their longest prefix, siblings apart, the
  // shared 8-bit layer below both arithmetics.
  EXPECT_EQ(layers()[static_cast<std::size_t>(layerOf("tflite/kernels/conv.cc"))].name, std::string("tflite kernels"));
  EXPECT_FALSE(mayInclude(layerOf("tflite/fast.cc"), layerOf("quantized/ops.h")));
  EXPECT_FALSE(mayInclude(layerOf("quantized/ops.cc"), layerOf("tflite/int8.h")));
  EXPECT_FALSE(mayInclude(layerOf("quantized/kernels/nn.cc"), layerOf("tflite/kernels/kernel_util.h")));
  EXPECT_TRUE(mayInclude(layerOf("tflite/fast.cc"), layerOf("lowp/gemm.h")));
  EXPECT_TRUE(mayInclude(layerOf("quantized/ops.cc"), layerOf("lowp/conv.h")));
  EXPECT_FALSE(mayInclude(layerOf("lowp/conv.cc"), layerOf("quantized/quantization.h")));
}

// The first include cycle found ("a -> b -> a", each file with `prefix`), or "".
std::string firstCycle(const std::map<std::string, std::vector<std::string>>& graph,
                       const std::string& prefix = "engine/") {
  // Iterative depth-first search; a header met again while on the path
  // closes a cycle.
  std::map<std::string, int> state;  // 1: on the path, 2: done
  for (const auto& start : graph) {
    if (state[start.first]) continue;
    std::vector<std::pair<std::string, std::size_t>> path = {{start.first, 0}};
    state[start.first] = 1;
    while (!path.empty()) {
      const std::string file = path.back().first;
      const auto it = graph.find(file);
      if (it == graph.end() || path.back().second == it->second.size()) {
        state[file] = 2;
        path.pop_back();
        continue;
      }
      const std::string h = it->second[path.back().second++];
      if (state[h] == 1) {
        std::string cycle;
        for (const auto& p : path) cycle += prefix + p.first + " -> ";
        return cycle + prefix + h;
      }
      if (state[h] == 0) {
        state[h] = 1;
        path.push_back({h, 0});
      }
    }
  }
  return "";
}

// The same graph between components: a header, its .cc and its private half
// (X_impl.h, shared by X's .cc files) are one node named after X's header, so
// a.cc including b.h while b.cc includes a.h is a cycle, as the rewrites and
// the plan once were.
std::map<std::string, std::vector<std::string>> componentGraph(
    const std::map<std::string, std::vector<std::string>>& graph) {
  const auto component = [](const std::string& file) {
    std::string stem = file.substr(0, file.rfind('.'));
    const std::string impl = "_impl";
    if (stem.size() > impl.size() && stem.compare(stem.size() - impl.size(), impl.size(), impl) == 0)
      stem.resize(stem.size() - impl.size());
    return stem + ".h";
  };
  std::map<std::string, std::set<std::string>> edges;
  for (const auto& [file, includes] : graph) {
    const std::string from = component(file);
    auto& out = edges[from];
    for (const std::string& h : includes)
      if (component(h) != from) out.insert(component(h));
  }
  std::map<std::string, std::vector<std::string>> result;
  for (const auto& [from, to] : edges) result[from].assign(to.begin(), to.end());
  return result;
}

TEST(EngineLayers, TheIncludeGraphHasNoCycle) {
  const auto graph = includeGraph(fs::path(GDS_SOURCE_DIR) / "engine");
  EXPECT_EQ(firstCycle(graph), "");
  EXPECT_EQ(firstCycle(componentGraph(graph)), "") << "(a header and its .cc as one node)";
  // Components: the .cc files' includes count, a private half does not
  // close a cycle with its own header.
  EXPECT_EQ(firstCycle(componentGraph({{"a.h", {}}, {"a.cc", {"a.h", "b.h"}}, {"b.h", {}}, {"b.cc", {"a.h"}}})),
            "engine/a.h -> engine/b.h -> engine/a.h");
  EXPECT_EQ(firstCycle(componentGraph({{"p.h", {}}, {"p_impl.h", {"p.h"}}, {"p.cc", {"p_impl.h"}}})), "");
  // The search finds one where there is one.
  EXPECT_EQ(firstCycle({{"a.h", {"b.h"}}, {"b.h", {"c.h"}}, {"c.h", {"a.h"}}}),
            "engine/a.h -> engine/b.h -> engine/c.h -> engine/a.h");
  EXPECT_EQ(firstCycle({{"a.h", {"b.h", "c.h"}}, {"b.h", {"c.h"}}, {"c.h", {}}}), "");
}

// Every folder's units, as engine/'s: a format adapter below the loader that
// picks it, a converter's phases below its driver, items below their scene.
TEST(ProjectLayers, NoUnitsIncludeEachOther) {
  std::map<std::string, std::vector<std::string>> graph;
  for (const std::string folder : {"model", "engine", "transforms", "device", "graphview", "ui", "app", "python"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(GDS_SOURCE_DIR) / folder)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cc")) continue;
      auto& edges = graph[fs::relative(entry.path(), GDS_SOURCE_DIR).generic_string()];
      std::ifstream in(entry.path());
      for (std::string line; std::getline(in, line);)
        if (line.compare(0, 10, "#include \"") == 0 && line.find('/', 10) != std::string::npos)
          edges.push_back(line.substr(10, line.rfind('"') - 10));
    }
  }
  ASSERT_GT(graph.size(), 500u);
  EXPECT_EQ(firstCycle(componentGraph(graph), ""), "") << "(a header and its .cc as one node)";
}


// The folders' layers (docs/architecture.md): model < engine < transforms <
// device < graphview < ui < app. No file includes a header of a folder above
// its own, and the libraries below graphview never include Qt, so the CLI
// (`gdstudio dot` among others) builds without it. The Python module stands
// beside app/ on model/, engine/ and transforms/ only, reading the kernel
// choice from the environment as app/ does (app/kernel_environment.h).
TEST(ProjectLayers, NoFolderIncludesAHigherOneAndNoQtBelowGraphview) {
  const std::vector<std::string> folders = {"model", "engine", "transforms", "device", "graphview", "ui", "app"};
  const auto rank = [&folders](const std::string& folder) {
    for (std::size_t i = 0; i < folders.size(); ++i)
      if (folders[i] == folder) return static_cast<int>(i);
    return -1;
  };
  int files = 0;
  for (const std::string& folder : folders) {
    const fs::path dir = fs::path(GDS_SOURCE_DIR) / folder;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cc" && ext != ".cpp")) continue;
      ++files;
      const std::string rel = folder + "/" + fs::relative(entry.path(), dir).generic_string();
      std::ifstream in(entry.path());
      for (std::string line; std::getline(in, line);) {
        if (line.compare(0, 10, "#include \"") == 0) {
          const std::string target = line.substr(10, line.find('/', 10) - 10);
          const int to = rank(target);
          EXPECT_LE(to, rank(folder)) << rel << " includes " << line.substr(9) << ", a folder above " << folder;
        } else if (rank(folder) < rank("graphview") && line.compare(0, 10, "#include <") == 0 && line.size() > 11 &&
                   line[10] == 'Q') {
          ADD_FAILURE() << rel << " includes Qt (" << line.substr(9) << "); only graphview/ and ui/ may";
        }
      }
    }
  }
  EXPECT_GT(files, 300) << "read " << GDS_SOURCE_DIR;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(GDS_SOURCE_DIR) / "python")) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".cc")) continue;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);)
      if (line.compare(0, 10, "#include \"") == 0) {
        const std::string target = line.substr(10, line.find('/', 10) - 10);
        // A program reads the environment's kernel choice where it starts:
        // the module as gdstudio's main does.
        const bool environment = line == "#include \"app/kernel_environment.h\"";
        EXPECT_TRUE(target == "model" || target == "engine" || target == "transforms" || target == "python" ||
                    environment || line.find('/', 10) == std::string::npos)
            << entry.path().filename().string() << " includes " << line.substr(9)
            << ": python/ uses model/, engine/ and transforms/ only (and app/kernel_environment.h)";
      }
  }
  // The DOT writer is plain text below graphview: the CLI's `dot` and the
  // window's export share it.
  EXPECT_TRUE(fs::exists(fs::path(GDS_SOURCE_DIR) / "model" / "dot_export.h"));
  EXPECT_FALSE(fs::exists(fs::path(GDS_SOURCE_DIR) / "graphview" / "dot_export.h"));
}

}  // namespace
}  // namespace gds
