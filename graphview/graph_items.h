// Scene items: op node boxes, name-scope groups (collapsed meta-node or
// expanded frame) and edges. Each item shares ownership of the SceneData it
// was built from and paints only from it (plus the scene's index-free display
// options), so it stays consistent while a new graph is being laid out.
// Painting drops text and detail when zoomed out (level of detail), so
// panning a 10k-node scene stays smooth.
#pragma once

#include <QGraphicsItem>
#include <QPainterPath>

#include <memory>

namespace gds::graphview {

class GraphScene;
class SceneData;

class NodeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 101 };
  NodeItem(GraphScene* scene, std::shared_ptr<const SceneData> data, int node, const QRectF& rect);
  int type() const override { return Type; }
  int node() const { return node_; }  // in data()'s graph
  const SceneData& data() const { return *data_; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  GraphScene* scene_;
  std::shared_ptr<const SceneData> data_;
  int node_;
  QSizeF size_;
};

class GroupItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 102 };
  GroupItem(GraphScene* scene, std::shared_ptr<const SceneData> data, int group, const QRectF& rect, bool expanded);
  int type() const override { return Type; }
  int group() const { return group_; }  // in data()'s hierarchy
  const SceneData& data() const { return *data_; }
  bool expanded() const { return expanded_; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  GraphScene* scene_;
  std::shared_ptr<const SceneData> data_;
  int group_;
  QSizeF size_;
  bool expanded_;
};

class EdgeItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 103 };
  EdgeItem(GraphScene* scene, std::shared_ptr<const SceneData> data, int group, int bundle, const QPainterPath& path,
           bool arrow);
  int type() const override { return Type; }
  QRectF boundingRect() const override { return bounds_; }
  QPainterPath shape() const override { return QPainterPath(); }  // never hit-tested
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  GraphScene* scene_;
  std::shared_ptr<const SceneData> data_;
  int group_, bundle_;
  QPainterPath path_;
  QPolygonF arrow_;
  QRectF bounds_;
  bool control_;
  double width_;
};

}  // namespace gds::graphview
