// TransformContext getters and the registry.
#include <gtest/gtest.h>

#include <algorithm>

#include "transforms/transform.h"

namespace gds::transforms {
namespace {

TEST(Context, TypedGettersWithDefaultsAndErrors) {
  TransformContext ctx("t", {}, {}, {{"n", {"12"}}, {"f", {"0.5"}}, {"b", {"0"}}, {"s", {"x", "y"}}, {"bad", {"1e"}}});
  EXPECT_EQ(*ctx.getOneInt("n", 3), 12);
  EXPECT_EQ(*ctx.getOneInt("missing", 3), 3);
  EXPECT_EQ(*ctx.getOneFloat("f", 1), 0.5f);
  EXPECT_FALSE(*ctx.getOneBool("b", true));
  EXPECT_EQ(*ctx.getOneString("missing", "d"), "d");
  EXPECT_EQ(ctx.getOneString("s", "").error(), "t: expected a single 's' parameter, but found 2 occurrences");
  EXPECT_EQ(ctx.getOneInt("bad", 0).error(), "t: parameter 'bad' must be an integer, got '1e'");
  EXPECT_EQ(ctx.getOneFloat("s", 0).error(), "t: expected a single 's' parameter, but found 2 occurrences");
  EXPECT_EQ(ctx.getOneFloat("bad", 0).error(), "t: parameter 'bad' must be a number, got '1e'");
  EXPECT_EQ(ctx.getOneBool("n", false).error(), "t: parameter 'n' must be true, false, 1 or 0, got '12'");
  EXPECT_EQ(ctx.list("s"), (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(ctx.list("none").empty());
}

TEST(Registry, EveryTransformOfTheIssue) {
  const auto& r = TransformRegistry::builtin();
  for (const char* name :
       {"add_default_attributes", "backport_concatv2", "flatten_atrous_conv", "fold_batch_norms", "fold_constants",
        "fold_old_batch_norms", "fuse_pad_and_conv", "fuse_resize_and_conv", "fuse_resize_pad_and_conv",
        "merge_duplicate_nodes", "obfuscate_names", "quantize_weights", "remove_attribute",
        "remove_control_dependencies", "remove_device", "remove_nodes", "rename_attribute", "rename_node", "rename_op",
        "round_weights", "set_device", "sort_by_execution_order", "strip_unused_nodes"})
    EXPECT_NE(r.find(name), nullptr) << name;
  auto names = r.names();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  ASSERT_NE(r.find("fold_constants"), nullptr);
  EXPECT_EQ(r.find("fold_constants")->paramNames(),
            "exclude_op, exclude_node, max_constant_size_in_bytes, clear_output_shapes, ignore_errors");
  EXPECT_EQ(r.find("nope"), nullptr);
  for (const auto& t : r.all()) {
    EXPECT_TRUE(static_cast<bool>(t.fn)) << t.name;
    EXPECT_FALSE(t.summary.empty()) << t.name;
  }
}

TEST(Registry, AddingATransform) {
  TransformRegistry r;
  r.add({"b_t", "b", {}, [](const GraphDef& g, const TransformContext&) -> Result<GraphDef> { return g; }});
  r.add({"a_t", "a", {{"k", "help"}}, nullptr});
  EXPECT_EQ(r.names(), (std::vector<std::string>{"a_t", "b_t"}));
  EXPECT_TRUE(r.find("a_t")->accepts("k"));
  EXPECT_TRUE(r.find("a_t")->accepts("ignore_errors"));
  EXPECT_FALSE(r.find("a_t")->accepts("x"));
}

}  // namespace
}  // namespace gds::transforms
