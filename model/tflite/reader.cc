#include "model/tflite/reader.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_set>

#include "model/tflite/builtin_ops.h"
#include "model/tflite/dialect.h"
#include "model/tflite/options.h"
#include "model/tflite/types.h"
#include "tflite/schema_generated.h"

namespace gds::model::tflite {
namespace {

namespace fb = ::tflite;

// Where a tensor's value comes from.
enum class Source { None, Input, Const, Operator, NoValue };

struct TensorState {
  Source source = Source::None;
  int producer = -1;  // operator index
  int port = 0;
  std::string node;   // node name once assigned
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  bool used = false;
};

class Reader {
 public:
  Reader(const std::string& bytes, std::string name, const ReadLimits& limits)
      : bytes_(bytes), data_(reinterpret_cast<const std::uint8_t*>(bytes.data())), name_(std::move(name)),
        limits_(limits) {}

  Result<TfliteModel> read();

 private:
  Status error(const std::string& message) const { return Status::Error(name_ + ": " + message); }
  std::string tensorLabel(int index) const;
  std::string operatorLabel(int index) const;
  Status checkBuffers();
  Status checkTensor(int index);
  Status checkOperators();
  Status buildGraph(TfliteModel* out);
  // buildGraph's parts, in order.
  Status markConstants();
  std::vector<std::string> nameNodes();
  void addInputs(tensorflow::GraphDef* graph);
  Status addOperator(int k, const std::string& name, TfliteModel* out);
  Status readSignatures(TfliteModel* out);
  Status addConst(int index, tensorflow::GraphDef* graph);
  void setPerOutputAttrs(tensorflow::NodeDef* node, const std::vector<int>& tensors);
  std::string tensorRef(int index) const;

  const std::string& bytes_;
  const std::uint8_t* data_;
  std::string name_;
  ReadLimits limits_;
  const fb::Model* model_ = nullptr;
  const fb::SubGraph* subgraph_ = nullptr;
  std::vector<int> codes_;  // operator code index -> builtin code
  std::vector<TensorState> tensors_;
  std::vector<const std::uint8_t*> buffer_data_;
  std::vector<std::size_t> buffer_size_;
};

// Strings become node names, attrs and JSON: they must be UTF-8.
bool validUtf8(const flatbuffers::String* s) {
  if (!s) return true;
  const auto* p = reinterpret_cast<const unsigned char*>(s->data());
  const std::size_t n = s->size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (len == 0 || i + len > n) return false;
    for (std::size_t k = 1; k < len; ++k)
      if ((p[i + k] & 0xc0) != 0x80) return false;
    if (len == 2 && c < 0xc2) return false;  // overlong
    i += len;
  }
  return true;
}

int tensorCount(const fb::SubGraph* sg) { return sg->tensors() ? static_cast<int>(sg->tensors()->size()) : 0; }

std::string Reader::tensorLabel(int index) const {
  const fb::Tensor* t = subgraph_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index));
  return "tensor " + std::to_string(index) + " '" + (t->name() ? t->name()->str() : std::string()) + "'";
}

std::string Reader::operatorLabel(int index) const {
  const fb::Operator* op = subgraph_->operators()->Get(static_cast<flatbuffers::uoffset_t>(index));
  std::string label = "operator " + std::to_string(index);
  if (op->opcode_index() < codes_.size()) {
    const int code = codes_[op->opcode_index()];
    const std::string name = builtinCodeName(code);
    label += " (" + (name.empty() ? "builtin op " + std::to_string(code) : name) + ")";
  }
  return label;
}

