#include "graphview/graph_view.h"

#include <QContextMenuEvent>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <utility>

#include "graphview/graph_items.h"
#include "graphview/style.h"

namespace gds::graphview {
namespace {
constexpr double kMinZoom = 0.01, kMaxZoom = 8.0;
constexpr int kMinimapMargin = 24;  // pixels between the minimap and the view's edges
}

GraphView::GraphView(GraphScene* scene, QWidget* parent) : QGraphicsView(scene, parent), scene_(scene) {
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setResizeAnchor(QGraphicsView::AnchorViewCenter);
  setViewportUpdateMode(QGraphicsView::MinimalViewportUpdate);
  setOptimizationFlags(QGraphicsView::DontSavePainterState);
  setCacheMode(QGraphicsView::CacheBackground);
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  minimap_ = new Minimap(this);
  legend_ = new LegendBar(this);
  connect(scene_, &GraphScene::layoutApplied, this, &GraphView::onLayoutApplied);
  connect(scene_, &GraphScene::detaching, this, &GraphView::detachScene);
  connect(scene_, &GraphScene::overlayChanged, this, [this] {
    updateLegend();
    viewport()->update();
  });
}

double GraphView::zoom() const { return transform().m11(); }

void GraphView::setZoom(double z) {
  z = std::clamp(z, kMinZoom, kMaxZoom);
  QPointF center = mapToScene(viewport()->rect().center());
  setTransform(QTransform::fromScale(z, z));
  updateSceneRect();
  centerOn(center);
  emit zoomChanged(z);
  updateMinimapVisibility();
  emit viewChanged();
}

void GraphView::scaleBy(double factor) {
  double z = zoom();
  double target = std::clamp(z * factor, kMinZoom, kMaxZoom);
  if (target == z) return;
  scale(target / z, target / z);
  updateSceneRect();
  emit zoomChanged(target);
  updateMinimapVisibility();
  emit viewChanged();
}

// Room beyond the graph's edges as large as the minimap, so any node can be
// scrolled out from under it in whichever corner it is.
void GraphView::updateSceneRect() {
  if (!scene_) return;
  const QRectF b = scene_->currentLayout().bounds;
  if (b.isEmpty()) return;
  const double z = std::max(zoom(), kMinZoom);
  const QSize m = minimap_->size();
  const double pad = 20 / z;
  const double w = (m.width() + kMinimapMargin) / z, h = (m.height() + kMinimapMargin) / z;
  setSceneRect(b.adjusted(-pad - (minimap_left_ ? w : 0), -pad - (minimap_top_ ? h : 0), pad + (minimap_left_ ? 0 : w),
                          pad + (minimap_top_ ? 0 : h)));
}

QRect GraphView::minimapGeometry(bool left, bool top) const {
  const QSize s(std::min(200, width() / 5), std::min(150, height() / 5));
  const QRect vp = viewport()->geometry();
  return QRect(left ? vp.left() + kMinimapMargin : vp.right() + 1 - s.width() - kMinimapMargin,
               top ? vp.top() + kMinimapMargin : vp.bottom() + 1 - s.height() - kMinimapMargin, s.width(), s.height());
}

void GraphView::placeMinimap() {
  const QRect vp = viewport()->geometry();
  int best = -1;
  bool best_left = false, best_top = false;
  // Bottom right first (where it has always been), then the other corners.
  const std::pair<bool, bool> corners[] = {{false, false}, {true, false}, {false, true}, {true, true}};
  for (const auto& [left, top] : corners) {
    int covered = 0;
    if (scene_) {
      const QRect r = minimapGeometry(left, top).translated(-vp.topLeft());
      for (QGraphicsItem* item : scene_->items(mapToScene(r), Qt::IntersectsItemBoundingRect)) {
        // Node boxes and collapsed scopes (an expanded scope's frame may lie under it).
        const bool box = item->type() == NodeItem::Type ||
                         (item->type() == GroupItem::Type && (item->flags() & QGraphicsItem::ItemIsSelectable));
        covered += box;
      }
    }
    if (best < 0 || covered < best) {
      best = covered;
      best_left = left;
      best_top = top;
    }
    if (best == 0) break;
  }
  const bool moved = best_left != minimap_left_ || best_top != minimap_top_;
  minimap_left_ = best_left;
  minimap_top_ = best_top;
  const QRect g = minimapGeometry(minimap_left_, minimap_top_);
  const bool resized = g.size() != minimap_->size();
  minimap_->setGeometry(g);
  if (resized) minimap_->refresh();
  if (moved || resized) updateSceneRect();
}

bool GraphView::minimapShown() const { return minimap_->isVisible(); }

QRect GraphView::minimapRect() const {
  if (!minimap_->isVisible()) return QRect();
  return QRect(viewport()->mapFrom(this, minimap_->pos()), minimap_->size());
}

void GraphView::updateMinimapVisibility() {
  const QRectF b = scene_ ? scene_->currentLayout().bounds : QRectF();
  const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
  const bool all_visible = b.isEmpty() || visible.contains(b);
  minimap_->setVisible(minimap_wanted_ && !all_visible);
  minimap_->update();
}

void GraphView::zoomIn() { scaleBy(1.25); }
void GraphView::zoomOut() { scaleBy(1 / 1.25); }

void GraphView::detachScene() {
  scene_ = nullptr;
  setScene(nullptr);
  minimap_->refresh();
}

void GraphView::fitAll() {
  if (!scene_) return;
  QRectF r = scene_->currentLayout().bounds;
  if (r.isEmpty()) return;
  fitInView(r.adjusted(-20, -20, 20, 20), Qt::KeepAspectRatio);
  if (zoom() > 1.0) setZoom(1.0);
  updateSceneRect();
  centerOn(r.center());
  placeMinimap();
  centerOn(r.center());
  emit zoomChanged(zoom());
  updateMinimapVisibility();
}

void GraphView::showStart() {
  if (!scene_) return;
  const QRectF b = scene_->currentLayout().bounds;
  if (b.isEmpty()) return;
  const QSize v = viewport()->size();
  const double fit = std::min((v.width() - 40.0) / b.width(), (v.height() - 40.0) / b.height());
  if (fit >= kReadableZoom) {
    fitAll();
    return;
  }
  setTransform(QTransform::fromScale(kReadableZoom, kReadableZoom));
  updateSceneRect();
  const double z = kReadableZoom;
  const bool lr = scene_->leftToRight();
  // The free band beside the minimap, across the flow.
  const QSize m = minimap_->size();
  const double free_across = (lr ? v.height() - m.height() : v.width() - m.width()) - 2.0 * kMinimapMargin;
  const double extent_across = (lr ? b.height() : b.width()) * z;
  QPointF c;
  if (!lr) {
    // Top of the graph at the top of the view; across, centred in the band
    // left of the minimap when it fits there, else from the left edge.
    const double cx = extent_across <= free_across ? b.center().x() + (v.width() / 2.0 - (kMinimapMargin + free_across / 2.0)) / z
                                                   : b.left() - 20 / z + v.width() / (2 * z);
    c = QPointF(cx, b.top() - 20 / z + v.height() / (2 * z));
  } else {
    const double cy = extent_across <= free_across ? b.center().y() + (v.height() / 2.0 - (kMinimapMargin + free_across / 2.0)) / z
                                                   : b.top() - 20 / z + v.height() / (2 * z);
    c = QPointF(b.left() - 20 / z + v.width() / (2 * z), cy);
  }
  centerOn(c);
  placeMinimap();
  centerOn(c);  // the scene rect may have grown on the minimap's new side
  emit zoomChanged(zoom());
  updateMinimapVisibility();
}

void GraphView::zoomToSelection() {
  if (!scene_) return;
  QRectF r;
  for (QGraphicsItem* item : scene_->selectedItems()) r = r.united(item->sceneBoundingRect());
  if (r.isEmpty()) return;
  fitInView(r.adjusted(-60, -60, 60, 60), Qt::KeepAspectRatio);
  if (zoom() > 1.5) setZoom(1.5);
  updateSceneRect();
  emit zoomChanged(zoom());
  updateMinimapVisibility();
}

void GraphView::setMinimapVisible(bool on) {
  minimap_wanted_ = on;
  updateMinimapVisibility();
}

bool GraphView::selectAndCenter(const std::string& name) {
  if (!scene_ || !scene_->graph() || scene_->graph()->find(name) < 0) return false;
  scene_->selectNodes({name});
  if (scene_->layoutPending()) {
    pending_center_ = name;
  } else {
    centerOnName(name);
  }
  return true;
}

void GraphView::centerOnName(const std::string& name) {
  if (!scene_) return;
  QRectF r = scene_->nodeRect(name);
  if (r.isEmpty()) return;
  if (zoom() < 0.5) setZoom(0.8);
  centerOn(r.center());
  minimap_->update();
}

int GraphView::find(const QString& query, const SearchOptions& options) {
  if (!scene_) return 0;
  auto found = scene_->search(query, options);
  match_index_ = -1;
  emit searchPositionChanged(-1, static_cast<int>(found.size()));
  if (!found.empty()) stepMatch(1);
  return static_cast<int>(found.size());
}

void GraphView::findNext() { stepMatch(1); }
void GraphView::findPrevious() { stepMatch(-1); }

void GraphView::stepMatch(int delta) {
  if (!scene_) return;
  const auto& m = scene_->searchMatches();
  if (m.empty()) return;
  const int n = static_cast<int>(m.size());
  match_index_ = match_index_ < 0 ? (delta > 0 ? 0 : n - 1) : ((match_index_ + delta) % n + n) % n;
  selectAndCenter(m[match_index_]);
  emit searchPositionChanged(match_index_, n);
}

void GraphView::onLayoutApplied() {
  if (!scene_) return;
  updateSceneRect();
  if (first_layout_) {
    // A first view that would need scrolling across the flow at a readable
    // zoom shows one level less (a wide level of parallel scopes, as in a
    // hub module): the user expands what they look for. Scrolling along the
    // flow (a long chain) is natural and kept.
    const QRectF b = scene_->currentLayout().bounds;
    const bool lr = scene_->leftToRight();
    const double across = (lr ? b.height() : b.width()) * kReadableZoom;
    const double room = lr ? viewport()->height() : viewport()->width();
    if (!b.isEmpty() && across > 1.5 * room && fit_attempts_ < 4 && scene_->collapseDeepestLevel()) {
      ++fit_attempts_;
      return;  // the next layout comes back here
    }
    first_layout_ = false;
    fit_attempts_ = 0;
    showStart();
  }
  if (anchor_group_ >= 0) {
    // Keep the toggled scope where the user double-clicked it.
    for (QGraphicsItem* item : scene_->items()) {
      if (scene_->groupAt(item) != anchor_group_) continue;
      QPointF target = item->sceneBoundingRect().topLeft();
      QPointF now = mapToScene(anchor_view_pos_);
      QPointF delta = target - now;
      centerOn(mapToScene(viewport()->rect().center()) + delta + QPointF(20, 14));
      break;
    }
    anchor_group_ = -1;
  }
  if (!pending_center_.empty()) {
    std::string name = std::move(pending_center_);
    pending_center_.clear();
    centerOnName(name);
  }
  minimap_->refresh();
}

void GraphView::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) {
    QGraphicsView::wheelEvent(event);
    return;
  }
  scaleBy(std::pow(1.2, steps));
  event->accept();
}

