// Object-graph helpers shared by saved_model_v2.cc (describing the object
// graph, binding it to a checkpoint) and saved_model_v2_freeze.cc (freezing
// a signature or function into a GraphDef).
#pragma once

#include <string>

#include "saved_object_graph.pb.h"
#include "model/saved_model_v2.h"

namespace gds::model::saved_model_v2_impl {

inline int childId(const tensorflow::SavedObject& object, const std::string& name) {
  for (const auto& c : object.children())
    if (c.local_name() == name) return c.node_id();
  return -1;
}

inline bool validNode(const tensorflow::SavedObjectGraph& g, int id) { return id >= 0 && id < g.nodes_size(); }

// The call node of the MetaGraph's graph that all of a signature's outputs
// come from, when there is one (how TF2 writes signatures).
const tensorflow::NodeDef* signatureCallNode(const tensorflow::GraphDef& graph, const Signature& s);

std::string kindName(const tensorflow::SavedObject& o);

}  // namespace gds::model::saved_model_v2_impl
