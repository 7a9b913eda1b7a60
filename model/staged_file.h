// Safe writes: a file is written to a hidden temporary name beside its
// target (".NAME.tmp.XXXXXX") and renamed over it only when complete, so an
// interrupted or failed write never leaves a partial target.
//
// - The temporary is removed on every error path, when a StagedFile is
//   destroyed uncommitted, and when the process is ended by SIGINT, SIGTERM
//   or SIGHUP (a handler unlinks every live temporary, then lets the signal
//   take its default course).
// - The target keeps its permission bits (and, where allowed, its owner); a
//   new file gets 0666 less the umask, as open(2) would give it.
// - A read-only target (no write permission for us) is not replaced.
// - A symbolic link is followed: the file it names is replaced, the link stays.
// - FIFOs and character devices (/dev/stdout, a named pipe) are written
//   directly: renaming over them would replace the device or pipe by a
//   regular file, and what a reader of the pipe asked for is the bytes.
//   Anything else that is not a regular file (a folder, a block device, a
//   socket) is refused.
#pragma once

#include <string>

#include "model/status.h"

namespace gds::model {

class StagedFile {
 public:
  // Writes `bytes` to a temporary beside `path` (or, for a FIFO or character
  // device, checks that it can be opened). Errors name `path`.
  static Result<StagedFile> create(const std::string& path, const std::string& bytes);

  StagedFile(StagedFile&& other) noexcept;
  StagedFile& operator=(StagedFile&& other) noexcept;
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  ~StagedFile();  // removes the temporary unless committed

  // Renames the temporary over the target (or writes the device). Once.
  Status commit();
  // Removes the temporary without touching the target.
  void discard();

  const std::string& path() const { return path_; }

 private:
  StagedFile() = default;
  std::string path_;    // as given, for messages
  std::string target_;  // the file replaced (symbolic links resolved)
  std::string temp_;    // empty for direct writes, or once committed/discarded
  std::string direct_bytes_;
  bool direct_ = false;
  int slot_ = -1;  // in the signal handler's table of live temporaries
};

}  // namespace gds::model
