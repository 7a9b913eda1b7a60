// Registers every built-in kernel family. Each family lives in its own file
// under engine/kernels/ and exposes one register function declared here.
#include "engine/kernel.h"

namespace gds::engine {

// Declarations of the family register functions (one line per family file).

void registerBuiltinKernels(KernelRegistry& registry) {
  (void)registry;
  // One call per family file.
}

}  // namespace gds::engine
