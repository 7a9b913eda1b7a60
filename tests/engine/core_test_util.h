// Helpers for the interpreter-core tests: graphs from text, single-op runs,
// tensor construction and comparison.
#pragma once

#include <gtest/gtest.h>

#include <google/protobuf/text_format.h>

#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

#include "engine/rewrite/optimize_for_inference.h"

namespace gds::engine::coretest {

inline tensorflow::GraphDef parseGraph(const std::string& text) {
  tensorflow::GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &g)) << text;
  return g;
}

template <typename T>
Tensor make(DataType dtype, Shape shape, std::initializer_list<T> values) {
  Tensor t(dtype, shape);
  std::int64_t i = 0;
  for (T v : values) t.data<T>()[i++] = v;
  EXPECT_EQ(i, t.numElements()) << "value count does not match shape";
  return t;
}
inline Tensor F(Shape shape, std::initializer_list<float> v) { return make<float>(tensorflow::DT_FLOAT, shape, v); }
inline Tensor I(Shape shape, std::initializer_list<std::int32_t> v) {
  return make<std::int32_t>(tensorflow::DT_INT32, shape, v);
}
inline Tensor L(Shape shape, std::initializer_list<std::int64_t> v) {
  return make<std::int64_t>(tensorflow::DT_INT64, shape, v);
}
inline Tensor B(Shape shape, std::initializer_list<bool> v) { return make<bool>(tensorflow::DT_BOOL, shape, v); }

template <typename T>
std::vector<T> values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numElements());
}

// A graph with one Placeholder per input ("in0", "in1", ...) feeding node
// "op" of type `op` with the given extra attrs (text), run once.
struct OpRun {
  std::vector<Tensor> outputs;
  Status status;
};

inline std::string placeholderText(const std::string& name, DataType dtype) {
  return "node { name: '" + name + "' op: 'Placeholder' attr { key: 'dtype' value { type: " +
         tensorflow::DataType_Name(dtype) + " } } }\n";
}

inline OpRun runOp(const std::string& op, const std::vector<Tensor>& inputs, const std::string& attrs = "",
                   int num_outputs = 1, bool reference = false, const std::string& type_attr = "T") {
  std::string text;
  std::vector<std::string> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    text += placeholderText("in" + std::to_string(i), inputs[i].dtype());
    feeds.push_back("in" + std::to_string(i));
  }
  text += "node { name: 'op' op: '" + op + "'";
  for (size_t i = 0; i < inputs.size(); ++i) text += " input: 'in" + std::to_string(i) + "'";
  if (!type_attr.empty() && !inputs.empty())
    text += " attr { key: '" + type_attr + "' value { type: " + tensorflow::DataType_Name(inputs[0].dtype()) + " } }";
  text += " " + attrs + " }\n";
  auto g = std::make_shared<tensorflow::GraphDef>(parseGraph(text));
  std::vector<std::string> fetches;
  for (int i = 0; i < num_outputs; ++i) fetches.push_back("op:" + std::to_string(i));
  PlanOptions options;
  options.reference_kernels = reference;
  OpRun r;
  auto plan = compileForInference(std::shared_ptr<const tensorflow::GraphDef>(g), feeds, fetches, options);
  if (!plan.ok()) {
    r.status = plan.status();
    return r;
  }
  auto out = (*plan)->run(inputs);
  if (!out.ok()) {
    r.status = out.status();
    return r;
  }
  r.outputs = *out;
  return r;
}

// Runs op with the optimized and the reference kernels; both must agree.
inline Tensor runBoth(const std::string& op, const std::vector<Tensor>& inputs, const std::string& attrs = "") {
  OpRun fast = runOp(op, inputs, attrs, 1, false);
  OpRun ref = runOp(op, inputs, attrs, 1, true);
  EXPECT_TRUE(fast.status.ok()) << fast.status.message();
  EXPECT_TRUE(ref.status.ok()) << ref.status.message();
  if (!fast.status.ok() || !ref.status.ok()) return Tensor();
  const Tensor& a = fast.outputs[0];
  const Tensor& b = ref.outputs[0];
  EXPECT_EQ(a.shape(), b.shape());
  EXPECT_EQ(a.dtype(), b.dtype());
  if (a.shape() == b.shape() && a.dtype() == b.dtype()) {
    for (std::int64_t i = 0; i < a.numElements(); ++i)
      EXPECT_NEAR(a.valueAt(i), b.valueAt(i), 1e-5 * std::max(1.0, std::fabs(b.valueAt(i)))) << op << " element " << i;
  }
  return a;
}

}  // namespace gds::engine::coretest
