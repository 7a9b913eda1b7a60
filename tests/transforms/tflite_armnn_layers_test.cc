// Layer by layer against Arm NN 20.08: every operator of the int8 .tflite
// files gdstudio exports for the corpus is cut out as a one-operator model
// (its activation inputs become int8 model inputs with the same
// quantization), both runtimes are fed the same int8 tensors (what gdstudio
// computed for that layer's inputs on a real sample), and their int8 outputs
// must agree within one quantization step.
//
// Why one step and not zero: TensorFlow Lite requantizes an int32
// accumulator with MultiplyByQuantizedMultiplier (common.h, the default
// build without TFLITE_SINGLE_ROUNDING), which rounds twice:
// SaturatingRoundingDoublingHighMul rounds acc * multiplier to an integer,
// then RoundingDivideByPOT rounds again by the right shift. A value whose
// exact quotient lies less than 2^-(shift+1) steps below a half (29.4962 in
// MobileNet's first depthwise layer: acc 4752, multiplier 1706195128, shift
// -7) is first rounded onto the half (3776 / 128 = 29.5) and then up (30).
// Arm NN's CpuRef dequantizes inputs, weights and bias to float, accumulates
// in float and quantizes once with round(value / scale) + offset
// (src/backends/reference/workloads/ConvImpl.cpp Convolve,
// FullyConnected.cpp, Pooling2d.cpp with the float Decoder/Encoder of
// BaseIterator.hpp), so it gives the correctly rounded 29. The same holds for
// the pools (TFLite rounds the sum of q half away from zero, Arm NN the mean
// of q - zero_point) and the requantizing QUANTIZE. gdstudio follows
// TensorFlow Lite, the runtime on the device. In a deep network these
// one-step differences (0.01% to 2% of a layer's outputs) feed the next
// layers, so whole models differ by more than a step at the output, most
// after a softmax, whose slope p(1 - p) turns one step of the logits' scale
// into up to 64 x that scale steps of 1/256: the whole-model comparison is
// tests/transforms/tflite_run_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "engine/eval/dataset.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/graph.h"
#include "model/io.h"
#include "model/tflite/dialect.h"
#include "model/tflite/writer.h"
#include "tests/armnn_util.h"
#include "tests/test_util.h"
#include "transforms/tflite/calibrate.h"
#include "transforms/tflite/convert.h"

