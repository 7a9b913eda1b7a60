// The values a Document's edits carry: the shared, immutable graph, an input
// or output the user marked, one applied transform step; and EditTarget,
// what the undo commands (ui/undo_commands.h) apply them to.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph.pb.h"
#include "model/summary_diff.h"
#include "model/tensor.h"

namespace gds::ui {

using GraphPtr = std::shared_ptr<const tensorflow::GraphDef>;

// A node the user marked as a model input or output. For inputs, dtype and
// shape are what strip_unused_nodes and the benchmark should use; the shape
// is editable.
struct IoMark {
  enum class Kind { Input, Output };
  Kind kind = Kind::Input;
  std::string name;
  tensorflow::DataType dtype = tensorflow::DT_FLOAT;
  model::Shape shape;       // -1 for unknown dimensions
  bool shape_known = false;  // false: unknown rank
  bool operator==(const IoMark& o) const {
    return kind == o.kind && name == o.name && dtype == o.dtype && shape == o.shape && shape_known == o.shape_known;
  }
};

// One applied transform step, as recorded on the undo stack.
struct StepInfo {
  std::string name;           // transform name, e.g. "fold_constants"
  std::string text;           // the step in --transforms syntax, e.g. fold_constants(ignore_errors=true)
  double milliseconds = 0;    // how long the transform took
  std::vector<std::string> inputs, outputs;  // the --inputs/--outputs it ran with
  std::shared_ptr<const model::SummaryDiff> diff;  // before -> after
};

// The Document as its undo commands see it: undo and redo switch what it
// shows through these two calls.
class EditTarget {
 public:
  virtual ~EditTarget() = default;
  virtual void setGraphFromCommand(GraphPtr graph, const StepInfo* step, GraphPtr before) = 0;
  virtual void setMarksFromCommand(const std::vector<IoMark>& marks) = 0;
};

}  // namespace gds::ui
