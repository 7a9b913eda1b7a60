// Byte helpers shared by the checkpoint files: checkpoint_table.cc (the
// .index table) and checkpoint.cc (the reader, which checks string tensors'
// length prefixes).
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace gds::model::checkpoint_impl {

inline bool getVarint64(std::string_view* in, std::uint64_t* value) {
  std::uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    auto byte = static_cast<std::uint8_t>((*in)[0]);
    in->remove_prefix(1);
    result |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *value = result;
      return true;
    }
  }
  return false;
}

inline std::uint32_t fixed32(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08" PRIx32, v);
  return buf;
}

}  // namespace gds::model::checkpoint_impl
