// gdstudio tflite_convert and the .tflite files the other commands open:
// TensorFlow's flags, what it prints, int8 export from a calibration folder,
// SavedModels with their signature, and errors that name the node and op and
// leave no file behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "model/io.h"
#include "model/npy.h"
#include "model/tflite/dialect.h"
#include "tests/test_util.h"

namespace gds::test {
namespace {

namespace fs = std::filesystem;
namespace mt = model::tflite;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(CliTflite, HelpDocumentsEveryFlag) {
  CommandResult r = runGdstudio({"tflite_convert", "--help"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* flag : {"--graph_def_file", "--saved_model_dir", "--saved_model_tag_set", "--saved_model_signature_key",
                           "--output_file", "--input_arrays", "--output_arrays", "--input_shapes", "--quantize",
                           "--calibration_data", "--input_mean", "--input_std", "--inference_input_type",
                           "--inference_output_type", "--disable_per_channel_quantization_for_dense_layers",
                           "--num_threads", "--calibration_method", "--calibration_num_bins",
                           "--calibration_min_percentile", "--calibration_max_percentile", "--calibration_report",
                           "--denylisted_nodes", "--denylisted_ops", "--accuracy_budget", "--accuracy_data",
                           "--accuracy_budget_max_float", "--accuracy_budget_best", "--label_map"})
    EXPECT_TRUE(contains(r.out, flag)) << flag;
  CommandResult all = runGdstudio({"--help"});
  EXPECT_TRUE(contains(all.out, "tflite_convert"));
}

TEST(CliTflite, ConvertsMobileNetFloatAndInt8AndSummarizesTheResult) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  const std::string pb = modelPath("mobilenet_v1_0.25_128_frozen.pb");
  CommandResult f = runGdstudio({"tflite_convert", "--graph_def_file=" + pb, "--output_file=" + dir + "/f.tflite",
                                 "--input_arrays=input", "--output_arrays=MobilenetV1/Predictions/Reshape_1"});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const auto float_bytes = fs::file_size(dir + "/f.tflite");
  EXPECT_TRUE(contains(f.out, "Operators: 33 (1 AVERAGE_POOL_2D, 15 CONV_2D, 13 DEPTHWISE_CONV_2D, 2 RESHAPE, 1 "
                              "SOFTMAX, 1 SQUEEZE)\n"))
      << f.out;
  EXPECT_TRUE(contains(f.out, "Wrote " + dir + "/f.tflite (" + std::to_string(float_bytes) + " bytes)\n")) << f.out;
  CommandResult q = runGdstudio({"tflite_convert", "--graph_def_file=" + pb, "--output_file=" + dir + "/q.tflite",
                                 "--input_arrays=input", "--output_arrays=MobilenetV1/Predictions/Reshape_1",
                                 "--quantize=int8", "--calibration_data=" + dataPath("images"), "--input_mean=127.5",
                                 "--input_std=127.5"});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_TRUE(contains(q.out, "Calibrated on 7 inputs from " + dataPath("images") + "\n")) << q.out;
  EXPECT_TRUE(contains(q.out, "1 DEQUANTIZE")) << q.out;
  EXPECT_LT(fs::file_size(dir + "/q.tflite") * 100, fs::file_size(pb) * 30);
  CommandResult s = runGdstudio({"summarize", "--in_graph=" + dir + "/q.tflite"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_TRUE(contains(s.out, "Op types used: 58 Const, 15 tfl.conv_2d, 13 tfl.depthwise_conv_2d, 2 tfl.reshape, 1 "
                              "Placeholder, 1 tfl.average_pool_2d, 1 tfl.dequantize, 1 tfl.quantize, 1 tfl.softmax, 1 "
                              "tfl.squeeze\n"))
      << s.out;
  EXPECT_TRUE(contains(s.out, "Input tensor: name=input, type=float, shape=[1,128,128,3], quantization=none\n")) << s.out;
  // int8 at the edges.
  CommandResult i8 = runGdstudio({"tflite_convert", "--graph_def_file=" + pb, "--output_file=" + dir + "/i8.tflite",
                                  "--output_arrays=MobilenetV1/Predictions/Reshape_1", "--quantize=int8",
                                  "--calibration_data=" + dataPath("images"), "--inference_input_type=int8",
                                  "--inference_output_type=int8"});
  ASSERT_EQ(i8.exit_code, 0) << i8.err;
  auto m = model::load(dir + "/i8.tflite");
  ASSERT_TRUE(m.ok()) << m.error();
  for (const auto& n : m->graph.node())
    if (n.op() == "Placeholder") {
      EXPECT_EQ(n.attr().at("dtype").type(), tensorflow::DT_INT8);
    }
  CommandResult s8 = runGdstudio({"summarize", "--in_graph=" + dir + "/i8.tflite"});
  EXPECT_TRUE(contains(s8.out, "Output tensor: name=MobilenetV1/Predictions/Reshape_1, type=int8, shape=[1,1001], "
                               "quantization=scale=0.00390625 zero_point=-128\n"))
      << s8.out;
}

// --quantize=float16 (and TF 1.x's --post_training_quantize
// --quantize_to_float16, the same file): every weight and bias float16
// behind a DEQUANTIZE, half the file, float's answers on the photos.
// MobileNet 0.25 converted to `out` with the converter's `extra` flags.
CommandResult convertMobilenet(const std::string& out, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"tflite_convert", "--graph_def_file=" + modelPath("mobilenet_v1_0.25_128_frozen.pb"),
                                   "--output_arrays=MobilenetV1/Predictions/Reshape_1", "--output_file=" + out};
  args.insert(args.end(), extra.begin(), extra.end());
  return runGdstudio(args);
}

// --calibration_method: TensorFlow's methods choose the ranges; the report
// (tflite_convert --calibration_report, calibrate --report) says per tensor
// what was seen, chosen and clipped. On the seven photos the MSE range
// keeps float's top-1 on all seven, min/max on five.
TEST(CliTflite, CalibrationMethodsChooseTheRangesAndTheReportSaysWhatTheyClip) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  const std::string pb = modelPath("mobilenet_v1_0.25_128_frozen.pb");
  auto agreement = [&](const std::string& tflite) {
    CommandResult c = runGdstudio({"compare", "--graph=" + pb, "--graph2=" + tflite, "--dataset=" + dataPath("images")});
    EXPECT_EQ(c.exit_code, 0) << c.err;
    const auto at = c.out.find("top1_agreement\t");
    return at == std::string::npos ? std::string() : c.out.substr(at, c.out.find('\n', at) - at);
  };
  const std::vector<std::string> calibrated = {"--quantize=int8", "--calibration_data=" + dataPath("images")};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), calibrated.begin(), calibrated.end());
    return extra;
  };
  CommandResult mm = convertMobilenet(dir + "/mm.tflite", calibrated);
  ASSERT_EQ(mm.exit_code, 0) << mm.err;
  EXPECT_TRUE(contains(mm.out, "Calibrated on 7 inputs from " + dataPath("images") + "\n")) << mm.out;
  CommandResult mse = convertMobilenet(dir + "/mse.tflite", with({"--calibration_method=histogram_mse_max_frequency",
                                                                  "--calibration_report=" + dir + "/r.json"}));
  ASSERT_EQ(mse.exit_code, 0) << mse.err;
  EXPECT_TRUE(contains(mse.out, "Calibrated on 7 inputs from " + dataPath("images") +
                                    ", ranges by histogram_mse_max_frequency\nWrote " + dir + "/mse.tflite ("))
      << mse.out;
  EXPECT_TRUE(contains(mse.out, "Wrote " + dir + "/r.json\n")) << mse.out;
  EXPECT_EQ(agreement(dir + "/mm.tflite"), "top1_agreement\t5/7");
  EXPECT_EQ(agreement(dir + "/mse.tflite"), "top1_agreement\t7/7");

  // The report's records: every quantized activation with its histogram.
  const nlohmann::json report = nlohmann::json::parse(readAll(dir + "/r.json"));
  EXPECT_EQ(report["calibration_method"], "histogram_mse_max_frequency");
  ASSERT_EQ(report["tensors"].size(), 34u);
  const nlohmann::json& first = report["tensors"][0];
  EXPECT_EQ(first["tensor"], "input:0");
  EXPECT_EQ(first["samples"], 7);
  EXPECT_EQ(first["observed_min"], -1.0);
  EXPECT_EQ(first["observed_max"], 1.0);
  double counted = 0;
  for (double c : first["histogram"]["counts"]) counted += c;
  EXPECT_EQ(counted, 7.0 * 128 * 128 * 3);
  for (const auto& t : report["tensors"]) {
    EXPECT_LE(t["observed_min"].get<double>(), t["min"].get<double>() + 1e-6) << t["tensor"];
    EXPECT_GE(t["clipped_share"].get<double>(), 0.0) << t["tensor"];
    EXPECT_LT(t["clipped_share"].get<double>(), 0.05) << t["tensor"];
  }

  // The percentile's bounds in the note; the table on the output.
  CommandResult pct = convertMobilenet(dir + "/p.tflite", with({"--calibration_method=histogram_percentile",
                                                                "--calibration_min_percentile=0.01",
                                                                "--calibration_report=-"}));
  ASSERT_EQ(pct.exit_code, 0) << pct.err;
  EXPECT_TRUE(contains(pct.out, ", ranges by histogram_percentile (0.01 to 99.999)\n")) << pct.out;
  EXPECT_TRUE(contains(pct.out, "\ntensor\tobserved_min\tobserved_max\tmin\tmax\tclipped\thistogram\ninput:0\t-1\t1\t"))
      << pct.out;
  EXPECT_TRUE(contains(pct.out, "\n34 tensors calibrated on 7 inputs with histogram_percentile: ")) << pct.out;

  // The same report from calibrate --report on the float graph, nothing written.
  CommandResult cal = runGdstudio({"calibrate", "--report", "--graph=" + pb, "--dataset=" + dataPath("images"),
                                   "--output_layer=MobilenetV1/Predictions/Reshape_1",
                                   "--calibration_method=histogram_percentile", "--calibration_min_percentile=0.01"});
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  EXPECT_EQ(cal.out, pct.out.substr(pct.out.find("tensor\tobserved_min")));

  // Errors name the flag; nothing is written.
  CommandResult bad = convertMobilenet(dir + "/bad.tflite", with({"--calibration_method=entropy"}));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "error: --calibration_method: 'entropy' is not a calibration method (expected min_max, "
                     "average_min_max, histogram_percentile, histogram_mse_bruteforce, histogram_mse_max_frequency, "
                     "histogram_mse_symmetric)\n");
  CommandResult no_data = convertMobilenet(dir + "/bad.tflite", {"--calibration_method=histogram_percentile"});
  EXPECT_EQ(no_data.exit_code, 1);
  EXPECT_EQ(no_data.err, "error: --calibration_method is about calibration: it needs --quantize=int8 or int16x8 with "
                         "--calibration_data=DIR\n");
  EXPECT_FALSE(fs::exists(dir + "/bad.tflite"));
  CommandResult both = runGdstudio({"calibrate", "--report", "--graph=" + pb, "--dataset=" + dataPath("images"),
                                    "--output_graph=" + dir + "/x.pb"});
  EXPECT_EQ(both.exit_code, 1);
  EXPECT_EQ(both.err, "error: --report writes nothing: it reads a float graph; drop --output_graph\n");
}

