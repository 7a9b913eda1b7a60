// gdstudio compare on the command line.
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace gds {
namespace {

TEST(CliCompare, RequiresBothGraphsAndOneInputKind) {
  auto r = test::runGdstudio({"compare", "--graph=a.pb"});
  EXPECT_NE(0, r.exit_code);
  EXPECT_EQ(r.err, "error: --graph2 is required (the 8-bit model), or --arithmetic2 to run --graph under two "
                   "arithmetics\n");
  auto r2 = test::runGdstudio({"compare", "--graph=a.pb", "--graph2=b.pb", "--output=x"});
  EXPECT_NE(0, r2.exit_code);
  EXPECT_NE(std::string::npos, r2.err.find("give exactly one of --input=FILE and --dataset=DIR")) << r2.err;
}

TEST(CliCompare, SameGraphAgreesEverywhere) {
  GDS_REQUIRE_SHARED();
  const std::string model = test::modelPath("mobilenet_v1_0.25_128_frozen.pb");
  auto r = test::runGdstudio({"compare", "--graph=" + model, "--graph2=" + model,
                              "--output=MobilenetV1/Predictions/Reshape_1",
                              "--dataset=" + test::dataPath("images"),
                              "--label_map=" + test::modelPath("mobilenet_v1_0.25_128_labels.txt")});
  ASSERT_EQ(0, r.exit_code) << r.err;
  EXPECT_NE(std::string::npos, r.out.find("top1_agreement\t7/7")) << r.out;
  // The float model names the labelled class of every labelled photo.
  EXPECT_NE(std::string::npos, r.out.find("accuracy_float\t3/3")) << r.out;
  auto j = test::runGdstudio({"compare", "--graph=" + model, "--graph2=" + model,
                              "--output=MobilenetV1/Predictions/Reshape_1",
                              "--input=" + test::dataPath("images/chelsea.png"), "--format=json"});
  ASSERT_EQ(0, j.exit_code) << j.err;
  EXPECT_NE(std::string::npos, j.out.find("\"top1_agree\": 1")) << j.out;
}

}  // namespace
}  // namespace gds
