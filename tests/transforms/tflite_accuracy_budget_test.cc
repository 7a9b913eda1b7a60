// --accuracy_budget's forms and their errors; the search itself is walked
// on MobileNet and the photos in CliTflite.AccuracyBudgetKeepsTheFewestOperatorsFloat.
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

}  // namespace
}  // namespace gds::transforms::tflite
