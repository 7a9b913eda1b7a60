// The checkpoint reader: a V2 checkpoint's index and data shards opened,
// entries looked up by name (whole tensors or slices assembled), contents
// checked against their checksums; and checkpoint paths resolved.
#include "model/checkpoint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "model/checkpoint_impl.h"
#include "model/file_io.h"

namespace gds::model {
namespace fs = std::filesystem;
using checkpoint_impl::fixed32;
using checkpoint_impl::getVarint64;
using checkpoint_impl::hex32;

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