void GraphView::mousePressEvent(QMouseEvent* event) {
  QGraphicsView::mousePressEvent(event);
  if (scene_ && event->button() == Qt::LeftButton) {
    std::string name = scene_->nodeNameAt(itemAt(event->pos()));
    if (!name.empty()) emit nodeClicked(QString::fromStdString(name));
  }
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (!scene_) {
    QGraphicsView::mouseDoubleClickEvent(event);
    return;
  }
  QGraphicsItem* item = itemAt(event->pos());
  int group = scene_->groupAt(item);
  if (group > 0) {
    anchor_group_ = group;
    anchor_view_pos_ = mapFromScene(item->sceneBoundingRect().topLeft() + QPointF(20, 14));
    bool expand = !scene_->expansion()[group];
    scene_->toggleGroup(group);
    emit scopeToggled(QString::fromStdString(scene_->hierarchy()->group(group).path), expand);
    event->accept();
    return;
  }
  std::string name = scene_->nodeNameAt(item);
  if (!name.empty()) emit nodeDoubleClicked(QString::fromStdString(name));
  QGraphicsView::mouseDoubleClickEvent(event);
}

void GraphView::contextMenuEvent(QContextMenuEvent* event) {
  if (!scene_) return;
  QGraphicsItem* item = itemAt(event->pos());
  std::string name = scene_->nodeNameAt(item);
  if (!name.empty() && !item->isSelected()) scene_->selectNodes({name});
  emit contextMenuRequested(QString::fromStdString(name), event->globalPos());
  event->accept();
}

