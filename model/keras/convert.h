// A Keras model (model/keras/config.h) and its weights to a GraphDef with
// the ops TensorFlow traces for each layer: weights as Const nodes, each
// layer's ops under its name as a name scope ("dense/MatMul"), nested
// models as enclosing scopes, the model's inputs as Placeholders named as
// Keras names them and each output as an Identity named after its layer.
#pragma once

#include <string>
#include <vector>

#include "model/keras/config.h"
#include "model/keras/weights.h"
#include "graph.pb.h"
#include "model/status.h"

namespace gds::model::keras {

struct ConvertedModel {
  tensorflow::GraphDef graph;
  std::vector<std::string> inputs;   // Placeholder node names, in the model's input order
  std::vector<std::string> outputs;  // output node names, in the model's output order
};

// Errors name the layer, its class and what was expected (the caller adds
// the file). `legacy_h5`: the weights are found by layer name (.h5) rather
// than by object path (.keras).
Result<ConvertedModel> convertModel(const ModelDef& model, const WeightStore& store, const KerasVersion& version,
                                    bool legacy_h5);

// The Keras layer classes gdstudio converts, sorted.
std::vector<std::string> supportedLayerClasses();

}  // namespace gds::model::keras
