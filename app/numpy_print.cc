#include "app/numpy_print.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

namespace gds::app {
namespace {

using tensorflow::DataType;

enum class Kind { Float, Int, Bool, Bytes };

Kind kindOf(DataType t) {
  switch (t) {
    case tensorflow::DT_FLOAT:
    case tensorflow::DT_DOUBLE:
    case tensorflow::DT_HALF:
    case tensorflow::DT_BFLOAT16: return Kind::Float;
    case tensorflow::DT_BOOL: return Kind::Bool;
    case tensorflow::DT_STRING: return Kind::Bytes;
    default: return Kind::Int;
  }
}

// Whether `text` parses back to `v` at the tensor's precision (the test
// behind NumPy's shortest "unique" digits).
bool roundTrips(const std::string& text, double v, DataType t) {
  const double back = std::strtod(text.c_str(), nullptr);
  switch (t) {
    case tensorflow::DT_FLOAT: return static_cast<float>(back) == static_cast<float>(v);
    case tensorflow::DT_HALF: return model::floatToHalf(static_cast<float>(back)) == model::floatToHalf(static_cast<float>(v));
    case tensorflow::DT_BFLOAT16: {
      // bfloat16 keeps the upper 16 bits of a float (round to nearest even).
      auto bf = [](float f) {
        std::uint32_t u;
        std::memcpy(&u, &f, 4);
        return static_cast<std::uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
      };
      return bf(static_cast<float>(back)) == bf(static_cast<float>(v));
    }
    default: return back == v;
  }
}

std::string printf1(const char* fmt, int p, double v) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, p, v);
  return buf;
}

// The fewest digits after the point (at most `precision`) with which
// printf's `conversion` ('f' or 'e') reads back as v, as NumPy's "unique"
// digits; `precision` digits when none is enough.
std::string shortest(double v, int precision, DataType t, char conversion) {
  const char* fmt = conversion == 'f' ? "%.*f" : "%.*e";
  for (int p = 0; p <= precision; ++p) {
    std::string s = printf1(fmt, p, v);
    if (roundTrips(s, v, t)) return s;
  }
  return printf1(fmt, precision, v);
}

// Trailing zeros of the digits after the point trimmed, the point kept
// (NumPy's trim='.'): "2.", "0.25".
std::string trimmed(std::string digits) {
  if (digits.find('.') == std::string::npos) return digits + ".";
  while (digits.back() == '0') digits.pop_back();
  return digits;
}

// Positional digits: "2.", "0.25".
std::string positional(double v, int precision, DataType t) { return trimmed(shortest(v, precision, t, 'f')); }

// Scientific digits: "1.e-05", "2.5e+08".
std::string scientific(double v, int precision, DataType t) {
  const std::string s = shortest(v, precision, t, 'e');
  const size_t e = s.find('e');
  return trimmed(s.substr(0, e)) + s.substr(e);
}

struct FloatFormat {
  bool exp = false;
  int pad_left = 0, pad_right = 0, precision = 8, exp_size = 2;
};

FloatFormat fillFloatFormat(const std::vector<double>& data, DataType t, const NumpyPrintOptions& o) {
  FloatFormat f;
  f.precision = o.precision;
  std::vector<double> finite;
  for (double v : data)
    if (std::isfinite(v)) finite.push_back(v);
  if (finite.empty()) {
    const bool neg_inf = std::any_of(data.begin(), data.end(), [](double v) { return std::isinf(v) && v < 0; });
    f.pad_left = std::max({0, static_cast<int>(o.nanstr.size()) - 1,
                           static_cast<int>(o.infstr.size()) + (neg_inf ? 1 : 0) - 1});
    return f;
  }
  double max_val = 0, min_val = std::numeric_limits<double>::infinity();
  bool any_nonzero = false;
  for (double v : finite)
    if (v != 0) {
      any_nonzero = true;
      max_val = std::max(max_val, std::fabs(v));
      min_val = std::min(min_val, std::fabs(v));
    }
  if (any_nonzero && (max_val >= 1e8 || (!o.suppress && (min_val < 0.0001 || max_val / min_val > 1000.))))
    f.exp = true;
  if (f.exp) {
    int frac = 0, exp_len = 0;
    for (double v : finite) {
      const std::string s = scientific(v, o.precision, t);
      const size_t dot = s.find('.'), e = s.find('e');
      frac = std::max(frac, static_cast<int>(e - dot - 1));
      exp_len = std::max(exp_len, static_cast<int>(s.size() - e - 1));
      f.pad_left = std::max(f.pad_left, static_cast<int>(dot));
    }
    f.precision = frac;
    f.exp_size = exp_len - 1;  // digits after the exponent's sign
    f.pad_right = f.exp_size + 2 + f.precision;
  } else {
    for (double v : finite) {
      const std::string s = positional(v, o.precision, t);
      const size_t dot = s.find('.');
      f.pad_left = std::max(f.pad_left, static_cast<int>(dot));
      f.pad_right = std::max(f.pad_right, static_cast<int>(s.size() - dot - 1));
    }
  }
  // Room for nan / inf / -inf in the same columns.
  if (finite.size() != data.size()) {
    const bool neg_inf = std::any_of(data.begin(), data.end(), [](double v) { return std::isinf(v) && v < 0; });
    const int offset = f.pad_right + 1;
    f.pad_left = std::max({f.pad_left, static_cast<int>(o.nanstr.size()) - offset,
                           static_cast<int>(o.infstr.size()) + (neg_inf ? 1 : 0) - offset});
  }
  return f;
}

