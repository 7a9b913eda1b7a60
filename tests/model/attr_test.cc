// Typed attr getters: the fallback for an absent attr or another kind, and
// errors that name the node and the attr.
#include <gtest/gtest.h>

#include "model/attr.h"
#include "model/graph_builder.h"

namespace gds::model {
namespace {

tensorflow::NodeDef conv() {
  tensorflow::NodeDef n;
  n.set_name("conv1");
  n.set_op("Conv2D");
  setAttrString(&n, "padding", "SAME");
  setAttrInts(&n, "strides", {1, 2, 2, 1});
  setAttrType(&n, "T", tensorflow::DT_FLOAT);
  setAttrInt(&n, "groups", 3);
  (*n.mutable_attr())["use_cudnn_on_gpu"].set_b(true);
  (*n.mutable_attr())["epsilon"].set_f(0.5f);
  return n;
}

TEST(Attr, GettersReturnTheValueOrTheFallback) {
  auto n = conv();
  EXPECT_EQ(attrString(n, "padding"), "SAME");
  EXPECT_EQ(attrString(n, "data_format", "NHWC"), "NHWC");
  EXPECT_EQ(attrString(n, "groups", "x"), "x");  // an int, not a string
  EXPECT_EQ(attrInt(n, "groups", 1), 3);
  EXPECT_EQ(attrInt(n, "padding", 7), 7);
  EXPECT_EQ(attrType(n, "T"), tensorflow::DT_FLOAT);
  EXPECT_EQ(attrType(n, "DstT"), tensorflow::DT_INVALID);
  EXPECT_EQ(attrType(n, "DstT", tensorflow::DT_INT32), tensorflow::DT_INT32);
  EXPECT_EQ(attrInts(n, "strides"), (std::vector<std::int64_t>{1, 2, 2, 1}));
  EXPECT_TRUE(attrInts(n, "dilations").empty());
  EXPECT_TRUE(attrBool(n, "use_cudnn_on_gpu", false));
  EXPECT_FALSE(attrBool(n, "groups", false));
  EXPECT_EQ(attrFloat(n, "epsilon", 0.f), 0.5f);
  EXPECT_EQ(attrShape(n, "shape"), nullptr);
  EXPECT_NE(findAttr(n, "padding"), nullptr);
  EXPECT_EQ(findAttr(n, "nothing"), nullptr);
}

TEST(Attr, RequiredGettersNameNodeAndAttr) {
  auto n = conv();
  ASSERT_TRUE(requireString(n, "padding").ok());
  EXPECT_EQ(*requireString(n, "padding"), "SAME");
  EXPECT_EQ(*requireInts(n, "strides"), (std::vector<std::int64_t>{1, 2, 2, 1}));
  EXPECT_EQ(*requireType(n, "T"), tensorflow::DT_FLOAT);
  EXPECT_EQ(*requireInt(n, "groups"), 3);
  EXPECT_TRUE(*requireBool(n, "use_cudnn_on_gpu"));
  EXPECT_EQ(*requireFloat(n, "epsilon"), 0.5f);
  EXPECT_EQ(requireString(n, "data_format").error(), "node 'conv1' (Conv2D): attr 'data_format' is missing");
  EXPECT_EQ(requireString(n, "groups").error(), "node 'conv1' (Conv2D): attr 'groups' has type int, expected string");
  EXPECT_EQ(requireType(n, "padding").error(), "node 'conv1' (Conv2D): attr 'padding' has type string, expected type");
  EXPECT_EQ(requireInts(n, "groups").error(), "node 'conv1' (Conv2D): attr 'groups' has type int, expected list");
}

}  // namespace
}  // namespace gds::model
