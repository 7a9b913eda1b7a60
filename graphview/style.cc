#include "graphview/style.h"

#include <QStringList>

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
