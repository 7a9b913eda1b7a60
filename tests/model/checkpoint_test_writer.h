// A minimal V2 tensor bundle writer for tests: builds checkpoints the
// reader must understand (partitioned tensors, strings, resource variables)
// with the same layout TensorFlow's BundleWriter produces (uncompressed table,
// masked crc32c everywhere).
#pragma once

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "model/checkpoint.h"
#include "model/io.h"

namespace gds::model::testing {

inline void putVarint(std::string* s, std::uint64_t v) {
  while (v >= 0x80) {
    s->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  s->push_back(static_cast<char>(v));
}
inline void putFixed32(std::string* s, std::uint32_t v) { s->append(reinterpret_cast<const char*>(&v), 4); }

// One block with a restart at every entry, then its 5-byte trailer.
inline std::string tableBlock(const std::vector<std::pair<std::string, std::string>>& kv, std::string* file) {
  std::string block;
  std::vector<std::uint32_t> restarts;
  for (const auto& [k, v] : kv) {
    restarts.push_back(static_cast<std::uint32_t>(block.size()));
    putVarint(&block, 0);
    putVarint(&block, k.size());
    putVarint(&block, v.size());
    block += k;
    block += v;
  }
  if (restarts.empty()) restarts.push_back(0);
  for (auto r : restarts) putFixed32(&block, r);
  putFixed32(&block, static_cast<std::uint32_t>(restarts.size()));
  std::string handle;
  putVarint(&handle, file->size());
  putVarint(&handle, block.size());
  *file += block;
  file->push_back('\0');  // no compression
  std::uint32_t crc = crc32c(block.data(), block.size());
  crc = crc32cExtend(crc, "\0", 1);
  putFixed32(file, crc32cMask(crc));
  return handle;
}

inline std::string tableFile(const std::map<std::string, std::string>& entries) {
  std::string file;
  std::vector<std::pair<std::string, std::string>> kv(entries.begin(), entries.end());
  std::string data_handle = tableBlock(kv, &file);
  std::string meta_handle = tableBlock({}, &file);
  std::string index_handle = tableBlock({{kv.empty() ? std::string() : kv.back().first, data_handle}}, &file);
  std::string footer = meta_handle + index_handle;
  footer.resize(40, '\0');
  std::uint64_t magic = 0xdb4775248b80fb57ull;
  footer.append(reinterpret_cast<const char*>(&magic), 8);
  return file + footer;
}

struct BundleBuilder {
  std::vector<std::string> shards{std::string()};
  std::map<std::string, std::string> entries;

  tensorflow::BundleEntryProto add(const std::string& key, const HostTensor& t, int shard = 0) {
    if (static_cast<size_t>(shard) >= shards.size()) shards.resize(static_cast<size_t>(shard) + 1);
    std::string& data = shards[static_cast<size_t>(shard)];
    tensorflow::BundleEntryProto e;
    e.set_shard_id(shard);
    e.set_dtype(t.dtype);
    shapeToProto(t.shape, e.mutable_shape());
    e.set_offset(static_cast<std::int64_t>(data.size()));
    std::string bytes;
    std::uint32_t crc = 0;
    if (t.dtype == tensorflow::DT_STRING) {
      for (const auto& s : t.strings) {
        putVarint(&bytes, s.size());
        auto len = static_cast<std::uint32_t>(s.size());
        crc = crc32cExtend(crc, &len, 4);
      }
      std::uint32_t masked = crc32cMask(crc);
      putFixed32(&bytes, masked);
      crc = crc32cExtend(crc, &masked, 4);
      for (const auto& s : t.strings) {
        bytes += s;
        crc = crc32cExtend(crc, s.data(), s.size());
      }
    } else {
      bytes.assign(t.data.begin(), t.data.end());
      crc = crc32c(bytes.data(), bytes.size());
    }
    data += bytes;
    e.set_size(static_cast<std::int64_t>(bytes.size()));
    e.set_crc32c(crc32cMask(crc));
    entries[key] = e.SerializeAsString();
    return e;
  }
  // A partitioned tensor: `parts` are (slice, value) pairs.
  void addPartitioned(const std::string& name, tensorflow::DataType dtype, const Shape& shape,
                      const std::vector<std::pair<TensorSlice, HostTensor>>& parts) {
    tensorflow::BundleEntryProto full;
    full.set_dtype(dtype);
    shapeToProto(shape, full.mutable_shape());
    for (const auto& [slice, value] : parts) {
      auto* p = full.add_slices();
      for (int d = 0; d < slice.rank(); ++d) {
        auto* ext = p->add_extent();
        if (!slice.isFullAt(d)) {
          ext->set_start(slice.start[d]);
          ext->set_length(slice.length[d]);
        }
      }
      add(encodeTensorNameSlice(name, slice), value);
    }
    entries[name] = full.SerializeAsString();
  }
  Status write(const std::string& prefix) {
    tensorflow::BundleHeaderProto header;
    header.set_num_shards(static_cast<int>(shards.size()));
    header.mutable_version()->set_producer(1);
    entries[""] = header.SerializeAsString();
    GDS_RETURN_IF_ERROR(writeFileAtomic(prefix + ".index", tableFile(entries)));
    for (size_t i = 0; i < shards.size(); ++i) {
      char name[64];
      std::snprintf(name, sizeof name, ".data-%05zu-of-%05zu", i, shards.size());
      GDS_RETURN_IF_ERROR(writeFileAtomic(prefix + name, shards[i]));
    }
    return Status::Ok();
  }
};

inline HostTensor floats(const Shape& shape, float first = 0.f) {
  HostTensor t = HostTensor::zeros(tensorflow::DT_FLOAT, shape);
  for (std::int64_t i = 0; i < t.size(); ++i) t.as<float>()[i] = first + static_cast<float>(i);
  return t;
}

}  // namespace gds::model::testing
