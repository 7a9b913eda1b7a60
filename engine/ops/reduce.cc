#include "engine/ops/reduce.h"

#include <utility>

#include "model/tensor.h"

namespace gds::engine::ops {

Status planReduce(const Dims& in, const std::vector<std::int64_t>& axes, bool keep_dims, ReducePlan* p,
                  std::string* err) {
  const std::int64_t rank = static_cast<std::int64_t>(in.size());
  p->reduced.assign(in.size(), false);
  for (std::int64_t a : axes) {
    if (a < -rank || a >= rank) {
      *err = "reduction axis " + std::to_string(a) + " is out of range for input shape " + model::shapeString(in);
      return Status::Error(*err);
    }
    const std::int64_t n = a < 0 ? a + rank : a;
    p->reduced[static_cast<std::size_t>(n)] = true;
  }
  p->out_shape.clear();
  p->count = 1;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (p->reduced[i]) {
      p->count *= in[i];
      if (keep_dims) p->out_shape.push_back(1);
    } else {
      p->out_shape.push_back(in[i]);
    }
  }
  // Segments ignoring size-1 dims.
  std::vector<std::pair<bool, std::int64_t>> seg;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == 1) continue;
    if (!seg.empty() && seg.back().first == p->reduced[i]) seg.back().second *= in[i];
    else seg.push_back({p->reduced[i], in[i]});
  }
  p->outer = p->reduce = p->inner = 1;
  std::size_t k = 0;
  if (k < seg.size() && !seg[k].first) p->outer = seg[k++].second;
  if (k < seg.size() && seg[k].first) p->reduce = seg[k++].second;
  if (k < seg.size() && !seg[k].first) p->inner = seg[k++].second;
  p->simple = k == seg.size();
  return Status::Ok();
}

}  // namespace gds::engine::ops
