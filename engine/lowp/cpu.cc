#include "engine/lowp/cpu.h"

#include "engine/cpu_features.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GDS_HAVE_AVX2_PATH 1
#endif

namespace gds::engine::lowp {

bool cpuHasAvx2() {
#ifdef GDS_HAVE_AVX2_PATH
  return cpuFeatures().avx2;
#else
  return false;
#endif
}

bool cpuHasAvx512() {
#ifdef GDS_HAVE_AVX2_PATH
  return cpuFeatures().avx512;
#else
  return false;
#endif
}

}  // namespace gds::engine::lowp