// Selective quantization: operators kept float by name or type
// (TensorFlow's denylisted_nodes / denylisted_ops) run between a DEQUANTIZE
// and a QUANTIZE; --accuracy_budget finds the fewest that meet a budget on
// the data and writes that model; a budget it cannot meet writes nothing
// unless asked, and says the best it reached.
TEST(CliTflite, AccuracyBudgetKeepsTheFewestOperatorsFloat) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  const std::string pb = modelPath("mobilenet_v1_0.25_128_frozen.pb");
  const std::string layer = "MobilenetV1/MobilenetV1/Conv2d_10_pointwise/Relu6";
  const std::vector<std::string> int8 = {"--quantize=int8", "--calibration_data=" + dataPath("images"),
                                         "--label_map=" + modelPath("mobilenet_v1_0.25_128_labels.txt")};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), int8.begin(), int8.end());
    return extra;
  };
  // On the seven photos the all-int8 model agrees with float on 5; keeping
  // that one pointwise layer float brings 7 of 7.
  CommandResult b = convertMobilenet(dir + "/budget.tflite", with({"--accuracy_budget=agreement:100%"}));
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_TRUE(contains(b.out, "Search (agreement:100%):\nfloat_operators\tbytes\tlatency_ms\tagreement\taccuracy\t"
                              "sqnr_db\tmeets\tpareto\nnone (all int8)\t584736\t"))
      << b.out;
  EXPECT_TRUE(contains(b.out, "\t5/7\t3/3\t18.79\tno\t\n1\t631136\t")) << b.out;
  // The float softmax alone is smaller (no DEQUANTIZE at the output) and
  // closer to float than all-int8: it is on the Pareto front, all-int8 not.
  EXPECT_TRUE(contains(b.out, "\nMobilenetV1/Predictions/Softmax\t584672\t")) << b.out;
  EXPECT_TRUE(contains(b.out, "Meets agreement:100% with 1 operator float (100.0% agreement)\n  " + layer +
                                  " (CONV_2D): float, it removes 20.1% of the output error; its ranges and weights "
                                  "quantize cleanly (no clipping, no outliers, weights at 39.9 dB): what it removes "
                                  "is int8 rounding, which the layers after it carry to the output\n"))
      << b.out;
  // The ranking's own columns: the operator, its error share, its output's
  // int8 range, the share clipped and used, its worst weight channel.
  EXPECT_TRUE(contains(b.out, "sqnr_db\tmeets\tpareto\top\terror_share\trange\tclipped\tused\tweights_db\n" + layer +
                                  "\t631136\t"))
      << b.out;
  EXPECT_TRUE(contains(b.out, "\t7/7\t3/3\t19.76\tyes\tyes\tCONV_2D\t20.1%\t[0, 6]\t0%\t99.9%\t35.0\n")) << b.out;
  EXPECT_TRUE(contains(b.out, "2 DEQUANTIZE, 2 QUANTIZE")) << b.out;
  CommandResult c = runGdstudio({"compare", "--graph=" + pb, "--graph2=" + dir + "/budget.tflite",
                                 "--dataset=" + dataPath("images")});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(contains(c.out, "top1_agreement\t7/7\n")) << c.out;
  // The same operator kept float by name: the same file.
  CommandResult named = convertMobilenet(dir + "/named.tflite", {"--quantize=int8", "--calibration_data=" + dataPath("images"),
                                                                 "--denylisted_nodes=" + layer});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(readAll(dir + "/named.tflite"), readAll(dir + "/budget.tflite"));
  // By type: every DEPTHWISE_CONV_2D float, a DEQUANTIZE before each.
  CommandResult ops = convertMobilenet(dir + "/ops.tflite", {"--quantize=int8", "--calibration_data=" + dataPath("images"),
                                                             "--denylisted_ops=DEPTHWISE_CONV_2D"});
  ASSERT_EQ(ops.exit_code, 0) << ops.err;
  EXPECT_TRUE(contains(ops.out, "14 DEQUANTIZE")) << ops.out;

  // A budget out of reach within two float operators: nothing written, the
  // best figure said; --accuracy_budget_best writes that model.
  CommandResult none = convertMobilenet(dir + "/none.tflite", with({"--accuracy_budget=sqnr:60", "--accuracy_budget_max_float=2"}));
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(none.err, "error: --accuracy_budget=sqnr:60: no model meets it (the table above has the best reached); "
                      "nothing was written (--accuracy_budget_best writes the best one)\n");
  EXPECT_TRUE(contains(none.out, "\nNo model meets sqnr:60: the best reached is ")) << none.out;
  EXPECT_FALSE(fs::exists(dir + "/none.tflite"));
  CommandResult best = convertMobilenet(dir + "/best.tflite", with({"--accuracy_budget=sqnr:60", "--accuracy_budget_max_float=2",
                                                                    "--accuracy_budget_best"}));
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_TRUE(fs::exists(dir + "/best.tflite"));

  // Errors name the flag and what it takes.
  CommandResult bad = convertMobilenet(dir + "/bad.tflite", with({"--accuracy_budget=top5:1"}));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err.rfind("error: --accuracy_budget: 'top5:1' is not an accuracy budget (expected top1:POINTS", 0), 0u)
      << bad.err;
  CommandResult nodes = convertMobilenet(dir + "/bad.tflite", {"--quantize=int8", "--calibration_data=" + dataPath("images"),
                                                               "--denylisted_nodes=MobilenetV1/Conv2d_0/weights"});
  EXPECT_EQ(nodes.exit_code, 1);
  EXPECT_EQ(nodes.err, "error: 'MobilenetV1/Conv2d_0/weights' is not an operator of the converted model (operators "
                       "are named after the tensor they compute: the last node of a fused chain such as Conv2D + "
                       "BiasAdd + Relu6)\n");
  CommandResult float_model = convertMobilenet(dir + "/bad.tflite", {"--denylisted_ops=SOFTMAX"});
  EXPECT_EQ(float_model.exit_code, 1);
  EXPECT_EQ(float_model.err, "error: --denylisted_ops chooses the operators an int8 or 16x8 model keeps float: it "
                             "needs --quantize=int8 or int16x8\n");
  EXPECT_FALSE(fs::exists(dir + "/bad.tflite"));
}