Status Reader::checkBuffers() {
  const auto* buffers = model_->buffers();
  const std::size_t count = buffers ? buffers->size() : 0;
  buffer_data_.assign(count, nullptr);
  buffer_size_.assign(count, 0);
  for (std::size_t i = 0; i < count; ++i) {
    const fb::Buffer* b = buffers->Get(static_cast<flatbuffers::uoffset_t>(i));
    // Buffers of models over 2 GB live after the FlatBuffer (offset > 1).
    if (b->offset() > 1) {
      if (b->data() && b->data()->size() > 0)
        return error("buffer " + std::to_string(i) + " has both inline data and an offset");
      if (b->offset() > bytes_.size() || b->size() > bytes_.size() - b->offset())
        return error("buffer " + std::to_string(i) + " (offset " + std::to_string(b->offset()) + ", size " +
                     std::to_string(b->size()) + ") lies outside the " + std::to_string(bytes_.size()) +
                     "-byte file");
      buffer_data_[i] = data_ + b->offset();
      buffer_size_[i] = static_cast<std::size_t>(b->size());
    } else if (b->data()) {
      buffer_data_[i] = b->data()->data();
      buffer_size_[i] = b->data()->size();
    }
  }
  return Status::Ok();
}

Status Reader::checkTensor(int index) {
  const fb::Tensor* t = subgraph_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index));
  if (!validUtf8(t->name())) return error("tensor " + std::to_string(index) + " has a name that is not valid UTF-8");
  const std::string label = tensorLabel(index);
  const tensorflow::DataType dtype = dtypeFromTensorType(t->type());
  if (dtype == tensorflow::DT_INVALID)
    return error(label + " has type " + tensorTypeName(t->type()) + ", which gdstudio does not support");
  if (t->is_variable()) return error(label + " is a variable (operator state), which gdstudio does not support");
  if (t->sparsity()) return error(label + " is sparse (TFLite sparsity parameters), which gdstudio does not support");
  if (t->variant_tensors() && t->variant_tensors()->size() > 0)
    return error(label + " has variant subtypes, which gdstudio does not support");
  std::int64_t elements = 1;
  if (t->shape()) {
    for (std::int32_t d : *t->shape()) {
      if (d < 0) return error(label + " has the negative dimension " + std::to_string(d) + " in its shape");
      if (__builtin_mul_overflow(elements, static_cast<std::int64_t>(d), &elements) ||
          elements > limits_.max_tensor_elements)
        return error(label + " has a shape of more than " + std::to_string(limits_.max_tensor_elements) +
                     " elements");
    }
  }
  if (t->shape_signature() && t->shape() && t->shape_signature()->size() != t->shape()->size())
    return error(label + " has a shape_signature of rank " + std::to_string(t->shape_signature()->size()) +
                 " for a shape of rank " + std::to_string(t->shape()->size()));
  const auto* buffers = model_->buffers();
  const std::size_t buffer_count = buffers ? buffers->size() : 0;
  if (t->buffer() >= buffer_count)
    return error(label + " refers to buffer " + std::to_string(t->buffer()) + " of " + std::to_string(buffer_count));
  TensorState& s = tensors_[static_cast<std::size_t>(index)];
  if (t->buffer() > 0 && buffer_size_[t->buffer()] > 0) {
    s.data = buffer_data_[t->buffer()];
    s.size = buffer_size_[t->buffer()];
    if (dtype == tensorflow::DT_STRING) {
      auto strings = decodeStringBuffer(s.data, s.size);
      if (!strings.ok()) return error(label + ": " + strings.error());
      if (static_cast<std::int64_t>(strings->size()) != elements)
        return error(label + " holds " + std::to_string(strings->size()) + " strings for a shape of " +
                     std::to_string(elements) + " elements");
    } else {
      const std::size_t element_size = dtypeSize(dtype);
      if (element_size == 0) return error(label + " of type " + tensorTypeName(t->type()) + " cannot hold constant data");
      const std::uint64_t expected = static_cast<std::uint64_t>(elements) * element_size;
      if (expected != s.size)
        return error(label + " has " + std::to_string(s.size) + " bytes of data in buffer " +
                     std::to_string(t->buffer()) + "; its shape and type " + tensorTypeName(t->type()) + " need " +
                     std::to_string(expected));
    }
  }
  if (const fb::QuantizationParameters* q = t->quantization()) {
    if (q->details_type() != fb::QuantizationDetails_NONE)
      return error(label + " uses custom quantization, which gdstudio does not support");
    const std::size_t scales = q->scale() ? q->scale()->size() : 0;
    const std::size_t zeros = q->zero_point() ? q->zero_point()->size() : 0;
    if (zeros != 0 && zeros != scales)
      return error(label + " has " + std::to_string(scales) + " quantization scales but " + std::to_string(zeros) +
                   " zero points");
    if (scales > 1) {
      const int rank = t->shape() ? static_cast<int>(t->shape()->size()) : 0;
      const int dim = q->quantized_dimension();
      if (dim < 0 || dim >= rank)
        return error(label + " is quantized along dimension " + std::to_string(dim) + " of a rank-" +
                     std::to_string(rank) + " shape");
      if (static_cast<std::size_t>(t->shape()->Get(static_cast<flatbuffers::uoffset_t>(dim))) != scales)
        return error(label + " has " + std::to_string(scales) + " quantization scales for dimension " +
                     std::to_string(dim) + " of size " + std::to_string(t->shape()->Get(static_cast<flatbuffers::uoffset_t>(dim))));
    }
    const std::size_t mins = q->min() ? q->min()->size() : 0, maxs = q->max() ? q->max()->size() : 0;
    if (mins != maxs)
      return error(label + " has " + std::to_string(mins) + " quantization minimums but " + std::to_string(maxs) +
                   " maximums");
  }
  return Status::Ok();
}

