// Helpers for the transform tests: graphs are written as GraphDef text
// format; Const nodes come from a small builder to keep the literals short.
#pragma once

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph.pb.h"
#include "model/tensor.h"
#include "transforms/transform.h"

namespace gds::transforms::test {

inline tensorflow::GraphDef parseGraph(const std::string& text) {
  tensorflow::GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &g)) << text;
  return g;
}

inline std::string shapeText(const std::vector<long>& shape) {
  std::string s = "tensor_shape { ";
  for (long d : shape) s += "dim { size: " + std::to_string(d) + " } ";
  return s + "}";
}

// node { name: NAME op: "Const" ... float_val ... }
inline std::string floatConst(const std::string& name, const std::vector<long>& shape, const std::vector<float>& values) {
  std::string v;
  for (float x : values) v += "float_val: " + std::to_string(x) + " ";
  return "node { name: \"" + name +
         "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"value\" value { tensor { "
         "dtype: DT_FLOAT " + shapeText(shape) + " " + v + "} } } }\n";
}

inline std::string intConst(const std::string& name, const std::vector<long>& shape, const std::vector<int>& values) {
  std::string v;
  for (int x : values) v += "int_val: " + std::to_string(x) + " ";
  return "node { name: \"" + name +
         "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } attr { key: \"value\" value { tensor { "
         "dtype: DT_INT32 " + shapeText(shape) + " " + v + "} } } }\n";
}

inline std::vector<std::string> nodeNames(const tensorflow::GraphDef& g) {
  std::vector<std::string> out;
  for (const auto& n : g.node()) out.push_back(n.name());
  return out;
}

inline const tensorflow::NodeDef* findNode(const tensorflow::GraphDef& g, const std::string& name) {
  for (const auto& n : g.node())
    if (n.name() == name) return &n;
  return nullptr;
}

inline std::vector<std::string> inputsOf(const tensorflow::GraphDef& g, const std::string& name) {
  const auto* n = findNode(g, name);
  if (!n) return {"<missing node " + name + ">"};
  return {n->input().begin(), n->input().end()};
}

inline std::vector<float> floatValues(const tensorflow::GraphDef& g, const std::string& name) {
  const auto* n = findNode(g, name);
  if (!n || !n->attr().count("value")) return {};
  auto t = model::decodeTensor(n->attr().at("value").tensor());
  if (!t.ok() || t->dtype != tensorflow::DT_FLOAT) return {};
  return std::vector<float>(t->as<float>(), t->as<float>() + t->size());
}

// Runs a built-in transform by name.
inline Result<tensorflow::GraphDef> run(const std::string& name, const tensorflow::GraphDef& g,
                                        TransformParams params = {}, std::vector<std::string> inputs = {},
                                        std::vector<std::string> outputs = {}) {
  const TransformInfo* info = TransformRegistry::builtin().find(name);
  if (!info) return Status::Error("no transform " + name);
  return info->fn(g, TransformContext(name, std::move(inputs), std::move(outputs), std::move(params)));
}

}  // namespace gds::transforms::test
