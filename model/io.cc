#include "model/io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include "model/keras/keras_file.h"
#include "model/memmapped.h"
#include "model/saved_model_v2.h"
#include "model/tflite/reader.h"
#include "model/validate.h"

namespace gds::model {
namespace fs = std::filesystem;
namespace pb = google::protobuf;

namespace {

bool parseBinary(const std::string& bytes, pb::Message* message) {
  // Trying a file as each kind logs protobuf errors (invalid UTF-8, ...);
  // the caller reports one clear error instead.
  pb::LogSilencer silence;
  pb::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                  static_cast<int>(std::min<size_t>(bytes.size(), INT_MAX)));
  stream.SetTotalBytesLimit(INT_MAX);
  return message->ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
}

// Collects the first text-format error with its position (1-based).
class TextErrors : public pb::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (!first.empty()) return;
    first = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) + ": " + message;
  }
  void AddWarning(int, int, const std::string&) override {}
  std::string first;
};

// Nesting depth allowed in text format: the binary parser's default
// (CodedInputStream's recursion limit, 100). Without it a .pbtxt nesting
// AttrValues a few thousand levels deep overflowed the stack.
constexpr int kTextRecursionLimit = 100;

// Parses text format; unknown fields are a hard error at first, then skipped
// with a warning so files from newer TensorFlow versions still open.
Status parseText(const std::string& bytes, pb::Message* message, std::vector<std::string>* warnings) {
  {
    TextErrors errors;
    pb::TextFormat::Parser parser;
    parser.RecordErrorsTo(&errors);
    parser.SetRecursionLimit(kTextRecursionLimit);
    if (parser.ParseFromString(bytes, message)) return Status::Ok();
    if (errors.first.find("no field named") == std::string::npos &&
        errors.first.find("has no value named") == std::string::npos)
      return Status::Error("text format error at " + errors.first);
    message->Clear();
    TextErrors lenient_errors;
    pb::TextFormat::Parser lenient;
    lenient.RecordErrorsTo(&lenient_errors);
    lenient.SetRecursionLimit(kTextRecursionLimit);
    lenient.AllowUnknownField(true);
    lenient.AllowUnknownExtension(true);
    if (lenient.ParseFromString(bytes, message)) {
      if (warnings) warnings->push_back("skipped fields this version does not know (" + errors.first + ")");
      return Status::Ok();
    }
    return Status::Error("text format error at " + errors.first);
  }
}

bool looksLikeText(const std::string& bytes) {
  size_t n = std::min<size_t>(bytes.size(), 4096);
  size_t i = 0;
  while (i < n && std::isspace(static_cast<unsigned char>(bytes[i]))) ++i;
  if (i == n) return false;
  char c = bytes[i];
  if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '#' || c == '[')) return false;
  for (size_t k = 0; k < n; ++k) {
    unsigned char u = static_cast<unsigned char>(bytes[k]);
    if (u == 0 || (u < 32 && u != '\n' && u != '\r' && u != '\t')) return false;
  }
  return true;
}

// First top-level field name in a text-format file (skipping comments).
std::string firstTextField(const std::string& bytes) {
  size_t i = 0;
  while (i < bytes.size()) {
    while (i < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[i]))) ++i;
    if (i < bytes.size() && bytes[i] == '#') {
      while (i < bytes.size() && bytes[i] != '\n') ++i;
      continue;
    }
    break;
  }
  size_t start = i;
  while (i < bytes.size() && (std::isalnum(static_cast<unsigned char>(bytes[i])) || bytes[i] == '_')) ++i;
  return bytes.substr(start, i - start);
}

bool plausibleGraph(const tensorflow::GraphDef& g) {
  if (g.node_size() == 0) return g.has_library() && g.library().function_size() > 0;
  for (const auto& n : g.node())
    if (n.name().empty() || n.op().empty()) return false;
  return true;
}