Status Reader::checkOperators() {
  const int count = tensorCount(subgraph_);
  auto checkIndex = [&](int value, const std::string& what) -> Status {
    if (value < 0 || value >= count)
      return error(what + " refers to tensor " + std::to_string(value) + " of " + std::to_string(count));
    return Status::Ok();
  };
  if (subgraph_->inputs()) {
    for (std::int32_t i : *subgraph_->inputs()) {
      GDS_RETURN_IF_ERROR(checkIndex(i, "the model's input list"));
      TensorState& s = tensors_[static_cast<std::size_t>(i)];
      if (s.data) return error(tensorLabel(i) + " is a model input and also holds constant data");
      if (s.source == Source::Input) return error(tensorLabel(i) + " is listed twice among the model's inputs");
      s.source = Source::Input;
    }
  }
  if (subgraph_->outputs()) {
    std::unordered_set<int> seen;
    for (std::int32_t i : *subgraph_->outputs()) {
      GDS_RETURN_IF_ERROR(checkIndex(i, "the model's output list"));
      if (!seen.insert(i).second) return error(tensorLabel(i) + " is listed twice among the model's outputs");
    }
  }
  const auto* ops = subgraph_->operators();
  const int op_count = ops ? static_cast<int>(ops->size()) : 0;
  for (int k = 0; k < op_count; ++k) {
    const fb::Operator* op = ops->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (op->opcode_index() >= codes_.size())
      return error("operator " + std::to_string(k) + " uses operator code " + std::to_string(op->opcode_index()) +
                   " of " + std::to_string(codes_.size()));
    const std::string label = operatorLabel(k);
    const int code = codes_[op->opcode_index()];
    const BuiltinOp* builtin = builtinByCode(code);
    if (code != kCustomCode && !builtin) {
      const std::string known = builtinCodeName(code);
      return error(label + ": builtin op " + std::to_string(code) + (known.empty() ? "" : " (" + known + ")") +
                   " is not supported by gdstudio");
    }
    if (builtin) {
      const int expected = optionsUnionType(builtin->options);
      const int actual = op->builtin_options_type();
      if (actual != fb::BuiltinOptions_NONE && actual != expected)
        return error(label + " carries " +
                     (actual <= fb::BuiltinOptions_MAX ? std::string(fb::EnumNameBuiltinOptions(
                                                             static_cast<fb::BuiltinOptions>(actual)))
                                                       : "options type " + std::to_string(actual)) +
                     "; expected " + (builtin->options ? builtin->options : "none"));
    }
    if (op->intermediates() && op->intermediates()->size() > 0)
      return error(label + " has intermediate tensors, which gdstudio does not support");
    if (op->mutating_variable_inputs())
      for (std::uint8_t m : *op->mutating_variable_inputs())
        if (m) return error(label + " mutates a variable input, which gdstudio does not support");
    if (op->large_custom_options_offset() > 1 &&
        (op->large_custom_options_offset() > bytes_.size() ||
         op->large_custom_options_size() > bytes_.size() - op->large_custom_options_offset()))
      return error(label + ": its custom options (offset " + std::to_string(op->large_custom_options_offset()) +
                   ", size " + std::to_string(op->large_custom_options_size()) + ") lie outside the file");
    if (op->inputs()) {
      int position = 0;
      for (std::int32_t i : *op->inputs()) {
        const std::string what = label + " input " + std::to_string(position++);
        if (i == -1) continue;
        GDS_RETURN_IF_ERROR(checkIndex(i, what));
        TensorState& s = tensors_[static_cast<std::size_t>(i)];
        s.used = true;
        if (s.source == Source::None && !s.data) {
          // Produced by a later operator, or by none.
          bool later = false;
          for (int j = k + 1; j < op_count && !later; ++j) {
            const fb::Operator* other = ops->Get(static_cast<flatbuffers::uoffset_t>(j));
            if (other->outputs())
              for (std::int32_t o : *other->outputs()) later = later || o == i;
          }
          if (later) return error(what + " reads " + tensorLabel(i) + " before a later operator writes it");
          const fb::Tensor* t = subgraph_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(i));
          bool empty = false;
          if (t->shape())
            for (std::int32_t d : *t->shape()) empty = empty || d == 0;
          if (!empty)
            return error(what + " reads " + tensorLabel(i) +
                         ", which has no data, no producer and is not a model input");
        }
      }
    }
    if (!op->outputs() || op->outputs()->size() == 0) return error(label + " has no outputs");
    int port = 0;
    for (std::int32_t o : *op->outputs()) {
      GDS_RETURN_IF_ERROR(checkIndex(o, label + " output " + std::to_string(port)));
      TensorState& s = tensors_[static_cast<std::size_t>(o)];
      if (s.source == Source::Input) return error(label + " writes " + tensorLabel(o) + ", a model input");
      if (s.source == Source::Operator)
        return error(label + " writes " + tensorLabel(o) + ", which operator " + std::to_string(s.producer) +
                     " writes already");
      if (s.data) return error(label + " writes " + tensorLabel(o) + ", which holds constant data");
      s.source = Source::Operator;
      s.producer = k;
      s.port = port++;
    }
  }
  return Status::Ok();
}

