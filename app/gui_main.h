// The window entry point of gdstudio (GUI builds only): the arguments are the
// program's own, MODEL and the window's flags (see gui_main.cc).
#pragma once

namespace gds::app {

int runGui(int argc, char** argv);

}  // namespace gds::app
