// Runs a reader in a child process, for file formats whose only reader is a
// library that may crash or loop on a damaged file (HDF5 1.10: heap
// overflows and endless loops on crafted object headers and heaps). The
// child does the work and sends back bytes; a crash, a sanitizer report or
// a deadline passed ends the child, and the caller gets an error naming the
// file instead of a dead or stuck program.
//
//   auto bytes = runIsolated("model.h5", 120, [&]() -> Result<std::string> { return readAll(path); });
//
// POSIX fork: the child is a copy of the calling thread only. `work` must not
// wait for other threads (their locks may be held forever in the child).
// Whatever the child prints on standard error goes where the parent's does.
#pragma once

#include <functional>
#include <string>

#include "model/status.h"

namespace gds::model {

// `what` names the file in errors. `deadline_s`: the child is killed when it
// has not finished by then.
Result<std::string> runIsolated(const std::string& what, double deadline_s,
                                const std::function<Result<std::string>()>& work);

}  // namespace gds::model
