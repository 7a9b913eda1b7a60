// Every gdstudio command line the product's documentation quotes (README.md,
// docs/*.md), and the command lines of TensorFlow's guides with the program
// name swapped, run against the corpus: exit status 0 and the heading each
// command prints. Placeholder file names (model.pb, x.npy, photos/, ...)
// become corpus models and data in a scratch folder; synopses (with
// [optional] parts, alternatives or FILE-style placeholders) are recognised
// and not run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "model/io.h"
#include "model/npy.h"
#include "tests/test_util.h"

namespace gds {
namespace {
namespace fs = std::filesystem;

const char* kOutput = "MobilenetV1/Predictions/Reshape_1";

struct DocLine {
  std::string where;  // file:line
  std::string text;   // "gdstudio ..." on one line
};

// Inline code spans `gdstudio ...` and lines of fenced code blocks starting
// with "gdstudio" (backslash continuations joined).
std::vector<DocLine> docCommandLines() {
  std::vector<std::string> files = {test::sourceDir() + "/README.md"};
  for (const auto& e : fs::directory_iterator(test::sourceDir() + "/docs"))
    if (e.path().extension() == ".md") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::vector<DocLine> out;
  for (const auto& file : files) {
    std::istringstream in(test::readAll(file));
    std::string line, pending;
    bool fenced = false;
    int number = 0, start = 0;
    const std::string name = fs::path(file).filename().string();
    while (std::getline(in, line)) {
      ++number;
      if (line.rfind("```", 0) == 0) {
        fenced = !fenced;
        continue;
      }
      if (fenced) {
        std::string t = line;
        t.erase(0, t.find_first_not_of(' '));
        if (pending.empty() && t.rfind("gdstudio", 0) != 0) continue;
        if (pending.empty()) start = number;
        const bool more = !t.empty() && t.back() == '\\';
        if (more) t.pop_back();
        pending += t;
        if (!more) {
          out.push_back({name + ":" + std::to_string(start), pending});
          pending.clear();
        }
        continue;
      }
      static const std::regex span("`(gdstudio[^`]*)`");
      for (std::sregex_iterator it(line.begin(), line.end(), span), end; it != end; ++it)
        out.push_back({name + ":" + std::to_string(number), (*it)[1].str()});
    }
  }
  return out;
}

// Shell-like words: spaces separate, quotes group ('...' and "...").
std::vector<std::string> shellWords(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) quote = 0;
      else word += c;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

// A synopsis or a reference, not a command line to run. A command line
// that benchmarks on a phone or a board (--device=) needs that device; the
// device runners are tested against a local sshd and an adb stand-in
// (tests/device).
bool isSynopsis(const std::string& text) {
  if (text.find("--device=") != std::string::npos) return true;
  if (text.find('[') != std::string::npos || text.find("...") != std::string::npos ||
      text.find('|') != std::string::npos || text.find("COMMAND") != std::string::npos)
    return true;
  static const std::regex placeholder(R"((^|[ =])[A-Z][A-Z0-9_]*(\.[a-z]+)?( |$))");
  return std::regex_search(text, placeholder);
}

class DocsScratch {
 public:
  DocsScratch() : dir_(test::tempDir()) {}
  const std::string& dir() const { return dir_; }

