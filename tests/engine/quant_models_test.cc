// Real quantized models run end to end in the interpreter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "engine/builtin_kernels.h"
#include "engine/rewrite/optimize_for_inference.h"
#include "model/io.h"
#include "tests/test_util.h"

namespace gds::engine {
namespace {

// TensorFlow's own Android "TF Stylize" demo model, fully quantize_nodes'd:
// QuantizeV2, QuantizedConv2D, QuantizedRelu, QuantizedReshape,
// RequantizationRange, Requantize, Dequantize.
TEST(QuantModels, StylizeQuantizedProducesAPlausibleImage) {
  GDS_REQUIRE_SHARED();
  auto loaded = model::load(test::modelPath("stylize_quantized.pb"));
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  auto graph = std::make_shared<tensorflow::GraphDef>(loaded->graph);
  // Every op of the graph has a kernel; list all that are missing at once.
  std::set<std::string> missing;
  for (const auto& node : graph->node())
    if (node.op() != "Const" && node.op() != "Placeholder" && !builtinKernels().hasOp(node.op()))
      missing.insert(node.op());
  if (!missing.empty()) {
    std::string list;
    for (const auto& op : missing) list += " " + op;
    FAIL() << "interpreter has no kernel for:" << list;
  }
  const std::int64_t size = 64;
  Tensor image(tensorflow::DT_FLOAT, {1, size, size, 3});
  for (std::int64_t y = 0; y < size; ++y)
    for (std::int64_t x = 0; x < size; ++x)
      for (int c = 0; c < 3; ++c)
        image.data<float>()[(y * size + x) * 3 + c] =
            0.5f + 0.5f * std::sin(0.2f * static_cast<float>(x + 2 * y) + static_cast<float>(c));
  Tensor style(tensorflow::DT_FLOAT, {26});
  for (int i = 0; i < 26; ++i) style.data<float>()[i] = i == 3 ? 1.0f : 0.0f;
  PlanOptions options;
  options.num_threads = 2;
  auto plan = compileForInference(graph, {"input", "style_num"}, {"transformer/expand/conv3/conv/Sigmoid"}, options);
  ASSERT_TRUE(plan.ok()) << plan.error();
  auto out = (*plan)->run({image, style});
  ASSERT_TRUE(out.ok()) << out.error();
  const Tensor& result = (*out)[0];
  ASSERT_EQ(tensorflow::DT_FLOAT, result.dtype());
  EXPECT_EQ((Shape{1, size, size, 3}), result.shape());
  const float* v = result.data<float>();
  const auto [lo, hi] = std::minmax_element(v, v + result.numElements());
  EXPECT_GE(*lo, 0.0f);
  EXPECT_LE(*hi, 1.0f);
  EXPECT_GT(*hi - *lo, 0.2f) << "the stylized image is (nearly) constant";
}

}  // namespace
}  // namespace gds::engine
