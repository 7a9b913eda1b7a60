#include "ui/runtime_check.h"

#include <QAction>
#include <QActionGroup>
#include <QMenu>
#include <QStringList>

#include "engine/interpreter_ops.h"
#include "graphview/graph_scene.h"
#include "ui/document.h"

namespace gds::ui {
namespace {

using Runtime = RuntimeCheckOverlay::Runtime;

// Overlay values, least to most alarming (a collapsed scope shows its worst).
constexpr double kNotNeeded = 0, kRuns = 1, kMissing = 2;

double overlayValue(model::OpVerdict v) {
  switch (v) {
    case model::OpVerdict::Runs: return kRuns;
    case model::OpVerdict::NotNeeded: return kNotNeeded;
    default: return kMissing;
  }
}

Result<model::RuntimeOps> opsOf(Runtime runtime) {
  switch (runtime) {
    case Runtime::TensorFlowMobile: return model::tensorflowMobileOps();
    case Runtime::TfLiteBuiltins: return model::tfliteBuiltinOps();
    default: return engine::interpreterOps();
  }
}

}  // namespace

RuntimeCheckOverlay::RuntimeCheckOverlay(Document* document, graphview::GraphScene* scene, QObject* parent)
    : QObject(parent), document_(document), scene_(scene) {
  // Another overlay (heat map, error, a step's changes) or a new graph
  // replaces the verdicts: they no longer show.
  connect(scene_, &graphview::GraphScene::overlayChanged, this, [this] {
    if (applying_ || !shown_) return;
    // Folding constants re-applies the same overlay to a new hierarchy.
    if (scene_->hasOverlay() && scene_->legend().title == tr("Ops on %1").arg(runtimeTitle(*shown_))) return;
    shown_.reset();
    if (menu_)
      for (QAction* a : menu_->actions()) a->setChecked(false);
  });
}

QString RuntimeCheckOverlay::runtimeTitle(Runtime runtime) {
  switch (runtime) {
    case Runtime::TensorFlowMobile: return tr("TensorFlow Mobile");
    case Runtime::TfLiteBuiltins: return tr("TensorFlow Lite builtins");
    default: return tr("gdstudio's interpreter");
  }
}

QMenu* RuntimeCheckOverlay::createMenu(QWidget* parent) {
  menu_ = new QMenu(tr("Check Ops for &Runtime"), parent);
  menu_->setToolTipsVisible(true);
  auto* group = new QActionGroup(menu_);
  group->setExclusionPolicy(QActionGroup::ExclusionPolicy::ExclusiveOptional);
  for (Runtime r : {Runtime::TensorFlowMobile, Runtime::TfLiteBuiltins, Runtime::Interpreter}) {
    QAction* a = menu_->addAction(runtimeTitle(r));
    a->setCheckable(true);
    a->setToolTip(tr("Colour every node: runs (green), not needed (grey), missing op (red)"));
    group->addAction(a);
    connect(a, &QAction::triggered, this, [this, r](bool on) {
      if (on) check(r);
      else clear();
    });
  }
  menu_->addSeparator();
  connect(menu_->addAction(tr("&Clear")), &QAction::triggered, this, &RuntimeCheckOverlay::clear);
  return menu_;
}

QString RuntimeCheckOverlay::check(Runtime runtime) {
  QString text;
  auto graph = document_->graph();
  auto ops = opsOf(runtime);
  if (!graph) {
    text = tr("Check Ops for Runtime: no graph is open");
  } else if (!ops.ok()) {
    text = tr("Check Ops for Runtime: %1").arg(QString::fromStdString(ops.error()));
  } else {
    last_ = model::checkGraph(*ops, *graph);
    const QString title = runtimeTitle(runtime);
    graphview::Overlay overlay;
    overlay.title = tr("Ops on %1").arg(title);
    overlay.categories = {{QString::fromUtf8(model::verdictName(model::OpVerdict::NotNeeded)), QColor(190, 190, 190)},
                          {QString::fromUtf8(model::verdictName(model::OpVerdict::Runs)), QColor(120, 200, 120)},
                          {QString::fromUtf8(model::verdictName(model::OpVerdict::Missing)), QColor(225, 85, 75)}};
    overlay.sum_for_groups = false;
    for (int i = 0; i < graph->node_size(); ++i) {
      const auto& s = last_.nodes[static_cast<size_t>(i)];
      const std::string& name = graph->node(i).name();
      overlay.values[name] = overlayValue(s.verdict);
      if (!s.detail.empty()) overlay.notes[name] = QString::fromStdString(s.detail);
    }
    applying_ = true;
    scene_->setOverlay(overlay);
    applying_ = false;
    shown_ = runtime;
    if (last_.missing > 0) {
      QStringList names;
      for (const auto& [op, n] : last_.missing_ops) names << QString::fromStdString(op);
      // "TensorFlow Lite lacks", not "TensorFlow Lite builtins lacks".
      const QString who = runtime == Runtime::TfLiteBuiltins ? tr("TensorFlow Lite") : title;
      text = tr("%1 of %2 nodes need ops %3 lacks: %4")
                 .arg(last_.missing)
                 .arg(graph->node_size())
                 .arg(who, names.join(QStringLiteral(", ")));
    } else {
      text = tr("All %1 nodes are provided for on %2: %3 run, %4 not needed")
                 .arg(graph->node_size())
                 .arg(title)
                 .arg(last_.runs)
                 .arg(last_.not_needed);
    }
  }
  if (menu_ && menu_->actions().size() > static_cast<int>(runtime)) {
    QAction* a = menu_->actions()[static_cast<int>(runtime)];
    a->setChecked(shown_ == runtime);
  }
  emit message(text);
  return text;
}

void RuntimeCheckOverlay::clear() {
  if (shown_) {
    applying_ = true;
    scene_->clearOverlay();
    applying_ = false;
    shown_.reset();
  }
  if (menu_)
    for (QAction* a : menu_->actions()) a->setChecked(false);
}

}  // namespace gds::ui
