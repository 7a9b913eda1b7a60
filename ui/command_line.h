// Command lines the application writes for the user: the steps applied so far
// (or the inputs/outputs picked) as a `gdstudio transform` invocation, or as
// TensorFlow's transform_graph one, which takes the same flags.
#pragma once

#include <string>
#include <vector>

#include "ui/document.h"

namespace gds::ui {

// Single-quotes for a POSIX shell when needed ("a b" -> 'a b', "it's" -> 'it'\''s').
std::string shellQuote(const std::string& arg);

// strip_unused_nodes with the marked inputs' dtype and shape: one input uses
// type=/shape=; several use name=, type_for_name=, shape_for_name= (TensorFlow's
// strip_unused_nodes parameters). Empty when no input is marked.
std::string stripUnusedStep(const std::vector<IoMark>& marks);

enum class CommandTool { Gdstudio, TransformGraph };

std::string transformCommand(CommandTool tool, const std::string& in_graph, const std::string& out_graph,
                             const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                             const std::vector<std::string>& steps);

}  // namespace gds::ui
