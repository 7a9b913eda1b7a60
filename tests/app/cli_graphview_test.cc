// gdstudio render and the window's command line, end to end (the GUI build).
#include <gtest/gtest.h>

#include <filesystem>

#include "model/io.h"
#include "tests/test_util.h"

namespace gds {
namespace {
namespace fs = std::filesystem;

TEST(CliRender, WritesPngAndSvgAndPrintsLayoutTime) {
  GDS_REQUIRE_SHARED();
  const std::string dir = test::tempDir();
  auto r = test::runGdstudio({"render", "--graph=" + test::modelPath("mobilenet_v1_0.25_128_frozen.pb"),
                              "--output=" + dir + "/m.png", "--expand_all", "--rankdir=LR"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Layout: ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("Wrote '" + dir + "/m.png'"), std::string::npos) << r.out;
  EXPECT_GT(fs::file_size(dir + "/m.png"), 10000u);
  r = test::runGdstudio({"render", "--graph=" + test::modelPath("mnist_softmax_android.pb"), "--output=" + dir + "/m.svg"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto svg = model::readFile(dir + "/m.svg");
  ASSERT_TRUE(svg.ok());
  EXPECT_NE(svg->find("<svg"), std::string::npos);

  r = test::runGdstudio({"render", "--graph=" + test::modelPath("mnist_softmax_android.pb"), "--output=" + dir + "/m.gif"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: --output must end in .png or .svg, got '" + dir + "/m.gif'\n");
  r = test::runGdstudio({"render", "--graph=" + test::modelPath("mnist_softmax_android.pb"), "--output=" + dir + "/m.png",
                         "--rankdir=BT"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: --rankdir must be TB or LR, got 'BT'\n");
}

// The window's arguments are read after QApplication has taken its own:
// `gdstudio -platform offscreen model.pb` opens model.pb (it used to take
// "offscreen" for the model).
TEST(CliWindow, QtOptionsBeforeTheModel) {
  const std::string dir = test::tempDir();
  const std::string png = dir + "/w.png";
  auto r = test::runGdstudio({"-platform", "offscreen", test::sourceDir() + "/resources/sample_model.pb",
                              "--screenshot=" + png});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Wrote " + png + " ("), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(png));
  auto two = test::runGdstudio({"-platform", "offscreen", "a.pb", "b.pb", "--screenshot=" + png});
  EXPECT_EQ(two.exit_code, 1);
  EXPECT_NE(two.err.find("error: more than one model given: 'a.pb' and 'b.pb'\n"), std::string::npos) << two.err;
  auto unknown = test::runGdstudio({"-platform", "offscreen", "--bogus", "--screenshot=" + png});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("error: Unknown option 'bogus'. (see gdstudio --help)\n"), std::string::npos)
      << unknown.err;
}

// --accuracy runs the Accuracy dock before the screenshot and prints its
// headline as plain text (the dock shows it as rich text).
TEST(CliWindow, AccuracyHeadlineOnTheTerminalIsPlainText) {
  GDS_REQUIRE_SHARED();
  const std::string png = test::tempDir() + "/a.png";
  auto r = test::runGdstudio({"-platform", "offscreen", test::modelPath("mobilenet_v1_0.25_128_frozen.pb"),
                              "--accuracy=" + test::dataPath("images"),
                              "--class_names=" + test::modelPath("mobilenet_v1_0.25_128_labels.txt"),
                              "--size=1366x768", "--screenshot=" + png});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The dock's default: the TFLite int8 export, calibrated on the folder.
  EXPECT_NE(r.out.find("Compared: Current vs TFLite int8 on dataset " + test::dataPath("images") +
                       " (7 files, labelled): Top-1 agreement 5/7 \u00b7 accuracy Current 3/3, TFLite int8 3/3"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find('<'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Wrote " + png + " (1366x768)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gds