void GraphView::keyPressEvent(QKeyEvent* event) {
  if (!scene_) {
    QGraphicsView::keyPressEvent(event);
    return;
  }
  const bool shift = event->modifiers() & Qt::ShiftModifier;
  switch (event->key()) {
    case Qt::Key_F: fitAll(); return;
    case Qt::Key_Z: zoomToSelection(); return;
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomIn(); return;
    case Qt::Key_Minus: zoomOut(); return;
    case Qt::Key_0: setZoom(1.0); return;
    case Qt::Key_F3: shift ? findPrevious() : findNext(); return;
    case Qt::Key_Escape:
      scene_->clearSelection();
      scene_->clearSearch();
      match_index_ = -1;
      return;
    case Qt::Key_Return:
    case Qt::Key_Enter:
      for (QGraphicsItem* item : scene_->selectedItems()) {
        int g = scene_->groupAt(item);
        if (g > 0) {
          scene_->toggleGroup(g);
          return;
        }
      }
      break;
    case Qt::Key_Backspace: {
      const auto sel = scene_->selectedNodes();
      if (!sel.empty()) {
        int idx = scene_->graph()->find(sel.front());
        int g = idx >= 0 ? scene_->hierarchy()->groupOf(idx) : 0;
        if (g > 0) {
          scene_->toggleGroup(g);
          return;
        }
      }
      break;
    }
    default: break;
  }
  QGraphicsView::keyPressEvent(event);
}

