#include "app/flags.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <pwd.h>
#include <unistd.h>

#include "model/memory_budget.h"

namespace gds::app {
namespace {

// --minloglevel of the running command (TensorFlow: 0 INFO, 1 WARNING, 2 ERROR).
int g_min_log_level = 0;

// TensorFlow's and glog's logging flags: every TensorFlow tool accepts them,
// and the guides pass --logtostderr on most command lines. gdstudio writes
// its messages to standard error already; --minloglevel hides notes and
// warnings, the others have nothing to change.
std::vector<FlagSpec> loggingFlags() {
  using T = FlagSpec::Type;
  return {
      {"logtostderr", T::Bool, "false", "messages go to standard error (they always do)", kLogging},
      {"alsologtostderr", T::Bool, "false", "as --logtostderr", kLogging},
      {"stderrthreshold", T::Int, "2", "accepted; every message goes to standard error", kLogging},
      {"minloglevel", T::Int, "0", "1 hides notes, 2 also hides warnings (errors always print)", kLogging},
      {"v", T::Int, "0", "verbose logging level (accepted; gdstudio has no verbose log)", kLogging},
      {"vmodule", T::String, "", "per-module verbose levels (accepted)", kLogging},
      {"log_dir", T::String, "", "log folder (accepted; nothing is logged to files)", kLogging | kPath},
  };
}

// Flags of gdstudio every command takes: listed once at the end of --help.
std::vector<FlagSpec> commonFlags() {
  return {{"memory_budget", FlagSpec::Type::String, "",
           "the most bytes one tensor, image or buffer sized by the input may take, e.g. 2G (default: half of "
           "physical memory, or GDS_MEMORY_BUDGET)",
           kCommon}};
}

}  // namespace

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

std::string expandPath(const std::string& path) {
  if (path.empty() || path[0] != '~') return path;
  const std::string::size_type slash = path.find('/');
  std::string home;
  if (path.size() == 1 || slash == 1) {
    if (const char* env = std::getenv("HOME")) home = env;
    if (home.empty())
      if (const passwd* pw = getpwuid(getuid())) home = pw->pw_dir ? pw->pw_dir : "";
  } else {
    const std::string user = path.substr(1, slash == std::string::npos ? std::string::npos : slash - 1);
    if (const passwd* pw = getpwnam(user.c_str())) home = pw->pw_dir ? pw->pw_dir : "";
  }
  if (home.empty()) return path;  // as TensorFlow: left alone when no home is known
  if (slash == std::string::npos) return home;
  if (home.back() != '/') home += '/';
  return home + path.substr(slash + 1);
}

Result<std::pair<std::int64_t, std::int64_t>> parseImageSize(const std::string& text) {
  const auto parts = splitString(text, ',');
  std::int64_t v[2] = {0, 0};
  bool ok = parts.size() == 2;
  for (size_t i = 0; ok && i < 2; ++i) {
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(parts[i].c_str(), &end, 10);
    ok = !parts[i].empty() && *end == '\0' && errno == 0 && x > 0 && x <= 8192;
    v[i] = x;
  }
  if (!ok) return Status::Error("--input_size must be H,W (two sizes from 1 to 8192), got '" + text + "'");
  return std::make_pair(v[0], v[1]);
}

std::string csvField(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

ProgressLine::ProgressLine() : enabled_(isatty(STDERR_FILENO) == 1) {}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::update(const std::string& text) {
  if (!enabled_) return;
  // Carriage return, the text, then erase to the end of the line.
  std::fprintf(stderr, "\r%s\x1b[K", text.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void ProgressLine::finish() {
  if (!enabled_ || !shown_) return;
  std::fprintf(stderr, "\r\x1b[K");
  std::fflush(stderr);
  shown_ = false;
}

Flags::Flags(std::string command, std::string usage, std::vector<FlagSpec> specs)
    : command_(std::move(command)), usage_(std::move(usage)), specs_(std::move(specs)) {
  for (auto& f : loggingFlags())
    if (!spec(f.name)) specs_.push_back(std::move(f));
  for (auto& f : commonFlags())
    if (!spec(f.name)) specs_.push_back(std::move(f));
}

void Flags::setPositional(int min, int max, std::string what) {
  min_positional_ = min;
  max_positional_ = max;
  positional_what_ = std::move(what);
}

const FlagSpec* Flags::spec(const std::string& name) const {
  for (const auto& s : specs_)
    if (s.name == name) return &s;
  return nullptr;
}

// A flag name that no spec has: an abbreviation (allowAbbreviations), a
// renamed flag, or an error listing the valid ones.
Result<const FlagSpec*> Flags::unknownFlag(const std::string& name) const {
  if (abbreviations_) {
    std::vector<const FlagSpec*> matches;
    for (const auto& f : specs_)
      if (f.name.rfind(name, 0) == 0) matches.push_back(&f);
    if (matches.size() == 1) return matches[0];
    if (matches.size() > 1) {
      std::string list;
      for (const FlagSpec* f : matches) list += (list.empty() ? "--" : ", --") + f->name;
      return Status::Error("ambiguous option: --" + name + " could match " + list);
    }
  }
  for (const auto& [from, to] : renamed_)
    if (name.rfind(from, 0) == 0)
      return Status::Error("unknown flag --" + name + " for '" + command_ + "': use --" + to + " instead of --" + from);
  std::string valid;
  for (const auto& f : specs_)
    if (!(f.attrs & (kLogging | kCommon))) valid += (valid.empty() ? "--" : ", --") + f.name;
  return Status::Error("unknown flag --" + name + " for '" + command_ + "'; valid flags: " + valid +
                       " (and TensorFlow's logging flags: --logtostderr, --v, ...)");
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
      auto found = unknownFlag(name);
      if (!found.ok()) return found.status();
      s = *found;
      name = s->name;
    }
    if (s->type == FlagSpec::Type::Values) {
      // nargs='*': the words up to the next flag (none is an empty list).
      auto& list = values_[name];
      if (eq != std::string::npos) list.push_back(body.substr(eq + 1));
      else
        while (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) list.push_back(argv[++i]);
      continue;
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

std::optional<int> Flags::parseCommand(int argc, char** argv) {
  Status parsed = parse(argc, argv, 1);
  if (help_) {
    std::printf("%s", helpText().c_str());
    return 0;
  }
  if (!parsed.ok()) return fail(parsed.message());
  const int n = static_cast<int>(positional_.size());
  if (n > max_positional_) {
    const std::string& extra = positional_[static_cast<size_t>(max_positional_)];
    if (max_positional_ == 0) return fail("unexpected argument '" + extra + "' (flags are written --flag=value)");
    return fail("unexpected argument '" + extra + "': '" + command_ + "' takes " + positional_what_);
  }
  if (n < min_positional_)
    return fail("'" + command_ + "' needs " + positional_what_ + " (got " + std::to_string(n) + " argument" +
                (n == 1 ? "" : "s") + ")");
  for (const auto& s : specs_)
    if ((s.attrs & kRequired) && str(s.name).empty()) return fail("--" + s.name + " is required (" + s.help + ")");
  g_min_log_level = static_cast<int>(integer("minloglevel").value());
  if (!str("memory_budget").empty()) {
    auto budget = model::parseByteSize(str("memory_budget"), "--memory_budget");
    if (!budget.ok()) return fail(budget.error());
    model::setMemoryBudget(*budget);
  }
  return std::nullopt;
}

std::string Flags::helpText() const {
  std::string out = usage_ + "\n\nFlags:\n";
  std::string logging;
  std::string common;
  for (const auto& s : specs_) {
    if (s.attrs & kLogging) {
      logging += (logging.empty() ? "--" : ", --") + s.name;
      continue;
    }
    if (s.attrs & kCommon) {
      common += "  --" + s.name + "=SIZE: " + s.help + "\n";
      continue;
    }
    std::string left = "  --" + s.name;
    switch (s.type) {
      case FlagSpec::Type::Bool: left += "[=true|false]"; break;
      case FlagSpec::Type::Int: left += "=N"; break;
      case FlagSpec::Type::Float: left += "=X"; break;
      case FlagSpec::Type::Repeated: left += "=VALUE (repeatable)"; break;
      case FlagSpec::Type::Values: left += " K=V [K=V ...]"; break;
      default: left += "=VALUE"; break;
    }
    out += left;
    if (left.size() < 34) out.append(34 - left.size(), ' ');
    else out += "\n" + std::string(34, ' ');
    out += s.help;
    if (s.attrs & kRequired) out += " (required)";
    else if (!s.default_value.empty()) out += " (default: " + s.default_value + ")";
    out += "\n";
  }
  out += "\nFlags take --flag=value or --flag value; a leading ~ in file names is your home folder.\n"
         "TensorFlow's logging flags are accepted too: " + logging + " (--minloglevel=2 hides warnings).\n";
  if (!common.empty()) out += "Every command takes:\n" + common;
  return out;
}

bool Flags::has(const std::string& name) const { return values_.count(name) > 0; }

std::string Flags::str(const std::string& name) const {
  auto it = values_.find(name);
  const FlagSpec* s = spec(name);
  std::string v = it != values_.end() && !it->second.empty() ? it->second.back() : (s ? s->default_value : "");
  return s && (s->attrs & kPath) ? expandPath(v) : v;
}

bool Flags::boolean(const std::string& name) const { return str(name) == "true"; }

Result<std::int64_t> Flags::integer(const std::string& name) const {
  std::string v = str(name);
  if (v.empty()) return std::int64_t{0};
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (!end || *end != '\0') return Status::Error("flag --" + name + " expects an integer, got '" + v + "'");
  // Every integer flag is a count or a size held in an int.
  if (errno == ERANGE || x < INT_MIN || x > INT_MAX)
    return Status::Error("flag --" + name + " is out of range: " + v);
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

Result<int> Flags::numThreads(const std::string& name) const {
  auto v = integer(name);
  if (!v.ok()) return v.status();
  if (*v < -1 || *v > kMaxThreads)
    return Status::Error("--" + name + " must be -1 or 0 (all cores) or a thread count from 1 to " +
                         std::to_string(kMaxThreads) + ", got " + str(name));
  return static_cast<int>(*v);
}

std::vector<std::string> Flags::all(const std::string& name) const {
  auto it = values_.find(name);
  std::vector<std::string> out = it == values_.end() ? std::vector<std::string>{} : it->second;
  const FlagSpec* s = spec(name);
  if (s && (s->attrs & kPath))
    for (auto& v : out) v = expandPath(v);
  return out;
}

std::vector<std::string> Flags::list(const std::string& name, char sep) const {
  std::vector<std::string> out = splitString(str(name), sep);
  const FlagSpec* s = spec(name);
  if (s && (s->attrs & kPath))
    for (auto& v : out) v = expandPath(v);
  return out;
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

int trouble(const std::string& message) {
  fail(message);
  return kTroubleExit;
}

void warn(const std::string& message) {
  if (g_min_log_level < 2) std::fprintf(stderr, "warning: %s\n", message.c_str());
}

void note(const std::string& message) {
  if (g_min_log_level < 1) std::fprintf(stderr, "note: %s\n", message.c_str());
}

TempFolder::TempFolder(const std::string& what) {
  std::string tmpl = (std::filesystem::temp_directory_path() / ("gdstudio-" + what + "-XXXXXX")).string();
  if (mkdtemp(tmpl.data())) path = tmpl;
}

TempFolder::~TempFolder() {
  std::error_code ec;
  if (!path.empty()) std::filesystem::remove_all(path, ec);
}

}  // namespace gds::app
