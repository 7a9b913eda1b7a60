// Builtin options tables <-> node attrs, by reflection over the binary schema
// compiled from model/tflite/schema.fbs (embedded in the program): one attr
// per field, named after the field, so the schema is the only place that
// lists them. Integers are int attrs, floats float, bools bool, enums their
// value's name as a string ("SAME", "RELU6", "INT8"), vectors lists.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph.pb.h"
#include "model/status.h"

namespace flatbuffers {
class FlatBufferBuilder;
class Table;
}  // namespace flatbuffers

namespace gds::model::tflite {

// The BuiltinOptions union's type value for the options table `options`
// ("Conv2DOptions"), or 0 (NONE) when the schema has no such member.
int optionsUnionType(const char* options);

// The attr names of an options table, in field order.
std::vector<std::string> optionFieldNames(const char* options);

// Sets one attr per field of `table` (nullptr: every field's default).
// Errors name the field (an enum value the schema does not know).
Status optionsToAttrs(const char* options, const flatbuffers::Table* table, tensorflow::NodeDef* node);

// Builds the options table from the node's attrs (missing ones take the
// field's default) and returns its offset. Errors name the node and attr (wrong
// kind, value out of range, unknown enum name) and reject attrs that are not
// fields of the table (other than the dialect's "_" attrs).
Result<std::uint32_t> attrsToOptions(const char* options, const tensorflow::NodeDef& node,
                                     flatbuffers::FlatBufferBuilder* builder);

}  // namespace gds::model::tflite
