// summarize_graph's report, FLOPs, JSON, --print_structure and SummaryDiff.
#include <gtest/gtest.h>

#include "model/graph_builder.h"
#include "model/io.h"
#include "model/summary.h"
#include "model/summary_diff.h"
#include "tests/test_util.h"

namespace gds::model {
namespace {

Summary summaryOf(const std::string& file, const ShapeOverrides& shapes = {}) {
  auto m = load(test::modelPath(file));
  EXPECT_TRUE(m.ok()) << m.error();
  auto s = summarizeModel(*m, shapes);
  EXPECT_TRUE(s.ok()) << s.error();
  return *s;
}

TEST(HumanReadableNum, TensorFlowRules) {
  EXPECT_EQ(humanReadableNum(0), "0");
  EXPECT_EQ(humanReadableNum(999), "999");
  EXPECT_EQ(humanReadableNum(1000), "1.00k");
  EXPECT_EQ(humanReadableNum(475832), "475.83k");
  EXPECT_EQ(humanReadableNum(999999), "1000.00k");
  EXPECT_EQ(humanReadableNum(1000000), "1.00M");
  EXPECT_EQ(humanReadableNum(23853946), "23.85M");
  EXPECT_EQ(humanReadableNum(1200000000), "1.20B");
  EXPECT_EQ(humanReadableNum(-1500), "-1.50k");
  EXPECT_EQ(humanReadableNum(1000000000000000LL), "1E+15");
}

// Independent derivation of the numbers below (MobileNet v1, width 0.25,
// 128x128, 1001 classes): weights = conv0 3*3*3*8 + per depthwise layer
// 9*c_in + per pointwise c_in*c_out + logits 256*1001 + 1001 biases = 464857;
// BatchNorm gamma/beta/mean/variance over 2736 channels = 10944, 27 epsilon
// scalars, and 4 elements of shape/axis constants: 475832. FLOPs: conv0
// 64*64*8*27*2 + depthwise out*9*2 + pointwise out*c_in*2 + logits 1001*256*2
// = 27140608 (a python loop over the layer table gives the same).
TEST(Summary, MobilenetFrozenExactText) {
  GDS_REQUIRE_SHARED();
  Summary s = summaryOf("mobilenet_v1_0.25_128_frozen.pb");
  std::string path = test::modelPath("mobilenet_v1_0.25_128_frozen.pb");
  EXPECT_EQ(formatSummaryText(s),
            "Found 1 possible inputs: (name=input, type=float(1), shape=[1,128,128,3]) \n"
            "No variables spotted.\n"
            "Found 1 possible outputs: (name=MobilenetV1/Predictions/Reshape_1, op=Reshape) \n"
            "Found 475832 (475.83k) const parameters, 0 (0) variable parameters, and 0 control_edges\n"
            "Op types used: 166 Const, 138 Identity, 81 Mul, 54 Add, 27 Relu6, 27 Rsqrt, 27 Sub, 15 Conv2D, "
            "13 DepthwiseConv2dNative, 2 Reshape, 1 AvgPool, 1 BiasAdd, 1 Placeholder, 1 Softmax, 1 Squeeze\n"
            "To use with gdstudio benchmark try these arguments:\n"
            "gdstudio benchmark --graph=" + path +
                " --show_flops --input_layer=input --input_layer_type=float --input_layer_shape=1,128,128,3 "
                "--output_layer=MobilenetV1/Predictions/Reshape_1\n"
                "Found 555 nodes, file size 1998252 bytes (2.00M)\n"
                "Parameter bytes: 1903328 (1.90M) const, 0 (0) variable (0 (0) variable elements by shape)\n"
                "FLOPs: 27140608 (27.14M)\n");
  EXPECT_EQ(s.const_bytes, 475832 * 4);
  EXPECT_EQ(s.flops_by_type.at("Conv2D") + s.flops_by_type.at("DepthwiseConv2dNative"), 27140608);
  // The 8-bit-weight version keeps the FLOPs (Dequantize keeps the shapes).
  EXPECT_EQ(summaryOf("mobilenet_v1_0.25_128_quantized.pb").flops, 27140608);
}

// benchmark_model runs an unknown batch as 1: so do the FLOPs, and say so.
TEST(Summary, UnknownBatchCountsAsOneAndSaysSo) {
  GDS_REQUIRE_SHARED();
  Summary s = summaryOf("mnist_softmax_android.pb");
  // 1*10 outputs * K=784 * 2.
  EXPECT_EQ(s.flops, 15680);
  EXPECT_TRUE(s.flops_unknown_nodes.empty());
  EXPECT_EQ(s.flops_batch_one, std::vector<std::string>{"input/x_input"});
  EXPECT_EQ(s.const_parameters, 7851);  // 784*10 weights + 10 biases + ArgMax axis
  // A shape the user gives wins, and nothing is assumed then.
  Summary three = summaryOf("mnist_softmax_android.pb", {{"input/x_input", {3, 784}}});
  EXPECT_EQ(three.flops, 3 * 15680);
  EXPECT_TRUE(three.flops_batch_one.empty());
  std::string text = formatSummaryText(s);
  // summarize_graph's command keeps the unknown batch.
  EXPECT_NE(text.find("--input_layer_shape=-1,784 --output_layer=output\n"), std::string::npos);
  EXPECT_NE(text.find("FLOPs: 15680 (15.68k), with batch 1 for input/x_input (unknown batch size; give "
                      "--input_shape for another)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(toJson(s)["flops_batch_one"], nlohmann::json({"input/x_input"}));
}

// The keyword-spotting models take a WAV file: DecodeWav -> AudioSpectrogram
// -> Mfcc shapes give the convolutions theirs.
TEST(Summary, FlopsThroughTheAudioFrontEnd) {
  GDS_REQUIRE_SHARED();
  Summary s = summaryOf("speech_commands_conv_actions_frozen.pb");
  EXPECT_TRUE(s.flops_unknown_nodes.empty());
  // 98 frames x 40 MFCCs: conv 20x8x1x64 SAME over 98x40 (250880 outputs),
  // max pool 2x2, conv 10x4x64x64 over 49x20 (62720 outputs), then MatMul
  // 62720 -> 5 classes.
  const std::int64_t expected = 98 * 40 * 64 * 20 * 8 * 2 + 49 * 20 * 64 * 10 * 4 * 64 * 2 + 62720 * 5 * 2;
  EXPECT_EQ(s.flops, expected);
  // The convolutional keyword models (the recurrent ones keep their MatMuls
  // inside while loops, whose shapes stay unknown).
  Summary cnn = summaryOf("kws_cnn_s.pb");
  EXPECT_EQ(cnn.flops_by_type.at("Conv2D"), 4928000);
  EXPECT_EQ(cnn.flops_by_type.at("MatMul"), 68608);
  EXPECT_TRUE(cnn.flops_unknown_nodes.empty());
  Summary ds = summaryOf("kws_ds_cnn_s.pb");
  EXPECT_EQ(ds.flops, 4736000 + 576000 + 1536);
  EXPECT_TRUE(ds.flops_unknown_nodes.empty());
}

// TF-Hub and training graphs: summarize_graph lists every Placeholder (the
// captured variables too) and every unconsumed node; the ranking puts the
// real data input and the end of the main path first.
TEST(Summary, SuggestionsRankRealInputsAndMainOutputsFirst) {
  GDS_REQUIRE_SHARED();
  Summary hub = summaryOf("tfnet_inception_v3_hub.meta");
  ASSERT_EQ(hub.suggested_inputs.size(), hub.inputs.size());
  EXPECT_EQ(hub.inputs.size(), 379u);
  EXPECT_EQ(hub.suggested_inputs[0].name, "Placeholder");
  EXPECT_TRUE(hub.suggested_inputs[0].likely);
  int likely = 0;
  for (const auto& in : hub.suggested_inputs) likely += in.likely;
  EXPECT_EQ(likely, 2);  // Placeholder feeds the applied module, module/hub_input/images the module's own copy
  EXPECT_EQ(hub.suggested_inputs[1].name, "module/hub_input/images");
  // The captured variables (resource Placeholders) come last.
  EXPECT_EQ(hub.suggested_inputs.back().op, "Placeholder");
  EXPECT_FALSE(hub.suggested_inputs.back().likely);
  ASSERT_EQ(hub.suggested_outputs.size(), hub.outputs.size());
  EXPECT_EQ(hub.outputs.size(), 2448u);
  EXPECT_EQ(hub.suggested_outputs[0].name, "module/hub_output/feature_vector/SpatialSqueeze");
  EXPECT_EQ(hub.suggested_outputs[1].name, "module_apply_default/hub_output/feature_vector/SpatialSqueeze");
  EXPECT_FALSE(hub.suggested_outputs[2].likely);
  // Initialization checks and the save/restore subgraph rank last.
  EXPECT_EQ(hub.suggested_outputs.back().auxiliary, AuxiliaryKind::Initialization);
  EXPECT_GT(hub.auxiliary_nodes, 3000);
  // The resource variables' shapes reach the applied module: its FLOPs count
  // (Inception v3 at 299x299, about 5.7G multiply-adds).
  EXPECT_GT(hub.flops, 11000000000LL);
  const std::string text = formatSummaryText(hub);
  EXPECT_NE(text.find("Suggested inputs (real data first): Placeholder, module/hub_input/images; outputs (ends of "
                      "the main path): module/hub_output/feature_vector/SpatialSqueeze, "
                      "module_apply_default/hub_output/feature_vector/SpatialSqueeze; "),
            std::string::npos);

  Summary train = summaryOf("tfnet_vd_cnn_train.meta");
  ASSERT_FALSE(train.suggested_inputs.empty());
  EXPECT_EQ(train.suggested_inputs[0].name, "x");  // the text, not the labels y or the is_training flag
  EXPECT_TRUE(train.suggested_inputs[0].likely);
  for (size_t i = 1; i < train.suggested_inputs.size(); ++i) EXPECT_FALSE(train.suggested_inputs[i].likely);
  std::vector<std::string> likely_outputs;
  for (const auto& o : train.suggested_outputs)
    if (o.likely) likely_outputs.push_back(o.name);
  EXPECT_EQ(likely_outputs, (std::vector<std::string>{"loss/value", "accuracy/value"}));
  // 116 possible outputs; the gradients and optimizer updates rank last.
  EXPECT_EQ(train.suggested_outputs.size(), 116u);
  EXPECT_NE(formatSummaryText(train).find("gdstudio benchmark --graph=" + train.path +
                                          " --show_flops --input_layer=x --input_layer_type=int32 "
                                          "--input_layer_shape=1,1014 --output_layer=loss/value,accuracy/value\n"),
            std::string::npos);
  nlohmann::json j = toJson(train);
  EXPECT_EQ(j["suggested_inputs"][0]["name"], "x");
  EXPECT_EQ(j["suggested_inputs"][0]["likely"], true);
}

// A TF2 SavedModel's outer graph: tf.saved_model.save's "saver_filename"
// Placeholder feeds only the traced save and restore calls. They are the
// saver's plumbing: auxiliary (checkpoint), never a likely input or output,
// ranked after the signature's real input.
TEST(Summary, SaverFilenameOfATf2SavedModelIsCheckpointPlumbing) {
  GDS_REQUIRE_SHARED();
  Summary s = summaryOf("tf2/binary_cnn_256");
  ASSERT_FALSE(s.suggested_inputs.empty());
  EXPECT_TRUE(s.suggested_inputs[0].likely);
  EXPECT_NE(s.suggested_inputs[0].name, "saver_filename");
  bool saw = false;
  for (const auto& in : s.suggested_inputs)
    if (in.name == "saver_filename") {
      saw = true;
      EXPECT_EQ(in.auxiliary, AuxiliaryKind::Checkpoint);
      EXPECT_FALSE(in.likely);
    }
  EXPECT_TRUE(saw);
  EXPECT_EQ(s.suggested_inputs.back().name, "saver_filename");
  for (const auto& out : s.suggested_outputs)
    if (out.name == "StatefulPartitionedCall_1" || out.name == "StatefulPartitionedCall_2") {
      EXPECT_EQ(out.auxiliary, AuxiliaryKind::Checkpoint) << out.name;
      EXPECT_FALSE(out.likely) << out.name;
    }
}

// The 8-bit forms of a layer count as the float layer: the per-channel
// QuantizedFused* ops and the engine's fused kernels are contractions.
TEST(Summary, FusedAndQuantizedContractionsCountFlops) {
  for (const char* op : {"Conv2D", "QuantizedConv2D", "QuantizedFusedConv2D", "QuantizedFusedDepthwiseConv2dNative",
                         "QuantizedFusedMatMul", "_FusedConv2D", "_FusedDepthwiseConv2dNative", "_FusedMatMul",
                         "_FusedQuantizedConv2D", "_FusedQuantizedMatMul", "tfl.conv_2d", "tfl.fully_connected"})
    EXPECT_TRUE(countsForFlops(op)) << op;
  for (const char* op : {"Relu6", "BiasAdd", "QuantizedBiasAdd", "Requantize", "_QuantizeV2OwnRange", "Add"})
    EXPECT_FALSE(countsForFlops(op)) << op;
}

TEST(Summary, TrainingGraphVariablesAndControlEdges) {
  GDS_REQUIRE_SHARED();
  Summary s = summaryOf("tfnet_xor_train.meta");
  std::string text = formatSummaryText(s);
  EXPECT_NE(text.find("Found 3 variables: (name=Variable, type=float(1), shape=[2,8]) (name=Variable_1, "
                      "type=float(1), shape=[8,1]) (name=global_step, type=int32(3), shape=[]) \n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Found 19 (19) const parameters, 0 (0) variable parameters, and 19 control_edges\n"),
            std::string::npos);
  EXPECT_NE(text.find("--input_layer=Placeholder,Placeholder_1,Variable,Variable_1,global_step "
                      "--input_layer_type=float,int32,float,float,int32 --input_layer_shape=4,2:4:2,8:8,1: "),
            std::string::npos);
  EXPECT_EQ(s.variable_shape_parameters, 2 * 8 + 8 + 1);
  EXPECT_EQ(s.variable_bytes, 25 * 4);
  // Placeholder-less, unshaped and device-assigned nodes.
  tensorflow::GraphDef g;
  auto* a = g.add_node();
  a->set_name("a");
  a->set_op("Const");
  a->set_device("/cpu:0");
  auto* b = g.add_node();
  b->set_name("b");
  b->set_op("Identity");
  b->add_input("a");
  b->add_input("^a");
  b->set_device("/cpu:0");
  auto idx = Graph::build(g);
  ASSERT_TRUE(idx.ok());
  Summary t = summarize(*idx, {"x.pb", 10, {}});
  EXPECT_EQ(formatSummaryText(t),
            "No inputs spotted.\nNo variables spotted.\nFound 1 possible outputs: (name=b, op=Identity) \n"
            "Found 0 (0) const parameters, 0 (0) variable parameters, and 1 control_edges\n"
            "2 nodes assigned to device '/cpu:0'\n"
            "Op types used: 1 Const, 1 Identity\n"
            "To use with gdstudio benchmark try these arguments:\n"
            "gdstudio benchmark --graph=x.pb --show_flops --input_layer= --input_layer_type= --input_layer_shape= "
            "--output_layer=b\n"
            "Found 2 nodes, file size 10 bytes (10)\n"
            "Parameter bytes: 0 (0) const, 0 (0) variable (0 (0) variable elements by shape)\n"
            "FLOPs: 0 (0)\n");
  EXPECT_EQ(t.warnings, std::vector<std::string>{"Decoding Tensor failed for node a"});
}

TEST(Summary, JsonFields) {
  GDS_REQUIRE_SHARED();
  nlohmann::json j = toJson(summaryOf("mobilenet_v1_0.25_128_frozen.pb"));
  EXPECT_EQ(j["node_count"], 555);
  EXPECT_EQ(j["file_bytes"], 1998252);
  EXPECT_EQ(j["inputs"][0]["name"], "input");
  EXPECT_EQ(j["inputs"][0]["dtype"], "float");
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json({1, 128, 128, 3}));
  EXPECT_EQ(j["outputs"][0]["name"], "MobilenetV1/Predictions/Reshape_1");
  EXPECT_EQ(j["op_types"]["Identity"], 138);
  EXPECT_EQ(j["const_parameters"], 475832);
  EXPECT_EQ(j["variable_parameters"], 0);
  EXPECT_EQ(j["control_edges"], 0);
  EXPECT_EQ(j["flops"], 27140608);
}

TEST(Summary, PrintStructureMatchesTensorFlow) {
  GDS_REQUIRE_SHARED();
  auto m = load(test::modelPath("op_tests_nnfusion/frozen_split_add_graph.pb"));
  ASSERT_TRUE(m.ok());
  auto text = formatStructure(m->graph);
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(*text,
            "output/split_dim (Const): [], value=Tensor<type: int32 shape: [] values: 1>\n"
            "variable_node_2 (Const): [], value=Tensor<type: int32 shape: [5,30] values: [1 1 1...]...>\n"
            "output (Split): [output/split_dim, variable_node_2]\n"
            "sum_1 (Add): [output, output:1]\n"
            "output_node (Add): [output:2, sum_1]\n");
  tensorflow::TensorProto t;
  t.set_dtype(tensorflow::DT_FLOAT);
  shapeToProto({2, 2}, t.mutable_tensor_shape());
  for (float v : {0.1f, 2.f, -3.5f, 4.f}) t.add_float_val(v);
  EXPECT_EQ(tensorDebugString(t).value(), "Tensor<type: float shape: [2,2] values: [0.1 2][-3.5...]...>");
}

TEST(SummaryDiff, AddedRemovedChangedAndDeltas) {
  GraphBuilder a;
  std::string x = a.placeholder("x", tensorflow::DT_FLOAT, {1, 4});
  std::string w = a.constantFloat("w", {4, 2}, std::vector<float>(8, 1.f));
  std::string r = a.identity("w/read", w);
  a.matMul("mm", x, r);
  tensorflow::GraphDef before = a.graph();
  tensorflow::GraphDef after = before;
  after.mutable_node()->erase(after.mutable_node()->begin() + 2);  // drop w/read
  after.mutable_node(2)->set_input(1, "w");
  (*after.mutable_node(2)->mutable_attr())["transpose_a"].set_b(false);
  auto* extra = after.add_node();
  extra->set_name("out");
  extra->set_op("Relu");
  extra->add_input("mm");
  auto d = diffGraphs(before, after);
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(d->added, (std::vector<std::pair<std::string, std::string>>{{"out", "Relu"}}));
  EXPECT_EQ(d->removed, (std::vector<std::pair<std::string, std::string>>{{"w/read", "Identity"}}));
  ASSERT_EQ(d->changed.size(), 1u);
  EXPECT_EQ(d->changed[0].name, "mm");
  EXPECT_EQ(d->changed[0].what, (std::vector<std::string>{"inputs"}));  // same attr value: not a change
  EXPECT_EQ(d->nodes.change(), 0);
  EXPECT_EQ(formatDiffCompact(*d), "nodes 4 -> 4 (0), params 8 -> 8 (0), param bytes 32 -> 32 (0), flops 16 -> 16 (0)");
  EXPECT_EQ(formatDiffText(*d),
            "nodes 4 -> 4 (0), params 8 -> 8 (0), param bytes 32 -> 32 (0), flops 16 -> 16 (0)\n"
            "Op types: Identity 1 -> 0 (-1), Relu 0 -> 1 (+1)\n"
            "Added 1 nodes:\n  out (Relu)\n"
            "Removed 1 nodes:\n  w/read (Identity)\n"
            "Changed 1 nodes:\n  mm (MatMul): inputs\n");
  nlohmann::json j = toJson(*d);
  EXPECT_EQ(j["op_types"]["Relu"]["change"], 1);
  EXPECT_EQ(j["removed"][0]["name"], "w/read");
  EXPECT_FALSE(j["identical"].get<bool>());
  auto same = diffGraphs(before, before);
  EXPECT_TRUE(same->identical());
  EXPECT_EQ(formatDiffText(*same), "nodes 4 -> 4 (0), params 8 -> 8 (0), param bytes 32 -> 32 (0), flops 16 -> 16 (0)\n"
                                   "No node differs.\n");
}

TEST(SummaryDiff, FrozenVersusQuantizedMobilenet) {
  GDS_REQUIRE_SHARED();
  auto a = load(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
  auto b = load(test::modelPath("mobilenet_v1_0.25_128_quantized.pb"));
  auto d = diffGraphs(a->graph, *summarizeModel(*a), b->graph, *summarizeModel(*b));
  EXPECT_EQ(formatDiffCompact(d), "nodes 555 -> 180 (-375), params 475.83k -> 468.84k (-6.99k), param bytes 1.90M -> "
                                  "909.99k (-993.34k), flops 27.14M -> 27.14M (0)");
  EXPECT_EQ(static_cast<int>(d.removed.size()) - static_cast<int>(d.added.size()), 375);
  EXPECT_EQ(d.file_bytes.change(), 941805 - 1998252);
}

}  // namespace
}  // namespace gds::model
