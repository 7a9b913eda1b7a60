// Where the main window's docks go and how large they start, for screens from
// 1366x768 up: every dock at least its useful size (settings, first rows and
// buttons in view), no two overlapping, the window within the screen.
//
//   Left column            Centre           Right column
//   Inputs & outputs       graph view       Transforms
//   Node properties                         Last step | Summary | History
//   --- Benchmark | Accuracy (hidden until asked for) ---
#pragma once

#include <QRect>
#include <QSize>

class QDockWidget;
class QMainWindow;

namespace gds::ui {

struct WindowDocks {
  QDockWidget* io = nullptr;
  QDockWidget* properties = nullptr;
  QDockWidget* transforms = nullptr;
  QDockWidget* step = nullptr;
  QDockWidget* summary = nullptr;
  QDockWidget* history = nullptr;
  QDockWidget* benchmark = nullptr;
  QDockWidget* accuracy = nullptr;
};

// The smallest size at which a dock is still of use (kept on the dock as a
// property): the first arrangement gives every dock at least this much, and
// the panels keep their own minimum sizes below it (their long parts
// scroll), so the window fits a 1366x768 screen without laying one dock
// over another.
void setUsefulSize(QDockWidget* dock, QSize size);
QSize usefulSize(const QDockWidget* dock);

// Places the docks in their areas (tabs, splits) and sizes the columns for
// the window's current size. Bottom docks stay as they are (hidden at first).
void arrangeDocks(QMainWindow* window, const WindowDocks& docks);

// Shows a bottom dock (Benchmark, Accuracy) at a height that shows its
// settings: about 45% of the window, at least its useful height, leaving
// the left column its useful height.
void showBottomDock(QMainWindow* window, QDockWidget* dock);

// A window geometry within `available` (the screen's area without panels):
// `saved` when it fits, moved and shrunk into the screen otherwise; the whole
// area for a first start (an empty `saved`).
QRect fitWindowGeometry(const QRect& available, const QRect& saved = QRect());

}  // namespace gds::ui
