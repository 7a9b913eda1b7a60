// Command-line flags in TensorFlow's style: --flag=value and --flag value,
// booleans as --flag, --noflag, --flag=true|false; repeatable flags collect
// a list. Every command shares one preamble (Flags::parseCommand): --help,
// unknown flags, bad values, required flags, positional arguments, `~` in
// path flags, and TensorFlow's logging flags (--logtostderr, --v, ...),
// which its tools accept on every command line.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/status.h"

namespace gds::app {

// FlagSpec::attrs bits.
inline constexpr unsigned kRequired = 1;  // parseCommand fails when the flag is missing or empty
inline constexpr unsigned kPath = 2;      // a file or folder: a leading ~ or ~user is expanded
inline constexpr unsigned kLogging = 4;   // one of TensorFlow's logging flags (added to every command)
inline constexpr unsigned kCommon = 8;    // gdstudio's own flag of every command (--memory_budget)

struct FlagSpec {
  // Values: argparse's nargs='*' (inspect_checkpoint's --printoptions k=v k=v):
  // the words after the flag up to the next --flag.
  enum class Type { String, Bool, Int, Float, Repeated, Values };
  std::string name;
  Type type = Type::String;
  std::string default_value;
  std::string help;
  unsigned attrs = 0;
};

class Flags {
 public:
  Flags(std::string command, std::string usage, std::vector<FlagSpec> specs);

  // Positional arguments the command takes (default none); `what` names them
  // in errors, e.g. "BEFORE AFTER".
  void setPositional(int min, int max, std::string what);
  // argparse's allow_abbrev, for commands that stand in for TensorFlow's
  // Python tools: an unambiguous prefix names the flag (--input_shape is
  // --input_shapes, as TensorFlow's own documentation writes it).
  void allowAbbreviations() { abbreviations_ = true; }
  // Old names a tool reports with their new ones: an unknown flag that starts
  // with `from` is an error saying "use --to instead of --from".
  void setRenamedFlags(std::vector<std::pair<std::string, std::string>> renamed) { renamed_ = std::move(renamed); }

  // The preamble every command shares. Parses argv[1..argc) (argv[0] is the
  // command). Returns 0 after printing the help for --help; 1 after printing
  // "error: ..." for an unknown flag, a malformed value, a missing required
  // flag or a wrong number of positional arguments; std::nullopt when the
  // command should go on.
  std::optional<int> parseCommand(int argc, char** argv);

  // Parses argv[start..argc) without printing. Unknown flags are errors
  // that list the valid ones.
  Status parse(int argc, char** argv, int start);
  bool helpRequested() const { return help_; }
  std::string helpText() const;

  bool has(const std::string& name) const;  // given on the command line
  // The value (a kPath flag with ~ expanded), else the default.
  std::string str(const std::string& name) const;
  bool boolean(const std::string& name) const;
  Result<std::int64_t> integer(const std::string& name) const;
  Result<double> number(const std::string& name) const;
  std::vector<std::string> all(const std::string& name) const;  // repeated flag values
  // Comma-separated list value ("a,b" -> {a, b}); empty for an empty value.
  std::vector<std::string> list(const std::string& name, char sep = ',') const;
  const std::vector<std::string>& positional() const { return positional_; }

  // --num_threads, one meaning for every command (TensorFlow's
  // benchmark_model: a value <= 0 leaves the choice to the runtime, which
  // uses every core): -1 or 0 = all cores, N = N threads (1: no worker
  // threads). Anything else, or more than kMaxThreads, is an error naming
  // the flag.
  static constexpr int kMaxThreads = 1024;
  Result<int> numThreads(const std::string& name = "num_threads") const;


 private:
  const FlagSpec* spec(const std::string& name) const;
  Result<const FlagSpec*> unknownFlag(const std::string& name) const;
  std::string command_, usage_;
  std::vector<FlagSpec> specs_;
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
  int min_positional_ = 0, max_positional_ = 0;
  std::string positional_what_;
  bool help_ = false;
  bool abbreviations_ = false;
  std::vector<std::pair<std::string, std::string>> renamed_;
};


std::vector<std::string> splitString(const std::string& s, char sep);

// TensorFlow's ExpandPath (tools/graph_transforms/transform_graph.cc): a
// leading "~" or "~/..." becomes $HOME (or the password entry's home),
// "~user/..." that user's home; anything else is returned unchanged.
std::string expandPath(const std::string& path);

// --input_size "H,W": two image sizes from 1 to 8192 (the image is resized
// to H x W floats: bounded before anything is allocated).
Result<std::pair<std::int64_t, std::int64_t>> parseImageSize(const std::string& text);

// One CSV field (RFC 4180): quoted, with quotes doubled, when it holds a
// comma, a quote or a line break ("282:tabby, tabby cat").
std::string csvField(const std::string& field);

// A one-line progress display on standard error, redrawn in place, shown only
// when standard error is a terminal (so logs and pipes stay clean).
// A fresh local temporary folder ("gdstudio-<what>-XXXXXX"; path empty when
// it could not be made), removed with its contents when destroyed.
struct TempFolder {
  explicit TempFolder(const std::string& what);
  ~TempFolder();
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  std::string path;
};

class ProgressLine {
 public:
  ProgressLine();
  ~ProgressLine();
  bool enabled() const { return enabled_; }
  void update(const std::string& text);
  void finish();  // clears the line

 private:
  bool enabled_ = false;
  bool shown_ = false;
};

// A subcommand of gdstudio. Each command file registers itself.
struct Command {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv);  // argv[0] is the command name
};
void registerCommand(const Command& command);
const std::vector<Command>& commands();

struct CommandRegistration {
  explicit CommandRegistration(const Command& command) { registerCommand(command); }
};

// Prints "error: <message>" to stderr and returns 1.
int fail(const std::string& message);
// The exit status of an error for commands whose status 1 is a finding (diff:
// the graphs differ; check_ops: a node cannot run), as diff(1) uses 2.
inline constexpr int kTroubleExit = 2;
// Prints "error: <message>" and returns kTroubleExit.
int trouble(const std::string& message);
// Prints "warning: <message>" / "note: <message>" to stderr unless
// --minloglevel hides them (TensorFlow's levels: 1 hides INFO, that is
// notes; 2 hides WARNING too). Errors are always printed.
void warn(const std::string& message);
void note(const std::string& message);

}  // namespace gds::app
