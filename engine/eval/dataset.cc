#include "engine/eval/dataset.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>

#include "engine/eval/feeds.h"
#include "engine/lowp/requantize.h"
#include "engine/ops/image_decode.h"
#include "engine/ops/nn.h"
#include "model/graph.h"
#include "model/io.h"
#include "model/tflite/dialect.h"

namespace gds::engine {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

// A sample without any error has an infinite SQNR; means over samples count
// it as 100 dB (far above any 8-bit error) so one exact sample does not make
// the mean infinite.
constexpr double kExactSqnrDb = 100.0;

// Sums behind an ErrorAggregate, rebuilt from each sample's ErrorStats.
struct ErrorSums {
  ErrorStats first;  // name
  int samples = 0, exact = 0;
  std::int64_t count = 0;
  double max_abs = 0, sum_abs = 0, sum_sq_err = 0, sqnr = 0, cosine = 0, step = 0, rmse_over_step = 0;

  void add(const ErrorStats& s) {
    if (samples == 0) first = s;
    ++samples;
    count += s.count;
    max_abs = std::max(max_abs, s.max_abs);
    sum_abs += s.mean_abs * static_cast<double>(s.count);
    sum_sq_err += s.rmse * s.rmse * static_cast<double>(s.count);
    if (std::isinf(s.sqnr_db)) ++exact;
    sqnr += std::isinf(s.sqnr_db) ? kExactSqnrDb : s.sqnr_db;
    cosine += s.cosine;
    step += s.step;
    rmse_over_step += s.rmse_over_step;
  }
  ErrorAggregate aggregate() const {
    ErrorAggregate a;
    a.samples = samples;
    a.stats.name = first.name;
    a.stats.count = count;
    if (samples == 0) return a;
    const double n = samples;
    a.stats.max_abs = max_abs;
    if (count > 0) {
      a.stats.mean_abs = sum_abs / static_cast<double>(count);
      a.stats.rmse = std::sqrt(sum_sq_err / static_cast<double>(count));
    }
    a.stats.sqnr_db = exact == samples ? std::numeric_limits<double>::infinity() : sqnr / n;
    a.stats.cosine = cosine / n;
    a.stats.step = step / n;
    a.stats.rmse_over_step = rmse_over_step / n;
    return a;
  }
};

}  // namespace

Result<InputSpec> findGraphInput(const tensorflow::GraphDef& graph, const std::string& name) {
  const std::string wanted = name.empty() ? "" : model::parseTensorName(name).node;
  const tensorflow::NodeDef* found = nullptr;
  for (const auto& n : graph.node()) {
    if (n.op() != "Placeholder" || (!wanted.empty() && n.name() != wanted)) continue;
    if (found && wanted.empty()) return Status::Error("the graph has several Placeholders; choose the input");
    found = &n;
  }
  if (!found)
    return Status::Error(wanted.empty() ? "the graph has no Placeholder; name the input"
                                        : "no Placeholder named '" + wanted + "'");
  InputSpec spec;
  spec.name = found->name();
  if (found->attr().count("dtype")) spec.dtype = found->attr().at("dtype").type();
  bool known = false;
  if (found->attr().count("shape")) spec.shape = model::shapeFromProto(found->attr().at("shape").shape(), &known);
  if (!known) spec.shape.clear();
  if (spec.dtype == tensorflow::DT_INT8) {
    const model::tflite::Quantization q = model::tflite::quantizationOf(*found, 0);
    if (q.scale.size() == 1 && q.zero_point.size() == 1 && q.scale[0] > 0) {
      spec.scale = q.scale[0];
      spec.zero_point = static_cast<std::int32_t>(q.zero_point[0]);
    }
  }
  return spec;
}

