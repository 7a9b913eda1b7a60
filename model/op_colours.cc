#include "model/op_colours.h"

#include <cstdio>

namespace gds::model {

std::string Rgb::hex() const {
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", r & 0xff, g & 0xff, b & 0xff);
  return text;
}

CategoryColours categoryColours(OpCategory category) {
  const Rgb white{255, 255, 255}, dark{20, 20, 20};
  switch (category) {
    case OpCategory::Layer: return {{51, 85, 136}, white};
    case OpCategory::Activation: return {{112, 41, 33}, white};
    case OpCategory::Pool: return {{51, 85, 51}, white};
    case OpCategory::Normalization: return {{51, 85, 68}, white};
    case OpCategory::Tensor: return {{108, 79, 71}, white};
    case OpCategory::Quantization: return {{98, 64, 140}, white};
    case OpCategory::Control: return {{85, 85, 85}, white};
    case OpCategory::Constant: return {{166, 128, 58}, white};
    case OpCategory::Data: return {{38, 38, 38}, white};
    case OpCategory::Training: return {{138, 60, 98}, white};
    case OpCategory::Math: return {{214, 222, 232}, dark};
    case OpCategory::Other: break;
  }
  return {{226, 226, 226}, dark};
}

Rgb scopeFrameFill(int depth) {
  static const Rgb fills[] = {{242, 245, 250}, {233, 238, 246}, {224, 231, 242}};
  return fills[(depth % 3 + 3) % 3];
}

Rgb scopeFrameBorder() { return {160, 172, 190}; }

}  // namespace gds::model
