#include <gtest/gtest.h>

#include "model/graph.h"
#include "model/io.h"
#include "tests/test_util.h"

namespace gds::model {
namespace {

TEST(Load, MobilenetFrozenBinary) {
  GDS_REQUIRE_SHARED();
  auto m = load(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
  ASSERT_TRUE(m.ok()) << m.error();
  EXPECT_EQ(m->kind, ModelKind::GraphDef);
  EXPECT_FALSE(m->text);
  EXPECT_EQ(m->graph.node_size(), 555);
  EXPECT_EQ(m->file_bytes, 1998252);
  auto g = Graph::build(m->graph);
  ASSERT_TRUE(g.ok()) << g.error();
  EXPECT_EQ(g->size(), 555);
}

TEST(Load, MissingFile) {
  auto m = load("/nonexistent/model.pb");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), "/nonexistent/model.pb: no such file");
}

}  // namespace
}  // namespace gds::model