namespace {

// "input 'x' (float[1,224,224,3])", for errors.
std::string describeInput(const InputSpec& input) {
  return "input '" + input.name + "' (" + model::dtypeName(input.dtype) +
         (input.shape.empty() ? std::string() : model::shapeString(input.shape)) + ")";
}

// A .npy sample against the input's shape: equal (unknown dimensions match
// any size), or the same without the batch dimension of 1, which it gets.
Result<Tensor> checkNpyShape(const std::string& path, const InputSpec& input, Tensor t) {
  if (input.shape.empty()) return t;
  auto matches = [](const Shape& want, const Shape& have) {
    if (want.size() != have.size()) return false;
    for (std::size_t i = 0; i < want.size(); ++i)
      if (want[i] >= 0 && want[i] != have[i]) return false;
    return true;
  };
  if (matches(input.shape, t.shape())) return t;
  const Shape without_batch(input.shape.begin() + 1, input.shape.end());
  if (input.shape[0] <= 1 && matches(without_batch, t.shape())) {
    Shape shape = t.shape();
    shape.insert(shape.begin(), 1);
    return t.reshaped(shape);
  }
  return Status::Error(path + " holds " + model::dtypeName(t.dtype()) + model::shapeString(t.shape()) + "; " +
                       describeInput(input) + " takes " + model::shapeString(input.shape));
}

// The pixels of an image file in the channels the input takes; with
// `strict`, a colour image for a one-channel input needs `grayscale`.
Result<ops::DecodedImage> decodeFor(const std::string& path, const std::string& bytes, int channels,
                                    const InputSpec& input, const ImagePreprocess& preprocess) {
  ops::DecodedImage image;
  if (preprocess.strict && channels == 1 && !preprocess.grayscale) {
    std::string err = ops::decodeImage(bytes, 0, &image, preprocess.jpeg_dct);
    if (!err.empty()) return Status::Error(path + ": " + err);
    if (image.channels != 1)
      return Status::Error(path + " is a colour image (" + std::to_string(image.channels) + " channels); " +
                           describeInput(input) + " takes one channel: convert the images to grey with --grayscale, "
                           "or give images of one channel");
    return image;
  }
  std::string err = ops::decodeImage(bytes, channels, &image, preprocess.jpeg_dct);
  if (!err.empty()) return Status::Error(path + ": " + err);
  return image;
}

}  // namespace

bool isImageFile(const std::string& path) {
  const std::string ext = lower(std::filesystem::path(path).extension().string());
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg";
}

Result<Tensor> loadSample(const std::string& path, const InputSpec& input, const ImagePreprocess& preprocess) {
  const std::string ext = lower(std::filesystem::path(path).extension().string());
  if (input.dtype == tensorflow::DT_STRING) return tensorFromFile(path, tensorflow::DT_STRING, path);
  if (ext == ".npy") {
    auto t = tensorFromFile(path, input.dtype, path);
    if (!t.ok()) return t.status();
    return checkNpyShape(path, input, std::move(*t));
  }
  if (isImageFile(path)) {
    std::int64_t h = 224, w = 224;
    if (input.shape.size() == 4 && input.shape[1] > 0 && input.shape[2] > 0) {
      h = input.shape[1];
      w = input.shape[2];
    }
    if (preprocess.height > 0 && preprocess.width > 0) {
      h = preprocess.height;
      w = preprocess.width;
    }
    // uint8 image inputs take the resized pixels themselves (no mean/std).
    const bool as_uint8 = input.dtype == tensorflow::DT_UINT8;
    const bool as_int8 = input.dtype == tensorflow::DT_INT8 && input.scale > 0;
    if (!as_uint8 && !as_int8 && input.dtype != tensorflow::DT_FLOAT && input.dtype != tensorflow::DT_INVALID)
      return Status::Error(path + ": images feed float, uint8 or quantized int8 inputs; " + describeInput(input) +
                           " is " + model::dtypeName(input.dtype) +
                           (input.dtype == tensorflow::DT_INT8 ? " without one scale and zero point" : ""));
    if (input.shape.size() == 4 && input.shape[3] > 0 && input.shape[3] != 1 && input.shape[3] != 3)
      return Status::Error(path + ": images have 1 or 3 channels; " + describeInput(input) + " takes " +
                           std::to_string(input.shape[3]));
    if (!as_uint8 && preprocess.std_dev == 0) return Status::Error(path + ": the image scale (std) must not be 0");
    auto bytes = model::readFile(path);
    if (!bytes.ok()) return bytes.status();
    // A one-channel input takes the image in grey, as DecodePng/DecodeJpeg
    // with channels=1 give it.
    const int channels = input.shape.size() == 4 && input.shape[3] == 1 ? 1 : 3;
    auto decoded = decodeFor(path, *bytes, channels, input, preprocess);
    if (!decoded.ok()) return decoded.status();
    const ops::DecodedImage& image = *decoded;
    // TensorFlow's order: decode the whole image, then resize (legacy
    // bilinear) to the model's size, straight from the 8-bit pixels. A
    // 20000x20000 PNG costs its 1.1 GiB of pixels, not four times that in
    // floats; images beyond the memory budget are refused from the header.
    Tensor t(tensorflow::DT_FLOAT, {1, h, w, channels});
    float* out = t.data<float>();
    ops::resizeBilinear(image.pixels.data(), 1, image.height, image.width, channels, h, w, false, false, out);
    if (as_uint8) {
      Tensor u(tensorflow::DT_UINT8, t.shape());
      for (std::int64_t i = 0; i < u.numElements(); ++i)
        u.data<std::uint8_t>()[i] = static_cast<std::uint8_t>(std::clamp(std::lround(out[i]), 0L, 255L));
      return u;
    }
    for (std::int64_t i = 0; i < t.numElements(); ++i) out[i] = (out[i] - preprocess.mean) / preprocess.std_dev;
    if (as_int8) {
      Tensor q(tensorflow::DT_INT8, t.shape());
      for (std::int64_t i = 0; i < q.numElements(); ++i)
        q.data<std::int8_t>()[i] = lowp::tfliteQuantizeBuiltin(out[i], input.scale, input.zero_point);
      return q;
    }
    return t;
  }
  return Status::Error(path + ": unsupported input file (expected .npy, .png, .jpg or, for string inputs, any file)");
}

