#include "engine/dnnl_common.h"

#ifdef GDS_HAVE_DNNL
#include <cstdint>
#include <vector>

extern "C" void omp_set_num_threads(int);

namespace gds::engine::dnnl_common {

dnnl::engine& cpuEngine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& threadStream() {
  thread_local dnnl::stream stream(cpuEngine());
  return stream;
}

void singleThreaded() { omp_set_num_threads(1); }

dnnl::primitive_attr baseAttr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

char* threadScratch(std::size_t bytes) {
  thread_local std::vector<char> scratch;
  if (scratch.size() < bytes + 64) scratch.resize(bytes + 64);
  return reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(scratch.data()) + 63) / 64 * 64);
}

}  // namespace gds::engine::dnnl_common
#endif