// Why each operator stays float, on the keyword model and its 100 clips:
// the first convolution reads the float MFCCs, which int8 would cut into
// steps of one; with ranges at the 1st and 99th percentiles the sentence
// adds what they clip. --format=json gives the search as records.
TEST(CliTflite, AccuracyBudgetSaysWhyEachOperatorStaysFloat) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  const std::vector<std::string> convert = {"tflite_convert", "--graph_def_file=" + modelPath("kws_ds_cnn_s.pb"),
                                            "--input_arrays=Mfcc", "--input_shapes=1,49,10",
                                            "--output_arrays=labels_softmax", "--quantize=int8",
                                            "--calibration_data=" + dataPath("speech")};
  auto run = [&](const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> args = convert;
    args.push_back("--output_file=" + dir + "/" + out);
    args.insert(args.end(), extra.begin(), extra.end());
    return runGdstudio(args);
  };
  const std::string conv = "MobileNet/conv_1/batch_norm/Relu";
  CommandResult text = run("k.tflite", {"--accuracy_budget=agreement:98%"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "Meets agreement:98% with 1 operator float (99.0% agreement)\n  " + conv +
                                     " (CONV_2D): float, it removes 36.1% of the output error; it reads the model's "
                                     "input Mfcc unquantized (int8 cuts its [-247.1, 19.66] into steps of 1.05)\n"))
      << text.out;
  // The float softmax gives the model's output without int8 steps.
  EXPECT_TRUE(contains(text.out, "\nlabels_softmax\t44720\t")) << text.out;
  EXPECT_TRUE(contains(text.out, "\tSOFTMAX\t71.6%\t[0, 1]\t0%\t99.8%\t-\n")) << text.out;

  CommandResult json = run("j.tflite", {"--accuracy_budget=agreement:98%", "--format=json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["output_file"], dir + "/j.tflite");
  EXPECT_EQ(doc["bytes"], fs::file_size(dir + "/j.tflite"));
  EXPECT_EQ(doc["operators"]["CONV_2D"], 5);
  EXPECT_EQ(readAll(dir + "/j.tflite"), readAll(dir + "/k.tflite"));
  const auto& budget = doc["accuracy_budget"];
  EXPECT_EQ(budget["budget"], "agreement:98%");
  EXPECT_EQ(budget["chosen"], 1);
  EXPECT_EQ(budget["path"][1]["float_operators"], nlohmann::json::array({conv}));
  EXPECT_EQ(budget["path"][0]["agree"], 95);
  EXPECT_EQ(budget["path"][1]["agree"], 99);
  ASSERT_EQ(budget["sensitivity"].size(), budget["ranking"].size());
  const auto& first = budget["sensitivity"][0];
  EXPECT_EQ(first["node"], conv);
  EXPECT_EQ(first["op"], "CONV_2D");
  EXPECT_NEAR(first["error_share"].get<double>(), 0.361, 0.0005);
  EXPECT_EQ(first["reads_model_input"], true);
  EXPECT_EQ(first["input"]["tensor"], "Mfcc:0");
  EXPECT_NEAR(first["input"]["step"].get<double>(), 1.046, 0.0005);
  EXPECT_EQ(first["output"]["clipped_share"], 0.0);
  EXPECT_NEAR(first["worst_channel_sqnr_db"].get<double>(), 42.0, 0.05);
  EXPECT_EQ(first["why"], "float, it removes 36.1% of the output error; it reads the model's input Mfcc unquantized "
                          "(int8 cuts its [-247.1, 19.66] into steps of 1.05)");

  // Ranges at the 1st and 99th percentiles clip: the sentence says so. A
  // budget not met still prints its search as JSON before the error.
  CommandResult clipped = run("c.tflite", {"--accuracy_budget=agreement:98%", "--accuracy_budget_max_float=1",
                                           "--calibration_method=histogram_percentile",
                                           "--calibration_min_percentile=1", "--calibration_max_percentile=99",
                                           "--format=json"});
  EXPECT_EQ(clipped.exit_code, 1);
  EXPECT_EQ(clipped.err, "error: --accuracy_budget=agreement:98%: no model meets it (the accuracy_budget record "
                         "above has the best reached); nothing was written (--accuracy_budget_best writes the best "
                         "one)\n");
  const auto best = nlohmann::json::parse(clipped.out)["accuracy_budget"];
  EXPECT_EQ(best["chosen"], -1);
  EXPECT_EQ(best["sensitivity"][0]["why"],
            "float, it removes 40.3% of the output error; it reads the model's input Mfcc unquantized (int8 cuts its "
            "[-247.5, 11.5] into steps of 1.02); the input's int8 range [-247.5, 11.5] clips 0.96% of its values; its "
            "output's int8 range [0, 13.84] clips 0.99% of its values");
  EXPECT_FALSE(fs::exists(dir + "/c.tflite"));

  CommandResult bad = run("b.tflite", {"--format=xml"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "error: --format must be text or json, got 'xml'\n");
}

// What the budget saves over the search by hand: keeping float the layers
// `compare` lists worst first (the photo that flips, chelsea) reaches 7/7
// with none of the first twelve, where the search needs one operator: a
// layer's error there is mostly what reached it, not what it adds.
TEST(CliTflite, AccuracyBudgetNeedsFewerFloatOperatorsThanExcludingTheWorstLayersByHand) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  const std::string pb = modelPath("mobilenet_v1_0.25_128_frozen.pb");
  const std::vector<std::string> int8 = {"--quantize=int8", "--calibration_data=" + dataPath("images")};
  ASSERT_EQ(convertMobilenet(dir + "/q.tflite", int8).exit_code, 0);
  CommandResult layers = runGdstudio({"compare", "--graph=" + pb, "--graph2=" + dir + "/q.tflite",
                                      "--input=" + dataPath("images/chelsea.png"), "--format=json"});
  ASSERT_EQ(layers.exit_code, 0) << layers.err;
  std::vector<int> agreement;
  std::string kept;
  const nlohmann::json table = nlohmann::json::parse(layers.out);
  ASSERT_GE(table["layers"].size(), 12u);
  for (const auto& layer : table["layers"]) {
    if (agreement.size() == 12) break;
    kept += (kept.empty() ? "" : ",") + layer["name"].get<std::string>();
    std::vector<std::string> flags = int8;
    flags.push_back("--denylisted_nodes=" + kept);
    ASSERT_EQ(convertMobilenet(dir + "/h.tflite", flags).exit_code, 0) << kept;
    CommandResult c = runGdstudio({"compare", "--graph=" + pb, "--graph2=" + dir + "/h.tflite",
                                   "--dataset=" + dataPath("images"), "--format=json"});
    ASSERT_EQ(c.exit_code, 0) << c.err;
    agreement.push_back(nlohmann::json::parse(c.out)["top1_agreement"].get<int>());
  }
  EXPECT_EQ(agreement, (std::vector<int>{6, 6, 6, 6, 6, 5, 5, 5, 5, 6, 6, 5}));
}

TEST(CliTflite, Float16WeightsHalveTheFileAndKeepFloatsAnswers) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  const std::string pb = modelPath("mobilenet_v1_0.25_128_frozen.pb");
  auto convert = [&](const std::string& file, const std::vector<std::string>& extra) {
    return convertMobilenet(dir + "/" + file, extra);
  };
  CommandResult f = convert("f.tflite", {});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  CommandResult h = convert("h.tflite", {"--quantize=float16"});
  ASSERT_EQ(h.exit_code, 0) << h.err;
  EXPECT_TRUE(contains(h.out, "Operators: 89 (1 AVERAGE_POOL_2D, 15 CONV_2D, 13 DEPTHWISE_CONV_2D, 56 DEQUANTIZE, 2 "
                              "RESHAPE, 1 SOFTMAX, 1 SQUEEZE)\n"))
      << h.out;
  const double ratio = double(fs::file_size(dir + "/h.tflite")) / double(fs::file_size(dir + "/f.tflite"));
  EXPECT_GT(ratio, 0.50);
  EXPECT_LT(ratio, 0.51);
  CommandResult tf1 = convert("tf1.tflite", {"--post_training_quantize", "--quantize_to_float16"});
  ASSERT_EQ(tf1.exit_code, 0) << tf1.err;
  EXPECT_EQ(readAll(dir + "/tf1.tflite"), readAll(dir + "/h.tflite"));
  // The weights are float16 constants; the operators read their float32 widening under the weights' names.
  auto m = model::load(dir + "/h.tflite");
  ASSERT_TRUE(m.ok()) << m.error();
  int halves = 0;
  for (const auto& n : m->graph.node()) {
    if (n.op() == "Const" && n.attr().at("dtype").type() == tensorflow::DT_HALF) ++halves;
    if (n.name() == "MobilenetV1/Conv2d_0/weights") {
      EXPECT_EQ(n.op(), "tfl.dequantize");
      ASSERT_EQ(n.input_size(), 1);
      EXPECT_EQ(n.input(0), "MobilenetV1/Conv2d_0/weights_fp16");
    }
  }
  EXPECT_EQ(halves, 56);
  // As TensorFlow Lite's Prepare does, the weights are widened once, when
  // the model is compiled: no run spends time in DEQUANTIZE.
  CommandResult b = runGdstudio({"benchmark", "--graph=" + dir + "/h.tflite", "--max_num_runs=2", "--warmup_runs=0"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_TRUE(contains(b.out, "tfl.conv_2d")) << b.out;
  EXPECT_FALSE(contains(b.out, "tfl.dequantize")) << b.out;
  // Float's top-1 on 6 of the 7 photos: chelsea, whose two best classes
  // are close, flips as it does in int8 (282, 288); the outputs' SQNR is
  // about 44 dB (the int8 export: about 19).
  CommandResult c = runGdstudio({"compare", "--graph=" + pb, "--graph2=" + dir + "/h.tflite",
                                 "--output=MobilenetV1/Predictions/Reshape_1", "--dataset=" + dataPath("images")});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(contains(c.out, "inputs\t7\ntop1_agreement\t6/7\n")) << c.out;
  EXPECT_TRUE(contains(c.out, "chelsea.png\t282\t288\t")) << c.out;
  const std::size_t at = c.out.find("mean_sqnr_db\t");
  ASSERT_NE(at, std::string::npos) << c.out;
  EXPECT_GT(std::stod(c.out.substr(at + 13)), 40.0) << c.out;
  // Float16 needs no data.
  CommandResult data = convert("x.tflite", {"--quantize=float16", "--calibration_data=" + dataPath("images")});
  EXPECT_EQ(data.exit_code, 1);
  EXPECT_EQ(data.err, "error: --calibration_data is for --quantize=int8 and int16x8 (--quantize=float16 converts the weights "
                      "alone and needs no data)\n");
  EXPECT_FALSE(fs::exists(dir + "/x.tflite"));
}

// --quantize=dynamic (TF 1.x --post_training_quantize): the convolution
// and fully connected weights of 1024+ elements become int8 (per output
// channel), the smaller ones and the activations stay float; the file runs
// on the hybrid kernels of the arithmetic chosen.
TEST(CliTflite, DynamicRangeQuantizesTheLargeWeightsAndRunsHybridKernels) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  const std::string pb = modelPath("mobilenet_v1_0.25_128_frozen.pb");
  auto convert = [&](const std::string& file, const std::vector<std::string>& extra) {
    return convertMobilenet(dir + "/" + file, extra);
  };
  CommandResult f = convert("f.tflite", {});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  CommandResult d = convert("d.tflite", {"--quantize=dynamic"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_TRUE(contains(d.out, "Operators: 33 (1 AVERAGE_POOL_2D, 15 CONV_2D, 13 DEPTHWISE_CONV_2D, 2 RESHAPE, 1 "
                              "SOFTMAX, 1 SQUEEZE)\n"))
      << d.out;
  const double ratio = double(fs::file_size(dir + "/d.tflite")) / double(fs::file_size(dir + "/f.tflite"));
  EXPECT_GT(ratio, 0.28);
  EXPECT_LT(ratio, 0.29);
  CommandResult tf1 = convert("tf1.tflite", {"--post_training_quantize"});
  ASSERT_EQ(tf1.exit_code, 0) << tf1.err;
  EXPECT_EQ(readAll(dir + "/tf1.tflite"), readAll(dir + "/d.tflite"));
  auto m = model::load(dir + "/d.tflite");
  ASSERT_TRUE(m.ok()) << m.error();
  int int8_weights = 0;
  for (const auto& n : m->graph.node()) {
    if (n.op() != "Const") continue;
    const bool int8 = n.attr().at("dtype").type() == tensorflow::DT_INT8;
    int8_weights += int8 ? 1 : 0;
    const mt::Quantization q = mt::quantizationOf(n, 0);
    if (n.name() == "MobilenetV1/Conv2d_0/weights") {
      EXPECT_FALSE(int8) << "864 elements stay float";
    }
    if (n.name() == "MobilenetV1/Conv2d_6_depthwise/depthwise_weights") {
      EXPECT_FALSE(int8) << "576 elements stay float";
    }
    if (n.name() == "MobilenetV1/Conv2d_7_depthwise/depthwise_weights") {
      EXPECT_TRUE(int8);
      EXPECT_EQ(q.scale.size(), 128u);
      EXPECT_EQ(q.quantized_dimension, 3);
    }
    if (n.name() == "MobilenetV1/Logits/Conv2d_1c_1x1/weights") {
      EXPECT_TRUE(int8);
      EXPECT_EQ(q.scale.size(), 1001u);
      EXPECT_EQ(q.quantized_dimension, 0);
    }
  }
  EXPECT_EQ(int8_weights, 19);
  // Float's top-1 on 6 of the 7 photos (chelsea flips as in int8); SQNR
  // between the int8 export's (about 19 dB) and float16's (44).
  for (const char* arithmetic : {"tflite-xnnpack", "tflite-builtin"}) {
    CommandResult c = runGdstudio({"compare", "--graph=" + pb, "--graph2=" + dir + "/d.tflite",
                                   "--output=MobilenetV1/Predictions/Reshape_1", "--dataset=" + dataPath("images"),
                                   std::string("--arithmetic=") + arithmetic});
    ASSERT_EQ(c.exit_code, 0) << c.err;
    EXPECT_TRUE(contains(c.out, "inputs\t7\ntop1_agreement\t6/7\n")) << c.out;
    EXPECT_TRUE(contains(c.out, "chelsea.png\t282\t288\t")) << c.out;
    const std::size_t at = c.out.find("mean_sqnr_db\t");
    ASSERT_NE(at, std::string::npos) << c.out;
    EXPECT_GT(std::stod(c.out.substr(at + 13)), 21.0) << arithmetic << "\n" << c.out;
    EXPECT_LT(std::stod(c.out.substr(at + 13)), 23.0) << arithmetic << "\n" << c.out;
  }
  // Arm NN has no hybrid kernels: the refusal names the layer and the way out.
  CommandResult armnn =
      runGdstudio({"run", "--graph=" + dir + "/d.tflite", "--input=" + dataPath("images/chelsea.png"),
                   "--out_dir=" + dir + "/out", "--arithmetic=armnn"});
  EXPECT_EQ(armnn.exit_code, 1);
  EXPECT_TRUE(contains(armnn.err, "is outside the Arm NN arithmetic; run it with --arithmetic=tflite-xnnpack or "
                                  "tflite-builtin"))
      << armnn.err;
  // Dynamic range needs no data.
  CommandResult data = convert("x.tflite", {"--quantize=dynamic", "--calibration_data=" + dataPath("images")});
  EXPECT_EQ(data.exit_code, 1);
  EXPECT_EQ(data.err, "error: --calibration_data is for --quantize=int8 and int16x8 (--quantize=dynamic converts the weights "
                      "alone and needs no data)\n");
  EXPECT_FALSE(fs::exists(dir + "/x.tflite"));
}

// --quantize=int16x8 (TensorFlow's 16x8: --target_ops=EXPERIMENTAL_TFLITE_
// BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8 with representative data): int16
// activations at zero point 0, int8 weights per channel, int64 biases,
// SOFTMAX at 1/32768. On the 100 speech clips it keeps float's top-1 on
// every clip, where the int8 export keeps it on 95; an operator without an
// int16 form here stays float and the converter says which.
TEST(CliTflite, Int16x8KeepsFloatsTopOneOnEveryKeywordClip) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  const std::string pb = modelPath("kws_ds_cnn_s.pb");
  auto convert = [&](const std::string& file, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"tflite_convert", "--graph_def_file=" + pb, "--output_file=" + dir + "/" + file,
                                     "--input_arrays=Mfcc", "--input_shapes=1,49,10", "--output_arrays=labels_softmax"};
    args.insert(args.end(), extra.begin(), extra.end());
    return runGdstudio(args);
  };
  const std::string data = "--calibration_data=" + dataPath("speech");
  CommandResult q = convert("q16.tflite", {"--quantize=int16x8", data});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_TRUE(contains(q.out, "Operators: 17 (1 AVERAGE_POOL_2D, 5 CONV_2D, 4 DEPTHWISE_CONV_2D, 1 DEQUANTIZE, 1 "
                              "FULLY_CONNECTED, 1 QUANTIZE, 2 RESHAPE, 1 SOFTMAX, 1 SQUEEZE)\n"))
      << q.out;
  EXPECT_TRUE(contains(q.out, "Calibrated on 100 inputs")) << q.out;
  CommandResult tf = convert("tf.tflite", {"--target_ops=EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8",
                                           data});
  ASSERT_EQ(tf.exit_code, 0) << tf.err;
  EXPECT_EQ(readAll(dir + "/tf.tflite"), readAll(dir + "/q16.tflite"));
  auto m = model::load(dir + "/q16.tflite");
  ASSERT_TRUE(m.ok()) << m.error();
  int biases = 0, int16_tensors = 0;
  for (const auto& n : m->graph.node()) {
    if (n.op() == "Const" && n.attr().at("dtype").type() == tensorflow::DT_INT64) ++biases;
    if (!mt::isDialectOp(n.op()) || mt::outputType(n, 0) != tensorflow::DT_INT16) continue;
    ++int16_tensors;
    const mt::Quantization a = mt::quantizationOf(n, 0);
    ASSERT_EQ(a.zero_point.size(), 1u) << n.name();
    EXPECT_EQ(a.zero_point[0], 0) << n.name();
    if (n.op() == "tfl.softmax") {
      EXPECT_EQ(a.scale[0], 1.0f / 32768) << n.name();
    }
    if (n.op() == "tfl.quantize") {
      EXPECT_EQ(n.name(), "Mfcc_int16");
    }
  }
  EXPECT_EQ(biases, 10);  // 5 CONV_2D, 4 DEPTHWISE_CONV_2D, 1 FULLY_CONNECTED
  EXPECT_EQ(int16_tensors, 16);  // every operator but the DEQUANTIZE
  CommandResult c = runGdstudio({"compare", "--graph=" + pb, "--graph2=" + dir + "/q16.tflite",
                                 "--output=labels_softmax", "--dataset=" + dataPath("speech"),
                                 "--label_map=" + modelPath("kws_labels.txt")});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_TRUE(contains(c.out, "inputs\t100\ntop1_agreement\t100/100\naccuracy_float\t82/100\naccuracy_8bit\t82/100\n"))
      << c.out;
  // int16 at the model's edges.
  CommandResult io = convert("io.tflite", {"--quantize=int16x8", data, "--inference_input_type=int16",
                                           "--inference_output_type=int16"});
  ASSERT_EQ(io.exit_code, 0) << io.err;
  auto io_model = model::load(dir + "/io.tflite");
  ASSERT_TRUE(io_model.ok()) << io_model.error();
  for (const auto& n : io_model->graph.node())
    if (n.op() == "Placeholder") {
      EXPECT_EQ(n.attr().at("dtype").type(), tensorflow::DT_INT16);
    }
  // inception_mini (its input scaling MUL and SUB, pools, concatenations)
  // is int16 throughout; TANH is int16 too (TFLite's table kernel), a SUM
  // has no int16 form here and stays float.
  CommandResult inception = runGdstudio(
      {"tflite_convert", "--graph_def_file=" + modelPath("generated/inception_mini.pb"),
       "--output_file=" + dir + "/inception.tflite", "--output_arrays=softmax", "--quantize=int16x8",
       "--calibration_data=" + dataPath("images")});
  ASSERT_EQ(inception.exit_code, 0) << inception.err;
  EXPECT_FALSE(contains(inception.out, "Note: 16x8")) << inception.out;
  EXPECT_TRUE(contains(inception.out, "1 DEQUANTIZE, 1 FULLY_CONNECTED, 2 MAX_POOL_2D, 1 MUL, 5 QUANTIZE")) << inception.out;
  // x [1, 8] -> `op` -> Relu z, converted 16x8 on random inputs.
  auto convert16x8 = [&](const std::string& name, const std::string& op_nodes) {
    {
      std::ofstream g(dir + "/" + name + ".pbtxt");
      g << "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
           "attr { key: 'shape' value { shape { dim { size: 1 } dim { size: 8 } } } } }\n"
        << op_nodes << "node { name: 'z' op: 'Relu' input: 'y' attr { key: 'T' value { type: DT_FLOAT } } }\n";
    }
    return runGdstudio({"tflite_convert", "--graph_def_file=" + dir + "/" + name + ".pbtxt",
                        "--output_file=" + dir + "/" + name + ".tflite", "--output_arrays=z", "--quantize=int16x8",
                        "--calibration_data=random:4"});
  };
  CommandResult tanh =
      convert16x8("tanh", "node { name: 'y' op: 'Tanh' input: 'x' attr { key: 'T' value { type: DT_FLOAT } } }\n");
  ASSERT_EQ(tanh.exit_code, 0) << tanh.err;
  EXPECT_FALSE(contains(tanh.out, "Note: 16x8")) << tanh.out;
  EXPECT_TRUE(contains(tanh.out, "Operators: 4 (1 DEQUANTIZE, 1 QUANTIZE, 1 RELU, 1 TANH)")) << tanh.out;
  auto tanh_model = model::load(dir + "/tanh.tflite");
  ASSERT_TRUE(tanh_model.ok()) << tanh_model.error();
  int int16_tanh = 0;
  for (const auto& n : tanh_model->graph.node())
    if (n.op() == "tfl.tanh" && n.attr().at(model::tflite::kOutputTypesAttr).list().type(0) == tensorflow::DT_INT16)
      ++int16_tanh;
  EXPECT_EQ(int16_tanh, 1);
  CommandResult sum = convert16x8(
      "sum",
      "node { name: 'axes' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: 'value' value "
      "{ tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 1 } } } }\n"
      "node { name: 'y' op: 'Sum' input: 'x' input: 'axes' attr { key: 'T' value { type: DT_FLOAT } } "
      "attr { key: 'Tidx' value { type: DT_INT32 } } attr { key: 'keep_dims' value { b: true } } }\n");
  ASSERT_EQ(sum.exit_code, 0) << sum.err;
  EXPECT_TRUE(contains(sum.out, "Note: 16x8: SUM stays float (between DEQUANTIZE and QUANTIZE)")) << sum.out;
  EXPECT_TRUE(contains(sum.out, "Operators: 4 (1 DEQUANTIZE, 1 QUANTIZE, 1 RELU, 1 SUM)")) << sum.out;
  // Arm NN 20.08's parser reads no int64 tensor.
  model::HostTensor mfcc = model::HostTensor::zeros(tensorflow::DT_FLOAT, {1, 49, 10});
  ASSERT_TRUE(model::writeNpy(dir + "/mfcc.npy", mfcc).ok());
  CommandResult armnn = runGdstudio({"run", "--graph=" + dir + "/q16.tflite", "--input=" + dir + "/mfcc.npy",
                                     "--out_dir=" + dir + "/out", "--arithmetic=armnn"});
  EXPECT_EQ(armnn.exit_code, 1);
  EXPECT_TRUE(contains(armnn.err, "16x8 (int16 activations) is outside the Arm NN arithmetic")) << armnn.err;
  // Errors, and nothing written.
  const std::vector<std::pair<std::vector<std::string>, std::string>> errors = {
      {{"--quantize=int16x8"},
       "error: --quantize=int16x8 needs --calibration_data=DIR (representative inputs for the activation ranges), "
       "or --calibration_data=random:100 to try it without data\n"},
      {{"--quantize=int16x8", data, "--inference_input_type=int8"},
       "error: --inference_input_type=int8 does not fit --quantize=int16x8, whose activations are int16\n"},
      {{"--quantize=int8", data, "--inference_output_type=int16"},
       "error: --inference_output_type=int16 does not fit --quantize=int8, whose activations are int8\n"},
      {{"--target_ops=EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8", "--quantize=int8", data},
       "error: --target_ops=EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8 is 16x8; it cannot go with "
       "--quantize=int8\n"},
      {{"--quantize=int16x8", data, "--accuracy_budget=top1:1"},
       "error: --accuracy_budget chooses the operators an int8 model keeps float: it needs --quantize=int8\n"},
  };
  for (const auto& [flags, message] : errors) {
    CommandResult e = convert("x.tflite", flags);
    EXPECT_EQ(e.exit_code, 1) << e.out;
    EXPECT_EQ(e.err, message);
    EXPECT_FALSE(fs::exists(dir + "/x.tflite"));
  }
}

TEST(CliTflite, KeywordSpottingStartsAfterTheAudioFrontEnd) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  const std::string pb = modelPath("kws_ds_cnn_s.pb");
  CommandResult bad = runGdstudio({"tflite_convert", "--graph_def_file=" + pb, "--output_file=" + dir + "/k.tflite"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "error: input 'wav_data' is string: it feeds the audio front end, and TensorFlow Lite has no "
                     "builtin for node 'Mfcc' (Mfcc); start the model after it, e.g. --input_arrays=Mfcc "
                     "--input_shapes=1,49,10 for the speech_commands graphs\n");
  EXPECT_FALSE(fs::exists(dir + "/k.tflite"));
  // Calibrated on the WAV clips: the graph's own input reads them, the
  // converted model's input is Mfcc's output.
  CommandResult ok = runGdstudio({"tflite_convert", "--graph_def_file=" + pb, "--output_file=" + dir + "/k.tflite",
                                  "--input_arrays=Mfcc", "--input_shapes=1,49,10", "--output_arrays=labels_softmax",
                                  "--quantize=int8", "--calibration_data=" + dataPath("speech")});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(contains(ok.out, "Calibrated on 100 inputs")) << ok.out;
  EXPECT_TRUE(fs::exists(dir + "/k.tflite"));
}

// The keyword models' accuracy on the 100 speech clips for float,
// TensorFlow's 8-bit recipe and the TFLite int8 export, with the commands of
// the user guide's "Ship it" section. The .tflite starts at Mfcc: compare
// feeds it the float graph's Mfcc output for each clip, so both variants
// share the float front end. Every figure is deterministic.
TEST(CliTflite, KeywordAccuracyFloatTfRecipeAndTfliteInt8) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  struct Expected {
    const char* model;
    const char* eight_bit;  // compare's summary against TensorFlow's recipe
    const char* tflite;     // against the TFLite int8 export
  };
  const Expected expected[] = {
      {"kws_ds_cnn_s", "inputs\t100\ntop1_agreement\t79/100\naccuracy_float\t82/100\naccuracy_8bit\t71/100\n",
       "inputs\t100\ntop1_agreement\t95/100\naccuracy_float\t82/100\naccuracy_8bit\t81/100\n"},
      {"kws_cnn_s", "inputs\t100\ntop1_agreement\t94/100\naccuracy_float\t80/100\naccuracy_8bit\t85/100\n",
       "inputs\t100\ntop1_agreement\t96/100\naccuracy_float\t80/100\naccuracy_8bit\t82/100\n"},
  };
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.model);
    const std::string pb = modelPath(std::string(e.model) + ".pb");
    const std::string eight = dir + "/" + e.model + "_8bit.pb", tflite = dir + "/" + e.model + "_int8.tflite";
    CommandResult t = runGdstudio({"transform", "--in_graph=" + pb, "--out_graph=" + eight, "--inputs=wav_data",
                                   "--outputs=labels_softmax",
                                   "--transforms=remove_nodes(op=Identity, op=CheckNumerics) "
                                   "fold_constants(ignore_errors=true) fold_batch_norms fold_old_batch_norms "
                                   "quantize_weights quantize_nodes strip_unused_nodes sort_by_execution_order"});
    ASSERT_EQ(t.exit_code, 0) << t.err;
    CommandResult q = runGdstudio({"tflite_convert", "--graph_def_file=" + pb, "--output_file=" + tflite,
                                   "--input_arrays=Mfcc", "--input_shapes=1,49,10", "--output_arrays=labels_softmax",
                                   "--quantize=int8", "--calibration_data=" + dataPath("speech")});
    ASSERT_EQ(q.exit_code, 0) << q.err;
    for (const auto& [graph2, summary] : {std::make_pair(eight, e.eight_bit), std::make_pair(tflite, e.tflite)}) {
      CommandResult c = runGdstudio({"compare", "--graph=" + pb, "--graph2=" + graph2, "--output=labels_softmax",
                                     "--dataset=" + dataPath("speech"), "--label_map=" + modelPath("kws_labels.txt")});
      ASSERT_EQ(c.exit_code, 0) << c.err;
      EXPECT_TRUE(contains(c.out, summary)) << c.out.substr(c.out.find("\ninputs"));
    }
  }
}