std::string Reader::tensorRef(int index) const {
  if (index < 0) return kNoValueNode;
  const TensorState& s = tensors_[static_cast<std::size_t>(index)];
  return s.port == 0 ? s.node : s.node + ":" + std::to_string(s.port);
}

void Reader::setPerOutputAttrs(tensorflow::NodeDef* node, const std::vector<int>& outputs) {
  auto& attrs = *node->mutable_attr();
  bool any_signature = false, names_differ = false;
  for (std::size_t port = 0; port < outputs.size(); ++port) {
    const fb::Tensor* t = subgraph_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(outputs[port]));
    any_signature = any_signature || t->shape_signature();
    const std::string name = t->name() ? t->name()->str() : std::string();
    const std::string by_rule = port == 0 ? node->name() : node->name() + ":" + std::to_string(port);
    names_differ = names_differ || name != by_rule;
    Quantization q;
    if (const fb::QuantizationParameters* p = t->quantization()) {
      if (p->scale()) q.scale.assign(p->scale()->begin(), p->scale()->end());
      if (p->zero_point()) q.zero_point.assign(p->zero_point()->begin(), p->zero_point()->end());
      if (p->min()) q.min.assign(p->min()->begin(), p->min()->end());
      if (p->max()) q.max.assign(p->max()->begin(), p->max()->end());
      q.quantized_dimension = p->quantized_dimension();
    }
    setQuantization(node, static_cast<int>(port), q);
  }
  if (any_signature) {
    auto* list = attrs[kShapeSignatureAttr].mutable_list();
    for (int index : outputs) {
      const fb::Tensor* t = subgraph_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index));
      tensorflow::TensorShapeProto* shape = list->add_shape();
      if (!t->shape_signature()) {
        shape->set_unknown_rank(true);
        continue;
      }
      for (std::int32_t d : *t->shape_signature()) shape->add_dim()->set_size(d);
    }
  }
  if (names_differ) {
    auto* list = attrs[kOutputNamesAttr].mutable_list();
    for (int index : outputs) {
      const fb::Tensor* t = subgraph_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index));
      list->add_s(t->name() ? t->name()->str() : std::string());
    }
  }
  // Positions among the model's outputs.
  std::vector<std::int64_t> positions(outputs.size(), -1);
  bool any = false;
  if (subgraph_->outputs())
    for (flatbuffers::uoffset_t k = 0; k < subgraph_->outputs()->size(); ++k)
      for (std::size_t port = 0; port < outputs.size(); ++port)
        if (subgraph_->outputs()->Get(k) == outputs[port]) {
          positions[port] = k;
          any = true;
        }
  if (any)
    for (std::int64_t p : positions) attrs[kOutputIndexAttr].mutable_list()->add_i(p);
}

