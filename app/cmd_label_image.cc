// gdstudio label_image: TensorFlow's C++ label_image example
// (tensorflow/examples/label_image/main.cc) with its flags and defaults:
// decodes the image as RGB, resizes it bilinearly to input_height x
// input_width, feeds (pixel - input_mean) / input_std to input_layer, runs
// the graph in the interpreter and prints the five best classes of
// output_layer as "<label> (<index>): <score>", best first. --self_test
// checks that class 653 (Inception v3's "military uniform" for Grace Hopper)
// comes first.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <sstream>

#include "app/arithmetic_flag.h"
#include "app/flags.h"
#include "engine/eval/dataset.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/endpoints.h"
#include "model/io.h"

namespace gds::app {
namespace {

// ReadLabelsFile: one label per line, padded with empty labels to a multiple
// of 16 as the example does.
Result<std::vector<std::string>> readLabels(const std::string& path) {
  std::ifstream file(path);
  if (!file) return Status::Error("Labels file " + path + " not found.");
  std::vector<std::string> labels;
  std::string line;
  while (std::getline(file, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    labels.push_back(line);
  }
  while (labels.size() % 16) labels.emplace_back();
  return labels;
}

// io::JoinPath(root_dir, path).
std::string joinPath(const std::string& root, const std::string& path) {
  if (root.empty()) return path;
  if (path.empty()) return root;
  std::string r = root;
  while (!r.empty() && r.back() == '/') r.pop_back();
  std::string p = path;
  while (!p.empty() && p.front() == '/') p.erase(0, 1);
  return r + "/" + p;
}

const char* kUsage =
    "Usage: gdstudio label_image --image=IMAGE --graph=GRAPH.pb --labels=LABELS.txt [--input_width=299]\n"
    "                            [--input_height=299] [--input_mean=0] [--input_std=255]\n"
    "                            [--input_layer=input] [--output_layer=InceptionV3/Predictions/Reshape_1]\n"
    "                            [--arithmetic=tflite-xnnpack|tflite-builtin|tflite-reference|armnn]\n\n"
    "TensorFlow's label_image example: classifies one image (PNG or JPEG) with a graph and prints the\n"
    "top five labels with their scores, as '<label> (<index>): <score>'. The defaults are the\n"
    "example's (Inception v3 on grace_hopper.jpg); a model without the example's input_layer or output_layer\n"
    "takes its only input and output instead, and, without --input_width/--input_height, the input's own size.\n"
    "The graph may also be a SavedModel (its signature frozen) or a .tflite file; names may be signature keys.";

std::vector<FlagSpec> labelImageFlags() {
  using T = FlagSpec::Type;
  return {{"image", T::String, "tensorflow/examples/label_image/data/grace_hopper.jpg", "image to classify", kPath},
          {"graph", T::String, "tensorflow/examples/label_image/data/inception_v3_2016_08_28_frozen.pb",
           "frozen graph, SavedModel or .tflite", kPath},
          {"labels", T::String, "tensorflow/examples/label_image/data/imagenet_slim_labels.txt",
           "label names, one per line (line i = class i)", kPath},
          {"input_width", T::Int, "299", "width the image is resized to (without the flag: the input's width, else 299)"},
          {"input_height", T::Int, "299",
           "height the image is resized to (without the flag: the input's height, else 299)"},
          {"input_mean", T::Float, "0", "subtracted from each pixel"},
          {"input_std", T::Float, "255", "each pixel is then divided by this"},
          {"input_layer", T::String, "input", "the graph's input (a model without it: its only input)"},
          {"output_layer", T::String, "InceptionV3/Predictions/Reshape_1",
           "the graph's output, scores (a model without it: its only output)"},
          {"signature_name", T::String, "", "SavedModel: the signature to run (default serving_default)"},
          {"self_test", T::Bool, "false", "check that class 653 comes first (the default image and graph)"},
          {"root_dir", T::String, "", "folder the image and graph paths are relative to", kPath},
          arithmeticFlagSpec()};
}

// What the command line asks for, checked. A new flag lands here and in
// parseLabelImageFlags.
struct LabelImageArgs {
  std::string graph, image, labels, signature;
  std::string input_layer, output_layer;
  bool input_given = false, output_given = false, size_given = false;
  std::int64_t width = 299, height = 299;
  double input_mean = 0, input_std = 255;
  engine::PlanOptions plan;  // --arithmetic
  bool self_test = false;
};

Result<LabelImageArgs> parseLabelImageFlags(const Flags& flags) {
  LabelImageArgs a;
  a.width = flags.integer("input_width").value();
  a.height = flags.integer("input_height").value();
  if (a.width < 1 || a.height < 1 || a.width > 8192 || a.height > 8192)
    return Status::Error("--input_width and --input_height must be from 1 to 8192, got " + std::to_string(a.width) +
                         "x" + std::to_string(a.height));
  a.input_std = flags.number("input_std").value();
  if (a.input_std == 0) return Status::Error("--input_std must not be 0");
  auto arithmetic = arithmeticFlag(flags);
  if (!arithmetic.ok()) return arithmetic.status();
  a.plan.arithmetic = *arithmetic;
  a.input_mean = flags.number("input_mean").value();
  a.graph = joinPath(flags.str("root_dir"), flags.str("graph"));
  a.image = joinPath(flags.str("root_dir"), flags.str("image"));
  a.labels = flags.str("labels");
  a.signature = flags.str("signature_name");
  a.input_layer = flags.str("input_layer");
  a.output_layer = flags.str("output_layer");
  a.input_given = flags.has("input_layer");
  a.output_given = flags.has("output_layer");
  a.size_given = flags.has("input_width") || flags.has("input_height");
  a.self_test = flags.boolean("self_test");
  return a;
}

// The tensor a label_image name refers to: as given, or, for the example's
// default that the model does not have, the model's only input or output.
Result<std::string> chooseTensor(const model::RunnableModel& m, const std::string& name, bool given,
                                 const std::vector<model::Endpoint>& own, const std::string& flag) {
  auto t = model::resolveTensor(m, name, flag);
  if (t.ok() || given || own.size() != 1) return t;
  note(flag + "=" + name + " (the example's default) is not in the model; using its " +
       (flag == "--input_layer" ? "input '" : "output '") + own[0].display() + "'");
  return own[0].tensor;
}

// Loads the model and the image and runs it: the scores of the first row.
Result<engine::Tensor> classify(LabelImageArgs& a) {
  model::RunnableOptions options;
  options.signature = a.signature;
  auto loaded = model::openRunnable(a.graph, options);
  if (!loaded.ok()) return Status::Error("Failed to load compute graph at '" + a.graph + "': " + loaded.error());
  for (const auto& n : loaded->notes) note(n);
  auto input_tensor = chooseTensor(*loaded, a.input_layer, a.input_given, loaded->endpoints.inputs, "--input_layer");
  if (!input_tensor.ok()) return input_tensor.status();
  auto output_tensor =
      chooseTensor(*loaded, a.output_layer, a.output_given, loaded->endpoints.outputs, "--output_layer");
  if (!output_tensor.ok()) return output_tensor.status();
  const model::Endpoint in = model::endpointOf(*loaded, *input_tensor);
  if (!a.size_given && in.known_rank && in.shape.size() == 4 && in.shape[1] > 0 && in.shape[2] > 0) {
    a.height = in.shape[1];
    a.width = in.shape[2];
  }
  engine::InputSpec input;
  input.name = *input_tensor;
  input.dtype = tensorflow::DT_FLOAT;
  if (in.known_rank && in.shape.size() == 4) input.shape = in.shape;
  engine::ImagePreprocess preprocess;
  preprocess.height = a.height;
  preprocess.width = a.width;
  preprocess.mean = static_cast<float>(a.input_mean);
  preprocess.std_dev = static_cast<float>(a.input_std);
  preprocess.jpeg_dct = engine::ops::JpegDct::kIntegerFast;  // TensorFlow's DecodeJpeg default
  auto image = engine::loadSample(a.image, input, preprocess);
  if (!image.ok()) return image.status();
  auto graph = std::make_shared<const tensorflow::GraphDef>(std::move(loaded->model.graph));
  auto plan = engine::compileForInference(graph, {input.name}, {*output_tensor}, a.plan);
  if (!plan.ok()) return Status::Error("Running model failed: " + a.graph + ": " + plan.error());
  auto outputs = (*plan)->run({*image});
  if (!outputs.ok()) return Status::Error("Running model failed: " + outputs.error());
  engine::Tensor scores = std::move((*outputs)[0]);
  if (scores.dtype() != tensorflow::DT_FLOAT || scores.numElements() < 1)
    return Status::Error("--output_layer " + a.output_layer + " gives " + model::dtypeName(scores.dtype()) +
                         model::shapeString(scores.shape()) + "; label_image needs float scores");
  return scores;
}

// The example's output: the top five of the first row, "<label> (<index>): <score>".
int printTopFive(const LabelImageArgs& a, const engine::Tensor& scores) {
  // TopK of the first row, ties in index order as TopK keeps them.
  const std::int64_t classes = scores.shape().empty() ? 1 : scores.shape().back();
  const float* row = scores.data<float>();
  std::vector<std::int64_t> order(static_cast<size_t>(classes));
  std::iota(order.begin(), order.end(), 0);
  const size_t k = std::min<size_t>(5, order.size());
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) { return row[x] > row[y]; });
  if (a.self_test && order[0] != 653)
    return fail("Expected label #653 but got #" + std::to_string(order[0]) + "\nSelf-test failed!");
  auto labels = readLabels(a.labels);
  if (!labels.ok()) return fail("Running print failed: " + labels.error());
  for (size_t pos = 0; pos < k; ++pos) {
    const std::int64_t index = order[pos];
    if (index >= static_cast<std::int64_t>(labels->size()))
      return fail(a.labels + " has " + std::to_string(labels->size()) + " labels; the graph's class " +
                  std::to_string(index) + " has none");
    std::ostringstream line;  // LOG(INFO) << label << " (" << index << "): " << score
    line << (*labels)[static_cast<size_t>(index)] << " (" << index << "): " << row[index];
    std::printf("%s\n", line.str().c_str());
  }
  return 0;
}

int runLabelImage(int argc, char** argv) {
  Flags flags("label_image", kUsage, labelImageFlags());
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  auto args = parseLabelImageFlags(flags);
  if (!args.ok()) return fail(args.error());
  auto scores = classify(*args);
  if (!scores.ok()) return fail(scores.error());
  return printTopFive(*args, *scores);
}

CommandRegistration reg({"label_image", "classify an image, top-5 labels (TensorFlow's label_image example)",
                         &runLabelImage});

}  // namespace
}  // namespace gds::app
