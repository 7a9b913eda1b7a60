// Colours, fonts and metrics of the graph view, in one place. The palette
// follows Netron's (dark category headers on light boxes) so users coming
// from it read the graph at a glance.
#pragma once

#include <QColor>
#include <QFont>
#include <QString>

#include <string>

#include "model/op_metadata.h"

namespace gds::graphview {

// Category from the op metadata (model/op_metadata.pbtxt), with a guess from
// parts of the name ("Grad", "Queue", "Pool", ...) for op types it does not
// describe.
model::OpCategory categoryOf(const std::string& op);

struct CategoryStyle {
  QColor header;  // title band fill
  QColor text;    // title text
};
CategoryStyle styleFor(model::OpCategory category);

namespace style {
QFont titleFont();   // op type
QFont nameFont();    // node name, meta-node lines
QFont smallFont();   // weight badges, edge labels
inline constexpr double kTitleHeight = 20;
inline constexpr double kRowHeight = 15;
inline constexpr double kRadius = 5;
inline constexpr double kMinNodeWidth = 64;
inline constexpr int kMaxWeightRows = 3;
QColor background();
QColor edge();
QColor controlEdge();
QColor nodeBody();
QColor nodeBorder();
QColor selection();
QColor searchHit();
QColor frameFill(int depth);
QColor frameBorder();
QColor metaFill();
QColor inputFill();
QColor outputBorder();
}  // namespace style

// Short dims spelling used on badges and labels: "3×3×8×16".
QString dimsText(const std::vector<std::int64_t>& dims);

}  // namespace gds::graphview