Status Reader::addConst(int index, tensorflow::GraphDef* graph) {
  const fb::Tensor* t = subgraph_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index));
  const TensorState& s = tensors_[static_cast<std::size_t>(index)];
  const tensorflow::DataType dtype = dtypeFromTensorType(t->type());
  tensorflow::NodeDef* node = graph->add_node();
  node->set_name(s.node);
  node->set_op("Const");
  auto& attrs = *node->mutable_attr();
  attrs["dtype"].set_type(dtype);
  tensorflow::TensorProto* value = attrs["value"].mutable_tensor();
  value->set_dtype(dtype);
  auto* shape = value->mutable_tensor_shape();
  if (t->shape())
    for (std::int32_t d : *t->shape()) shape->add_dim()->set_size(d);
  if (dtype == tensorflow::DT_STRING) {
    if (s.data) {
      auto strings = decodeStringBuffer(s.data, s.size);
      if (!strings.ok()) return error(tensorLabel(index) + ": " + strings.error());
      for (auto& str : *strings) value->add_string_val(std::move(str));
    }
  } else if (s.data) {
    value->set_tensor_content(std::string(reinterpret_cast<const char*>(s.data), s.size));
  }
  setPerOutputAttrs(node, {index});
  return Status::Ok();
}

// Constants: tensors with data that something reads or that are outputs.
Status Reader::markConstants() {
  const int count = tensorCount(subgraph_);
  std::vector<bool> is_output(static_cast<std::size_t>(count), false);
  if (subgraph_->outputs())
    for (std::int32_t i : *subgraph_->outputs()) is_output[static_cast<std::size_t>(i)] = true;
  for (int i = 0; i < count; ++i) {
    TensorState& s = tensors_[static_cast<std::size_t>(i)];
    if (s.source == Source::None && (s.used || is_output[static_cast<std::size_t>(i)])) {
      if (!s.data && !s.used)
        return error(tensorLabel(i) + " is a model output that no operator writes and that holds no data");
      s.source = Source::Const;
    }
  }
  return Status::Ok();
}

