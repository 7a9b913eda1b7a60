#include "model/keras/weights.h"

#include <algorithm>

namespace gds::model::keras {

namespace {

std::string joinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

std::vector<std::string> splitOn(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

std::string joinWith(const std::vector<std::string>& parts, char sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? std::string(1, sep) : "") + parts[i];
  return out;
}

class KerasH5Store : public WeightStore {
 public:
  explicit KerasH5Store(std::shared_ptr<const Hdf5File> file) : file_(std::move(file)) {}

  Result<std::vector<HostTensor>> read(const WeightRef& ref, const std::string& sub,
                                       const std::vector<std::string>& names) const override {
    const std::string path = ref.store_path + (sub.empty() ? "" : "/" + sub);
    const std::string group = findVars(path);
    if (group.empty()) {
      if (names.empty()) return std::vector<HostTensor>();
      return Status::Error("no weights at " + path + "/vars in " + file_->name() + " (expected " + joinNames(names) +
                           ")");
    }
    auto members = file_->children(group);
    if (!members.ok()) return members.status();
    if (members->size() != names.size())
      return Status::Error(file_->name() + " holds " + std::to_string(members->size()) + " weights at " + group +
                           ", the layer has " + std::to_string(names.size()) + " (" + joinNames(names) + ")");
    std::vector<HostTensor> out;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string dataset = group + "/" + std::to_string(i);
      if (!file_->isDataset(dataset))
        return Status::Error("weight " + names[i] + " (" + dataset + ") is missing from " + file_->name());
      auto t = file_->readDataset(dataset);
      if (!t.ok()) return t.status();
      out.push_back(std::move(t).value());
    }
    return out;
  }

 private:
  // The vars group of `path`, in whichever spelling the writer used.
  std::string findVars(const std::string& path) const {
    auto parts = splitOn(path, '/');
    std::vector<std::string> candidates = {joinWith(parts, '/') + "/vars", joinWith(parts, '\\') + "/vars"};
    // Keras 2.13/2.14 saved the layer list under its attribute name.
    for (auto& p : parts)
      if (p == "layers") p = "_layer_checkpoint_dependencies";
    candidates.push_back(joinWith(parts, '/') + "/vars");
    candidates.push_back(joinWith(parts, '\\') + "/vars");
    for (const auto& c : candidates)
      if (file_->isGroup(c)) return c;
    return "";
  }

  std::shared_ptr<const Hdf5File> file_;
};

// The last component of a weight name without TensorFlow's ":0".
std::string weightBaseName(const std::string& name) {
  std::string base = name.substr(name.rfind('/') == std::string::npos ? 0 : name.rfind('/') + 1);
  const auto colon = base.rfind(':');
  if (colon != std::string::npos) base = base.substr(0, colon);
  return base;
}

class LegacyH5Store : public WeightStore {
 public:
  explicit LegacyH5Store(std::shared_ptr<const Hdf5File> file) : file_(std::move(file)) {}

  Result<std::vector<HostTensor>> read(const WeightRef& ref, const std::string& sub,
                                       const std::vector<std::string>& names) const override {
    if (ref.layer_path.empty()) return Status::Error("internal error: a layer without a path");
    const std::string root = file_->isGroup("model_weights") ? "model_weights" : "";
    const std::string group = (root.empty() ? "" : root + "/") + ref.layer_path.front();
    if (!file_->isGroup(group)) {
      if (names.empty()) return std::vector<HostTensor>();
      return Status::Error("no weights for layer '" + ref.layer_path.front() + "' in " + file_->name() +
                           " (no group /" + group + "; expected " + joinNames(names) + ")");
    }
    auto listed = file_->stringListAttr(group, "weight_names");
    if (!listed.ok()) return listed.status();
    std::vector<std::string> all = listed->value_or(std::vector<std::string>());
    auto candidates = select(all, ref, sub);
    auto order = match(candidates, names);
    if (!order.ok())
      return Status::Error(file_->name() + ": /" + group + " " + order.error() + " (its weight_names: " +
                           joinNames(candidates) + ")");
    std::vector<HostTensor> out;
    for (const auto& name : *order) {
      auto t = file_->readDataset(group + "/" + name);
      if (!t.ok()) return t.status();
      out.push_back(std::move(t).value());
    }
    return out;
  }

 private:
  // The weight names of a nested layer (a component names it) and of a
  // Bidirectional's direction (forward_*/backward_* components).
  static std::vector<std::string> select(const std::vector<std::string>& all, const WeightRef& ref,
                                         const std::string& sub) {
    std::vector<std::string> out;
    const std::string direction = sub.rfind("forward_layer", 0) == 0    ? "forward_"
                                  : sub.rfind("backward_layer", 0) == 0 ? "backward_"
                                                                        : "";
    for (const auto& w : all) {
      auto parts = splitOn(w, '/');
      parts.pop_back();
      if (ref.layer_path.size() > 1 &&
          std::find(parts.begin(), parts.end(), ref.layer_path.back()) == parts.end())
        continue;
      if (!direction.empty() && std::none_of(parts.begin(), parts.end(), [&](const std::string& p) {
            return p.rfind(direction, 0) == 0;
          }))
        continue;
      out.push_back(w);
    }
    return out;
  }

  // By name where every expected weight is found once, else by position
  // (Keras' own loader assigns by position).
  static Result<std::vector<std::string>> match(const std::vector<std::string>& candidates,
                                                const std::vector<std::string>& names) {
    std::vector<std::string> by_name;
    for (const auto& n : names) {
      std::vector<std::string> hits;
      for (const auto& c : candidates)
        if (weightBaseName(c) == n) hits.push_back(c);
      if (hits.size() != 1) break;
      by_name.push_back(hits[0]);
    }
    if (by_name.size() == names.size()) return by_name;
    if (candidates.size() == names.size()) return candidates;
    return Status::Error("holds " + std::to_string(candidates.size()) + " weights for the layer, which has " +
                         std::to_string(names.size()) + " (" + joinNames(names) + ")");
  }

  std::shared_ptr<const Hdf5File> file_;
};

}  // namespace

std::unique_ptr<WeightStore> makeKerasH5Store(std::shared_ptr<const Hdf5File> file) {
  return std::make_unique<KerasH5Store>(std::move(file));
}

std::unique_ptr<WeightStore> makeLegacyH5Store(std::shared_ptr<const Hdf5File> file) {
  return std::make_unique<LegacyH5Store>(std::move(file));
}

}  // namespace gds::model::keras
