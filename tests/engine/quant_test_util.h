// Builds one-op graphs fed through Placeholders and runs them in a Plan, for
// the quantized kernel tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/rewrite/optimize_for_inference.h"
#include "engine/tensor.h"

namespace gds::engine::qtest {

template <typename T>
Tensor makeTensor(DataType dtype, const Shape& shape, const std::vector<T>& values) {
  Tensor t(dtype, shape);
  if (!values.empty()) std::memcpy(t.raw(), values.data(), values.size() * sizeof(T));
  return t;
}
inline Tensor scalarF(float v) { return makeTensor<float>(tensorflow::DT_FLOAT, {}, {v}); }

template <typename T>
std::vector<T> values(const Tensor& t) {
  std::vector<T> v(static_cast<std::size_t>(t.numElements()));
  if (!v.empty()) std::memcpy(v.data(), t.raw(), v.size() * sizeof(T));
  return v;
}
inline float scalarOf(const Tensor& t) { return t.data<float>()[0]; }

class OpGraph {
 public:
  std::string feed(const Tensor& value) {
    const std::string name = "in" + std::to_string(feeds_.size());
    tensorflow::NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op("Placeholder");
    (*n->mutable_attr())["dtype"].set_type(value.dtype());
    feeds_.push_back(name);
    values_.push_back(value);
    return name;
  }
  tensorflow::NodeDef* op(const std::string& type, const std::vector<std::string>& inputs) {
    tensorflow::NodeDef* n = graph_.add_node();
    n->set_name("op");
    n->set_op(type);
    for (const auto& i : inputs) n->add_input(i);
    return n;
  }
  static void setType(tensorflow::NodeDef* n, const std::string& attr, DataType t) {
    (*n->mutable_attr())[attr].set_type(t);
  }
  static void setInts(tensorflow::NodeDef* n, const std::string& attr, const std::vector<std::int64_t>& v) {
    auto* list = (*n->mutable_attr())[attr].mutable_list();
    for (auto x : v) list->add_i(x);
  }
  static void setString(tensorflow::NodeDef* n, const std::string& attr, const std::string& v) {
    (*n->mutable_attr())[attr].set_s(v);
  }
  static void setBool(tensorflow::NodeDef* n, const std::string& attr, bool v) { (*n->mutable_attr())[attr].set_b(v); }
  static void setInt(tensorflow::NodeDef* n, const std::string& attr, std::int64_t v) { (*n->mutable_attr())[attr].set_i(v); }

  Result<std::vector<Tensor>> run(int outputs, bool reference = false, int threads = 1) {
    std::vector<std::string> fetches;
    for (int i = 0; i < outputs; ++i) fetches.push_back("op:" + std::to_string(i));
    PlanOptions options;
    options.reference_kernels = reference;
    options.num_threads = threads;
    auto plan = compileForInference(graph_, feeds_, fetches, options);
    if (!plan.ok()) return plan.status();
    return (*plan)->run(values_);
  }

 private:
  tensorflow::GraphDef graph_;
  std::vector<std::string> feeds_;
  std::vector<Tensor> values_;
};

}  // namespace gds::engine::qtest
