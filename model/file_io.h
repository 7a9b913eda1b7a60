// Reading and writing files: whole-file reads, deterministic protobuf
// serialization, atomic writes (model/staged_file.h). Below every format
// adapter, which read and write through it.
#pragma once

#include <string>

#include "graph.pb.h"
#include "model/status.h"

namespace gds::model {

enum class SaveFormat { Auto, Binary, Text };
// Auto: text for .pbtxt/.pbtext/.txt/.prototxt, binary otherwise.
SaveFormat formatForPath(const std::string& path);

// Writes atomically (temporary file in the same folder, then rename).
Status saveGraph(const tensorflow::GraphDef& graph, const std::string& path,
                 SaveFormat format = SaveFormat::Auto);
Status saveMessage(const google::protobuf::Message& message, const std::string& path,
                   SaveFormat format = SaveFormat::Auto);

// Deterministic binary serialization (maps sorted), so equal graphs give
// equal bytes.
std::string serialize(const google::protobuf::Message& message);
std::string toText(const google::protobuf::Message& message);

Result<std::string> readFile(const std::string& path);
// Writes through a StagedFile (model/staged_file.h): a temporary renamed over
// the target, removed on errors and signals; the target's mode is kept.
Status writeFileAtomic(const std::string& path, const std::string& bytes);

}  // namespace gds::model
