// Where a Keras layer's weights are stored, for each kind of file:
// - a .keras archive's model.weights.h5 (Keras 3 and Keras 2.13-2.15):
//   <layer object path>/vars/0, 1, ... in the order the layer saves them
//   (keras.src.saving.saving_lib); Keras 2.13/2.14 wrote the layer list as
//   _layer_checkpoint_dependencies, Keras 2.15 on Windows joined the path
//   with backslashes into one group name ("layers\dense");
// - a legacy .h5 model: model_weights/<layer name> with a weight_names
//   attribute naming each weight's dataset (legacy_h5_format / hdf5_format).
// A store hands a layer its weights in the order the layer declares them
// and checks their count; the layer checks their shapes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/keras/hdf5_file.h"
#include "model/status.h"
#include "model/tensor.h"

namespace gds::model::keras {

// A layer's place in the model, for either kind of store.
struct WeightRef {
  std::string store_path;               // .keras: "layers/dense", "layers/functional/layers/conv2d"
  std::vector<std::string> layer_path;  // .h5: top-level layer name, then the nested layers' names
};

class WeightStore {
 public:
  virtual ~WeightStore() = default;
  // The weights of a layer, or of one of its parts (`sub`: "cell" of a
  // recurrent layer, "forward_layer/cell" of a Bidirectional, "layer" of a
  // TimeDistributed), in the order the layer saves them. `names` are the
  // weights the layer expects (kernel, bias, ...): matched against .h5
  // weight names, and named in errors.
  virtual Result<std::vector<HostTensor>> read(const WeightRef& ref, const std::string& sub,
                                               const std::vector<std::string>& names) const = 0;
};

// model.weights.h5 of a .keras archive.
std::unique_ptr<WeightStore> makeKerasH5Store(std::shared_ptr<const Hdf5File> file);
// A legacy .h5 model file (its model_weights group).
std::unique_ptr<WeightStore> makeLegacyH5Store(std::shared_ptr<const Hdf5File> file);

}  // namespace gds::model::keras
