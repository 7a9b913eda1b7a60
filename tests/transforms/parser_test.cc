// The --transforms grammar of TensorFlow's transform_graph.
#include <gtest/gtest.h>

#include "transforms/parser.h"

namespace gds::transforms {
namespace {

TEST(Parser, NamesSeparatedByWhitespaceAndNewlines) {
  auto steps = parseTransformString("\n  fold_constants\tfold_batch_norms\n  quantize_weights ");
  ASSERT_TRUE(steps.ok()) << steps.error();
  ASSERT_EQ(steps->size(), 3u);
  EXPECT_EQ((*steps)[0].name, "fold_constants");
  EXPECT_EQ((*steps)[1].name, "fold_batch_norms");
  EXPECT_EQ((*steps)[2].name, "quantize_weights");
  EXPECT_TRUE((*steps)[0].params.empty());
}

TEST(Parser, QuotedValuesKeepCommas) {
  auto steps = parseTransformString("strip_unused_nodes(type=float, shape=\"1,224,224,3\") fold_constants(ignore_errors=true)");
  ASSERT_TRUE(steps.ok()) << steps.error();
  ASSERT_EQ(steps->size(), 2u);
  EXPECT_EQ((*steps)[0].params.at("type"), std::vector<std::string>{"float"});
  EXPECT_EQ((*steps)[0].params.at("shape"), std::vector<std::string>{"1,224,224,3"});
  EXPECT_EQ((*steps)[1].params.at("ignore_errors"), std::vector<std::string>{"true"});
  EXPECT_EQ((*steps)[0].text(), "strip_unused_nodes(shape=\"1,224,224,3\", type=float)");
}

TEST(Parser, RepeatedKeysMakeLists) {
  auto steps = parseTransformString("remove_nodes(op=Identity, op=CheckNumerics)");
  ASSERT_TRUE(steps.ok()) << steps.error();
  EXPECT_EQ((*steps)[0].params.at("op"), (std::vector<std::string>{"Identity", "CheckNumerics"}));
}

TEST(Parser, UnquotedValueCharactersAndSpacesWithoutCommas) {
  auto steps = parseTransformString("set_device(device=/device:CPU:0)");
  ASSERT_FALSE(steps.ok());  // ':' needs quotes, as in TensorFlow
  steps = parseTransformString("set_device(device=\"/device:CPU:0\") rename_op(old_op_name=Mul new_op_name=a-b.c/d_e)");
  ASSERT_TRUE(steps.ok()) << steps.error();
  EXPECT_EQ((*steps)[0].params.at("device")[0], "/device:CPU:0");
  EXPECT_EQ((*steps)[1].params.at("new_op_name")[0], "a-b.c/d_e");
}

TEST(Parser, EmptyParenthesesAndEmptyString) {
  auto steps = parseTransformString("sort_by_execution_order()");
  ASSERT_TRUE(steps.ok());
  EXPECT_EQ(steps->size(), 1u);
  steps = parseTransformString("   ");
  ASSERT_TRUE(steps.ok());
  EXPECT_TRUE(steps->empty());
}

TEST(Parser, SyntaxErrors) {
  EXPECT_EQ(parseTransformString("fold_constants(ignore_errors)").error(),
            "--transforms: expected '=' after parameter 'ignore_errors' at column 29, found ')'");
  EXPECT_EQ(parseTransformString("strip_unused_nodes(shape=\"1,2").error(),
            "--transforms: unterminated quoted value of parameter 'shape' at column 26, found '\"1,2'");
  EXPECT_EQ(parseTransformString("fold_constants(ignore_errors=true").error(),
            "--transforms: missing ')' after the parameters of 'fold_constants' at column 34, found the end of the "
            "string");
  EXPECT_EQ(parseTransformString("fold_constants (ignore_errors=true)").error(),
            "--transforms: expected a transform name at column 16, found '(ignore_errors=true)'");
  EXPECT_EQ(parseTransformString("a(=1)").error(),
            "--transforms: expected a parameter name of 'a' at column 3, found '=1)'");
}

TEST(Parser, UnknownTransformListsValidNames) {
  auto steps = parseTransforms("fold_constants fold_everything");
  ASSERT_FALSE(steps.ok());
  EXPECT_EQ(steps.error().rfind("Transform 'fold_everything' not recognized. Valid transforms: add_default_attributes, "
                                "backport_concatv2, backport_tensor_array_v3, flatten_atrous_conv, fold_batch_norms, "
                                "fold_constants, ",
                                0),
            0u)
      << steps.error();
}

TEST(Parser, UnknownParameterListsValidOnes) {
  auto steps = parseTransforms("quantize_weights(minimum_sise=10)");
  ASSERT_FALSE(steps.ok());
  EXPECT_EQ(steps.error(),
            "quantize_weights: unknown parameter 'minimum_sise'; valid parameters: minimum_size, per_channel, ignore_errors");
}

TEST(Parser, IgnoreErrorsMustBeBoolean) {
  EXPECT_EQ(parseTransforms("fold_constants(ignore_errors=maybe)").error(),
            "fold_constants: ignore_errors should be true or false, found 'maybe'");
  auto steps = parseTransforms("fold_constants(ignore_errors=TRUE)");
  ASSERT_TRUE(steps.ok());
  EXPECT_TRUE(*ignoreErrors((*steps)[0]));
}

TEST(Parser, EveryDocumentedCommandLine) {
  // The --transforms strings of TensorFlow's graph_transforms README and Arm's ResNet-50 tutorial.
  for (const char* text : {
           "strip_unused_nodes(type=float, shape=\"1,299,299,3\") remove_nodes(op=Identity, op=CheckNumerics) "
           "fold_constants(ignore_errors=true) fold_batch_norms fold_old_batch_norms",
           "\n  strip_unused_nodes(type=float, shape=\"1,299,299,3\")\n  fold_constants(ignore_errors=true)\n"
           "  fold_batch_norms\n  fold_old_batch_norms\n  quantize_weights",
           "add_default_attributes strip_unused_nodes(type=float, shape=\"1,224,224,3\") "
           "remove_nodes(op=Identity, op=CheckNumerics) fold_constants(ignore_errors=true) fold_batch_norms "
           "fold_old_batch_norms quantize_weights strip_unused_nodes sort_by_execution_order",
           "round_weights(num_steps=256)", "obfuscate_names", "merge_duplicate_nodes",
           "rename_attribute(old_attribute_name=foo, new_attribute_name=bar)", "remove_device",
           "set_device(device=\"/device:CPU:0\", if_default=true)", "fuse_resize_pad_and_conv fuse_resize_and_conv fuse_pad_and_conv",
           "flatten_atrous_conv backport_concatv2 remove_control_dependencies",
           "remove_attribute(attribute_name=_class)", "rename_op(old_op_name=Mul, new_op_name=Multiply)",
           "rename_node(old_node_name=super/deep/output, new_node_name=output)",
           "fold_constants(exclude_op=Shape, exclude_node=a/b, max_constant_size_in_bytes=1024, "
           "clear_output_shapes=false)",
       }) {
    auto steps = parseTransformString(text);
    ASSERT_TRUE(steps.ok()) << text << ": " << steps.error();
    EXPECT_TRUE(validateSteps(*steps, TransformRegistry::builtin()).ok()) << text;
  }
}

}  // namespace
}  // namespace gds::transforms