bool GraphView::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip && scene_) {
    auto* help = static_cast<QHelpEvent*>(event);
    QString tip = scene_->toolTipFor(itemAt(help->pos()));
    if (tip.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(help->globalPos(), tip, viewport());
    return true;
  }
  return QGraphicsView::viewportEvent(event);
}

void GraphView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  placeMinimap();
  minimap_->refresh();
  updateSceneRect();
  updateMinimapVisibility();
  updateLegend();
}

void GraphView::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  updateMinimapVisibility();
  emit viewChanged();
  if (scene_ && scene_->hasOverlay()) viewport()->update();
}

QRect GraphView::legendRect() const { return legend_->isVisible() ? legend_->geometry() : QRect(); }

void GraphView::updateLegend() {
  LegendInfo legend = scene_ ? scene_->legend() : LegendInfo();
  legend_->setLegend(legend);
  const int h = legend_->empty() ? 0 : 26;
  setViewportMargins(0, h, 0, 0);
  const int f = frameWidth();
  legend_->setGeometry(f, f, width() - 2 * f, h);
  legend_->setVisible(h > 0);
}

std::string GraphView::nodeNearestCentre(const std::function<bool(const std::string&)>& accept) const {
  if (!scene_) return {};
  const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
  const QPointF centre = visible.center();
  std::string best;
  double best_d = 0;
  for (QGraphicsItem* item : scene_->items(visible)) {
    if (item->type() != NodeItem::Type) continue;
    const std::string name = scene_->nodeNameAt(item);
    if (name.empty() || (accept && !accept(name))) continue;
    const QPointF d = item->sceneBoundingRect().center() - centre;
    const double dist = d.x() * d.x() + d.y() * d.y();
    if (best.empty() || dist < best_d) {
      best = name;
      best_d = dist;
    }
  }
  return best;
}

// ----------------------------------------------------------------- LegendBar

LegendBar::LegendBar(QWidget* parent) : QWidget(parent) {
  setObjectName("GraphLegend");
  hide();
}

void LegendBar::setLegend(const LegendInfo& legend) {
  legend_ = legend;
  update();
}

