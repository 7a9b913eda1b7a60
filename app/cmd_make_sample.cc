// gdstudio make_sample: writes the bundled sample model
// (resources/sample_model.pb is this command's output; a test checks that
// they stay byte-identical).
#include <cstdio>

#include "app/flags.h"
#include "model/graph_builder.h"
#include "model/io.h"

namespace gds::app {
namespace {

int runMakeSample(int argc, char** argv) {
  Flags flags("make_sample",
              "Usage: gdstudio make_sample --out=FILE\n\n"
              "Writes the bundled sample model, a small MobileNet-style classifier (input 'input' 1x64x64x3,\n"
              "output 'MobilenetV1/Predictions/Softmax') with deterministic weights. A .pbtxt name writes text.",
              {{"out", FlagSpec::Type::String, "", "file to write", kRequired | kPath}});
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  std::string out = flags.str("out");
  Status s = model::saveGraph(model::makeSampleModel(), out);
  if (!s.ok()) return fail(s.message());
  return 0;
}

CommandRegistration reg({"make_sample", "write the bundled sample model (resources/sample_model.pb)", &runMakeSample});

}  // namespace
}  // namespace gds::app
