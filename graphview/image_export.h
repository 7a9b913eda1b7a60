// PNG and SVG images of a graph scene: the whole graph or a given scene
// rectangle (the ui/ passes the view's visible rectangle for "current view").
#pragma once

#include <QRectF>
#include <QString>

#include "model/status.h"

namespace gds::graphview {

class GraphScene;

struct ImageOptions {
  QRectF source;          // scene rectangle; empty: the whole graph
  double scale = 1.0;     // pixels per scene unit for PNG
  // Larger PNGs are scaled down to stay within QImage's limits and memory.
  double max_side = 32000;      // pixels
  double max_pixels = 150e6;    // width x height
};

// Format from the extension: .png or .svg. Errors name the file.
Status exportImage(GraphScene& scene, const QString& path, const ImageOptions& options = {});
Status exportPng(GraphScene& scene, const QString& path, const ImageOptions& options = {});
Status exportSvg(GraphScene& scene, const QString& path, const ImageOptions& options = {});

}  // namespace gds::graphview
