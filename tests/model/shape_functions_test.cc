// Shape functions are found by op name; an op without one gets unknown
// shapes and the dtype its attrs name.
#include <gtest/gtest.h>

#include "model/graph_builder.h"
#include "model/shape_fns/shape_fn.h"
#include "model/shape_inference.h"

namespace gds::model {
namespace {

TEST(ShapeFunctions, RegisteredByOpName) {
  const auto& fns = shape_fns::shapeFunctions();
  for (const char* op : {"Placeholder", "Const", "Conv2D", "DepthwiseConv2dNative", "QuantizedConv2D", "Reshape",
                         "ConcatV2", "Mean", "ArgMax", "Switch", "Merge", "IdentityN", "AudioSpectrogram", "Mfcc",
                         "Relu6", "AddV2", "Greater", "Range", "NoOp"})
    EXPECT_NE(fns.find(op), nullptr) << op;
  EXPECT_EQ(fns.find("NoSuchOp"), nullptr);
  EXPECT_EQ(fns.find("conv2d"), nullptr);  // names are case-sensitive, as TensorFlow's
  // Ops sharing a function share its behaviour; different families differ.
  EXPECT_EQ(fns.find("Conv2D"), fns.find("DepthwiseConv2dNative"));
  EXPECT_NE(fns.find("Conv2D"), fns.find("MaxPool"));
  EXPECT_EQ(fns.ops().size(), 177u);  // every op the former if-chain named
}

TEST(ShapeFunctions, RegisteringAnOpTwiceAborts) {
  shape_fns::ShapeFnRegistry r;
  r.add({"A"}, shape_fns::unknownShapeFn);
  EXPECT_DEATH(r.add({"B", "A"}, shape_fns::unknownShapeFn), "two shape functions registered for op A");
}

TEST(ShapeFunctions, UnregisteredOpGetsUnknownShapeAndAttrDtype) {
  GraphBuilder b;
  std::string x = b.placeholder("x", tensorflow::DT_FLOAT, {2, 3});
  auto* custom = b.add("MyCustomOp", "custom", {x});
  setAttrType(custom, "out_type", tensorflow::DT_INT64);
  auto* plain = b.add("OtherOp", "plain", {x});
  b.add("Consumer", "consumer", {"plain:1"});
  (void)plain;
  auto g = Graph::build(b.graph());
  ASSERT_TRUE(g.ok()) << g.error();
  auto shapes = inferShapes(*g);
  EXPECT_EQ(shapes.at(g->find("custom")).str(), "int64<unknown>");
  EXPECT_EQ(shapes.at(g->find("plain"), 0).str(), "?<unknown>");
  EXPECT_EQ(shapes.at(g->find("plain"), 1).str(), "?<unknown>");
  EXPECT_EQ(shapes.at(g->find("x")).str(), "float[2,3]");
}

}  // namespace
}  // namespace gds::model
