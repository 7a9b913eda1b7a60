// The transform catalogue: named pure functions GraphDef -> GraphDef with a
// context carrying --inputs, --outputs and the parsed parameters, in the
// spirit of TensorFlow's tools/graph_transforms (TransformFuncContext,
// REGISTER_GRAPH_TRANSFORM). Registration is an explicit list
// (transforms/registry.cc) rather than static initialisers, so linking the
// static library never drops a transform.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "graph.pb.h"
#include "model/status.h"

namespace gds::transforms {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

// Parameter name -> values, in order; a key repeated in the --transforms
// string collects several values (remove_nodes(op=Identity, op=CheckNumerics)).
using TransformParams = std::map<std::string, std::vector<std::string>>;

class TransformContext {
 public:
  TransformContext() = default;
  TransformContext(std::string transform, std::vector<std::string> inputs, std::vector<std::string> outputs,
                   TransformParams params)
      : transform(std::move(transform)),
        inputs(std::move(inputs)),
        outputs(std::move(outputs)),
        params(std::move(params)) {}

  std::string transform;             // name of the running transform (for messages)
  std::vector<std::string> inputs;   // --inputs, as given ("a", "a:0")
  std::vector<std::string> outputs;  // --outputs
  TransformParams params;

  bool has(const std::string& name) const { return params.count(name) != 0; }
  int count(const std::string& name) const;
  // All values of a parameter (empty when absent).
  const std::vector<std::string>& list(const std::string& name) const;
  // Typed getters: the default when the parameter is absent; an error naming
  // the transform and parameter when it is repeated or does not parse.
  Result<std::string> getOneString(const std::string& name, const std::string& default_value) const;
  Result<std::int64_t> getOneInt(const std::string& name, std::int64_t default_value) const;
  Result<float> getOneFloat(const std::string& name, float default_value) const;
  // Accepts true/false/1/0 (TensorFlow's GetOneBoolParameter).
  Result<bool> getOneBool(const std::string& name, bool default_value) const;
  // Error "<transform>: <message>".
  Status error(const std::string& message) const;

  // The caller's cancellation check (transforms/pipeline.h): long transforms
  // poll cancelled() in their loops and return cancelledStatus() when true.
  std::function<bool()> cancel_check;
  bool cancelled() const { return cancel_check && cancel_check(); }
  static Status cancelledStatus() { return Status::Error(kCancelledMessage); }
  static constexpr const char* kCancelledMessage = "cancelled";
};

using TransformFn = std::function<Result<GraphDef>(const GraphDef&, const TransformContext&)>;

struct ParamSpec {
  std::string name;
  std::string help;
};

struct TransformInfo {
  std::string name;     // TensorFlow's public name, e.g. "fold_constants"
  std::string summary;  // one line
  std::vector<ParamSpec> params;  // accepted parameters (ignore_errors is implicit)
  TransformFn fn;
  bool accepts(const std::string& param) const;
  std::string paramNames() const;  // "a, b, ignore_errors"
};

class TransformRegistry {
 public:
  // The built-in catalogue (every transform listed in registry.cc).
  static const TransformRegistry& builtin();

  void add(TransformInfo info);  // replaces an entry with the same name
  const TransformInfo* find(const std::string& name) const;
  const std::vector<TransformInfo>& all() const { return transforms_; }  // sorted by name
  std::vector<std::string> names() const;
  std::string namesText() const;  // "add_default_attributes, backport_concatv2, ..."

 private:
  std::vector<TransformInfo> transforms_;
};

// Fills `registry` with every built-in transform (registry.cc).
void registerBuiltinTransforms(TransformRegistry* registry);

}  // namespace gds::transforms
