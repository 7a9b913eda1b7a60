#include "engine/ops/elementwise.h"

namespace gds::engine::ops {

void unaryFloatVec(Unary op, const float* in, float* out, std::int64_t n, float alpha) {
  ConstArrayMap<float> x(in, n);
  ArrayMap<float> o(out, n);
  switch (op) {
    case Unary::Neg: o = -x; break;
    case Unary::Abs: o = x.abs(); break;
    case Unary::Exp: o = x.exp(); break;
    case Unary::Log: o = x.log(); break;
    case Unary::Sqrt: o = x.sqrt(); break;
    case Unary::Rsqrt: o = x.rsqrt(); break;
    case Unary::Square: o = x.square(); break;
    case Unary::Reciprocal: o = x.inverse(); break;
    case Unary::Floor: o = x.floor(); break;
    case Unary::Ceil: o = x.ceil(); break;
    case Unary::Tanh: o = x.tanh(); break;
    case Unary::Sigmoid: o = x.unaryExpr(Eigen::internal::scalar_logistic_op<float>()); break;
    case Unary::Relu: o = x.max(0.0f); break;
    case Unary::Relu6: o = x.max(0.0f).min(6.0f); break;
    case Unary::Elu: o = (x < 0.0f).select(x.exp() - 1.0f, x); break;
    case Unary::LeakyRelu: o = (x < 0.0f).select(x * alpha, x); break;
    default:
      for (std::int64_t i = 0; i < n; ++i) out[i] = unaryScalar<float>(op, in[i], alpha);
  }
}

double unaryCost(Unary op) {
  switch (op) {
    case Unary::Exp: case Unary::Log: case Unary::Tanh: case Unary::Sigmoid: case Unary::Elu: case Unary::Sin:
    case Unary::Cos: case Unary::Softplus: case Unary::Selu: case Unary::Log1p: case Unary::Expm1: case Unary::Erf:
      return 20;
    case Unary::Sqrt: case Unary::Rsqrt: case Unary::Reciprocal: return 8;
    default: return 1;
  }
}

}  // namespace gds::engine::ops
