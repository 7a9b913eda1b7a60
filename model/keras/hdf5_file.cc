#include "model/keras/hdf5_file.h"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>

#include "model/memory_budget.h"

namespace gds::model::keras {

namespace {

// One lock for every call into the HDF5 library (see the header);
// recursive, as a moved-from file is destroyed while its opener holds it.
std::recursive_mutex& hdf5Lock() {
  static std::recursive_mutex lock;
  return lock;
}

// The library prints its error stack to stderr by default; errors here
// become Status values instead.
void silenceLibrary() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

// Owns an HDF5 identifier and closes it with the matching function.
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  Handle(Handle&& o) noexcept : id_(o.id_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept {
    std::swap(id_, o.id_);
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (id_ < 0) return;
    switch (H5Iget_type(id_)) {
      case H5I_FILE: H5Fclose(id_); break;
      case H5I_GROUP: H5Gclose(id_); break;
      case H5I_DATASET: H5Dclose(id_); break;
      case H5I_ATTR: H5Aclose(id_); break;
      case H5I_DATATYPE: H5Tclose(id_); break;
      case H5I_DATASPACE: H5Sclose(id_); break;
      case H5I_GENPROP_LST: H5Pclose(id_); break;
      default: H5Idec_ref(id_); break;
    }
  }
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

// Deeper than any Keras file nests groups (model_weights/<model>/<layer>/...).
constexpr std::size_t kMaxPathComponents = 64;
constexpr int kMaxRank = 32;
// Attribute strings: a model config of a large network is a few MB.
constexpr std::int64_t kMaxStringBytes = std::int64_t{1} << 30;
constexpr hsize_t kMaxAttrElements = 1 << 20;

std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

}  // namespace

struct Hdf5File::Impl {
  Handle file;

  // Every component a hard link (no soft or external links, no "." tricks),
  // so that opening it reads only this file. "" is the root.
  bool hardPath(const std::string& path) const {
    const auto parts = splitPath(path);
    if (parts.size() > kMaxPathComponents) return false;
    std::string prefix;
    for (const auto& p : parts) {
      if (p == "." || p == "..") return false;
      prefix += (prefix.empty() ? "" : "/") + p;
      if (H5Lexists(file.get(), prefix.c_str(), H5P_DEFAULT) <= 0) return false;
      H5L_info_t info;
      if (H5Lget_info(file.get(), prefix.c_str(), &info, H5P_DEFAULT) < 0 || info.type != H5L_TYPE_HARD) return false;
    }
    return true;
  }

  Handle openObject(const std::string& path) const {
    if (!hardPath(path)) return Handle();
    return Handle(H5Oopen(file.get(), path.empty() ? "/" : path.c_str(), H5P_DEFAULT));
  }
};

Hdf5File::Hdf5File(Hdf5File&&) noexcept = default;
Hdf5File& Hdf5File::operator=(Hdf5File&&) noexcept = default;
Hdf5File::~Hdf5File() {
  std::lock_guard<std::recursive_mutex> lock(hdf5Lock());
  impl_.reset();
}

bool looksLikeHdf5(const std::string& header) {
  return header.size() >= 8 && header.compare(0, 8, "\x89HDF\r\n\x1a\n", 8) == 0;
}

namespace {

// File access that closes every object of the file with it (the lock held,
// the library's error printing off).
Handle strongCloseAccess() {
  silenceLibrary();
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS));
  H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG);
  return fapl;
}

// Global heap collections, checked before the library reads any.
//
// Variable-length strings (every Keras attribute) live in global heap
// collections ("GCOL"). HDF5 1.10 walks a collection's objects by their
// declared sizes and loops forever on an object that does not advance the
// walk (index 0 with size 0, which is also what a collection reaching past
// the file's end reads as), or steps outside the collection on one that
// claims more than is left. Every collection in the file is walked here the
// same way first; a file with one that would stall is refused, not read.
//
// `read(offset, buffer, n)` fills the buffer from the file, zeros past its end.
using ReadAt = std::function<void(std::uint64_t, unsigned char*, std::size_t)>;

