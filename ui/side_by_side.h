// The centre of the window: the graph view, and beside it, when "show before
// and after side by side" is on, the graph before the step shown in the Last
// step dock. Each pane says which graph it is; scrolling or zooming one
// scrolls the other to the same node (the one nearest the centre that both
// graphs have) at the same zoom.
#pragma once

#include <QSplitter>

class QLabel;

namespace gds::graphview {
class GraphScene;
class GraphView;
}  // namespace gds::graphview

namespace gds::ui {

class SideBySideView : public QSplitter {
  Q_OBJECT
 public:
  SideBySideView(graphview::GraphScene* current, graphview::GraphScene* before, QWidget* parent = nullptr);

  graphview::GraphView* currentView() const { return current_view_; }
  graphview::GraphView* beforeView() const { return before_view_; }
  // Shows the before pane with its label ("Before: <step>") and labels the
  // current one; off hides both labels and the before pane.
  void showBefore(const QString& step_text);
  void hideBefore();
  bool beforeShown() const;
  QString beforeLabel() const;
  QString currentLabel() const;

  // Scrolls and zooms `to` so the node nearest `from`'s centre (that `to`'s
  // graph also has) sits where it sits in `from`. Public for the tests.
  void sync(graphview::GraphView* from, graphview::GraphView* to);

 private:
  graphview::GraphView* current_view_;
  graphview::GraphView* before_view_;
  QWidget* before_pane_;
  QLabel* before_label_;
  QLabel* current_label_;
  bool syncing_ = false;
};

}  // namespace gds::ui
