// Node colours come from the op metadata; op types it does not describe get
// a guess from parts of their name.
#include <gtest/gtest.h>

#include "graphview/style.h"

namespace gds::graphview {
namespace {

using model::OpCategory;

TEST(Style, CategoriesComeFromTheOpMetadata) {
  const auto& registry = model::OpRegistry::instance();
  // Op types the viewer once coloured from a list of names of its own.
  const std::pair<const char*, OpCategory> described[] = {
      {"Selu", OpCategory::Activation},     {"Softplus", OpCategory::Activation},
      {"Softsign", OpCategory::Activation}, {"LSTMBlockCell", OpCategory::Layer},
      {"DepthToSpace", OpCategory::Tensor}, {"SpaceToDepth", OpCategory::Tensor},
      {"Reverse", OpCategory::Tensor},      {"StatelessIf", OpCategory::Control},
      {"ControlTrigger", OpCategory::Control}, {"QuantizedAdd", OpCategory::Quantization},
      {"FusedPadConv2D", OpCategory::Layer}, {"Conv2D", OpCategory::Layer},
      {"Relu6", OpCategory::Activation},    {"Const", OpCategory::Constant},
      {"Placeholder", OpCategory::Data},    {"Merge", OpCategory::Control},
      {"Reshape", OpCategory::Tensor},      {"AddV2", OpCategory::Math},
      // Once guessed from their names, now described.
      {"QueueDequeueManyV2", OpCategory::Data}, {"IteratorGetNext", OpCategory::Data},
      {"RefMerge", OpCategory::Control},    {"Multinomial", OpCategory::Math},
      {"StackPushV2", OpCategory::Control}, {"ScatterUpdate", OpCategory::Training},
  };
  for (const auto& [op, category] : described) {
    EXPECT_NE(registry.find(op), nullptr) << op;
    EXPECT_EQ(registry.category(op), category) << op;
    EXPECT_EQ(categoryOf(op), category) << op;
  }
}

TEST(Style, UndescribedOpsAreGuessedFromTheirNames) {
  const std::pair<const char*, OpCategory> guessed[] = {
      {"MaxPoolGradV2", OpCategory::Pool},        {"QueueDequeueUpToV2", OpCategory::Data},
      {"ApplyRMSProp", OpCategory::Training},     {"SqrtGrad", OpCategory::Training},
      {"Conv3D", OpCategory::Layer},              {"QuantizedInstanceNorm", OpCategory::Quantization},
      {"MultiDeviceIterator", OpCategory::Data},  {"FusedBatchNormGradV2", OpCategory::Normalization},
      {"NoSuchOp", OpCategory::Other},
  };
  for (const auto& [op, category] : guessed) {
    EXPECT_EQ(model::OpRegistry::instance().find(op), nullptr) << op << " is described now: move it to the test above";
    EXPECT_EQ(categoryOf(op), category) << op;
  }
  // Described as "other" (no colour), whatever the name says.
  EXPECT_EQ(categoryOf("LogicalAnd"), OpCategory::Other);
  EXPECT_EQ(styleFor(OpCategory::Activation).header, QColor(112, 41, 33));
  EXPECT_EQ(styleFor(OpCategory::Other).header, QColor(226, 226, 226));
}

}  // namespace
}  // namespace gds::graphview
