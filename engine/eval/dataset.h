// Dataset evaluation of a float graph against its 8-bit version: a folder of
// inputs (PNG/JPEG images resized and normalized like the classification
// examples of TensorFlow, (x - mean) / std; WAV clips or other raw files for
// string inputs; .npy tensors) with an optional labels.csv, run through
// engine::compare one sample at a time. Reports the accuracy of each variant,
// their top-1 agreement, the confusion where they disagree, and per-output
// and per-layer error aggregated over the samples.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/eval/compare.h"
#include "engine/ops/image_decode.h"
#include "engine/tensor.h"
#include "graph.pb.h"
#include "model/status.h"
#include "model/tensor.h"

namespace gds::engine {

// The graph input a sample is fed to.
struct InputSpec {
  std::string name;
  DataType dtype = tensorflow::DT_FLOAT;
  Shape shape;  // from the Placeholder's shape attr; empty when unknown
  // An int8 input of a TensorFlow Lite model: its scale and zero point
  // (scale 0: none). An image for it is read as for a float input, then
  // quantized as TensorFlow Lite's QUANTIZE does.
  float scale = 0;
  std::int32_t zero_point = 0;
};

// The graph's Placeholder named `name` (any port suffix is ignored) or, when
// `name` is empty, its only Placeholder.
Result<InputSpec> findGraphInput(const tensorflow::GraphDef& graph, const std::string& name);

// Image preprocessing: decode as RGB, resize bilinearly to height x width,
// then (pixel - mean) / std. A zero size means "from the input's shape"
// (NHWC), else 224 x 224.
struct ImagePreprocess {
  std::int64_t height = 0, width = 0;
  float mean = 127.5f;
  float std_dev = 127.5f;
  // Datasets decode JPEGs as PIL, OpenCV and Keras's load_img do (libjpeg's
  // accurate integer DCT), so accuracy figures do not carry a fast IDCT's
  // error; label_image asks for INTEGER_FAST, as its example graph's
  // DecodeJpeg does.
  ops::JpegDct jpeg_dct = ops::JpegDct::kIntegerAccurate;
  // Calibration takes no decolouring the user did not ask for, since ranges
  // taken on grey versions of colour photos would be silently wrong: with
  // `strict`, a colour image fed to a one-channel input is an error unless
  // `grayscale`.
  bool strict = false;
  bool grayscale = false;
};

// Whether `path` names an image loadSample decodes (.png, .jpg, .jpeg, any case).
bool isImageFile(const std::string& path);

// One input file as the tensor fed to `input`: for string inputs the raw
// bytes; .npy as stored (checked against the input's shape; one sample
// without its batch dimension gets it); .png/.jpg/.jpeg as a [1, H, W, C]
// float image. Errors name the file and say what the input takes.
Result<Tensor> loadSample(const std::string& path, const InputSpec& input, const ImagePreprocess& preprocess);

// A labelled folder of inputs.
struct Dataset {
  std::string dir;
  std::vector<std::string> files;  // sorted file names (labels/notes files excluded)
  std::string labels_path;         // empty when the samples are unlabelled
  // file name -> accepted class names (labels.csv "file,label": '|'
  // separates several accepted labels; an empty label leaves the file unlabelled).
  std::map<std::string, std::vector<std::string>> labels;

