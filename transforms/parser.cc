#include "transforms/parser.h"

#include <algorithm>
#include <cctype>

namespace gds::transforms {
namespace {

bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isValueChar(char c) { return isNameChar(c) || c == '-' || c == '.' || c == '/'; }

// What remains of the input, shortened for messages.
std::string rest(const std::string& s, size_t pos) {
  std::string r = s.substr(pos, 40);
  if (pos + 40 < s.size()) r += "...";
  return "'" + r + "'";
}

Status syntaxError(const std::string& what, const std::string& text, size_t pos) {
  return Status::Error("--transforms: " + what + " at column " + std::to_string(pos + 1) +
                       (pos < text.size() ? ", found " + rest(text, pos) : ", found the end of the string"));
}

}  // namespace

std::string TransformStep::text() const {
  if (params.empty()) return name;
  std::string out = name + "(";
  bool first = true;
  for (const auto& [key, values] : params) {
    for (const auto& v : values) {
      if (!first) out += ", ";
      first = false;
      bool plain = !v.empty() && std::all_of(v.begin(), v.end(), isValueChar);
      out += key + "=" + (plain ? v : "\"" + v + "\"");
    }
  }
  return out + ")";
}

Result<std::vector<TransformStep>> parseTransformString(const std::string& s) {
  std::vector<TransformStep> steps;
  size_t i = 0;
  const size_t n = s.size();
  auto skipSpace = [&] {
    while (i < n && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  };
  while (true) {
    skipSpace();
    if (i >= n) break;
    size_t start = i;
    while (i < n && isNameChar(s[i])) ++i;
    if (i == start) return syntaxError("expected a transform name", s, i);
    TransformStep step;
    step.name = s.substr(start, i - start);
    if (i < n && s[i] == '(') {
      ++i;
      while (true) {
        if (i < n && s[i] == ')') {
          ++i;
          break;
        }
        // An optional comma, then spaces, before each parameter (TensorFlow's order).
        if (i < n && s[i] == ',') ++i;
        skipSpace();
        if (i < n && s[i] == ')') {  // tolerate "f(a=1 )", which TensorFlow rejects
          ++i;
          break;
        }
        size_t key_start = i;
        while (i < n && isNameChar(s[i])) ++i;
        if (i == key_start) return syntaxError("expected a parameter name of '" + step.name + "'", s, i);
        std::string key = s.substr(key_start, i - key_start);
        if (i >= n || s[i] != '=') return syntaxError("expected '=' after parameter '" + key + "'", s, i);
        ++i;
        std::string value;
        if (i < n && s[i] == '"') {
          size_t open = i++;
          size_t value_start = i;
          // Backslash escapes the next character; the value keeps it verbatim, as TensorFlow's Scanner does.
          while (i < n && s[i] != '"') i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
          if (i >= n) return syntaxError("unterminated quoted value of parameter '" + key + "'", s, open);
          value = s.substr(value_start, i - value_start);
          ++i;  // closing quote
        } else {
          size_t value_start = i;
          while (i < n && isValueChar(s[i])) ++i;
          if (i == value_start)
            return syntaxError("expected a value for parameter '" + key +
                                   "' (quote values that contain characters other than letters, digits, - . / _)",
                               s, i);
          value = s.substr(value_start, i - value_start);
        }
        step.params[key].push_back(value);
        // TensorFlow eats one stray trailing quote or apostrophe here.
        if (i < n && s[i] == '"') ++i;
        if (i < n && s[i] == '\'') ++i;
        if (i >= n) return syntaxError("missing ')' after the parameters of '" + step.name + "'", s, i);
        if (s[i] != ')' && s[i] != ',' && !std::isspace(static_cast<unsigned char>(s[i])))
          return syntaxError("expected ',' or ')' after parameter '" + key + "'", s, i);
      }
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

Result<bool> ignoreErrors(const TransformStep& step) {
  auto it = step.params.find("ignore_errors");
  if (it == step.params.end() || it->second.empty()) return false;
  std::string v = it->second[0];
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  if (v == "true") return true;
  if (v == "false") return false;
  return Status::Error(step.name + ": ignore_errors should be true or false, found '" + it->second[0] + "'");
}

Status validateSteps(const std::vector<TransformStep>& steps, const TransformRegistry& registry) {
  for (const auto& step : steps) {
    const TransformInfo* info = registry.find(step.name);
    if (!info)
      // TensorFlow's TransformGraph: "Transform '<name>' not recognized."
      return Status::Error("Transform '" + step.name + "' not recognized. Valid transforms: " + registry.namesText());
    for (const auto& [key, values] : step.params)
      if (!info->accepts(key))
        return Status::Error(step.name + ": unknown parameter '" + key + "'; valid parameters: " + info->paramNames());
    auto ie = ignoreErrors(step);
    if (!ie.ok()) return ie.status();
  }
  return Status::Ok();
}

Result<std::vector<TransformStep>> parseTransforms(const std::string& text, const TransformRegistry& registry) {
  auto steps = parseTransformString(text);
  if (!steps.ok()) return steps;
  GDS_RETURN_IF_ERROR(validateSteps(*steps, registry));
  return steps;
}

}  // namespace gds::transforms
