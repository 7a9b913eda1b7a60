#include "graphview/graph_items.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

#include "graphview/scene_data.h"
#include "graphview/style.h"

namespace gds::graphview {
namespace {

// Below this scale text is unreadable anyway: skip it (and most detail).
constexpr double kTextLod = 0.42;
constexpr double kShapeLod = 0.16;

void drawBadge(QPainter* p, const QRectF& box, const QString& text, const QColor& fill, const QColor& fg) {
  QFont f = style::smallFont();
  f.setBold(true);
  QFontMetricsF fm(f);
  double w = fm.horizontalAdvance(text) + 8;
  QRectF r(box.right() - w + 4, box.top() - 8, w, 13);
  p->setPen(QPen(QColor(255, 255, 255), 1));
  p->setBrush(fill);
  p->drawRoundedRect(r, 6, 6);
  p->setPen(fg);
  p->setFont(f);
  p->drawText(r, Qt::AlignCenter, text);
}

// The function a call's scope holds, on the scope's top-left edge (elided
// in the middle to the scope's width: generated names are long).
void drawFunctionBadge(QPainter* p, const QRectF& box, const std::string& function) {
  QFont f = style::smallFont();
  f.setBold(true);
  QFontMetricsF fm(f);
  const QString text = fm.elidedText(QStringLiteral("\u0192 ") + QString::fromStdString(function), Qt::ElideMiddle,
                                     std::max(40.0, box.width() - 24));
  QRectF r(box.left() + 6, box.top() - 8, fm.horizontalAdvance(text) + 10, 13);
  p->setPen(QPen(QColor(255, 255, 255), 1));
  p->setBrush(QColor(108, 72, 160));
  p->drawRoundedRect(r, 6, 6);
  p->setPen(Qt::white);
  p->setFont(f);
  p->drawText(r, Qt::AlignCenter, text);
}

void drawMark(QPainter* p, const QRectF& box, int mark) {
  const bool in = mark == 1;
  QRectF r(box.left() - 4, box.top() - 8, in ? 22 : 30, 13);
  p->setPen(Qt::NoPen);
  p->setBrush(in ? QColor(39, 174, 96) : style::outputBorder());
  p->drawRoundedRect(r, 6, 6);
  QFont f = style::smallFont();
  f.setBold(true);
  p->setFont(f);
  p->setPen(Qt::white);
  p->drawText(r, Qt::AlignCenter, in ? QStringLiteral("IN") : QStringLiteral("OUT"));
}

}  // namespace

// ---------------------------------------------------------------- NodeItem

NodeItem::NodeItem(const ItemLabels* labels, std::shared_ptr<const SceneData> data, int node, const QRectF& rect)
    : labels_(labels), data_(std::move(data)), node_(node), size_(rect.size()) {
  setPos(rect.topLeft());
  setFlag(ItemIsSelectable);
  setAcceptHoverEvents(false);
  setZValue(200);
}

QRectF NodeItem::boundingRect() const { return QRectF(-8, -12, size_.width() + 16, size_.height() + 20); }

QPainterPath NodeItem::shape() const {
  QPainterPath p;
  p.addRect(QRectF(QPointF(0, 0), size_));
  return p;
}

void NodeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  const SceneData& d = *data_;
  const NodeLook& look = d.look(node_);
  const QRectF r(QPointF(0, 0), size_);
  const double lod = option->levelOfDetailFromTransform(p->worldTransform());
  const QColor overlay = d.overlayFill(node_);
  const bool selected = isSelected();
  const bool hit = d.nodeHit(node_);
  if (lod < kShapeLod) {
    QColor c = overlay.isValid() ? overlay : look.header;
    if (look.model_input) c = style::inputFill();
    if (hit) c = style::searchHit();
    if (selected) c = style::selection();
    p->fillRect(r, c);
    return;
  }
  p->setRenderHint(QPainter::Antialiasing, true);
  if (hit) {
    p->setPen(Qt::NoPen);
    p->setBrush(style::searchHit());
    p->drawRoundedRect(r.adjusted(-5, -5, 5, 5), style::kRadius + 4, style::kRadius + 4);
  }
  QPen border(selected ? style::selection() : (look.model_output ? style::outputBorder() : style::nodeBorder()),
              selected ? 2.5 : (look.model_output ? 1.8 : 0.8));
  const bool text = lod >= kTextLod;
  if (look.model_input) {
    // Model inputs: a dark pill, as Netron draws graph inputs.
    const double radius = std::min(r.height() / 2, 12.0);
    p->setPen(selected ? border : QPen(Qt::NoPen));
    p->setBrush(overlay.isValid() ? overlay : style::inputFill());
    p->drawRoundedRect(r, radius, radius);
    if (text) {
      p->setPen(overlay.isValid() ? QColor(20, 20, 20) : QColor(Qt::white));
      p->setFont(style::titleFont());
      p->drawText(QRectF(0, 0, r.width(), style::kTitleHeight), Qt::AlignCenter, look.title);
      p->setFont(style::nameFont());
      p->drawText(QRectF(0, style::kTitleHeight - 3, r.width(), style::kRowHeight), Qt::AlignCenter,
                  labels_->full_names ? look.full_name : look.name);
    }
  } else {
    QPainterPath outline;
    outline.addRoundedRect(r, style::kRadius, style::kRadius);
    p->fillPath(outline, overlay.isValid() ? overlay : style::nodeBody());
    p->save();
    p->setClipPath(outline);
    p->fillRect(QRectF(0, 0, r.width(), style::kTitleHeight), look.header);
    p->restore();
    p->setPen(border);
    p->setBrush(Qt::NoBrush);
    p->drawPath(outline);
    if (text) {
      p->setPen(look.title_color);
      p->setFont(style::titleFont());
      p->drawText(QRectF(4, 0, r.width() - 8, style::kTitleHeight), Qt::AlignCenter, look.title);
      p->setPen(QColor(40, 40, 40));
      p->setFont(style::nameFont());
      double y = style::kTitleHeight + 1;
      p->drawText(QRectF(6, y, r.width() - 12, style::kRowHeight), Qt::AlignCenter,
                  labels_->full_names ? look.full_name : look.name);
      y += style::kRowHeight;
      if (!look.weights.empty()) {
        p->setPen(QPen(QColor(220, 220, 220), 0.8));
        p->drawLine(QPointF(1, y + 1), QPointF(r.width() - 1, y + 1));
        p->setFont(style::smallFont());
        p->setPen(QColor(70, 70, 70));
        for (const QString& row : look.weights) {
          p->drawText(QRectF(7, y + 2, r.width() - 12, style::kRowHeight - 2), Qt::AlignLeft | Qt::AlignVCenter, row);
          y += style::kRowHeight - 2;
        }
        if (look.more_weights > 0)
          p->drawText(QRectF(7, y + 2, r.width() - 12, style::kRowHeight - 2), Qt::AlignLeft | Qt::AlignVCenter,
                      QStringLiteral("+%1 more").arg(look.more_weights));
      }
    }
  }
  if (text) {
    if (int mark = d.markOf(node_)) drawMark(p, r, mark);
    QString badge = d.overlayBadge(node_);
    if (!badge.isEmpty()) drawBadge(p, r, badge, QColor(40, 40, 40), Qt::white);
  }
}

