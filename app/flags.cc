#include "app/flags.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace gds::app {

std::vector<std::string> splitString(const std::string& s, char sep) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return out;
}

Flags::Flags(std::string command, std::string usage, std::vector<FlagSpec> specs)
    : command_(std::move(command)), usage_(std::move(usage)), specs_(std::move(specs)) {}

const FlagSpec* Flags::spec(const std::string& name) const {
  for (const auto& s : specs_)
    if (s.name == name) return &s;
  return nullptr;
}

Status Flags::parse(int argc, char** argv, int start) {
  for (int i = start; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h" || arg == "--helpfull") {
      help_ = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0 || arg.size() == 2) {
      positional_.push_back(arg);
      continue;
    }
    std::string body = arg.substr(2);
    size_t eq = body.find('=');
    std::string name = body.substr(0, eq);
    const FlagSpec* s = spec(name);
    bool negated = false;
    if (!s && name.rfind("no", 0) == 0 && eq == std::string::npos) {  // --noshow_summary
      s = spec(name.substr(2));
      if (s && s->type == FlagSpec::Type::Bool) {
        negated = true;
        name = name.substr(2);
      } else {
        s = nullptr;
      }
    }
    if (!s) {
      std::string valid;
      for (const auto& f : specs_) valid += (valid.empty() ? "--" : ", --") + f.name;
      return Status::Error("unknown flag --" + name + " for '" + command_ + "'; valid flags: " + valid);
    }
    std::string value;
    if (eq != std::string::npos) {
      value = body.substr(eq + 1);
    } else if (s->type == FlagSpec::Type::Bool) {
      value = negated ? "false" : "true";
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return Status::Error("flag --" + name + " needs a value");
    }
    if (s->type == FlagSpec::Type::Bool) {
      std::string v = value;
      std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
      if (v == "1" || v == "true" || v == "yes") value = "true";
      else if (v == "0" || v == "false" || v == "no") value = "false";
      else return Status::Error("flag --" + name + " expects true or false, got '" + value + "'");
    }
    if (s->type == FlagSpec::Type::Repeated) values_[name].push_back(value);
    else values_[name] = {value};
  }
  // Validate numeric flags up front so commands can rely on them.
  for (const auto& s : specs_) {
    if (s.type == FlagSpec::Type::Int) {
      auto v = integer(s.name);
      if (!v.ok()) return v.status();
    } else if (s.type == FlagSpec::Type::Float) {
      auto v = number(s.name);
      if (!v.ok()) return v.status();
    }
  }
  return Status::Ok();
}

std::string Flags::helpText() const {
  std::string out = usage_ + "\n\nFlags:\n";
  for (const auto& s : specs_) {
    std::string left = "  --" + s.name;
    switch (s.type) {
      case FlagSpec::Type::Bool: left += "[=true|false]"; break;
      case FlagSpec::Type::Int: left += "=N"; break;
      case FlagSpec::Type::Float: left += "=X"; break;
      case FlagSpec::Type::Repeated: left += "=VALUE (repeatable)"; break;
      default: left += "=VALUE"; break;
    }
    out += left;
    if (left.size() < 34) out.append(34 - left.size(), ' ');
    else out += "\n" + std::string(34, ' ');
    out += s.help;
    if (!s.default_value.empty()) out += " (default: " + s.default_value + ")";
    out += "\n";
  }
  out += "\nFlags take --flag=value or --flag value.\n";
  return out;
}

bool Flags::has(const std::string& name) const { return values_.count(name) > 0; }

std::string Flags::str(const std::string& name) const {
  auto it = values_.find(name);
  if (it != values_.end() && !it->second.empty()) return it->second.back();
  const FlagSpec* s = spec(name);
  return s ? s->default_value : std::string();
}

bool Flags::boolean(const std::string& name) const { return str(name) == "true"; }

Result<std::int64_t> Flags::integer(const std::string& name) const {
  std::string v = str(name);
  if (v.empty()) return std::int64_t{0};
  char* end = nullptr;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (!end || *end != '\0') return Status::Error("flag --" + name + " expects an integer, got '" + v + "'");
  return static_cast<std::int64_t>(x);
}

Result<double> Flags::number(const std::string& name) const {
  std::string v = str(name);
  if (v.empty()) return 0.0;
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (!end || *end != '\0') return Status::Error("flag --" + name + " expects a number, got '" + v + "'");
  return x;
}

std::vector<std::string> Flags::all(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::vector<std::string> Flags::list(const std::string& name, char sep) const {
  return splitString(str(name), sep);
}

static std::vector<Command>& registry() {
  static std::vector<Command> r;
  return r;
}

void registerCommand(const Command& command) {
  registry().push_back(command);
  std::sort(registry().begin(), registry().end(),
            [](const Command& a, const Command& b) { return std::string(a.name) < b.name; });
}

const std::vector<Command>& commands() { return registry(); }

int fail(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 1;
}

}  // namespace gds::app
