#include "model/tflite/writer.h"

#include <algorithm>
#include <map>
#include <queue>
#include <unordered_map>

#include "model/attr.h"
#include "model/graph.h"
#include "model/tensor.h"
#include "model/tflite/builtin_ops.h"
#include "model/tflite/dialect.h"
#include "model/tflite/op_version.h"
#include "model/tflite/options.h"
#include "model/tflite/types.h"
#include "tflite/schema_generated.h"

namespace gds::model::tflite {
namespace {

namespace fb = ::tflite;
using tensorflow::NodeDef;

struct TensorInfo {
  const NodeDef* node = nullptr;
  int port = 0;
  int type = 0;  // TensorType
  tensorflow::DataType dtype = tensorflow::DT_INVALID;
  bool known_rank = false;
  Shape shape;      // -1 for free dimensions
  bool has_signature = false;
  Shape signature;
  Quantization quantization;
  int buffer = 0;
  std::string name;
};

struct OpInfo {
  const NodeDef* node = nullptr;
  const BuiltinOp* builtin = nullptr;  // nullptr: tfl.custom
  std::vector<int> inputs, outputs;
  int opcode = 0;
};

class Writer {
 public:
  Writer(const tensorflow::GraphDef& graph, const WriteOptions& options) : graph_(graph), options_(options) {}
  Result<std::string> write(WriteStats* stats);

 private:
  Status collectTensors();
  Status tensorOf(const NodeDef& node, int port);
  Status constantData(const NodeDef& node, TensorInfo* info);
  Status orderOperators();
  Status operatorOf(const NodeDef& node);
  Result<int> tensorIndex(const std::string& ref, const std::string& what) const;
  Status modelInputsOutputs();
  std::string build(WriteStats* stats);

