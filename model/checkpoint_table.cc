// A tensor bundle's .index file: the LevelDB table format TensorFlow writes
// (table/format.cc, block.cc), its CRC-32C checksums and snappy-compressed
// blocks, read into sorted key/value entries.
#include "model/checkpoint.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/checkpoint_impl.h"

namespace gds::model {

using checkpoint_impl::fixed32;
using checkpoint_impl::getVarint64;
using checkpoint_impl::hex32;

// ---------------------------------------------------------------- CRC-32C

namespace {

struct Crc32cTables {
  std::array<std::array<std::uint32_t, 256>, 4> t{};
  Crc32cTables() {
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      t[0][i] = c;
    }
    for (std::uint32_t i = 0; i < 256; ++i)
      for (int s = 1; s < 4; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
  }
};
const Crc32cTables& crcTables() {
  static const Crc32cTables tables;
  return tables;
}

std::uint32_t crc32cSoftware(std::uint32_t crc, const std::uint8_t* p, std::size_t n) {
  const auto& t = crcTables().t;
  while (n >= 4) {
    std::uint32_t word;
    std::memcpy(&word, p, 4);  // little-endian hosts only (as the rest of the project)
    crc ^= word;
    crc = t[3][crc & 0xff] ^ t[2][(crc >> 8) & 0xff] ^ t[1][(crc >> 16) & 0xff] ^ t[0][crc >> 24];
    p += 4;
    n -= 4;
  }
  while (n--) crc = t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("sse4.2"))) std::uint32_t crc32cHardware(std::uint32_t crc, const std::uint8_t* p,
                                                               std::size_t n) {
  std::uint64_t c = crc;
  while (n >= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    c = __builtin_ia32_crc32di(c, word);
    p += 8;
    n -= 8;
  }
  std::uint32_t c32 = static_cast<std::uint32_t>(c);
  while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}
bool haveHardwareCrc() {
  static const bool have = __builtin_cpu_supports("sse4.2");
  return have;
}
#endif

}  // namespace

std::uint32_t crc32cExtend(std::uint32_t crc, const void* data, std::size_t size) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  crc = ~crc;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (haveHardwareCrc()) return ~crc32cHardware(crc, p, size);
#endif
  return ~crc32cSoftware(crc, p, size);
}

std::uint32_t crc32cMask(std::uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }
std::uint32_t crc32cUnmask(std::uint32_t masked) {
  std::uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

// ---------------------------------------------------------------- varints

namespace {

bool getVarint32(std::string_view* in, std::uint32_t* value) {
  std::uint64_t v = 0;
  if (!getVarint64(in, &v) || v > 0xffffffffu) return false;
  *value = static_cast<std::uint32_t>(v);
  return true;
}
std::uint64_t fixed64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

}  // namespace

// ---------------------------------------------------------------- snappy

Result<std::string> snappyUncompress(std::string_view in) {
  std::uint64_t length = 0;
  if (!getVarint64(&in, &length) || length > (1ull << 32))
    return Status::Error("snappy block: bad uncompressed length");
  std::string out;
  out.reserve(static_cast<size_t>(length));
  while (!in.empty()) {
    auto tag = static_cast<std::uint8_t>(in[0]);
    in.remove_prefix(1);
    if ((tag & 3) == 0) {  // literal
      std::uint64_t len = tag >> 2;
      if (len >= 60) {
        size_t extra = len - 59;
        if (in.size() < extra) return Status::Error("snappy block: truncated literal length");
        len = 0;
        for (size_t i = 0; i < extra; ++i) len |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(in[i])) << (8 * i);
        in.remove_prefix(extra);
      }
      len += 1;
      if (in.size() < len || out.size() + len > length) return Status::Error("snappy block: literal runs past the end");
      out.append(in.data(), static_cast<size_t>(len));
      in.remove_prefix(static_cast<size_t>(len));
      continue;
    }
    std::uint64_t len = 0, offset = 0;
    if ((tag & 3) == 1) {
      if (in.empty()) return Status::Error("snappy block: truncated copy");
      len = 4 + ((tag >> 2) & 7);
      offset = (static_cast<std::uint64_t>(tag >> 5) << 8) | static_cast<std::uint8_t>(in[0]);
      in.remove_prefix(1);
    } else if ((tag & 3) == 2) {
      if (in.size() < 2) return Status::Error("snappy block: truncated copy");
      len = (tag >> 2) + 1;
      offset = static_cast<std::uint8_t>(in[0]) | (static_cast<std::uint64_t>(static_cast<std::uint8_t>(in[1])) << 8);
      in.remove_prefix(2);
    } else {
      if (in.size() < 4) return Status::Error("snappy block: truncated copy");
      len = (tag >> 2) + 1;
      offset = fixed32(in.data());
      in.remove_prefix(4);
    }
    if (offset == 0 || offset > out.size() || out.size() + len > length)
      return Status::Error("snappy block: copy refers outside the output");
    size_t from = out.size() - static_cast<size_t>(offset);
    for (std::uint64_t i = 0; i < len; ++i) out.push_back(out[from + i]);  // may overlap
  }
  if (out.size() != length)
    return Status::Error("snappy block: expected " + std::to_string(length) + " bytes, got " + std::to_string(out.size()));
  return out;
}