std::vector<Signature> signaturesOf(const tensorflow::MetaGraphDef& meta) {
  std::vector<Signature> out;
  for (const auto& [key, def] : meta.signature_def()) {
    Signature s;
    s.key = key;
    s.method_name = def.method_name();
    for (const auto& [alias, info] : def.inputs()) s.inputs.emplace_back(alias, info.name());
    for (const auto& [alias, info] : def.outputs()) s.outputs.emplace_back(alias, info.name());
    std::sort(s.inputs.begin(), s.inputs.end());
    std::sort(s.outputs.begin(), s.outputs.end());
    auto describe = [](const std::string& alias, const tensorflow::TensorInfo& info) {
      SignatureTensor t;
      t.key = alias;
      t.tensor = info.name();
      t.dtype = info.dtype();
      t.known_rank = info.has_tensor_shape() && !info.tensor_shape().unknown_rank();
      if (t.known_rank) t.shape = shapeFromProto(info.tensor_shape());
      return t;
    };
    for (const auto& [alias, info] : def.inputs()) s.input_tensors.push_back(describe(alias, info));
    for (const auto& [alias, info] : def.outputs()) s.output_tensors.push_back(describe(alias, info));
    auto byKey = [](const SignatureTensor& a, const SignatureTensor& b) { return a.key < b.key; };
    std::sort(s.input_tensors.begin(), s.input_tensors.end(), byKey);
    std::sort(s.output_tensors.begin(), s.output_tensors.end(), byKey);
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const Signature& a, const Signature& b) { return a.key < b.key; });
  return out;
}

void takeMetaGraph(tensorflow::MetaGraphDef&& meta, LoadedModel* model) {
  model->graph.Swap(meta.mutable_graph_def());
  meta.clear_graph_def();
  model->signatures = signaturesOf(meta);
  model->meta = std::move(meta);
}

Status fromSavedModel(tensorflow::SavedModel&& saved, const LoadOptions& options, LoadedModel* model) {
  if (saved.meta_graphs_size() == 0) return Status::Error("SavedModel holds no meta graph");
  int chosen = -1;
  for (int i = 0; i < saved.meta_graphs_size(); ++i) {
    const auto& tags = saved.meta_graphs(i).meta_info_def().tags();
    model->tag_sets.emplace_back(tags.begin(), tags.end());
  }
  auto hasAll = [&](int i, const std::vector<std::string>& want) {
    const auto& have = model->tag_sets[i];
    for (const auto& t : want)
      if (std::find(have.begin(), have.end(), t) == have.end()) return false;
    return true;
  };
  if (!options.tags.empty()) {
    for (int i = 0; i < saved.meta_graphs_size() && chosen < 0; ++i)
      if (hasAll(i, options.tags)) chosen = i;
    if (chosen < 0) {
      std::string want, have;
      for (const auto& t : options.tags) want += (want.empty() ? "" : ",") + t;
      for (const auto& set : model->tag_sets) {
        std::string s;
        for (const auto& t : set) s += (s.empty() ? "" : ",") + t;
        have += (have.empty() ? "" : "; ") + std::string("[") + s + "]";
      }
      return Status::Error("no meta graph with tags [" + want + "]; available: " + have);
    }
  } else {
    for (int i = 0; i < saved.meta_graphs_size() && chosen < 0; ++i)
      if (hasAll(i, {"serve"})) chosen = i;
    if (chosen < 0) chosen = 0;
  }
  model->meta_graph_index = chosen;
  takeMetaGraph(std::move(*saved.mutable_meta_graphs(chosen)), model);
  return Status::Ok();
}

// The first 8 bytes carry TensorFlow Lite's file identifier "TFL3" at 4..8.
bool isTfliteFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[8];
  if (!in.read(header, sizeof header)) return false;
  return tflite::looksLikeTflite(std::string(header, sizeof header));
}

// A zip archive (.keras) or an HDF5 file (.h5), by their signatures.
bool isKerasFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[8];
  if (!in.read(header, sizeof header)) return false;
  return keras::looksLikeKerasFile(std::string(header, sizeof header));
}

