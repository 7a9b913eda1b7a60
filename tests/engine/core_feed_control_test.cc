// Control edges out of a fed Placeholder are satisfied by the feed, as
// TensorFlow's FeedInputs rewrite does (quantize_nodes gives its Consts a
// "^input" control input).
#include "tests/engine/core_test_util.h"

namespace gds::engine {
namespace {

using namespace coretest;

TEST(CorePlanFeeds, ControlInputFromFedPlaceholderComesFromTheFeed) {
  auto g = parseGraph(placeholderText("input", tensorflow::DT_FLOAT) + R"pb(
    node { name: 'c' op: 'Const' input: '^input'
           attr { key: 'dtype' value { type: DT_FLOAT } }
           attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
    node { name: 'y' op: 'Mul' input: 'input' input: 'c' attr { key: 'T' value { type: DT_FLOAT } } }
  )pb");
  auto plan = compileForInference(g, {"input"}, {"y"});
  ASSERT_TRUE(plan.ok()) << plan.error();
  Tensor x(tensorflow::DT_FLOAT, {3});
  for (int i = 0; i < 3; ++i) x.data<float>()[i] = static_cast<float>(i + 1);
  auto out = (*plan)->run({x});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ((*out)[0].data<float>()[0], 2.0f);
  EXPECT_EQ((*out)[0].data<float>()[2], 6.0f);
}

TEST(CorePlanFeeds, ControlInputFromUnfedPlaceholderStillNeedsAFeed) {
  auto g = parseGraph(placeholderText("input", tensorflow::DT_FLOAT) + R"pb(
    node { name: 'c' op: 'Const' input: '^input'
           attr { key: 'dtype' value { type: DT_FLOAT } }
           attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
  )pb");
  auto plan = compileForInference(g, {}, {"c"});
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().find("node 'input' (Placeholder): must be fed"), std::string::npos) << plan.error();
}

}  // namespace
}  // namespace gds::engine
