// The layered fallback layout (levels too large for dot): on random acyclic
// levels every edge runs down the ranks, no two boxes overlap, the size
// holds every box, and left-to-right is top-to-bottom with the axes swapped.
#include "graphview/level_layout.h"

#include <gtest/gtest.h>

#include <random>

namespace gds::graphview {
namespace {

LevelGraph randomDag(std::mt19937& rng, int n) {
  LevelGraph g;
  for (int i = 0; i < n; ++i) {
    g.sizes.push_back(QSizeF(10 + rng() % 120, 10 + rng() % 40));
    g.point.push_back(0);
  }
  const int m = static_cast<int>(rng() % static_cast<unsigned>(3 * n + 1));
  for (int k = 0; k < m && n > 1; ++k) {
    int a = static_cast<int>(rng() % n), b = static_cast<int>(rng() % n);
    if (a == b) continue;
    g.edges.push_back({std::min(a, b), std::max(a, b)});  // low index to high: acyclic
  }
  return g;
}

TEST(LayeredLayout, EdgesRunDownAndBoxesKeepApart) {
  std::mt19937 rng(11);
  for (int t = 0; t < 200; ++t) {
    const LevelGraph g = randomDag(rng, 1 + static_cast<int>(rng() % 50));
    const LevelResult r = layeredLayout(g);
    ASSERT_TRUE(r.ok);
    ASSERT_EQ(r.centers.size(), g.sizes.size());
    ASSERT_EQ(r.paths.size(), g.edges.size());
    const auto box = [&](size_t i) {
      return QRectF(r.centers[i] - QPointF(g.sizes[i].width() / 2, g.sizes[i].height() / 2), g.sizes[i]);
    };
    for (const auto& e : g.edges) {
      EXPECT_LT(box(e.from).bottom(), box(e.to).top()) << "edge " << e.from << " -> " << e.to << " in level " << t;
    }
    for (size_t i = 0; i < g.sizes.size(); ++i) {
      const QRectF b = box(i);
      EXPECT_GE(b.left(), -1e-6);
      EXPECT_GE(b.top(), -1e-6);
      EXPECT_LE(b.right(), r.size.width() + 1e-6);
      EXPECT_LE(b.bottom(), r.size.height() + 1e-6);
      for (size_t j = i + 1; j < g.sizes.size(); ++j)
        EXPECT_FALSE(b.intersects(box(j))) << "boxes " << i << " and " << j << " overlap in level " << t;
    }
    // Each edge's path leaves its tail's bottom and reaches its head's top.
    for (size_t k = 0; k < g.edges.size(); ++k) {
      const auto& e = g.edges[k];
      EXPECT_NEAR(r.paths[k].pointAtPercent(0).y(), box(e.from).bottom(), 1e-6);
      EXPECT_NEAR(r.paths[k].pointAtPercent(1).y(), box(e.to).top(), 1e-6);
    }
    LevelGraph lr = g;
    lr.left_to_right = true;
    for (auto& s : lr.sizes) s.transpose();
    const LevelResult r2 = layeredLayout(lr);
    ASSERT_EQ(r2.centers.size(), r.centers.size());
    for (size_t i = 0; i < r.centers.size(); ++i) {
      EXPECT_DOUBLE_EQ(r2.centers[i].x(), r.centers[i].y());
      EXPECT_DOUBLE_EQ(r2.centers[i].y(), r.centers[i].x());
    }
  }
}

// A cycle is broken, not looped forever: every item still gets a place.
TEST(LayeredLayout, CyclesAndSelfLoopsAreLaidOut) {
  LevelGraph g;
  for (int i = 0; i < 3; ++i) {
    g.sizes.push_back(QSizeF(40, 20));
    g.point.push_back(0);
  }
  g.edges = {{0, 1}, {1, 2}, {2, 0}, {1, 1}};
  const LevelResult r = layeredLayout(g);
  ASSERT_TRUE(r.ok);
  EXPECT_LT(r.centers[0].y(), r.centers[1].y());
  EXPECT_LT(r.centers[1].y(), r.centers[2].y());
  // The edge drawn against the flow still starts at its own tail (item 2).
  EXPECT_NEAR(r.paths[2].pointAtPercent(0).y(), r.centers[2].y() - 10, 1e-6);
  EXPECT_EQ(r.paths.size(), 4u);
}

}  // namespace
}  // namespace gds::graphview
