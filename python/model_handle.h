// The state behind a gdstudio.Model: a loaded model (or one a transform,
// freeze or conversion made), immutable once made, with its summary and the
// plans compiled for Model.run cached. No Python here: the binding
// (python/module.cc) holds these by shared_ptr and calls them without the GIL.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "engine/plan.h"
#include "model/io.h"
#include "model/status.h"
#include "model/summary.h"
#include "transforms/pipeline.h"

namespace gds::python {

// A model input or output as Model.inputs/outputs show it.
struct TensorSpec {
  std::string name;
  tensorflow::DataType dtype = tensorflow::DT_INVALID;
  bool known_rank = false;
  model::Shape shape;        // -1: unknown dimension
  std::string quantization;  // "scale=... zero_point=...", "" when none
};

class ModelHandle {
 public:
  // `outputs`: the model's outputs when its maker knows them (a transform's
  // --outputs, a freeze's output nodes); empty: summarize's outputs.
  explicit ModelHandle(model::LoadedModel loaded, std::vector<transforms::StepRecord> steps = {},
                       std::vector<std::string> outputs = {});

  const model::LoadedModel& loaded() const { return *loaded_; }
  // The graph, sharing ownership with this model (plans keep it alive).
  std::shared_ptr<const tensorflow::GraphDef> graph() const;
  const std::vector<transforms::StepRecord>& steps() const { return steps_; }

  // summarizeModel, computed once.
  Result<std::shared_ptr<const model::Summary>> summary() const;
  // Placeholders (or the tensors a .tflite records) and the outputs with
  // their dtypes and static shapes.
  Result<std::vector<TensorSpec>> inputs() const;
  Result<std::vector<TensorSpec>> outputs() const;

  // The plan for these feeds and fetches, compiled for inference once
  // (engine::compileForInference) and cached; its PlanOptions::cancelled
  // asks the Python call running it (python/calls.h).
  Result<std::shared_ptr<engine::Plan>> plan(const std::vector<std::string>& feeds,
                                             const std::vector<std::string>& fetches,
                                             const engine::PlanOptions& options) const;

 private:
  using PlanKey = std::tuple<std::vector<std::string>, std::vector<std::string>, int, bool, bool, int>;

  std::shared_ptr<const model::LoadedModel> loaded_;
  std::vector<transforms::StepRecord> steps_;
  std::vector<std::string> declared_outputs_;
  mutable std::mutex mu_;
  mutable std::shared_ptr<const model::Summary> summary_;
  mutable std::mutex plans_mu_;  // held while compiling: one compilation per key
  mutable std::map<PlanKey, std::pair<std::shared_ptr<engine::Plan>, std::int64_t>> plans_;
  mutable std::int64_t plan_uses_ = 0;
};

// A LoadedModel holding just `graph` (what a transform or conversion made),
// keeping `origin`'s path for messages.
model::LoadedModel derivedModel(const model::LoadedModel& origin, tensorflow::GraphDef graph);

}  // namespace gds::python
