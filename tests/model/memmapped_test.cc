// The memory-mapped package layout of TensorFlow's
// convert_graphdef_memmapped_format, written and read back.
#include <gtest/gtest.h>

#include <map>

#include "model/io.h"
#include "model/memmapped.h"
#include "model/tensor.h"
#include "tests/test_util.h"
#include "checkpoint.pb.h"

namespace gds::model {
namespace {

TEST(Memmapped, MobilenetLayout) {
  GDS_REQUIRE_SHARED();
  auto m = load(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
  ASSERT_TRUE(m.ok()) << m.error();
  std::map<std::string, std::string> big;  // Const name -> bytes, for those >= 10000 bytes
  int small_consts = 0;
  for (const auto& n : m->graph.node()) {
    if (n.op() != "Const") continue;
    auto t = decodeTensor(n.attr().at("value").tensor());
    ASSERT_TRUE(t.ok());
    if (t->data.size() >= 10000) big[n.name()] = std::string(t->data.begin(), t->data.end());
    else ++small_consts;
  }
  std::string path = test::tempDir() + "/mobilenet.mmpb";
  auto w = writeMemmapped(m->graph, path);
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_EQ(w->converted, static_cast<int>(big.size()));
  EXPECT_TRUE(isMemmappedFile(path));
  EXPECT_FALSE(isMemmappedFile(test::modelPath("mobilenet_v1_0.25_128_frozen.pb")));

  auto bytes = readFile(path).value();
  EXPECT_EQ(static_cast<std::int64_t>(bytes.size()), w->file_bytes);
  std::uint64_t dir_offset = 0;
  std::memcpy(&dir_offset, bytes.data() + bytes.size() - 8, 8);
  tensorflow::MemmappedFileSystemDirectory dir;
  ASSERT_TRUE(dir.ParseFromString(bytes.substr(dir_offset, bytes.size() - 8 - dir_offset)));
  ASSERT_EQ(dir.element_size(), w->converted + 1);
  EXPECT_EQ(dir.element(dir.element_size() - 1).name(), "memmapped_package://.");
  for (int i = 0; i + 1 < dir.element_size(); ++i) {
    EXPECT_EQ(dir.element(i).offset() % 64, 0u) << dir.element(i).name();
    EXPECT_EQ(dir.element(i).name().rfind("memmapped_package://", 0), 0u);
  }

  auto f = MemmappedFile::open(path);
  ASSERT_TRUE(f.ok()) << f.error();
  const auto& g = (*f)->graph();
  ASSERT_EQ(g.node_size(), m->graph.node_size());
  int immutable = 0, consts = 0;
  for (const auto& n : g.node()) {
    if (n.op() == "Const") ++consts;
    if (n.op() != "ImmutableConst") continue;
    ++immutable;
    ASSERT_EQ(n.attr().size(), 3u);  // only what ImmutableConst understands
    const std::string region = n.attr().at("memory_region_name").s();
    std::uint64_t length = 0;
    const void* data = (*f)->regionData(region, &length);
    ASSERT_NE(data, nullptr) << region;
    ASSERT_TRUE(big.count(n.name())) << n.name();
    EXPECT_EQ(std::string(static_cast<const char*>(data), length), big[n.name()]) << n.name();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(data) % 64, 0u);
    EXPECT_EQ(numElements(shapeFromProto(n.attr().at("shape").shape())) * 4, static_cast<std::int64_t>(length));
  }
  EXPECT_EQ(immutable, w->converted);
  EXPECT_EQ(consts, small_consts);
  const auto* first = (*f)->regionData("memmapped_package://MobilenetV1_Logits_Conv2d_1c_1x1_weights", nullptr);
  EXPECT_NE(first, nullptr);

  auto region = findMemoryRegion("memmapped_package://MobilenetV1_Logits_Conv2d_1c_1x1_weights");
  ASSERT_TRUE(region.ok()) << region.error();
  EXPECT_EQ(region->data, first);
}

TEST(Memmapped, Errors) {
  std::string dir = test::tempDir();
  auto missing = MemmappedFile::open(dir + "/none.mmpb");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), dir + "/none.mmpb: no such file");
  ASSERT_TRUE(writeFileAtomic(dir + "/junk", std::string(100, 'x')).ok());
  auto junk = MemmappedFile::open(dir + "/junk");
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.error(), dir + "/junk: not a memmapped model (no region directory at its end)");
  auto absent = findMemoryRegion("memmapped_package://nothing");
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.error(), "memory region 'memmapped_package://nothing' is not in any open memmapped model (open "
                            "the file with MemmappedFile::open before running its graph)");
}

}  // namespace
}  // namespace gds::model