std::uint64_t decodeLE(const unsigned char* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | p[i];
  return v;
}

// The superblock's size of lengths (2..8 bytes), from the first superblock
// signature at 0, 512, 1024, ...; 0 when there is none (the library refuses
// such a file itself).
std::size_t lengthSize(const ReadAt& read, std::uint64_t file_size) {
  for (std::uint64_t at = 0; at + 16 <= file_size; at = at ? at * 2 : 512) {
    unsigned char sb[16];
    read(at, sb, sizeof sb);
    if (!looksLikeHdf5(std::string(reinterpret_cast<const char*>(sb), 8))) continue;
    return sb[8] <= 1 ? sb[14] : sb[10];  // versions 0-1 and 2-3 place it differently
  }
  return 0;
}

Status checkHeapAt(const ReadAt& read, std::uint64_t at, std::size_t length_size, const std::string& name) {
  const std::size_t header = 8 + length_size;         // "GCOL", version, 3 reserved, collection size
  const std::size_t object_header = 8 + length_size;  // index, references, 4 reserved, object size
  unsigned char buf[32];
  read(at, buf, header);
  if (buf[4] != 1) return Status::Ok();  // not a collection the library reads
  const std::uint64_t size = decodeLE(buf + 8, length_size);
  std::uint64_t p = header;
  for (std::uint64_t object = 0; p < size; ++object) {
    if (size - p < object_header) break;  // the tail is free space
    read(at + p, buf, object_header);
    const std::uint64_t index = decodeLE(buf, 2);
    const std::uint64_t object_size = decodeLE(buf + 8, length_size);
    std::uint64_t need = object_size;
    if (index > 0) {
      const std::uint64_t aligned = object_size > UINT64_MAX - 7 ? 0 : (object_size + 7) / 8 * 8;
      need = aligned == 0 && object_size != 0 ? UINT64_MAX : object_header + aligned;
    }
    if (need == 0 || need > size - p)
      return Status::Error(name + ": corrupt HDF5 file: the global heap collection at byte " + std::to_string(at) +
                           " declares an object of " + std::to_string(object_size) + " bytes at byte " +
                           std::to_string(at + p) + " (" + std::to_string(size - p) + " bytes left in the collection)");
    p += need;
  }
  return Status::Ok();
}

Status checkGlobalHeaps(const ReadAt& read, std::uint64_t file_size, const std::string& name) {
  const std::size_t length_size = lengthSize(read, file_size);
  if (length_size == 0) return Status::Ok();
  if (length_size < 2 || length_size > 8)
    return Status::Error(name + ": HDF5 file with " + std::to_string(length_size) +
                         "-byte lengths; 2 to 8 are supported");
  // Collections are found by their signature, in blocks that overlap by 3
  // bytes so that none is split.
  constexpr std::size_t kBlock = 1 << 20;
  std::vector<unsigned char> block(kBlock + 3);
  for (std::uint64_t start = 0; start < file_size; start += kBlock) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock + 3, file_size - start));
    read(start, block.data(), n);
    for (const unsigned char* hit = block.data(), *end = block.data() + n;
         (hit = static_cast<const unsigned char*>(memmem(hit, static_cast<std::size_t>(end - hit), "GCOL", 4)));
         ++hit) {
      const auto i = static_cast<std::size_t>(hit - block.data());
      if (i >= kBlock) break;  // the next block starts with it
      GDS_RETURN_IF_ERROR(checkHeapAt(read, start + i, length_size, name));
    }
  }
  return Status::Ok();
}

Status checkGlobalHeapsInImage(const std::string& bytes, const std::string& name) {
  const ReadAt read = [&](std::uint64_t at, unsigned char* out, std::size_t n) {
    const std::size_t have = at < bytes.size() ? std::min<std::size_t>(n, bytes.size() - at) : 0;
    if (have) std::memcpy(out, bytes.data() + at, have);
    std::memset(out + have, 0, n - have);
  };
  return checkGlobalHeaps(read, bytes.size(), name);
}