  // The corpus behind the documentation's example names.
  void prepare() {
    const std::string mobilenet = test::modelPath("mobilenet_v1_0.25_128_frozen.pb");
    for (const char* name : {"model.pb", "m.pb", "in.pb", "frozen.pb", "float.pb", "before.pb", "after.pb", "a.pb",
                             "b.pb", "g.pb", "optimized.pb", "mobilenet_v1_0.25_128_frozen.pb", "tensorflow_inception_graph.pb"})
      fs::copy_file(mobilenet, dir_ + "/" + name, fs::copy_options::overwrite_existing);
    fs::copy_file(test::modelPath("mobilenet_v1_0.25_128_poets_retrained.pb"), dir_ + "/retrained_graph.pb",
                  fs::copy_options::overwrite_existing);
    fs::copy_file(test::modelPath("mobilenet_v1_0.25_128_poets_retrained_labels.txt"), dir_ + "/retrained_labels.txt");
    fs::copy_file(test::modelPath("mobilenet_v1_0.25_128_quantized.pb"), dir_ + "/eightbit.pb");
    fs::copy_file(test::modelPath("mobilenet_v1_0.25_128_labels.txt"), dir_ + "/labels.txt");
    fs::copy_file(test::dataPath("images/labels.csv"), dir_ + "/labels.csv");
    fs::copy_file(test::dataPath("images/flower.jpg"), dir_ + "/flower.jpg");
    fs::copy_file(test::dataPath("images/chelsea.png"), dir_ + "/photo.jpg");  // a PNG is sniffed by content
    fs::copy_file(test::dataPath("images/chelsea.png"), dir_ + "/grace_hopper.png");
    for (const char* name : {"photos", "images"})
      fs::create_directory_symlink(test::dataPath("images"), dir_ + "/" + name);
    // The keyword-spotting examples: the models, their labels and the clips.
    for (const char* name : {"kws_ds_cnn_s.pb", "kws_cnn_s.pb", "kws_labels.txt"})
      fs::copy_file(test::modelPath(name), dir_ + "/" + name);
    fs::create_directory_symlink(test::dataPath("speech"), dir_ + "/speech");
    for (const char* name : {"dir", "export"})
      fs::create_directory_symlink(test::modelPath("tfserving_half_plus_two_savedmodel"), dir_ + "/" + name);
    for (const char* ext : {".index", ".data-00000-of-00001", ".meta"})
      fs::copy_file(test::modelPath(std::string("mlnet_cifar_checkpoint/model.ckpt") + ext),
                    dir_ + "/model.ckpt" + ext);
    // The Keras examples: a .keras classifier of 42 hand keypoints, an
    // input for it and a folder of calibration inputs.
    fs::copy_file(test::modelPath("keras/keypoint_mlp_k3.8.keras"), dir_ + "/keypoint_classifier.keras");
    model::HostTensor keypoints = model::HostTensor::zeros(tensorflow::DT_FLOAT, {1, 42});
    for (std::int64_t i = 0; i < keypoints.size(); ++i) keypoints.as<float>()[i] = static_cast<float>(i % 7) / 3.f - 1.f;
    ASSERT_TRUE(model::writeNpy(dir_ + "/keypoints.npy", keypoints).ok());
    fs::create_directory(dir_ + "/samples");
    for (int k = 0; k < 4; ++k) {
      for (std::int64_t i = 0; i < keypoints.size(); ++i) keypoints.as<float>()[i] = static_cast<float>((i + k) % 9) / 4.f - 1.f;
      ASSERT_TRUE(model::writeNpy(dir_ + "/samples/" + std::to_string(k) + ".npy", keypoints).ok());
    }
    model::HostTensor x = model::HostTensor::zeros(tensorflow::DT_FLOAT, {1, 128, 128, 3});
    for (std::int64_t i = 0; i < x.size(); ++i) x.as<float>()[i] = static_cast<float>(i % 97) / 48.f - 1.f;
    ASSERT_TRUE(model::writeNpy(dir_ + "/x.npy", x).ok());
    // q.pb: TensorFlow's 8-bit recipe, for calibrate.
    auto q = test::runGdstudio({"transform", "--in_graph=" + mobilenet, "--out_graph=" + dir_ + "/q.pb",
                                "--inputs=input", std::string("--outputs=") + kOutput,
                                "--transforms=strip_unused_nodes(type=float, shape=\"1,128,128,3\") "
                                "fold_constants(ignore_errors=true) fold_batch_norms fold_old_batch_norms "
                                "quantize_weights quantize_nodes strip_unused_nodes"});
    ASSERT_EQ(q.exit_code, 0) << q.err;
  }

  // The words of a documented command line with the corpus substituted.
  std::vector<std::string> substitute(const std::string& text) const {
    std::vector<std::string> words = shellWords(text);
    std::vector<std::string> args;
    for (size_t i = 1; i < words.size(); ++i) {
      std::string w = words[i];
      if (w == ">") break;  // a shell redirection of standard output, which the test reads anyway
      // MobileNet v1 0.25 takes 128x128 inputs; the guides' models 224 or 299.
      for (const char* size : {"224,224", "299,299"})
        for (size_t p; (p = w.find(size)) != std::string::npos;) w.replace(p, 7, "128,128");
      const size_t eq = w.find('=');
      if (w.rfind("--", 0) == 0 && eq != std::string::npos) {
        const std::string flag = w.substr(2, eq - 2);
        std::string value = w.substr(eq + 1);
        static const std::set<std::string> kOutputFlags = {"outputs", "output", "output_layer"};
        if (kOutputFlags.count(flag) && (value == "softmax" || value == "softmax:0" || value == "output:0"))
          value = kOutput;
        if ((flag == "inputs" || flag == "input_layer") && (value == "Mul" || value == "input:0")) value = "input";
        // Written graphs get names of their own when they would replace a
        // corpus file: a later example must still read the corpus model
        // behind frozen.pb, optimized.pb, ... A new name is kept, so a later
        // example can read what an earlier one wrote.
        if ((flag == "out_graph" || flag == "output_graph") && value.find('/') == std::string::npos &&
            fs::exists(dir_ + "/" + value))
          value = "written_" + value;
        const size_t inner = value.find('=');  // --input=NAME=FILE
        if (inner != std::string::npos && flag == "input")
          value = value.substr(0, inner + 1) + path(value.substr(inner + 1));
        else if (flag == "out_dir" && value.rfind("/", 0) != 0)
          value = dir_ + "/" + value;  // a folder name such as `out`, written in the scratch folder too
        else
          value = path(value);
        w = "--" + flag + "=" + value;
      } else if (w.rfind("-", 0) != 0) {
        w = path(w);
      }
      args.push_back(w);
    }
    return args;
  }