// ---------------------------------------------------------------- table

namespace {

constexpr std::uint64_t kTableMagic = 0xdb4775248b80fb57ull;
constexpr size_t kFooterSize = 48;  // two padded BlockHandles + 8-byte magic
constexpr size_t kBlockTrailerSize = 5;  // type byte + masked crc32c

struct BlockHandle {
  std::uint64_t offset = 0, size = 0;
};

bool decodeHandle(std::string_view* in, BlockHandle* h) {
  return getVarint64(in, &h->offset) && getVarint64(in, &h->size);
}

Result<std::string> readBlock(const std::string& file, const BlockHandle& h, const std::string& name) {
  if (h.offset > file.size() || h.size > file.size() || h.offset + h.size + kBlockTrailerSize > file.size())
    return Status::Error(name + ": corrupt table: block at offset " + std::to_string(h.offset) + " (" +
                         std::to_string(h.size) + " bytes) runs past the end of the file (" +
                         std::to_string(file.size()) + " bytes); the file is truncated or corrupt");
  const char* data = file.data() + h.offset;
  size_t n = static_cast<size_t>(h.size);
  std::uint32_t stored = crc32cUnmask(fixed32(data + n + 1));
  std::uint32_t actual = crc32c(data, n + 1);  // contents and type byte
  if (stored != actual)
    return Status::Error(name + ": corrupt table: block checksum mismatch at offset " + std::to_string(h.offset) +
                         " (stored " + hex32(stored) + ", computed " + hex32(actual) + ")");
  switch (data[n]) {
    case 0: return std::string(data, n);
    case 1: {
      auto out = snappyUncompress(std::string_view(data, n));
      if (!out.ok()) return out.status().withContext(name + ": block at offset " + std::to_string(h.offset));
      return out;
    }
    default:
      return Status::Error(name + ": corrupt table: block at offset " + std::to_string(h.offset) +
                           " uses unknown compression type " + std::to_string(static_cast<int>(data[n])) +
                           " (expected 0 = none or 1 = snappy)");
  }
}

Status parseBlock(const std::string& block, const std::string& where,
                  std::vector<std::pair<std::string, std::string>>* out) {
  if (block.size() < 4) return Status::Error(where + ": block too short");
  std::uint32_t restarts = fixed32(block.data() + block.size() - 4);
  if (static_cast<std::uint64_t>(restarts) * 4 + 4 > block.size())
    return Status::Error(where + ": bad restart count " + std::to_string(restarts));
  size_t limit = block.size() - 4 - static_cast<size_t>(restarts) * 4;
  std::string_view in(block.data(), limit);
  std::string key;
  while (!in.empty()) {
    std::uint32_t shared = 0, non_shared = 0, value_len = 0;
    if (!getVarint32(&in, &shared) || !getVarint32(&in, &non_shared) || !getVarint32(&in, &value_len) ||
        shared > key.size() || static_cast<std::uint64_t>(non_shared) + value_len > in.size())
      return Status::Error(where + ": corrupt block entry after key '" + key + "'");
    key.resize(shared);
    key.append(in.data(), non_shared);
    in.remove_prefix(non_shared);
    out->emplace_back(key, std::string(in.data(), value_len));
    in.remove_prefix(value_len);
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<std::pair<std::string, std::string>>> readTable(const std::string& file, const std::string& name) {
  if (file.size() < kFooterSize)
    return Status::Error(name + ": not a checkpoint index (" + std::to_string(file.size()) +
                         " bytes, shorter than the 48-byte table footer); the file is truncated or corrupt");
  const char* footer = file.data() + file.size() - kFooterSize;
  if (fixed64(footer + 40) != kTableMagic)
    return Status::Error(name + ": not a checkpoint index (bad table magic number); the file is truncated or corrupt");
  std::string_view in(footer, 40);
  BlockHandle metaindex, index;
  if (!decodeHandle(&in, &metaindex) || !decodeHandle(&in, &index))
    return Status::Error(name + ": corrupt table footer");
  auto index_block = readBlock(file, index, name);
  if (!index_block.ok()) return index_block.status();
  std::vector<std::pair<std::string, std::string>> handles;
  GDS_RETURN_IF_ERROR(parseBlock(index_block.value(), name + ": index block", &handles));
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& [sep, value] : handles) {
    std::string_view v(value);
    BlockHandle h;
    if (!decodeHandle(&v, &h)) return Status::Error(name + ": corrupt index block entry");
    auto block = readBlock(file, h, name);
    if (!block.ok()) return block.status();
    GDS_RETURN_IF_ERROR(parseBlock(block.value(), name + ": data block at offset " + std::to_string(h.offset), &entries));
  }
  for (size_t i = 1; i < entries.size(); ++i)
    if (!(entries[i - 1].first < entries[i].first))
      return Status::Error(name + ": corrupt table: keys out of order near '" + entries[i].first + "'");
  return entries;
}

}  // namespace gds::model
