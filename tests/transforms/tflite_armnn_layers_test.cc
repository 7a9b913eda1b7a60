// Layer by layer against Arm NN 20.08: every operator of the int8 .tflite
// files gdstudio exports for the corpus is cut out as a one-operator model
// (its activation inputs become int8 model inputs with the same
// quantization), both runtimes are fed the same int8 tensors (what gdstudio
// computed for that layer's inputs on a real sample), and their int8 outputs
// must agree within one quantization step, and exactly for the operators
// that only move or select values (reshape, max pool, concatenation, ...).
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
#include "tests/transforms/tflite_corpus.h"
#include "transforms/tflite/calibrate.h"
#include "transforms/tflite/convert.h"
#include "transforms/transform_utils.h"

namespace gds::transforms::tflite {
namespace {

namespace mt = gds::model::tflite;
using engine::Tensor;
using model::HostTensor;
using tensorflow::GraphDef;
using tensorflow::NodeDef;

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

// Operators whose int8 output is a copy or a selection of input values:
// both runtimes must give exactly the same bytes.
bool movesValuesOnly(const std::string& op) {
  static const std::set<std::string> ops = {"tfl.reshape",       "tfl.squeeze", "tfl.max_pool_2d", "tfl.concatenation",
                                            "tfl.transpose",     "tfl.maximum", "tfl.minimum",     "tfl.pad",
                                            "tfl.strided_slice", "tfl.reduce_max"};
  return ops.count(op) > 0;
}

// Runs every operator of the dialect graph `g` on its own in gdstudio and
// in Arm NN, fed what gdstudio computes for its inputs on `sample`; returns
// the worst difference per op type (int8 outputs in steps, float outputs in
// steps of the input's scale for DEQUANTIZE, else relative to the output's
// range) and prints one line per operator.
std::map<std::string, double> compareLayers(const std::string& label, const GraphDef& g,
                                            const std::vector<std::string>& inputs, const std::vector<Tensor>& sample) {
  std::map<std::string, double> worst_by_op;
  // Every tensor an operator reads, as gdstudio computes it on the sample.
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
  auto plan = engine::compileForInference(g, inputs, fetches, options);
  EXPECT_TRUE(plan.ok()) << plan.error();
  if (!plan.ok()) return worst_by_op;
  auto values = (*plan)->run(sample);
  EXPECT_TRUE(values.ok()) << values.error();
  if (!values.ok()) return worst_by_op;
  std::map<std::string, HostTensor> value;
  for (std::size_t i = 0; i < fetches.size(); ++i) value[fetches[i]] = values->at(i).toHost();

  for (const NodeDef* n : ops) {
    SCOPED_TRACE(n->name() + " (" + n->op() + ")");
    const SingleOp s = singleOp(g, *n);
    mt::WriteOptions w;
    w.inputs = s.inputs;
    w.outputs = {n->name()};
    const std::string path = test::tempDir() + "/layer.tflite";
    Status saved = mt::saveTflite(s.graph, path, w);
    EXPECT_TRUE(saved.ok()) << saved.message();
    auto reread = model::load(path);
    EXPECT_TRUE(reread.ok()) << reread.error();
    if (!saved.ok() || !reread.ok()) continue;
    std::vector<Tensor> feed;
    std::vector<HostTensor> host;
    for (const std::string& t : s.full_tensors) {
      host.push_back(value.at(t));
      feed.push_back(Tensor::fromHost(host.back()));
    }
    auto layer_plan = engine::compileForInference(reread->graph, s.inputs, {n->name()}, options);
    EXPECT_TRUE(layer_plan.ok()) << layer_plan.error();
    if (!layer_plan.ok()) continue;
    auto ours = (*layer_plan)->run(feed);
    EXPECT_TRUE(ours.ok()) << ours.error();
    const test::ArmnnBatchResult armnn = test::armnnRunSamples(path, {host});
    EXPECT_TRUE(armnn.ok) << armnn.error;
    if (!ours.ok() || !armnn.ok) continue;
    const HostTensor a = ours->at(0).toHost();
    const HostTensor& b = armnn.outputs.at(0).at(0);
    EXPECT_EQ(a.size(), b.size());
    if (a.size() != b.size()) continue;
    std::int64_t differing = 0;
    double worst = maxDifference(a, b, &differing);
    if (a.dtype == tensorflow::DT_FLOAT) {
      const model::TensorRef in = model::parseTensorName(n->input(0));
      const mt::Quantization q = mt::quantizationOf(*by_name.at(in.node), in.port);
      if (!q.scale.empty()) {
        worst /= q.scale[0];
      } else {
        double lo = b.valueAt(0), hi = lo;
        for (std::int64_t i = 0; i < b.size(); ++i) {
          lo = std::min(lo, b.valueAt(i));
          hi = std::max(hi, b.valueAt(i));
        }
        worst /= std::max(hi - lo, 1e-6);
      }
    }
    std::printf("%s %-22s %-60s max %.2f, %lld of %lld differ\n", label.c_str(), n->op().c_str(), n->name().c_str(),
                worst, static_cast<long long>(differing), static_cast<long long>(a.size()));
    worst_by_op[n->op()] = std::max(worst_by_op[n->op()], worst);
  }
  for (const auto& [op, worst] : worst_by_op) std::printf("%s: %s worst %.2f\n", label.c_str(), op.c_str(), worst);
  return worst_by_op;
}

TEST(TfliteArmnnLayers, EveryInt8LayerOfTheCorpusExportsAgreesWithArmNnOnTheSameInput) {
  GDS_REQUIRE_SHARED();
  GDS_REQUIRE_ARMNN();
  for (const ExportedCorpusModel& m : exportedCorpus()) {
    SCOPED_TRACE(m.name);
    auto loaded = model::load(test::modelPath(m.name));
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    const std::vector<std::vector<Tensor>> calibration = corpusSamples(m, loaded->graph, 20);
    ASSERT_FALSE(calibration.empty());
    ConvertOptions o = corpusConvertOptions(m);
    o.quantize = Quantize::Int8;
    o.calibration = calibration;
    auto converted = convertToTflite(loaded->graph, o);
    ASSERT_TRUE(converted.ok()) << converted.error();
    for (const auto& [op, worst] : compareLayers(m.name, converted->graph, m.inputs, calibration[0])) {
      if (movesValuesOnly(op)) EXPECT_EQ(worst, 0.0) << op << " only moves or selects values, yet differs from Arm NN";
      else EXPECT_LE(worst, 1.0) << op << " differs from Arm NN by more than one step";
    }
  }
}

// LEAKY_RELU, MAXIMUM, MINIMUM and TRANSPOSE, exported from a small
// TensorFlow graph in float and int8: gdstudio's kernels against Arm NN,
// layer by layer, and the float model against the TensorFlow graph run in
// gdstudio.
TEST(TfliteArmnnLayers, LeakyReluMaximumMinimumTransposeAgreeWithArmNnInFloatAndInt8) {
  GDS_REQUIRE_ARMNN();
  GraphDef tf;
  NodeDef* x = tf.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  model::shapeToProto({1, 4, 4, 3}, (*x->mutable_attr())["shape"].mutable_shape());
  auto op = [&](const std::string& name, const std::string& type, std::vector<std::string> in) {
    NodeDef* n = tf.add_node();
    n->set_name(name);
    n->set_op(type);
    for (const std::string& i : in) n->add_input(i);
    (*n->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
    return n;
  };
  (*op("leaky", "LeakyRelu", {"x"})->mutable_attr())["alpha"].set_f(0.1f);
  HostTensor c = HostTensor::zeros(tensorflow::DT_FLOAT, {3});
  c.as<float>()[0] = -0.5f;
  c.as<float>()[1] = 0.25f;
  c.as<float>()[2] = 0.0f;
  *tf.add_node() = makeConst("floor", c);
  op("high", "Maximum", {"leaky", "floor"});
  HostTensor d = HostTensor::zeros(tensorflow::DT_FLOAT, {});
  d.as<float>()[0] = 1.5f;
  *tf.add_node() = makeConst("ceiling", d);
  op("y", "Minimum", {"high", "ceiling"});
  HostTensor perm = HostTensor::zeros(tensorflow::DT_INT32, {4});
  const std::int32_t order[4] = {0, 3, 1, 2};
  std::copy(order, order + 4, perm.as<std::int32_t>());
  *tf.add_node() = makeConst("perm", perm);
  (*op("t", "Transpose", {"y", "perm"})->mutable_attr())["Tperm"].set_type(tensorflow::DT_INT32);

  // Inputs spread over [-4, 4).
  std::vector<std::vector<Tensor>> samples;
  for (int s = 0; s < 8; ++s) {
    HostTensor t = HostTensor::zeros(tensorflow::DT_FLOAT, {1, 4, 4, 3});
    for (std::int64_t i = 0; i < t.size(); ++i) t.as<float>()[i] = static_cast<float>((i * 37 + s * 11) % 64) / 8.0f - 4.0f;
    samples.push_back({Tensor::fromHost(t)});
  }
  auto reference = engine::compileForInference(tf, {"x"}, {"t"});
  ASSERT_TRUE(reference.ok()) << reference.error();
  for (bool int8 : {false, true}) {
    SCOPED_TRACE(int8 ? "int8" : "float");
    ConvertOptions o;
    o.inputs = {"x"};
    o.outputs = {"t"};
    if (int8) {
      o.quantize = Quantize::Int8;
      o.calibration = samples;
    }
    auto converted = convertToTflite(tf, o);
    ASSERT_TRUE(converted.ok()) << converted.error();
    int found = 0;
    for (const NodeDef& n : converted->graph.node())
      found += n.op() == "tfl.leaky_relu" || n.op() == "tfl.maximum" || n.op() == "tfl.minimum" ||
               n.op() == "tfl.transpose";
    EXPECT_EQ(found, 4);
    const std::map<std::string, double> worst = compareLayers("leaky_max_min", converted->graph, {"x"}, samples[3]);
    for (const char* type : {"tfl.leaky_relu", "tfl.maximum", "tfl.minimum", "tfl.transpose"}) {
      ASSERT_TRUE(worst.count(type)) << type;
      if (!int8) EXPECT_LE(worst.at(type), 1e-6) << type;
      else if (movesValuesOnly(type)) EXPECT_EQ(worst.at(type), 0.0) << type;
      else EXPECT_LE(worst.at(type), 1.0) << type;
    }
    if (int8) continue;
    engine::PlanOptions options;
    auto plan = engine::compileForInference(converted->graph, {"x"}, {converted->graph_outputs.at(0)}, options);
    ASSERT_TRUE(plan.ok()) << plan.error();
    auto got = (*plan)->run(samples[3]);
    auto want = (*reference)->run(samples[3]);
    ASSERT_TRUE(got.ok() && want.ok());
    const HostTensor a = got->at(0).toHost(), b = want->at(0).toHost();
    ASSERT_EQ(a.size(), b.size());
    for (std::int64_t i = 0; i < a.size(); ++i) EXPECT_FLOAT_EQ(a.valueAt(i), b.valueAt(i)) << i;
  }
}

// DIV exists in float only (TensorFlow Lite's div.cc has no int8 kernel, so
// the int8 export refuses it): x / c broadcast over channels, against Arm NN
// and the TensorFlow graph.
TEST(TfliteArmnnLayers, FloatDivAgreesWithArmNnAndIsRefusedInInt8) {
  GDS_REQUIRE_ARMNN();
  GraphDef tf;
  NodeDef* x = tf.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  model::shapeToProto({1, 2, 2, 3}, (*x->mutable_attr())["shape"].mutable_shape());
  HostTensor c = HostTensor::zeros(tensorflow::DT_FLOAT, {3});
  c.as<float>()[0] = 0.5f;
  c.as<float>()[1] = -4.0f;
  c.as<float>()[2] = 3.0f;
  *tf.add_node() = makeConst("c", c);
  NodeDef* d = tf.add_node();
  d->set_name("q");
  d->set_op("RealDiv");
  d->add_input("x");
  d->add_input("c");
  (*d->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  HostTensor t = HostTensor::zeros(tensorflow::DT_FLOAT, {1, 2, 2, 3});
  for (std::int64_t i = 0; i < t.size(); ++i) t.as<float>()[i] = static_cast<float>(i) * 0.7f - 4.0f;
  const std::vector<Tensor> sample = {Tensor::fromHost(t)};
  ConvertOptions o;
  o.inputs = {"x"};
  o.outputs = {"q"};
  auto converted = convertToTflite(tf, o);
  ASSERT_TRUE(converted.ok()) << converted.error();
  const std::map<std::string, double> worst = compareLayers("div", converted->graph, {"x"}, sample);
  ASSERT_TRUE(worst.count("tfl.div"));
  EXPECT_LE(worst.at("tfl.div"), 1e-6);
  auto plan = engine::compileForInference(converted->graph, {"x"}, {converted->graph_outputs.at(0)});
  auto reference = engine::compileForInference(tf, {"x"}, {"q"});
  ASSERT_TRUE(plan.ok() && reference.ok());
  auto got = (*plan)->run(sample);
  auto want = (*reference)->run(sample);
  ASSERT_TRUE(got.ok() && want.ok());
  const HostTensor a = got->at(0).toHost(), b = want->at(0).toHost();
  for (std::int64_t i = 0; i < a.size(); ++i) EXPECT_FLOAT_EQ(a.valueAt(i), b.valueAt(i)) << i;
  o.quantize = Quantize::Int8;
  o.calibration = {sample};
  // DIV has no int8 form: it stays float, as TensorFlow's converter leaves
  // it, unless only int8 operators are asked for.
  auto int8 = convertToTflite(tf, o);
  ASSERT_TRUE(int8.ok()) << int8.error();
  EXPECT_EQ(int8->notes.back(), "int8: DIV stays float (a DEQUANTIZE or QUANTIZE at each int8 tensor), as "
                                "TensorFlow's converter leaves an operator without an int8 form; "
                                "--target_ops=TFLITE_BUILTINS_INT8 refuses it");
  o.int8_only = true;
  int8 = convertToTflite(tf, o);
  ASSERT_FALSE(int8.ok());
  EXPECT_EQ(int8.error(), "node 'q' (tfl.div) has no int8 form in TensorFlow Lite's full-integer scheme (only int8 "
                          "operators were asked for: --target_ops=TFLITE_BUILTINS_INT8 or --inference_type=INT8; "
                          "without, it stays float)");
}

}  // namespace
}  // namespace gds::transforms::tflite