// The keyword LSTM and CRNN (tf.nn.dynamic_rnn while loops) on the 100
// speech clips: the loops unrolled, the float .tflite agrees with the graph
// on every clip and the int8 one as the figures say.
TEST(CliTflite, KeywordRecurrentModelsConvertUnrolled) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  struct Expected {
    const char* model;
    const char* frames;
    const char* operators;  // the float export's
    const char* float_summary;
    const char* int8_summary;
  };
  const Expected expected[] = {
      {"kws_lstm_s", "1,25,10",
       "Operators: 504 (125 ADD, 25 CONCATENATION, 51 FULLY_CONNECTED, 75 LOGISTIC, 148 MUL, 2 RESHAPE, 1 SOFTMAX, "
       "25 SPLIT, 50 TANH, 1 TRANSPOSE, 1 UNPACK)\n",
       "inputs\t100\ntop1_agreement\t100/100\naccuracy_float\t80/100\naccuracy_8bit\t80/100\n",
       "inputs\t100\ntop1_agreement\t91/100\naccuracy_float\t80/100\naccuracy_8bit\t76/100\n"},
      {"kws_crnn_s", "1,49,10",
       "Operators: 489 (40 ADD, 80 CONCATENATION, 1 CONV_2D, 82 FULLY_CONNECTED, 40 LOGISTIC, 120 MUL, 3 RESHAPE, "
       "1 SOFTMAX, 40 SPLIT, 40 SUB, 40 TANH, 1 TRANSPOSE, 1 UNPACK)\n",
       "inputs\t100\ntop1_agreement\t100/100\naccuracy_float\t87/100\naccuracy_8bit\t87/100\n",
       "inputs\t100\ntop1_agreement\t96/100\naccuracy_float\t87/100\naccuracy_8bit\t86/100\n"},
  };
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.model);
    const std::string pb = modelPath(std::string(e.model) + ".pb");
    const std::vector<std::string> convert = {"tflite_convert", "--graph_def_file=" + pb, "--input_arrays=Mfcc",
                                              std::string("--input_shapes=") + e.frames,
                                              "--output_arrays=labels_softmax"};
    for (bool int8 : {false, true}) {
      const std::string out = dir + "/" + e.model + (int8 ? "_int8.tflite" : ".tflite");
      std::vector<std::string> args = convert;
      args.push_back("--output_file=" + out);
      if (int8) {
        args.push_back("--quantize=int8");
        args.push_back("--calibration_data=" + dataPath("speech"));
      }
      CommandResult q = runGdstudio(args);
      ASSERT_EQ(q.exit_code, 0) << q.err;
      if (!int8) {
        EXPECT_TRUE(contains(q.out, e.operators)) << q.out;
      }
      CommandResult c = runGdstudio({"compare", "--graph=" + pb, "--graph2=" + out, "--output=labels_softmax",
                                     "--dataset=" + dataPath("speech"), "--label_map=" + modelPath("kws_labels.txt")});
      ASSERT_EQ(c.exit_code, 0) << c.err;
      EXPECT_TRUE(contains(c.out, int8 ? e.int8_summary : e.float_summary)) << c.out.substr(c.out.find("\ninputs"));
    }
  }
}

