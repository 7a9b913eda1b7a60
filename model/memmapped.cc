#include "model/memmapped.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_set>

#include <google/protobuf/io/coded_stream.h>

#include "model/attr.h"
#include "model/file_io.h"
#include "model/tensor.h"
#include "checkpoint.pb.h"

namespace gds::model {

namespace {

// TF_CALL_POD_TYPES: the dtypes ImmutableConst can hold.
bool isPod(tensorflow::DataType t) {
  return t >= tensorflow::DT_FLOAT && t <= tensorflow::DT_UINT64 && t != tensorflow::DT_STRING &&
         t != tensorflow::DT_RESOURCE && t != tensorflow::DT_VARIANT && dtypeSize(t) > 0;
}

std::string sanitize(const std::string& name) {
  std::string out;
  for (char c : name) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    out += ok ? c : '_';
  }
  return out;
}

void putFixed64(std::string* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

struct Registry {
  std::mutex mu;
  std::map<std::string, std::weak_ptr<MemmappedFile>> regions;
};
Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

Result<MemmappedWriteResult> writeMemmapped(const tensorflow::GraphDef& graph, const std::string& path,
                                            std::int64_t min_conversion_size_bytes) {
  MemmappedWriteResult result;
  tensorflow::GraphDef out = graph;
  tensorflow::MemmappedFileSystemDirectory directory;
  std::string file;
  std::unordered_set<std::string> used;
  for (auto& node : *out.mutable_node()) {
    if (node.op() != "Const") continue;
    const auto* value = findAttr(node, "value");
    if (!value || !value->has_tensor()) continue;
    const auto& proto = value->tensor();
    const tensorflow::DataType dtype = proto.dtype();
    if (!isPod(dtype)) continue;
    auto tensor = decodeTensor(proto);
    if (!tensor.ok()) return tensor.status().withContext("Const '" + node.name() + "'");
    const auto bytes = static_cast<std::int64_t>(tensor->data.size());
    if (bytes == 0 || bytes < min_conversion_size_bytes) continue;
    std::string region = sanitize(node.name());
    while (!used.insert(region).second) region += '_';
    region = kMemmappedPackagePrefix + region;
    // Pad so the region starts on the allocator alignment once mapped.
    std::uint64_t rest = file.size() % kMemmappedAlignment;
    if (rest) file.append(kMemmappedAlignment - rest, '\0');
    auto* element = directory.add_element();
    element->set_offset(file.size());
    element->set_name(region);
    element->set_length(static_cast<std::uint64_t>(bytes));
    file.append(reinterpret_cast<const char*>(tensor->data.data()), tensor->data.size());
    tensorflow::TensorShapeProto shape = proto.tensor_shape();
    node.set_op("ImmutableConst");
    node.mutable_attr()->clear();
    (*node.mutable_attr())["dtype"].set_type(dtype);
    *(*node.mutable_attr())["shape"].mutable_shape() = shape;
    (*node.mutable_attr())["memory_region_name"].set_s(region);
    ++result.converted;
    result.region_bytes += bytes;
  }
  std::string graph_bytes = serialize(out);
  auto* element = directory.add_element();
  element->set_offset(file.size());
  element->set_name(kMemmappedGraphDefName);
  element->set_length(graph_bytes.size());
  file += graph_bytes;
  std::uint64_t directory_offset = file.size();
  file += serialize(directory);
  putFixed64(&file, directory_offset);
  result.file_bytes = static_cast<std::int64_t>(file.size());
  GDS_RETURN_IF_ERROR(writeFileAtomic(path, file));
  return result;
}

MemmappedFile::~MemmappedFile() {
  if (base_) ::munmap(base_, size_);
}

Result<std::shared_ptr<MemmappedFile>> MemmappedFile::open(const std::string& path) {
  std::shared_ptr<MemmappedFile> f(new MemmappedFile());
  f->path_ = path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::Error(path + ": no such file");
    return Status::Error(path + ": cannot open (" + std::strerror(errno) + ")");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return Status::Error(path + ": cannot read size");
  }
  f->size_ = static_cast<std::uint64_t>(st.st_size);
  if (f->size_ < 8) {
    ::close(fd);
    return Status::Error(path + ": not a memmapped model (" + std::to_string(f->size_) + " bytes)");
  }
  void* base = ::mmap(nullptr, f->size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (base == MAP_FAILED) return Status::Error(path + ": cannot map (" + std::strerror(errno) + ")");
  f->base_ = base;
  const char* bytes = static_cast<const char*>(base);
  std::uint64_t directory_offset = 0;
  for (int i = 0; i < 8; ++i)
    directory_offset |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(bytes[f->size_ - 8 + i])) << (8 * i);
  tensorflow::MemmappedFileSystemDirectory directory;
  if (directory_offset > f->size_ - 8 ||
      !directory.ParseFromArray(bytes + directory_offset, static_cast<int>(f->size_ - 8 - directory_offset)) ||
      directory.element_size() == 0)
    return Status::Error(path + ": not a memmapped model (no region directory at its end)");
  int graph_index = -1;
  for (int i = 0; i < directory.element_size(); ++i) {
    const auto& e = directory.element(i);
    // Older writers leave length out: a region runs to the next one.
    std::uint64_t end = i + 1 < directory.element_size() ? directory.element(i + 1).offset() : directory_offset;
    std::uint64_t length = e.length() ? e.length() : end - e.offset();
    if (e.offset() > directory_offset || length > directory_offset - e.offset() || end < e.offset())
      return Status::Error(path + ": corrupt memmapped directory: region '" + e.name() + "' lies outside the file");
    f->regions_.push_back({e.name(), e.offset(), length});
    if (e.name() == kMemmappedGraphDefName) graph_index = i;
  }
  if (graph_index < 0) return Status::Error(path + ": memmapped package holds no GraphDef ('" +
                                           std::string(kMemmappedGraphDefName) + "')");
  const Region& g = f->regions_[static_cast<size_t>(graph_index)];
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const std::uint8_t*>(bytes + g.offset),
                                                static_cast<int>(std::min<std::uint64_t>(g.length, INT_MAX)));
  stream.SetTotalBytesLimit(INT_MAX);
  if (!f->graph_.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
    return Status::Error(path + ": corrupt memmapped package: its GraphDef cannot be parsed");
  // The GraphDef and the directory now live on the heap. Reading them mapped
  // their pages, and the kernel maps whole cached folios around a fault, so
  // weight pages near them became resident too: drop the process's pages of
  // the whole (read-only, never written, so clean) mapping. Nothing is lost;
  // a run's first touch of a weight maps it again from the page cache.
  ::madvise(base, f->size_, MADV_DONTNEED);
  {
    std::lock_guard<std::mutex> lock(registry().mu);
    for (const auto& r : f->regions_)
      if (r.name != kMemmappedGraphDefName) registry().regions[r.name] = f;
  }
  return f;
}

const void* MemmappedFile::regionData(const std::string& name, std::uint64_t* length) const {
  for (const auto& r : regions_)
    if (r.name == name) {
      if (length) *length = r.length;
      return static_cast<const char*>(base_) + r.offset;
    }
  return nullptr;
}

bool isMemmappedFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  bool ok = false;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 8) {
    std::uint64_t size = static_cast<std::uint64_t>(st.st_size), offset = 0;
    unsigned char tail[8];
    if (::pread(fd, tail, 8, static_cast<off_t>(size - 8)) == 8) {
      for (int i = 0; i < 8; ++i) offset |= static_cast<std::uint64_t>(tail[i]) << (8 * i);
      if (offset < size - 8 && size - 8 - offset < (64u << 20)) {
        std::string dir(static_cast<size_t>(size - 8 - offset), '\0');
        tensorflow::MemmappedFileSystemDirectory directory;
        if (::pread(fd, dir.data(), dir.size(), static_cast<off_t>(offset)) == static_cast<ssize_t>(dir.size()) &&
            directory.ParseFromString(dir) && directory.element_size() > 0)
          for (const auto& e : directory.element())
            if (e.name() == kMemmappedGraphDefName) ok = true;
      }
    }
  }
  ::close(fd);
  return ok;
}

Result<MemoryRegion> findMemoryRegion(const std::string& name) {
  std::shared_ptr<MemmappedFile> file;
  {
    std::lock_guard<std::mutex> lock(registry().mu);
    auto it = registry().regions.find(name);
    if (it != registry().regions.end()) file = it->second.lock();
  }
  if (!file)
    return Status::Error("memory region '" + name + "' is not in any open memmapped model (open the file with "
                         "MemmappedFile::open before running its graph)");
  MemoryRegion region;
  region.data = file->regionData(name, &region.length);
  region.owner = std::shared_ptr<const void>(file, region.data);
  return region;
}

}  // namespace gds::model
