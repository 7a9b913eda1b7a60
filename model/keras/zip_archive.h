// Reading members of a zip archive (a Keras .keras file) with libzip. Every
// size comes from the archive's central directory and is checked against
// the memory budget (model/memory_budget.h) and a per-archive limit before
// anything is allocated; a member whose data ends early or fails its CRC is
// an error naming the archive and the member.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/status.h"

namespace gds::model::keras {

class ZipArchive {
 public:
  struct Member {
    std::string name;
    std::uint64_t size = 0;             // uncompressed
    std::uint64_t compressed_size = 0;
  };

  // `bytes` is the whole archive, `name` the file it came from (for errors).
  static Result<ZipArchive> open(std::string bytes, const std::string& name);

  ZipArchive(ZipArchive&&) noexcept;
  ZipArchive& operator=(ZipArchive&&) noexcept;
  ~ZipArchive();

  const std::vector<Member>& members() const { return members_; }
  const Member* find(const std::string& member) const;
  // The member's bytes; errors name the archive and the member.
  Result<std::string> read(const std::string& member) const;
  const std::string& name() const { return name_; }

 private:
  ZipArchive() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<Member> members_;
  std::string name_;
};

// True when `header` (the first bytes of a file) starts a zip archive.
bool looksLikeZip(const std::string& header);

}  // namespace gds::model::keras
