// Reading real TensorFlow V2 checkpoints: the index table (uncompressed and
// snappy-compressed blocks), the header, entries and the data shard.
#include <gtest/gtest.h>

#include "model/checkpoint.h"
#include "model/io.h"
#include "tests/test_util.h"

namespace gds::model {
namespace {

TEST(Crc32c, KnownValues) {
  // RFC 3720 test vectors for CRC-32C.
  std::string zeros(32, '\0'), ones(32, '\xff');
  EXPECT_EQ(crc32c(zeros.data(), zeros.size()), 0x8a9136aau);
  EXPECT_EQ(crc32c(ones.data(), ones.size()), 0x62a8ab43u);
  std::string ascending;
  for (int i = 0; i < 32; ++i) ascending.push_back(static_cast<char>(i));
  EXPECT_EQ(crc32c(ascending.data(), ascending.size()), 0x46dd794eu);
  EXPECT_EQ(crc32c("123456789", 9), 0xe3069283u);
  // Extending piecewise equals one pass.
  EXPECT_EQ(crc32cExtend(crc32c("1234", 4), "56789", 5), 0xe3069283u);
  EXPECT_EQ(crc32cUnmask(crc32cMask(0x12345678u)), 0x12345678u);
  EXPECT_NE(crc32cMask(0x12345678u), 0x12345678u);
}

TEST(Snappy, LiteralsAndCopies) {
  // "abcabcabcabc": varint 12, literal "abc" (tag (3-1)<<2), copy len 9 offset 3
  // (tag 01: len-4=5 in bits 2-4, offset high bits 0).
  std::string block = std::string("\x0c\x08", 2) + "abc" + std::string("\x15\x03", 2);
  auto out = snappyUncompress(block);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(out.value(), "abcabcabcabc");
  auto bad = snappyUncompress(std::string("\x0c\x08", 2) + "abc" + std::string("\x15\x09", 2));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "snappy block: copy refers outside the output");
}

TEST(CheckpointReader, HalfPlusTwoSnappyIndex) {
  GDS_REQUIRE_SHARED();
  // TF 1.14 wrote this index with snappy-compressed blocks.
  auto r = CheckpointReader::open(test::modelPath("tfserving_half_plus_two_savedmodel/variables/variables"));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->numShards(), 1);
  auto vars = r->variables();
  std::vector<std::string> names;
  for (const auto& v : vars) {
    names.push_back(v.name);
    EXPECT_EQ(v.dtype, tensorflow::DT_FLOAT);
    EXPECT_TRUE(v.shape.empty());
    EXPECT_TRUE(v.slices.empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"a", "a2", "b", "c", "c2"}));
  std::map<std::string, float> expected = {{"a", 0.5f}, {"a2", 0.5f}, {"b", 2.f}, {"c", 3.f}, {"c2", 3.f}};
  for (const auto& [name, value] : expected) {
    auto t = r->read(name);
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_EQ(t->dtype, tensorflow::DT_FLOAT);
    ASSERT_EQ(t->size(), 1);
    EXPECT_EQ(t->as<float>()[0], value) << name;
  }
  EXPECT_EQ(r->find("b")->offset, 8);
  EXPECT_EQ(r->find("b")->size, 4);
}

TEST(CheckpointReader, CifarMatchesTheFrozenGraphTensorFlowMade) {
  GDS_REQUIRE_SHARED();
  auto r = CheckpointReader::open(test::modelPath("mlnet_cifar_checkpoint/model.ckpt"));
  ASSERT_TRUE(r.ok()) << r.error();
  auto vars = r->variables();
  ASSERT_EQ(vars.size(), 14u);  // 4 weights, their 2 Adam slots each, 2 beta powers
  const CheckpointVariable* w = r->find("Wconv1");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->shape, (Shape{7, 7, 3, 32}));
  EXPECT_EQ(w->offset, 648960);
  EXPECT_EQ(w->size, 18816);
  auto frozen = load(test::modelPath("mlnet_cifar_frozen.pb"));
  ASSERT_TRUE(frozen.ok()) << frozen.error();
  int compared = 0;
  for (const auto& n : frozen->graph.node()) {
    if (n.op() != "Const" || !r->has(n.name())) continue;
    auto t = r->read(n.name());
    ASSERT_TRUE(t.ok()) << t.error();
    const auto& proto = n.attr().at("value").tensor();
    EXPECT_EQ(proto.tensor_content(), std::string(t->data.begin(), t->data.end())) << n.name();
    ++compared;
  }
  EXPECT_EQ(compared, 3);  // Wconv1, bconv1, W1 (b1 is not used by Output)
}

