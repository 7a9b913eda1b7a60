// The embedded op metadata parses and covers every op type of the corpus;
// the bundled sample model is what makeSampleModel() writes.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "model/graph_builder.h"
#include "model/io.h"
#include "model/op_metadata.h"
#include "model/summary.h"
#include "tests/test_util.h"

namespace gds::model {
namespace {
namespace fs = std::filesystem;

TEST(OpMetadata, ParsesWithValidCategoriesAndSortedUniqueNames) {
  const auto& reg = OpRegistry::instance();
  ASSERT_GT(reg.all().op_size(), 150);
  const std::set<std::string> categories = {"layer", "activation", "pool", "normalization", "tensor", "quantization",
                                            "control", "constant", "data", "training", "math", "other"};
  std::string previous;
  for (const auto& op : reg.all().op()) {
    EXPECT_TRUE(categories.count(op.category())) << op.name() << ": " << op.category();
    EXPECT_LT(previous, op.name());
    previous = op.name();
  }
  EXPECT_EQ(reg.category("Conv2D"), OpCategory::Layer);
  EXPECT_EQ(reg.category("NoSuchOp"), OpCategory::Other);
  ASSERT_NE(reg.attrDefault("Conv2D", "data_format"), nullptr);
  EXPECT_EQ(reg.attrDefault("Conv2D", "data_format")->s(), "NHWC");
  EXPECT_EQ(reg.attrDefault("FusedBatchNorm", "epsilon")->f(), 0.0001f);
  EXPECT_TRUE(reg.attrDefault("FusedBatchNorm", "is_training")->b());
  EXPECT_EQ(reg.attrDefault("Dequantize", "mode")->s(), "MIN_COMBINED");
  EXPECT_EQ(reg.attrDefault("ArgMax", "output_type")->type(), tensorflow::DT_INT64);
  EXPECT_EQ(reg.attrDefault("Enter", "parallel_iterations")->i(), 10);
  EXPECT_EQ(reg.attrDefault("Conv2D", "padding"), nullptr);  // required, no default
  EXPECT_EQ(reg.find("ConcatV2")->inputs(0), "values*");
}

// fold_constants and merge_duplicate_nodes leave these ops alone; the list
// is the one the transforms once kept in code, plus the control-flow and
// device-transfer ops fold_constants listed apart.
TEST(OpMetadata, NeverFoldOrMergeCoversStatefulAndFlaggedOps) {
  const auto& reg = OpRegistry::instance();
  const char* kept[] = {
      "Variable", "VariableV2", "VarHandleOp", "Assign", "AssignAdd", "AssignSub", "AssignVariableOp",
      "ReadVariableOp", "RandomUniform", "RandomUniformInt", "RandomStandardNormal", "TruncatedNormal",
      "RandomShuffle", "Multinomial", "RandomGamma", "RandomPoisson", "Placeholder", "PlaceholderWithDefault",
      "PlaceholderV2", "Print", "PrintV2", "Assert", "SaveV2", "Save", "SaveSlices", "RestoreV2", "Restore",
      "RestoreSlice", "HashTable", "HashTableV2", "MutableHashTable", "MutableHashTableV2", "InitializeTable",
      "InitializeTableV2", "LookupTableInsert", "LookupTableInsertV2", "FIFOQueue", "FIFOQueueV2",
      "RandomShuffleQueue", "RandomShuffleQueueV2", "QueueEnqueue", "QueueEnqueueV2", "QueueDequeue",
      "QueueDequeueV2", "QueueDequeueMany", "QueueDequeueManyV2", "TensorArray", "TensorArrayV2",
      "TensorArrayV3", "Stack", "StackV2", "StackPush", "StackPushV2", "StackPop", "StackPopV2", "NoOp",
      "ScatterUpdate", "ScatterAdd", "ScatterSub", "ApplyGradientDescent", "ApplyAdam", "ApplyMomentum",
      "CountUpTo", "Iterator", "IteratorV2", "IteratorGetNext", "OneShotIterator", "ReaderReadV2",
      "WholeFileReaderV2", "TextLineReaderV2", "TFRecordReaderV2", "_Recv", "_Send", "Enter", "Exit",
      "NextIteration", "Merge", "Switch", "LoopCond",
      // Control flow and transfers fold_constants listed apart.
      "RefSwitch", "RefMerge", "RefEnter", "RefExit", "RefNextIteration", "ControlTrigger", "_SwitchN",
      "_HostSend", "_HostRecv",
      // Other ops that update a ref input.
      "ScatterMax", "ScatterMin", "SparseApplyMomentum"};
  for (const char* op : kept) {
    EXPECT_NE(reg.find(op), nullptr) << op << " has no entry in model/op_metadata.pbtxt";
    EXPECT_TRUE(reg.neverFoldOrMerge(op)) << op;
  }
  for (const char* op : {"Add", "Conv2D", "Const", "Identity", "Shape", "TensorArrayReadV3", "StatelessIf"}) {
    ASSERT_NE(reg.find(op), nullptr) << op;
    EXPECT_FALSE(reg.neverFoldOrMerge(op)) << op;
  }
  EXPECT_FALSE(reg.neverFoldOrMerge("NoSuchOp"));
}

// stateful is TensorFlow's is_stateful (SetIsStateful() in REGISTER_OP);
// never_fold_or_merge covers the rest, never both.
TEST(OpMetadata, StatefulExactlyWhereTensorFlowSaysSo) {
  const auto& reg = OpRegistry::instance();
  for (const char* op : {"RandomUniformInt", "RandomShuffle", "Multinomial", "RandomGamma", "RandomPoisson", "Print",
                         "PrintV2", "RestoreSlice", "HashTable", "HashTableV2", "MutableHashTable",
                         "MutableHashTableV2", "FIFOQueue", "FIFOQueueV2", "RandomShuffleQueue",
                         "RandomShuffleQueueV2", "TensorArray", "TensorArrayV2", "Stack", "StackV2",
                         "OneShotIterator", "WholeFileReaderV2", "TextLineReaderV2", "TFRecordReaderV2", "_Recv",
                         "_Send", "_HostRecv", "_HostSend"}) {
    ASSERT_NE(reg.find(op), nullptr) << op;
    EXPECT_TRUE(reg.find(op)->stateful()) << op;
    EXPECT_FALSE(reg.find(op)->never_fold_or_merge()) << op;
  }
  for (const char* op : {"PlaceholderV2", "InitializeTable", "InitializeTableV2", "LookupTableInsert",
                         "LookupTableInsertV2", "QueueEnqueue", "QueueEnqueueV2", "QueueDequeue", "QueueDequeueV2",
                         "QueueDequeueMany", "QueueDequeueManyV2", "StackPush", "StackPushV2", "StackPop",
                         "StackPopV2", "ScatterUpdate", "CountUpTo", "Iterator", "IteratorV2", "IteratorGetNext",
                         "ReaderReadV2", "Assign", "Placeholder", "NoOp", "Enter", "Merge", "_SwitchN"}) {
    ASSERT_NE(reg.find(op), nullptr) << op;
    EXPECT_FALSE(reg.find(op)->stateful()) << op;
    EXPECT_TRUE(reg.find(op)->never_fold_or_merge()) << op;
  }
  for (const auto& op : reg.all().op())
    EXPECT_FALSE(op.stateful() && op.never_fold_or_merge()) << op.name() << ": stateful already implies it";
}

TEST(OpMetadata, CoversEveryOpTypeOfTheCorpus) {
  GDS_REQUIRE_SHARED();
  std::set<std::string> ops;
  int files = 0, saved_models = 0;
  for (const auto& path : findModels(test::modelPath(""))) {
    auto m = load(path);
    ASSERT_TRUE(m.ok()) << m.error();
    ++files;
    saved_models += fs::is_directory(path);
    for (const auto& n : m->graph.node()) ops.insert(n.op());
    for (const auto& f : m->graph.library().function())
      for (const auto& n : f.node_def()) ops.insert(n.op());
  }
  EXPECT_GE(files, 150);
  EXPECT_GE(saved_models, 10);  // 3 TF1 (one in text format) and 7 TF2 SavedModels
  EXPECT_GE(ops.size(), 187u);
  for (const auto& op : ops) EXPECT_NE(OpRegistry::instance().find(op), nullptr) << "no metadata for op " << op;
}

TEST(SampleModel, CommittedFileIsWhatTheBuilderMakes) {
  std::string path = test::sourceDir() + "/resources/sample_model.pb";
  auto committed = readFile(path);
  ASSERT_TRUE(committed.ok()) << committed.error();
  tensorflow::GraphDef g = makeSampleModel();
  EXPECT_TRUE(serialize(g) == *committed) << "regenerate with: gdstudio make_sample --out=resources/sample_model.pb";
  EXPECT_LT(committed->size(), 300u * 1024);
  auto idx = Graph::build(g);
  ASSERT_TRUE(idx.ok()) << idx.error();
  Summary s = summarize(*idx);
  EXPECT_EQ(s.node_count, 176);
  ASSERT_EQ(s.inputs.size(), 1u);
  EXPECT_EQ(s.inputs[0].name, "input");
  EXPECT_EQ(s.inputs[0].shape, (Shape{1, 64, 64, 3}));
  ASSERT_EQ(s.outputs.size(), 1u);
  EXPECT_EQ(s.outputs[0], (std::pair<std::string, std::string>{"MobilenetV1/Predictions/Softmax", "Softmax"}));
  auto shapes = inferShapes(*idx);
  EXPECT_EQ(shapes.at(idx->find("MobilenetV1/Predictions/Softmax")).str(), "float[1,10]");
  std::set<std::string> ops;
  for (const auto& n : g.node()) ops.insert(n.op());
  for (const char* op : {"DepthwiseConv2dNative", "Conv2D", "Rsqrt", "Sub", "FusedBatchNorm", "Identity", "Relu6"})
    EXPECT_TRUE(ops.count(op)) << op;
}

}  // namespace
}  // namespace gds::model