std::string formatFloat(double v, const FloatFormat& f, DataType t, const NumpyPrintOptions& o) {
  if (!std::isfinite(v)) {
    std::string s = std::isnan(v) ? o.nanstr : (v < 0 ? "-" : "") + o.infstr;
    const int width = f.pad_left + f.pad_right + 1;
    return std::string(static_cast<size_t>(std::max(0, width - static_cast<int>(s.size()))), ' ') + s;
  }
  if (f.exp) {
    // Every value gets `precision` digits (NumPy's min_digits): the shortest
    // digits continued with the value's exact ones, which is what printf
    // gives for the float held exactly in a double.
    std::string s = printf1("%.*e", f.precision, v);
    size_t dot = s.find('.'), e = s.find('e');
    if (dot == std::string::npos) dot = e;  // precision 0: "1e+00" -> "1.e+00"
    std::string mantissa = s.substr(0, dot) + "." + (dot < e ? s.substr(dot + 1, e - dot - 1) : "");
    std::string sign = s.substr(e + 1, 1), digits = s.substr(e + 2);
    while (static_cast<int>(digits.size()) < f.exp_size) digits = "0" + digits;
    std::string out = mantissa + "e" + sign + digits;
    const int left = static_cast<int>(dot);
    return std::string(static_cast<size_t>(std::max(0, f.pad_left - left)), ' ') + out;
  }
  std::string s = positional(v, f.precision, t);
  const size_t dot = s.find('.');
  const int left = static_cast<int>(dot), right = static_cast<int>(s.size() - dot - 1);
  return std::string(static_cast<size_t>(std::max(0, f.pad_left - left)), ' ') + s +
         std::string(static_cast<size_t>(std::max(0, f.pad_right - right)), ' ');
}

// Python's repr of a bytes object: b'...'.
std::string bytesRepr(const std::string& b) {
  const bool dq = b.find('\'') != std::string::npos && b.find('"') == std::string::npos;
  const char q = dq ? '"' : '\'';
  std::string out = "b";
  out += q;
  for (unsigned char c : b) {
    if (c == '\\') out += "\\\\";
    else if (c == static_cast<unsigned char>(q)) out += std::string("\\") + q;
    else if (c == '\t') out += "\\t";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c < 32 || c >= 127) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + q;
}

std::string intString(const model::HostTensor& t, std::int64_t i) {
  switch (t.dtype) {
    case tensorflow::DT_INT64: return std::to_string(t.as<std::int64_t>()[i]);
    case tensorflow::DT_UINT64: return std::to_string(t.as<std::uint64_t>()[i]);
    default: return std::to_string(static_cast<long long>(t.valueAt(i)));
  }
}

// Python's str() of a float scalar (repr: shortest digits, scientific
// below 1e-4 and from 1e16).
std::string scalarFloat(double v, DataType t) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::string s;
  for (int p = 1; p <= 17; ++p) {
    s = printf1("%.*g", p, v);
    if (roundTrips(s, v, t)) break;
  }
  const int exponent = v == 0 ? 0 : static_cast<int>(std::floor(std::log10(std::fabs(v))));
  if (exponent < -4 || exponent >= 16) {
    std::string e = scientific(v, 17, t);  // "1.e-05" -> "1e-05"
    const size_t dot = e.find('.');
    if (dot + 1 < e.size() && e[dot + 1] == 'e') e.erase(dot, 1);
    return e;
  }
  s = positional(v, 17, t);
  if (s.back() == '.') s += "0";
  return s;
}

}  // namespace