TEST(CheckpointReader, IrisInt64AndFloats) {
  GDS_REQUIRE_SHARED();
  auto r = CheckpointReader::open(test::modelPath("jpmml_dnn_classifier_iris_savedmodel/variables/variables"));
  ASSERT_TRUE(r.ok()) << r.error();
  auto step = r->read("global_step");
  ASSERT_TRUE(step.ok()) << step.error();
  EXPECT_EQ(step->dtype, tensorflow::DT_INT64);
  EXPECT_TRUE(step->shape.empty());
  auto w = r->read("dnn/hiddenlayer_0/weights");
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_EQ(w->shape, (Shape{4, 12}));
  // A slice of a tensor stored whole (what RestoreV2 does for "4 12 1,2:3,4").
  auto part = r->readSlice("dnn/hiddenlayer_0/weights", TensorSlice::parse("1,2:3,4").value());
  ASSERT_TRUE(part.ok()) << part.error();
  EXPECT_EQ(part->shape, (Shape{2, 4}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(part->as<float>()[i * 4 + j], w->as<float>()[(1 + i) * 12 + 3 + j]);
}

TEST(CheckpointReader, UnknownTensorAndBadSlice) {
  GDS_REQUIRE_SHARED();
  std::string prefix = test::modelPath("mlnet_cifar_checkpoint/model.ckpt");
  auto r = CheckpointReader::open(prefix);
  ASSERT_TRUE(r.ok()) << r.error();
  auto t = r->read("nope");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error(), "checkpoint " + prefix + " has no tensor named 'nope'");
  auto s = r->readSlice("b1", TensorSlice::parse("8,4").value());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error(), "checkpoint " + prefix + ": slice 8,4 exceeds tensor 'b1' of shape [10]");
}

TEST(ResolveCheckpointPrefix, AcceptedForms) {
  GDS_REQUIRE_SHARED();
  std::string dir = test::modelPath("mlnet_cifar_checkpoint");
  std::string prefix = dir + "/model.ckpt";
  EXPECT_EQ(resolveCheckpointPrefix(prefix).value(), prefix);
  EXPECT_EQ(resolveCheckpointPrefix(prefix + ".index").value(), prefix);
  EXPECT_EQ(resolveCheckpointPrefix(prefix + ".meta").value(), prefix);
  EXPECT_EQ(resolveCheckpointPrefix(prefix + ".data-00000-of-00001").value(), prefix);
  // The folder's "checkpoint" state file names the latest prefix.
  auto from_dir = resolveCheckpointPrefix(dir);
  ASSERT_TRUE(from_dir.ok()) << from_dir.error();
  EXPECT_EQ(resolveCheckpointPrefix(from_dir.value()).value(), from_dir.value());
  std::string saved = test::modelPath("mlnet_mnist_conv_savedmodel");
  EXPECT_EQ(resolveCheckpointPrefix(saved).value(), saved + "/variables/variables");
  auto missing = resolveCheckpointPrefix(dir + "/other.ckpt");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), dir + "/other.ckpt.index: no such file (expected a TensorFlow V2 checkpoint: " + dir +
                                 "/other.ckpt.index and " + dir + "/other.ckpt.data-00000-of-NNNNN)");
}

TEST(TensorSliceText, ParseAndPrint) {
  auto s = TensorSlice::parse("0,4:-:3,2");
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->str(), "0,4:-:3,2");
  EXPECT_EQ(s->sliceShape({10, 7, 9}), (Shape{4, 7, 2}));
  EXPECT_FALSE(TensorSlice::parse("0,0").ok());
  Shape full;
  TensorSlice slice;
  ASSERT_TRUE(parseShapeAndSlice("4 12 0,4:0,12", &full, &slice).ok());
  EXPECT_EQ(full, (Shape{4, 12}));
  EXPECT_EQ(slice.str(), "0,4:0,12");
  Status bad = parseShapeAndSlice("4 12 0,5:-", &full, &slice);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "bad shape_and_slice '4 12 0,5:-': the slice exceeds dimension 0");
}

}  // namespace
}  // namespace gds::model
