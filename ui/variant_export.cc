#include "ui/variant_export.h"

#include <QObject>

#include "model/io.h"

namespace gds::ui {

QStringList variantExportFilters() {
  return {QObject::tr("Binary GraphDef (*.pb)"), QObject::tr("Text GraphDef (*.pbtxt)"),
          QObject::tr("TensorFlow Lite int8, exported from the float graph (*.tflite)")};
}

Status saveBuiltVariant(const BuiltVariant& variant, const std::string& path) {
  if (!variant.graph) return Status::Error(path + ": no graph to save");
  const auto dot = path.rfind('.');
  const std::string ext = dot == std::string::npos ? std::string() : path.substr(dot);
  // The variant runs TensorFlow's 8-bit ops (QuantizedConv2D, Requantize,
  // ...), which TensorFlow Lite does not have; its int8 scheme needs
  // calibrated ranges instead.
  if (ext == ".tflite")
    return Status::Error(path + ": the 8-bit variant uses TensorFlow's quantized ops, which TensorFlow Lite has "
                                "no builtin for; save it as .pb, or export TensorFlow Lite's int8 model from the "
                                "float graph with File ▸ Export ▸ TensorFlow Lite… (or `gdstudio tflite_convert "
                                "--quantize=int8 --calibration_data=FOLDER`)");
  return model::saveGraph(*variant.graph, path);
}

Status buildAndSaveVariant(const VariantSnapshot& snapshot, const std::string& path) {
  auto built = buildVariant(snapshot);
  if (!built.ok()) return built.status();
  return saveBuiltVariant(*built, path);
}

}  // namespace gds::ui