 private:
  // File and folder names of the examples live in the scratch folder.
  std::string path(const std::string& value) const {
    static const std::regex file(R"([A-Za-z0-9_./-]*(\.(pb|pbtxt|npy|png|jpg|svg|dot|mmap|csv|txt|meta|h|ckpt|tflite|keras|h5)|/))");
    if (value == "dir" || value == "model.ckpt") return dir_ + "/" + value;
    if (value.rfind("resources/", 0) == 0) return test::sourceDir() + "/" + value;
    if (!std::regex_match(value, file) || value.rfind("/", 0) == 0) return value;
    return dir_ + "/" + value;
  }
  std::string dir_;
};

// What each command prints first or always, checked after a run.
std::string expectedHeading(const std::vector<std::string>& args) {
  const std::string cmd = args.empty() ? "" : args[0];
  auto has = [&](const std::string& a) { return std::find(args.begin(), args.end(), a) != args.end(); };
  if (cmd == "--help") return "Commands:";
  if (has("--help")) return "Flags:";
  if (cmd == "summarize") return "Op types used: ";
  if (cmd == "diff") return "Graphs are equal.";
  if (cmd == "transform") return "Applying ";
  if (cmd == "run") {
    const bool keras = std::any_of(args.begin(), args.end(),
                                   [](const std::string& a) { return a.find("keypoint_classifier.keras") != std::string::npos; });
    return keras ? "dense_8: float[1,9]" : std::string(kOutput) + ": float[1,1001]";
  }
  if (cmd == "benchmark") return "Summary by node type";
  if (cmd == "dot") return "Created DOT file";
  if (cmd == "render") return "Wrote '";
  if (cmd == "freeze") return "Converted ";
  if (cmd == "memmapped") return "Converted ";
  if (cmd == "checkpoint") return " (DT_FLOAT) ";
  if (cmd == "calibrate") return has("--report") ? "tensor\tobserved_min" : "node\tobserved_min";
  if (cmd == "label_image") return "): ";
  if (cmd == "print_selective_registration_header") return "#define OPS_TO_REGISTER";
  if (cmd == "check_ops") return "node\top\t";
  if (cmd == "tflite_convert") return "Wrote ";
  if (cmd == "compare")
    return std::any_of(args.begin(), args.end(), [](const std::string& a) { return a.rfind("--dataset=", 0) == 0; })
               ? "file\ttop1_float"
               : "output\tmax_abs";
  if (std::any_of(args.begin(), args.end(), [](const std::string& a) { return a.rfind("--screenshot=", 0) == 0; }))
    return "Wrote ";
  return "";
}

void runLine(const DocsScratch& scratch, const std::string& where, const std::string& text) {
  const auto args = scratch.substitute(text);
  const std::string heading = expectedHeading(args);
  ASSERT_FALSE(heading.empty()) << where << ": no expected heading for: " << text;
  auto r = test::runGdstudio(args);
  EXPECT_EQ(r.exit_code, 0) << where << ": " << text << "\n" << r.err;
  EXPECT_NE(r.out.find(heading), std::string::npos) << where << ": " << text << "\nexpected '" << heading << "' in:\n"
                                                    << r.out.substr(0, 1500);
}

TEST(DocsCommandLines, EveryQuotedCommandRuns) {
  GDS_REQUIRE_SHARED();
  DocsScratch scratch;
  scratch.prepare();
  // References to a command inside a sentence, not command lines.
  const std::set<std::string> kReferences = {"gdstudio benchmark --format=csv --show_flops",
                                             "gdstudio compare --dataset", "gdstudio summarize --print_op_kernels"};
  int ran = 0, synopses = 0;
  for (const auto& line : docCommandLines()) {
    const auto words = shellWords(line.text);
    const bool window = words.size() >= 2 && words[1].find('.') != std::string::npos && words[1][0] != '-';
    const bool screenshot = line.text.find("--screenshot=") != std::string::npos;
    // "gdstudio benchmark" alone names a command in a sentence.
    const bool bare_command = words.size() == 2 && words[1][0] != '-' && words[1].find('.') == std::string::npos;
    if (isSynopsis(line.text) || kReferences.count(line.text) || words.size() < 2 || bare_command ||
        (window && !screenshot)) {
      ++synopses;
      continue;
    }
#ifndef GDS_TEST_HAVE_GUI
    if (screenshot || words[1] == "render") continue;  // dot is in every build
#endif
    SCOPED_TRACE(line.where);
    runLine(scratch, line.where, line.text);
    ++ran;
  }
  EXPECT_GE(ran, 20);  // the extraction finds the examples
  EXPECT_GE(synopses, 15);
}

// The command lines of TensorFlow's guides and tool READMEs, the program
// name swapped for the gdstudio command.
TEST(DocsCommandLines, TensorFlowGuidesWithProgramSwapped) {
  GDS_REQUIRE_SHARED();
  DocsScratch scratch;
  scratch.prepare();
  const std::vector<std::pair<std::string, std::string>> guides = {
      // tools/graph_transforms/README.md
      {"summarize_graph", "gdstudio summarize --in_graph=tensorflow_inception_graph.pb"},
      {"transform_graph",
       "gdstudio transform --in_graph=tensorflow_inception_graph.pb --out_graph=optimized_inception_graph.pb "
       "--inputs='Mul' --outputs='softmax' --transforms='\n  strip_unused_nodes(type=float, shape=\"1,299,299,3\")\n"
       "  remove_nodes(op=Identity, op=CheckNumerics)\n  fold_old_batch_norms\n  '"},
      {"transform_graph 8-bit",
       "gdstudio transform --in_graph=tensorflow_inception_graph.pb --out_graph=optimized_inception_graph.pb "
       "--inputs='Mul' --outputs='softmax' --transforms='add_default_attributes strip_unused_nodes(type=float, "
       "shape=\"1,299,299,3\") remove_nodes(op=Identity, op=CheckNumerics) fold_constants(ignore_errors=true) "
       "fold_batch_norms fold_old_batch_norms quantize_weights quantize_nodes strip_unused_nodes "
       "sort_by_execution_order'"},
      {"compare_graphs", "gdstudio diff a.pb a.pb"},
      // tools/benchmark/README.md and the mobile optimizing guide
      {"benchmark_model",
       "gdstudio benchmark --graph=tensorflow_inception_graph.pb --input_layer=\"input:0\" "
       "--input_layer_shape=\"1,224,224,3\" --input_layer_type=\"float\" --output_layer=\"output:0\""},
      {"benchmark_model desktop",
       "gdstudio benchmark --graph=tensorflow_inception_graph.pb --input_layer=\"Mul\" "
       "--input_layer_shape=\"1,299,299,3\" --input_layer_type=\"float\" --output_layer=\"softmax:0\" "
       "--show_run_order=false --show_time=false --show_memory=false --show_summary=true --show_flops=true "
       "--logtostderr"},
      // freeze_graph and inspect_checkpoint
      {"freeze_graph",
       "gdstudio freeze --input_graph=model.ckpt.meta --input_binary=true --input_checkpoint=model.ckpt "
       "--input_node_names=Input --output_node_names=Output --output_graph=/tmp/frozen_graph.pb"},
      {"inspect_checkpoint", "gdstudio checkpoint --file_name=model.ckpt --all_tensors --printoptions threshold=10"},
      // TensorFlow for Poets: label_image on the retrained graph
      {"label_image",
       "gdstudio label_image --graph=retrained_graph.pb --labels=retrained_labels.txt --image=flower.jpg "
       "--input_layer=input --output_layer=final_result --input_mean=128 --input_std=128 --input_width=128 "
       "--input_height=128"},
      // The selective registration step of the mobile build guide
      {"print_selective_registration_header",
       "gdstudio print_selective_registration_header --graphs=tensorflow_inception_graph.pb"},
      {"convert_graphdef_memmapped_format",
       "gdstudio memmapped --in_graph=tensorflow_inception_graph.pb --out_graph=memmapped_graph.pb"},
  };
  for (const auto& [tool, line] : guides) {
    std::string text = line;
    // /tmp outputs go to the scratch folder.
    for (size_t p; (p = text.find("/tmp/")) != std::string::npos;) text.replace(p, 5, "");
    SCOPED_TRACE(tool);
    if (tool == "inspect_checkpoint") {
      auto r = test::runGdstudio(scratch.substitute(text));
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.out.rfind("tensor_name:  ", 0), 0u) << r.out.substr(0, 300);
      continue;
    }
    runLine(scratch, tool, text);
  }
}

}  // namespace
}  // namespace gds
