#include "graphview/style.h"

#include <QStringList>

#include "model/op_colours.h"

namespace gds::graphview {

using model::OpCategory;

OpCategory categoryOf(const std::string& op) {
  OpCategory c = model::OpRegistry::instance().category(op);
  if (c != OpCategory::Other) return c;
  // Op types the metadata does not describe (training, queue and gradient
  // ops of TensorFlow's long tail): a guess from the parts of the name, in
  // this order, so that their colours stay meaningful.
  struct Guess {
    const char* part;
    bool prefix;  // else anywhere in the name
    OpCategory category;
  };
  static const Guess kGuesses[] = {
      {"Quantize", true, OpCategory::Quantization},  {"Dequantize", true, OpCategory::Quantization},
      {"Requantize", true, OpCategory::Quantization}, {"FakeQuant", false, OpCategory::Quantization},
      {"Conv", false, OpCategory::Layer},             {"MatMul", true, OpCategory::Layer},
      {"BatchMatMul", true, OpCategory::Layer},       {"GRU", false, OpCategory::Layer},
      {"Pool", false, OpCategory::Pool},              {"BatchNorm", false, OpCategory::Normalization},
      {"Normalization", false, OpCategory::Normalization}, {"Iterator", false, OpCategory::Data},
      {"Reader", false, OpCategory::Data},            {"Queue", false, OpCategory::Data},
      {"Apply", true, OpCategory::Training},          {"ResourceApply", true, OpCategory::Training},
      {"Assign", true, OpCategory::Training},         {"Grad", false, OpCategory::Training},
  };
  for (const Guess& g : kGuesses)
    if (g.prefix ? op.rfind(g.part, 0) == 0 : op.find(g.part) != std::string::npos) return g.category;
  return OpCategory::Other;
}

namespace {
QColor toQColor(const model::Rgb& c) { return QColor(c.r, c.g, c.b); }
}  // namespace

CategoryStyle styleFor(OpCategory category) {
  const model::CategoryColours c = model::categoryColours(category);
  return {toQColor(c.header), toQColor(c.text)};
}

namespace style {
QFont titleFont() {
  QFont f(QStringLiteral("DejaVu Sans"));
  f.setPixelSize(11);
  f.setBold(true);
  return f;
}
QFont nameFont() {
  QFont f(QStringLiteral("DejaVu Sans"));
  f.setPixelSize(10);
  return f;
}
QFont smallFont() {
  QFont f(QStringLiteral("DejaVu Sans"));
  f.setPixelSize(9);
  return f;
}
QColor background() { return QColor(250, 250, 250); }
QColor edge() { return QColor(96, 96, 96); }
QColor controlEdge() { return QColor(160, 160, 160); }
QColor nodeBody() { return QColor(255, 255, 255); }
QColor nodeBorder() { return QColor(120, 120, 120); }
QColor selection() { return QColor(255, 140, 0); }
QColor searchHit() { return QColor(255, 214, 0); }
QColor frameFill(int depth) { return toQColor(model::scopeFrameFill(depth)); }
QColor frameBorder() { return toQColor(model::scopeFrameBorder()); }
QColor metaFill() { return QColor(236, 241, 248); }
QColor inputFill() { return QColor(38, 38, 38); }
QColor outputBorder() { return QColor(192, 57, 43); }
}  // namespace style

QString dimsText(const std::vector<std::int64_t>& dims) {
  QStringList parts;
  for (auto d : dims) parts << (d < 0 ? QStringLiteral("?") : QString::number(d));
  return parts.join(QChar(0x00D7));
}

}  // namespace gds::graphview
