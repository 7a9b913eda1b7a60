// The colours of op categories and name-scope frames, in one place for the
// graph view (graphview/style.cc) and the rich DOT writer (model/dot_export.h),
// so a graph reads alike in the window and in any Graphviz viewer. The
// palette follows Netron's: dark category headers on light boxes.
#pragma once

#include <string>

#include "model/op_metadata.h"

namespace gds::model {

struct Rgb {
  int r = 0, g = 0, b = 0;
  std::string hex() const;  // "#335588"
};

struct CategoryColours {
  Rgb header;  // title band fill
  Rgb text;    // title text
};
CategoryColours categoryColours(OpCategory category);

// A name scope's frame: fills alternate by nesting depth.
Rgb scopeFrameFill(int depth);
Rgb scopeFrameBorder();

}  // namespace gds::model
