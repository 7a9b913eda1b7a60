// Damaged checkpoints give errors that name the file and what is wrong:
// a flipped byte (CRC mismatch naming tensor and shard), a truncated shard,
// a missing index, a missing shard and a damaged index block.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "model/checkpoint.h"
#include "model/freeze.h"
#include "model/io.h"
#include "tests/test_util.h"

namespace gds::model {
namespace {
namespace fs = std::filesystem;

// Copies the cifar checkpoint into a fresh folder; returns the prefix.
std::string copyCifar() {
  std::string dir = test::tempDir();
  for (const char* f : {"model.ckpt.index", "model.ckpt.data-00000-of-00001", "model.ckpt.meta"})
    fs::copy_file(test::modelPath(std::string("mlnet_cifar_checkpoint/") + f), dir + "/" + f);
  for (const auto& e : fs::directory_iterator(dir))
    fs::permissions(e.path(), fs::perms::owner_read | fs::perms::owner_write);
  return dir + "/model.ckpt";
}

void patchByte(const std::string& path, std::int64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(offset);
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x40);
  f.seekp(offset);
  f.write(&c, 1);
}

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

TEST(CorruptCheckpoint, FlippedByteInShard) {
  GDS_REQUIRE_SHARED();
  std::string prefix = copyCifar();
  std::string shard = prefix + ".data-00000-of-00001";
  auto original = readFile(shard).value();
  const std::int64_t offset = 648960, size = 18816;  // Wconv1
  patchByte(shard, offset + 100);
  auto damaged = readFile(shard).value();
  std::uint32_t stored = crc32c(original.data() + offset, size);
  std::uint32_t computed = crc32c(damaged.data() + offset, size);

  auto r = CheckpointReader::open(prefix);
  ASSERT_TRUE(r.ok()) << r.error();
  auto t = r->read("Wconv1");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error(), shard + ": checksum mismatch for tensor 'Wconv1' (shard 0, offset 648960, 18816 bytes): "
                               "stored crc32c " + hex(stored) + ", computed " + hex(computed) +
                               "; the file is corrupt");
  EXPECT_TRUE(r->read("W1").ok());  // other tensors are intact

  // Freezing reports the same, prefixed with the graph file.
  auto meta = load(prefix + ".meta");
  ASSERT_TRUE(meta.ok()) << meta.error();
  FreezeOptions options;
  options.output_nodes = {"Output"};
  auto frozen = freeze(meta.value(), options);
  ASSERT_FALSE(frozen.ok());
  EXPECT_EQ(frozen.error(), prefix + ".meta: " + t.error());
}

TEST(CorruptCheckpoint, TruncatedShard) {
  GDS_REQUIRE_SHARED();
  std::string prefix = copyCifar();
  std::string shard = prefix + ".data-00000-of-00001";
  fs::resize_file(shard, 700000);
  auto r = CheckpointReader::open(prefix);
  ASSERT_TRUE(r.ok()) << r.error();
  auto t = r->read("b1");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error(), shard + ": file is truncated (700000 bytes) but tensor 'b1' needs bytes [705408, 705448)");
}

TEST(CorruptCheckpoint, MissingIndex) {
  GDS_REQUIRE_SHARED();
  std::string prefix = copyCifar();
  fs::remove(prefix + ".index");
  auto r = CheckpointReader::open(prefix);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), prefix + ".index: no such file (expected a TensorFlow V2 checkpoint: " + prefix +
                           ".index and " + prefix + ".data-00000-of-NNNNN)");
}

TEST(CorruptCheckpoint, MissingShard) {
  GDS_REQUIRE_SHARED();
  std::string prefix = copyCifar();
  std::string shard = prefix + ".data-00000-of-00001";
  fs::remove(shard);
  auto r = CheckpointReader::open(prefix);
  ASSERT_TRUE(r.ok()) << r.error();
  auto t = r->read("W1");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error(), shard + ": no such file (shard 0 of 1 of checkpoint " + prefix + ", needed for tensor 'W1')");
}

TEST(CorruptCheckpoint, FlippedByteInIndex) {
  GDS_REQUIRE_SHARED();
  std::string prefix = copyCifar();
  patchByte(prefix + ".index", 20);  // inside the first data block
  auto r = CheckpointReader::open(prefix);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().rfind(prefix + ".index: corrupt table: block checksum mismatch at offset 0 (stored 0x", 0), 0u)
      << r.error();
}

TEST(CorruptCheckpoint, TruncatedIndex) {
  GDS_REQUIRE_SHARED();
  std::string prefix = copyCifar();
  fs::resize_file(prefix + ".index", 300);
  auto r = CheckpointReader::open(prefix);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), prefix + ".index: not a checkpoint index (bad table magic number); the file is truncated or corrupt");
}

}  // namespace
}  // namespace gds::model