Status loadKeras(LoadedModel* model) {
  auto read = keras::readKerasFile(model->file);
  if (!read.ok()) return read.status();
  std::error_code ec;
  model->kind = ModelKind::Keras;
  model->file_bytes = static_cast<std::int64_t>(fs::file_size(model->file, ec));
  model->graph = std::move(read->graph);
  model->producer = "Keras " + (read->keras_version.empty() ? std::string("(version not recorded)") : read->keras_version) +
                    ", " + read->format;
  model->warnings = std::move(read->warnings);
  // One signature, as a Keras model's SavedModel export has: the input
  // layers' Placeholders and the output layers' tensors by their names.
  Signature sig;
  sig.key = "serving_default";
  sig.method_name = "tensorflow/serving/predict";
  auto describe = [&](const std::string& node) {
    SignatureTensor t;
    t.key = node;
    t.tensor = node + ":0";
    for (const auto& n : model->graph.node())
      if (n.name() == node && n.op() == "Placeholder") {
        t.dtype = n.attr().at("dtype").type();
        t.shape = shapeFromProto(n.attr().at("shape").shape(), &t.known_rank);
      }
    return t;
  };
  for (const auto& in : read->inputs) sig.input_tensors.push_back(describe(in));
  for (const auto& out : read->outputs) sig.output_tensors.push_back(describe(out));
  for (const auto& t : sig.input_tensors) sig.inputs.emplace_back(t.key, t.tensor);
  for (const auto& t : sig.output_tensors) sig.outputs.emplace_back(t.key, t.tensor);
  model->signatures.push_back(std::move(sig));
  KerasObject root;
  root.node_id = 0;
  root.path = "root";
  root.identifier = "_tf_keras_model";
  root.class_name = read->model_class;
  root.name = read->model_name;
  model->keras_objects.push_back(root);
  for (const auto& l : read->layers) {
    KerasObject k;
    k.node_id = static_cast<int>(model->keras_objects.size());
    k.path = "root." + l.path;
    k.identifier = "_tf_keras_layer";
    k.class_name = l.class_name;
    k.name = l.name;
    model->keras_objects.push_back(std::move(k));
  }
  return Status::Ok();
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Result<tensorflow::GraphDef> parseGraphDef(const std::string& bytes, const std::string& name) {
  tensorflow::GraphDef graph;
  if (bytes.empty()) return Status::Error(name + ": file is empty");
  if (looksLikeText(bytes)) {
    Status s = parseText(bytes, &graph, nullptr);
    if (!s.ok()) return s.withContext(name);
    return graph;
  }
  if (!parseBinary(bytes, &graph) || !plausibleGraph(graph))
    return Status::Error(name + ": not a valid GraphDef (corrupt or truncated protobuf)");
  return graph;
}

namespace {

bool isSavedModelDir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "saved_model.pb", ec) || fs::is_regular_file(dir / "saved_model.pbtxt", ec);
}

// Side files TensorFlow 2 and Keras write beside saved_model.pb: protobufs,
// but not graphs. Opening one names the model it belongs to.
Status checkNotSavedModelSideFile(const std::string& path) {
  fs::path p(path);
  std::string base = p.filename().string();
  const char* what = base == "keras_metadata.pb" ? "the Keras metadata" : base == "fingerprint.pb" ? "the fingerprint" : nullptr;
  fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!what || !isSavedModelDir(dir)) return Status::Ok();
  return Status::Error(path + ": this is " + what + " of the SavedModel in " + dir.string() +
                       ", not a graph; open that folder (or its saved_model.pb) instead");
}

}  // namespace

const std::vector<std::string>& modelFileExtensions() {
  static const std::vector<std::string> extensions = {".pb", ".pbtxt", ".meta", ".tflite", ".keras", ".h5", ".hdf5"};
  return extensions;
}

