#include "graphview/style.h"

#include <QStringList>

#include "model/op_colours.h"

namespace gds::graphview {

using model::OpCategory;

OpCategory categoryOf(const std::string& op) {
  OpCategory c = model::OpRegistry::instance().category(op);
  if (c != OpCategory::Other) return c;
  auto has = [&](const char* s) { return op.find(s) != std::string::npos; };
  auto starts = [&](const char* s) { return op.rfind(s, 0) == 0; };
  if (starts("Quantize") || starts("Dequantize") || starts("Requantize") || starts("Quantized") || has("FakeQuant"))
    return OpCategory::Quantization;
  if (has("Conv") || starts("MatMul") || starts("BatchMatMul") || op == "BiasAdd" || op == "LSTMBlockCell" ||
      has("GRU"))
    return OpCategory::Layer;
  if (op == "Relu" || op == "Relu6" || op == "Elu" || op == "Selu" || op == "LeakyRelu" || op == "Sigmoid" ||
      op == "Tanh" || op == "Softmax" || op == "LogSoftmax" || op == "Softplus" || op == "Softsign")
    return OpCategory::Activation;
  if (has("Pool")) return OpCategory::Pool;
  if (has("BatchNorm") || op == "LRN" || has("Normalization") || op == "L2Loss") return OpCategory::Normalization;
  if (op == "Placeholder" || op == "PlaceholderWithDefault" || has("Iterator") || has("Reader") || has("Queue") ||
      op == "DecodeJpeg" || op == "DecodePng" || op == "DecodeWav" || op == "AudioSpectrogram" || op == "Mfcc")
    return OpCategory::Data;
  if (op == "Const" || op == "VariableV2" || op == "Variable" || op == "VarHandleOp") return OpCategory::Constant;
  if (starts("Apply") || starts("ResourceApply") || starts("Assign") || has("Grad") || op == "SaveV2" ||
      op == "RestoreV2" || op == "Save" || op == "Restore" || op == "ShardedFilename" || op == "MergeV2Checkpoints")
    return OpCategory::Training;
  if (op == "Switch" || op == "Merge" || op == "Enter" || op == "Exit" || op == "NextIteration" ||
      op == "LoopCond" || op == "NoOp" || op == "Assert" || op == "If" || op == "While" || op == "StatelessIf" ||
      op == "StatelessWhile" || op == "ControlTrigger")
    return OpCategory::Control;
  if (op == "Reshape" || op == "Squeeze" || op == "ExpandDims" || op == "ConcatV2" || op == "Concat" ||
      op == "Pack" || op == "Unpack" || op == "Transpose" || op == "Split" || op == "SplitV" || op == "Slice" ||
      op == "StridedSlice" || op == "Gather" || op == "GatherV2" || op == "Pad" || op == "PadV2" ||
      op == "MirrorPad" || op == "Tile" || op == "Shape" || op == "Identity" || op == "Cast" || op == "Fill" ||
      op == "ZerosLike" || op == "OnesLike" || op == "Size" || op == "Rank" || op == "StopGradient" ||
      op == "Reverse" || op == "ReverseV2" || op == "SpaceToBatchND" || op == "BatchToSpaceND" ||
      op == "DepthToSpace" || op == "SpaceToDepth" || op == "ResizeBilinear" || op == "ResizeNearestNeighbor")
    return OpCategory::Tensor;
  if (op == "Add" || op == "AddV2" || op == "AddN" || op == "Sub" || op == "Mul" || op == "Div" ||
      op == "RealDiv" || op == "Maximum" || op == "Minimum" || op == "Rsqrt" || op == "Sqrt" || op == "Square" ||
      op == "Exp" || op == "Log" || op == "Mean" || op == "Sum" || op == "Max" || op == "Min" || op == "Prod" ||
      op == "Pow" || op == "Neg" || op == "Abs" || op == "ArgMax" || op == "ArgMin" || op == "SquaredDifference" ||
      op == "FloorDiv" || op == "FloorMod" || op == "Equal" || op == "Greater" || op == "Less" ||
      op == "GreaterEqual" || op == "LessEqual" || op == "Select" || op == "Range")
    return OpCategory::Math;
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
