// Helpers of the Keras tests: the synthetic layer files written once per
// test process by tests/tools/keras_layers.py, input casts and output
// comparison.
#pragma once

#include <cstdint>
#include <string>

#include "graph.pb.h"
#include "model/tensor.h"

namespace gds::test {

// The folder holding the script's files (written on first use), or "" when
// /usr/bin/python3 lacks NumPy or h5py; kerasLayerFilesUnavailable() says why.
std::string kerasLayerFiles();
std::string kerasLayerFilesUnavailable();
// tests/tools/keras_corpus_reference.py's NumPy runs of the corpus files
// (written on first use), or "" when unavailable (no corpus, NumPy or h5py).
std::string kerasCorpusReferences();

// `x` cast to the dtype of Placeholder `name` in `graph` (token ids fed as
// int32, say); unchanged when it is float or the node is not found.
model::HostTensor castLike(const model::HostTensor& x, const tensorflow::GraphDef& graph, const std::string& name);

struct Difference {
  double absolute = 0;  // largest |got - want|
  double range = 0;     // max(want) - min(want)
  // absolute / max(range, max |want|): "of the output range", with the
  // value's own size for a single (or constant) output.
  double relative = 0;
  std::int64_t index = -1;
};
Difference compareOutputs(const model::HostTensor& got, const model::HostTensor& want);

}  // namespace gds::test