Status checkGlobalHeapsInFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Ok();  // the library's open says what is wrong
  const off_t end = ::lseek(fd, 0, SEEK_END);
  const ReadAt read = [&](std::uint64_t at, unsigned char* out, std::size_t n) {
    std::size_t have = 0;
    while (have < n) {
      const ssize_t got = ::pread(fd, out + have, n - have, static_cast<off_t>(at + have));
      if (got <= 0) break;
      have += static_cast<std::size_t>(got);
    }
    std::memset(out + have, 0, n - have);
  };
  Status status = end > 0 ? checkGlobalHeaps(read, static_cast<std::uint64_t>(end), path) : Status::Ok();
  ::close(fd);
  return status;
}

}  // namespace

static_assert(sizeof(hid_t) == sizeof(std::int64_t), "hid_t passes as std::int64_t");

Result<Hdf5File> Hdf5File::open(const std::string& file_name, std::int64_t fapl, const std::string& name) {
  Handle file(H5Fopen(file_name.c_str(), H5F_ACC_RDONLY, static_cast<hid_t>(fapl)));
  if (!file.ok()) return Status::Error(name + ": not a valid HDF5 file (corrupt or truncated)");
  Hdf5File out;
  out.name_ = name;
  out.impl_ = std::make_unique<Impl>();
  out.impl_->file = std::move(file);
  return out;
}

Result<Hdf5File> Hdf5File::openFile(const std::string& path) {
  GDS_RETURN_IF_ERROR(checkGlobalHeapsInFile(path));
  std::lock_guard<std::recursive_mutex> lock(hdf5Lock());
  Handle fapl = strongCloseAccess();
  return open(path, fapl.get(), path);
}

Result<Hdf5File> Hdf5File::openImage(const std::string& bytes, const std::string& name) {
  // The core driver keeps its own copy of the image.
  GDS_RETURN_IF_ERROR(checkBytes(static_cast<std::int64_t>(bytes.size()), name));
  GDS_RETURN_IF_ERROR(checkGlobalHeapsInImage(bytes, name));
  std::lock_guard<std::recursive_mutex> lock(hdf5Lock());
  Handle fapl = strongCloseAccess();
  if (H5Pset_fapl_core(fapl.get(), 1 << 16, 0) < 0 ||
      H5Pset_file_image(fapl.get(), const_cast<char*>(bytes.data()), bytes.size()) < 0)
    return Status::Error(name + ": cannot load the HDF5 image");
  // Core-driver files are told apart by name while open.
  static std::atomic<unsigned> serial{0};
  return open("gds-keras-image-" + std::to_string(serial++), fapl.get(), name);
}

bool Hdf5File::isGroup(const std::string& path) const {
  std::lock_guard<std::recursive_mutex> lock(hdf5Lock());
  silenceLibrary();
  Handle obj = impl_->openObject(path);
  return obj.ok() && H5Iget_type(obj.get()) == H5I_GROUP;
}

bool Hdf5File::isDataset(const std::string& path) const {
  std::lock_guard<std::recursive_mutex> lock(hdf5Lock());
  silenceLibrary();
  Handle obj = impl_->openObject(path);
  return obj.ok() && H5Iget_type(obj.get()) == H5I_DATASET;
}