  const tensorflow::GraphDef& graph_;
  const WriteOptions& options_;
  std::unordered_map<std::string, const NodeDef*> nodes_;
  std::map<std::pair<std::string, int>, int> tensor_index_;
  std::vector<TensorInfo> tensors_;
  std::vector<std::string> buffers_;  // [0] is the sentinel
  std::unordered_map<std::string, int> buffer_by_bytes_;
  int shared_buffers_ = 0;
  std::uint64_t constant_bytes_ = 0;
  std::vector<const NodeDef*> op_nodes_;  // execution order
  std::vector<OpInfo> ops_;
  struct Code {
    int builtin;
    std::string custom;
    int version;
  };
  std::vector<Code> codes_;
  std::vector<int> inputs_, outputs_;
};

std::string where(const NodeDef& node) { return "node '" + node.name() + "' (" + node.op() + ")"; }

Status Writer::constantData(const NodeDef& node, TensorInfo* info) {
  const auto* attr = findAttr(node, "value");
  if (!attr || !attr->has_tensor()) return Status::Error(where(node) + " has no value");
  const tensorflow::TensorProto& value = attr->tensor();
  if (value.dtype() != info->dtype)
    return Status::Error(where(node) + " holds a " + dtypeName(value.dtype()) + " value but its dtype is " +
                         dtypeName(info->dtype));
  const std::int64_t elements = numElements(info->shape);
  if (!info->known_rank || elements < 0) return Status::Error(where(node) + " has a value of unknown shape");
  std::string bytes;
  if (info->dtype == tensorflow::DT_STRING) {
    std::vector<std::string> strings(value.string_val().begin(), value.string_val().end());
    if (static_cast<std::int64_t>(strings.size()) != elements)
      return Status::Error(where(node) + " holds " + std::to_string(strings.size()) + " strings for " +
                           std::to_string(elements) + " elements");
    bytes = encodeStringBuffer(strings);
  } else {
    const std::uint64_t expected = static_cast<std::uint64_t>(elements) * dtypeSize(info->dtype);
    if (!value.tensor_content().empty()) {
      if (value.tensor_content().size() != expected)
        return Status::Error(where(node) + " has " + std::to_string(value.tensor_content().size()) +
                             " bytes of data; its shape and dtype need " + std::to_string(expected));
      bytes = value.tensor_content();
    } else {
      auto host = decodeTensor(value);
      if (!host.ok()) return Status::Error(where(node) + ": " + host.error());
      bytes.assign(reinterpret_cast<const char*>(host->data.data()), host->data.size());
      if (bytes.size() != expected)
        return Status::Error(where(node) + " decodes to " + std::to_string(bytes.size()) + " bytes; its shape needs " +
                             std::to_string(expected));
    }
  }
  constant_bytes_ += bytes.size();
  if (bytes.empty()) return Status::Ok();  // zero elements: no data
  auto [pos, added] = buffer_by_bytes_.emplace(bytes, static_cast<int>(buffers_.size()));
  if (added) buffers_.push_back(std::move(bytes));
  else ++shared_buffers_;
  info->buffer = pos->second;
  return Status::Ok();
}

Status Writer::tensorOf(const NodeDef& node, int port) {
  TensorInfo info;
  info.node = &node;
  info.port = port;
  info.dtype = outputType(node, port);
  info.type = tensorTypeFromDtype(info.dtype);
  if (info.type < 0)
    return Status::Error(where(node) + " output " + std::to_string(port) + " has dtype " +
                         (info.dtype == tensorflow::DT_INVALID ? std::string("unknown (no _output_types)")
                                                               : dtypeName(info.dtype)) +
                         ", which TensorFlow Lite has no type for");
  info.shape = outputShape(node, port, &info.known_rank);
  if (const auto* signature = findAttr(node, kShapeSignatureAttr)) {
    const auto& list = signature->list();
    if (port < list.shape_size() && !list.shape(port).unknown_rank()) {
      info.has_signature = true;
      info.signature = shapeFromProto(list.shape(port));
    }
  }
  bool free_dims = false;
  for (std::int64_t d : info.shape) free_dims = free_dims || d < 0;
  if (free_dims && !info.has_signature) {
    info.has_signature = true;
    info.signature = info.shape;
  }
  if (info.has_signature && info.signature.size() != info.shape.size())
    return Status::Error(where(node) + " output " + std::to_string(port) + " has a shape signature of rank " +
                         std::to_string(info.signature.size()) + " for a shape of rank " +
                         std::to_string(info.shape.size()));
  info.quantization = quantizationOf(node, port);
  const Quantization& q = info.quantization;
  if (!q.zero_point.empty() && q.zero_point.size() != q.scale.size())
    return Status::Error(where(node) + " output " + std::to_string(port) + " has " + std::to_string(q.scale.size()) +
                         " quantization scales but " + std::to_string(q.zero_point.size()) + " zero points");
  if (q.scale.size() > 1) {
    const int dim = q.quantized_dimension;
    if (dim < 0 || dim >= static_cast<int>(info.shape.size()) ||
        info.shape[static_cast<std::size_t>(dim)] != static_cast<std::int64_t>(q.scale.size()))
      return Status::Error(where(node) + " output " + std::to_string(port) + " has " + std::to_string(q.scale.size()) +
                           " quantization scales along dimension " + std::to_string(dim) + " of shape " +
                           shapeString(info.shape));
  }
  if (q.min.size() != q.max.size())
    return Status::Error(where(node) + " output " + std::to_string(port) + " has " + std::to_string(q.min.size()) +
                         " quantization minimums but " + std::to_string(q.max.size()) + " maximums");
  info.name = tensorName(node, port);
  if (node.op() == "Const") GDS_RETURN_IF_ERROR(constantData(node, &info));
  tensor_index_[{node.name(), port}] = static_cast<int>(tensors_.size());
  tensors_.push_back(std::move(info));
  return Status::Ok();
}

Status Writer::collectTensors() {
  buffers_.emplace_back();  // the empty sentinel
  for (const NodeDef& node : graph_.node()) {
    if (!nodes_.emplace(node.name(), &node).second)
      return Status::Error("two nodes are named '" + node.name() + "'");
    const std::string& op = node.op();
    if (op == kNoValueOp) {
      if (node.input_size() > 0) return Status::Error(where(node) + " must have no inputs");
      continue;
    }
    if (op == "Placeholder" || op == "Const") {
      GDS_RETURN_IF_ERROR(tensorOf(node, 0));
      continue;
    }
    if (!isDialectOp(op) || (op != kCustomOp && !builtinByOpType(op))) {
      if (isDialectOp(op)) return Status::Error(where(node) + " is not a TensorFlow Lite builtin gdstudio can write");
      return Status::Error(where(node) + " is not a TensorFlow Lite op; convert the graph first (gdstudio "
                           "tflite_convert) or remove the node");
    }
    if (!findAttr(node, kOutputTypesAttr))
      return Status::Error(where(node) + " has no _output_types attr");
    const int outputs = outputCount(node);
    if (outputs == 0) return Status::Error(where(node) + " has no outputs");
    for (int port = 0; port < outputs; ++port) GDS_RETURN_IF_ERROR(tensorOf(node, port));
    op_nodes_.push_back(&node);
  }
  return Status::Ok();
}

// Operators in an order where producers come first (graph order among the
// ready ones), as the file's operator list is the execution order.
Status Writer::orderOperators() {
  std::unordered_map<std::string, int> op_index;
  for (std::size_t i = 0; i < op_nodes_.size(); ++i) op_index[op_nodes_[i]->name()] = static_cast<int>(i);
  std::vector<int> pending(op_nodes_.size(), 0);
  std::vector<std::vector<int>> consumers(op_nodes_.size());
  for (std::size_t i = 0; i < op_nodes_.size(); ++i) {
    for (const std::string& input : op_nodes_[i]->input()) {
      if (!input.empty() && input[0] == '^')
        return Status::Error(where(*op_nodes_[i]) + " has the control input '" + input +
                             "'; TensorFlow Lite has no control dependencies");
      auto it = op_index.find(std::string(nodeNameOf(input)));
      if (it == op_index.end()) continue;
      ++pending[i];
      consumers[static_cast<std::size_t>(it->second)].push_back(static_cast<int>(i));
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (std::size_t i = 0; i < op_nodes_.size(); ++i)
    if (pending[i] == 0) ready.push(static_cast<int>(i));
  std::vector<const NodeDef*> order;
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(op_nodes_[static_cast<std::size_t>(i)]);
    for (int c : consumers[static_cast<std::size_t>(i)])
      if (--pending[static_cast<std::size_t>(c)] == 0) ready.push(c);
  }
  if (order.size() != op_nodes_.size())
    return Status::Error(std::to_string(op_nodes_.size() - order.size()) + " operators form a cycle");
  op_nodes_ = std::move(order);
  return Status::Ok();
}

Result<int> Writer::tensorIndex(const std::string& ref, const std::string& what) const {
  const TensorRef t = parseTensorName(ref);
  auto it = tensor_index_.find({t.node, t.port});
  if (it == tensor_index_.end()) return Status::Error(what + " names '" + ref + "', which is no tensor of the graph");
  return it->second;
}

Status Writer::operatorOf(const NodeDef& node) {
  OpInfo op;
  op.node = &node;
  op.builtin = builtinByOpType(node.op());
  int position = 0;
  for (const std::string& input : node.input()) {
    const std::string what = where(node) + " input " + std::to_string(position++);
    if (nodeNameOf(input) == kNoValueNode) {
      op.inputs.push_back(-1);
      continue;
    }
    auto index = tensorIndex(input, what);
    if (!index.ok()) return index.status();
    op.inputs.push_back(*index);
  }
  for (int port = 0; port < outputCount(node); ++port) op.outputs.push_back(tensor_index_.at({node.name(), port}));
  int builtin = kCustomCode, version = 1;
  std::string custom;
  if (op.builtin) {
    builtin = op.builtin->code;
    if (!op.builtin->options)
      for (const auto& [name, value] : node.attr())
        if (!name.empty() && name[0] != '_')
          return Status::Error(where(node) + ": attr '" + name + "' is not an option of " + op.builtin->name +
                               " (it has none)");
    std::vector<VersionTensor> ins, outs;
    for (int i : op.inputs) {
      if (i < 0) {
        ins.push_back({});
        continue;
      }
      const TensorInfo& t = tensors_[static_cast<std::size_t>(i)];
      ins.push_back({t.dtype, t.shape, t.quantization});
    }
    for (int i : op.outputs) {
      const TensorInfo& t = tensors_[static_cast<std::size_t>(i)];
      outs.push_back({t.dtype, t.shape, t.quantization});
    }
    version = builtinVersion(builtin, node, ins, outs);
  } else {
    const auto* code = findAttr(node, "custom_code");
    if (!code || code->s().empty()) return Status::Error(where(node) + " has no custom_code attr");
    custom = code->s();
  }
  auto code = std::find_if(codes_.begin(), codes_.end(),
                           [&](const Code& c) { return c.builtin == builtin && c.custom == custom; });
  if (code == codes_.end()) {
    codes_.push_back({builtin, custom, version});
    code = codes_.end() - 1;
  }
  // One operator code per builtin with the highest version its uses need, as
  // TensorFlow Lite's UpdateOpVersion leaves it.
  code->version = std::max(code->version, version);
  op.opcode = static_cast<int>(code - codes_.begin());
  ops_.push_back(std::move(op));
  return Status::Ok();
}

Status Writer::modelInputsOutputs() {
  if (!options_.inputs.empty()) {
    for (const std::string& name : options_.inputs) {
      auto index = tensorIndex(name, "the model input list");
      if (!index.ok()) return index.status();
      inputs_.push_back(*index);
    }
  } else {
    std::vector<std::pair<std::int64_t, int>> order;
    int position = 0;
    for (const TensorInfo& t : tensors_) {
      ++position;
      if (t.node->op() != "Placeholder") continue;
      const auto* index = findAttr(*t.node, kInputIndexAttr);
      const std::int64_t key = index ? index->i() : (std::int64_t{1} << 40) + position;
      order.emplace_back(key, position - 1);
    }
    std::stable_sort(order.begin(), order.end());
    for (const auto& [key, index] : order) inputs_.push_back(index);
  }
  if (!options_.outputs.empty()) {
    for (const std::string& name : options_.outputs) {
      auto index = tensorIndex(name, "the model output list");
      if (!index.ok()) return index.status();
      outputs_.push_back(*index);
    }
    return Status::Ok();
  }
  std::vector<std::pair<std::int64_t, int>> marked;
  for (std::size_t i = 0; i < tensors_.size(); ++i) {
    const TensorInfo& t = tensors_[i];
    const auto* index = findAttr(*t.node, kOutputIndexAttr);
    if (!index || t.port >= index->list().i_size()) continue;
    const std::int64_t position = index->list().i(t.port);
    if (position >= 0) marked.emplace_back(position, static_cast<int>(i));
  }
  if (!marked.empty()) {
    std::stable_sort(marked.begin(), marked.end());
    for (const auto& [position, index] : marked) outputs_.push_back(index);
    return Status::Ok();
  }
  std::vector<bool> read(tensors_.size(), false);
  for (const OpInfo& op : ops_)
    for (int i : op.inputs)
      if (i >= 0) read[static_cast<std::size_t>(i)] = true;
  for (const OpInfo& op : ops_)
    for (int i : op.outputs)
      if (!read[static_cast<std::size_t>(i)]) outputs_.push_back(i);
  if (outputs_.empty()) return Status::Error("the graph has no outputs (every tensor is read by an operator)");
  return Status::Ok();
}

std::string Writer::build(WriteStats* stats) {
  std::uint64_t total = 0;
  for (const std::string& b : buffers_) total += b.size();
  const bool external = total > options_.external_buffers_above;
  flatbuffers::FlatBufferBuilder fbb(1024 + (external ? 0 : total + 16 * buffers_.size()));

  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  for (const std::string& data : buffers_) {
    if (data.empty()) {
      buffers.push_back(fb::CreateBuffer(fbb));
    } else if (external) {
      // Offset 1 marks "after the FlatBuffer" until the real offset is known.
      buffers.push_back(fb::CreateBuffer(fbb, 0, 1, data.size()));
    } else {
      fbb.ForceVectorAlignment(data.size(), sizeof(std::uint8_t), 16);
      auto vec = fbb.CreateVector(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
      buffers.push_back(fb::CreateBuffer(fbb, vec));
    }
  }

  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  for (const TensorInfo& t : tensors_) {
    std::vector<std::int32_t> shape;
    for (std::int64_t d : t.shape) shape.push_back(static_cast<std::int32_t>(d < 0 ? 1 : d));
    const Quantization& q = t.quantization;
    auto quantization = fb::CreateQuantizationParameters(
        fbb, q.min.empty() ? 0 : fbb.CreateVector(q.min), q.max.empty() ? 0 : fbb.CreateVector(q.max),
        q.scale.empty() ? 0 : fbb.CreateVector(q.scale), q.zero_point.empty() ? 0 : fbb.CreateVector(q.zero_point),
        fb::QuantizationDetails_NONE, 0, q.quantized_dimension);
    flatbuffers::Offset<flatbuffers::Vector<std::int32_t>> signature = 0;
    if (t.has_signature) {
      std::vector<std::int32_t> s(t.signature.begin(), t.signature.end());
      signature = fbb.CreateVector(s);
    }
    tensors.push_back(fb::CreateTensor(fbb, fbb.CreateVector(shape), static_cast<fb::TensorType>(t.type),
                                       static_cast<std::uint32_t>(t.buffer), fbb.CreateString(t.name), quantization,
                                       false, 0, signature, t.known_rank));
  }

  std::vector<flatbuffers::Offset<fb::Operator>> operators;
  for (const OpInfo& op : ops_) {
    auto inputs = fbb.CreateVector(op.inputs);
    auto outputs = fbb.CreateVector(op.outputs);
    fb::BuiltinOptions type = fb::BuiltinOptions_NONE;
    flatbuffers::Offset<void> options = 0;
    flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>> custom = 0;
    fb::CustomOptionsFormat format = fb::CustomOptionsFormat_FLEXBUFFERS;
    if (op.builtin && op.builtin->options) {
      // Checked in write() before building.
      options = flatbuffers::Offset<void>(attrsToOptions(op.builtin->options, *op.node, &fbb).value());
      type = static_cast<fb::BuiltinOptions>(optionsUnionType(op.builtin->options));
    } else if (!op.builtin) {
      const std::string bytes = attrString(*op.node, "custom_options");
      custom = fbb.CreateVector(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    }
    operators.push_back(fb::CreateOperator(fbb, static_cast<std::uint32_t>(op.opcode), inputs, outputs, type, options,
                                           custom, format));
  }

  auto subgraph = fb::CreateSubGraph(fbb, fbb.CreateVector(tensors), fbb.CreateVector(inputs_),
                                     fbb.CreateVector(outputs_), fbb.CreateVector(operators), fbb.CreateString("main"));

  std::vector<flatbuffers::Offset<fb::OperatorCode>> codes;
  for (const Code& c : codes_)
    codes.push_back(fb::CreateOperatorCode(
        fbb, static_cast<std::int8_t>(std::min(c.builtin, kPlaceholderForGreaterOpCodes)),
        c.custom.empty() ? 0 : fbb.CreateString(c.custom), c.version, static_cast<fb::BuiltinOperator>(c.builtin)));

  std::vector<flatbuffers::Offset<fb::SignatureDef>> signatures;
  for (const Signature& sig : options_.signatures) {
    std::vector<flatbuffers::Offset<fb::TensorMap>> ins, outs;
    for (const auto& [alias, name] : sig.inputs)
      ins.push_back(fb::CreateTensorMap(fbb, fbb.CreateString(alias),
                                        static_cast<std::uint32_t>(tensorIndex(name, "").value())));
    for (const auto& [alias, name] : sig.outputs)
      outs.push_back(fb::CreateTensorMap(fbb, fbb.CreateString(alias),
                                         static_cast<std::uint32_t>(tensorIndex(name, "").value())));
    signatures.push_back(fb::CreateSignatureDef(fbb, fbb.CreateVector(ins), fbb.CreateVector(outs),
                                                fbb.CreateString(sig.key), 0));
  }

  auto model = fb::CreateModel(fbb, 3, fbb.CreateVector(codes), fbb.CreateVector(&subgraph, 1),
                               fbb.CreateString(options_.description), fbb.CreateVector(buffers), 0, 0,
                               signatures.empty() ? 0 : fbb.CreateVector(signatures));
  fb::FinishModelBuffer(fbb, model);
  std::string out(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
  if (external) {
    std::vector<std::uint64_t> offsets(buffers_.size(), 0);
    for (std::size_t i = 1; i < buffers_.size(); ++i) {
      out.resize((out.size() + 15) / 16 * 16, '\0');
      offsets[i] = out.size();
      out += buffers_[i];
    }
    fb::Model* mutable_model = fb::GetMutableModel(out.data());
    for (std::size_t i = 1; i < buffers_.size(); ++i)
      mutable_model->mutable_buffers()->GetMutableObject(static_cast<flatbuffers::uoffset_t>(i))->mutate_offset(offsets[i]);
  }
  if (stats) {
    stats->tensors = static_cast<int>(tensors_.size());
    stats->operators = static_cast<int>(ops_.size());
    stats->buffers = static_cast<int>(buffers_.size());
    stats->shared_buffers = shared_buffers_;
    stats->constant_bytes = constant_bytes_;
  }
  return out;
}

Result<std::string> Writer::write(WriteStats* stats) {
  GDS_RETURN_IF_ERROR(collectTensors());
  GDS_RETURN_IF_ERROR(orderOperators());
  for (const NodeDef* node : op_nodes_) GDS_RETURN_IF_ERROR(operatorOf(*node));
  GDS_RETURN_IF_ERROR(modelInputsOutputs());
  for (const Signature& sig : options_.signatures)
    for (const auto* list : {&sig.inputs, &sig.outputs})
      for (const auto& [alias, name] : *list) {
        auto index = tensorIndex(name, "signature '" + sig.key + "' entry '" + alias + "'");
        if (!index.ok()) return index.status();
      }
  // Options are converted once up front so that build() cannot fail.
  for (const OpInfo& op : ops_) {
    if (!op.builtin) {
      for (const auto& [name, value] : op.node->attr()) {
        if (name.empty() || name[0] == '_' || name == "custom_code" || name == "custom_options") continue;
        if (name == "custom_options_format" && value.s() == "FLEXBUFFERS") continue;
        return Status::Error(where(*op.node) + ": attr '" + name + "' is not one of custom_code, custom_options, " +
                             "custom_options_format (FLEXBUFFERS)");
      }
      continue;
    }
    if (!op.builtin->options) continue;
    flatbuffers::FlatBufferBuilder scratch;
    auto check = attrsToOptions(op.builtin->options, *op.node, &scratch);
    if (!check.ok()) return check.status();
  }
  return build(stats);
}

}  // namespace

Result<std::string> writeTflite(const tensorflow::GraphDef& graph, const WriteOptions& options, WriteStats* stats) {
  return Writer(graph, options).write(stats);
}

Status saveTflite(const tensorflow::GraphDef& graph, const std::string& path, const WriteOptions& options,
                  WriteStats* stats) {
  auto bytes = writeTflite(graph, options, stats);
  if (!bytes.ok()) return bytes.status().withContext(path);
  return writeFileAtomic(path, *bytes);
}

}  // namespace gds::model::tflite
