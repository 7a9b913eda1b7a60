#include "transforms/transform.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace gds::transforms {

int TransformContext::count(const std::string& name) const {
  auto it = params.find(name);
  return it == params.end() ? 0 : static_cast<int>(it->second.size());
}

const std::vector<std::string>& TransformContext::list(const std::string& name) const {
  static const std::vector<std::string> kEmpty;
  auto it = params.find(name);
  return it == params.end() ? kEmpty : it->second;
}

Status TransformContext::error(const std::string& message) const {
  return Status::Error(transform.empty() ? message : transform + ": " + message);
}

Result<std::string> TransformContext::getOneString(const std::string& name, const std::string& default_value) const {
  const int n = count(name);
  if (n == 0) return default_value;
  if (n > 1)
    return error("expected a single '" + name + "' parameter, but found " + std::to_string(n) + " occurrences");
  return params.at(name)[0];
}

Result<std::int64_t> TransformContext::getOneInt(const std::string& name, std::int64_t default_value) const {
  if (count(name) == 0) return default_value;
  auto s = getOneString(name, "");
  if (!s.ok()) return s.status();
  const std::string& text = *s;
  errno = 0;
  char* end = nullptr;
  long long v = text.empty() ? 0 : std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || errno != 0 || *end != '\0')
    return error("parameter '" + name + "' must be an integer, got '" + text + "'");
  return static_cast<std::int64_t>(v);
}

Result<float> TransformContext::getOneFloat(const std::string& name, float default_value) const {
  if (count(name) == 0) return default_value;
  auto s = getOneString(name, "");
  if (!s.ok()) return s.status();
  const std::string& text = *s;
  errno = 0;
  char* end = nullptr;
  float v = text.empty() ? 0.f : std::strtof(text.c_str(), &end);
  if (text.empty() || errno != 0 || *end != '\0' || !std::isfinite(v))
    return error("parameter '" + name + "' must be a number, got '" + text + "'");
  return v;
}

Result<bool> TransformContext::getOneBool(const std::string& name, bool default_value) const {
  if (count(name) == 0) return default_value;
  auto s = getOneString(name, "");
  if (!s.ok()) return s.status();
  if (*s == "true" || *s == "1") return true;
  if (*s == "false" || *s == "0") return false;
  return error("parameter '" + name + "' must be true, false, 1 or 0, got '" + *s + "'");
}

bool TransformInfo::accepts(const std::string& param) const {
  if (param == "ignore_errors") return true;
  return std::any_of(params.begin(), params.end(), [&](const ParamSpec& p) { return p.name == param; });
}

std::string TransformInfo::paramNames() const {
  std::string out;
  for (const auto& p : params) out += p.name + ", ";
  return out + "ignore_errors";
}

void TransformRegistry::add(TransformInfo info) {
  auto it = std::lower_bound(transforms_.begin(), transforms_.end(), info.name,
                             [](const TransformInfo& t, const std::string& n) { return t.name < n; });
  if (it != transforms_.end() && it->name == info.name) *it = std::move(info);
  else transforms_.insert(it, std::move(info));
}

const TransformInfo* TransformRegistry::find(const std::string& name) const {
  auto it = std::lower_bound(transforms_.begin(), transforms_.end(), name,
                             [](const TransformInfo& t, const std::string& n) { return t.name < n; });
  return it != transforms_.end() && it->name == name ? &*it : nullptr;
}

std::vector<std::string> TransformRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& t : transforms_) out.push_back(t.name);
  return out;
}

std::string TransformRegistry::namesText() const {
  std::string out;
  for (const auto& t : transforms_) out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

const TransformRegistry& TransformRegistry::builtin() {
  static const TransformRegistry registry = [] {
    TransformRegistry r;
    registerBuiltinTransforms(&r);
    return r;
  }();
  return registry;
}

}  // namespace gds::transforms