Result<Dataset> openDataset(const std::string& dir, const std::string& labels_path) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return Status::Error("'" + dir + "' does not exist");
  if (!std::filesystem::is_directory(dir, ec)) return Status::Error("'" + dir + "' is not a folder");
  Dataset d;
  d.dir = dir;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string ext = lower(e.path().extension().string());
    if (e.is_regular_file() && ext != ".csv" && ext != ".txt" && ext != ".md")
      d.files.push_back(e.path().filename().string());
  }
  if (ec) return Status::Error("'" + dir + "': cannot list the folder: " + ec.message());
  std::sort(d.files.begin(), d.files.end());
  if (d.files.empty()) return Status::Error("'" + dir + "' holds no input files (images, WAV clips or .npy)");
  d.labels_path = labels_path;
  const std::string default_labels = (std::filesystem::path(dir) / "labels.csv").string();
  if (d.labels_path.empty() && std::filesystem::exists(default_labels, ec)) d.labels_path = default_labels;
  if (d.labels_path.empty()) return d;
  auto text = model::readFile(d.labels_path);
  if (!text.ok()) return text.status();
  const auto lines = splitLines(*text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find_first_not_of(" \t") == std::string::npos) continue;
    const auto comma = lines[i].find(',');
    const std::string where = d.labels_path + " line " + std::to_string(i + 1);
    if (comma == std::string::npos)
      return Status::Error(where + ": expected 'file,label' (several accepted labels separated by '|'), got '" +
                           lines[i] + "'");
    const std::string file = lines[i].substr(0, comma);
    // The first line is a header unless it names a sample ("file,label").
    if (i == 0 && !std::binary_search(d.files.begin(), d.files.end(), file)) continue;
    std::vector<std::string> accepted;
    std::stringstream ss(lines[i].substr(comma + 1));
    std::string item;
    while (std::getline(ss, item, '|'))
      if (!item.empty()) accepted.push_back(item);
    d.labels[file] = accepted;
  }
  return d;
}

std::vector<std::string> Dataset::paths() const {
  std::vector<std::string> out;
  for (const std::string& file : files) out.push_back((std::filesystem::path(dir) / file).string());
  return out;
}

Result<std::vector<std::vector<Tensor>>> loadSamples(const std::vector<std::string>& paths, const InputSpec& input,
                                                     const ImagePreprocess& preprocess,
                                                     const SampleProgress& progress) {
  std::vector<std::vector<Tensor>> samples;
  for (const std::string& path : paths) {
    if (progress) progress(samples.size(), paths.size(), path);
    auto value = loadSample(path, input, preprocess);
    if (!value.ok()) return value.status();
    samples.push_back({std::move(value).value()});
  }
  return samples;
}

