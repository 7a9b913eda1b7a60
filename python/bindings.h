// Pieces shared by the two binding files: python/module.cc (models, run,
// transforms, freeze, render) and python/module_eval.cc (benchmark,
// compare, tflite_convert, calibrate).
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/eval/dataset.h"
#include "engine/lowp/requantize.h"
#include "engine/tensor.h"
#include "python/calls.h"
#include "python/model_handle.h"

namespace gds::python {

using ModelPtr = std::shared_ptr<ModelHandle>;

// str or os.PathLike as a path.
std::string pathArg(pybind11::handle path);
// Whether `value` names a path (str or os.PathLike) rather than data.
bool isPath(pybind11::handle value);
// None -> {}, "a" -> {"a"}, any iterable of str -> its items.
std::vector<std::string> nameList(pybind11::handle value);
// arithmetic="tflite-xnnpack" and the others engine/lowp/requantize.h names.
engine::lowp::Arithmetic arithmeticArg(const std::string& name);
// A model argument: a gdstudio.Model, or a path to load.
ModelPtr modelArg(pybind11::handle value);
ModelPtr loadModel(const std::string& path, const std::vector<std::string>& tags);
// The names of the model's outputs (Model.outputs).
std::vector<std::string> outputNames(const ModelHandle& model);
std::vector<TensorSpec> inputSpecs(const ModelHandle& model);

// The values of one sample for the inputs `names` (dtypes: DT_INVALID where
// unknown): a dict by input name, a list or tuple in input order (as
// TensorFlow's representative datasets yield them), or one array for a
// model with one input. `what` names the sample in errors.
std::vector<engine::Tensor> feedsFromItem(pybind11::handle item, const std::vector<std::string>& names,
                                          const std::vector<tensorflow::DataType>& dtypes, const std::string& what);
// How images are read (engine::loadSample): size (H, W) or None for the
// input's own, and (x - mean) / std.
engine::ImagePreprocess preprocessArg(pybind11::handle size, float mean, float std_dev);
// An iterable of samples; a callable returning one (TensorFlow's
// representative_dataset is a generator function) is called first.
pybind11::iterator sampleIterator(pybind11::handle samples);

void defineEval(pybind11::module_& module);

}  // namespace gds::python
