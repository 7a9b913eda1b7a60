// gdstudio render: lays out a graph as the window shows it and writes a PNG
// or SVG, without a display (Qt's offscreen platform). Prints the timings.
#ifdef GDS_HAVE_GUI
#include <QApplication>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "app/flags.h"
#include "graphview/graph_scene.h"
#include "graphview/image_export.h"
#include "model/io.h"

namespace gds::app {
namespace {

double msSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

int runRender(int argc, char** argv) {
  Flags flags("render",
              "Usage: gdstudio render --graph=FILE --output=OUT.png|OUT.svg [--expand_all | --expand=SCOPES]\n"
              "                       [--rankdir=TB|LR]\n\n"
              "Lays out the graph like the graph view (large name scopes collapsed unless --expand_all)\n"
              "and renders it offscreen to a PNG or SVG file. Prints the layout time.",
              {{"graph", FlagSpec::Type::String, "", "GraphDef (.pb/.pbtxt), MetaGraphDef (.meta) or SavedModel",
                kPath},
               {"output", FlagSpec::Type::String, "", "image to write: .png or .svg", kPath},
               {"expand_all", FlagSpec::Type::Bool, "false", "expand every name scope"},
               {"expand", FlagSpec::Type::String, "", "comma-separated name scopes to expand (e.g. module,module/InceptionV3)"},
               {"rankdir", FlagSpec::Type::String, "TB", "TB (top to bottom) or LR (left to right)"},
               {"full_names", FlagSpec::Type::Bool, "false", "show full node names instead of the last component"},
               {"edge_labels", FlagSpec::Type::Bool, "false", "label edges with dtype and shape"},
               {"fold_constants", FlagSpec::Type::Bool, "true", "draw single-use constants as weight badges"},
               {"scale", FlagSpec::Type::Float, "1.5", "PNG pixels per point"},
               {"time_budget_ms", FlagSpec::Type::Float, "1500",
                "layout time after which the remaining scopes use the fast layered layout"}});
  if (auto exit_code = flags.parseCommand(argc, argv)) return *exit_code;
  const std::string path = flags.str("graph"), out = flags.str("output");
  if (path.empty()) return fail("--graph is required (a .pb, .pbtxt, .meta file or a SavedModel directory)");
  if (out.empty()) return fail("--output is required (a .png or .svg file)");
  const QString qout = QString::fromStdString(out);
  if (!qout.endsWith(QLatin1String(".png"), Qt::CaseInsensitive) && !qout.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive))
    return fail("--output must end in .png or .svg, got '" + out + "'");
  const std::string rankdir = flags.str("rankdir");
  if (rankdir != "TB" && rankdir != "LR") return fail("--rankdir must be TB or LR, got '" + rankdir + "'");
  auto scale = flags.number("scale");
  if (!scale.ok() || *scale <= 0 || *scale > 8) return fail("--scale must be a number in (0, 8], got '" + flags.str("scale") + "'");
  auto budget = flags.number("time_budget_ms");
  if (!budget.ok() || *budget < 0) return fail("--time_budget_ms must be a non-negative number, got '" + flags.str("time_budget_ms") + "'");

  auto t_load = std::chrono::steady_clock::now();
  auto loaded = model::load(path);
  if (!loaded.ok()) return fail(loaded.error());
  const double load_ms = msSince(t_load);

  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  static int qt_argc = 1;
  static char name[] = "gdstudio";
  static char* qt_argv[] = {name, nullptr};
  std::unique_ptr<QApplication> app;
  if (!QApplication::instance()) app = std::make_unique<QApplication>(qt_argc, qt_argv);

  graphview::GraphScene scene;
  scene.setSynchronous(true);
  scene.setFoldConstants(flags.boolean("fold_constants"));
  scene.setShowFullNames(flags.boolean("full_names"));
  scene.setShowEdgeLabels(flags.boolean("edge_labels"));
  scene.setLeftToRight(rankdir == "LR");
  scene.setTimeBudgetMs(*budget);
  auto t_layout = std::chrono::steady_clock::now();
  auto def = std::make_shared<const tensorflow::GraphDef>(std::move(loaded->graph));
  Status set = scene.setGraph(def);
  if (!set.ok()) return fail(path + ": " + set.message());
  if (flags.boolean("expand_all")) scene.expandAll();
  for (const auto& scope : flags.list("expand"))
    if (!scene.setScopeExpanded(scope, true)) return fail("--expand: no name scope '" + scope + "' in " + path);
  const double total_ms = msSince(t_layout);
  const auto& layout = scene.currentLayout();

  auto t_render = std::chrono::steady_clock::now();
  graphview::ImageOptions options;
  options.scale = *scale;
  Status written = graphview::exportImage(scene, qout, options);
  if (!written.ok()) return fail(written.message());
  const double render_ms = msSince(t_render);
  std::printf("Layout: %.1f ms (%d levels with dot, %d with the layered fallback%s); scene: %.1f ms; "
              "setup total %.1f ms\n",
              layout.millis, layout.dot_runs, layout.fallback_runs,
              layout.budget_exceeded ? ", time budget reached" : "", scene.lastSceneBuildMs(), total_ms);
  std::printf("Shown: %d nodes, %d scopes, %d edges of %d graph nodes (load %.1f ms, render %.1f ms)\n",
              scene.nodeItemCount(), scene.groupItemCount(), scene.edgeItemCount(), scene.graph()->size(), load_ms,
              render_ms);
  std::printf("Wrote '%s' (%.0f x %.0f points).\n", out.c_str(), layout.bounds.width(), layout.bounds.height());
  return 0;
}

CommandRegistration reg({"render", "lay out a graph and render it to PNG or SVG (offscreen)", &runRender});

}  // namespace
}  // namespace gds::app
#endif  // GDS_HAVE_GUI