Result<std::vector<std::string>> readLabelMap(const std::string& path) {
  auto text = model::readFile(path);
  if (!text.ok()) return text.status();
  auto lines = splitLines(*text);
  if (lines.empty()) return Status::Error(path + ": the label map is empty (expected one class name per line)");
  return lines;
}

bool labelMatches(const std::string& class_name, const std::vector<std::string>& accepted) {
  std::string name = class_name;
  const auto colon = name.find(':');
  if (colon != std::string::npos && name.find_first_not_of("0123456789") == colon) name = name.substr(colon + 1);
  std::vector<std::string> names = {name};
  std::stringstream ss(name);
  std::string part;
  while (std::getline(ss, part, ',')) {
    while (!part.empty() && part[0] == ' ') part.erase(0, 1);
    names.push_back(part);
  }
  for (const auto& n : names)
    if (std::find(accepted.begin(), accepted.end(), n) != accepted.end()) return true;
  return false;
}

namespace {

// The figures of evaluateSamples, accumulated one sample at a time.
class DatasetAccumulator {
 public:
  DatasetAccumulator(const std::vector<std::string>& outputs, const std::vector<std::string>& label_map)
      : outputs_(outputs), label_map_(label_map), output_sums_(outputs.size()), output_counts_(outputs.size()),
        top5_sums_(outputs.size(), 0.0) {}

  Status add(const Sample& sample, const CompareResult& compared) {
    const auto& o = compared.outputs[0];
    if (result_.inputs == 0) result_.classifier = o.classifier;
    ++result_.inputs;
    sqnr_sum_ += std::isinf(o.stats.sqnr_db) ? kExactSqnrDb : o.stats.sqnr_db;
    DatasetItem item;
    item.file = sample.name;
    item.sqnr_db = o.stats.sqnr_db;
    if (!result_.classifier || !o.classifier) {
      // No classes to agree on (labels name classes): the errors only.
      result_.classifier = false;
      result_.items.push_back(std::move(item));
      addErrors(compared);
      return Status::Ok();
    }
    item.top1_reference = className(o.top1_reference[0]);
    item.top1_other = className(o.top1_other[0]);
    if (item.top1_reference == item.top1_other) ++result_.agree;
    else ++result_.confusion[{item.top1_reference, item.top1_other}];
    if (!sample.labels.empty()) {
      item.labelled = true;
      ++result_.labelled;
      item.correct_reference = labelMatches(item.top1_reference, sample.labels);
      item.correct_other = labelMatches(item.top1_other, sample.labels);
      result_.correct_reference += item.correct_reference ? 1 : 0;
      result_.correct_other += item.correct_other ? 1 : 0;
    }
    result_.items.push_back(std::move(item));
    addErrors(compared);
    return Status::Ok();
  }

  // Every output's and layer's error of one sample.
  void addErrors(const CompareResult& compared) {
    for (std::size_t i = 0; i < outputs_.size(); ++i) {
      const auto& oc = compared.outputs[i];
      output_sums_[i].add(oc.stats);
      auto& counts = output_counts_[i];
      counts.classifier = oc.classifier;
      counts.rows += oc.rows;
      counts.top1_agree += oc.top1_agree;
      top5_sums_[i] += oc.top5_overlap * static_cast<double>(oc.rows);
    }
    for (const auto& layer : compared.layers) {
      auto [it, added] = layer_index_.emplace(layer.name, layer_sums_.size());
      if (added) layer_sums_.emplace_back();
      layer_sums_[it->second].add(layer);
    }
  }

  int inputs() const { return result_.inputs; }

