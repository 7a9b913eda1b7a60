// TensorFlow's memory-mapped model format (convert_graphdef_memmapped_format):
// large Consts become ImmutableConst nodes whose bytes live in the same file,
// each region aligned to 64 bytes (Allocator::kAllocatorAlignment), followed
// by the GraphDef itself under "memmapped_package://.", a
// MemmappedFileSystemDirectory listing every region, and the directory's
// offset as a little-endian uint64 in the last 8 bytes
// (tensorflow/core/util/memmapped_file_system{,_writer}.cc).
//
// Reading maps the file: the weights are used where they lie, never copied.
// An opened file registers its regions process-wide so the interpreter's
// ImmutableConst kernel can find them by memory_region_name.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph.pb.h"
#include "model/status.h"

namespace gds::model {

inline constexpr const char* kMemmappedPackagePrefix = "memmapped_package://";
inline constexpr const char* kMemmappedGraphDefName = "memmapped_package://.";
inline constexpr std::uint64_t kMemmappedAlignment = 64;

struct MemmappedWriteResult {
  int converted = 0;              // Consts turned into ImmutableConst
  std::int64_t region_bytes = 0;  // tensor bytes stored in regions
  std::int64_t file_bytes = 0;
};

// Converts the Consts of `graph` holding at least `min_conversion_size_bytes`
// of plain-old-data into ImmutableConst and writes the package atomically.
// Defaults as the TensorFlow tool (--min_conversion_tensor_size=10000).
Result<MemmappedWriteResult> writeMemmapped(const tensorflow::GraphDef& graph, const std::string& path,
                                            std::int64_t min_conversion_size_bytes = 10000);

// True when `path` ends with a memmapped package directory.
bool isMemmappedFile(const std::string& path);

class MemmappedFile {
 public:
  struct Region {
    std::string name;
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
  };
  // Maps the file read-only, parses its directory and GraphDef and registers
  // its regions (see findMemoryRegion). Errors name the file.
  static Result<std::shared_ptr<MemmappedFile>> open(const std::string& path);
  ~MemmappedFile();
  MemmappedFile(const MemmappedFile&) = delete;
  MemmappedFile& operator=(const MemmappedFile&) = delete;

  const std::string& path() const { return path_; }
  const tensorflow::GraphDef& graph() const { return graph_; }
  // Moves the parsed GraphDef out (graph() is empty afterwards), so a loader
  // that keeps its own GraphDef does not hold two copies of the small Consts.
  tensorflow::GraphDef takeGraph() {
    tensorflow::GraphDef g;
    g.Swap(&graph_);
    return g;
  }
  const std::vector<Region>& regions() const { return regions_; }
  // Bytes of a region (nullptr when absent).
  const void* regionData(const std::string& name, std::uint64_t* length) const;
  std::uint64_t size() const { return size_; }

 private:
  MemmappedFile() = default;
  std::string path_;
  void* base_ = nullptr;
  std::uint64_t size_ = 0;
  std::vector<Region> regions_;
  tensorflow::GraphDef graph_;
};

// A region of a currently open MemmappedFile, found by its full name
// ("memmapped_package://..."). `owner` keeps the mapping alive. When several
// open files share a region name, the most recently opened one wins.
struct MemoryRegion {
  const void* data = nullptr;
  std::uint64_t length = 0;
  std::shared_ptr<const void> owner;
};
Result<MemoryRegion> findMemoryRegion(const std::string& name);

}  // namespace gds::model