// ---------------------------------------------------------------- GroupItem

GroupItem::GroupItem(const ItemLabels* labels, std::shared_ptr<const SceneData> data, int group, const QRectF& rect,
                     bool expanded)
    : labels_(labels), data_(std::move(data)), group_(group), size_(rect.size()), expanded_(expanded) {
  setPos(rect.topLeft());
  setFlag(ItemIsSelectable, !expanded);
  setZValue(expanded ? data_->hierarchy().group(group).depth : 200);
}

QRectF GroupItem::boundingRect() const {
  return expanded_ ? QRectF(QPointF(-2, -2), size_ + QSizeF(4, 4)) : QRectF(-8, -12, size_.width() + 16, size_.height() + 20);
}

QPainterPath GroupItem::shape() const {
  QPainterPath p;
  p.addRect(expanded_ ? QRectF(0, 0, size_.width(), FrameMetrics::kHeader) : QRectF(QPointF(0, 0), size_));
  return p;
}

void GroupItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  const SceneData& d = *data_;
  const auto& grp = d.hierarchy().group(group_);
  const QRectF r(QPointF(0, 0), size_);
  const double lod = option->levelOfDetailFromTransform(p->worldTransform());
  const bool text = lod >= kTextLod;
  const int hits = d.groupHits(group_);
  p->setRenderHint(QPainter::Antialiasing, lod >= kShapeLod);
  if (expanded_) {
    p->setPen(QPen(style::frameBorder(), 1, Qt::SolidLine));
    p->setBrush(style::frameFill(grp.depth));
    p->drawRoundedRect(r, 8, 8);
    if (text) {
      p->setFont(style::titleFont());
      p->setPen(QColor(60, 72, 90));
      p->drawText(QRectF(10, 2, r.width() - 20, FrameMetrics::kHeader - 4), Qt::AlignLeft | Qt::AlignVCenter,
                  QStringLiteral("\u2212  ") + QString::fromStdString(grp.label));
      p->setFont(style::smallFont());
      p->setPen(QColor(110, 120, 135));
      p->drawText(QRectF(10, 2, r.width() - 20, FrameMetrics::kHeader - 4), Qt::AlignRight | Qt::AlignVCenter,
                  QStringLiteral("%1 nodes").arg(grp.node_count));
      if (!grp.function.empty()) drawFunctionBadge(p, r, grp.function);
    }
    return;
  }
  const QColor overlay = d.groupOverlayFill(group_);
  const QColor fill = overlay.isValid() ? overlay : style::metaFill();
  if (lod < kShapeLod) {
    p->fillRect(r, isSelected() ? style::selection() : (hits ? style::searchHit() : QColor(150, 165, 190)));
    return;
  }
  if (hits) {
    p->setPen(Qt::NoPen);
    p->setBrush(style::searchHit());
    p->drawRoundedRect(r.adjusted(-5, -5, 5, 5), 12, 12);
  }
  // A stack of cards: the scope holds many nodes.
  p->setPen(QPen(style::frameBorder(), 1));
  p->setBrush(fill.darker(104));
  p->drawRoundedRect(r.adjusted(4, 4, 4, 4).intersected(r.adjusted(4, 4, 4, 4)), 9, 9);
  p->setBrush(fill);
  p->setPen(QPen(isSelected() ? style::selection() : style::frameBorder(), isSelected() ? 2.5 : 1.2));
  p->drawRoundedRect(r, 9, 9);
  if (!text) return;
  const QStringList lines = d.metaLines(group_, labels_->full_names);
  p->setFont(style::titleFont());
  p->setPen(QColor(30, 45, 70));
  p->drawText(QRectF(8, 4, r.width() - 16, 18), Qt::AlignCenter, QStringLiteral("+  ") + lines.value(0));
  p->setFont(style::nameFont());
  p->setPen(QColor(70, 80, 95));
  for (int i = 1; i < lines.size(); ++i)
    p->drawText(QRectF(8, 6 + 16.0 * i, r.width() - 16, 15), Qt::AlignCenter, lines[i]);
  if (!grp.function.empty()) drawFunctionBadge(p, r, grp.function);
  QString badge = d.groupOverlayBadge(group_);
  if (!badge.isEmpty()) drawBadge(p, r, badge, QColor(40, 40, 40), Qt::white);
  if (hits) drawBadge(p, r.adjusted(0, 0, badge.isEmpty() ? 0 : -60, 0), QStringLiteral("%1 found").arg(hits),
                      style::searchHit().darker(130), Qt::black);
}

