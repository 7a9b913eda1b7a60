#include "tests/keras/keras_test_util.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "tests/test_util.h"

namespace gds::test {

namespace {

struct Generated {
  std::string dir, why;
};

const Generated& generated() {
  static Generated g;
  static std::once_flag once;
  std::call_once(once, [] {
    const CommandResult probe = runProgram("/usr/bin/python3", {"-c", "import numpy, h5py"});
    if (probe.exit_code != 0) {
      g.why = "/usr/bin/python3 cannot import numpy and h5py (install python3-numpy and python3-h5py): " + probe.err;
      return;
    }
    const std::string dir = tempDir() + "/keras_layers";
    const CommandResult r = runProgram("/usr/bin/python3", {sourceDir() + "/tests/tools/keras_layers.py", dir});
    if (r.exit_code != 0) {
      g.why = "tests/tools/keras_layers.py failed: " + r.err;
      ADD_FAILURE() << g.why;
      return;
    }
    g.dir = dir;
  });
  return g;
}

}  // namespace

std::string kerasLayerFiles() { return generated().dir; }

std::string kerasCorpusReferences() {
  static std::string dir;
  static std::once_flag once;
  std::call_once(once, [] {
    if (kerasLayerFiles().empty() || !sharedAvailable()) return;
    const std::string out = tempDir() + "/keras_corpus_reference";
    const CommandResult r = runProgram(
        "/usr/bin/python3", {sourceDir() + "/tests/tools/keras_corpus_reference.py", modelPath("keras"), out});
    if (r.exit_code != 0) {
      ADD_FAILURE() << "tests/tools/keras_corpus_reference.py failed: " << r.err;
      return;
    }
    dir = out;
  });
  return dir;
}
std::string kerasLayerFilesUnavailable() { return generated().why; }

model::HostTensor castLike(const model::HostTensor& x, const tensorflow::GraphDef& graph, const std::string& name) {
  for (const auto& n : graph.node()) {
    if (n.name() != name || n.op() != "Placeholder") continue;
    const auto dtype = n.attr().at("dtype").type();
    if (dtype == x.dtype) return x;
    model::HostTensor out = model::HostTensor::zeros(dtype, x.shape);
    for (std::int64_t i = 0; i < x.size(); ++i) {
      const double v = x.valueAt(i);
      if (dtype == tensorflow::DT_INT32) out.as<std::int32_t>()[i] = static_cast<std::int32_t>(v);
      else if (dtype == tensorflow::DT_INT64) out.as<std::int64_t>()[i] = static_cast<std::int64_t>(v);
      else return x;
    }
    return out;
  }
  return x;
}

Difference compareOutputs(const model::HostTensor& got, const model::HostTensor& want) {
  Difference d;
  if (got.size() != want.size() || want.size() <= 0) {
    d.relative = d.absolute = INFINITY;
    return d;
  }
  double lo = want.valueAt(0), hi = lo, max_abs = 0;
  for (std::int64_t i = 0; i < want.size(); ++i) {
    lo = std::min(lo, want.valueAt(i));
    hi = std::max(hi, want.valueAt(i));
    max_abs = std::max(max_abs, std::fabs(want.valueAt(i)));
    const double diff = std::fabs(got.valueAt(i) - want.valueAt(i));
    if (!(diff <= d.absolute)) {  // NaN counts as the largest
      d.absolute = std::isnan(diff) ? INFINITY : diff;
      d.index = i;
    }
  }
  d.range = hi - lo;
  d.relative = d.absolute / std::max({d.range, max_abs, 1e-30});
  return d;
}

}  // namespace gds::test
