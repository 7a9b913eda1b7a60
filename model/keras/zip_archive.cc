#include "model/keras/zip_archive.h"

#include <zip.h>

#include <algorithm>
#include <limits>

#include "model/memory_budget.h"

namespace gds::model::keras {

namespace {

// More members than any model archive holds (a .keras file has three, plus
// its assets); a central directory claiming more is refused before listing.
constexpr std::int64_t kMaxMembers = 100000;

}  // namespace

struct ZipArchive::Impl {
  std::string bytes;  // the archive; libzip reads it in place
  zip_t* archive = nullptr;
  ~Impl() {
    if (archive) zip_discard(archive);
  }
};

ZipArchive::ZipArchive(ZipArchive&&) noexcept = default;
ZipArchive& ZipArchive::operator=(ZipArchive&&) noexcept = default;
ZipArchive::~ZipArchive() = default;

bool looksLikeZip(const std::string& header) {
  return header.size() >= 4 && header.compare(0, 4, "PK\x03\x04", 4) == 0;
}

Result<ZipArchive> ZipArchive::open(std::string bytes, const std::string& name) {
  ZipArchive out;
  out.name_ = name;
  out.impl_ = std::make_unique<Impl>();
  out.impl_->bytes = std::move(bytes);
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(out.impl_->bytes.data(), out.impl_->bytes.size(), 0, &error);
  if (!source) {
    std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    return Status::Error(name + ": cannot read the zip archive (" + text + ")");
  }
  out.impl_->archive = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (!out.impl_->archive) {
    zip_source_free(source);
    std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    return Status::Error(name + ": not a valid zip archive (" + text + ")");
  }
  zip_error_fini(&error);
  const zip_int64_t count = zip_get_num_entries(out.impl_->archive, 0);
  if (count < 0 || count > kMaxMembers)
    return Status::Error(name + ": the zip archive declares " + std::to_string(count) + " members (at most " +
                         std::to_string(kMaxMembers) + " are read)");
  for (zip_int64_t i = 0; i < count; ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(out.impl_->archive, static_cast<zip_uint64_t>(i), 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME))
      return Status::Error(name + ": member " + std::to_string(i) + " of the zip archive cannot be read (" +
                           zip_strerror(out.impl_->archive) + ")");
    Member m;
    m.name = st.name;
    m.size = (st.valid & ZIP_STAT_SIZE) ? st.size : 0;
    m.compressed_size = (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : 0;
    out.members_.push_back(std::move(m));
  }
  return out;
}

const ZipArchive::Member* ZipArchive::find(const std::string& member) const {
  for (const auto& m : members_)
    if (m.name == member) return &m;
  return nullptr;
}

Result<std::string> ZipArchive::read(const std::string& member) const {
  const std::string what = name_ + ": member " + member;
  const auto it = std::find_if(members_.begin(), members_.end(), [&](const Member& m) { return m.name == member; });
  if (it == members_.end()) return Status::Error(what + " is missing from the archive");
  if (it->size > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return Status::Error(what + " declares " + std::to_string(it->size) + " bytes");
  GDS_RETURN_IF_ERROR(checkBytes(static_cast<std::int64_t>(it->size), what));
  const auto index = static_cast<zip_uint64_t>(it - members_.begin());
  zip_file_t* file = zip_fopen_index(impl_->archive, index, 0);
  if (!file) return Status::Error(what + " cannot be opened (" + zip_strerror(impl_->archive) + ")");
  std::string out(static_cast<std::size_t>(it->size), '\0');
  std::size_t done = 0;
  std::string failure;
  while (done < out.size()) {
    const zip_int64_t n = zip_fread(file, out.data() + done, out.size() - done);
    if (n < 0) {
      failure = zip_file_strerror(file);
      break;
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  // One more read reaches the end of the member, where libzip checks its CRC.
  char extra = 0;
  if (failure.empty() && done == out.size() && zip_fread(file, &extra, 1) < 0) failure = zip_file_strerror(file);
  zip_fclose(file);
  if (!failure.empty()) return Status::Error(what + " is corrupt (" + failure + ")");
  if (done != out.size())
    return Status::Error(what + " is truncated: " + std::to_string(done) + " of " + std::to_string(out.size()) +
                         " bytes");
  return out;
}

}  // namespace gds::model::keras
