// gdstudio: with no arguments or a model path it opens the window; with a
// subcommand it is a command-line tool built on the same libraries.
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>

#include <unistd.h>

#include "app/flags.h"
#include "app/kernel_environment.h"
#include "app/version.h"
#ifdef GDS_HAVE_GUI
#include "app/gui_main.h"
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

// The command line as typed, for an error that cannot name the file itself.
std::string commandLine(int argc, char** argv) {
  std::string line;
  for (int i = 1; i < argc; ++i) line += (i > 1 ? " " : "") + std::string(argv[i]);
  return line;
}

// No exception escapes a command: the libraries report errors as values,
// and what remains (allocation failure past the memory budget's checks, a
// thread that cannot start, a library's own exception) becomes one error
// line naming the command and its arguments, with exit status 1.
int runCommand(const gds::app::Command& c, int argc, char** argv) {
  try {
    return c.run(argc - 1, argv + 1);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "error: %s: out of memory; the input asks for more than this machine can allocate "
                 "(GDS_MEMORY_BUDGET sets the budget sizes are checked against)\n", commandLine(argc, argv).c_str());
  } catch (const std::system_error& e) {
    std::fprintf(stderr, "error: %s: system error: %s\n", commandLine(argc, argv).c_str(), e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s: %s\n", commandLine(argc, argv).c_str(), e.what());
  } catch (...) {
    std::fprintf(stderr, "error: %s: unexpected failure\n", commandLine(argc, argv).c_str());
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  gds::app::applyKernelEnvironment();
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
      if (first == c.name) return runCommand(c, argc, argv);
    if (first.rfind("-", 0) != 0 && first.find('.') == std::string::npos && first.find('/') == std::string::npos) {
      // Neither a flag nor something that looks like a path: most likely a typo'd command.
      if (access(argv[1], F_OK) != 0) {
        std::fprintf(stderr, "error: unknown command '%s'; run 'gdstudio --help' for the list\n", argv[1]);
        return 1;
      }
    }
  }
#ifdef GDS_HAVE_GUI
  return gds::app::runGui(argc, argv);
#else
  printUsage();
  return argc >= 2 ? 1 : 0;
#endif
}
