// Host evaluation of small float constant expressions (Const, Identity,
// elementwise arithmetic with scalar broadcasting, Rsqrt/Sqrt/Reciprocal).
// fold_batch_norms uses it to read batch-norm parameters that are still
// written as Mul/Add/Rsqrt/Sub arithmetic of Consts, as older slim exports
// contain them when fold_constants has not folded them.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph.pb.h"
#include "model/tensor.h"

namespace gds::transforms {

class ConstExpressionEvaluator {
 public:
  explicit ConstExpressionEvaluator(const tensorflow::GraphDef& graph);
  // The value of output 0 of `node` when it is such an expression (no
  // control inputs anywhere in it), else nullopt.
  std::optional<model::HostTensor> evaluate(const std::string& node);
  // Nodes read by evaluate() so far, other than the roots asked for.
  const std::vector<std::string>& visited() const { return visited_; }

 private:
  std::optional<model::HostTensor> eval(int node, int depth);
  const tensorflow::GraphDef& graph_;
  std::unordered_map<std::string, int> index_;
  std::unordered_map<int, std::optional<model::HostTensor>> memo_;
  std::vector<std::string> visited_;
};

}  // namespace gds::transforms
