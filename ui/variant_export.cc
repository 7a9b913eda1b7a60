#include "ui/variant_export.h"

#include <QObject>

#include "model/io.h"

namespace gds::ui {

QStringList variantExportFilters() {
  return {QObject::tr("Binary GraphDef (*.pb)"), QObject::tr("Text GraphDef (*.pbtxt)")};
}

Status saveBuiltVariant(const BuiltVariant& variant, const std::string& path) {
  if (!variant.graph) return Status::Error(path + ": no graph to save");
  const auto dot = path.rfind('.');
  const std::string ext = dot == std::string::npos ? std::string() : path.substr(dot);
  if (ext == ".tflite")
    return Status::Error(path + ": this build cannot write TensorFlow Lite files yet; save as .pb and convert with "
                                "tflite_convert");
  return model::saveGraph(*variant.graph, path);
}

Status buildAndSaveVariant(const VariantSnapshot& snapshot, const std::string& path) {
  auto built = buildVariant(snapshot);
  if (!built.ok()) return built.status();
  return saveBuiltVariant(*built, path);
}

}  // namespace gds::ui
