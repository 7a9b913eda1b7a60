// TensorFlow's tools' command lines as the guides write them: logging flags,
// ~ in paths, --num_threads, freeze_graph's and inspect_checkpoint's flags,
// compare_graphs' exit status, benchmark_model's TestReporter output,
// `compare --input=NAME=FILE`, CSV quoting and the JSON records of
// transform and calibrate.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "model/io.h"
#include "model/npy.h"
#include "test_log.pb.h"
#include "tests/test_util.h"

namespace gds {
namespace {
namespace fs = std::filesystem;

const char* kMobilenet = "mobilenet_v1_0.25_128_frozen.pb";
const char* kOutput = "MobilenetV1/Predictions/Reshape_1";

TEST(CliTensorFlowFlags, LoggingFlagsOnEveryCommand) {
  GDS_REQUIRE_SHARED();
  // The optimizing guide's benchmark line passes --logtostderr.
  auto r = test::runGdstudio({"benchmark", "--graph=" + test::modelPath(kMobilenet), "--input_layer=input",
                              "--input_layer_shape=1,128,128,3", "--input_layer_type=float",
                              std::string("--output_layer=") + kOutput, "--show_run_order=false", "--show_time=false",
                              "--show_memory=false", "--show_summary=true", "--show_flops=true", "--max_num_runs=2",
                              "--warmup_runs=1", "--logtostderr"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("FLOPs estimate: "), std::string::npos);
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{"--alsologtostderr", "--v=2"}, {"--minloglevel=1", "--stderrthreshold=0"},
        {"--nologtostderr", "--vmodule=foo=2"}}) {
    std::vector<std::string> args = {"summarize", "--in_graph=" + test::modelPath(kMobilenet)};
    args.insert(args.end(), flags.begin(), flags.end());
    auto s = test::runGdstudio(args);
    EXPECT_EQ(s.exit_code, 0) << flags[0] << ": " << s.err;
  }
  // --minloglevel=2 hides warnings, as TensorFlow's logging does.
  auto warned = test::runGdstudio({"transform", "--in_graph=" + test::modelPath(kMobilenet),
                                   "--out_graph=" + test::tempDir() + "/o.pb", "--outputs=nope",
                                   "--transforms=remove_device"});
  ASSERT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_NE(warned.err.find("warning: --outputs names 'nope'"), std::string::npos) << warned.err;
  auto quiet = test::runGdstudio({"transform", "--in_graph=" + test::modelPath(kMobilenet),
                                  "--out_graph=" + test::tempDir() + "/o.pb", "--outputs=nope",
                                  "--transforms=remove_device", "--minloglevel=2"});
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  // Help names them; an unknown flag still is an error.
  auto help = test::runGdstudio({"run", "--help"});
  EXPECT_NE(help.out.find("TensorFlow's logging flags are accepted too: --logtostderr, --alsologtostderr"),
            std::string::npos);
  auto bad = test::runGdstudio({"run", "--logtostdout"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err.rfind("error: unknown flag --logtostdout for 'run'; valid flags: --graph, --input, ", 0), 0u)
      << bad.err;
}

TEST(CliTensorFlowFlags, TildeInPathFlagsIsTheHomeFolder) {
  GDS_REQUIRE_SHARED();
  const std::string home = test::tempDir();
  fs::copy_file(test::modelPath(kMobilenet), home + "/m.pb");
  const char* old_home = std::getenv("HOME");
  const std::string saved = old_home ? old_home : "";
  setenv("HOME", home.c_str(), 1);  // the child inherits it
  auto r = test::runGdstudio({"transform", "--in_graph=~/m.pb", "--out_graph=~/out/../o.pb", "--inputs=input",
                              std::string("--outputs=") + kOutput, "--transforms=remove_device"});
  auto s = test::runGdstudio({"summarize", "--in_graph=~/m.pb"});
  if (old_home) setenv("HOME", saved.c_str(), 1);
  else unsetenv("HOME");
  EXPECT_EQ(s.exit_code, 0) << s.err;
  // ~/out does not exist: the path is expanded, then the OS refuses it.
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(home + "/out/../o.pb"), std::string::npos) << r.err;
  auto ok = test::runGdstudio({"summarize", "--in_graph=~nosuchuser_gds/m.pb"});
  EXPECT_EQ(ok.err, "error: ~nosuchuser_gds/m.pb: no such file\n");  // an unknown user stays as written
}

TEST(CliTensorFlowFlags, NumThreadsOneMeaningValidated) {
  GDS_REQUIRE_SHARED();
  const std::string model = test::modelPath(kMobilenet);
  const std::string photo = "--input=" + test::dataPath("images/chelsea.png");
  const std::string output = std::string("--output=") + kOutput;
  const std::vector<std::vector<std::string>> lines = {
      {"benchmark", "--graph=" + model, "--input_layer=input", std::string("--output_layer=") + kOutput},
      {"run", "--graph=" + model, output, "--out_dir=" + test::tempDir()},
      {"compare", "--graph=" + model, "--graph2=" + model, output, photo},
      {"calibrate", "--graph=" + model, "--output_graph=" + test::tempDir() + "/x.pb", photo},
  };
  for (auto args : lines) {
    args.push_back("--num_threads=100000");
    auto r = test::runGdstudio(args);
    EXPECT_EQ(r.exit_code, 1) << args[0];
    EXPECT_EQ(r.err,
              "error: --num_threads must be -1 or 0 (all cores) or a thread count from 1 to 1024, got 100000\n")
        << args[0];
  }
  auto big = test::runGdstudio({"run", "--graph=" + model, "--num_threads=99999999999", "--output=x", "--out_dir=d"});
  EXPECT_EQ(big.err, "error: flag --num_threads is out of range: 99999999999\n");
  // -1 and 0 both mean every core; the log line says what was asked.
  for (const char* n : {"-1", "0", "2"}) {
    auto r = test::runGdstudio({"benchmark", "--graph=" + model, "--input_layer=input", "--input_layer_shape=1,128,128,3",
                                std::string("--output_layer=") + kOutput, "--max_num_runs=1", "--num_threads=" + std::string(n),
                                "--show_run_order=false"});
    ASSERT_EQ(r.exit_code, 0) << n << ": " << r.err;
    EXPECT_NE(r.out.find("Num threads: [" + std::string(n) + "]"), std::string::npos);
  }
}

TEST(CliFreezeGraphFlags, InputNodeNamesAndCheckpointVersion) {
  GDS_REQUIRE_SHARED();
  const std::string prefix = test::modelPath("mlnet_cifar_checkpoint/model.ckpt");
  const std::string out = test::tempDir() + "/frozen.pb";
  // The book's line: --input_node_names is not one of freeze_graph's flags, and
  // freeze_graph passes over it.
  auto r = test::runGdstudio({"freeze", "--input_graph=" + prefix + ".meta", "--input_checkpoint=" + prefix,
                              "--input_binary=true", "--input_node_names=Input", "--output_node_names=Output",
                              "--output_graph=" + out, "--checkpoint_version=2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Converted 3 variables to const ops.\n", 0), 0u);
  EXPECT_NE(r.err.find("note: --input_node_names is not needed to freeze"), std::string::npos) << r.err;
  auto v1 = test::runGdstudio({"freeze", "--input_graph=" + prefix + ".meta", "--input_checkpoint=" + prefix,
                               "--output_node_names=Output", "--output_graph=" + out, "--checkpoint_version=1"});
  EXPECT_EQ(v1.exit_code, 1);
  EXPECT_EQ(v1.err.rfind("error: --checkpoint_version=1: V1 checkpoints", 0), 0u) << v1.err;
  auto v3 = test::runGdstudio({"freeze", "--input_graph=" + prefix + ".meta", "--input_checkpoint=" + prefix,
                               "--output_node_names=Output", "--output_graph=" + out, "--checkpoint_version=3"});
  EXPECT_EQ(v3.err, "error: --checkpoint_version: Invalid checkpoint version (must be '1' or '2'): 3\n");
}

TEST(CliInspectCheckpoint, AllTensorNamesAndPrintOptions) {
  GDS_REQUIRE_SHARED();
  const std::string prefix = test::modelPath("tfserving_half_plus_two_savedmodel/variables/variables");
  auto names = test::runGdstudio({"checkpoint", "--file_name=" + prefix, "--all_tensor_names"});
  ASSERT_EQ(names.exit_code, 0) << names.err;
  EXPECT_EQ(names.out, "tensor_name:  a\ntensor_name:  a2\ntensor_name:  b\ntensor_name:  c\ntensor_name:  c2\n");
  auto all = test::runGdstudio({"checkpoint", "--file_name=" + prefix, "--all_tensors"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.out.substr(0, all.out.find("tensor_name:  b")), "tensor_name:  a\n0.5\ntensor_name:  a2\n0.5\n");
  // NumPy's array printing, and --printoptions as numpy.set_printoptions.
  const std::string iris = test::modelPath("jpmml_dnn_classifier_iris_savedmodel");
  auto w = test::runGdstudio({"checkpoint", "--file_name=" + iris, "--tensor_name=dnn/logits/biases"});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_EQ(w.out.rfind("tensor_name:  dnn/logits/biases\n[", 0), 0u) << w.out;
  EXPECT_EQ(std::count(w.out.begin(), w.out.end(), '\n'), 2) << w.out;
  auto summarized = test::runGdstudio({"checkpoint", "--file_name=" + iris, "--tensor_name=dnn/logits/biases",
                                       "--printoptions", "threshold=2", "edgeitems=1", "precision=2"});
  ASSERT_EQ(summarized.exit_code, 0) << summarized.err;
  EXPECT_NE(summarized.out.find(" ... "), std::string::npos) << summarized.out;
  auto bad = test::runGdstudio({"checkpoint", "--file_name=" + iris, "--printoptions", "colour=red"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err, "error: --printoptions: 'colour' is not a valid printoption.\n");
  auto form = test::runGdstudio({"checkpoint", "--file_name=" + iris, "--printoptions=threshold"});
  EXPECT_EQ(form.err, "error: --printoptions: 'threshold' is not in the form k=v.\n");
}

TEST(CliDiff, ExitsLikeCompareGraphs) {
  GDS_REQUIRE_SHARED();
  const std::string a = test::modelPath(kMobilenet), b = test::modelPath("mobilenet_v1_0.25_128_quantized.pb");
  auto same = test::runGdstudio({"diff", a, a});
  EXPECT_EQ(same.exit_code, 0);
  EXPECT_NE(same.out.find("Graphs are equal.\n"), std::string::npos);
  auto differ = test::runGdstudio({"diff", a, b});
  EXPECT_EQ(differ.exit_code, 1);
  EXPECT_EQ(differ.out.find("Graphs are equal."), std::string::npos);
  auto json = test::runGdstudio({"diff", a, b, "--format=json"});
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(json.out)["equal"], false);
  auto missing = test::runGdstudio({"diff", a, "/no/such.pb"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "error: /no/such.pb: no such file\n");
  auto one = test::runGdstudio({"diff", a});
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_EQ(one.err, "error: 'diff' needs two models, BEFORE and AFTER (got 1 argument)\n");
}

TEST(CliBenchmark, OutputPrefixWritesTestReporterEntries) {
  GDS_REQUIRE_SHARED();
  const std::string dir = test::tempDir();
  const std::string prefix = dir + "/results_";
  auto r = test::runGdstudio({"benchmark", "--graph=" + test::modelPath(kMobilenet), "--input_layer=input",
                              "--input_layer_shape=1,128,128,3", std::string("--output_layer=") + kOutput,
                              "--max_num_runs=3", "--warmup_runs=2", "--benchmark_name=mobilenet/v1",
                              "--output_prefix=" + prefix});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto entry = [&](const std::string& file) {
    tensorflow::BenchmarkEntries entries;
    EXPECT_TRUE(entries.ParseFromString(test::readAll(prefix + file))) << file;
    EXPECT_EQ(entries.entry_size(), 1) << file;
    return entries.entry_size() ? entries.entry(0) : tensorflow::BenchmarkEntry();
  };
  // '/' in the name is spelled "__" in the file name, as TestReporter does.
  auto main = entry("mobilenet__v1");
  EXPECT_EQ(main.name(), "mobilenet/v1");
  EXPECT_EQ(main.iters(), 3);
  EXPECT_GT(main.wall_time(), 0);
  EXPECT_DOUBLE_EQ(main.cpu_time(), -1.0 / 3);
  EXPECT_GT(main.throughput(), 0);  // MB/s of the 1x128x128x3 float input
  EXPECT_EQ(entry("mobilenet__v1_meta-init").iters(), 1);
  EXPECT_EQ(entry("mobilenet__v1_meta-first-inference").iters(), 2);
  EXPECT_EQ(entry("mobilenet__v1_meta-init-plus-first-inference").name(), "mobilenet/v1_meta-init-plus-first-inference");
  auto conv = entry("mobilenet__v1__FusedConv2D");
  EXPECT_EQ(conv.name(), "mobilenet/v1__FusedConv2D");
  EXPECT_EQ(conv.throughput(), -1);
  EXPECT_NE(r.err.find("note: Outputting: [_FusedConv2D]"), std::string::npos) << r.err;
  // TestReporter refuses to overwrite; --output_prefix needs a name.
  auto again = test::runGdstudio({"benchmark", "--graph=" + test::modelPath(kMobilenet), "--input_layer=input",
                                  "--input_layer_shape=1,128,128,3", std::string("--output_layer=") + kOutput,
                                  "--max_num_runs=1", "--benchmark_name=mobilenet/v1", "--output_prefix=" + prefix});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("Cannot create TestReporter, file exists: " + prefix + "mobilenet__v1"), std::string::npos);
  auto unnamed = test::runGdstudio({"benchmark", "--graph=" + test::modelPath(kMobilenet), "--input_layer=input",
                                    std::string("--output_layer=") + kOutput, "--output_prefix=" + prefix});
  EXPECT_EQ(unnamed.err, "error: --output_prefix needs --benchmark_name: the TestReporter files are named "
                         "PREFIX<benchmark_name>...\n");
}

TEST(CliBenchmark, OptimizeGraphFalseRunsEveryNode) {
  GDS_REQUIRE_SHARED();
  auto run = [](const char* optimize) {
    return test::runGdstudio({"benchmark", "--graph=" + test::modelPath(kMobilenet), "--input_layer=input",
                              "--input_layer_shape=1,128,128,3", std::string("--output_layer=") + kOutput,
                              "--max_num_runs=2", "--show_run_order=false", "--show_time=false",
                              "--show_memory=false", "--format=csv", std::string("--optimize_graph=") + optimize});
  };
  auto fused = run("true");
  ASSERT_EQ(fused.exit_code, 0) << fused.err;
  EXPECT_NE(fused.out.find("_FusedConv2D,"), std::string::npos);
  auto plain = run("false");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("_FusedConv2D"), std::string::npos);
  for (const char* op : {"\nConv2D,", "\nDepthwiseConv2dNative,", "\nRelu6,", "\nRsqrt,"})
    EXPECT_NE(plain.out.find(op), std::string::npos) << op << "\n" << plain.out;
}

TEST(CliCompare, InputNameEqualsFileAsDocumented) {
  GDS_REQUIRE_SHARED();
  const std::string dir = test::tempDir();
  model::HostTensor x = model::HostTensor::zeros(tensorflow::DT_FLOAT, {1, 128, 128, 3});
  for (std::int64_t i = 0; i < x.size(); ++i) x.as<float>()[i] = static_cast<float>(i % 255) / 127.5f - 1.0f;
  ASSERT_TRUE(model::writeNpy(dir + "/x.npy", x).ok());
  const std::string a = test::modelPath(kMobilenet), b = test::modelPath("mobilenet_v1_0.25_128_quantized.pb");
  auto r = test::runGdstudio({"compare", "--graph=" + a, "--graph2=" + b, "--input=input=" + dir + "/x.npy",
                              std::string("--output=") + kOutput});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("output\tmax_abs\tmean_abs\trmse\tsqnr_db\tcosine\ttop1_float\ttop1_8bit\ttop5_overlap\n", 0), 0u);
  // The file alone still works, and a name that is not the graph's input is refused.
  auto plain = test::runGdstudio({"compare", "--graph=" + a, "--graph2=" + b, "--input=" + dir + "/x.npy",
                                  std::string("--output=") + kOutput});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  auto wrong = test::runGdstudio({"compare", "--graph=" + a, "--graph2=" + b, "--input=nope=" + dir + "/x.npy",
                                  std::string("--output=") + kOutput});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("nope"), std::string::npos) << wrong.err;
}

