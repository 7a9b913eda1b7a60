// Partitioned tensors and string tensors in bundles written with TensorFlow's
// layout, and the slice key encoding (checkpoint::EncodeTensorNameSlice).
#include <gtest/gtest.h>

#include "model/checkpoint.h"
#include "tests/model/checkpoint_test_writer.h"
#include "tests/test_util.h"

namespace gds::model {
namespace {

using testing::BundleBuilder;
using testing::floats;

TEST(TensorSliceKey, OrderedCodeBytes) {
  TensorSlice s = TensorSlice::parse("0,2:-").value();
  // 0 | "w" + separator | rank 2 | start 0, length 2 | start 0, length -1
  EXPECT_EQ(encodeTensorNameSlice("w", s), std::string("\x00w\x00\x01\x01\x02\x80\x82\x80\x7f", 10));
  TensorSlice big = TensorSlice::parse("1000,70000").value();
  std::string key = encodeTensorNameSlice("a/b", big);
  // 1000 needs two bytes (0xc3e8), 70000 three (0xe11170).
  EXPECT_EQ(key, std::string("\x00" "a/b\x00\x01\x01\x01\xc3\xe8\xe1\x11\x70", 13));
  std::string name;
  TensorSlice back;
  ASSERT_TRUE(decodeTensorNameSlice(key, &name, &back).ok());
  EXPECT_EQ(name, "a/b");
  EXPECT_EQ(back, big);
  for (std::int64_t v : {0LL, 63LL, 64LL, 8191LL, 8192LL, 1LL << 40, (1LL << 62) + 5}) {
    TensorSlice one;
    one.start = {v};
    one.length = {v + 1};
    ASSERT_TRUE(decodeTensorNameSlice(encodeTensorNameSlice("x", one), &name, &back).ok());
    EXPECT_EQ(back, one) << v;
  }
  EXPECT_FALSE(decodeTensorNameSlice("plain_name", &name, &back).ok());
}

TEST(PartitionedTensor, AssemblesSlicesAndReadsAcrossThem) {
  // w: float [4,6] saved as two row blocks, as a 2-way partitioned variable.
  HostTensor whole = floats({4, 6});
  HostTensor top = floats({2, 6}, 0.f), bottom = floats({2, 6}, 12.f);
  BundleBuilder b;
  b.addPartitioned("w", tensorflow::DT_FLOAT, {4, 6},
                   {{TensorSlice::parse("0,2:-").value(), top}, {TensorSlice::parse("2,2:-").value(), bottom}});
  b.add("bias", floats({6}, 100.f));
  std::string prefix = test::tempDir() + "/model.ckpt";
  ASSERT_TRUE(b.write(prefix).ok());

  auto r = CheckpointReader::open(prefix);
  ASSERT_TRUE(r.ok()) << r.error();
  auto vars = r->variables();
  ASSERT_EQ(vars.size(), 2u);  // slice entries fold into "w"
  EXPECT_EQ(vars[0].name, "bias");
  EXPECT_EQ(vars[1].name, "w");
  ASSERT_EQ(vars[1].slices.size(), 2u);
  EXPECT_EQ(vars[1].slices[0].str(), "0,2:-");
  EXPECT_EQ(vars[1].slices[1].str(), "2,2:-");

  auto full = r->read("w");
  ASSERT_TRUE(full.ok()) << full.error();
  EXPECT_EQ(full->shape, (Shape{4, 6}));
  EXPECT_EQ(full->data, whole.data);

  // Rows 1..2, columns 1..3: spans both stored slices.
  auto mid = r->readSlice("w", TensorSlice::parse("1,2:1,3").value());
  ASSERT_TRUE(mid.ok()) << mid.error();
  EXPECT_EQ(mid->shape, (Shape{2, 3}));
  std::vector<float> expect = {7, 8, 9, 13, 14, 15};
  EXPECT_EQ(std::vector<float>(mid->as<float>(), mid->as<float>() + 6), expect);
}

TEST(PartitionedTensor, MissingSliceIsReported) {
  BundleBuilder b;
  b.addPartitioned("w", tensorflow::DT_FLOAT, {4, 6}, {{TensorSlice::parse("0,2:-").value(), floats({2, 6})}});
  std::string prefix = test::tempDir() + "/model.ckpt";
  ASSERT_TRUE(b.write(prefix).ok());
  auto r = CheckpointReader::open(prefix);
  ASSERT_TRUE(r.ok()) << r.error();
  auto full = r->read("w");
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error(), "checkpoint " + prefix + ": the saved slices of partitioned tensor 'w' do not cover slice -:-");
  auto top = r->readSlice("w", TensorSlice::parse("0,1:-").value());
  ASSERT_TRUE(top.ok()) << top.error();
  EXPECT_EQ(top->shape, (Shape{1, 6}));
}

TEST(StringTensor, LengthsChecksumAndBytes) {
  HostTensor s = HostTensor::zeros(tensorflow::DT_STRING, {3});
  s.strings = {"vocab.txt", "", std::string(300, 'x')};
  BundleBuilder b;
  b.add("asset", s);
  std::string prefix = test::tempDir() + "/strings";
  ASSERT_TRUE(b.write(prefix).ok());
  auto r = CheckpointReader::open(prefix);
  ASSERT_TRUE(r.ok()) << r.error();
  auto t = r->read("asset");
  ASSERT_TRUE(t.ok()) << t.error();
  EXPECT_EQ(t->dtype, tensorflow::DT_STRING);
  EXPECT_EQ(t->strings, s.strings);
}

TEST(ShardedBundle, TensorsInSeveralShards) {
  BundleBuilder b;
  b.add("first", floats({3}, 1.f), 0);
  b.add("second", floats({2, 2}, 10.f), 1);
  std::string prefix = test::tempDir() + "/sharded";
  ASSERT_TRUE(b.write(prefix).ok());
  auto r = CheckpointReader::open(prefix);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->numShards(), 2);
  EXPECT_EQ(r->shardPath(1), prefix + ".data-00001-of-00002");
  EXPECT_EQ(r->find("second")->shard, 1);
  auto second = r->read("second");
  ASSERT_TRUE(second.ok()) << second.error();
  EXPECT_EQ(second->data, floats({2, 2}, 10.f).data);
  std::remove((prefix + ".data-00001-of-00002").c_str());
  EXPECT_TRUE(r->read("first").ok());
  EXPECT_EQ(r->read("second").error(), prefix + ".data-00001-of-00002: no such file (shard 1 of 2 of checkpoint " +
                                           prefix + ", needed for tensor 'second')");
}

}  // namespace
}  // namespace gds::model
