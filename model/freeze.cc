#include "model/freeze.h"

#include <filesystem>

#include "model/saved_model_v2.h"

namespace gds::model {
namespace fs = std::filesystem;

Result<FreezeResult> freeze(const LoadedModel& model, const FreezeOptions& options) {
  std::string checkpoint = options.checkpoint;
  if (checkpoint.empty()) {
    std::error_code ec;
    if (model.kind == ModelKind::SavedModel) {
      fs::path dir = fs::is_directory(model.path, ec) ? fs::path(model.path) : fs::path(model.file).parent_path();
      if (dir.empty()) dir = ".";
      checkpoint = (dir / "variables" / "variables").string();
    } else if (model.kind == ModelKind::MetaGraph && model.file.size() > 5 &&
               model.file.compare(model.file.size() - 5, 5, ".meta") == 0) {
      // freeze_graph --input_meta_graph reads PREFIX.meta next to the checkpoint.
      checkpoint = model.file.substr(0, model.file.size() - 5);
    } else {
      return Status::Error(model.path + ": no checkpoint given (--input_checkpoint=PREFIX)");
    }
  }
  auto prefix = resolveCheckpointPrefix(checkpoint);
  if (!prefix.ok()) return prefix.status();
  auto reader = CheckpointReader::open(prefix.value());
  if (!reader.ok()) return reader.status();
  // A TF2 SavedModel's outer graph only calls functions; its object graph
  // says what to freeze and where the variables are.
  if (model.object_based && model.kind != ModelKind::GraphDef) {
    auto result = freezeObjectGraph(model, reader.value(), options);
    if (!result.ok()) return result.status().withContext(model.file);
    return result;
  }
  const tensorflow::MetaGraphDef* meta = model.kind == ModelKind::GraphDef ? nullptr : &model.meta;
  auto result = freezeGraph(model.graph, meta, reader.value(), options);
  if (!result.ok()) return result.status().withContext(model.file);
  return result;
}

}  // namespace gds::model