namespace gds::transforms::tflite {
namespace {

namespace mt = gds::model::tflite;
using engine::Tensor;
using model::HostTensor;
using tensorflow::GraphDef;
using tensorflow::NodeDef;

struct LayerModel {
  std::string name;
  std::vector<std::string> inputs;
  std::vector<model::Shape> input_shapes;
  std::string output;
  std::string data;
};

const std::vector<LayerModel>& corpus() {
  static const std::vector<LayerModel> models = {
      {"mobilenet_v1_0.25_128_frozen.pb", {"input"}, {}, "MobilenetV1/Predictions/Reshape_1", "images"},
      {"generated/mobilenet_v1_1.0_224_random.pb", {"input"}, {}, "MobilenetV1/Predictions/Reshape_1", "images"},
      {"generated/inception_mini.pb", {"input"}, {}, "softmax", "images"},
      {"kws_ds_cnn_s.pb", {"Mfcc"}, {{1, 49, 10}}, "labels_softmax", "speech"},
      {"kws_cnn_s.pb", {"Mfcc"}, {{1, 49, 10}}, "labels_softmax", "speech"},
  };
  return models;
}

// One operator of `g` as a model of its own: activation inputs become
// Placeholders "x<i>" with the producer's dtype, shape and quantization,
// constants are copied.
struct SingleOp {
  GraphDef graph;
  std::vector<std::string> inputs;        // Placeholder names, in model input order
  std::vector<std::string> full_tensors;  // the tensors of `g` they stand for
};

SingleOp singleOp(const GraphDef& g, const NodeDef& n) {
  std::map<std::string, const NodeDef*> by_name;
  for (const NodeDef& m : g.node()) by_name[m.name()] = &m;
  SingleOp s;
  std::set<std::string> copied;
  NodeDef op = n;
  op.clear_input();
  for (int i = 0; i < n.input_size(); ++i) {
    const model::TensorRef ref = model::parseTensorName(n.input(i));
    const NodeDef* p = by_name.at(ref.node);
    if (p->op() == "Const" || p->op() == mt::kNoValueOp) {
      if (copied.insert(p->name()).second) *s.graph.add_node() = *p;
      op.add_input(n.input(i));
      continue;
    }
    NodeDef* x = s.graph.add_node();
    x->set_name("x" + std::to_string(i));
    x->set_op("Placeholder");
    auto& attrs = *x->mutable_attr();
    attrs["dtype"].set_type(mt::outputType(*p, ref.port));
    model::shapeToProto(mt::outputShape(*p, ref.port), attrs["shape"].mutable_shape());
    attrs[mt::kInputIndexAttr].set_i(static_cast<std::int64_t>(s.inputs.size()));
    mt::setQuantization(x, 0, mt::quantizationOf(*p, ref.port));
    s.inputs.push_back(x->name());
    s.full_tensors.push_back(ref.node + ":" + std::to_string(ref.port));
    op.add_input(x->name());
  }
  auto& index = (*op.mutable_attr())[mt::kOutputIndexAttr];
  index.mutable_list()->clear_i();
  for (int k = 0; k < mt::outputCount(n); ++k) index.mutable_list()->add_i(k == 0 ? 0 : -1);
  *s.graph.add_node() = op;
  return s;
}

std::vector<std::vector<Tensor>> samplesFor(const LayerModel& m, const GraphDef& graph, std::size_t limit) {
  auto d = engine::openDataset(test::dataPath(m.data));
  EXPECT_TRUE(d.ok()) << d.error();
  std::vector<std::string> files;
  if (d.ok())
    for (const auto& f : d->files) files.push_back(d->dir + "/" + f);
  if (files.size() > limit) files.resize(limit);
  engine::ImagePreprocess preprocess;
  auto samples = calibrationSamples(graph, m.inputs, files, preprocess);
  EXPECT_TRUE(samples.ok()) << samples.error();
  return samples.ok() ? std::move(*samples) : std::vector<std::vector<Tensor>>{};
}

// The largest |a - b| over the elements (raw stored values: int8 steps).
double maxDifference(const HostTensor& a, const HostTensor& b, std::int64_t* differing) {
  double worst = 0;
  for (std::int64_t i = 0; i < a.size(); ++i) {
    const double d = std::fabs(a.valueAt(i) - b.valueAt(i));
    if (d > 0) ++*differing;
    worst = std::max(worst, d);
  }
  return worst;
}

TEST(TfliteArmnnLayers, EveryInt8LayerOfTheCorpusExportsAgreesWithArmNnOnTheSameInput) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_ARMNN();
  for (const LayerModel& m : corpus()) {
    SCOPED_TRACE(m.name);
    auto loaded = model::load(test::modelPath(m.name));
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    const std::vector<std::vector<Tensor>> calibration = samplesFor(m, loaded->graph, 20);
    ASSERT_FALSE(calibration.empty());
    ConvertOptions o;
    o.inputs = m.inputs;
    o.input_shapes = m.input_shapes;
    o.outputs = {m.output};
    o.quantize = Quantize::Int8;
    o.calibration = calibration;
    auto converted = convertToTflite(loaded->graph, o);
    ASSERT_TRUE(converted.ok()) << converted.error();
    const GraphDef& g = converted->graph;

    // Every tensor an operator reads, as gdstudio computes it on sample 0.
    std::vector<const NodeDef*> ops;
    std::vector<std::string> fetches;
    std::set<std::string> fetched;
    std::map<std::string, const NodeDef*> by_name;
    for (const NodeDef& n : g.node()) by_name[n.name()] = &n;
    for (const NodeDef& n : g.node()) {
      if (!mt::isDialectOp(n.op()) || n.op() == mt::kNoValueOp) continue;
      ops.push_back(&n);
      for (const std::string& in : n.input()) {
        const model::TensorRef ref = model::parseTensorName(in);
        const std::string op = by_name.at(ref.node)->op();
        if (op == "Const" || op == mt::kNoValueOp) continue;
        const std::string t = ref.node + ":" + std::to_string(ref.port);
        if (fetched.insert(t).second) fetches.push_back(t);
      }
    }
    engine::PlanOptions options;
    options.num_threads = 2;
    auto plan = engine::compileForInference(g, m.inputs, fetches, options);
    ASSERT_TRUE(plan.ok()) << plan.error();
    auto values = (*plan)->run(calibration[0]);
    ASSERT_TRUE(values.ok()) << values.error();
    std::map<std::string, HostTensor> value;
    for (std::size_t i = 0; i < fetches.size(); ++i) value[fetches[i]] = values->at(i).toHost();

    std::map<std::string, double> worst_by_op;
    for (const NodeDef* n : ops) {
      const SingleOp s = singleOp(g, *n);
      mt::WriteOptions w;
      w.inputs = s.inputs;
      w.outputs = {n->name()};
      const std::string path = test::tempDir() + "/layer.tflite";
      Status saved = mt::saveTflite(s.graph, path, w);
      ASSERT_TRUE(saved.ok()) << n->name() << ": " << saved.message();
      auto reread = model::load(path);
      ASSERT_TRUE(reread.ok()) << reread.error();
      std::vector<Tensor> feed;
      std::vector<HostTensor> host;
      for (const std::string& t : s.full_tensors) {
        host.push_back(value.at(t));
        feed.push_back(Tensor::fromHost(host.back()));
      }
      auto layer_plan = engine::compileForInference(reread->graph, s.inputs, {n->name()}, options);
      ASSERT_TRUE(layer_plan.ok()) << n->name() << ": " << layer_plan.error();
      auto ours = (*layer_plan)->run(feed);
      ASSERT_TRUE(ours.ok()) << ours.error();
      const test::ArmnnBatchResult armnn = test::armnnRunSamples(path, {host});
      ASSERT_TRUE(armnn.ok) << n->name() << ": " << armnn.error;
      const HostTensor a = ours->at(0).toHost();
      const HostTensor& b = armnn.outputs.at(0).at(0);
      ASSERT_EQ(a.size(), b.size()) << n->name();
      std::int64_t differing = 0;
      double worst = maxDifference(a, b, &differing);
      if (a.dtype == tensorflow::DT_FLOAT) {
        const mt::Quantization q = mt::quantizationOf(*by_name.at(model::parseTensorName(n->input(0)).node), 0);
        worst /= q.scale.empty() ? 1.0 : q.scale[0];
      }
      std::printf("%s %-22s %-60s max %.2f steps, %lld of %lld differ\n", m.name.c_str(), n->op().c_str(),
                  n->name().c_str(), worst, static_cast<long long>(differing), static_cast<long long>(a.size()));
      worst_by_op[n->op()] = std::max(worst_by_op[n->op()], worst);
      EXPECT_LE(worst, 1.0) << n->name() << " (" << n->op() << ") differs from Arm NN by more than one step";
    }
    for (const auto& [op, worst] : worst_by_op)
      std::printf("%s: %s worst %.2f steps\n", m.name.c_str(), op.c_str(), worst);
  }
}

}  // namespace
}  // namespace gds::transforms::tflite