Result<std::vector<std::string>> Hdf5File::children(const std::string& group) const {
  std::lock_guard<std::recursive_mutex> lock(hdf5Lock());
  silenceLibrary();
  Handle obj = impl_->openObject(group);
  if (!obj.ok() || H5Iget_type(obj.get()) != H5I_GROUP)
    return Status::Error(name_ + ": no group /" + group);
  H5G_info_t info;
  if (H5Gget_info(obj.get(), &info) < 0) return Status::Error(name_ + ": group /" + group + " cannot be read");
  if (info.nlinks > kMaxAttrElements)
    return Status::Error(name_ + ": group /" + group + " declares " + std::to_string(info.nlinks) + " members");
  std::vector<std::string> names;
  auto visit = [](hid_t, const char* n, const H5L_info_t* li, void* data) -> herr_t {
    if (li->type == H5L_TYPE_HARD) static_cast<std::vector<std::string>*>(data)->push_back(n);
    return 0;
  };
  hsize_t idx = 0;
  if (H5Literate(obj.get(), H5_INDEX_NAME, H5_ITER_INC, &idx, visit, &names) < 0)
    return Status::Error(name_ + ": the members of group /" + group + " cannot be listed");
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

// Reads every element of a string attribute.
Result<std::vector<std::string>> readStrings(hid_t attr, const std::string& what) {
  Handle type(H5Aget_type(attr));
  Handle space(H5Aget_space(attr));
  if (!type.ok() || !space.ok()) return Status::Error(what + " cannot be read");
  if (H5Tget_class(type.get()) != H5T_STRING) return Status::Error(what + " is not a string");
  const hssize_t points = H5Sget_simple_extent_npoints(space.get());
  if (points < 0 || static_cast<hsize_t>(points) > kMaxAttrElements)
    return Status::Error(what + " declares " + std::to_string(points) + " strings");
  const auto n = static_cast<std::size_t>(points);
  std::vector<std::string> out;
  if (H5Tis_variable_str(type.get()) > 0) {
    Handle mem(H5Tcopy(H5T_C_S1));
    H5Tset_size(mem.get(), H5T_VARIABLE);
    H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
    std::vector<char*> ptrs(n, nullptr);
    if (n > 0 && H5Aread(attr, mem.get(), ptrs.data()) < 0) {
      // A read that fails part-way has allocated the strings before the
      // failure (null pointers are skipped).
      H5Dvlen_reclaim(mem.get(), space.get(), H5P_DEFAULT, ptrs.data());
      return Status::Error(what + " cannot be read");
    }
    std::int64_t total = 0;
    for (char* p : ptrs) {
      std::string s = p ? std::string(p) : std::string();
      total += static_cast<std::int64_t>(s.size());
      out.push_back(std::move(s));
    }
    if (n > 0) H5Dvlen_reclaim(mem.get(), space.get(), H5P_DEFAULT, ptrs.data());
    if (total > kMaxStringBytes) return Status::Error(what + " holds more than " + formatBytes(kMaxStringBytes));
    return out;
  }
  const std::size_t size = H5Tget_size(type.get());
  if (size == 0) return Status::Error(what + " has no size");
  const auto total = static_cast<std::int64_t>(size) * static_cast<std::int64_t>(n);
  if (size > static_cast<std::size_t>(kMaxStringBytes) || total > kMaxStringBytes)
    return Status::Error(what + " declares " + std::to_string(n) + " strings of " + std::to_string(size) + " bytes");
  GDS_RETURN_IF_ERROR(checkBytes(total, what));
  Handle mem(H5Tcopy(H5T_C_S1));
  H5Tset_size(mem.get(), size);
  H5Tset_strpad(mem.get(), H5T_STR_NULLPAD);
  std::string buffer(static_cast<std::size_t>(total), '\0');
  if (n > 0 && H5Aread(attr, mem.get(), buffer.data()) < 0) return Status::Error(what + " cannot be read");
  for (std::size_t i = 0; i < n; ++i) {
    const char* p = buffer.data() + i * size;
    out.emplace_back(p, strnlen(p, size));
  }
  return out;
}

Result<std::optional<std::vector<std::string>>> attrStrings(const Handle& obj, const std::string& attr,
                                                            const std::string& what) {
  const htri_t exists = H5Aexists(obj.get(), attr.c_str());
  if (exists <= 0) return std::optional<std::vector<std::string>>();
  Handle a(H5Aopen(obj.get(), attr.c_str(), H5P_DEFAULT));
  if (!a.ok()) return Status::Error(what + " cannot be opened");
  auto strings = readStrings(a.get(), what);
  if (!strings.ok()) return strings.status();
  return std::optional<std::vector<std::string>>(std::move(strings).value());
}

}  // namespace

