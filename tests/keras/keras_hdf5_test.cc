// The HDF5 reader against damaged global heaps: HDF5 1.10 loops forever on
// a heap object that does not advance its walk, so such a file must be
// refused with an error before the library reads a string from it.
#include <gtest/gtest.h>

#include <hdf5.h>

#include <fstream>

#include "model/io.h"
#include "model/keras/hdf5_file.h"
#include "tests/test_util.h"

namespace gds::model::keras {
namespace {

// A file with one variable-length string attribute (as Keras writes every
// attribute), whose characters sit in a global heap collection.
std::string writeStringAttrFile(const std::string& path) {
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t attr = H5Acreate2(f, "keras_version", type, space, H5P_DEFAULT, H5P_DEFAULT);
  const char* value = "2.15.0";
  H5Awrite(attr, type, &value);
  H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  H5Fclose(f);
  auto bytes = readFile(path);
  return bytes.ok() ? *bytes : std::string();
}

void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Writes `value` as `width` little-endian bytes at `at`.
void poke(std::string& bytes, std::size_t at, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) bytes[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

class GlobalHeap : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = test::tempDir() + "/strings.h5";
    bytes_ = writeStringAttrFile(path_);
    heap_ = bytes_.find("GCOL");
    ASSERT_NE(heap_, std::string::npos);
    // The intact file reads.
    auto file = Hdf5File::openFile(path_);
    ASSERT_TRUE(file.ok()) << file.error();
    auto version = file->stringAttr("", "keras_version");
    ASSERT_TRUE(version.ok()) << version.error();
    EXPECT_EQ(version->value_or(""), "2.15.0");
  }
  // Opening the damaged bytes as a file and as an image gives `message`.
  void expectRefused(const std::string& bytes, const std::string& message) {
    const std::string damaged = test::tempDir() + "/damaged.h5";
    writeBytes(damaged, bytes);
    auto file = Hdf5File::openFile(damaged);
    ASSERT_FALSE(file.ok());
    EXPECT_EQ(file.error(), damaged + message);
    auto image = Hdf5File::openImage(bytes, "weights.h5");
    ASSERT_FALSE(image.ok());
    EXPECT_EQ(image.error(), "weights.h5" + message);
    auto loaded = load(damaged);
    ASSERT_FALSE(loaded.ok());
    EXPECT_NE(loaded.error().find(damaged + message), std::string::npos) << loaded.error();
  }
  std::string path_, bytes_;
  std::size_t heap_ = 0;
};

TEST_F(GlobalHeap, AnObjectOfSizeZeroIsRefusedNotLoopedOn) {
  // The first object's header follows the 16-byte collection header:
  // index (2 bytes), references (2), reserved (4), size (8).
  std::string bytes = bytes_;
  poke(bytes, heap_ + 16, 0, 2);
  poke(bytes, heap_ + 16 + 8, 0, 8);
  const std::uint64_t size = static_cast<unsigned char>(bytes[heap_ + 8]) | (static_cast<unsigned char>(bytes[heap_ + 9]) << 8);
  expectRefused(bytes, ": corrupt HDF5 file: the global heap collection at byte " + std::to_string(heap_) +
                           " declares an object of 0 bytes at byte " + std::to_string(heap_ + 16) + " (" +
                           std::to_string(size - 16) + " bytes left in the collection)");
}

TEST_F(GlobalHeap, AnObjectLargerThanItsCollectionIsRefused) {
  std::string bytes = bytes_;
  poke(bytes, heap_ + 16 + 8, 0xffffffffffffULL, 8);
  const std::uint64_t size = static_cast<unsigned char>(bytes[heap_ + 8]) | (static_cast<unsigned char>(bytes[heap_ + 9]) << 8);
  expectRefused(bytes, ": corrupt HDF5 file: the global heap collection at byte " + std::to_string(heap_) +
                           " declares an object of 281474976710655 bytes at byte " + std::to_string(heap_ + 16) +
                           " (" + std::to_string(size - 16) + " bytes left in the collection)");
}

TEST_F(GlobalHeap, ACollectionReachingPastTheFileIsRefused) {
  // The file cut inside the collection: the library reads zeros past the
  // end of a file, an object of index 0 and size 0.
  const std::string cut = bytes_.substr(0, heap_ + 64);
  const std::string damaged = test::tempDir() + "/cut.h5";
  writeBytes(damaged, cut);
  auto file = Hdf5File::openFile(damaged);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.error().find(damaged + ": "), std::string::npos) << file.error();
}

}  // namespace
}  // namespace gds::model::keras
