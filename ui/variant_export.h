// File ▸ Save 8-bit Variant As…: the 8-bit variant the Benchmark and
// Accuracy docks measure (the current graph through the shared 8-bit
// pipeline, ui/variants.h), written to a file the user ships.
//
// Formats: binary GraphDef (.pb) and text GraphDef (.pbtxt). The variant is
// made of TensorFlow's quantized ops, which TensorFlow Lite has no builtins
// for: TensorFlow Lite's int8 model comes from the float graph and
// calibration data, so the dialog hands a .tflite name to File ▸ Export ▸
// TensorFlow Lite… (ui/tflite_export_dialog.h), and saveBuiltVariant refuses
// one with that reason.
#pragma once

#include <QString>
#include <QStringList>

#include "model/status.h"
#include "ui/variants.h"

namespace gds::ui {

// The save dialog's filters, first the default; the last, .tflite, goes to
// the TensorFlow Lite export.
QStringList variantExportFilters();

// Writes a built variant (atomically: model::saveGraph); the format follows
// the file name's extension. Errors name the file.
Status saveBuiltVariant(const BuiltVariant& variant, const std::string& path);

// Builds the snapshot's variant and writes it; for a worker thread.
Status buildAndSaveVariant(const VariantSnapshot& snapshot, const std::string& path);

}  // namespace gds::ui
