#include "engine/ops/broadcast.h"

#include <algorithm>

namespace gds::engine::ops {

bool broadcastShapes(const Dims& a, const Dims& b, Dims* out) {
  std::size_t r = std::max(a.size(), b.size());
  out->assign(r, 1);
  for (std::size_t i = 0; i < r; ++i) {
    std::int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    std::int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    std::int64_t d;
    if (da == db) d = da;
    else if (da == 1) d = db;
    else if (db == 1) d = da;
    else if (da < 0) d = db;
    else if (db < 0) d = da;
    else return false;
    (*out)[i] = d;
  }
  return true;
}

bool makeBroadcastPlan(const Dims& a, const Dims& b, BroadcastPlan* p) {
  if (!broadcastShapes(a, b, &p->out)) return false;
  std::size_t r = p->out.size();
  std::vector<std::int64_t> da(r, 1), db(r, 1);
  for (std::size_t i = 0; i < a.size(); ++i) da[r - a.size() + i] = a[i];
  for (std::size_t i = 0; i < b.size(); ++i) db[r - b.size() + i] = b[i];
  // Collapse adjacent dims with the same broadcast pattern.
  std::vector<std::int64_t> dims;
  std::vector<int> pat;  // bit0: a broadcast, bit1: b broadcast
  for (std::size_t i = 0; i < r; ++i) {
    if (p->out[i] == 1) continue;
    int pt = (da[i] == 1 ? 1 : 0) | (db[i] == 1 ? 2 : 0);
    if (!dims.empty() && pat.back() == pt) dims.back() *= p->out[i];
    else {
      dims.push_back(p->out[i]);
      pat.push_back(pt);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    pat.push_back(0);
  }
  p->dims = dims;
  p->sa.assign(dims.size(), 0);
  p->sb.assign(dims.size(), 0);
  std::int64_t stride_a = 1, stride_b = 1;
  for (std::size_t i = dims.size(); i-- > 0;) {
    if (!(pat[i] & 1)) {
      p->sa[i] = stride_a;
      stride_a *= dims[i];
    }
    if (!(pat[i] & 2)) {
      p->sb[i] = stride_b;
      stride_b *= dims[i];
    }
  }
  return true;
}

}  // namespace gds::engine::ops