TEST(CliCompare, CsvQuotesLabelsWithCommas) {
  GDS_REQUIRE_SHARED();
  const std::string model = test::modelPath(kMobilenet);
  auto r = test::runGdstudio({"compare", "--graph=" + model, "--graph2=" + model, std::string("--output=") + kOutput,
                              "--dataset=" + test::dataPath("images"),
                              "--label_map=" + test::modelPath("mobilenet_v1_0.25_128_labels.txt"), "--format=csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string header, first;
  std::getline(lines, header);
  EXPECT_EQ(header, "file,top1_float,top1_8bit,sqnr_db");
  // ImageNet class names hold commas: each is one quoted field.
  bool quoted = false;
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind("chelsea.png,\"", 0) == 0) quoted = line.find(", ") != std::string::npos;
  EXPECT_TRUE(quoted) << r.out;
  EXPECT_EQ(r.err, "");  // no progress line when stderr is not a terminal
}

// The progress line shows on a terminal only: run under script(1), which
// gives the command a pseudo-terminal and copies what it shows.
std::string onTerminal(const std::string& command) {
  std::string out;
  FILE* p = popen(("script -qec '" + command + " > /dev/null' /dev/null 2>&1").c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

TEST(CliProgress, OnlyOnATerminal) {
  GDS_REQUIRE_SHARED();
  if (!fs::exists("/usr/bin/script")) GTEST_SKIP() << "script(1) (util-linux) is needed for a pseudo-terminal";
  const std::string model = test::modelPath(kMobilenet);
  const std::string bench = onTerminal(test::gdstudioPath() + " benchmark --graph=" + model +
                                       " --input_layer=input --input_layer_shape=1,128,128,3 --output_layer=" +
                                       kOutput + " --max_num_runs=3 --warmup_runs=1");
  EXPECT_NE(bench.find("\rbenchmark: warmup run 1 of 1"), std::string::npos) << bench;
  EXPECT_NE(bench.find("\rbenchmark: timing run 3"), std::string::npos) << bench;
  const std::string compare = onTerminal(test::gdstudioPath() + " compare --graph=" + model + " --graph2=" + model +
                                         " --output=" + kOutput + " --dataset=" + test::dataPath("images"));
  EXPECT_NE(compare.find("\rcompare: 7/7 rocket.jpg"), std::string::npos) << compare;
  // Redirected, standard error stays clean (CliCompare.CsvQuotesLabelsWithCommas checks the same).
  auto plain = test::runGdstudio({"benchmark", "--graph=" + model, "--input_layer=input",
                                  "--input_layer_shape=1,128,128,3", std::string("--output_layer=") + kOutput,
                                  "--max_num_runs=3"});
  EXPECT_EQ(plain.err, "");
}

TEST(CliTransform, JsonOneRecordPerStep) {
  GDS_REQUIRE_SHARED();
  const std::string out = test::tempDir() + "/o.pb";
  auto r = test::runGdstudio({"transform", "--in_graph=" + test::modelPath(kMobilenet), "--out_graph=" + out,
                              "--inputs=input", std::string("--outputs=") + kOutput,
                              "--transforms=strip_unused_nodes(type=float, shape=\"1,128,128,3\") "
                              "remove_nodes(op=Identity) fold_constants(ignore_errors=true)",
                              "--format=json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::vector<nlohmann::json> records;
  std::string line;
  while (std::getline(lines, line)) records.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0]["type"], "step");
  EXPECT_EQ(records[0]["name"], "strip_unused_nodes");
  EXPECT_EQ(records[0]["step"], "strip_unused_nodes(shape=\"1,128,128,3\", type=float)");
  EXPECT_EQ(records[0]["params"]["shape"], nlohmann::json({"1,128,128,3"}));
  EXPECT_EQ(records[1]["nodes_before"], 555);
  EXPECT_EQ(records[1]["nodes_after"], 417);
  EXPECT_EQ(records[1]["diff"]["nodes"]["change"], -138);
  EXPECT_EQ(records[2]["name"], "fold_constants");
  EXPECT_EQ(records[3], nlohmann::json({{"type", "output"}, {"out_graph", out}, {"nodes", records[2]["nodes_after"]}}));
}

TEST(CliCalibrate, JsonRecords) {
  GDS_REQUIRE_SHARED();
  const std::string dir = test::tempDir();
  auto q = test::runGdstudio({"transform", "--in_graph=" + test::modelPath(kMobilenet), "--out_graph=" + dir + "/q.pb",
                              "--inputs=input", std::string("--outputs=") + kOutput,
                              "--transforms=strip_unused_nodes(type=float, shape=\"1,128,128,3\") "
                              "fold_constants(ignore_errors=true) fold_batch_norms fold_old_batch_norms "
                              "quantize_weights quantize_nodes strip_unused_nodes"});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  auto r = test::runGdstudio({"calibrate", "--graph=" + dir + "/q.pb", "--output_graph=" + dir + "/c.pb",
                              "--input=" + test::dataPath("images/chelsea.png") + "," + test::dataPath("images/coffee.png"),
                              "--format=json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"], 2);
  EXPECT_EQ(j["output_graph"], dir + "/c.pb");
  ASSERT_GT(j["ranges"].size(), 10u);
  EXPECT_EQ(j["ranges"][0]["samples"], 2);
  EXPECT_LE(j["ranges"][0]["observed_min"].get<double>(), j["ranges"][0]["frozen_min"].get<double>());
}

// calibrate's progress line counts the inputs as they run (on a terminal only).
TEST(CliProgress, CalibrateCountsTheInputsItRuns) {
  GDS_REQUIRE_SHARED();
  if (!fs::exists("/usr/bin/script")) GTEST_SKIP() << "script(1) (util-linux) is needed for a pseudo-terminal";
  const std::string dir = test::tempDir();
  auto q = test::runGdstudio({"transform", "--in_graph=" + test::modelPath(kMobilenet), "--out_graph=" + dir + "/q.pb",
                              "--inputs=input", std::string("--outputs=") + kOutput,
                              "--transforms=strip_unused_nodes(type=float, shape=\"1,128,128,3\") "
                              "fold_constants(ignore_errors=true) fold_batch_norms fold_old_batch_norms "
                              "quantize_weights quantize_nodes strip_unused_nodes"});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  const std::string chelsea = test::dataPath("images/chelsea.png"), coffee = test::dataPath("images/coffee.png");
  const std::string shown = onTerminal(test::gdstudioPath() + " calibrate --graph=" + dir + "/q.pb --output_graph=" +
                                       dir + "/c.pb --input=" + chelsea + "," + coffee);
  EXPECT_NE(shown.find("\rcalibrate: reading input 2/2 " + coffee), std::string::npos) << shown;
  EXPECT_NE(shown.find("\rcalibrate: ran input 1/2 " + chelsea), std::string::npos) << shown;
  EXPECT_NE(shown.find("\rcalibrate: ran input 2/2 " + coffee), std::string::npos) << shown;
  auto plain = test::runGdstudio({"calibrate", "--graph=" + dir + "/q.pb", "--output_graph=" + dir + "/c2.pb",
                                  "--input=" + chelsea});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err, "");
}

// transform_graph passes --outputs to the transforms unchecked: a name the
// graph lacks is a warning, and a transform that does not use it succeeds.
TEST(CliTransform, OutputsNotInTheGraphAreAWarning) {
  GDS_REQUIRE_SHARED();
  const std::string in = test::modelPath(kMobilenet);
  const std::string out = test::tempDir() + "/o.pb";
  auto r = test::runGdstudio({"transform", "--in_graph=" + in, "--out_graph=" + out, "--inputs=input",
                              "--outputs=softmax_that_is_not_there", "--transforms=remove_device sort_by_execution_order"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "warning: --outputs names 'softmax_that_is_not_there', but " + in +
                       " has no node 'softmax_that_is_not_there'\n");
  EXPECT_TRUE(fs::exists(out));
}

}  // namespace
}  // namespace gds
