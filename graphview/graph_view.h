// The interactive view of a GraphScene: wheel zoom around the cursor, drag
// to pan, fit, zoom to selection, a minimap, keyboard shortcuts, hover
// tooltips, search with next/previous, a legend for overlays, and the
// signals the ui/ layer connects to (node names, never item pointers).
//
// Shortcuts (active when the view has focus): F fit, Z zoom to selection,
// + / - zoom, 0 actual size, F3 / Shift+F3 next / previous match, Enter
// expand or collapse the selected scope, Backspace collapse the scope of the
// selection, Esc clear selection and search.
#pragma once

#include <QGraphicsView>
#include <QImage>
#include <QPointer>

#include <functional>
#include <string>
#include <vector>

#include "graphview/graph_scene.h"
#include "graphview/scene_data.h"

namespace gds::graphview {

class LegendBar;
class Minimap;

class GraphView : public QGraphicsView {
  Q_OBJECT

 public:
  explicit GraphView(GraphScene* scene, QWidget* parent = nullptr);
  GraphScene* graphScene() const { return scene_; }  // null once the scene is gone
  // Called by ~GraphScene while it is still whole: the view shows nothing
  // from then on (the scene may be deleted before its views).
  void detachScene();

  // The zoom at which node labels read (the op type at 10 px, the name at
  // 9 px): the first view of a graph never starts below it.
  static constexpr double kReadableZoom = 0.9;

  double zoom() const;  // 1.0: one scene unit per pixel
  void setZoom(double zoom);
  void zoomIn();
  void zoomOut();
  void fitAll();
  void zoomToSelection();
  // The user's choice; the minimap only shows while part of the graph is
  // outside the view (with everything visible there is nothing to find).
  void setMinimapVisible(bool on);
  bool minimapVisible() const { return minimap_wanted_; }
  bool minimapShown() const;
  // The minimap's area in viewport coordinates (empty when hidden).
  QRect minimapRect() const;
  // The legend of an overlay (heat map, changes) is a strip above the
  // viewport, so it never covers a node or a scope header. Its area in the
  // view's coordinates; empty when there is no overlay.
  QRect legendRect() const;
  // The node nearest to the viewport's centre among those `accept` takes
  // (all when null); empty when none is in view.
  std::string nodeNearestCentre(const std::function<bool(const std::string&)>& accept = nullptr) const;
  // The next layout is a new graph's first: show it as on opening (see
  // onLayoutApplied). MainWindow calls it when another model is opened.
  void showNextAsNew() { first_layout_ = true; fit_attempts_ = 0; }

  // Reveals (expanding its scopes), selects and centres a node. False when
  // the graph has no such node.
  bool selectAndCenter(const std::string& name);

  // Search: highlights the matches and returns their count; next/previous
  // select and centre them in turn.
  int find(const QString& query, const SearchOptions& options = {});
  void findNext();
  void findPrevious();
  int currentMatch() const { return match_index_; }

 signals:
  void nodeClicked(const QString& name);
  void nodeDoubleClicked(const QString& name);
  // name is empty when the click is on the background or a scope.
  void contextMenuRequested(const QString& name, const QPoint& globalPos);
  void scopeToggled(const QString& path, bool expanded);
  void zoomChanged(double zoom);
  // The visible part of the scene moved or was scaled (scroll, zoom, fit).
  void viewChanged();
  void searchPositionChanged(int index, int count);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  bool viewportEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;

 private:
  void onLayoutApplied();
  // The first view of a graph: fit when that reads, else the readable zoom
  // at the start of the graph (its top, or its left when laid out left to
  // right), clear of the minimap.
  void showStart();
  void updateMinimapVisibility();
  // Puts the minimap in the viewport corner where it covers the fewest
  // node boxes (bottom right when several are free).
  void placeMinimap();
  QRect minimapGeometry(bool left, bool top) const;  // in the view's coordinates
  void updateSceneRect();
  void updateLegend();
  void scaleBy(double factor);
  void centerOnName(const std::string& name);
  void stepMatch(int delta);

  GraphScene* scene_;
  Minimap* minimap_;
  LegendBar* legend_;
  bool first_layout_ = true;
  int fit_attempts_ = 0;
  bool minimap_wanted_ = true;
  bool minimap_left_ = false, minimap_top_ = false;  // its corner
  std::string pending_center_;
  // Keeps a toggled scope under the cursor across the re-layout.
  int anchor_group_ = -1;
  QPoint anchor_view_pos_;
  int match_index_ = -1;
};

// The legend strip above the viewport: the overlay's title, then its
// colour ramp with the range, or its categories.
class LegendBar : public QWidget {
  Q_OBJECT

 public:
  explicit LegendBar(QWidget* parent);
  void setLegend(const LegendInfo& legend);
  bool empty() const { return legend_.title.isEmpty() && legend_.entries.empty(); }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  LegendInfo legend_;
};

// The whole graph in a corner, with the visible area; click or drag to move there.
class Minimap : public QWidget {
  Q_OBJECT

 public:
  Minimap(GraphView* view);
  void refresh();  // re-renders the scene thumbnail

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  QRectF thumbRect() const;
  void centerAt(const QPointF& pos);
  GraphView* view_;
  QImage thumb_;
  QRectF source_;
};

}  // namespace gds::graphview
