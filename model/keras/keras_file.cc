#include "model/keras/keras_file.h"

#include <exception>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "model/file_io.h"
#include "model/isolated.h"
#include "model/keras/config.h"
#include "model/keras/convert.h"
#include "model/keras/hdf5_file.h"
#include "model/keras/zip_archive.h"
#include "model/memory_budget.h"

namespace gds::model::keras {

namespace fs = std::filesystem;

namespace {

// JSON nesting deeper than this is refused before parsing (a model config
// nests a few levels per nested model).
constexpr int kMaxJsonDepth = 512;

bool jsonTooDeep(const std::string& text) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

Result<Json> parseJson(const std::string& text, const std::string& what) {
  if (jsonTooDeep(text)) return Status::Error(what + " nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded()) return Status::Error(what + " is not valid JSON");
  return j;
}

KerasVersion parseVersion(const std::string& text) {
  KerasVersion v;
  v.text = text;
  int major = 0, minor = 0;
  if (std::sscanf(text.c_str(), "%d.%d", &major, &minor) >= 1 && major > 0) {
    v.major = major;
    v.minor = minor;
  }
  return v;
}

// Errors name the file once, first: where a message already holds the path
// (a member's or a dataset's error under a layer's context, "layer 'd'
// (Dense): F: model.weights.h5 holds ..."), the path moves to the front.
Status withPath(const Status& s, const std::string& path) {
  if (s.ok()) return s;
  const std::string& m = s.message();
  const std::size_t at = m.find(path);
  if (at == std::string::npos) return s.withContext(path);
  if (at == 0) return s;
  std::string rest = m.substr(at + path.size());
  if (rest.compare(0, 2, ": ") == 0) rest.erase(0, 2);
  return Status::Error(path + ": " + m.substr(0, at) + rest);
}

void listInto(const ModelDef& m, const std::string& prefix, int depth, std::vector<KerasLayerEntry>* out) {
  for (const auto& l : m.layers) {
    out->push_back(KerasLayerEntry{prefix + l.name, l.class_name, l.name, depth});
    if (l.nested) listInto(*l.nested, prefix + l.name + "/", depth + 1, out);
  }
}

// Everything after the file is open: the config parsed and converted.
Status convertConfig(const std::string& config_text, const std::string& config_what, const WeightStore& store,
                     bool legacy_h5, KerasFile* out) {
  auto json = parseJson(config_text, config_what);
  if (!json.ok()) return json.status();
  const KerasVersion version = parseVersion(out->keras_version);
  if (!out->keras_version.empty() && version.major < 2)
    return Status::Error("written by Keras " + out->keras_version + "; Keras 1 configs are not read (Keras 2 and 3 are)");
  auto model = parseModelConfig(*json, version);
  if (!model.ok()) return model.status();
  out->model_class = (*model)->class_name;
  out->model_name = (*model)->name;
  listInto(**model, "", 0, &out->layers);
  auto converted = convertModel(**model, store, version, legacy_h5);
  if (!converted.ok()) return converted.status();
  out->graph = std::move(converted->graph);
  out->inputs = std::move(converted->inputs);
  out->outputs = std::move(converted->outputs);
  return Status::Ok();
}

Status readArchive(const std::string& path, KerasFile* out) {
  auto bytes = readFile(path);
  if (!bytes.ok()) return bytes.status();
  auto zip = ZipArchive::open(std::move(bytes).value(), path);
  if (!zip.ok()) return zip.status();
  out->format = ".keras archive";
  if (!zip->find("config.json"))
    return Status::Error(path + ": member config.json is missing from the archive (a .keras file holds "
                                "metadata.json, config.json and model.weights.h5)");
  if (zip->find("metadata.json")) {
    auto meta = zip->read("metadata.json");
    if (!meta.ok()) return meta.status();
    auto json = parseJson(*meta, path + ": metadata.json");
    if (!json.ok()) return json.status();
    if (json->is_object() && json->contains("keras_version") && (*json)["keras_version"].is_string())
      out->keras_version = (*json)["keras_version"].get<std::string>();
  } else {
    out->warnings.push_back("the archive has no metadata.json; read as Keras 3");
  }
  std::unique_ptr<WeightStore> store;
  if (zip->find("model.weights.h5")) {
    auto image = zip->read("model.weights.h5");
    if (!image.ok()) return image.status();
    auto h5 = Hdf5File::openImage(*image, path + ": model.weights.h5");
    if (!h5.ok()) return h5.status();
    store = makeKerasH5Store(std::make_shared<const Hdf5File>(std::move(h5).value()));
  } else if (zip->find("model.weights.npz")) {
    return Status::Error(path + ": the weights are stored as model.weights.npz (pickled NumPy dicts), which gdstudio "
                                "does not read; save the model with the default weights_format=\"h5\"");
  } else {
    return Status::Error(path + ": member model.weights.h5 is missing from the archive");
  }
  auto config = zip->read("config.json");
  if (!config.ok()) return config.status();
  return withPath(convertConfig(*config, path + ": config.json", *store, false, out), path);
}

Status readHdf5(const std::string& path, KerasFile* out) {
  auto opened = Hdf5File::openFile(path);
  if (!opened.ok()) return opened.status();
  auto h5 = std::make_shared<const Hdf5File>(std::move(opened).value());
  out->format = "HDF5 (.h5)";
  auto config = h5->stringAttr("", "model_config");
  if (!config.ok()) return config.status();
  if (!config->has_value()) {
    auto layer_names = h5->stringListAttr("", "layer_names");
    const bool weights_only = h5->isGroup("layers") || h5->isGroup("vars") || h5->isGroup("model_weights") ||
                              (layer_names.ok() && layer_names->has_value());
    return Status::Error(path + ": the HDF5 file has no model_config attribute" +
                         std::string(weights_only ? " (it holds weights only, as model.save_weights writes them; "
                                                    "gdstudio needs the whole model, model.save)"
                                                  : " (not a Keras model)"));
  }
  for (const char* attr : {"keras_version", "backend"}) {
    auto v = h5->stringAttr("", attr);
    if (!v.ok()) return v.status();
    if (v->has_value()) (std::string(attr) == "backend" ? out->backend : out->keras_version) = **v;
  }
  if (!h5->isGroup("model_weights"))
    return Status::Error(path + ": the HDF5 file has no model_weights group (the model was saved without weights)");
  auto store = makeLegacyH5Store(h5);
  return withPath(convertConfig(**config, path + ": the model_config attribute", *store, true, out), path);
}

}  // namespace

bool looksLikeKerasFile(const std::string& header) { return looksLikeZip(header) || looksLikeHdf5(header); }

namespace {

// Reads the file in this process.
Result<KerasFile> readHere(const std::string& path, const std::string& head) {
  KerasFile out;
  try {
    Status s = looksLikeZip(head)    ? readArchive(path, &out)
               : looksLikeHdf5(head) ? readHdf5(path, &out)
                                     : Status::Error(path + ": neither a .keras (zip) archive nor an HDF5 file");
    if (!s.ok()) return s;
  } catch (const std::exception& e) {
    // nlohmann::json reports a value of an unexpected type by throwing; no
    // exception leaves the library.
    return Status::Error(path + ": malformed model config (" + e.what() + ")");
  }
  return out;
}

// A KerasFile as bytes from the reader process: the length of a JSON
// document of its fields (8 bytes, little-endian), the document, the graph.
std::string encode(const KerasFile& f) {
  nlohmann::json j;
  j["format"] = f.format;
  j["keras_version"] = f.keras_version;
  j["backend"] = f.backend;
  j["model_class"] = f.model_class;
  j["model_name"] = f.model_name;
  j["inputs"] = f.inputs;
  j["outputs"] = f.outputs;
  j["warnings"] = f.warnings;
  j["layers"] = nlohmann::json::array();
  for (const auto& l : f.layers)
    j["layers"].push_back({{"path", l.path}, {"class_name", l.class_name}, {"name", l.name}, {"depth", l.depth}});
  // Invalid UTF-8 in a layer name must not end the encoding.
  const std::string meta = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((meta.size() >> (8 * i)) & 0xff);
  return out + meta + f.graph.SerializeAsString();
}

Result<KerasFile> decode(const std::string& bytes, const std::string& path) {
  const Status bad = Status::Error(path + ": the reader process sent a malformed result");
  if (bytes.size() < 8) return bad;
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  if (n > bytes.size() - 8) return bad;
  KerasFile f;
  try {
    const auto j = nlohmann::json::parse(bytes.substr(8, n));
    f.format = j.at("format");
    f.keras_version = j.at("keras_version");
    f.backend = j.at("backend");
    f.model_class = j.at("model_class");
    f.model_name = j.at("model_name");
    f.inputs = j.at("inputs").get<std::vector<std::string>>();
    f.outputs = j.at("outputs").get<std::vector<std::string>>();
    f.warnings = j.at("warnings").get<std::vector<std::string>>();
    for (const auto& l : j.at("layers"))
      f.layers.push_back({l.at("path"), l.at("class_name"), l.at("name"), l.at("depth").get<int>()});
  } catch (const std::exception&) {
    return bad;
  }
  if (!f.graph.ParseFromArray(bytes.data() + 8 + n, static_cast<int>(bytes.size() - 8 - n))) return bad;
  return f;
}

}  // namespace

Result<KerasFile> readKerasFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[8] = {};
  if (!in.read(header, sizeof header)) return Status::Error(path + ": too short for a Keras model file");
  in.close();
  const std::string head(header, sizeof header);
  // The HDF5 library crashes or loops on some damaged files: it reads in a
  // process of its own, given two minutes and a second per MB.
  std::error_code ec;
  const auto bytes = fs::file_size(path, ec);
  const double deadline_s = 120.0 + (ec ? 0.0 : static_cast<double>(bytes) / (1 << 20));
  auto encoded = runIsolated(path, deadline_s, [&]() -> Result<std::string> {
    auto read = readHere(path, head);
    if (!read.ok()) return read.status();
    return encode(*read);
  });
  if (!encoded.ok()) return encoded.status();
  return decode(*encoded, path);
}

}  // namespace gds::model::keras
