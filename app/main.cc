// gdstudio: with no arguments or a model path it opens the window; with a
// subcommand it is a command-line tool built on the same libraries.
#include <cstdio>
#include <cstring>
#include <string>

#include <unistd.h>

#include "app/flags.h"
#include "app/version.h"

#ifdef GDS_HAVE_GUI
int gdsRunGui(int argc, char** argv);  // app/gui_main.cc
#endif

namespace {

void printUsage() {
  std::printf("GraphDef Studio %s: inspect, optimize, benchmark and quantize TensorFlow graphs.\n\n", GDS_VERSION);
  std::printf("Usage:\n  gdstudio [MODEL] [--screenshot=FILE.png] [--apply=TRANSFORMS] [--select=NODE]\n"
              "                           open the window (a welcome page when no MODEL)\n"
              "  gdstudio COMMAND [FLAGS]  run a command\n\nCommands:\n");
  for (const auto& c : gds::app::commands()) {
    if (std::strlen(c.name) > 12) std::printf("  %s\n  %-12s %s\n", c.name, "", c.summary);
    else std::printf("  %-12s %s\n", c.name, c.summary);
  }
  std::printf("\n  gdstudio COMMAND --help   describes a command's flags.\n"
              "  gdstudio --version        prints the version and library versions.\n"
              "\nMODEL is a frozen GraphDef (.pb, .pbtxt), a MetaGraphDef (.meta), a SavedModel directory or a\n"
              "TensorFlow Lite model (.tflite).\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2) {
    std::string first = argv[1];
    if (first == "--help" || first == "-h" || first == "help") {
      printUsage();
      return 0;
    }
    if (first == "--version") {
      std::printf("%s", gds::app::versionText().c_str());
      return 0;
    }
    for (const auto& c : gds::app::commands())
      if (first == c.name) return c.run(argc - 1, argv + 1);
    if (first.rfind("-", 0) != 0 && first.find('.') == std::string::npos && first.find('/') == std::string::npos) {
      // Neither a flag nor something that looks like a path: most likely a typo'd command.
      if (access(argv[1], F_OK) != 0) {
        std::fprintf(stderr, "error: unknown command '%s'; run 'gdstudio --help' for the list\n", argv[1]);
        return 1;
      }
    }
  }
#ifdef GDS_HAVE_GUI
  return gdsRunGui(argc, argv);
#else
  printUsage();
  return argc >= 2 ? 1 : 0;
#endif
}