Result<std::optional<std::string>> Hdf5File::stringAttr(const std::string& object, const std::string& attr) const {
  std::lock_guard<std::recursive_mutex> lock(hdf5Lock());
  silenceLibrary();
  const std::string what = name_ + ": attribute " + attr + " of /" + object;
  Handle obj = impl_->openObject(object);
  if (!obj.ok()) return Status::Error(name_ + ": no object /" + object);
  auto strings = attrStrings(obj, attr, what);
  if (!strings.ok()) return strings.status();
  if (!strings->has_value()) return std::optional<std::string>();
  if ((*strings)->size() != 1)
    return Status::Error(what + " holds " + std::to_string((*strings)->size()) + " strings, expected one");
  return std::optional<std::string>((**strings)[0]);
}

Result<std::optional<std::vector<std::string>>> Hdf5File::stringListAttr(const std::string& object,
                                                                         const std::string& attr) const {
  std::lock_guard<std::recursive_mutex> lock(hdf5Lock());
  silenceLibrary();
  const std::string what = name_ + ": attribute " + attr + " of /" + object;
  Handle obj = impl_->openObject(object);
  if (!obj.ok()) return Status::Error(name_ + ": no object /" + object);
  auto whole = attrStrings(obj, attr, what);
  if (!whole.ok() || whole->has_value()) return whole;
  // Keras' save_attributes_to_hdf5_group splits a long list into attr0, attr1, ...
  std::vector<std::string> joined;
  bool any = false;
  for (std::size_t chunk = 0; chunk < kMaxAttrElements; ++chunk) {
    auto part = attrStrings(obj, attr + std::to_string(chunk), what + std::to_string(chunk));
    if (!part.ok()) return part.status();
    if (!part->has_value()) break;
    any = true;
    if (joined.size() + (*part)->size() > kMaxAttrElements)
      return Status::Error(what + " holds more than " + std::to_string(kMaxAttrElements) + " strings");
    joined.insert(joined.end(), (*part)->begin(), (*part)->end());
  }
  if (!any) return std::optional<std::vector<std::string>>();
  return std::optional<std::vector<std::string>>(std::move(joined));
}

namespace {

Result<Shape> spaceShape(hid_t space, const std::string& what) {
  const H5S_class_t kind = H5Sget_simple_extent_type(space);
  if (kind == H5S_SCALAR) return Shape{};
  if (kind != H5S_SIMPLE) return Status::Error(what + " holds no data (null dataspace)");
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank < 0 || rank > kMaxRank) return Status::Error(what + " has rank " + std::to_string(rank));
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (rank > 0 && H5Sget_simple_extent_dims(space, dims.data(), nullptr) < 0)
    return Status::Error(what + ": its dimensions cannot be read");
  Shape shape;
  for (hsize_t d : dims) {
    if (d > static_cast<hsize_t>(std::numeric_limits<std::int64_t>::max()))
      return Status::Error(what + " has a dimension of " + std::to_string(d));
    shape.push_back(static_cast<std::int64_t>(d));
  }
  return shape;
}

// Keras 3 writes bfloat16 values as 2-byte opaque data with dtype="bfloat16".
bool isBfloat16(hid_t dataset, hid_t type) {
  if (H5Tget_class(type) != H5T_OPAQUE || H5Tget_size(type) != 2) return false;
  if (H5Aexists(dataset, "dtype") <= 0) return false;
  Handle a(H5Aopen(dataset, "dtype", H5P_DEFAULT));
  auto s = readStrings(a.get(), "dtype");
  return s.ok() && s->size() == 1 && (*s)[0] == "bfloat16";
}

