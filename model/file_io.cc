#include "model/file_io.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

namespace gds::model {
namespace fs = std::filesystem;
namespace pb = google::protobuf;

namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Result<std::string> readFile(const std::string& path) {
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return Status::Error(path + ": no such file");
  if (fs::is_directory(status)) return Status::Error(path + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(path + ": cannot open (" + std::strerror(errno) + ")");
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) return Status::Error(path + ": cannot read size");
  in.seekg(0);
  std::string bytes(static_cast<size_t>(size), '\0');
  if (size > 0 && !in.read(bytes.data(), size))
    return Status::Error(path + ": read failed after " + std::to_string(in.gcount()) + " bytes");
  return bytes;
}

std::string serialize(const pb::Message& message) {
  std::string out;
  {
    pb::io::StringOutputStream stream(&out);
    pb::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return out;
}

std::string toText(const pb::Message& message) {
  std::string out;
  pb::TextFormat::Printer printer;
  printer.PrintToString(message, &out);
  return out;
}

SaveFormat formatForPath(const std::string& path) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* ext : {".pbtxt", ".pbtext", ".txt", ".prototxt"})
    if (endsWith(lower, ext)) return SaveFormat::Text;
  return SaveFormat::Binary;
}

Status saveMessage(const pb::Message& message, const std::string& path, SaveFormat format) {
  if (format == SaveFormat::Auto) format = formatForPath(path);
  std::string bytes = format == SaveFormat::Text ? toText(message) : serialize(message);
  return writeFileAtomic(path, bytes);
}

Status saveGraph(const tensorflow::GraphDef& graph, const std::string& path, SaveFormat format) {
  return saveMessage(graph, path, format);
}

}  // namespace gds::model
