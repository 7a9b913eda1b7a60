#include "tests/oracle/oracle_models.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>

#include "engine/eval/dataset.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/attr.h"
#include "model/graph.h"
#include "model/io.h"
#include "model/npy.h"
#include "model/tflite/dialect.h"
#include "model/tflite/writer.h"
#include "tests/test_util.h"
#include "tests/transforms/tflite_corpus.h"
#include "transforms/tflite/convert.h"

namespace gds::oracle {
namespace {

namespace mt = model::tflite;
namespace tt = transforms::tflite;
using model::HostTensor;
using tensorflow::DT_FLOAT;
using tensorflow::DT_INT8;

// The model's input Placeholders in input order.
std::vector<const tensorflow::NodeDef*> modelInputs(const tensorflow::GraphDef& g) {
  std::vector<std::pair<std::int64_t, const tensorflow::NodeDef*>> in;
  for (const auto& n : g.node()) {
    if (n.op() != "Placeholder") continue;
    auto it = n.attr().find(mt::kInputIndexAttr);
    in.push_back({it == n.attr().end() ? 0 : it->second.i(), &n});
  }
  std::sort(in.begin(), in.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const tensorflow::NodeDef*> out;
  for (const auto& p : in) out.push_back(p.second);
  return out;
}

// The int8 quantization a float model input is quantized with (its
// tfl.quantize consumer's), or the input's own for an int8 input.
mt::Quantization inputQuantization(const tensorflow::GraphDef& g, const tensorflow::NodeDef& input) {
  if (mt::outputType(input, 0) == DT_INT8) return mt::quantizationOf(input, 0);
  for (const auto& n : g.node())
    if (n.op() == "tfl.quantize" && n.input_size() > 0 && model::parseTensorName(n.input(0)).node == input.name())
      return mt::quantizationOf(n, 0);
  return {};
}

// f as the int8 or int16 tensor of quantization q.
HostTensor quantized(const HostTensor& f, const mt::Quantization& q, tensorflow::DataType type = DT_INT8) {
  HostTensor t = HostTensor::zeros(type, f.shape);
  const float scale = q.scale.empty() ? 1.0f : q.scale[0];
  const std::int64_t zp = q.zero_point.empty() ? 0 : q.zero_point[0];
  for (std::int64_t i = 0; i < f.size(); ++i) {
    const double v = std::round(static_cast<double>(f.as<float>()[i]) / scale) + static_cast<double>(zp);
    if (type == tensorflow::DT_INT16)
      t.as<std::int16_t>()[i] = static_cast<std::int16_t>(std::clamp(v, -32768.0, 32767.0));
    else
      t.as<std::int8_t>()[i] = static_cast<std::int8_t>(std::clamp(v, -128.0, 127.0));
  }
  return t;
}

// A seeded input over the values the input's quantization represents (float
// inputs) or over all of int8 (int16).
HostTensor seededInput(const tensorflow::NodeDef& input, const mt::Quantization& q, unsigned seed) {
  const model::Shape shape = mt::outputShape(input, 0);
  std::mt19937 rng(seed);
  if (mt::outputType(input, 0) == DT_INT8) {
    HostTensor t = HostTensor::zeros(DT_INT8, shape);
    std::uniform_int_distribution<int> d(-128, 127);
    for (std::int64_t i = 0; i < t.size(); ++i) t.as<std::int8_t>()[i] = static_cast<std::int8_t>(d(rng));
    return t;
  }
  if (mt::outputType(input, 0) == tensorflow::DT_INT16) {
    HostTensor t = HostTensor::zeros(tensorflow::DT_INT16, shape);
    std::uniform_int_distribution<int> d(-32768, 32767);
    for (std::int64_t i = 0; i < t.size(); ++i) t.as<std::int16_t>()[i] = static_cast<std::int16_t>(d(rng));
    return t;
  }
  float lo = -1, hi = 1;
  if (!q.scale.empty()) {
    const double zp = q.zero_point.empty() ? 0 : static_cast<double>(q.zero_point[0]);
    lo = static_cast<float>(q.scale[0] * (-128.0 - zp));
    hi = static_cast<float>(q.scale[0] * (127.0 - zp));
  }
  HostTensor t = HostTensor::zeros(DT_FLOAT, shape);
  std::uniform_real_distribution<float> d(lo, hi);
  for (std::int64_t i = 0; i < t.size(); ++i) t.as<float>()[i] = d(rng);
  return t;
}

}  // namespace

std::string oracleModelPath(const std::string& file_name) {
  if (const char* keep = std::getenv("GDS_ORACLE_KEEP"); keep && *keep) {
    std::filesystem::create_directories(keep);
    return (std::filesystem::path(keep) / file_name).string();
  }
  return test::tempDir() + "/" + file_name;
}

bool loadOracleModel(const std::string& path, OracleModel* m) {
  auto loaded = model::load(path);
  EXPECT_TRUE(loaded.ok()) << loaded.error();
  if (!loaded.ok()) return false;
  m->path = path;
  m->graph = loaded->graph;
  m->inputs.clear();
  for (const auto* n : modelInputs(m->graph)) m->inputs.push_back(n->name());
  return true;
}

model::HostTensor quantizedInput(const OracleModel& m, std::size_t k, const model::HostTensor& value) {
  const auto inputs = modelInputs(m.graph);
  const tensorflow::DataType type = k < inputs.size() ? mt::outputType(*inputs[k], 0) : DT_INT8;
  return quantized(value, k < inputs.size() ? inputQuantization(m.graph, *inputs[k]) : mt::Quantization{}, type);
}

namespace {

void addSeededSamples(OracleModel* m, int count) {
  const auto inputs = modelInputs(m->graph);
  for (int s = 1; s <= count; ++s) {
    std::vector<HostTensor> sample;
    for (std::size_t k = 0; k < inputs.size(); ++k)
      sample.push_back(seededInput(*inputs[k], inputQuantization(m->graph, *inputs[k]),
                                   static_cast<unsigned>(1000 * s + k)));
    m->samples.push_back(std::move(sample));
    m->sample_names.push_back("seed " + std::to_string(s));
  }
}

std::vector<std::string> dataFileNames(const std::string& folder, std::size_t limit) {
  std::vector<std::string> names;
  auto d = engine::openDataset(test::dataPath(folder));
  if (!d.ok()) return names;
  // Evenly spread over the folder (the clips are sorted by word).
  const std::size_t n = d->files.size(), step = std::max<std::size_t>(1, n / std::max<std::size_t>(limit, 1));
  for (std::size_t i = 0; i < n && names.size() < limit; i += step) names.push_back(d->files[i]);
  return names;
}

}  // namespace

namespace {

// A corpus model as read, with its chosen data samples (at most
// max_data_samples photos or clips) and the first 20 for calibration.
struct CorpusInputs {
  const tt::ExportedCorpusModel* corpus;
  tensorflow::GraphDef graph;
  std::vector<std::vector<engine::Tensor>> calibration, chosen;
  std::vector<std::string> names;
};

std::vector<CorpusInputs> corpusInputs(std::size_t max_data_samples,
                                       const std::vector<tt::ExportedCorpusModel>& corpus = tt::exportedCorpus()) {
  std::vector<CorpusInputs> out;
  if (!test::sharedAvailable()) return out;
  for (const tt::ExportedCorpusModel& c : corpus) {
    auto loaded = model::load(test::modelPath(c.name));
    EXPECT_TRUE(loaded.ok()) << loaded.error();
    if (!loaded.ok()) continue;
    CorpusInputs in;
    in.corpus = &c;
    const std::vector<std::vector<engine::Tensor>> data = tt::corpusSamples(c, loaded->graph, 1000);
    in.names = dataFileNames(c.data, max_data_samples);
    auto d = engine::openDataset(test::dataPath(c.data));
    for (std::size_t i = 0; d.ok() && i < d->files.size() && i < data.size(); ++i)
      if (std::find(in.names.begin(), in.names.end(), d->files[i]) != in.names.end()) in.chosen.push_back(data[i]);
    in.calibration = data.size() > 20 ? std::vector<std::vector<engine::Tensor>>(data.begin(), data.begin() + 20) : data;
    in.graph = std::move(loaded->graph);
    out.push_back(std::move(in));
  }
  return out;
}

// The outputs of m's hybrid operators (convolutions and fully connected
// layers with int8 weights and float activations).
void markHybridTensors(OracleModel* m) {
  std::map<std::string, const tensorflow::NodeDef*> by_name;
  for (const auto& n : m->graph.node()) by_name[n.name()] = &n;
  for (const auto& n : m->graph.node()) {
    if ((n.op() != "tfl.fully_connected" && n.op() != "tfl.conv_2d" && n.op() != "tfl.depthwise_conv_2d") ||
        n.input_size() < 2)
      continue;
    const tensorflow::NodeDef* w = by_name[model::parseTensorName(n.input(1)).node];
    if (w && w->op() == "Const" && w->attr().count("dtype") && w->attr().at("dtype").type() == tensorflow::DT_INT8)
      m->exact_tensors.insert(mt::tensorName(n, 0));
  }
}

// ../shared/models/<folder>/<name>.tflite into m, with its stored input
// (<name>.input.npy) and two seeded ones; false (a test failure) when it
// cannot be read.
bool loadSharedTflite(const std::string& folder, const std::string& name, OracleModel* m) {
  if (!loadOracleModel(test::modelPath(folder + "/" + name + ".tflite"), m)) return false;
  auto stored = model::readNpy(test::modelPath(folder + "/" + name + ".input.npy"));
  EXPECT_TRUE(stored.ok()) << stored.error();
  if (stored.ok()) {
    m->samples.push_back({*stored});
    m->sample_names.push_back(name + ".input.npy");
  }
  addSeededSamples(m, 2);
  return true;
}

}  // namespace

// Integer tensors are compared alone on gdstudio's inputs where a float
// difference upstream moved a value across a step.
void markIntegerTensorsExact(OracleModel* m) {
  m->float_model = true;
  for (const auto& n : m->graph.node()) {
    if (!mt::isDialectOp(n.op()) || n.op() == mt::kNoValueOp) continue;
    const auto* types = model::findAttr(n, mt::kOutputTypesAttr);
    for (int k = 0; types && k < types->list().type_size(); ++k)
      if (types->list().type(k) != tensorflow::DT_FLOAT) m->exact_tensors.insert(mt::tensorName(n, k));
  }
}

namespace {

// `in` exported with `o` to <stem><suffix>, with its chosen samples (as the
// int8 tensors an int8 input takes) and two seeded ones.
void addExport(const CorpusInputs& in, const tt::ConvertOptions& o, const std::string& kind, const std::string& suffix,
               std::vector<OracleModel>* out) {
  const std::string& name = in.corpus->name;
  auto converted = tt::convertToTflite(in.graph, o);
  EXPECT_TRUE(converted.ok()) << name << ": " << converted.error();
  if (!converted.ok()) return;
  OracleModel m;
  m.label = name + " " + kind;
  m.float_model = !tt::fullInteger(o.quantize);
  const std::string path = oracleModelPath(std::filesystem::path(name).stem().string() + suffix);
  Status s = mt::saveTflite(converted->graph, path);
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok() || !loadOracleModel(path, &m)) return;
  const bool integer_io = o.inference_input_type != tensorflow::DT_FLOAT;
  const auto inputs = modelInputs(m.graph);
  for (std::size_t i = 0; i < in.chosen.size(); ++i) {
    std::vector<HostTensor> sample;
    for (std::size_t k = 0; k < in.chosen[i].size() && k < inputs.size(); ++k) {
      HostTensor f = in.chosen[i][k].toHost();
      sample.push_back(integer_io ? quantized(f, inputQuantization(m.graph, *inputs[k]), o.inference_input_type) : f);
    }
    m.samples.push_back(std::move(sample));
    m.sample_names.push_back(in.names[i]);
  }
  addSeededSamples(&m, 2);
  markHybridTensors(&m);
  out->push_back(std::move(m));
}

}  // namespace

const std::vector<OracleModel>& exportedInt8Models(std::size_t max_data_samples) {
  static const std::vector<OracleModel> models = [max_data_samples] {
    std::vector<OracleModel> out;
    for (const CorpusInputs& in : corpusInputs(max_data_samples)) {
      for (bool int8_io : {false, true}) {
        tt::ConvertOptions o = tt::corpusConvertOptions(*in.corpus);
        o.quantize = tt::Quantize::Int8;
        o.calibration = in.calibration;
        if (int8_io) o.inference_input_type = o.inference_output_type = DT_INT8;
        addExport(in, o, int8_io ? "int8, int8 in/out" : "int8, float in/out",
                  int8_io ? "_int8_io.tflite" : "_int8.tflite", &out);
      }
    }
    return out;
  }();
  return models;
}

const std::vector<OracleModel>& exportedFloat16Models(std::size_t max_data_samples) {
  static const std::vector<OracleModel> models = [max_data_samples] {
    std::vector<OracleModel> out;
    for (const CorpusInputs& in : corpusInputs(max_data_samples)) {
      tt::ConvertOptions o = tt::corpusConvertOptions(*in.corpus);
      o.quantize = tt::Quantize::Float16;
      addExport(in, o, "float16 weights", "_float16.tflite", &out);
    }
    for (OracleModel& m : out) m.float_tolerance = 5e-5;
    return out;
  }();
  return models;
}

const std::vector<OracleModel>& exportedDynamicRangeModels(std::size_t max_data_samples) {
  static const std::vector<OracleModel> models = [max_data_samples] {
    std::vector<OracleModel> out;
    for (const CorpusInputs& in : corpusInputs(max_data_samples)) {
      tt::ConvertOptions o = tt::corpusConvertOptions(*in.corpus);
      o.quantize = tt::Quantize::Dynamic;
      addExport(in, o, "dynamic range", "_dynamic.tflite", &out);
    }
    return out;
  }();
  return models;
}

const std::vector<OracleModel>& exportedMixedModels(std::size_t max_data_samples) {
  static const std::vector<OracleModel> models = [max_data_samples] {
    std::vector<OracleModel> out;
    for (const CorpusInputs& in : corpusInputs(max_data_samples)) {
      const std::string& name = in.corpus->name;
      if (name != "mobilenet_v1_0.25_128_frozen.pb" && name != "kws_ds_cnn_s.pb") continue;
      tt::ConvertOptions o = tt::corpusConvertOptions(*in.corpus);
      o.quantize = tt::Quantize::Int8;
      o.calibration = in.calibration;
      o.float_ops = {"DEPTHWISE_CONV_2D"};
      addExport(in, o, "int8, depthwise float", "_mixed.tflite", &out);
    }
    for (OracleModel& m : out) markIntegerTensorsExact(&m);
    return out;
  }();
  return models;
}

const std::vector<OracleModel>& exportedInt16x8Models(std::size_t max_data_samples) {
  static const std::vector<OracleModel> models = [max_data_samples] {
    std::vector<OracleModel> out;
    for (const CorpusInputs& in : corpusInputs(max_data_samples)) {
      for (bool int16_io : {false, true}) {
        tt::ConvertOptions o = tt::corpusConvertOptions(*in.corpus);
        o.quantize = tt::Quantize::Int16x8;
        o.calibration = in.calibration;
        if (int16_io) o.inference_input_type = o.inference_output_type = tensorflow::DT_INT16;
        addExport(in, o, int16_io ? "16x8, int16 in/out" : "16x8, float in/out",
                  int16_io ? "_int16x8_io.tflite" : "_int16x8.tflite", &out);
      }
    }
    for (OracleModel& m : out) markIntegerTensorsExact(&m);
    return out;
  }();
  return models;
}

const std::vector<OracleModel>& exportedRecurrentModels(std::size_t max_data_samples) {
  static const std::vector<OracleModel> models = [max_data_samples] {
    std::vector<OracleModel> out;
    for (const CorpusInputs& in : corpusInputs(max_data_samples, tt::recurrentCorpus())) {
      addExport(in, tt::corpusConvertOptions(*in.corpus), "float, unrolled", "_float.tflite", &out);
      tt::ConvertOptions o = tt::corpusConvertOptions(*in.corpus);
      o.quantize = tt::Quantize::Int8;
      o.calibration = in.calibration;
      addExport(in, o, "int8, unrolled", "_int8.tflite", &out);
    }
    return out;
  }();
  return models;
}

const std::vector<OracleModel>& sharedTfliteModels() {
  static const std::vector<OracleModel> models = [] {
    std::vector<OracleModel> out;
    if (!test::sharedAvailable()) return out;
    for (const char* name : {"hello_world_int8", "micro_speech_int8", "openmv_mobilenet_int8", "hello_world_float",
                             "occupancy_dense_float"}) {
      OracleModel m;
      m.label = std::string(name) + ".tflite";
      m.float_model = std::string(name).find("_float") != std::string::npos;
      if (!loadSharedTflite("tflite", name, &m)) continue;
      out.push_back(std::move(m));
    }
    return out;
  }();
  return models;
}

const std::vector<OracleModel>& sharedHybridModels() {
  static const std::vector<OracleModel> models = [] {
    std::vector<OracleModel> out;
    if (!test::sharedAvailable()) return out;
    for (const char* name : {"keypoint_bn_mish_k2.15"}) {
      OracleModel m;
      m.label = std::string(name) + ".tflite (dynamic range)";
      m.float_model = true;
      if (!loadSharedTflite("keras", name, &m)) continue;
      markHybridTensors(&m);
      EXPECT_EQ(m.exact_tensors.size(), 3u) << name << ": three hybrid FULLY_CONNECTED operators";
      out.push_back(std::move(m));
    }
    return out;
  }();
  return models;
}

std::map<std::string, std::string> tfliteTensorNames(const tensorflow::GraphDef& graph) {
  std::map<std::string, std::string> names;
  for (const auto& n : graph.node()) {
    if (!mt::isDialectOp(n.op()) || n.op() == mt::kNoValueOp) continue;
    for (int k = 0; k < mt::outputCount(n); ++k) names[mt::tensorName(n, k)] = n.name() + ":" + std::to_string(k);
  }
  return names;
}

std::set<std::string> widenedConstants(const OracleModel& m) {
  std::set<std::string> consts, out;
  for (const auto& n : m.graph.node())
    if (n.op() == "Const") consts.insert(n.name());
  for (const auto& n : m.graph.node())
    if (n.op() == "tfl.dequantize" && n.input_size() == 1 && consts.count(std::string(model::nodeNameOf(n.input(0)))))
      out.insert(mt::tensorName(n, 0));
  return out;
}

std::string allTensorsModel(const OracleModel& m, std::vector<std::string>* names) {
  names->clear();
  mt::WriteOptions w;
  w.inputs = m.inputs;
  std::vector<std::pair<std::int64_t, std::string>> outputs;  // (output index, tensor)
  std::vector<std::string> rest;
  for (const auto& n : m.graph.node()) {
    if (!mt::isDialectOp(n.op()) || n.op() == mt::kNoValueOp) continue;
    auto it = n.attr().find(mt::kOutputIndexAttr);
    for (int k = 0; k < mt::outputCount(n); ++k) {
      const std::int64_t index = it != n.attr().end() && k < it->second.list().i_size() ? it->second.list().i(k) : -1;
      const std::string t = n.name() + ":" + std::to_string(k);
      if (index >= 0) outputs.push_back({index, t});
      else rest.push_back(t);
    }
  }
  std::sort(outputs.begin(), outputs.end());
  for (const auto& o : outputs) w.outputs.push_back(o.second);
  w.outputs.insert(w.outputs.end(), rest.begin(), rest.end());
  std::map<std::string, const tensorflow::NodeDef*> by_name;
  for (const auto& n : m.graph.node()) by_name[n.name()] = &n;
  for (const std::string& t : w.outputs) {
    const model::TensorRef r = model::parseTensorName(t);
    names->push_back(mt::tensorName(*by_name.at(r.node), r.port));
  }
  const std::string path = test::tempDir() + "/all_tensors.tflite";
  Status s = mt::saveTflite(m.graph, path, w);
  EXPECT_TRUE(s.ok()) << m.label << ": " << s.message();
  return s.ok() ? path : std::string();
}

GdstudioRun runGdstudio(const OracleModel& m, const std::vector<std::string>& tensor_names,
                        const engine::PlanOptions& options) {
  GdstudioRun run;
  const std::map<std::string, std::string> map = tfliteTensorNames(m.graph);
  std::vector<std::string> fetches;
  std::vector<int> slot(tensor_names.size(), -1);
  for (std::size_t i = 0; i < tensor_names.size(); ++i) {
    auto it = map.find(tensor_names[i]);
    if (it == map.end()) continue;
    slot[i] = static_cast<int>(fetches.size());
    fetches.push_back(it->second);
  }
  auto plan = engine::compileForInference(m.graph, m.inputs, fetches, options);
  if (!plan.ok()) {
    run.error = plan.error();
    return run;
  }
  for (const auto& sample : m.samples) {
    std::vector<engine::Tensor> feed;
    for (const auto& h : sample) feed.push_back(engine::Tensor::fromHost(h));
    auto values = (*plan)->run(feed);
    if (!values.ok()) {
      run.error = values.error();
      return run;
    }
    std::vector<HostTensor> row(tensor_names.size());
    for (std::size_t i = 0; i < tensor_names.size(); ++i)
      if (slot[i] >= 0) row[i] = values->at(static_cast<std::size_t>(slot[i])).toHost();
    run.samples.push_back(std::move(row));
  }
  run.ok = true;
  return run;
}

std::vector<TensorDiff> compareTensors(const OracleModel& m, const std::vector<std::string>& names,
                                       const std::vector<std::vector<HostTensor>>& oracle, const GdstudioRun& ours) {
  const std::map<std::string, std::string> map = tfliteTensorNames(m.graph);
  std::map<std::string, std::string> op_of;
  for (const auto& n : m.graph.node()) op_of[n.name()] = n.op();
  std::map<std::string, int> position;  // execution order of the producing node
  for (int k = 0; k < m.graph.node_size(); ++k) position[m.graph.node(k).name()] = k;
  std::vector<TensorDiff> diffs(names.size());
  std::vector<int> order(names.size(), 0);
  for (std::size_t t = 0; t < names.size(); ++t) {
    TensorDiff& d = diffs[t];
    d.name = names[t];
    d.exact = m.exact_tensors.count(names[t]) > 0;
    auto it = map.find(names[t]);
    if (it != map.end()) {
      d.op = op_of[model::parseTensorName(it->second).node];
      order[t] = position[model::parseTensorName(it->second).node];
    }
    double largest = 0;
    for (std::size_t s = 0; s < oracle.size() && s < ours.samples.size(); ++s) {
      const HostTensor& a = ours.samples[s][t];
      const HostTensor& b = oracle[s][t];
      if (a.dtype == tensorflow::DT_INVALID) {
        d.why_not = "not in gdstudio's graph";
        break;
      }
      if (a.dtype != b.dtype || a.size() != b.size()) {
        d.why_not = "dtype or size differs (" + model::dtypeName(a.dtype) + " " + std::to_string(a.size()) +
                    " vs " + model::dtypeName(b.dtype) + " " + std::to_string(b.size()) + ")";
        break;
      }
      d.compared = true;
      d.integer = a.dtype != DT_FLOAT;
      for (std::int64_t i = 0; i < a.size(); ++i) {
        const double x = a.valueAt(i), y = b.valueAt(i);
        const double diff = std::fabs(x - y);
        largest = std::max(largest, std::fabs(y));
        if (!(diff == 0) && !(std::isnan(x) && std::isnan(y))) {
          ++d.differing;
          if (d.first_sample < 0) d.first_sample = static_cast<int>(s);
        }
        if (diff > d.max_diff || std::isnan(diff)) d.max_diff = std::isnan(diff) ? INFINITY : diff;
        ++d.total;
      }
    }
    if (d.compared && !d.integer) d.max_rel = largest > 0 ? d.max_diff / largest : d.max_diff;
  }
  // Execution order, so that the first differing tensor is where the runtimes part.
  std::vector<std::size_t> index(names.size());
  for (std::size_t t = 0; t < index.size(); ++t) index[t] = t;
  std::stable_sort(index.begin(), index.end(), [&](std::size_t a, std::size_t b) { return order[a] < order[b]; });
  std::vector<TensorDiff> sorted;
  for (std::size_t t : index) sorted.push_back(std::move(diffs[t]));
  return sorted;
}

void isolateDifferences(const OracleModel& m, const std::vector<std::string>& names, const GdstudioRun& ours,
                        test::TfliteKernels kernels, std::vector<TensorDiff>* diffs, int limit) {
  std::map<std::string, std::size_t> slot;
  for (std::size_t t = 0; t < names.size(); ++t) slot[names[t]] = t;
  std::map<std::string, const tensorflow::NodeDef*> by_name;
  std::map<std::string, int> op_index;
  int ops = 0;
  for (const auto& n : m.graph.node()) {
    by_name[n.name()] = &n;
    if (mt::isDialectOp(n.op()) && n.op() != mt::kNoValueOp) op_index[n.name()] = ops++;
  }
  const std::map<std::string, std::string> tensor_of = tfliteTensorNames(m.graph);
  int done = 0;
  for (TensorDiff& d : *diffs) {
    if (done >= limit) break;
    if (!d.compared || d.differing == 0 || d.first_sample < 0) continue;
    if (m.float_model && !m.exact_tensors.count(d.name) &&
        (m.exact_tensors.empty() || d.max_rel <= m.float_tolerance))
      continue;
    auto it = tensor_of.find(d.name);
    if (it == tensor_of.end()) continue;
    const model::TensorRef out = model::parseTensorName(it->second);
    const tensorflow::NodeDef& n = *by_name.at(out.node);
    const std::size_t s = static_cast<std::size_t>(d.first_sample);
    std::vector<std::pair<std::string, HostTensor>> inputs;
    bool complete = true;
    for (const std::string& in : n.input()) {
      const model::TensorRef r = model::parseTensorName(in);
      const tensorflow::NodeDef& p = *by_name.at(r.node);
      if (p.op() == "Const" || p.op() == mt::kNoValueOp) continue;
      const std::string name = mt::tensorName(p, r.port);
      if (p.op() == "Placeholder") {
        const auto pos = std::find(m.inputs.begin(), m.inputs.end(), p.name()) - m.inputs.begin();
        inputs.push_back({name, m.samples[s].at(static_cast<std::size_t>(pos))});
      } else if (slot.count(name) && ours.samples[s][slot[name]].dtype != tensorflow::DT_INVALID) {
        inputs.push_back({name, ours.samples[s][slot[name]]});
      } else {
        complete = false;
      }
    }
    ++done;
    d.isolated = true;
    if (!complete) {
      d.isolated_error = "an input of the operator was not fetched";
      continue;
    }
    const test::TfliteOperatorRun r = test::tfliteRunOperator(m.path, op_index.at(n.name()), inputs, kernels);
    if (!r.ok) {
      d.isolated_error = r.error.substr(0, 200);
      continue;
    }
    const auto k = std::find(r.tensors.begin(), r.tensors.end(), d.name) - r.tensors.begin();
    if (k >= static_cast<std::ptrdiff_t>(r.tensors.size())) {
      d.isolated_error = "the operator's run did not return " + d.name;
      continue;
    }
    const HostTensor& theirs = r.values[static_cast<std::size_t>(k)];
    const HostTensor& mine = ours.samples[s][slot.at(d.name)];
    double largest = 0;
    for (std::int64_t i = 0; i < mine.size() && i < theirs.size(); ++i) {
      const double diff = std::fabs(mine.valueAt(i) - theirs.valueAt(i));
      d.isolated_max = std::max(d.isolated_max, diff);
      largest = std::max(largest, std::fabs(theirs.valueAt(i)));
      d.isolated_differing += diff > 0 ? 1 : 0;
      ++d.isolated_total;
    }
    d.isolated_rel = largest > 0 ? d.isolated_max / largest : d.isolated_max;
  }
}

int countMismatches(const OracleModel& m, const std::vector<TensorDiff>& diffs) {
  int bad = 0;
  for (const TensorDiff& d : diffs) {
    if (!d.compared) ++bad;
    else if (m.exact_tensors.count(d.name))
      bad += d.differing > 0 && (!d.isolated || !d.isolated_error.empty() || d.isolated_differing > 0) ? 1 : 0;
    else if (m.float_model && !d.integer)
      bad += d.max_rel > m.float_tolerance &&
                     (!d.isolated || !d.isolated_error.empty() || d.isolated_rel > m.float_tolerance)
                 ? 1
                 : 0;
    else bad += d.differing > 0 ? 1 : 0;
  }
  return bad;
}

std::string reportDiffs(const std::string& title, const std::vector<TensorDiff>& diffs, bool all) {
  std::string s = title + "\n";
  int compared = 0, differing = 0;
  const TensorDiff* first = nullptr;
  char line[512];
  for (const TensorDiff& d : diffs) {
    if (!d.compared) {
      std::snprintf(line, sizeof line, "  %-22s %-60.60s not compared: %s\n", d.op.c_str(), d.name.c_str(),
                    d.why_not.c_str());
      s += line;
      continue;
    }
    ++compared;
    if (d.differing > 0) {
      ++differing;
      if (!first) first = &d;
    }
    if (d.differing == 0 && !all) continue;
    std::string isolated;
    if (d.isolated && !d.isolated_error.empty()) isolated = "; alone: " + d.isolated_error;
    else if (d.isolated && d.integer)
      isolated = "; alone on gdstudio's inputs: " + std::to_string(static_cast<long long>(d.isolated_max)) +
                 " steps, " + std::to_string(d.isolated_differing) + " of " + std::to_string(d.isolated_total);
    else if (d.isolated && d.exact)
      isolated = "; alone on gdstudio's inputs: " + std::to_string(d.isolated_differing) + " of " +
                 std::to_string(d.isolated_total) + " differ";
    else if (d.isolated) {
      char rel[64];
      std::snprintf(rel, sizeof rel, "%.3g", d.isolated_rel);
      isolated = std::string("; alone on gdstudio's inputs: rel ") + rel;
    }
    if (d.integer)
      std::snprintf(line, sizeof line, "  %-22s %-60.60s %3.0f steps, %lld of %lld differ%s\n", d.op.c_str(),
                    d.name.c_str(), d.max_diff, static_cast<long long>(d.differing), static_cast<long long>(d.total),
                    isolated.c_str());
    else
      std::snprintf(line, sizeof line, "  %-22s %-60.60s max |d| %.3g (rel %.3g), %lld of %lld differ%s\n",
                    d.op.c_str(), d.name.c_str(), d.max_diff, d.max_rel, static_cast<long long>(d.differing),
                    static_cast<long long>(d.total), isolated.c_str());
    s += line;
  }
  std::snprintf(line, sizeof line, "  %d tensors compared, %d differ%s%s\n", compared, differing,
                first ? "; first: " : "", first ? first->name.c_str() : "");
  return s + line;
}

}  // namespace gds::oracle
