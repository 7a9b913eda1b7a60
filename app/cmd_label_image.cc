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

#include "app/flags.h"
#include "engine/eval/dataset.h"
#include "engine/rewrite/optimize_for_inference.h"
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

int runLabelImage(int argc, char** argv) {
  using T = FlagSpec::Type;
  Flags flags("label_image",
              "Usage: gdstudio label_image --image=IMAGE --graph=GRAPH.pb --labels=LABELS.txt [--input_width=299]\n"
              "                            [--input_height=299] [--input_mean=0] [--input_std=255]\n"
              "                            [--input_layer=input] [--output_layer=InceptionV3/Predictions/Reshape_1]\n"
              "                            [--arithmetic=tflite-xnnpack|tflite-builtin|tflite-reference|armnn]\n\n"
              "TensorFlow's label_image example: classifies one image (PNG or JPEG) with a graph and prints the\n"
              "top five labels with their scores, as '<label> (<index>): <score>'. The defaults are the\n"
              "example's (Inception v3 on grace_hopper.jpg).",
              {{"image", T::String, "tensorflow/examples/label_image/data/grace_hopper.jpg", "image to classify", kPath},
               {"graph", T::String, "tensorflow/examples/label_image/data/inception_v3_2016_08_28_frozen.pb",
                "frozen graph", kPath},
               {"labels", T::String, "tensorflow/examples/label_image/data/imagenet_slim_labels.txt",
                "label names, one per line (line i = class i)", kPath},
               {"input_width", T::Int, "299", "width the image is resized to"},
               {"input_height", T::Int, "299", "height the image is resized to"},
               {"input_mean", T::Float, "0", "subtracted from each pixel"},
               {"input_std", T::Float, "255", "each pixel is then divided by this"},
               {"input_layer", T::String, "input", "the graph's input"},
               {"output_layer", T::String, "InceptionV3/Predictions/Reshape_1", "the graph's output (scores)"},
               {"self_test", T::Bool, "false", "check that class 653 comes first (the default image and graph)"},
               {"root_dir", T::String, "", "folder the image and graph paths are relative to", kPath},
               arithmeticFlagSpec()});
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  const std::int64_t width = flags.integer("input_width").value(), height = flags.integer("input_height").value();
  if (width < 1 || height < 1 || width > 8192 || height > 8192)
    return fail("--input_width and --input_height must be from 1 to 8192, got " + std::to_string(width) + "x" +
                std::to_string(height));
  const double input_std = flags.number("input_std").value();
  if (input_std == 0) return fail("--input_std must not be 0");
  auto arithmetic = flags.arithmetic();
  if (!arithmetic.ok()) return fail(arithmetic.error());
  engine::PlanOptions plan_options;
  plan_options.arithmetic = *arithmetic;
  const std::string graph_path = joinPath(flags.str("root_dir"), flags.str("graph"));
  const std::string image_path = joinPath(flags.str("root_dir"), flags.str("image"));

  auto loaded = model::load(graph_path);
  if (!loaded.ok()) return fail("Failed to load compute graph at '" + graph_path + "': " + loaded.error());
  auto graph = std::make_shared<const tensorflow::GraphDef>(std::move(loaded->graph));

  engine::InputSpec input;
  input.name = flags.str("input_layer");
  input.dtype = tensorflow::DT_FLOAT;
  engine::ImagePreprocess preprocess;
  preprocess.height = height;
  preprocess.width = width;
  preprocess.mean = static_cast<float>(flags.number("input_mean").value());
  preprocess.std_dev = static_cast<float>(input_std);
  preprocess.jpeg_dct = engine::ops::JpegDct::kIntegerFast;  // TensorFlow's DecodeJpeg default
  auto image = engine::loadSample(image_path, input, preprocess);
  if (!image.ok()) return fail(image.error());

  auto plan = engine::compileForInference(graph, {input.name}, {flags.str("output_layer")}, plan_options);
  if (!plan.ok()) return fail("Running model failed: " + graph_path + ": " + plan.error());
  auto outputs = (*plan)->run({*image});
  if (!outputs.ok()) return fail("Running model failed: " + outputs.error());
  const engine::Tensor& scores = (*outputs)[0];
  if (scores.dtype() != tensorflow::DT_FLOAT || scores.numElements() < 1)
    return fail("--output_layer " + flags.str("output_layer") + " gives " + model::dtypeName(scores.dtype()) +
                model::shapeString(scores.shape()) + "; label_image needs float scores");
  // TopK of the first row, ties in index order as TopK keeps them.
  const std::int64_t classes = scores.shape().empty() ? 1 : scores.shape().back();
  const float* row = scores.data<float>();
  std::vector<std::int64_t> order(static_cast<size_t>(classes));
  std::iota(order.begin(), order.end(), 0);
  const size_t k = std::min<size_t>(5, order.size());
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return row[a] > row[b]; });

  if (flags.boolean("self_test") && order[0] != 653)
    return fail("Expected label #653 but got #" + std::to_string(order[0]) + "\nSelf-test failed!");
  auto labels = readLabels(flags.str("labels"));
  if (!labels.ok()) return fail("Running print failed: " + labels.error());
  for (size_t pos = 0; pos < k; ++pos) {
    const std::int64_t index = order[pos];
    if (index >= static_cast<std::int64_t>(labels->size()))
      return fail(flags.str("labels") + " has " + std::to_string(labels->size()) + " labels; the graph's class " +
                  std::to_string(index) + " has none");
    std::ostringstream line;  // LOG(INFO) << label << " (" << index << "): " << score
    line << (*labels)[static_cast<size_t>(index)] << " (" << index << "): " << row[index];
    std::printf("%s\n", line.str().c_str());
  }
  return 0;
}

CommandRegistration reg({"label_image", "classify an image, top-5 labels (TensorFlow's label_image example)",
                         &runLabelImage});

}  // namespace
}  // namespace gds::app
