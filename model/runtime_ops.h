// What a target runtime can run, as data: TensorFlow Mobile's default op set
// and the TensorFlow ops TensorFlow Lite's converter maps to builtin
// operators (resources/ops/*.txt, each naming its source), and a per-node
// verdict for a graph ("No OpKernel was registered to support Op" before
// the phone says it). The interpreter's own op set is built by the caller
// from its kernel registry (model/ does not know the engine).
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "graph.pb.h"
#include "model/status.h"

namespace gds::model {

struct RuntimeOps {
  std::string name;    // "tensorflow_mobile", "tflite", "gdstudio"
  std::string title;   // one line for reports
  std::string source;  // where the list comes from
  // Op type -> what the runtime makes of it: "" (a kernel runs it), a
  // TensorFlow Lite builtin ("CONV_2D"), "=tensor" (becomes a constant or an
  // input tensor) or "=removed" (dropped by the converter).
  std::map<std::string, std::string> ops;
  // Op type -> the dtypes its kernels take ("T", else "dtype" attr); an op
  // not listed takes any.
  std::map<std::string, std::set<tensorflow::DataType>> dtypes;
};

// The embedded op sets (errors only if the data files are malformed).
Result<RuntimeOps> tensorflowMobileOps();
Result<RuntimeOps> tfliteBuiltinOps();

enum class OpVerdict {
  Runs,       // a kernel or builtin operator runs it
  NotNeeded,  // becomes a tensor or is removed on the way
  Missing,    // the runtime has nothing for it
};

struct NodeSupport {
  OpVerdict verdict = OpVerdict::Missing;
  // Runs: the TensorFlow Lite builtin (else ""); NotNeeded: "tensor" or
  // "removed"; Missing: why, in the runtime's words.
  std::string detail;
};

NodeSupport checkNode(const RuntimeOps& runtime, const tensorflow::NodeDef& node);

// A graph checked against one runtime: what check_ops prints and the
// window's overlay shows.
struct RuntimeCheck {
  std::vector<NodeSupport> nodes;  // one verdict per node, in node order
  int runs = 0, not_needed = 0, missing = 0;
  // Op types with a 'missing' verdict and their node counts, most nodes
  // first (ties by op name).
  std::vector<std::pair<std::string, int>> missing_ops;
};
RuntimeCheck checkGraph(const RuntimeOps& runtime, const tensorflow::GraphDef& graph);
// "runs", "not needed", "missing".
const char* verdictName(OpVerdict verdict);

}  // namespace gds::model