Status setPrintOption(NumpyPrintOptions* o, const std::string& kv) {
  const size_t eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) return Status::Error("'" + kv + "' is not in the form k=v.");
  const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
  auto asInt = [&](std::int64_t lo, std::int64_t hi) -> Result<std::int64_t> {
    char* end = nullptr;
    errno = 0;
    const long long x = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || errno != 0 || x < lo || x > hi)
      return Status::Error("printoption '" + k + "' expects an integer from " + std::to_string(lo) + " to " +
                           std::to_string(hi) + ", got '" + v + "'");
    return static_cast<std::int64_t>(x);
  };
  if (k == "precision" || k == "edgeitems" || k == "linewidth" || k == "threshold") {
    auto x = k == "threshold" ? asInt(0, std::numeric_limits<std::int64_t>::max()) : asInt(0, k == "precision" ? 17 : 100000);
    if (!x.ok()) return x.status();
    if (k == "precision") o->precision = static_cast<int>(*x);
    else if (k == "edgeitems") o->edgeitems = static_cast<int>(*x);
    else if (k == "linewidth") o->linewidth = static_cast<int>(*x);
    else o->threshold = *x;
    return Status::Ok();
  }
  if (k == "suppress") {
    // absl's BooleanParser, as inspect_checkpoint uses.
    std::string l = v;
    std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return std::tolower(c); });
    if (l == "true" || l == "t" || l == "1") o->suppress = true;
    else if (l == "false" || l == "f" || l == "0") o->suppress = false;
    else return Status::Error("printoption 'suppress' expects true or false, got '" + v + "'");
    return Status::Ok();
  }
  if (k == "nanstr") {
    o->nanstr = v;
    return Status::Ok();
  }
  if (k == "infstr") {
    o->infstr = v;
    return Status::Ok();
  }
  if (k == "formatter") return Status::Error("Setting 'formatter' from the command line is not supported.");
  if (k == "sign" || k == "floatmode" || k == "legacy")
    return Status::Error("printoption '" + k + "' is not supported (supported: precision, threshold, edgeitems, "
                         "linewidth, suppress, nanstr, infstr)");
  return Status::Error("'" + k + "' is not a valid printoption.");
}

namespace {

// Row-major strides of `shape`, in elements.
std::vector<std::int64_t> stridesOf(const std::vector<std::int64_t>& shape) {
  const size_t ndim = shape.size();
  std::vector<std::int64_t> strides(ndim, 1);
  for (size_t a = ndim; a-- > 1;) strides[a - 1] = strides[a] * shape[a];
  return strides;
}

// The elements the formatter sees: all of them, or the edges of every axis
// when the array is summarized (NumPy's _leading_trailing).
std::vector<std::int64_t> shownElements(const std::vector<std::int64_t>& shape,
                                        const std::vector<std::int64_t>& strides, bool summary, int edgeitems) {
  const int ndim = static_cast<int>(shape.size());
  std::vector<std::int64_t> shown;
  std::function<void(int, std::int64_t)> collect = [&](int axis, std::int64_t offset) {
    if (axis == ndim) {
      shown.push_back(offset);
      return;
    }
    const std::int64_t len = shape[static_cast<size_t>(axis)];
    const std::int64_t stride = strides[static_cast<size_t>(axis)];
    if (summary && 2 * edgeitems < len) {
      for (std::int64_t i = 0; i < edgeitems; ++i) collect(axis + 1, offset + i * stride);
      for (std::int64_t i = len - edgeitems; i < len; ++i) collect(axis + 1, offset + i * stride);
    } else {
      for (std::int64_t i = 0; i < len; ++i) collect(axis + 1, offset + i * stride);
    }
  };
  collect(0, 0);
  return shown;
}

// NumPy's _extendLine: `word` goes on `line` unless it would pass `width`,
// in which case the line is finished and a new one starts at `prefix`.
void extendLine(std::string& s, std::string& line, const std::string& word, int width, const std::string& prefix) {
  bool wrap = static_cast<int>(line.size() + word.size()) > width;
  if (line.size() <= prefix.size()) wrap = false;  // wrapping would not help
  if (wrap) {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    s += line + "\n";
    line = prefix;
  }
  line += word;
}

// NumPy's _formatArray with separator ' ' and a one-space hanging indent:
// the nested brackets, rows wrapped at the line width, "..." where the
// array is summarized. `element` formats one element by its offset.
class ArrayFormatter {
 public:
  ArrayFormatter(const std::vector<std::int64_t>& shape, bool summary, const NumpyPrintOptions& o,
                 std::function<std::string(std::int64_t)> element)
      : shape_(shape), strides_(stridesOf(shape)), ndim_(static_cast<int>(shape.size())), summary_(summary),
        edgeitems_(o.edgeitems), element_(std::move(element)) {}

