// STRIDED_SLICE and SLICE: the kernels follow TensorFlow Lite's index rules
// (strided_slice_logic.h: begin and end clamped, masks, shrunk axes,
// negative strides) on hand-computed values, and Arm NN 20.08
// computes the same from the same one-operator files; the converter turns
// TensorFlow's slices (an ellipsis, new axes, fewer entries than dimensions,
// which TensorFlow takes as trailing dimensions whole) into what TFLite's
// kernel computes the same values from.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "engine/plan.h"
#include "model/io.h"
#include "model/tflite/dialect.h"
#include "model/tflite/options.h"
#include "model/tflite/writer.h"
#include "tests/armnn_util.h"
#include "tests/test_util.h"
#include "tests/transforms/graph_text.h"
#include "transforms/tflite/convert.h"
#include "transforms/transform_utils.h"

namespace gds::transforms::tflite {
namespace {

namespace mt = gds::model::tflite;
using engine::Tensor;
using model::HostTensor;
using model::Shape;

HostTensor iota(tensorflow::DataType dtype, const Shape& shape) {
  HostTensor t = HostTensor::zeros(dtype, shape);
  for (std::int64_t i = 0; i < t.size(); ++i) {
    if (dtype == tensorflow::DT_FLOAT)
      t.as<float>()[i] = static_cast<float>(i);
    else
      t.as<std::int8_t>()[i] = static_cast<std::int8_t>(i - 12);
  }
  return t;
}

HostTensor int32s(const std::vector<int>& v) {
  HostTensor t = HostTensor::zeros(tensorflow::DT_INT32, {static_cast<std::int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) t.as<std::int32_t>()[i] = v[i];
  return t;
}

struct SliceCase {
  std::string what;
  const char* op;                         // tfl.strided_slice or tfl.slice
  std::vector<std::vector<int>> indices;  // begin, end, strides (slice: begin, size)
  int begin_mask = 0, end_mask = 0, shrink_axis_mask = 0;
  Shape out_shape;
  std::vector<float> expected;  // of the float input 0..23 shaped [2,3,4]
  bool armnn = true;            // Arm NN 20.08 runs it (it has no empty tensors)
};

// A one-operator dialect graph slicing the [2,3,4] input "x".
tensorflow::GraphDef sliceGraph(const SliceCase& c, tensorflow::DataType dtype) {
  tensorflow::GraphDef g;
  tensorflow::NodeDef* x = g.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(dtype);
  model::shapeToProto({2, 3, 4}, (*x->mutable_attr())["shape"].mutable_shape());
  (*x->mutable_attr())[mt::kInputIndexAttr].set_i(0);
  mt::Quantization q;
  q.scale = {0.5f};
  q.zero_point = {-3};
  if (dtype == tensorflow::DT_INT8) mt::setQuantization(x, 0, q);
  tensorflow::NodeDef op;
  op.set_name("y");
  op.set_op(c.op);
  op.add_input("x");
  const bool strided = std::string(c.op) == "tfl.strided_slice";
  for (std::size_t k = 0; k < c.indices.size(); ++k) {
    const std::string name = std::string(strided ? (k == 0   ? "begin"
                                                    : k == 1 ? "end"
                                                             : "strides")
                                                 : (k == 0 ? "begin" : "size"));
    *g.add_node() = makeConst(name, int32s(c.indices[k]));
    op.add_input(name);
  }
  EXPECT_TRUE(mt::optionsToAttrs(strided ? "StridedSliceOptions" : "SliceOptions", nullptr, &op).ok());
  auto& attrs = *op.mutable_attr();
  if (strided) {
    attrs["begin_mask"].set_i(c.begin_mask);
    attrs["end_mask"].set_i(c.end_mask);
    attrs["shrink_axis_mask"].set_i(c.shrink_axis_mask);
  }
  attrs[mt::kOutputTypesAttr].mutable_list()->add_type(dtype);
  model::shapeToProto(c.out_shape, attrs[mt::kOutputShapesAttr].mutable_list()->add_shape());
  attrs[mt::kOutputIndexAttr].mutable_list()->add_i(0);
  if (dtype == tensorflow::DT_INT8) mt::setQuantization(&op, 0, q);
  *g.add_node() = op;
  return g;
}

Result<HostTensor> runDialect(const tensorflow::GraphDef& g, const HostTensor& x) {
  auto plan = engine::Plan::compile(g, {"x"}, {"y"});
  if (!plan.ok()) return plan.status();
  auto out = (*plan)->run({Tensor::fromHost(x)});
  if (!out.ok()) return out.status();
  return out->at(0).toHost();
}

TEST(TfliteSlice, KernelsFollowTfliteIndexRulesAndArmNnAgrees) {
  const bool armnn = gds::test::armnnUnavailable().empty();
  const std::vector<SliceCase> cases = {
      {"x[:, 1:3, 0:4:2]",
       "tfl.strided_slice",
       {{0, 1, 0}, {2, 3, 4}, {1, 1, 2}},
       0,
       0,
       0,
       {2, 2, 2},
       {4, 6, 8, 10, 16, 18, 20, 22}},
      {"x[:, :, ::-1] (masks, negative stride)",
       "tfl.strided_slice",
       {{0, 0, -1}, {0, 0, 0}, {1, 1, -1}},
       3,
       7,
       0,
       {2, 3, 4},
       {3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20}},
      {"x[1, -1, :] (shrunk axes, negative index)",
       "tfl.strided_slice",
       {{1, -1, 0}, {2, 0, 4}, {1, 1, 1}},
       0,
       0,
       3,
       {4},
       {20, 21, 22, 23}},
      {"x[1:0:-1, 2:-4:-2, 3:1:-1] (backward)",
       "tfl.strided_slice",
       {{1, 2, 3}, {0, -4, 1}, {-1, -2, -1}},
       0,
       0,
       0,
       {1, 2, 2},
       {23, 22, 15, 14}},
      // begin 7 clamps to 4 (StridedSliceStartForAxis): nothing selected.
      {"begin past the end", "tfl.strided_slice", {{0, 0, 7}, {2, 3, 9}, {1, 1, 1}}, 0, 0, 0, {2, 3, 0}, {}, false},
      {"slice begin [0,1,1] size [2,2,2]",
       "tfl.slice",
       {{0, 1, 1}, {2, 2, 2}},
       0,
       0,
       0,
       {2, 2, 2},
       {5, 6, 9, 10, 17, 18, 21, 22}},
      // Arm NN 20.08's SLICE takes no -1 (the converter writes the size).
      {"slice begin [1,1,1] size [-1,-1,2]",
       "tfl.slice",
       {{1, 1, 1}, {-1, -1, 2}},
       0,
       0,
       0,
       {1, 2, 2},
       {17, 18, 21, 22},
       false},
  };
  const std::string dir = gds::test::tempDir();
  int file = 0;
  for (const SliceCase& c : cases) {
    for (tensorflow::DataType dtype : {tensorflow::DT_FLOAT, tensorflow::DT_INT8}) {
      SCOPED_TRACE(c.what + (dtype == tensorflow::DT_INT8 ? " int8" : " float"));
      const tensorflow::GraphDef g = sliceGraph(c, dtype);
      const HostTensor x = iota(dtype, {2, 3, 4});
      auto y = runDialect(g, x);
      ASSERT_TRUE(y.ok()) << y.error();
      EXPECT_EQ(y->shape, c.out_shape);
      std::vector<float> got;
      for (std::int64_t i = 0; i < y->size(); ++i)
        got.push_back(static_cast<float>(y->valueAt(i)) + (dtype == tensorflow::DT_INT8 ? 12.0f : 0.0f));
      EXPECT_EQ(got, c.expected);
      if (!armnn || !c.armnn) continue;
      const std::string path = dir + "/slice" + std::to_string(file++) + ".tflite";
      ASSERT_TRUE(mt::saveTflite(g, path).ok());
      const gds::test::ArmnnResult r = gds::test::armnnRun(path, {x});
      ASSERT_TRUE(r.ok) << r.error;
      ASSERT_EQ(r.outputs.size(), 1u);
      EXPECT_EQ(r.outputs[0].shape, y->shape);
      ASSERT_EQ(r.outputs[0].size(), y->size());
      for (std::int64_t i = 0; i < y->size(); ++i) EXPECT_EQ(r.outputs[0].valueAt(i), y->valueAt(i)) << i;
    }
  }
  if (!armnn) GTEST_SKIP() << "checked against the hand-computed values only: Arm NN unavailable";
}

TEST(TfliteSlice, ErrorsNameTheIndexAndTheInput) {
  SliceCase shrink{"", "tfl.strided_slice", {{0, 3, 0}, {1, 4, 4}, {1, 1, 1}}, 0, 0, 2, {2, 4}, {}};
  auto r = runDialect(sliceGraph(shrink, tensorflow::DT_FLOAT), iota(tensorflow::DT_FLOAT, {2, 3, 4}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("index 3 of shrunk dimension 1 is out of range for size 3 (input [2,3,4])"),
            std::string::npos)
      << r.error();
  SliceCase short_spec{"", "tfl.strided_slice", {{1}, {2}, {1}}, 0, 0, 0, {1, 3, 4}, {}};
  r = runDialect(sliceGraph(short_spec, tensorflow::DT_FLOAT), iota(tensorflow::DT_FLOAT, {2, 3, 4}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("begin, end and strides need one entry per input dimension (3), got 1, 1 and 1 (input "
                           "[2,3,4])"),
            std::string::npos)
      << r.error();
  SliceCase zero{"", "tfl.strided_slice", {{0, 0, 0}, {1, 1, 1}, {1, 0, 1}}, 0, 0, 0, {1, 1, 1}, {}};
  r = runDialect(sliceGraph(zero, tensorflow::DT_FLOAT), iota(tensorflow::DT_FLOAT, {2, 3, 4}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("strides[1] is 0; strides must be non-zero"), std::string::npos) << r.error();
  SliceCase slice{"", "tfl.slice", {{0, 2, 0}, {1, 2, 4}}, 0, 0, 0, {1, 2, 4}, {}};
  r = runDialect(sliceGraph(slice, tensorflow::DT_FLOAT), iota(tensorflow::DT_FLOAT, {2, 3, 4}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("begin 2 and size 2 of dimension 1 do not fit input [2,3,4]"), std::string::npos)
      << r.error();
}

// TensorFlow slices through the converter: the exported model computes what
// TensorFlow's StridedSlice computes (gdstudio's TensorFlow kernel, tested
// against TensorFlow's semantics in ops_array_test.cc), and so does Arm NN.
TEST(TfliteSlice, ConverterMakesTensorFlowSlicesExplicit) {
  struct TfCase {
    std::string what;
    std::vector<int> begin, end, strides;
    int begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
  };
  const std::vector<TfCase> cases = {
      {"x[1:2] (the trailing dimensions whole)", {1}, {2}, {1}, 0, 0, 0, 0, 0},
      {"x[..., 1] (ellipsis, shrunk)", {0, 1}, {0, 2}, {1, 1}, 0, 0, 1, 0, 2},
      {"x[:, tf.newaxis, 1:] (new axis)", {0, 0, 1}, {0, 0, 0}, {1, 1, 1}, 1, 5, 0, 2, 0},
      {"x[::-1, ..., ::2]", {0, 0, 0}, {0, 0, 0}, {-1, 1, 2}, 5, 5, 2, 0, 0},
      {"x[1, ..., tf.newaxis, 2:0:-1]", {1, 0, 0, 2}, {2, 0, 0, 0}, {1, 1, 1, -1}, 0, 0, 2, 4, 1},
  };
  const bool armnn = gds::test::armnnUnavailable().empty();
  const std::string dir = gds::test::tempDir();
  int file = 0;
  for (const TfCase& c : cases) {
    SCOPED_TRACE(c.what);
    std::string text =
        "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } "
        "attr { key: \"shape\" value { shape { dim { size: 2 } dim { size: 3 } dim { size: 4 } } } } }\n";
    const long n = static_cast<long>(c.begin.size());
    text += transforms::test::intConst("b", {n}, c.begin);
    text += transforms::test::intConst("e", {n}, c.end);
    text += transforms::test::intConst("s", {n}, c.strides);
    text +=
        "node { name: \"y\" op: \"StridedSlice\" input: \"x\" input: \"b\" input: \"e\" input: \"s\" "
        "attr { key: \"T\" value { type: DT_FLOAT } } attr { key: \"Index\" value { type: DT_INT32 } }";
    for (const auto& [mask, value] : {std::pair<const char*, int>{"begin_mask", c.begin_mask},
                                      {"end_mask", c.end_mask},
                                      {"ellipsis_mask", c.ellipsis_mask},
                                      {"new_axis_mask", c.new_axis_mask},
                                      {"shrink_axis_mask", c.shrink_axis_mask}})
      text += std::string(" attr { key: \"") + mask + "\" value { i: " + std::to_string(value) + " } }";
    text += " }\n";
    // A consumer, so that the slice is not the model's output by itself.
    text += "node { name: \"z\" op: \"Relu\" input: \"y\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
    const tensorflow::GraphDef g = transforms::test::parseGraph(text);
    const HostTensor x = iota(tensorflow::DT_FLOAT, {2, 3, 4});
    auto plan = engine::Plan::compile(g, {"x"}, {"z"});
    ASSERT_TRUE(plan.ok()) << plan.error();
    auto tf = (*plan)->run({Tensor::fromHost(x)});
    ASSERT_TRUE(tf.ok()) << tf.error();
    const HostTensor expected = tf->at(0).toHost();
    ConvertOptions o;
    o.inputs = {"x"};
    o.outputs = {"z"};
    auto converted = convertToTflite(g, o);
    ASSERT_TRUE(converted.ok()) << converted.error();
    for (const auto& node : converted->graph.node())
      if (node.op() == "tfl.strided_slice") {
        EXPECT_EQ(node.attr().at("ellipsis_mask").i(), 0);
        EXPECT_EQ(node.attr().at("new_axis_mask").i(), 0);
      }
    const std::string path = dir + "/tf" + std::to_string(file++) + ".tflite";
    ASSERT_TRUE(mt::saveTflite(converted->graph, path).ok());
    auto loaded = model::load(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    auto lite = engine::Plan::compile(loaded->graph, {"x"}, {transforms::tflite::fileOutputs(*converted).at(0)});
    ASSERT_TRUE(lite.ok()) << lite.error();
    auto ours = (*lite)->run({Tensor::fromHost(x)});
    ASSERT_TRUE(ours.ok()) << ours.error();
    const HostTensor got = ours->at(0).toHost();
    EXPECT_EQ(got.shape, expected.shape);
    ASSERT_EQ(got.size(), expected.size());
    for (std::int64_t i = 0; i < got.size(); ++i) EXPECT_EQ(got.valueAt(i), expected.valueAt(i)) << i;
    if (!armnn) continue;
    const gds::test::ArmnnResult r = gds::test::armnnRun(path, {x});
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.outputs.at(0).size(), expected.size());
    for (std::int64_t i = 0; i < got.size(); ++i) EXPECT_EQ(r.outputs[0].valueAt(i), expected.valueAt(i)) << i;
  }
}

}  // namespace
}  // namespace gds::transforms::tflite
