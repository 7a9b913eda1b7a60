#include "engine/ops/dnnl_common.h"

#ifdef GDS_HAVE_DNNL
#include <algorithm>
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

void padsAfter(const ops::ConvGeometry& s, std::int64_t* bottom, std::int64_t* right) {
  const std::int64_t eff_h = (s.filter_h - 1) * s.dilation_h + 1, eff_w = (s.filter_w - 1) * s.dilation_w + 1;
  *bottom = std::max<std::int64_t>(0, (s.out_h - 1) * s.stride_h + eff_h - s.in_h - s.pad_top);
  *right = std::max<std::int64_t>(0, (s.out_w - 1) * s.stride_w + eff_w - s.in_w - s.pad_left);
}

void filterLayout(const ops::ConvGeometry& s, bool depthwise, std::int64_t ld, dnnl::memory::dims* dims,
                  dnnl::memory::dims* strides) {
  if (depthwise) {
    const std::int64_t m = s.out_c;
    *dims = {s.in_c, m, 1, s.filter_h, s.filter_w};
    *strides = {m, 1, s.in_c * m, s.filter_w * s.in_c * m, s.in_c * m};
  } else {
    *dims = {s.out_c, s.in_c, s.filter_h, s.filter_w};
    *strides = {1, ld, s.filter_w * s.in_c * ld, s.in_c * ld};
  }
}

char* threadScratch(std::size_t bytes) {
  thread_local std::vector<char> scratch;
  if (scratch.size() < bytes + 64) scratch.resize(bytes + 64);
  return reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(scratch.data()) + 63) / 64 * 64);
}

}  // namespace gds::engine::dnnl_common
#endif
