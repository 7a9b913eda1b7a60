// --accuracy_budget's forms and their errors, and the sentence that says why
// an operator stays float; the search itself is walked on MobileNet and the
// photos in CliTflite.AccuracyBudgetKeepsTheFewestOperatorsFloat, and the
// sensitivity on the keyword models in CliTflite.AccuracyBudgetSaysWhy*.
#include <gtest/gtest.h>

#include "transforms/tflite/accuracy_budget.h"

namespace gds::transforms::tflite {
namespace {

TEST(TfliteAccuracyBudget, ParsesTheThreeFormsAndSaysThemWhenWrong) {
  auto top1 = parseAccuracyBudget("top1:0.5");
  ASSERT_TRUE(top1.ok()) << top1.error();
  EXPECT_EQ(top1->metric, AccuracyBudget::Metric::Top1);
  EXPECT_EQ(top1->value, 0.5);
  EXPECT_EQ(top1->text(), "top1:0.5");
  auto sqnr = parseAccuracyBudget("sqnr:30");
  ASSERT_TRUE(sqnr.ok());
  EXPECT_EQ(sqnr->metric, AccuracyBudget::Metric::Sqnr);
  EXPECT_EQ(sqnr->text(), "sqnr:30");
  for (const char* text : {"agreement:98%", "agreement:98"}) {
    auto agreement = parseAccuracyBudget(text);
    ASSERT_TRUE(agreement.ok()) << text;
    EXPECT_EQ(agreement->metric, AccuracyBudget::Metric::Agreement);
    EXPECT_EQ(agreement->value, 98);
    EXPECT_EQ(agreement->text(), "agreement:98%");
  }
  for (const char* text : {"", "top1", "top1:", "top1:-1", "agreement:101%", "sqnr:30dB", "top5:1", "sqnr:nan"}) {
    auto bad = parseAccuracyBudget(text);
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_EQ(bad.error(), "'" + std::string(text) +
                               "' is not an accuracy budget (expected top1:POINTS, the most top-1 accuracy lost "
                               "against float, e.g. top1:0.5; sqnr:DB, the least mean output SQNR, e.g. sqnr:30; or "
                               "agreement:PERCENT, the least top-1 agreement with float, e.g. agreement:98%)");
  }
}

// Each cause the sentence names, from the figures, and none that does not
// apply.
TEST(TfliteAccuracyBudget, WhySaysEachCauseThatApplies) {
  OperatorSensitivity s;
  s.node = "conv";
  s.op = "CONV_2D";
  s.error_share = 0.25;
  s.output.tensor = "conv:0";
  s.output.calibrated = true;
  s.output.range = {0.f, 6.f};
  s.output.step = 6.0 / 255;
  s.has_weights = true;
  s.weight_sqnr_db = 41.23;
  s.worst_channel_sqnr_db = 38;
  s.worst_channel = 3;
  EXPECT_EQ(sensitivityWhy(s),
            "float, it removes 25.0% of the output error; its ranges and weights quantize cleanly (no clipping, no "
            "outliers, weights at 41.2 dB): what it removes is int8 rounding, which the layers after it carry to "
            "the output");
  // A clipping range, outliers, a coarse channel.
  s.output.clipped = 0.0123;
  s.output.bulk = 0.1;
  s.worst_channel_sqnr_db = 12.34;
  EXPECT_EQ(sensitivityWhy(s),
            "float, it removes 25.0% of the output error; its output's int8 range [0, 6] clips 1.2% of its values; "
            "outliers stretch its output's range [0, 6]: 99.98% of its values span 10% of its 256 steps; its int8 "
            "weights are coarse: channel 3 at 12.3 dB, the tensor at 41.2 dB");
  // Under the thresholds: 0.1% clipped, a quarter of the range used, 30 dB.
  s.output.clipped = 0.00099;
  s.output.bulk = 0.25;
  s.worst_channel_sqnr_db = 30;
  EXPECT_EQ(sensitivityWhy(s).find(';'), sensitivityWhy(s).find("; its ranges and weights quantize cleanly"));
  // The model's edges; a share below zero.
  OperatorSensitivity edge;
  edge.op = "SOFTMAX";
  edge.error_share = -0.05;
  edge.gives_model_output = true;
  edge.output.calibrated = true;
  edge.output.range = {0.f, 1.f};
  edge.output.step = 1.0 / 255;
  edge.reads_model_input = true;
  edge.input.tensor = "Mfcc:0";
  edge.input.calibrated = true;
  edge.input.range = {-247.5f, 11.5f};
  edge.input.step = 259.0 / 255;
  edge.input.clipped = 0.0096;
  EXPECT_EQ(sensitivityWhy(edge),
            "float alone, it adds 5.0% to the output error (it helps beside others); it reads the model's input Mfcc "
            "unquantized (int8 cuts its [-247.5, 11.5] into steps of 1.02); the model's output stays float (int8 "
            "steps of 0.00392); the input's int8 range [-247.5, 11.5] clips 0.96% of its values");
}

}  // namespace
}  // namespace gds::transforms::tflite
