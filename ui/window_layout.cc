#include "ui/window_layout.h"

#include <QDockWidget>
#include <QList>
#include <QMainWindow>
#include <QVariant>

#include <algorithm>

namespace gds::ui {
namespace {

constexpr const char* kUsefulSize = "gdsUsefulSize";
constexpr int kTitleBar = 24;  // a dock's title bar and separator

// Height of a dock column below the menu, toolbar and status bar.
int columnHeight(const QMainWindow* w) { return std::max(200, w->height() - 90); }

}  // namespace

void setUsefulSize(QDockWidget* dock, QSize size) { dock->setProperty(kUsefulSize, size); }

QSize usefulSize(const QDockWidget* dock) { return dock->property(kUsefulSize).toSize(); }

void arrangeDocks(QMainWindow* w, const WindowDocks& d) {
  // Bottom docks span the left column and the graph (the Benchmark and
  // Accuracy tables are wide); the right column keeps the whole height, so
  // Transforms and Last step stay usable under a bottom dock at 768 pixels.
  w->setCorner(Qt::BottomLeftCorner, Qt::BottomDockWidgetArea);
  w->setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  w->addDockWidget(Qt::LeftDockWidgetArea, d.io);
  w->splitDockWidget(d.io, d.properties, Qt::Vertical);
  w->addDockWidget(Qt::RightDockWidgetArea, d.transforms);
  w->splitDockWidget(d.transforms, d.step, Qt::Vertical);
  w->tabifyDockWidget(d.step, d.summary);
  w->tabifyDockWidget(d.summary, d.history);
  for (QDockWidget* dock : {d.io, d.properties, d.transforms, d.step}) dock->show();
  d.step->raise();
  w->tabifyDockWidget(d.benchmark, d.accuracy);

  // Columns: a fifth and a quarter of the width within their useful sizes;
  // the graph keeps the rest (at 1366 px: 290 + 340, the graph 730).
  const int width = w->width();
  const int left = std::clamp(width / 5, usefulSize(d.io).width() + 10, 420);
  const int right = std::clamp(width / 4, usefulSize(d.transforms).width() + 10, 520);
  w->resizeDocks({d.io, d.transforms}, {left, right}, Qt::Horizontal);
  const int h = columnHeight(w);
  w->resizeDocks({d.io, d.properties}, {h * 11 / 20, h * 9 / 20}, Qt::Vertical);
  w->resizeDocks({d.transforms, d.step}, {h * 3 / 5, h * 2 / 5}, Qt::Vertical);
}

void showBottomDock(QMainWindow* w, QDockWidget* dock) {
  dock->show();
  dock->raise();
  // About 45% of the height, leaving the left column (above it) its useful
  // sizes (docks and their title bars), never below its own.
  QList<QDockWidget*> left;
  QList<int> left_useful;
  int sides = 0;
  for (QDockWidget* d : w->findChildren<QDockWidget*>())
    if (w->dockWidgetArea(d) == Qt::LeftDockWidgetArea && d->isVisible() && !d->visibleRegion().isEmpty()) {
      left << d;
      left_useful << usefulSize(d).height() + kTitleBar;
      sides += left_useful.back();
    }
  const int useful = usefulSize(dock).height() + kTitleBar;
  const int h = std::max(useful, std::min(columnHeight(w) * 9 / 20, columnHeight(w) - sides));
  w->resizeDocks({dock}, {h}, Qt::Vertical);
  // Qt takes the height from the lowest dock of the column first: share
  // what is left in proportion to their useful sizes instead.
  const int rest = columnHeight(w) - h;
  if (!left.isEmpty() && sides > 0) {
    QList<int> heights;
    for (int u : left_useful) heights << rest * u / sides;
    w->resizeDocks(left, heights, Qt::Vertical);
  }
}

QRect fitWindowGeometry(const QRect& available, const QRect& saved) {
  if (available.isEmpty()) return saved;
  if (saved.isEmpty()) return available;
  QRect r(saved.topLeft(), saved.size().boundedTo(available.size()));
  if (r.right() > available.right()) r.moveRight(available.right());
  if (r.bottom() > available.bottom()) r.moveBottom(available.bottom());
  if (r.left() < available.left()) r.moveLeft(available.left());
  if (r.top() < available.top()) r.moveTop(available.top());
  return r;
}

}  // namespace gds::ui