// Node names: operators first (they carry the names users compare by), then
// inputs, then constants. Returns the operators' names.
std::vector<std::string> Reader::nameNodes() {
  const auto* ops = subgraph_->operators();
  const int op_count = ops ? static_cast<int>(ops->size()) : 0;
  std::unordered_set<std::string> taken;
  taken.insert(kNoValueNode);
  auto nameOf = [&](int index) {
    const fb::Tensor* t = subgraph_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index));
    return t->name() ? t->name()->str() : std::string();
  };
  std::vector<std::string> op_names(static_cast<std::size_t>(op_count));
  for (int k = 0; k < op_count; ++k) {
    const fb::Operator* op = ops->Get(static_cast<flatbuffers::uoffset_t>(k));
    const int first = op->outputs()->Get(0);
    op_names[static_cast<std::size_t>(k)] = nodeNameFor(nameOf(first), first, &taken);
    for (std::int32_t o : *op->outputs()) tensors_[static_cast<std::size_t>(o)].node = op_names[static_cast<std::size_t>(k)];
  }
  if (subgraph_->inputs())
    for (std::int32_t i : *subgraph_->inputs()) tensors_[static_cast<std::size_t>(i)].node = nodeNameFor(nameOf(i), i, &taken);
  for (int i = 0; i < tensorCount(subgraph_); ++i)
    if (tensors_[static_cast<std::size_t>(i)].source == Source::Const)
      tensors_[static_cast<std::size_t>(i)].node = nodeNameFor(nameOf(i), i, &taken);
  return op_names;
}

// The no-value node (when an operator leaves an optional input out) and a
// Placeholder per model input, in the model's order.
void Reader::addInputs(tensorflow::GraphDef* graph) {
  const auto* ops = subgraph_->operators();
  bool uses_no_value = false;
  if (ops)
    for (const fb::Operator* op : *ops)
      if (op->inputs())
        for (std::int32_t i : *op->inputs()) uses_no_value = uses_no_value || i == -1;
  if (uses_no_value) {
    tensorflow::NodeDef* none = graph->add_node();
    none->set_name(kNoValueNode);
    none->set_op(kNoValueOp);
  }
  if (!subgraph_->inputs()) return;
  int position = 0;
  for (std::int32_t i : *subgraph_->inputs()) {
    const fb::Tensor* t = subgraph_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(i));
    tensorflow::NodeDef* node = graph->add_node();
    node->set_name(tensors_[static_cast<std::size_t>(i)].node);
    node->set_op("Placeholder");
    auto& attrs = *node->mutable_attr();
    attrs["dtype"].set_type(dtypeFromTensorType(t->type()));
    auto* shape = attrs["shape"].mutable_shape();
    if (t->shape())
      for (std::int32_t d : *t->shape()) shape->add_dim()->set_size(d);
    attrs[kInputIndexAttr].set_i(position++);
    setPerOutputAttrs(node, {i});
  }
}

