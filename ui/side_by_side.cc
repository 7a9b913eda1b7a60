#include "ui/side_by_side.h"

#include <QLabel>
#include <QScopedValueRollback>
#include <QTimer>
#include <QVBoxLayout>

#include "graphview/graph_scene.h"
#include "graphview/graph_view.h"

namespace gds::ui {
namespace {

QWidget* pane(QWidget* parent, QLabel** label, graphview::GraphView* view) {
  auto* w = new QWidget(parent);
  auto* col = new QVBoxLayout(w);
  col->setContentsMargins(0, 0, 0, 0);
  col->setSpacing(0);
  *label = new QLabel(w);
  (*label)->setObjectName("PaneLabel");
  (*label)->setTextFormat(Qt::RichText);
  (*label)->setStyleSheet("QLabel { background: #eef1f5; border-bottom: 1px solid #d0d5dc; padding: 3px 8px; }");
  (*label)->hide();
  view->setParent(w);
  col->addWidget(*label);
  col->addWidget(view, 1);
  return w;
}

}  // namespace

SideBySideView::SideBySideView(graphview::GraphScene* current, graphview::GraphScene* before, QWidget* parent)
    : QSplitter(Qt::Horizontal, parent) {
  before_view_ = new graphview::GraphView(before, this);
  before_view_->setToolTip(tr("The graph before the step (removed nodes in red)"));
  current_view_ = new graphview::GraphView(current, this);
  before_pane_ = pane(this, &before_label_, before_view_);
  QWidget* current_pane = pane(this, &current_label_, current_view_);
  addWidget(before_pane_);
  addWidget(current_pane);
  setChildrenCollapsible(false);
  before_pane_->hide();
  connect(current_view_, &graphview::GraphView::viewChanged, this, [this] {
    if (beforeShown()) sync(current_view_, before_view_);
  });
  connect(before_view_, &graphview::GraphView::viewChanged, this, [this] {
    if (beforeShown()) sync(before_view_, current_view_);
  });
  // The before graph is laid out after it is shown: align it then.
  connect(before, &graphview::GraphScene::layoutApplied, this, [this] {
    if (beforeShown()) QTimer::singleShot(0, this, [this] { sync(current_view_, before_view_); });
  });
}

void SideBySideView::showBefore(const QString& step_text) {
  before_label_->setText(tr("<b>Before</b> <tt>%1</tt> &nbsp; <span style='color:#c0392b'>■</span> removed")
                             .arg(step_text.toHtmlEscaped()));
  current_label_->setText(tr("<b>After</b> <tt>%1</tt> (the current graph) &nbsp; <span style='color:#2e9d4a'>■</span> "
                             "added &nbsp; <span style='color:#e0a020'>■</span> changed")
                              .arg(step_text.toHtmlEscaped()));
  before_label_->show();
  current_label_->show();
  const bool was = beforeShown();
  before_pane_->show();
  if (!was) setSizes({width() / 2, width() / 2});
  sync(current_view_, before_view_);
}

void SideBySideView::hideBefore() {
  before_pane_->hide();
  before_label_->hide();
  current_label_->hide();
}

bool SideBySideView::beforeShown() const { return !before_pane_->isHidden(); }
QString SideBySideView::beforeLabel() const { return before_label_->text(); }
QString SideBySideView::currentLabel() const { return current_label_->text(); }

void SideBySideView::sync(graphview::GraphView* from, graphview::GraphView* to) {
  if (syncing_ || !from->graphScene() || !to->graphScene()) return;
  const QScopedValueRollback<bool> guard(syncing_, true);
  graphview::GraphScene* target = to->graphScene();
  const std::string anchor = from->nodeNearestCentre(
      [target](const std::string& name) { return !target->nodeRect(name).isEmpty(); });
  if (to->zoom() != from->zoom()) to->setZoom(from->zoom());
  if (anchor.empty()) return;
  // Where the anchor is relative to `from`'s centre, in scene units.
  const QPointF from_centre = from->mapToScene(from->viewport()->rect().center());
  const QPointF offset = from->graphScene()->nodeRect(anchor).center() - from_centre;
  to->centerOn(target->nodeRect(anchor).center() - offset);
}

}  // namespace gds::ui
