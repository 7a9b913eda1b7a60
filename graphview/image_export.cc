#include "graphview/image_export.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

#include "graphview/graph_scene.h"
#include "model/io.h"

namespace gds::graphview {
namespace {

QRectF sourceRect(GraphScene& scene, const ImageOptions& options) {
  if (!options.source.isEmpty()) return options.source;
  return scene.currentLayout().bounds.adjusted(-16, -16, 16, 16);
}

// Through model::writeFileAtomic, as every file gdstudio writes: the
// temporary is removed on errors and signals, the target keeps its mode, a
// FIFO or /dev/stdout is written directly.
Status writeEncoded(const QString& path, const QByteArray& bytes) {
  return model::writeFileAtomic(path.toStdString(), std::string(bytes.constData(), static_cast<size_t>(bytes.size())));
}

}  // namespace

Status exportImage(GraphScene& scene, const QString& path, const ImageOptions& options) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("png")) return exportPng(scene, path, options);
  if (suffix == QLatin1String("svg")) return exportSvg(scene, path, options);
  return Status::Error("'" + path.toStdString() + "': unsupported image format '." + suffix.toStdString() +
                       "' (expected .png or .svg)");
}

Status exportPng(GraphScene& scene, const QString& path, const ImageOptions& options) {
  const QRectF src = sourceRect(scene, options);
  if (src.isEmpty()) return Status::Error("'" + path.toStdString() + "': the graph view is empty");
  double scale = options.scale;
  const double longest = std::max(src.width(), src.height()) * scale;
  if (longest > options.max_side) scale *= options.max_side / longest;
  const double area = src.width() * src.height() * scale * scale;
  if (area > options.max_pixels) scale *= std::sqrt(options.max_pixels / area);
  QImage image(std::max(1, static_cast<int>(std::ceil(src.width() * scale))),
               std::max(1, static_cast<int>(std::ceil(src.height() * scale))), QImage::Format_ARGB32_Premultiplied);
  if (image.isNull()) return Status::Error("'" + path.toStdString() + "': not enough memory for the image");
  image.fill(scene.backgroundBrush().color());
  {
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    scene.render(&painter, QRectF(0, 0, image.width(), image.height()), src);
  }
  QByteArray bytes;
  {
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG", 80))
      return Status::Error("'" + path.toStdString() + "': cannot encode the PNG image");
  }
  return writeEncoded(path, bytes);
}

Status exportSvg(GraphScene& scene, const QString& path, const ImageOptions& options) {
  const QRectF src = sourceRect(scene, options);
  if (src.isEmpty()) return Status::Error("'" + path.toStdString() + "': the graph view is empty");
  QByteArray bytes;
  {
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(src.size().toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), src.size()));
    svg.setTitle(QStringLiteral("Graph"));
    QPainter painter(&svg);
    painter.fillRect(QRectF(QPointF(0, 0), src.size()), scene.backgroundBrush());
    scene.render(&painter, QRectF(QPointF(0, 0), src.size()), src);
  }
  return writeEncoded(path, bytes);
}

}  // namespace gds::graphview
