// Command-line flags in TensorFlow's style: --flag=value and --flag value,
// booleans as --flag, --flag=true|false; repeatable flags collect a list.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/status.h"

namespace gds::app {

struct FlagSpec {
  enum class Type { String, Bool, Int, Float, Repeated };
  std::string name;
  Type type = Type::String;
  std::string default_value;
  std::string help;
};

class Flags {
 public:
  Flags(std::string command, std::string usage, std::vector<FlagSpec> specs);
  // Parses argv[start..argc). Unknown flags are errors that list the valid ones.
  Status parse(int argc, char** argv, int start);
  bool helpRequested() const { return help_; }
  std::string helpText() const;

  bool has(const std::string& name) const;  // given on the command line
  std::string str(const std::string& name) const;
  bool boolean(const std::string& name) const;
  Result<std::int64_t> integer(const std::string& name) const;
  Result<double> number(const std::string& name) const;
  std::vector<std::string> all(const std::string& name) const;  // repeated flag values
  // Comma-separated list value ("a,b" -> {a, b}); empty for an empty value.
  std::vector<std::string> list(const std::string& name, char sep = ',') const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  const FlagSpec* spec(const std::string& name) const;
  std::string command_, usage_;
  std::vector<FlagSpec> specs_;
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
  bool help_ = false;
};

std::vector<std::string> splitString(const std::string& s, char sep);

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

}  // namespace gds::app