// Operator k as a dialect node: its builtin's options as attrs (a custom
// op's code and options as they are), its outputs' types and shapes.
Status Reader::addOperator(int k, const std::string& name, TfliteModel* out) {
  const fb::Operator* op = subgraph_->operators()->Get(static_cast<flatbuffers::uoffset_t>(k));
  const int code = codes_[op->opcode_index()];
  const BuiltinOp* builtin = builtinByCode(code);
  const fb::OperatorCode* oc = model_->operator_codes()->Get(op->opcode_index());
  tensorflow::NodeDef* node = out->graph.add_node();
  node->set_name(name);
  node->set_op(builtin ? builtin->op_type : kCustomOp);
  if (op->inputs())
    for (std::int32_t i : *op->inputs()) node->add_input(tensorRef(i));
  auto& attrs = *node->mutable_attr();
  if (builtin && builtin->options) {
    const auto* table = op->builtin_options_type() == fb::BuiltinOptions_NONE
                            ? nullptr
                            : static_cast<const flatbuffers::Table*>(op->builtin_options());
    Status s = optionsToAttrs(builtin->options, table, node);
    if (!s.ok()) return error(operatorLabel(k) + ": " + s.message());
  } else if (!builtin) {
    attrs["custom_code"].set_s(oc->custom_code() ? oc->custom_code()->str() : std::string());
    std::string options;
    if (op->large_custom_options_offset() > 1)
      options.assign(bytes_.data() + op->large_custom_options_offset(), op->large_custom_options_size());
    else if (op->custom_options())
      options.assign(reinterpret_cast<const char*>(op->custom_options()->data()), op->custom_options()->size());
    attrs["custom_options"].set_s(options);
    const std::string format = fb::EnumNameCustomOptionsFormat(op->custom_options_format());
    if (format.empty())
      return error(operatorLabel(k) + " has the unknown custom options format " +
                   std::to_string(static_cast<int>(op->custom_options_format())));
    attrs["custom_options_format"].set_s(format);
  }
  std::vector<int> outputs(op->outputs()->begin(), op->outputs()->end());
  auto* types = attrs[kOutputTypesAttr].mutable_list();
  auto* shapes = attrs[kOutputShapesAttr].mutable_list();
  for (int o : outputs) {
    const fb::Tensor* t = subgraph_->tensors()->Get(static_cast<flatbuffers::uoffset_t>(o));
    types->add_type(dtypeFromTensorType(t->type()));
    auto* shape = shapes->add_shape();
    if (t->shape())
      for (std::int32_t d : *t->shape()) shape->add_dim()->set_size(d);
  }
  setPerOutputAttrs(node, outputs);
  out->op_versions.emplace_back(node->op(), oc->version());
  return Status::Ok();
}

// The SignatureDefs, keyed and sorted, their tensors named as the graph's.
Status Reader::readSignatures(TfliteModel* out) {
  const auto* sigs = model_->signature_defs();
  if (!sigs) return Status::Ok();
  const int count = tensorCount(subgraph_);
  for (const fb::SignatureDef* def : *sigs) {
    Signature sig;
    if (!validUtf8(def->signature_key())) return error("a signature key is not valid UTF-8");
    sig.key = def->signature_key() ? def->signature_key()->str() : std::string();
    if (def->subgraph_index() != 0)
      return error("signature '" + sig.key + "' refers to subgraph " + std::to_string(def->subgraph_index()));
    for (int side = 0; side < 2; ++side) {
      const auto* maps = side == 0 ? def->inputs() : def->outputs();
      auto& list = side == 0 ? sig.inputs : sig.outputs;
      if (!maps) continue;
      for (const fb::TensorMap* m : *maps) {
        if (!validUtf8(m->name())) return error("signature '" + sig.key + "' has a name that is not valid UTF-8");
        const std::string alias = m->name() ? m->name()->str() : std::string();
        if (m->tensor_index() >= static_cast<std::uint32_t>(count))
          return error("signature '" + sig.key + "' maps '" + alias + "' to tensor " +
                       std::to_string(m->tensor_index()) + " of " + std::to_string(count));
        const TensorState& s = tensors_[m->tensor_index()];
        if (s.node.empty())
          return error("signature '" + sig.key + "' maps '" + alias + "' to " +
                       tensorLabel(static_cast<int>(m->tensor_index())) + ", which the model does not use");
        list.emplace_back(alias, s.node + ":" + std::to_string(s.port));
      }
    }
    std::sort(sig.inputs.begin(), sig.inputs.end());
    std::sort(sig.outputs.begin(), sig.outputs.end());
    out->signatures.push_back(std::move(sig));
  }
  std::sort(out->signatures.begin(), out->signatures.end(),
            [](const Signature& a, const Signature& b) { return a.key < b.key; });
  return Status::Ok();
}

Status Reader::buildGraph(TfliteModel* out) {
  GDS_RETURN_IF_ERROR(markConstants());
  const std::vector<std::string> op_names = nameNodes();
  addInputs(&out->graph);
  for (int i = 0; i < tensorCount(subgraph_); ++i)
    if (tensors_[static_cast<std::size_t>(i)].source == Source::Const) GDS_RETURN_IF_ERROR(addConst(i, &out->graph));
  for (int k = 0; k < static_cast<int>(op_names.size()); ++k) GDS_RETURN_IF_ERROR(addOperator(k, op_names[k], out));
  return readSignatures(out);
}