// ---------------------------------------------------------------- EdgeItem

EdgeItem::EdgeItem(const ItemLabels* labels, std::shared_ptr<const SceneData> data, int group, int bundle,
                   const QPainterPath& path, bool arrow)
    : labels_(labels), data_(std::move(data)), group_(group), bundle_(bundle), path_(path) {
  const auto& b = data_->hierarchy().bundles(group)[bundle];
  control_ = b.data == 0;
  const int count = b.data + b.control;
  width_ = std::min(3.6, 1.1 + 0.45 * std::log2(static_cast<double>(count)));
  if (arrow && path_.elementCount() >= 2) {
    QPointF tip = path_.pointAtPercent(1.0);
    QPointF before = path_.pointAtPercent(0.97);
    if (QLineF(before, tip).length() < 0.5 && path_.elementCount() >= 2) before = path_.elementAt(path_.elementCount() - 2);
    QLineF dir(tip, before);
    if (dir.length() > 0.01) {
      dir.setLength(7 + width_);
      QPointF base = dir.p2();
      QPointF normal(-(base.y() - tip.y()), base.x() - tip.x());
      double len = std::hypot(normal.x(), normal.y());
      normal *= (3.2 + width_ / 2) / len;
      arrow_ << tip << base + normal << base - normal;
    }
  }
  bounds_ = path_.controlPointRect().adjusted(-8, -8, 8, 8);
  if (labels->edge_labels) bounds_ = bounds_.united(QRectF(path_.pointAtPercent(0.5), QSizeF(1, 1)).adjusted(-4, -10, 200, 10));
  setZValue(100);
  setAcceptHoverEvents(false);
  setAcceptedMouseButtons(Qt::NoButton);
}

void EdgeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = option->levelOfDetailFromTransform(p->worldTransform());
  p->setRenderHint(QPainter::Antialiasing, lod >= kShapeLod);
  QPen pen(control_ ? style::controlEdge() : style::edge(), width_);
  if (control_) pen.setDashPattern({4, 3});
  pen.setCapStyle(Qt::FlatCap);
  p->setPen(pen);
  p->setBrush(Qt::NoBrush);
  p->drawPath(path_);
  if (!arrow_.isEmpty()) {
    p->setPen(Qt::NoPen);
    p->setBrush(control_ ? style::controlEdge() : style::edge());
    p->drawPolygon(arrow_);
  }
  if (lod >= 0.6 && labels_->edge_labels) {
    QString label = data_->edgeLabel(group_, bundle_);
    if (label.isEmpty()) return;
    p->setFont(style::smallFont());
    QFontMetricsF fm(p->font());
    QPointF mid = path_.pointAtPercent(0.5);
    QRectF box(mid + QPointF(4, -6), QSizeF(fm.horizontalAdvance(label) + 6, 12));
    p->setPen(Qt::NoPen);
    p->setBrush(QColor(255, 255, 255, 220));
    p->drawRoundedRect(box, 3, 3);
    p->setPen(QColor(60, 60, 60));
    p->drawText(box, Qt::AlignCenter, label);
  }
}

}  // namespace gds::graphview