std::vector<std::string> findModels(const std::string& dir) {
  if (isSavedModelDir(dir)) return {dir};
  std::vector<std::string> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path& path = it->path();
    if (it->is_directory(ec)) {
      if (isSavedModelDir(path)) {
        out.push_back(path.string());
        it.disable_recursion_pending();
      }
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    const auto& known = modelFileExtensions();
    if (std::find(known.begin(), known.end(), ext) == known.end()) continue;
    out.push_back(path.string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

// The model in `data`, the bytes of model->file, recognised by content:
// TensorFlow Lite by its file identifier, protobuf text by its first field,
// binary protobuf by trying the kind the file name suggests first.
Status parseModel(const std::string& data, const LoadOptions& options, LoadedModel* out) {
  LoadedModel& model = *out;
  if (tflite::looksLikeTflite(data)) {
    const tflite::ReadLimits limits;
    if (data.size() > limits.max_file_bytes)
      return Status::Error(model.file + ": " + std::to_string(data.size()) + " bytes exceed the " +
                           std::to_string(limits.max_file_bytes) + "-byte limit for TensorFlow Lite models");
    auto read = tflite::readTflite(data, model.file, limits);
    if (!read.ok()) return read.status();
    model.kind = ModelKind::TFLite;
    model.file_bytes = static_cast<std::int64_t>(data.size());
    model.graph = std::move(read->graph);
    model.signatures = std::move(read->signatures);
    model.producer = read->description;
    return Status::Ok();
  }
  // Keras files are read through libzip and HDF5 from their path
  // (loadUnchecked); bytes alone are refused by name rather than misparsed.
  if (keras::looksLikeKerasFile(data.substr(0, 8)))
    return Status::Error(model.file + ": a Keras model (zip archive or HDF5 file) is read from a file; give its path");
  model.file_bytes = static_cast<std::int64_t>(data.size());
  if (data.empty()) return Status::Error(model.file + ": file is empty");

  std::string base = fs::path(model.file).filename().string();
  bool saved_model_name = base == "saved_model.pb" || base == "saved_model.pbtxt";

  if (looksLikeText(data)) {
    model.text = true;
    std::string field = firstTextField(data);
    Status s;
    if (field == "saved_model_schema_version" || field == "meta_graphs") {
      tensorflow::SavedModel saved;
      s = parseText(data, &saved, &model.warnings);
      if (s.ok()) {
        model.kind = ModelKind::SavedModel;
        s = fromSavedModel(std::move(saved), options, &model);
        if (s.ok()) describeObjectGraph(&model);
      }
    } else if (field == "meta_info_def" || field == "graph_def" || field == "saver_def" ||
               field == "collection_def" || field == "signature_def") {
      tensorflow::MetaGraphDef meta;
      s = parseText(data, &meta, &model.warnings);
      if (s.ok()) {
        model.kind = ModelKind::MetaGraph;
        takeMetaGraph(std::move(meta), &model);
        describeObjectGraph(&model);
      }
    } else if (field == "node" || field == "versions" || field == "library" || field == "version") {
      s = parseText(data, &model.graph, &model.warnings);
      model.kind = ModelKind::GraphDef;
    } else {
      s = Status::Error("line 1: '" + field +
                        "' is not a field of GraphDef, MetaGraphDef or SavedModel (expected 'node', "
                        "'meta_info_def' or 'meta_graphs')");
    }
    return s.withContext(model.file);
  }

  // Binary: try the kind the name suggests first, then the others, and keep
  // the first one whose content is plausible.
  std::vector<ModelKind> order;
  if (saved_model_name) order = {ModelKind::SavedModel, ModelKind::MetaGraph, ModelKind::GraphDef};
  else if (endsWith(base, ".meta")) order = {ModelKind::MetaGraph, ModelKind::SavedModel, ModelKind::GraphDef};
  else order = {ModelKind::GraphDef, ModelKind::MetaGraph, ModelKind::SavedModel};
  for (ModelKind kind : order) {
    if (kind == ModelKind::GraphDef) {
      tensorflow::GraphDef graph;
      if (parseBinary(data, &graph) && plausibleGraph(graph)) {
        model.kind = kind;
        model.graph = std::move(graph);
        return Status::Ok();
      }
    } else if (kind == ModelKind::MetaGraph) {
      tensorflow::MetaGraphDef meta;
      if (parseBinary(data, &meta) && meta.has_graph_def() && plausibleGraph(meta.graph_def()) &&
          (meta.has_meta_info_def() || meta.graph_def().node_size() > 0)) {
        model.kind = kind;
        takeMetaGraph(std::move(meta), &model);
        describeObjectGraph(&model);
        return Status::Ok();
      }
    } else {
      tensorflow::SavedModel saved;
      if (parseBinary(data, &saved) && saved.meta_graphs_size() > 0 &&
          plausibleGraph(saved.meta_graphs(0).graph_def())) {
        model.kind = kind;
        Status s = fromSavedModel(std::move(saved), options, &model);
        if (!s.ok()) return s.withContext(model.file);
        describeObjectGraph(&model);
        return Status::Ok();
      }
    }
  }
  return Status::Error(model.file + ": not a valid " + std::string(modelKindName(order[0])) +
                       " (corrupt or truncated protobuf, " + std::to_string(data.size()) + " bytes)");
}

Result<LoadedModel> loadUnchecked(const std::string& path, const LoadOptions& options) {
  if (Status side = checkNotSavedModelSideFile(path); !side.ok()) return side;
  LoadedModel model;
  model.path = path;
  model.file = path;
  std::error_code ec;
  bool is_dir = fs::is_directory(path, ec);
  if (is_dir) {
    if (fs::exists(fs::path(path) / "saved_model.pb")) {
      model.file = (fs::path(path) / "saved_model.pb").string();
    } else if (fs::exists(fs::path(path) / "saved_model.pbtxt")) {
      model.file = (fs::path(path) / "saved_model.pbtxt").string();
    } else {
      return Status::Error(path + ": not a SavedModel directory (it holds no saved_model.pb or saved_model.pbtxt)");
    }
  }
  // A memory-mapped package is recognised from its last bytes and mapped, not
  // read: reading it whole would page in (and copy) every weight.
  if (!is_dir && isMemmappedFile(model.file)) {
    auto mapped = MemmappedFile::open(model.file);
    if (!mapped.ok()) return mapped.status();
    model.kind = ModelKind::GraphDef;
    model.file_bytes = static_cast<std::int64_t>((*mapped)->size());
    model.graph = (*mapped)->takeGraph();
    model.memmapped = true;
    model.mapping = std::move(mapped).value();
    return model;
  }
  // Keras: a .keras zip archive or an HDF5 model, converted to a graph.
  if (!is_dir && isKerasFile(model.file)) {
    GDS_RETURN_IF_ERROR(loadKeras(&model));
    return model;
  }
  // TensorFlow Lite: size-checked before the whole file is read.
  if (!is_dir && isTfliteFile(model.file)) {
    const tflite::ReadLimits limits;
    std::error_code size_ec;
    const auto size = fs::file_size(model.file, size_ec);
    if (!size_ec && size > limits.max_file_bytes)
      return Status::Error(model.file + ": file of " + std::to_string(size) + " bytes exceeds the " +
                           std::to_string(limits.max_file_bytes) + "-byte limit for TensorFlow Lite models");
  }
  auto bytes = readFile(model.file);
  if (!bytes.ok()) return bytes.status();
  GDS_RETURN_IF_ERROR(parseModel(*bytes, options, &model));
  return model;
}

}  // namespace

Result<LoadedModel> load(const std::string& path, const LoadOptions& options) {
  auto model = loadUnchecked(path, options);
  if (!model.ok()) return model;
  if (Status valid = validateGraph(model->graph); !valid.ok()) return valid.withContext(model->file);
  return model;
}

Result<LoadedModel> loadBytes(const std::string& bytes, const std::string& name, const LoadOptions& options) {
  LoadedModel model;
  model.path = name;
  model.file = name;
  GDS_RETURN_IF_ERROR(parseModel(bytes, options, &model));
  if (Status valid = validateGraph(model.graph); !valid.ok()) return valid.withContext(name);
  return model;
}

}  // namespace gds::model