Result<TfliteModel> Reader::read() {
  if (bytes_.size() > limits_.max_file_bytes)
    return error("file of " + std::to_string(bytes_.size()) + " bytes exceeds the " +
                 std::to_string(limits_.max_file_bytes) + "-byte limit for TensorFlow Lite models");
  if (!looksLikeTflite(bytes_)) return error("not a TensorFlow Lite model (no \"TFL3\" file identifier)");
  // The FlatBuffer itself is below 2 GB; buffers of larger models follow it.
  const std::size_t fb_size = std::min<std::size_t>(bytes_.size(), FLATBUFFERS_MAX_BUFFER_SIZE - 1);
  flatbuffers::Verifier verifier(data_, fb_size);
  if (!fb::VerifyModelBuffer(verifier))
    return error("corrupt or truncated TensorFlow Lite model (the FlatBuffers verifier rejects it, " +
                 std::to_string(bytes_.size()) + " bytes)");
  model_ = fb::GetModel(data_);
  if (model_->version() != 3)
    return error("schema version " + std::to_string(model_->version()) + "; gdstudio reads version 3");
  const std::size_t subgraphs = model_->subgraphs() ? model_->subgraphs()->size() : 0;
  if (subgraphs == 0) return error("the model has no subgraph");
  if (subgraphs > 1)
    return error("the model has " + std::to_string(subgraphs) +
                 " subgraphs (control flow bodies such as WHILE/IF); gdstudio reads single-subgraph models");
  subgraph_ = model_->subgraphs()->Get(0);
  if (const auto* oc = model_->operator_codes()) {
    for (flatbuffers::uoffset_t i = 0; i < oc->size(); ++i) {
      const fb::OperatorCode* c = oc->Get(i);
      // TensorFlow Lite's GetBuiltinCode: the larger of the two fields.
      const int code = std::max<int>(c->deprecated_builtin_code(), c->builtin_code());
      if (code == kCustomCode && (!c->custom_code() || c->custom_code()->size() == 0))
        return error("operator code " + std::to_string(i) + " is CUSTOM without a custom_code");
      if (!validUtf8(c->custom_code()))
        return error("operator code " + std::to_string(i) + " has a custom_code that is not valid UTF-8");
      codes_.push_back(code);
    }
  }
  GDS_RETURN_IF_ERROR(checkBuffers());
  tensors_.assign(static_cast<std::size_t>(tensorCount(subgraph_)), TensorState{});
  for (int i = 0; i < tensorCount(subgraph_); ++i) GDS_RETURN_IF_ERROR(checkTensor(i));
  GDS_RETURN_IF_ERROR(checkOperators());
  TfliteModel out;
  if (!validUtf8(model_->description())) return error("the model's description is not valid UTF-8");
  out.description = model_->description() ? model_->description()->str() : std::string();
  if (const auto* metadata = model_->metadata())
    for (const fb::Metadata* m : *metadata) {
      if (!validUtf8(m->name())) return error("a metadata name is not valid UTF-8");
      if (m->buffer() >= buffer_data_.size())
        return error("metadata '" + (m->name() ? m->name()->str() : std::string()) + "' refers to buffer " +
                     std::to_string(m->buffer()) + " of " + std::to_string(buffer_data_.size()));
      out.metadata.push_back(m->name() ? m->name()->str() : std::string());
    }
  GDS_RETURN_IF_ERROR(buildGraph(&out));
  return out;
}

}  // namespace

bool looksLikeTflite(const std::string& bytes) {
  return bytes.size() >= 8 && std::memcmp(bytes.data() + 4, "TFL3", 4) == 0;
}

Result<TfliteModel> readTflite(const std::string& bytes, const std::string& name, const ReadLimits& limits) {
  return Reader(bytes, name, limits).read();
}

}  // namespace gds::model::tflite
