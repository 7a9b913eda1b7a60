#include "graphview/style.h"

#include <QStringList>

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

CategoryStyle styleFor(OpCategory category) {
  switch (category) {
    case OpCategory::Layer: return {QColor(51, 85, 136), Qt::white};
    case OpCategory::Activation: return {QColor(112, 41, 33), Qt::white};
    case OpCategory::Pool: return {QColor(51, 85, 51), Qt::white};
    case OpCategory::Normalization: return {QColor(51, 85, 68), Qt::white};
    case OpCategory::Tensor: return {QColor(108, 79, 71), Qt::white};
    case OpCategory::Quantization: return {QColor(98, 64, 140), Qt::white};
    case OpCategory::Control: return {QColor(85, 85, 85), Qt::white};
    case OpCategory::Constant: return {QColor(166, 128, 58), Qt::white};
    case OpCategory::Data: return {QColor(38, 38, 38), Qt::white};
    case OpCategory::Training: return {QColor(138, 60, 98), Qt::white};
    case OpCategory::Math: return {QColor(214, 222, 232), QColor(20, 20, 20)};
    case OpCategory::Other: break;
  }
  return {QColor(226, 226, 226), QColor(20, 20, 20)};
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
QColor frameFill(int depth) {
  static const QColor fills[] = {QColor(242, 245, 250), QColor(233, 238, 246), QColor(224, 231, 242)};
  return fills[depth % 3];
}
QColor frameBorder() { return QColor(160, 172, 190); }
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
