// Tensor slices of checkpoints: TensorSlice (start and length per
// dimension), the "shape_and_slice" text of Save/Restore ops, and the
// OrderedCode keys under which sliced tensors are stored.
#include "model/checkpoint.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace gds::model {

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

}  // namespace gds::model