TEST(CliTflite, SavedModelKeepsItsSignature) {
  GDS_REQUIRE_SHARED();
  const std::string out = tempDir() + "/hp2.tflite";
  CommandResult r = runGdstudio({"tflite_convert", "--saved_model_dir=" + modelPath("tfserving_half_plus_two_savedmodel"),
                                 "--output_file=" + out, "--input_shapes=1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "Operators: 2 (1 ADD, 1 MUL)\n")) << r.out;
  auto m = model::load(out);
  ASSERT_TRUE(m.ok()) << m.error();
  ASSERT_EQ(m->signatures.size(), 1u);
  EXPECT_EQ(m->signatures[0].key, "serving_default");
  EXPECT_EQ(m->signatures[0].inputs, (std::vector<std::pair<std::string, std::string>>{{"x", "x:0"}}));
  // The output tensor keeps the output array's name, as TensorFlow's converter names it.
  EXPECT_EQ(m->signatures[0].outputs, (std::vector<std::pair<std::string, std::string>>{{"y", "y:0"}}));
}

// A TF2 SavedModel's signature function is frozen into a graph whose input
// and output are named after the signature's keys: the .tflite records the
// signature with those names.
TEST(CliTflite, Tf2SavedModelKeepsItsSignature) {
  GDS_REQUIRE_SHARED();
  const std::string out = tempDir() + "/conv1d.tflite";
  CommandResult r =
      runGdstudio({"tflite_convert", "--saved_model_dir=" + modelPath("tf2/nordpool_conv1d"), "--output_file=" + out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto m = model::load(out);
  ASSERT_TRUE(m.ok()) << m.error();
  ASSERT_EQ(m->signatures.size(), 1u);
  EXPECT_EQ(m->signatures[0].key, "serving_default");
  EXPECT_EQ(m->signatures[0].inputs, (std::vector<std::pair<std::string, std::string>>{{"input_1", "input_1:0"}}));
  // The output tensor is named after the output array, as TensorFlow's
  // converter names it.
  EXPECT_EQ(m->signatures[0].outputs, (std::vector<std::pair<std::string, std::string>>{{"dense", "dense:0"}}));
}

TEST(CliTflite, FlagErrorsAndUnexportableOpsWriteNothing) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  const std::string pb = modelPath("mobilenet_v1_0.25_128_frozen.pb");
  const std::string out = dir + "/x.tflite";
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"--output_file=" + out}, "error: give exactly one of --graph_def_file=FROZEN.pb, --saved_model_dir=DIR and --keras_model_file=MODEL.keras\n"},
      {{"--graph_def_file=" + pb}, "error: --output_file is required (where to write the .tflite)\n"},
      {{"--graph_def_file=" + pb, "--output_file=" + out, "--num_threads=x"},
       "error: flag --num_threads expects an integer, got 'x'\n"},
      {{"--graph_def_file=" + pb, "--output_file=" + out, "--quantize=int4"},
       "error: --quantize: 'int4' is not a quantization (expected int8, float16, dynamic or int16x8)\n"},
      {{"--graph_def_file=" + pb, "--output_file=" + out, "--quantize=int8"},
       "error: --quantize=int8 needs --calibration_data=DIR (representative inputs for the activation ranges), or "
       "--calibration_data=random:100 to try it without data\n"},
      {{"--graph_def_file=" + pb, "--output_file=" + out, "--inference_output_type=uint8"},
       "error: --inference_output_type must be float, int8 or int16 (16x8), got 'uint8'\n"},
      {{"--graph_def_file=" + pb, "--output_file=" + out, "--inference_input_type=int8"},
       "error: int8 model inputs or outputs need --quantize=int8\n"},
      {{"--graph_def_file=" + pb, "--output_file=" + out, "--input_arrays=input,other", "--input_shapes=1,128,128,3"},
       "error: --input_shapes gives 1 shapes for 2 --input_arrays (separate the shapes with ':')\n"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"tflite_convert"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    CommandResult r = runGdstudio(args);
    EXPECT_EQ(r.exit_code, 1) << c.error;
    EXPECT_EQ(r.err, c.error);
    EXPECT_FALSE(fs::exists(out)) << c.error;
  }
}

TEST(CliTflite, RunAndBenchmarkTensorFlowMadeInt8Files) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  // hello_world_int8: Arm NN's output for the stored input, bit for bit.
  CommandResult r = runGdstudio({"run", "--graph=" + modelPath("tflite/hello_world_int8.tflite"),
                                 "--input=serving_default_dense_input=" + modelPath("tflite/hello_world_int8.input.npy"),
                                 "--output=StatefulPartitionedCall", "--out_dir=" + dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto got = model::readNpy(dir + "/StatefulPartitionedCall.npy");
  auto expected = model::readNpy(modelPath("tflite/hello_world_int8.output.npy"));
  ASSERT_TRUE(got.ok() && expected.ok()) << r.out;
  ASSERT_EQ(got->dtype, tensorflow::DT_INT8);
  ASSERT_EQ(got->shape, expected->shape);
  EXPECT_EQ(got->valueAt(0), expected->valueAt(0));
  CommandResult b = runGdstudio({"benchmark", "--graph=" + modelPath("tflite/openmv_mobilenet_int8.tflite"),
                                 "--input_layer=serving_default_input_4", "--input_layer_shape=1,96,96,1",
                                 "--input_layer_type=int8", "--output_layer=StatefulPartitionedCall", "--num_runs=3",
                                 "--show_summary=true"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_TRUE(contains(b.out, "Number of nodes executed: 87\n")) << b.out;
  EXPECT_TRUE(contains(b.out, "tfl.conv_2d\t       15\t")) << b.out;
  EXPECT_TRUE(contains(b.out, "tfl.depthwise_conv_2d\t       13\t")) << b.out;
}

TEST(CliTflite, CompareFloatGraphWithItsInt8Export) {
  GDS_REQUIRE_SHARED();
  const std::string dir = tempDir();
  const std::string pb = modelPath("mobilenet_v1_0.25_128_frozen.pb");
  CommandResult q = runGdstudio({"tflite_convert", "--graph_def_file=" + pb, "--output_file=" + dir + "/q.tflite",
                                 "--input_arrays=input", "--output_arrays=MobilenetV1/Predictions/Reshape_1",
                                 "--quantize=int8", "--calibration_data=" + dataPath("images")});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  CommandResult c = runGdstudio({"compare", "--graph=" + pb, "--graph2=" + dir + "/q.tflite",
                                 "--output=MobilenetV1/Predictions/Reshape_1", "--dataset=" + dataPath("images")});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  // The int8 .tflite run with the arithmetic of TensorFlow Lite's XNNPACK
  // delegate (the default; bit-exact with it) keeps float's top-1 on 5 of
  // the 7 photos: chelsea's flips (282, 288), as on the device.
  EXPECT_TRUE(contains(c.out, "inputs\t7\ntop1_agreement\t5/7\n")) << c.out;
}

TEST(CliTflite, CorruptTfliteFilesFailCleanly) {
  GDS_REQUIRE_SHARED();
  auto bytes = model::readFile(modelPath("tflite/openmv_mobilenet_int8.tflite"));
  ASSERT_TRUE(bytes.ok());
  const std::string path = tempDir() + "/cut.tflite";
  std::ofstream(path, std::ios::binary) << bytes->substr(0, 100000);
  CommandResult r = runGdstudio({"summarize", "--in_graph=" + path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: " + path +
                       ": corrupt or truncated TensorFlow Lite model (the FlatBuffers verifier rejects it, 100000 "
                       "bytes)\n");
  CommandResult ok = runGdstudio({"summarize", "--in_graph=" + modelPath("tflite/micro_speech_int8.tflite"),
                                  "--format=json"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(contains(ok.out, "\"input_tensors\"")) << ok.out;
  EXPECT_TRUE(contains(ok.out, "\"quantization\": \"scale=0.101716 zero_point=-128\"")) << ok.out;
}

}  // namespace
}  // namespace gds::test
