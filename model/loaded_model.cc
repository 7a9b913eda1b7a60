#include "model/loaded_model.h"

namespace gds::model {

const char* modelKindName(ModelKind kind) {
  switch (kind) {
    case ModelKind::GraphDef: return "GraphDef";
    case ModelKind::MetaGraph: return "MetaGraphDef";
    case ModelKind::SavedModel: return "SavedModel";
    case ModelKind::TFLite: return "TensorFlow Lite";
    case ModelKind::Keras: return "Keras";
  }
  return "?";
}

}  // namespace gds::model
