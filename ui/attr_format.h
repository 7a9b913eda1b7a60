// Human-readable AttrValues for the properties panel: shapes as [1,224,224,3],
// dtypes by TensorFlow name, lists in brackets, strings (padding, data_format)
// unquoted, tensors as "float [3,3,8,16]".
#pragma once

#include <string>

#include "graph.pb.h"

namespace gds::ui {

std::string formatShape(const tensorflow::TensorShapeProto& shape);
std::string formatAttr(const tensorflow::AttrValue& value);

}  // namespace gds::ui