// Only data stored in this file: no external raw-data files, no virtual
// datasets mapping other files.
Status checkLocalStorage(hid_t dataset, const std::string& what) {
  Handle dcpl(H5Dget_create_plist(dataset));
  if (!dcpl.ok()) return Status::Error(what + ": its storage properties cannot be read");
  const H5D_layout_t layout = H5Pget_layout(dcpl.get());
  if (layout != H5D_COMPACT && layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED)
    return Status::Error(what + " is not stored in the file (virtual or unknown layout)");
  if (H5Pget_external_count(dcpl.get()) != 0) return Status::Error(what + " is stored in external files");
  H5D_space_status_t status;
  if (H5Dget_space_status(dataset, &status) < 0 || status == H5D_SPACE_STATUS_NOT_ALLOCATED)
    return Status::Error(what + " holds no data (its storage was never written)");
  return Status::Ok();
}

}  // namespace

Result<Shape> Hdf5File::datasetShape(const std::string& path) const {
  std::lock_guard<std::recursive_mutex> lock(hdf5Lock());
  silenceLibrary();
  const std::string what = name_ + ": dataset /" + path;
  Handle obj = impl_->openObject(path);
  if (!obj.ok() || H5Iget_type(obj.get()) != H5I_DATASET) return Status::Error(what + " is missing");
  Handle space(H5Dget_space(obj.get()));
  if (!space.ok()) return Status::Error(what + ": its dataspace cannot be read");
  return spaceShape(space.get(), what);
}

Result<HostTensor> Hdf5File::readDataset(const std::string& path) const {
  std::lock_guard<std::recursive_mutex> lock(hdf5Lock());
  silenceLibrary();
  const std::string what = name_ + ": dataset /" + path;
  Handle obj = impl_->openObject(path);
  if (!obj.ok() || H5Iget_type(obj.get()) != H5I_DATASET) return Status::Error(what + " is missing");
  Handle space(H5Dget_space(obj.get()));
  Handle type(H5Dget_type(obj.get()));
  if (!space.ok() || !type.ok()) return Status::Error(what + " cannot be read");
  auto shape = spaceShape(space.get(), what);
  if (!shape.ok()) return shape.status();
  GDS_RETURN_IF_ERROR(checkLocalStorage(obj.get(), what));
  HostTensor t;
  t.shape = *shape;
  auto elements = checkedElements(t.shape.data(), t.shape.size(), 8, what);
  if (!elements.ok()) return elements.status();
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls == H5T_FLOAT || cls == H5T_INTEGER) {
    // Read converted by the library: floats of any width as float32, integers as int64.
    const bool is_float = cls == H5T_FLOAT;
    t.dtype = is_float ? tensorflow::DT_FLOAT : tensorflow::DT_INT64;
    t.data.resize(static_cast<std::size_t>(*elements) * (is_float ? 4 : 8));
    if (*elements > 0 && H5Dread(obj.get(), is_float ? H5T_NATIVE_FLOAT : H5T_NATIVE_INT64, H5S_ALL, H5S_ALL,
                                 H5P_DEFAULT, t.data.data()) < 0)
      return Status::Error(what + ": its data cannot be read (corrupt or truncated file)");
    return t;
  }
  if (isBfloat16(obj.get(), type.get())) {
    std::vector<std::uint16_t> raw(static_cast<std::size_t>(*elements));
    if (*elements > 0 && H5Dread(obj.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data()) < 0)
      return Status::Error(what + ": its data cannot be read (corrupt or truncated file)");
    t.dtype = tensorflow::DT_FLOAT;
    t.data.resize(raw.size() * 4);
    for (std::size_t i = 0; i < raw.size(); ++i) t.as<float>()[i] = bfloat16ToFloat(raw[i]);
    return t;
  }
  return Status::Error(what + " is not numeric (HDF5 type class " + std::to_string(static_cast<int>(cls)) + ")");
}

}  // namespace gds::model::keras
