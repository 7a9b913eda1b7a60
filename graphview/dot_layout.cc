// Graphviz dot through the cgraph/gvc library API. Positions and edge
// splines are read back from the laid-out graph (ND_coord, ED_spl).
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cstdio>
#include <string>

#include "graphview/layout.h"
#include "graphview/level_layout.h"

namespace gds::graphview {

std::mutex& graphvizMutex() {
  static std::mutex mutex;
  return mutex;
}

namespace {

GVC_t* context() {
  // Created once (under graphvizMutex) and kept for the process lifetime.
  static GVC_t* gvc = gvContext();
  return gvc;
}

char* cs(const char* s) { return const_cast<char*>(s); }

std::string inches(double points) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", points / 72.0);
  return buf;
}

}  // namespace

LevelResult dotLayout(const LevelGraph& level, bool dense) {
  LevelResult result;
  const int n = static_cast<int>(level.sizes.size());
  std::lock_guard<std::mutex> lock(graphvizMutex());
  GVC_t* gvc = context();
  if (!gvc) {
    result.error = "Graphviz context could not be created";
    return result;
  }
  Agraph_t* g = agopen(cs("level"), Agdirected, nullptr);
  agattr(g, AGRAPH, cs("rankdir"), cs(level.left_to_right ? "LR" : "TB"));
  agattr(g, AGRAPH, cs("nodesep"), cs(inches(level.node_sep).c_str()));
  agattr(g, AGRAPH, cs("ranksep"), cs(inches(level.rank_sep).c_str()));
  agattr(g, AGRAPH, cs("splines"), cs(dense ? "polyline" : "spline"));
  if (dense) {
    agattr(g, AGRAPH, cs("nslimit"), cs("3"));
    agattr(g, AGRAPH, cs("nslimit1"), cs("3"));
    agattr(g, AGRAPH, cs("mclimit"), cs("0.3"));
  }
  Agsym_t* shape = agattr(g, AGNODE, cs("shape"), cs("box"));
  agattr(g, AGNODE, cs("fixedsize"), cs("true"));
  agattr(g, AGNODE, cs("label"), cs(""));
  Agsym_t* width = agattr(g, AGNODE, cs("width"), cs("1"));
  Agsym_t* height = agattr(g, AGNODE, cs("height"), cs("0.5"));
  agattr(g, AGEDGE, cs("arrowhead"), cs("none"));
  Agsym_t* headport = agattr(g, AGEDGE, cs("headport"), cs(""));
  Agsym_t* tailport = agattr(g, AGEDGE, cs("tailport"), cs(""));
  Agsym_t* weight = agattr(g, AGEDGE, cs("weight"), cs("1"));

  std::vector<Agnode_t*> nodes(n);
  for (int i = 0; i < n; ++i) {
    std::string name = "n" + std::to_string(i);
    nodes[i] = agnode(g, cs(name.c_str()), 1);
    if (level.point[i]) {
      agxset(nodes[i], shape, cs("point"));
      agxset(nodes[i], width, cs("0.02"));
      agxset(nodes[i], height, cs("0.02"));
    } else {
      agxset(nodes[i], width, cs(inches(level.sizes[i].width()).c_str()));
      agxset(nodes[i], height, cs(inches(level.sizes[i].height()).c_str()));
    }
  }
  // No rank=source/sink subgraphs for the boundary points: with them,
  // Graphviz 2.43's mincross crashes (decompose) on some cyclic levels of
  // training graphs. The points have only out- (In) or in-edges (Out), so
  // ranking already puts them first and last in practice.
  const char* head_side = level.left_to_right ? "w" : "n";
  const char* tail_side = level.left_to_right ? "e" : "s";
  std::vector<Agedge_t*> edges(level.edges.size());
  for (size_t k = 0; k < level.edges.size(); ++k) {
    const auto& e = level.edges[k];
    edges[k] = agedge(g, nodes[e.from], nodes[e.to], nullptr, 1);
    if (e.head_port) agxset(edges[k], headport, cs(head_side));
    if (e.tail_port) agxset(edges[k], tailport, cs(tail_side));
    if (e.weight != 1) agxset(edges[k], weight, cs(std::to_string(e.weight).c_str()));
  }

  // Errors (e.g. "Edge length ... larger than maximum 65535") are counted,
  // not printed: a level dot cannot handle goes to the layered fallback.
  agseterr(AGMAX);
  agreseterrors();
  if (gvLayout(gvc, g, "dot") != 0 || agreseterrors() > 0) {
    gvFreeLayout(gvc, g);
    agclose(g);
    result.error = "Graphviz dot layout failed";
    return result;
  }
  boxf bb = GD_bb(g);
  auto map = [&](pointf p) { return QPointF(p.x - bb.LL.x, bb.UR.y - p.y); };
  result.size = QSizeF(bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
  result.centers.resize(n);
  for (int i = 0; i < n; ++i) result.centers[i] = map(ND_coord(nodes[i]));
  result.paths.resize(level.edges.size());
  for (size_t k = 0; k < edges.size(); ++k) {
    // An edge that dot merged into another (same endpoints) may have no spline.
    Agedge_t* e = edges[k];
    splines* spl = ED_spl(e);
    QPainterPath path;
    if (spl && spl->size > 0 && spl->list[0].size >= 4) {
      const bezier& bz = spl->list[0];
      path.moveTo(map(bz.list[0]));
      for (int j = 1; j + 2 < bz.size; j += 3) path.cubicTo(map(bz.list[j]), map(bz.list[j + 1]), map(bz.list[j + 2]));
    } else {
      path.moveTo(result.centers[level.edges[k].from]);
      path.lineTo(result.centers[level.edges[k].to]);
    }
    result.paths[k] = path;
  }
  gvFreeLayout(gvc, g);
  agclose(g);
  result.ok = true;
  return result;
}

}  // namespace gds::graphview