  std::vector<std::string> paths() const;  // dir/file for each file, in order
};

// Lists `dir` (every regular file except .csv, .txt and .md) and reads the
// labels from `labels_path`, or from <dir>/labels.csv when that is empty and
// the file exists. Errors name the folder or the labels file and line.
Result<Dataset> openDataset(const std::string& dir, const std::string& labels_path = "");

// Each file as the value of `input` (loadSample), in order: representative
// inputs for calibration, one feed vector per file. progress(done, total,
// path) is called before each file. Errors name the file.
using SampleProgress = std::function<void(std::size_t done, std::size_t total, const std::string& path)>;
Result<std::vector<std::vector<Tensor>>> loadSamples(const std::vector<std::string>& paths, const InputSpec& input,
                                                     const ImagePreprocess& preprocess,
                                                     const SampleProgress& progress = {});

// Class names, one per line (line i = class i), e.g. TensorFlow's
// retrained_labels.txt / ImageNet label files.
Result<std::vector<std::string>> readLabelMap(const std::string& path);

// Whether class `name` is one of `accepted`. A class name may read
// "282:tabby, tabby cat": the numeric id is dropped and the full name or any
// of its comma-separated synonyms matches.
bool labelMatches(const std::string& name, const std::vector<std::string>& accepted);

// Error of one tensor aggregated over the samples: max_abs is the largest,
// mean_abs and rmse pool every element of every sample; sqnr_db, cosine,
// step and rmse_over_step are means over the samples (a sample without any
// error counts as 100 dB unless all are exact, then +inf).
struct ErrorAggregate {
  ErrorStats stats;
  int samples = 0;
};

struct OutputAggregate {
  ErrorAggregate error;
  bool classifier = false;
  std::int64_t rows = 0;        // classified rows over all samples
  std::int64_t top1_agree = 0;  // rows where both variants name the same class
  double top5_overlap = 0;      // mean over those rows
};

// One sample's outcome (first output, first row).
struct DatasetItem {
  std::string file;
  std::string top1_reference, top1_other;  // class names (label map) or ids
  double sqnr_db = 0;                      // of the first output
  bool labelled = false;
  bool correct_reference = false, correct_other = false;
};

struct DatasetResult {
  int inputs = 0;     // samples evaluated
  // Whether the first output is a classifier's (last dimension >= 2). When
  // not (a regression, a single sigmoid), there are no classes: agree,
  // labelled, the accuracies and the confusion stay empty, the items and
  // outputs give the errors.
  bool classifier = true;
  int agree = 0;      // top-1 agreement on the first output
  int labelled = 0;   // samples with a label
  int correct_reference = 0, correct_other = 0;
  double mean_sqnr_db = 0;  // first output; exact samples count as 100 dB
  std::vector<DatasetItem> items;
  // (reference class, other class) -> count, where they disagree.
  std::map<std::pair<std::string, std::string>, int> confusion;
  std::vector<OutputAggregate> outputs;
  std::vector<ErrorAggregate> layers;  // per_layer only; worst (lowest mean SQNR) first
  bool cancelled = false;  // stopped early: the figures cover `inputs` samples
};

struct DatasetOptions {
  CompareOptions compare;  // per_layer adds the aggregated per-layer table
  ImagePreprocess preprocess;
  std::vector<std::string> label_map;  // class names by id (empty: ids)
  // Called before each sample (done = samples finished so far).
  std::function<void(int done, int total, const std::string& file)> progress;
  // Polled between samples; true stops the evaluation (result.cancelled).
  std::function<bool()> cancelled;
};

// One input of evaluateSamples: the values of its feeds and what to call it.
struct Sample {
  std::string name;                 // the file, or "sample 3"
  std::vector<Tensor> feeds;        // one per feed name, in order
  std::vector<std::string> labels;  // accepted class names; empty: unlabelled
};
// The samples one at a time: an empty optional when there are no more; an
// error (naming the sample) stops the evaluation.
using SampleSource = std::function<Result<std::optional<Sample>>()>;

// evaluateDataset over any sequence of samples (values for `feed_names`),
// with the same figures; `total` is only for progress (-1: unknown).
Result<DatasetResult> evaluateSamples(const tensorflow::GraphDef& reference, const tensorflow::GraphDef& other,
                                      const std::vector<std::string>& feed_names, const SampleSource& next,
                                      int total, const std::vector<std::string>& outputs,
                                      const DatasetOptions& options);

// Runs every sample of `dataset` through both graphs. The first output must
// be a classifier (last dimension >= 2). Errors name the sample file.
Result<DatasetResult> evaluateDataset(const tensorflow::GraphDef& reference, const tensorflow::GraphDef& other,
                                      const InputSpec& input, const Dataset& dataset,
                                      const std::vector<std::string>& outputs, const DatasetOptions& options);

}  // namespace gds::engine
