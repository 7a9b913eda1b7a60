// Scene items: op node boxes, name-scope groups (collapsed meta-node or
// expanded frame) and edges. Each item shares ownership of the SceneData it
// was built from and paints only from it (plus the scene's ItemLabels), so it
// stays consistent while a new graph is being laid out.
// Painting drops text and detail when zoomed out (level of detail), so
// panning a 10k-node scene stays smooth.
#pragma once

#include <QGraphicsItem>
#include <QPainterPath>

#include <memory>

namespace gds::graphview {

class SceneData;

// What items label beside their shapes; owned by the scene (GraphScene),
// which repaints its items when it changes.
struct ItemLabels {
  bool full_names = false;   // nodes and groups by full name, not the last component
  bool edge_labels = false;  // tensor shapes on edges
};

class NodeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 101 };
  NodeItem(const ItemLabels* labels, std::shared_ptr<const SceneData> data, int node, const QRectF& rect);
  int type() const override { return Type; }
  int node() const { return node_; }  // in data()'s graph
  const SceneData& data() const { return *data_; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  const ItemLabels* labels_;
  std::shared_ptr<const SceneData> data_;
  int node_;
  QSizeF size_;
};

class GroupItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 102 };
  GroupItem(const ItemLabels* labels, std::shared_ptr<const SceneData> data, int group, const QRectF& rect, bool expanded);
  int type() const override { return Type; }
  int group() const { return group_; }  // in data()'s hierarchy
  const SceneData& data() const { return *data_; }
  bool expanded() const { return expanded_; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  const ItemLabels* labels_;
  std::shared_ptr<const SceneData> data_;
  int group_;
  QSizeF size_;
  bool expanded_;
};

class EdgeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 103 };
  EdgeItem(const ItemLabels* labels, std::shared_ptr<const SceneData> data, int group, int bundle, const QPainterPath& path,
           bool arrow);
  int type() const override { return Type; }
  QRectF boundingRect() const override { return bounds_; }
  QPainterPath shape() const override { return QPainterPath(); }  // never hit-tested
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  const ItemLabels* labels_;
  std::shared_ptr<const SceneData> data_;
  int group_, bundle_;
  QPainterPath path_;
  QPolygonF arrow_;
  QRectF bounds_;
  bool control_;
  double width_;
};

}  // namespace gds::graphview