void LegendBar::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), QColor(255, 255, 255));
  p.setPen(QColor(215, 215, 215));
  p.drawLine(rect().bottomLeft(), rect().bottomRight());
  const QRectF r = QRectF(rect()).adjusted(10, 0, -10, -1);
  p.setPen(QColor(30, 30, 30));
  p.setFont(style::titleFont());
  const double title_w = QFontMetricsF(style::titleFont()).horizontalAdvance(legend_.title) + 14;
  p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, legend_.title);
  p.setFont(style::nameFont());
  const QFontMetricsF fm(style::nameFont());
  double x = r.left() + title_w;
  const double cy = r.center().y();
  if (legend_.gradient) {
    const QString unit = legend_.unit.isEmpty() ? QString() : QLatin1Char(' ') + legend_.unit;
    const QString lo = QString::number(legend_.min, 'g', 3) + unit, hi = QString::number(legend_.max, 'g', 3) + unit;
    p.setPen(QColor(60, 60, 60));
    p.drawText(QPointF(x, cy + fm.ascent() / 2 - 1), lo);
    x += fm.horizontalAdvance(lo) + 6;
    const QRectF bar(x, cy - 5, 160, 10);
    QLinearGradient grad(bar.topLeft(), bar.topRight());
    for (int i = 0; i <= 8; ++i) grad.setColorAt(i / 8.0, heatColor(i / 8.0));
    p.setPen(Qt::NoPen);
    p.setBrush(grad);
    p.drawRect(bar);
    p.setPen(QColor(60, 60, 60));
    p.drawText(QPointF(bar.right() + 6, cy + fm.ascent() / 2 - 1), hi);
    return;
  }
  for (const auto& [label, color] : legend_.entries) {
    p.setPen(QPen(QColor(150, 150, 150), 0.8));
    p.setBrush(color);
    p.drawRoundedRect(QRectF(x, cy - 6, 14, 11), 2, 2);
    p.setPen(QColor(40, 40, 40));
    p.drawText(QPointF(x + 19, cy + fm.ascent() / 2 - 1), label);
    x += 19 + fm.horizontalAdvance(label) + 16;
  }
}

// ----------------------------------------------------------------- Minimap

Minimap::Minimap(GraphView* view) : QWidget(view->viewport()), view_(view) {
  setParent(view);
  setCursor(Qt::PointingHandCursor);
  setAttribute(Qt::WA_OpaquePaintEvent, false);
}

void Minimap::refresh() {
  GraphScene* scene = view_->graphScene();
  source_ = scene ? scene->currentLayout().bounds : QRectF();
  if (source_.isEmpty() || width() < 10 || height() < 10) {
    thumb_ = QImage();
    update();
    return;
  }
  QSizeF fit = source_.size().scaled(QSizeF(width() - 8, height() - 8), Qt::KeepAspectRatio);
  thumb_ = QImage(std::max(1, static_cast<int>(fit.width())), std::max(1, static_cast<int>(fit.height())),
                  QImage::Format_ARGB32_Premultiplied);
  thumb_.fill(style::background());
  QPainter p(&thumb_);
  scene->render(&p, QRectF(QPointF(0, 0), fit), source_);
  update();
}

QRectF Minimap::thumbRect() const {
  return QRectF((width() - thumb_.width()) / 2.0, (height() - thumb_.height()) / 2.0, thumb_.width(), thumb_.height());
}

void Minimap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(QPen(QColor(180, 180, 180), 1));
  p.setBrush(QColor(255, 255, 255, 230));
  p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 5, 5);
  if (thumb_.isNull()) return;
  const QRectF t = thumbRect();
  p.drawImage(t.topLeft(), thumb_);
  // The visible area, in thumbnail coordinates.
  QRectF visible = view_->mapToScene(view_->viewport()->rect()).boundingRect();
  const double sx = t.width() / source_.width(), sy = t.height() / source_.height();
  QRectF v(t.left() + (visible.left() - source_.left()) * sx, t.top() + (visible.top() - source_.top()) * sy,
           visible.width() * sx, visible.height() * sy);
  p.setPen(QPen(style::selection(), 1.5));
  p.setBrush(QColor(255, 140, 0, 40));
  p.drawRect(v.intersected(QRectF(rect())));
}

void Minimap::centerAt(const QPointF& pos) {
  if (thumb_.isNull()) return;
  const QRectF t = thumbRect();
  QPointF scene_pos(source_.left() + (pos.x() - t.left()) / t.width() * source_.width(),
                    source_.top() + (pos.y() - t.top()) / t.height() * source_.height());
  view_->centerOn(scene_pos);
  update();
}

void Minimap::mousePressEvent(QMouseEvent* event) { centerAt(event->position()); }
void Minimap::mouseMoveEvent(QMouseEvent* event) {
  if (event->buttons() & Qt::LeftButton) centerAt(event->position());
}

}  // namespace gds::graphview
