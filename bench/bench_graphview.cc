// Graph view speed, offscreen: time to first paint (hierarchy, layout, scene
// items and one paint of a 1600x1000 view) and to expand the largest visible
// scope (re-layout of that scope and its ancestors, items, paint), against
// the peer: Graphviz dot on the whole flat graph, as graph_to_dot users ran
// it, measured in a child process and stopped after a time limit.
//
//   bench_graphview [--peer_limit_s=20] [MODEL ...]   (models relative to ../shared/models)
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QApplication>
#include <QPixmap>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "graphview/graph_scene.h"
#include "graphview/graph_view.h"
#include "graphview/level_layout.h"
#include "model/io.h"

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::string sharedModels() {
  const char* env = std::getenv("GDS_SHARED_DIR");
  return std::string(env ? env : GDS_SHARED_DIR_DEFAULT) + "/models/";
}

// Whole graph, every node a 110x40 box, laid out by dot in a child process
// (dot cannot be interrupted in-process). Returns ms, or -1 when stopped.
double peerWholeGraphDot(const tensorflow::GraphDef& def, double limit_s) {
  auto graph = gds::model::Graph::build(def);
  if (!graph.ok()) return -2;
  gds::graphview::LevelGraph level;
  level.sizes.assign(graph->size(), QSizeF(110, 40));
  level.point.assign(graph->size(), 0);
  for (int v = 0; v < graph->size(); ++v)
    for (const auto& in : graph->inputs(v)) level.edges.push_back({in.node, v});
  auto start = Clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    auto r = gds::graphview::dotLayout(level, false);
    _exit(r.ok ? 0 : 1);
  }
  if (pid < 0) return -2;
  while (true) {
    int status = 0;
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? msSince(start) : -2;
    if (msSince(start) > limit_s * 1000) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    usleep(5000);
  }
}

struct Row {
  std::string model;
  int nodes = 0;
  double load = 0, first_paint = 0, layout = 0, items = 0, expand = 0, reexpand = 0, peer = 0;
  int shown = 0, shown_after = 0;
  std::string expanded;
};

}  // namespace

int main(int argc, char** argv) {
  double limit_s = 20;
  std::vector<std::string> models;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--peer_limit_s=", 15) == 0) limit_s = std::atof(argv[i] + 15);
    else models.push_back(argv[i]);
  }
  if (models.empty())
    models = {"mobilenet_v1_1.0_224_eval.pbtxt", "tfnet_vd_cnn_train.meta", "tfnet_inception_v3_hub.meta"};

  // Peers first: fork before Qt starts any thread.
  std::vector<Row> rows;
  std::vector<tensorflow::GraphDef> defs;
  for (const auto& m : models) {
    Row row;
    row.model = m;
    auto t = Clock::now();
    auto loaded = gds::model::load(sharedModels() + m);
    if (!loaded.ok()) {
      std::fprintf(stderr, "error: %s\n", loaded.error().c_str());
      return 1;
    }
    row.load = msSince(t);
    row.nodes = loaded->graph.node_size();
    std::fprintf(stderr, "peer: dot on the whole of %s (limit %.0f s)...\n", m.c_str(), limit_s);
    row.peer = peerWholeGraphDot(loaded->graph, limit_s);
    defs.push_back(std::move(loaded->graph));
    rows.push_back(row);
  }

  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  for (size_t k = 0; k < rows.size(); ++k) {
    Row& row = rows[k];
    auto def = std::make_shared<const tensorflow::GraphDef>(std::move(defs[k]));
    gds::graphview::GraphScene scene;
    scene.setSynchronous(true);
    gds::graphview::GraphView view(&scene);
    view.resize(1600, 1000);
    auto t = Clock::now();
    auto st = scene.setGraph(def);
    if (!st.ok()) {
      std::fprintf(stderr, "error: %s\n", st.message().c_str());
      return 1;
    }
    view.fitAll();
    QPixmap first = view.grab();
    row.first_paint = msSince(t);
    row.layout = scene.currentLayout().millis;
    row.items = scene.lastSceneBuildMs();
    row.shown = scene.nodeItemCount() + scene.groupItemCount();

    // The largest collapsed scope on screen.
    const auto* h = scene.hierarchy();
    int best = -1;
    for (const auto& g : scene.currentLayout().groups)
      if (!g.expanded && (best < 0 || h->group(g.group).node_count > h->group(best).node_count)) best = g.group;
    if (best > 0) {
      row.expanded = h->group(best).path + " (" + std::to_string(h->group(best).node_count) + " nodes)";
      t = Clock::now();
      scene.toggleGroup(best);
      QPixmap after = view.grab();
      row.expand = msSince(t);
      row.shown_after = scene.nodeItemCount() + scene.groupItemCount();
      scene.toggleGroup(best);
      t = Clock::now();
      scene.toggleGroup(best);
      after = view.grab();
      row.reexpand = msSince(t);
    }
  }

  std::printf("Graph view, offscreen, 1600x1000 view (times in ms)\n\n");
  std::printf("%-34s %7s %7s %12s %8s %8s %8s %10s %10s %14s %8s\n", "model", "nodes", "load", "first_paint", "layout",
              "items", "shown", "expand", "re-expand", "whole_dot", "ratio");
  for (const auto& r : rows) {
    char peer[32], ratio[32];
    if (r.peer == -1) {
      std::snprintf(peer, sizeof peer, ">%.0f s (stopped)", limit_s);
      std::snprintf(ratio, sizeof ratio, ">%.0fx", limit_s * 1000 / r.first_paint);
    } else if (r.peer < 0) {
      std::snprintf(peer, sizeof peer, "failed");
      std::snprintf(ratio, sizeof ratio, "-");
    } else {
      std::snprintf(peer, sizeof peer, "%.1f", r.peer);
      std::snprintf(ratio, sizeof ratio, "%.1fx", r.peer / r.first_paint);
    }
    std::printf("%-34s %7d %7.1f %12.1f %8.1f %8.1f %8d %10.1f %10.1f %14s %8s\n", r.model.c_str(), r.nodes, r.load,
                r.first_paint, r.layout, r.items, r.shown, r.expand, r.reexpand, peer, ratio);
  }
  std::printf("\nfirst_paint: setGraph (index, scopes, text metrics, layout, items) + fit + one paint of the view.\n"
              "expand: the largest collapsed scope on screen, re-layout + items + paint; re-expand: same, cached.\n"
              "whole_dot: Graphviz dot on the whole flat graph (the peer); ratio = whole_dot / first_paint.\n");
  for (const auto& r : rows)
    if (!r.expanded.empty()) std::printf("expanded in %s: %s\n", r.model.c_str(), r.expanded.c_str());
  return 0;
}
