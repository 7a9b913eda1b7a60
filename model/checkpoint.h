// Reader for TensorFlow V2 checkpoints (tensor bundles): PREFIX.index, a
// LevelDB-format sorted table mapping tensor names to BundleEntryProto, and
// the data shards PREFIX.data-NNNNN-of-MMMMM holding the raw bytes.
// Follows tensorflow/core/util/tensor_bundle/tensor_bundle.cc and
// tensorflow/core/lib/io/{format,block,table}.cc; every checksum the format
// carries (table blocks, tensor bytes, string lengths) is verified.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint.pb.h"
#include "model/status.h"
#include "model/tensor.h"

namespace gds::model {

// CRC-32C (Castagnoli), as tensorflow/core/lib/hash/crc32c.h.
std::uint32_t crc32cExtend(std::uint32_t crc, const void* data, std::size_t size);
inline std::uint32_t crc32c(const void* data, std::size_t size) { return crc32cExtend(0, data, size); }
// The masking LevelDB and TensorFlow apply to stored checksums.
std::uint32_t crc32cMask(std::uint32_t crc);
std::uint32_t crc32cUnmask(std::uint32_t masked);

// Snappy raw-block decompression (the only compression a table block may use).
Result<std::string> snappyUncompress(std::string_view compressed);

// All key/value pairs of a LevelDB-format table file, in key order.
// `name` is used in error messages.
Result<std::vector<std::pair<std::string, std::string>>> readTable(const std::string& bytes,
                                                                 const std::string& name);

// A slice of a tensor: per dimension a start and a length, length -1 meaning
// the whole dimension (tensorflow/core/framework/tensor_slice.h).
struct TensorSlice {
  std::vector<std::int64_t> start;
  std::vector<std::int64_t> length;

  static TensorSlice full(int rank);
  static TensorSlice fromProto(const tensorflow::TensorSliceProto& proto);
  // TensorFlow's spelling: "0,4:-" (start,length per dimension, "-" = full).
  static Result<TensorSlice> parse(const std::string& text);
  int rank() const { return static_cast<int>(start.size()); }
  bool isFullAt(int d) const { return length[static_cast<size_t>(d)] < 0; }
  bool isFull() const;
  // Concrete [start, start+length) per dimension for a tensor of `shape`.
  std::int64_t startIn(int d) const { return isFullAt(d) ? 0 : start[static_cast<size_t>(d)]; }
  std::int64_t lengthIn(int d, const Shape& shape) const {
    return isFullAt(d) ? shape[static_cast<size_t>(d)] : length[static_cast<size_t>(d)];
  }
  Shape sliceShape(const Shape& full_shape) const;
  std::string str() const;
  bool operator==(const TensorSlice& o) const { return start == o.start && length == o.length; }
};

// The key under which a bundle stores one slice of a partitioned tensor
// (checkpoint::EncodeTensorNameSlice, OrderedCode encoding).
std::string encodeTensorNameSlice(const std::string& name, const TensorSlice& slice);
// Inverse of encodeTensorNameSlice; error when `key` is not a slice key.
Status decodeTensorNameSlice(std::string_view key, std::string* name, TensorSlice* slice);

// Parses a SaveV2/RestoreV2 "shape_and_slices" entry: "" (whole tensor) or
// "dim0 dim1 ... slice", e.g. "4 12 0,4:0,12".
Status parseShapeAndSlice(const std::string& text, Shape* full_shape, TensorSlice* slice);

// One tensor of a checkpoint as listed by CheckpointReader::variables().
struct CheckpointVariable {
  std::string name;
  tensorflow::DataType dtype = tensorflow::DT_INVALID;
  Shape shape;
  std::vector<TensorSlice> slices;  // empty: stored whole
  int shard = 0;                    // for whole tensors
  std::int64_t offset = 0;
  std::int64_t size = 0;
};

class CheckpointReader {
 public:
  // `prefix` is the path without ".index" (e.g. "model.ckpt-1000" or
  // "<saved_model>/variables/variables"). Reads and checks the index.
  static Result<CheckpointReader> open(const std::string& prefix);

  const std::string& prefix() const { return prefix_; }
  std::string indexPath() const { return prefix_ + ".index"; }
  std::string shardPath(int shard) const;
  int numShards() const { return num_shards_; }

  // Every tensor (slice entries folded into their full tensor), by name.
  std::vector<CheckpointVariable> variables() const;
  bool has(const std::string& name) const { return entries_.count(name) != 0; }
  const CheckpointVariable* find(const std::string& name) const;

  // The whole tensor, assembling the slices of a partitioned variable.
  Result<HostTensor> read(const std::string& name) const;
  // The part `slice` of the tensor `name` (of the tensor's rank, within its
  // shape), assembled from whichever saved slices overlap it, as RestoreV2
  // with a shape_and_slice spec does. Errors when the saved slices leave a gap.
  Result<HostTensor> readSlice(const std::string& name, const TensorSlice& slice) const;

 private:
  struct Entry {
    CheckpointVariable var;
    std::uint32_t crc = 0;  // masked, as stored
  };
  Result<HostTensor> readEntry(const std::string& display_name, const tensorflow::BundleEntryProto& entry) const;
  Result<tensorflow::BundleEntryProto> rawEntry(const std::string& key, const std::string& display_name) const;

  std::string prefix_;
  int num_shards_ = 1;
  bool swap_bytes_ = false;
  std::map<std::string, std::string> table_;  // all keys -> serialized BundleEntryProto
  std::map<std::string, CheckpointVariable> entries_;
};

// Accepts a checkpoint prefix, a file of the checkpoint (PREFIX.index,
// PREFIX.data-..., PREFIX.meta), a folder holding a "checkpoint" state file
// or a SavedModel folder, and returns the prefix. Errors name what is missing.
Result<std::string> resolveCheckpointPrefix(const std::string& path);

}  // namespace gds::model
