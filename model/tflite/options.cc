#include "model/tflite/options.h"

#include <flatbuffers/flatbuffers.h>
#include <flatbuffers/reflection.h>

#include <limits>
#include <map>
#include <set>

#include "model/attr.h"
#include "tflite/schema_bfbs_generated.h"

namespace gds::model::tflite {
namespace {

const reflection::Schema& schema() {
  static const reflection::Schema* s = reflection::GetSchema(::tflite::ModelBinarySchema::data());
  return *s;
}

const reflection::Object* objectFor(const char* options) {
  if (!options) return nullptr;
  // A linear search: the schema is small, and GCC's -Wstringop-overread
  // misreads the strcmp inside LookupByKey at -O1.
  const std::string name = std::string("tflite.") + options;
  for (const reflection::Object* o : *schema().objects())
    if (o->name()->str() == name) return o;
  return nullptr;
}

// Non-deprecated fields by id (field order in the schema).
std::vector<const reflection::Field*> fieldsOf(const reflection::Object* object) {
  std::map<int, const reflection::Field*> by_id;
  for (const reflection::Field* f : *object->fields())
    if (!f->deprecated()) by_id[f->id()] = f;
  std::vector<const reflection::Field*> out;
  for (const auto& [id, f] : by_id) out.push_back(f);
  return out;
}

const reflection::Enum* enumOf(const reflection::Type* type, bool element) {
  const reflection::BaseType base = element ? type->element() : type->base_type();
  if (!flatbuffers::IsInteger(base) || type->index() < 0) return nullptr;
  return schema().enums()->Get(static_cast<flatbuffers::uoffset_t>(type->index()));
}

std::string enumName(const reflection::Enum* e, std::int64_t value, bool* known) {
  for (const reflection::EnumVal* v : *e->values())
    if (v->value() == value) {
      *known = true;
      return v->name()->str();
    }
  *known = false;
  return std::to_string(value);
}

bool enumValue(const reflection::Enum* e, const std::string& name, std::int64_t* value) {
  for (const reflection::EnumVal* v : *e->values())
    if (v->name()->str() == name) {
      *value = v->value();
      return true;
    }
  return false;
}

std::string enumNames(const reflection::Enum* e) {
  std::string out;
  for (const reflection::EnumVal* v : *e->values()) out += (out.empty() ? "" : ", ") + v->name()->str();
  return out;
}

// Range of an integer base type.
void integerRange(reflection::BaseType t, std::int64_t* lo, std::int64_t* hi) {
  switch (t) {
    case reflection::Bool: *lo = 0; *hi = 1; break;
    case reflection::Byte: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case reflection::UByte: case reflection::UType: *lo = 0; *hi = UINT8_MAX; break;
    case reflection::Short: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case reflection::UShort: *lo = 0; *hi = UINT16_MAX; break;
    case reflection::Int: *lo = INT32_MIN; *hi = INT32_MAX; break;
    case reflection::UInt: *lo = 0; *hi = UINT32_MAX; break;
    default: *lo = INT64_MIN; *hi = INT64_MAX; break;
  }
}

void addScalar(flatbuffers::FlatBufferBuilder* b, reflection::BaseType t, flatbuffers::voffset_t at, std::int64_t v,
               std::int64_t def) {
  switch (t) {
    case reflection::Bool: case reflection::UByte: case reflection::UType:
      b->AddElement<std::uint8_t>(at, static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(def)); break;
    case reflection::Byte: b->AddElement<std::int8_t>(at, static_cast<std::int8_t>(v), static_cast<std::int8_t>(def)); break;
    case reflection::Short: b->AddElement<std::int16_t>(at, static_cast<std::int16_t>(v), static_cast<std::int16_t>(def)); break;
    case reflection::UShort: b->AddElement<std::uint16_t>(at, static_cast<std::uint16_t>(v), static_cast<std::uint16_t>(def)); break;
    case reflection::Int: b->AddElement<std::int32_t>(at, static_cast<std::int32_t>(v), static_cast<std::int32_t>(def)); break;
    case reflection::UInt: b->AddElement<std::uint32_t>(at, static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(def)); break;
    case reflection::ULong: b->AddElement<std::uint64_t>(at, static_cast<std::uint64_t>(v), static_cast<std::uint64_t>(def)); break;
    default: b->AddElement<std::int64_t>(at, v, def); break;
  }
}

}  // namespace

int optionsUnionType(const char* options) {
  if (!options) return 0;
  const reflection::Enum* u = nullptr;
  for (const reflection::Enum* e : *schema().enums())
    if (e->name()->str() == "tflite.BuiltinOptions") u = e;
  for (const reflection::EnumVal* v : *u->values())
    if (v->name()->str() == options) return static_cast<int>(v->value());
  return 0;
}

std::vector<std::string> optionFieldNames(const char* options) {
  std::vector<std::string> out;
  if (const reflection::Object* object = objectFor(options))
    for (const reflection::Field* f : fieldsOf(object)) out.push_back(f->name()->str());
  return out;
}

Status optionsToAttrs(const char* options, const flatbuffers::Table* table, tensorflow::NodeDef* node) {
  const reflection::Object* object = objectFor(options);
  if (!object) return Status::Error(std::string("the schema has no options table ") + (options ? options : "(none)"));
  auto& attrs = *node->mutable_attr();
  for (const reflection::Field* f : fieldsOf(object)) {
    const std::string name = f->name()->str();
    const reflection::Type* type = f->type();
    tensorflow::AttrValue value;
    const reflection::BaseType base = type->base_type();
    if (base == reflection::Bool) {
      value.set_b((table ? flatbuffers::GetAnyFieldI(*table, *f) : f->default_integer()) != 0);
    } else if (flatbuffers::IsInteger(base)) {
      const std::int64_t v = table ? flatbuffers::GetAnyFieldI(*table, *f) : f->default_integer();
      if (const reflection::Enum* e = enumOf(type, false)) {
        bool known = false;
        std::string text = enumName(e, v, &known);
        if (!known)
          return Status::Error(options + std::string(".") + name + " has the value " + std::to_string(v) +
                               ", which is not one of " + enumNames(e));
        value.set_s(text);
      } else {
        value.set_i(v);
      }
    } else if (flatbuffers::IsFloat(base)) {
      value.set_f(static_cast<float>(table ? flatbuffers::GetAnyFieldF(*table, *f) : f->default_real()));
    } else if (base == reflection::String) {
      const flatbuffers::String* s = table ? flatbuffers::GetFieldS(*table, *f) : nullptr;
      value.set_s(s ? s->str() : "");
    } else if (base == reflection::Vector && flatbuffers::IsScalar(type->element())) {
      auto* list = value.mutable_list();
      const flatbuffers::VectorOfAny* vec = table ? flatbuffers::GetFieldAnyV(*table, *f) : nullptr;
      const reflection::Enum* e = enumOf(type, true);
      for (flatbuffers::uoffset_t i = 0; vec && i < vec->size(); ++i) {
        if (flatbuffers::IsFloat(type->element())) {
          list->add_f(static_cast<float>(flatbuffers::GetAnyVectorElemF(vec, type->element(), i)));
        } else if (type->element() == reflection::Bool) {
          list->add_b(flatbuffers::GetAnyVectorElemI(vec, type->element(), i) != 0);
        } else if (e) {
          bool known = false;
          list->add_s(enumName(e, flatbuffers::GetAnyVectorElemI(vec, type->element(), i), &known));
          if (!known) return Status::Error(options + std::string(".") + name + " holds a value outside " + enumNames(e));
        } else {
          list->add_i(flatbuffers::GetAnyVectorElemI(vec, type->element(), i));
        }
      }
    } else {
      return Status::Error(options + std::string(".") + name + " is of a kind options tables do not use");
    }
    attrs[name] = std::move(value);
  }
  return Status::Ok();
}

namespace {

// Every attr not starting with '_' must be a field of the options table.
Status checkAttrsAreFields(const char* options, const tensorflow::NodeDef& node,
                           const std::vector<const reflection::Field*>& fields, const std::string& where) {
  std::set<std::string> known;
  for (const reflection::Field* f : fields) known.insert(f->name()->str());
  for (const auto& [name, value] : node.attr()) {
    if (name.empty() || name[0] == '_' || known.count(name)) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    return Status::Error(where + ": attr '" + name + "' is not an option of " + options +
                         (list.empty() ? " (it has none)" : " (" + list + ")"));
  }
  return Status::Ok();
}

// A vector field from a list attr (floats, bools, enum names or integers in
// the element type's range), built before the table starts.
Result<flatbuffers::uoffset_t> buildVector(const reflection::Field* f, const tensorflow::AttrValue& a,
                                           const std::string& where, flatbuffers::FlatBufferBuilder* builder) {
  const std::string name = f->name()->str();
  if (a.value_case() != tensorflow::AttrValue::kList)
    return Status::Error(where + ": attr '" + name + "' must be a list");
  const reflection::BaseType elem = f->type()->element();
  const reflection::Enum* e = enumOf(f->type(), true);
  std::vector<std::int64_t> ints;
  std::vector<double> reals;
  if (flatbuffers::IsFloat(elem)) {
    for (float v : a.list().f()) reals.push_back(v);
  } else if (elem == reflection::Bool) {
    for (bool v : a.list().b()) ints.push_back(v ? 1 : 0);
  } else if (e) {
    for (const std::string& s : a.list().s()) {
      std::int64_t v = 0;
      if (!enumValue(e, s, &v))
        return Status::Error(where + ": attr '" + name + "' holds '" + s + "', expected one of " + enumNames(e));
      ints.push_back(v);
    }
  } else {
    std::int64_t lo, hi;
    integerRange(elem, &lo, &hi);
    for (std::int64_t v : a.list().i()) {
      if (v < lo || v > hi)
        return Status::Error(where + ": attr '" + name + "' holds " + std::to_string(v) + ", out of range");
      ints.push_back(v);
    }
  }
  const std::size_t n = flatbuffers::IsFloat(elem) ? reals.size() : ints.size();
  builder->StartVector(n, flatbuffers::GetTypeSize(elem));
  for (std::size_t k = n; k-- > 0;) {
    switch (elem) {
      case reflection::Float: builder->PushElement(static_cast<float>(reals[k])); break;
      case reflection::Double: builder->PushElement(reals[k]); break;
      case reflection::Bool: case reflection::UByte: builder->PushElement(static_cast<std::uint8_t>(ints[k])); break;
      case reflection::Byte: builder->PushElement(static_cast<std::int8_t>(ints[k])); break;
      case reflection::Short: builder->PushElement(static_cast<std::int16_t>(ints[k])); break;
      case reflection::UShort: builder->PushElement(static_cast<std::uint16_t>(ints[k])); break;
      case reflection::Int: builder->PushElement(static_cast<std::int32_t>(ints[k])); break;
      case reflection::UInt: builder->PushElement(static_cast<std::uint32_t>(ints[k])); break;
      case reflection::ULong: builder->PushElement(static_cast<std::uint64_t>(ints[k])); break;
      default: builder->PushElement(ints[k]); break;
    }
  }
  return builder->EndVector(n);
}

// A scalar field (float, bool, enum or integer) from its attr, or its default.
Status addScalarField(const reflection::Field* f, const tensorflow::AttrValue* a, const std::string& where,
                      flatbuffers::FlatBufferBuilder* builder) {
  const std::string name = f->name()->str();
  const reflection::BaseType base = f->type()->base_type();
  const flatbuffers::voffset_t at = f->offset();
  if (flatbuffers::IsFloat(base)) {
    double v = f->default_real();
    if (a) {
      if (a->value_case() != tensorflow::AttrValue::kF)
        return Status::Error(where + ": attr '" + name + "' must be a float");
      v = a->f();
    }
    if (base == reflection::Float)
      builder->AddElement<float>(at, static_cast<float>(v), static_cast<float>(f->default_real()));
    else
      builder->AddElement<double>(at, v, f->default_real());
    return Status::Ok();
  }
  std::int64_t v = f->default_integer();
  if (a) {
    if (base == reflection::Bool) {
      if (a->value_case() != tensorflow::AttrValue::kB)
        return Status::Error(where + ": attr '" + name + "' must be a bool");
      v = a->b() ? 1 : 0;
    } else if (const reflection::Enum* e = enumOf(f->type(), false)) {
      if (a->value_case() != tensorflow::AttrValue::kS || !enumValue(e, a->s(), &v))
        return Status::Error(where + ": attr '" + name + "' must be one of " + enumNames(e) +
                             (a->value_case() == tensorflow::AttrValue::kS ? ", got '" + a->s() + "'" : ""));
    } else {
      if (a->value_case() != tensorflow::AttrValue::kI)
        return Status::Error(where + ": attr '" + name + "' must be an int");
      std::int64_t lo, hi;
      integerRange(base, &lo, &hi);
      v = a->i();
      if (v < lo || v > hi)
        return Status::Error(where + ": attr '" + name + "' is " + std::to_string(v) + ", out of range for the field");
    }
  }
  addScalar(builder, base, at, v, f->default_integer());
  return Status::Ok();
}

}  // namespace

Result<std::uint32_t> attrsToOptions(const char* options, const tensorflow::NodeDef& node,
                                     flatbuffers::FlatBufferBuilder* builder) {
  const reflection::Object* object = objectFor(options);
  if (!object) return Status::Error(std::string("the schema has no options table ") + (options ? options : "(none)"));
  const std::vector<const reflection::Field*> fields = fieldsOf(object);
  const std::string where = "node '" + node.name() + "' (" + node.op() + ")";
  GDS_RETURN_IF_ERROR(checkAttrsAreFields(options, node, fields, where));
  // Vectors and strings are built before the table starts.
  std::map<int, flatbuffers::uoffset_t> offsets;
  for (const reflection::Field* f : fields) {
    const tensorflow::AttrValue* a = findAttr(node, f->name()->str());
    if (!a) continue;
    if (f->type()->base_type() == reflection::String) {
      if (a->value_case() != tensorflow::AttrValue::kS)
        return Status::Error(where + ": attr '" + f->name()->str() + "' must be a string");
      offsets[f->id()] = builder->CreateString(a->s()).o;
    } else if (f->type()->base_type() == reflection::Vector) {
      auto vector = buildVector(f, *a, where, builder);
      if (!vector.ok()) return vector.status();
      offsets[f->id()] = *vector;
    }
  }
  const flatbuffers::uoffset_t start = builder->StartTable();
  for (const reflection::Field* f : fields) {
    const reflection::BaseType base = f->type()->base_type();
    if (base == reflection::String || base == reflection::Vector) {
      auto it = offsets.find(f->id());
      if (it != offsets.end()) builder->AddOffset(f->offset(), flatbuffers::Offset<void>(it->second));
      continue;
    }
    GDS_RETURN_IF_ERROR(addScalarField(f, findAttr(node, f->name()->str()), where, builder));
  }
  return builder->EndTable(start);
}

}  // namespace gds::model::tflite