  DatasetResult finish(bool cancelled) {
    result_.cancelled = cancelled;
    if (!result_.classifier) {  // a first output that stopped being a classifier's part-way
      result_.agree = result_.labelled = result_.correct_reference = result_.correct_other = 0;
      result_.confusion.clear();
      for (auto& item : result_.items) item = DatasetItem{item.file, "", "", item.sqnr_db};
    }
    result_.mean_sqnr_db = result_.inputs ? sqnr_sum_ / result_.inputs : 0.0;
    for (std::size_t i = 0; i < outputs_.size(); ++i) {
      OutputAggregate a = output_counts_[i];
      a.error = output_sums_[i].aggregate();
      a.error.stats.name = outputs_[i];
      a.top5_overlap = a.rows > 0 ? top5_sums_[i] / static_cast<double>(a.rows) : 0.0;
      result_.outputs.push_back(std::move(a));
    }
    for (const auto& sums : layer_sums_) result_.layers.push_back(sums.aggregate());
    std::stable_sort(result_.layers.begin(), result_.layers.end(),
                     [](const ErrorAggregate& x, const ErrorAggregate& y) { return x.stats.sqnr_db < y.stats.sqnr_db; });
    return std::move(result_);
  }

 private:
  std::string className(std::int64_t id) const {
    return id >= 0 && static_cast<std::size_t>(id) < label_map_.size() ? label_map_[static_cast<std::size_t>(id)]
                                                                         : std::to_string(id);
  }

  const std::vector<std::string>& outputs_;
  const std::vector<std::string>& label_map_;
  DatasetResult result_;
  std::vector<ErrorSums> output_sums_;
  std::vector<OutputAggregate> output_counts_;
  std::vector<double> top5_sums_;
  std::vector<ErrorSums> layer_sums_;
  std::map<std::string, std::size_t> layer_index_;
  double sqnr_sum_ = 0;
};

}  // namespace

Result<DatasetResult> evaluateSamples(const tensorflow::GraphDef& reference, const tensorflow::GraphDef& other,
                                      const std::vector<std::string>& feed_names, const SampleSource& next,
                                      int total, const std::vector<std::string>& outputs,
                                      const DatasetOptions& options) {
  if (outputs.empty()) return Status::Error("no outputs to compare");
  DatasetAccumulator sums(outputs, options.label_map);
  for (;;) {
    if (options.cancelled && options.cancelled()) return sums.finish(true);
    auto sample = next();
    if (!sample.ok()) return sample.status();
    if (!sample->has_value()) break;
    const Sample& s = **sample;
    if (options.progress) options.progress(sums.inputs(), total, s.name);
    auto compared = compare(reference, other, feed_names, s.feeds, outputs, options.compare);
    if (!compared.ok()) return compared.status().withContext(s.name);
    GDS_RETURN_IF_ERROR(sums.add(s, *compared));
  }
  return sums.finish(false);
}

Result<DatasetResult> evaluateDataset(const tensorflow::GraphDef& reference, const tensorflow::GraphDef& other,
                                      const InputSpec& input, const Dataset& dataset,
                                      const std::vector<std::string>& outputs, const DatasetOptions& options) {
  if (outputs.empty()) return Status::Error("no outputs to compare");
  const auto& label_map = options.label_map;
  // A label that names no class of the label map could never be matched:
  // every accuracy figure would be silently wrong.
  if (!label_map.empty())
    for (const auto& [file, accepted] : dataset.labels)
      for (const auto& label : accepted) {
        bool known = false;
        for (const auto& c : label_map) known = known || labelMatches(c, {label});
        if (!known)
          return Status::Error(dataset.labels_path + ": '" + file + "' is labelled '" + label +
                               "', which names no class of the label map");
      }
  std::size_t index = 0;
  SampleSource files = [&]() -> Result<std::optional<Sample>> {
    if (index == dataset.files.size()) return std::optional<Sample>();
    Sample sample;
    sample.name = dataset.files[index++];
    auto value = loadSample((std::filesystem::path(dataset.dir) / sample.name).string(), input, options.preprocess);
    if (!value.ok()) return value.status();
    sample.feeds.push_back(std::move(value).value());
    auto labels = dataset.labels.find(sample.name);
    if (labels != dataset.labels.end()) sample.labels = labels->second;
    return std::optional<Sample>(std::move(sample));
  };
  return evaluateSamples(reference, other, {input.name}, files, static_cast<int>(dataset.files.size()), outputs,
                         options);
}

}  // namespace gds::engine
