#include "model/checkpoint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "model/io.h"

namespace gds::model {
namespace fs = std::filesystem;

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

bool getVarint64(std::string_view* in, std::uint64_t* value) {
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

bool getVarint32(std::string_view* in, std::uint32_t* value) {
  std::uint64_t v = 0;
  if (!getVarint64(in, &v) || v > 0xffffffffu) return false;
  *value = static_cast<std::uint32_t>(v);
  return true;
}

std::uint32_t fixed32(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
std::uint64_t fixed64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08" PRIx32, v);
  return buf;
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

// ---------------------------------------------------------------- slices

TensorSlice TensorSlice::full(int rank) {
  TensorSlice s;
  s.start.assign(static_cast<size_t>(rank), 0);
  s.length.assign(static_cast<size_t>(rank), -1);
  return s;
}

TensorSlice TensorSlice::fromProto(const tensorflow::TensorSliceProto& proto) {
  TensorSlice s;
  for (const auto& e : proto.extent()) {
    bool has_length = e.has_length_case() == tensorflow::TensorSliceProto::Extent::kLength;
    s.start.push_back(has_length ? e.start() : 0);
    s.length.push_back(has_length ? e.length() : -1);
  }
  return s;
}

bool TensorSlice::isFull() const {
  for (int d = 0; d < rank(); ++d)
    if (!isFullAt(d)) return false;
  return true;
}

Shape TensorSlice::sliceShape(const Shape& full_shape) const {
  Shape out;
  for (int d = 0; d < rank(); ++d) out.push_back(lengthIn(d, full_shape));
  return out;
}

std::string TensorSlice::str() const {
  std::string out;
  for (int d = 0; d < rank(); ++d) {
    if (d) out += ':';
    out += isFullAt(d) ? std::string("-") : std::to_string(start[d]) + "," + std::to_string(length[d]);
  }
  return out;
}

Result<TensorSlice> TensorSlice::parse(const std::string& text) {
  TensorSlice s;
  if (text.empty()) return s;
  size_t pos = 0;
  while (true) {
    size_t colon = text.find(':', pos);
    std::string part = text.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
    if (part == "-") {
      s.start.push_back(0);
      s.length.push_back(-1);
    } else {
      size_t comma = part.find(',');
      char* end = nullptr;
      if (comma == std::string::npos) return Status::Error("bad tensor slice '" + text + "': expected start,length or -");
      long long st = std::strtoll(part.c_str(), &end, 10);
      bool ok = end == part.c_str() + comma;
      long long len = std::strtoll(part.c_str() + comma + 1, &end, 10);
      ok = ok && end == part.c_str() + part.size() && comma + 1 < part.size();
      if (!ok || st < 0 || len <= 0)
        return Status::Error("bad tensor slice '" + text + "': expected non-negative start and positive length");
      s.start.push_back(st);
      s.length.push_back(len);
    }
    if (colon == std::string::npos) break;
    pos = colon + 1;
  }
  return s;
}

Status parseShapeAndSlice(const std::string& text, Shape* full_shape, TensorSlice* slice) {
  full_shape->clear();
  *slice = TensorSlice();
  if (text.empty()) return Status::Ok();
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t sp = text.find(' ', pos);
    if (sp == std::string::npos) sp = text.size();
    if (sp > pos) parts.push_back(text.substr(pos, sp - pos));
    pos = sp + 1;
  }
  if (parts.size() < 2)
    return Status::Error("bad shape_and_slice '" + text + "': expected dimensions followed by a slice");
  auto parsed = TensorSlice::parse(parts.back());
  if (!parsed.ok()) return parsed.status();
  parts.pop_back();
  for (const auto& p : parts) {
    char* end = nullptr;
    long long d = std::strtoll(p.c_str(), &end, 10);
    if (end != p.c_str() + p.size() || d < 0)
      return Status::Error("bad shape_and_slice '" + text + "': '" + p + "' is not a dimension");
    full_shape->push_back(d);
  }
  if (parsed->rank() != static_cast<int>(full_shape->size()))
    return Status::Error("bad shape_and_slice '" + text + "': the slice has " + std::to_string(parsed->rank()) +
                         " dimensions, the shape " + std::to_string(full_shape->size()));
  for (int d = 0; d < parsed->rank(); ++d)
    if (!parsed->isFullAt(d) && parsed->start[d] + parsed->length[d] > (*full_shape)[d])
      return Status::Error("bad shape_and_slice '" + text + "': the slice exceeds dimension " + std::to_string(d));
  *slice = std::move(parsed.value());
  return Status::Ok();
}

// OrderedCode (tensorflow/core/lib/strings/ordered_code.cc), the parts the
// slice keys use.
namespace {

void writeNumIncreasing(std::string* dest, std::uint64_t v) {
  unsigned char buf[9];
  int len = 0;
  while (v > 0) {
    ++len;
    buf[9 - len] = static_cast<unsigned char>(v & 0xff);
    v >>= 8;
  }
  dest->push_back(static_cast<char>(len));
  dest->append(reinterpret_cast<const char*>(buf + 9 - len), static_cast<size_t>(len));
}

void writeOrderedString(std::string* dest, const std::string& s) {
  for (char c : s) {
    if (c == '\0') {
      dest->push_back('\0');
      dest->push_back('\xff');
    } else if (c == '\xff') {
      dest->push_back('\xff');
      dest->push_back('\0');
    } else {
      dest->push_back(c);
    }
  }
  dest->push_back('\0');
  dest->push_back('\1');
}

int bitLength(std::uint64_t x) {
  int n = 0;
  while (x) {
    ++n;
    x >>= 1;
  }
  return n;
}

void writeSignedNumIncreasing(std::string* dest, std::int64_t val) {
  const std::uint64_t x = val < 0 ? ~static_cast<std::uint64_t>(val) : static_cast<std::uint64_t>(val);
  if (x < 64) {
    dest->push_back(static_cast<char>(0x80 ^ static_cast<std::uint8_t>(val)));
    return;
  }
  // Length in bytes: n bytes hold numbers of up to 7n-1 significant bits.
  int bits = bitLength(x) + 1;  // plus the sign bit
  int len = (bits + 6) / 7;
  if (len > 10) len = 10;
  static const unsigned char kHeader[11][2] = {{0, 0},       {0x80, 0}, {0xc0, 0}, {0xe0, 0},
                                               {0xf0, 0},    {0xf8, 0}, {0xfc, 0}, {0xfe, 0},
                                               {0xff, 0},    {0xff, 0x80}, {0xff, 0xc0}};
  unsigned char buf[10];
  unsigned char sign = val < 0 ? 0xff : 0;
  buf[0] = buf[1] = sign;
  auto u = static_cast<std::uint64_t>(val);
  for (int i = 0; i < 8; ++i) buf[2 + i] = static_cast<unsigned char>(u >> (56 - 8 * i));
  unsigned char* begin = buf + 10 - len;
  begin[0] ^= kHeader[len][0];
  begin[1] ^= kHeader[len][1];
  dest->append(reinterpret_cast<const char*>(begin), static_cast<size_t>(len));
}

bool readNumIncreasing(std::string_view* src, std::uint64_t* out) {
  if (src->empty()) return false;
  size_t len = static_cast<std::uint8_t>((*src)[0]);
  if (len > 8 || len + 1 > src->size()) return false;
  std::uint64_t v = 0;
  for (size_t i = 0; i < len; ++i) v = (v << 8) | static_cast<std::uint8_t>((*src)[1 + i]);
  *out = v;
  src->remove_prefix(len + 1);
  return true;
}

bool readOrderedString(std::string_view* src, std::string* out) {
  out->clear();
  size_t i = 0;
  while (i + 1 < src->size()) {
    char c = (*src)[i];
    if (c == '\0') {
      char next = (*src)[i + 1];
      if (next == '\1') {
        src->remove_prefix(i + 2);
        return true;
      }
      if (next != '\xff') return false;
      out->push_back('\0');
      i += 2;
    } else if (c == '\xff') {
      if ((*src)[i + 1] != '\0') return false;
      out->push_back('\xff');
      i += 2;
    } else {
      out->push_back(c);
      ++i;
    }
  }
  return false;
}

bool readSignedNumIncreasing(std::string_view* src, std::int64_t* out) {
  if (src->empty()) return false;
  const std::uint64_t xor_mask = (static_cast<std::uint8_t>((*src)[0]) & 0x80) ? 0 : ~0ull;
  const auto first = static_cast<std::uint8_t>(static_cast<std::uint8_t>((*src)[0]) ^ (xor_mask & 0xff));
  int len;
  std::uint64_t x;
  if (first != 0xff) {
    len = 7 - (bitLength(static_cast<std::uint8_t>(first ^ 0xff)) - 1);
    if (src->size() < static_cast<size_t>(len)) return false;
    x = xor_mask;
    for (int i = 0; i < len; ++i) x = (x << 8) | static_cast<std::uint8_t>((*src)[i]);
  } else {
    len = 8;
    if (src->size() < 8) return false;
    const auto second = static_cast<std::uint8_t>(static_cast<std::uint8_t>((*src)[1]) ^ (xor_mask & 0xff));
    if (second >= 0x80) {
      if (second < 0xc0) {
        len = 9;
      } else {
        const auto third = static_cast<std::uint8_t>(static_cast<std::uint8_t>((*src)[2]) ^ (xor_mask & 0xff));
        if (second == 0xc0 && third < 0x80) len = 10;
        else return false;
      }
      if (src->size() < static_cast<size_t>(len)) return false;
    }
    x = 0;
    for (int i = 0; i < 8; ++i) x = (x << 8) | static_cast<std::uint8_t>((*src)[static_cast<size_t>(len - 8 + i)]);
  }
  static const std::uint64_t kMask[11] = {0,
                                          0x80ull,
                                          0xc000ull,
                                          0xe00000ull,
                                          0xf0000000ull,
                                          0xf800000000ull,
                                          0xfc0000000000ull,
                                          0xfe000000000000ull,
                                          0xff00000000000000ull,
                                          0x8000000000000000ull,
                                          0ull};
  x ^= kMask[len];
  *out = static_cast<std::int64_t>(x);
  src->remove_prefix(static_cast<size_t>(len));
  return true;
}

}  // namespace

std::string encodeTensorNameSlice(const std::string& name, const TensorSlice& slice) {
  std::string out;
  writeNumIncreasing(&out, 0);
  writeOrderedString(&out, name);
  writeNumIncreasing(&out, static_cast<std::uint64_t>(slice.rank()));
  for (int d = 0; d < slice.rank(); ++d) {
    writeSignedNumIncreasing(&out, slice.start[d]);
    writeSignedNumIncreasing(&out, slice.length[d]);
  }
  return out;
}

Status decodeTensorNameSlice(std::string_view key, std::string* name, TensorSlice* slice) {
  std::uint64_t x = 0;
  if (!readNumIncreasing(&key, &x) || x != 0) return Status::Error("not a tensor slice key");
  if (!readOrderedString(&key, name)) return Status::Error("tensor slice key: bad tensor name");
  if (!readNumIncreasing(&key, &x) || x == 0 || x > 64) return Status::Error("tensor slice key: bad rank");
  *slice = TensorSlice::full(static_cast<int>(x));
  for (size_t d = 0; d < x; ++d) {
    std::int64_t start = 0, length = 0;
    if (!readSignedNumIncreasing(&key, &start) || !readSignedNumIncreasing(&key, &length))
      return Status::Error("tensor slice key: bad extent");
    if (length >= 0) {
      slice->start[d] = start;
      slice->length[d] = length;
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------- reader

namespace {

std::string shardName(const std::string& prefix, int shard, int num_shards) {
  char buf[64];
  std::snprintf(buf, sizeof buf, ".data-%05d-of-%05d", shard, num_shards);
  return prefix + buf;
}

// A data shard opened for reading; closes on destruction.
struct ShardFile {
  int fd = -1;
  std::int64_t size = 0;
  ~ShardFile() {
    if (fd >= 0) ::close(fd);
  }
};

Status openShard(const std::string& path, ShardFile* f) {
  f->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f->fd < 0) {
    if (errno == ENOENT) return Status::Error(path + ": no such file");
    return Status::Error(path + ": cannot open (" + std::strerror(errno) + ")");
  }
  struct stat st {};
  if (::fstat(f->fd, &st) != 0) return Status::Error(path + ": cannot read size (" + std::strerror(errno) + ")");
  f->size = st.st_size;
  return Status::Ok();
}

Status readAt(const ShardFile& f, const std::string& path, std::int64_t offset, std::int64_t size, void* out) {
  auto* p = static_cast<char*>(out);
  std::int64_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(f.fd, p + done, static_cast<size_t>(size - done), static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Error(path + ": read failed (" + std::strerror(errno) + ")");
    }
    if (n == 0) return Status::Error(path + ": unexpected end of file at offset " + std::to_string(offset + done));
    done += n;
  }
  return Status::Ok();
}

void swapElements(std::vector<std::uint8_t>* data, size_t elem) {
  if (elem <= 1) return;
  for (size_t i = 0; i + elem <= data->size(); i += elem) std::reverse(data->begin() + i, data->begin() + i + elem);
}

// Elements of each complex dtype are two floats or doubles, swapped separately.
size_t swapUnit(tensorflow::DataType dtype) {
  if (dtype == tensorflow::DT_COMPLEX64) return 4;
  if (dtype == tensorflow::DT_COMPLEX128) return 8;
  return dtypeSize(dtype);
}

}  // namespace

std::string CheckpointReader::shardPath(int shard) const { return shardName(prefix_, shard, num_shards_); }

Result<CheckpointReader> CheckpointReader::open(const std::string& prefix) {
  CheckpointReader r;
  r.prefix_ = prefix;
  const std::string index = r.indexPath();
  std::error_code ec;
  if (!fs::exists(index, ec))
    return Status::Error(index + ": no such file (expected a TensorFlow V2 checkpoint: " + index + " and " +
                         prefix + ".data-00000-of-NNNNN)");
  auto bytes = readFile(index);
  if (!bytes.ok()) return bytes.status();
  auto table = readTable(bytes.value(), index);
  if (!table.ok()) return table.status();
  if (table->empty() || !table->front().first.empty())
    return Status::Error(index + ": corrupt checkpoint index: the header entry (empty key) is missing");
  tensorflow::BundleHeaderProto header;
  if (!header.ParseFromString(table->front().second))
    return Status::Error(index + ": corrupt checkpoint index: the header entry cannot be parsed");
  if (header.num_shards() < 1)
    return Status::Error(index + ": corrupt checkpoint index: header says " + std::to_string(header.num_shards()) +
                         " shards");
  // CheckVersions in tensor_bundle.cc: this reader understands version 1.
  if (header.version().min_consumer() > 1)
    return Status::Error(index + ": written by a newer TensorFlow (checkpoint format needs a reader of version >= " +
                         std::to_string(header.version().min_consumer()) + ", this one is version 1)");
  for (int bad : header.version().bad_consumers())
    if (bad == 1) return Status::Error(index + ": this checkpoint disallows readers of version 1");
  r.num_shards_ = header.num_shards();
  r.swap_bytes_ = header.endianness() == tensorflow::BundleHeaderProto::BIG;
  for (size_t i = 1; i < table->size(); ++i) {
    auto& [key, value] = (*table)[i];
    r.table_.emplace(key, value);
    if (!key.empty() && key[0] == '\0') continue;  // a slice of a partitioned tensor
    tensorflow::BundleEntryProto e;
    if (!e.ParseFromString(value))
      return Status::Error(index + ": corrupt checkpoint index: the entry for '" + key + "' cannot be parsed");
    CheckpointVariable v;
    v.name = key;
    v.dtype = e.dtype();
    bool known = true;
    v.shape = shapeFromProto(e.shape(), &known);
    for (auto d : v.shape)
      if (d < 0) known = false;
    if (!known) return Status::Error(index + ": corrupt checkpoint index: tensor '" + key + "' has an invalid shape");
    for (const auto& s : e.slices()) v.slices.push_back(TensorSlice::fromProto(s));
    v.shard = e.shard_id();
    v.offset = e.offset();
    v.size = e.size();
    r.entries_.emplace(key, std::move(v));
  }
  return r;
}

std::vector<CheckpointVariable> CheckpointReader::variables() const {
  std::vector<CheckpointVariable> out;
  for (const auto& [name, v] : entries_) out.push_back(v);
  return out;
}

const CheckpointVariable* CheckpointReader::find(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

Result<tensorflow::BundleEntryProto> CheckpointReader::rawEntry(const std::string& key,
                                                                const std::string& display_name) const {
  auto it = table_.find(key);
  if (it == table_.end())
    return Status::Error(indexPath() + ": checkpoint has no entry for " + display_name);
  tensorflow::BundleEntryProto e;
  if (!e.ParseFromString(it->second))
    return Status::Error(indexPath() + ": corrupt checkpoint index: the entry for " + display_name +
                         " cannot be parsed");
  return e;
}

Result<HostTensor> CheckpointReader::readEntry(const std::string& display, const tensorflow::BundleEntryProto& e) const {
  const auto dtype = e.dtype();
  bool known = true;
  Shape shape = shapeFromProto(e.shape(), &known);
  HostTensor t;
  t.dtype = dtype;
  t.shape = shape;
  std::int64_t n = numElements(shape);
  if (!known || n < 0) return Status::Error(indexPath() + ": " + display + " has an invalid shape");
  if (dtype == tensorflow::DT_VARIANT || dtype == tensorflow::DT_RESOURCE || dtype == tensorflow::DT_INVALID)
    return Status::Error(indexPath() + ": " + display + " has dtype " + dtypeName(dtype) +
                         ", which a frozen graph cannot hold");
  const size_t elem = dtypeSize(dtype);
  if (dtype != tensorflow::DT_STRING) {
    if (elem == 0) return Status::Error(indexPath() + ": " + display + " has unsupported dtype " + dtypeName(dtype));
    if (static_cast<std::uint64_t>(e.size()) != static_cast<std::uint64_t>(n) * elem)
      return Status::Error(indexPath() + ": corrupt checkpoint index: " + display + " has size " +
                           std::to_string(e.size()) + " but " + dtypeName(dtype) + shapeString(shape) + " needs " +
                           std::to_string(static_cast<std::uint64_t>(n) * elem) + " bytes");
  } else {
    t.strings.resize(static_cast<size_t>(n));
  }
  if (e.shard_id() < 0 || e.shard_id() >= num_shards_)
    return Status::Error(indexPath() + ": corrupt checkpoint index: " + display + " is in shard " +
                         std::to_string(e.shard_id()) + " but the checkpoint has " + std::to_string(num_shards_));
  if (e.size() == 0) {
    if (dtype != tensorflow::DT_STRING) t.data.assign(static_cast<size_t>(n) * elem, 0);
    if (n > 0 && dtype == tensorflow::DT_STRING)
      return Status::Error(indexPath() + ": corrupt checkpoint index: " + display + " has no bytes");
    return t;
  }
  const std::string path = shardPath(e.shard_id());
  ShardFile f;
  Status s = openShard(path, &f);
  if (!s.ok())
    return Status::Error(s.message() + " (shard " + std::to_string(e.shard_id()) + " of " +
                         std::to_string(num_shards_) + " of checkpoint " + prefix_ + ", needed for " + display + ")");
  if (e.offset() < 0 || e.size() < 0 || e.offset() + e.size() > f.size)
    return Status::Error(path + ": file is truncated (" + std::to_string(f.size) + " bytes) but " + display +
                         " needs bytes [" + std::to_string(e.offset()) + ", " + std::to_string(e.offset() + e.size()) +
                         ")");
  std::string raw(static_cast<size_t>(e.size()), '\0');
  GDS_RETURN_IF_ERROR(readAt(f, path, e.offset(), e.size(), raw.data()));
  std::uint32_t actual = 0;
  auto mismatch = [&](const std::string& what, std::uint32_t stored, std::uint32_t computed) {
    return Status::Error(path + ": " + what + " mismatch for " + display + " (shard " + std::to_string(e.shard_id()) +
                         ", offset " + std::to_string(e.offset()) + ", " + std::to_string(e.size()) +
                         " bytes): stored crc32c " + hex32(stored) + ", computed " + hex32(computed) +
                         "; the file is corrupt");
  };
  if (dtype != tensorflow::DT_STRING) {
    actual = crc32c(raw.data(), raw.size());  // on the bytes as stored, before any swap
    t.data.assign(raw.begin(), raw.end());
    if (swap_bytes_) swapElements(&t.data, swapUnit(dtype));
  } else {
    // [varint64 len]*n [masked crc32c of the lengths] [bytes]*n; the tensor
    // crc covers the lengths as uint32 (uint64 when larger), the stored
    // length checksum and the bytes (WriteStringTensor in tensor_bundle.cc).
    std::string_view in(raw);
    std::vector<std::uint64_t> lengths(static_cast<size_t>(n));
    for (auto& len : lengths) {
      if (!getVarint64(&in, &len)) return Status::Error(path + ": corrupt string lengths for " + display);
      if (len <= 0xffffffffu) {
        auto l32 = static_cast<std::uint32_t>(len);
        if (swap_bytes_) l32 = __builtin_bswap32(l32);
        actual = crc32cExtend(actual, &l32, 4);
      } else {
        std::uint64_t l64 = swap_bytes_ ? __builtin_bswap64(len) : len;
        actual = crc32cExtend(actual, &l64, 8);
      }
    }
    if (in.size() < 4) return Status::Error(path + ": corrupt string tensor " + display + " (no length checksum)");
    std::uint32_t raw_len_crc = fixed32(in.data());
    std::uint32_t len_crc = swap_bytes_ ? __builtin_bswap32(raw_len_crc) : raw_len_crc;
    if (crc32cUnmask(len_crc) != actual) return mismatch("string length checksum", crc32cUnmask(len_crc), actual);
    actual = crc32cExtend(actual, in.data(), 4);
    in.remove_prefix(4);
    for (size_t i = 0; i < lengths.size(); ++i) {
      if (lengths[i] > in.size())
        return Status::Error(path + ": corrupt string tensor " + display + ": element " + std::to_string(i) +
                             " runs past the entry");
      t.strings[i].assign(in.data(), static_cast<size_t>(lengths[i]));
      actual = crc32cExtend(actual, in.data(), static_cast<size_t>(lengths[i]));
      in.remove_prefix(static_cast<size_t>(lengths[i]));
    }
  }
  if (crc32cUnmask(e.crc32c()) != actual) return mismatch("checksum", crc32cUnmask(e.crc32c()), actual);
  return t;
}

namespace {

// Copies the intersection of `src` (covering `src_slice` of a tensor of
// `full` shape) into `dst` (covering `dst_slice`) and marks it in `covered`.
void copyIntersection(const HostTensor& src, const TensorSlice& src_slice, HostTensor* dst,
                      const TensorSlice& dst_slice, const Shape& full, std::vector<bool>* covered) {
  const int rank = static_cast<int>(full.size());
  std::vector<std::int64_t> lo(rank), hi(rank);
  for (int d = 0; d < rank; ++d) {
    lo[d] = std::max(src_slice.startIn(d), dst_slice.startIn(d));
    hi[d] = std::min(src_slice.startIn(d) + src_slice.lengthIn(d, full),
                     dst_slice.startIn(d) + dst_slice.lengthIn(d, full));
    if (hi[d] <= lo[d]) return;
  }
  const size_t elem = dtypeSize(src.dtype);
  const bool strings = src.dtype == tensorflow::DT_STRING;
  auto flat = [&](const Shape& shape, const TensorSlice& sl, const std::vector<std::int64_t>& idx) {
    std::int64_t off = 0;
    for (int d = 0; d < rank; ++d) off = off * shape[d] + (idx[d] - sl.startIn(d));
    return off;
  };
  if (rank == 0) {
    if (strings) dst->strings[0] = src.strings[0];
    else std::memcpy(dst->data.data(), src.data.data(), elem);
    (*covered)[0] = true;
    return;
  }
  const std::int64_t run = hi[rank - 1] - lo[rank - 1];
  std::vector<std::int64_t> idx(lo);
  while (true) {
    std::int64_t so = flat(src.shape, src_slice, idx), doff = flat(dst->shape, dst_slice, idx);
    if (strings) {
      for (std::int64_t i = 0; i < run; ++i) dst->strings[doff + i] = src.strings[so + i];
    } else {
      std::memcpy(dst->data.data() + doff * elem, src.data.data() + so * elem, static_cast<size_t>(run) * elem);
    }
    for (std::int64_t i = 0; i < run; ++i) (*covered)[static_cast<size_t>(doff + i)] = true;
    int d = rank - 2;
    for (; d >= 0; --d) {
      if (++idx[d] < hi[d]) break;
      idx[d] = lo[d];
    }
    if (d < 0) break;
  }
}

}  // namespace

Result<HostTensor> CheckpointReader::read(const std::string& name) const {
  const CheckpointVariable* v = find(name);
  if (!v) return Status::Error("checkpoint " + prefix_ + " has no tensor named '" + name + "'");
  return readSlice(name, TensorSlice::full(static_cast<int>(v->shape.size())));
}

Result<HostTensor> CheckpointReader::readSlice(const std::string& name, const TensorSlice& want) const {
  const CheckpointVariable* v = find(name);
  if (!v) return Status::Error("checkpoint " + prefix_ + " has no tensor named '" + name + "'");
  const Shape& full = v->shape;
  const int rank = static_cast<int>(full.size());
  if (want.rank() != rank)
    return Status::Error("checkpoint " + prefix_ + ": tensor '" + name + "' has shape " + shapeString(full) +
                         ", which slice " + want.str() + " does not fit");
  for (int d = 0; d < rank; ++d)
    if (!want.isFullAt(d) && (want.start[d] < 0 || want.start[d] + want.length[d] > full[d]))
      return Status::Error("checkpoint " + prefix_ + ": slice " + want.str() + " exceeds tensor '" + name +
                           "' of shape " + shapeString(full));
  const std::string display = "tensor '" + name + "'";
  if (v->slices.empty()) {
    auto e = rawEntry(name, display);
    if (!e.ok()) return e.status();
    auto whole = readEntry(display, e.value());
    if (!whole.ok() || want.sliceShape(full) == full) return whole;
    HostTensor out = HostTensor::zeros(v->dtype, want.sliceShape(full));
    if (v->dtype == tensorflow::DT_STRING) out.strings.resize(static_cast<size_t>(out.size()));
    std::vector<bool> covered(static_cast<size_t>(out.size()), false);
    copyIntersection(whole.value(), TensorSlice::full(rank), &out, want, full, &covered);
    return out;
  }
  HostTensor out = HostTensor::zeros(v->dtype, want.sliceShape(full));
  if (v->dtype == tensorflow::DT_STRING) out.strings.resize(static_cast<size_t>(out.size()));
  std::vector<bool> covered(static_cast<size_t>(std::max<std::int64_t>(out.size(), 0)), false);
  for (const auto& stored : v->slices) {
    if (stored.rank() != rank)
      return Status::Error(indexPath() + ": corrupt checkpoint index: a slice of '" + name + "' has rank " +
                           std::to_string(stored.rank()) + ", the tensor " + std::to_string(rank));
    bool overlaps = true;
    for (int d = 0; d < rank; ++d)
      if (std::max(stored.startIn(d), want.startIn(d)) >=
          std::min(stored.startIn(d) + stored.lengthIn(d, full), want.startIn(d) + want.lengthIn(d, full)))
        overlaps = false;
    if (!overlaps) continue;
    const std::string part = "slice " + stored.str() + " of tensor '" + name + "'";
    auto e = rawEntry(encodeTensorNameSlice(name, stored), part);
    if (!e.ok()) return e.status();
    auto piece = readEntry(part, e.value());
    if (!piece.ok()) return piece.status();
    if (piece->dtype != v->dtype || piece->shape != stored.sliceShape(full))
      return Status::Error(indexPath() + ": corrupt checkpoint index: " + part + " holds " +
                           dtypeName(piece->dtype) + shapeString(piece->shape) + ", expected " +
                           dtypeName(v->dtype) + shapeString(stored.sliceShape(full)));
    copyIntersection(piece.value(), stored, &out, want, full, &covered);
  }
  if (std::find(covered.begin(), covered.end(), false) != covered.end())
    return Status::Error("checkpoint " + prefix_ + ": the saved slices of partitioned tensor '" + name +
                         "' do not cover slice " + want.str());
  return out;
}

Result<std::string> resolveCheckpointPrefix(const std::string& path) {
  std::error_code ec;
  auto exists = [&](const std::string& p) { return fs::exists(p, ec); };
  std::string p = path;
  auto strip = [&](const std::string& suffix) {
    if (p.size() > suffix.size() && p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0) {
      p.resize(p.size() - suffix.size());
      return true;
    }
    return false;
  };
  if (!strip(".index") && !strip(".meta")) {
    size_t data = p.rfind(".data-");
    if (data != std::string::npos && p.find("-of-", data) != std::string::npos) p.resize(data);
  }
  if (exists(p + ".index")) return p;
  if (fs::is_directory(path, ec)) {
    fs::path dir(path);
    if (exists((dir / "variables" / "variables.index").string())) return (dir / "variables" / "variables").string();
    fs::path state = dir / "checkpoint";
    if (exists(state.string())) {
      auto text = readFile(state.string());
      if (!text.ok()) return text.status();
      // CheckpointState text format: model_checkpoint_path: "model.ckpt-1000"
      const std::string key = "model_checkpoint_path:";
      size_t at = text->find(key);
      size_t q1 = at == std::string::npos ? at : text->find('"', at);
      size_t q2 = q1 == std::string::npos ? q1 : text->find('"', q1 + 1);
      if (q2 == std::string::npos)
        return Status::Error(state.string() + ": no model_checkpoint_path in the checkpoint state file");
      fs::path prefix(text->substr(q1 + 1, q2 - q1 - 1));
      if (prefix.is_relative()) prefix = dir / prefix;
      if (exists(prefix.string() + ".index")) return prefix.string();
      return Status::Error(prefix.string() + ".index: no such file (named by " + state.string() + ")");
    }
    return Status::Error(path + ": folder holds no checkpoint (no 'checkpoint' state file, no *.index)");
  }
  if (exists(path) && fs::is_regular_file(path, ec))
    return Status::Error(path + ": not a V2 checkpoint prefix (no " + p +
                         ".index); TensorFlow V1 checkpoints (a single file) are not supported");
  return Status::Error(p + ".index: no such file (expected a TensorFlow V2 checkpoint: " + p + ".index and " + p +
                       ".data-00000-of-NNNNN)");
}

}  // namespace gds::model
