#include "ui/attr_format.h"

#include <sstream>

#include "model/tensor.h"

namespace gds::ui {
namespace {

std::string printable(const std::string& bytes) {
  // Attr strings are usually ASCII (padding, data_format); show others escaped.
  std::string out;
  for (unsigned char c : bytes) {
    if (c >= 32 && c < 127) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

std::string number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

std::string tensorHeader(const tensorflow::TensorProto& t) {
  bool known = false;
  model::Shape shape = model::shapeFromProto(t.tensor_shape(), &known);
  return model::dtypeName(t.dtype()) + " " + (known ? model::shapeString(shape) : std::string("<unknown rank>"));
}

template <typename List, typename F>
std::string joinList(const List& items, F&& format) {
  std::string out = "[";
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += ", ";
    first = false;
    out += format(item);
  }
  return out + "]";
}

}  // namespace

std::string formatShape(const tensorflow::TensorShapeProto& shape) {
  bool known = false;
  model::Shape dims = model::shapeFromProto(shape, &known);
  return known ? model::shapeString(dims) : std::string("<unknown rank>");
}

std::string formatAttr(const tensorflow::AttrValue& value) {
  using tensorflow::AttrValue;
  switch (value.value_case()) {
    case AttrValue::kS: return printable(value.s());
    case AttrValue::kI: return std::to_string(value.i());
    case AttrValue::kF: return number(value.f());
    case AttrValue::kB: return value.b() ? "true" : "false";
    case AttrValue::kType: return model::dtypeName(value.type());
    case AttrValue::kShape: return formatShape(value.shape());
    case AttrValue::kTensor: return tensorHeader(value.tensor());
    case AttrValue::kPlaceholder: return "$" + value.placeholder();
    case AttrValue::kFunc: return value.func().name();
    case AttrValue::kList: {
      const auto& l = value.list();
      if (l.s_size()) return joinList(l.s(), [](const std::string& s) { return "\"" + printable(s) + "\""; });
      if (l.i_size()) return joinList(l.i(), [](std::int64_t i) { return std::to_string(i); });
      if (l.f_size()) return joinList(l.f(), [](float f) { return number(f); });
      if (l.b_size()) return joinList(l.b(), [](bool b) { return std::string(b ? "true" : "false"); });
      if (l.type_size())
        return joinList(l.type(), [](int t) { return model::dtypeName(static_cast<tensorflow::DataType>(t)); });
      if (l.shape_size()) return joinList(l.shape(), [](const tensorflow::TensorShapeProto& s) { return formatShape(s); });
      if (l.tensor_size()) return joinList(l.tensor(), [](const tensorflow::TensorProto& t) { return tensorHeader(t); });
      if (l.func_size()) return joinList(l.func(), [](const tensorflow::NameAttrList& f) { return f.name(); });
      return "[]";
    }
    case AttrValue::VALUE_NOT_SET: break;
  }
  return "";
}

}  // namespace gds::ui
