// The --transforms string grammar of TensorFlow's transform_graph
// (ParseTransformParameters): whitespace-separated transform names
// [A-Za-z0-9_]+, each optionally followed by "(key=value, ...)". Unquoted
// values are [A-Za-z0-9-./_]+; "quoted" values may hold anything but an
// unescaped quote (so shape="1,224,224,3" works). Repeated keys collect lists.
#pragma once

#include <string>
#include <vector>

#include "model/status.h"
#include "transforms/transform.h"

namespace gds::transforms {

struct TransformStep {
  std::string name;
  TransformParams params;
  // Canonical spelling: name(key=value, key="a,b") (values quoted when needed).
  std::string text() const;
};

// Grammar only: any transform name is accepted.
Result<std::vector<TransformStep>> parseTransformString(const std::string& text);

// Checks every step against the registry: unknown transform names and
// parameters are errors listing the valid names; ignore_errors must be
// true or false.
Status validateSteps(const std::vector<TransformStep>& steps, const TransformRegistry& registry);

// parseTransformString + validateSteps.
Result<std::vector<TransformStep>> parseTransforms(const std::string& text,
                                                   const TransformRegistry& registry = TransformRegistry::builtin());

// TensorFlow's ShouldIgnoreErrors: the (case-insensitive) ignore_errors value.
Result<bool> ignoreErrors(const TransformStep& step);

}  // namespace gds::transforms
