// TensorProto <-> host buffer for every dtype of the corpus, from
// tensor_content and from the typed fields, with TensorFlow's fill rule.
#include <gtest/gtest.h>

#include "model/tensor.h"

namespace gds::model {
namespace {

tensorflow::TensorProto proto(tensorflow::DataType dt, const Shape& shape) {
  tensorflow::TensorProto p;
  p.set_dtype(dt);
  shapeToProto(shape, p.mutable_tensor_shape());
  return p;
}

TEST(Tensor, TypedFieldsForEveryDtypeWithFill) {
  struct Case {
    tensorflow::DataType dt;
    std::vector<double> expect;
  };
  // Two values given for a [2,2] tensor: the last one fills the rest.
  for (auto dt : {tensorflow::DT_FLOAT, tensorflow::DT_DOUBLE, tensorflow::DT_INT32, tensorflow::DT_INT16,
                  tensorflow::DT_INT8, tensorflow::DT_UINT8, tensorflow::DT_UINT16, tensorflow::DT_INT64,
                  tensorflow::DT_BOOL, tensorflow::DT_QUINT8, tensorflow::DT_QINT8, tensorflow::DT_QINT32,
                  tensorflow::DT_HALF}) {
    SCOPED_TRACE(dtypeName(dt));
    auto p = proto(dt, {2, 2});
    switch (dt) {
      case tensorflow::DT_FLOAT: p.add_float_val(1.5f); p.add_float_val(-2.f); break;
      case tensorflow::DT_DOUBLE: p.add_double_val(1.5); p.add_double_val(-2); break;
      case tensorflow::DT_INT64: p.add_int64_val(1); p.add_int64_val(-2); break;
      case tensorflow::DT_BOOL: p.add_bool_val(false); p.add_bool_val(true); break;
      case tensorflow::DT_HALF: p.add_half_val(floatToHalf(1.5f)); p.add_half_val(floatToHalf(-2.f)); break;
      case tensorflow::DT_UINT8: case tensorflow::DT_QUINT8: case tensorflow::DT_UINT16:
        p.add_int_val(1); p.add_int_val(200); break;
      default: p.add_int_val(1); p.add_int_val(-2); break;
    }
    auto t = decodeTensor(p);
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_EQ(t->shape, (Shape{2, 2}));
    EXPECT_EQ(t->data.size(), 4 * dtypeSize(dt));
    double first = dt == tensorflow::DT_FLOAT || dt == tensorflow::DT_DOUBLE || dt == tensorflow::DT_HALF ? 1.5
                   : dt == tensorflow::DT_BOOL ? 0 : 1;
    double second = dt == tensorflow::DT_BOOL ? 1
                    : (dt == tensorflow::DT_UINT8 || dt == tensorflow::DT_QUINT8 || dt == tensorflow::DT_UINT16) ? 200
                                                                                                                 : -2;
    EXPECT_EQ(t->valueAt(0), first);
    for (int i = 1; i < 4; ++i) EXPECT_EQ(t->valueAt(i), second) << i;
    // Re-encoding gives tensor_content that decodes to the same bytes.
    tensorflow::TensorProto again;
    encodeTensor(*t, &again);
    auto back = decodeTensor(again);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->data, t->data);
  }
}

TEST(Tensor, SingleValueFillsWholeShapeAndEmptyIsZero) {
  auto p = proto(tensorflow::DT_FLOAT, {3, 5});
  p.add_float_val(0.25f);
  auto t = decodeTensor(p);
  ASSERT_TRUE(t.ok());
  for (int i = 0; i < 15; ++i) EXPECT_EQ(t->as<float>()[i], 0.25f);
  auto z = decodeTensor(proto(tensorflow::DT_INT32, {4}));
  ASSERT_TRUE(z.ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(z->as<std::int32_t>()[i], 0);
  // More values than elements: TensorFlow keeps the first ones.
  auto more = proto(tensorflow::DT_INT32, {2});
  for (int v : {7, 8, 9}) more.add_int_val(v);
  auto m = decodeTensor(more);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->as<std::int32_t>()[1], 8);
}

TEST(Tensor, TensorContentAndStrings) {
  auto p = proto(tensorflow::DT_INT16, {3});
  std::int16_t vals[3] = {-1, 2, 300};
  p.set_tensor_content(std::string(reinterpret_cast<const char*>(vals), 6));
  auto t = decodeTensor(p);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->valueAt(2), 300);
  p.set_tensor_content(std::string(5, '\0'));
  auto bad = decodeTensor(p);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "tensor_content has 5 bytes but int16[3] needs 6");

  auto s = proto(tensorflow::DT_STRING, {3});
  s.add_string_val("a");
  s.add_string_val("bc");
  auto st = decodeTensor(s);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->strings, (std::vector<std::string>{"a", "bc", "bc"}));
}

TEST(Tensor, CorruptShapesAreErrors) {
  auto unknown = proto(tensorflow::DT_FLOAT, {-1, 3});
  EXPECT_EQ(decodeTensor(unknown).error(), "tensor shape [?,3] has an unknown dimension");
  auto huge = proto(tensorflow::DT_FLOAT, {1LL << 40, 1LL << 40});
  huge.add_float_val(1);
  EXPECT_EQ(decodeTensor(huge).error(), "tensor shape [1099511627776,1099511627776] is too large");
  EXPECT_EQ(numElements({1LL << 40, 1LL << 40}), -1);
}

TEST(Tensor, DtypeNames) {
  EXPECT_EQ(dtypeName(tensorflow::DT_QUINT8), "quint8");
  EXPECT_EQ(dtypeName(tensorflow::DT_FLOAT_REF), "float_ref");
  EXPECT_EQ(parseDtype("float32").value(), tensorflow::DT_FLOAT);
  EXPECT_EQ(parseDtype("DT_INT64").value(), tensorflow::DT_INT64);
  EXPECT_FALSE(parseDtype("float7").ok());
  EXPECT_EQ(halfToFloat(floatToHalf(65504.f)), 65504.f);
}

}  // namespace
}  // namespace gds::model

namespace gds::model {
namespace {

TEST(Tensor, ComplexFillRepeatsTheLastPair) {
  tensorflow::TensorProto p;
  p.set_dtype(tensorflow::DT_COMPLEX64);
  shapeToProto({3}, p.mutable_tensor_shape());
  for (float v : {1.f, 2.f, 3.f, 4.f}) p.add_scomplex_val(v);
  auto t = decodeTensor(p);
  ASSERT_TRUE(t.ok()) << t.error();
  const float* f = t->as<float>();
  EXPECT_EQ(std::vector<float>(f, f + 6), (std::vector<float>{1, 2, 3, 4, 3, 4}));
}

}  // namespace
}  // namespace gds::model