  std::string format(int axis, std::int64_t offset, const std::string& hanging, int width) const {
    if (axis == ndim_) return element_(offset);
    const std::string next_hanging = hanging + " ";
    const int next_width = width - 1;
    const std::int64_t len = shape_[static_cast<size_t>(axis)];
    const std::int64_t stride = strides_[static_cast<size_t>(axis)];
    const bool show_summary = summary_ && 2 * edgeitems_ < len;
    const std::int64_t leading = show_summary ? edgeitems_ : 0;
    const std::int64_t trailing = show_summary ? edgeitems_ : len;
    auto item = [&](std::int64_t i) { return format(axis + 1, offset + i * stride, next_hanging, next_width); };
    std::string s;
    const int axes_left = ndim_ - axis;
    if (axes_left == 1) {
      const int elem_width = width - 1;
      std::string line = hanging;
      for (std::int64_t i = 0; i < leading; ++i) {
        extendLine(s, line, item(i), elem_width, hanging);
        line += kSeparator;
      }
      if (show_summary) {
        extendLine(s, line, "...", elem_width, hanging);
        line += kSeparator;
      }
      for (std::int64_t i = trailing; i > 1; --i) {
        extendLine(s, line, item(len - i), elem_width, hanging);
        line += kSeparator;
      }
      extendLine(s, line, item(len - 1), elem_width, hanging);
      s += line;
    } else {
      const std::string line_sep = std::string(static_cast<size_t>(axes_left - 1), '\n');
      for (std::int64_t i = 0; i < leading; ++i) s += hanging + item(i) + line_sep;
      if (show_summary) s += hanging + "..." + line_sep;
      for (std::int64_t i = trailing; i > 1; --i) s += hanging + item(len - i) + line_sep;
      s += hanging + item(len - 1);
    }
    return "[" + s.substr(hanging.size()) + "]";
  }

 private:
  static constexpr const char* kSeparator = " ";
  const std::vector<std::int64_t>& shape_;
  std::vector<std::int64_t> strides_;
  int ndim_;
  bool summary_;
  std::int64_t edgeitems_;
  std::function<std::string(std::int64_t)> element_;
};

}  // namespace

std::string numpyString(const model::HostTensor& t, const NumpyPrintOptions& o) {
  const Kind kind = kindOf(t.dtype);
  const std::int64_t n = t.size();
  auto floatAt = [&](std::int64_t i) {
    if (t.dtype == tensorflow::DT_DOUBLE) return t.as<double>()[i];
    return t.valueAt(i);
  };
  if (t.shape.empty()) {  // a 0-d array prints as its scalar
    if (n != 1) return "[]";
    switch (kind) {
      case Kind::Float: return scalarFloat(floatAt(0), t.dtype);
      case Kind::Bool: return t.valueAt(0) != 0 ? "True" : "False";
      case Kind::Bytes: return bytesRepr(t.strings.empty() ? std::string() : t.strings[0]);
      default: return intString(t, 0);
    }
  }
  for (auto d : t.shape)
    if (d == 0) return "[]";  // NumPy: "[]" for any empty array.
  const bool summary = n > o.threshold;
  const std::vector<std::int64_t> shown = shownElements(t.shape, stridesOf(t.shape), summary, o.edgeitems);

  // The column format is chosen from the elements shown.
  FloatFormat ff;
  size_t int_width = 0;
  if (kind == Kind::Float) {
    std::vector<double> data;
    data.reserve(shown.size());
    for (auto i : shown) data.push_back(floatAt(i));
    ff = fillFloatFormat(data, t.dtype, o);
  } else if (kind == Kind::Int) {
    for (auto i : shown) int_width = std::max(int_width, intString(t, i).size());
  }
  auto element = [&](std::int64_t i) -> std::string {
    switch (kind) {
      case Kind::Float: return formatFloat(floatAt(i), ff, t.dtype, o);
      case Kind::Bool: return t.valueAt(i) != 0 ? " True" : "False";
      case Kind::Bytes: return bytesRepr(static_cast<size_t>(i) < t.strings.size() ? t.strings[static_cast<size_t>(i)] : "");
      default: {
        std::string s = intString(t, i);
        return std::string(int_width - std::min(int_width, s.size()), ' ') + s;
      }
    }
  };
  return ArrayFormatter(t.shape, summary, o, element).format(0, 0, " ", o.linewidth);
}

}  // namespace gds::app
