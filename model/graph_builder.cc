#include "model/graph_builder.h"

#include <cmath>

namespace gds::model {

void setAttrType(tensorflow::NodeDef* node, const std::string& name, tensorflow::DataType type) {
  (*node->mutable_attr())[name].set_type(type);
}
void setAttrInt(tensorflow::NodeDef* node, const std::string& name, std::int64_t value) {
  (*node->mutable_attr())[name].set_i(value);
}
void setAttrInts(tensorflow::NodeDef* node, const std::string& name, const std::vector<std::int64_t>& values) {
  auto* list = (*node->mutable_attr())[name].mutable_list();
  list->Clear();
  for (auto v : values) list->add_i(v);
}
void setAttrString(tensorflow::NodeDef* node, const std::string& name, const std::string& value) {
  (*node->mutable_attr())[name].set_s(value);
}
void setAttrBool(tensorflow::NodeDef* node, const std::string& name, bool value) {
  (*node->mutable_attr())[name].set_b(value);
}
void setAttrFloat(tensorflow::NodeDef* node, const std::string& name, float value) {
  (*node->mutable_attr())[name].set_f(value);
}
void setAttrShape(tensorflow::NodeDef* node, const std::string& name, const Shape& shape) {
  shapeToProto(shape, (*node->mutable_attr())[name].mutable_shape());
}

GraphBuilder::GraphBuilder() { graph_.mutable_versions()->set_producer(27); }

GraphBuilder::Scope::~Scope() {
  if (builder_ && !builder_->scopes_.empty()) builder_->scopes_.pop_back();
}

GraphBuilder::Scope GraphBuilder::scope(const std::string& name) {
  scopes_.push_back(name);
  return Scope(this);
}

std::string GraphBuilder::uniqueName(const std::string& name) const {
  std::string prefix;
  for (const auto& s : scopes_) prefix += s + "/";
  std::string full = prefix + name;
  if (!names_.count(full)) return full;
  for (int k = 1;; ++k) {
    std::string candidate = full + "_" + std::to_string(k);
    if (!names_.count(candidate)) return candidate;
  }
}

tensorflow::NodeDef* GraphBuilder::add(const std::string& op, const std::string& name,
                                       const std::vector<std::string>& inputs) {
  tensorflow::NodeDef* n = graph_.add_node();
  n->set_name(uniqueName(name));
  names_.insert(n->name());
  n->set_op(op);
  for (const auto& in : inputs) n->add_input(in);
  return n;
}

std::string GraphBuilder::placeholder(const std::string& name, tensorflow::DataType dtype, const Shape& shape) {
  auto* n = add("Placeholder", name);
  setAttrType(n, "dtype", dtype);
  setAttrShape(n, "shape", shape);
  return n->name();
}

std::string GraphBuilder::constant(const std::string& name, const HostTensor& value) {
  auto* n = add("Const", name);
  setAttrType(n, "dtype", value.dtype);
  encodeTensor(value, (*n->mutable_attr())["value"].mutable_tensor());
  return n->name();
}

std::string GraphBuilder::constantFloat(const std::string& name, const Shape& shape, const std::vector<float>& values) {
  HostTensor t = HostTensor::zeros(tensorflow::DT_FLOAT, shape);
  std::memcpy(t.data.data(), values.data(), std::min(t.data.size(), values.size() * sizeof(float)));
  return constant(name, t);
}

std::string GraphBuilder::constantInt32(const std::string& name, const Shape& shape,
                                        const std::vector<std::int32_t>& values) {
  HostTensor t = HostTensor::zeros(tensorflow::DT_INT32, shape);
  std::memcpy(t.data.data(), values.data(), std::min(t.data.size(), values.size() * sizeof(std::int32_t)));
  return constant(name, t);
}

std::string GraphBuilder::identity(const std::string& name, const std::string& input) {
  return unary("Identity", name, input);
}

std::string GraphBuilder::unary(const std::string& op, const std::string& name, const std::string& input) {
  auto* n = add(op, name, {input});
  setAttrType(n, "T", tensorflow::DT_FLOAT);
  return n->name();
}

std::string GraphBuilder::binary(const std::string& op, const std::string& name, const std::string& a,
                                 const std::string& b) {
  auto* n = add(op, name, {a, b});
  setAttrType(n, "T", tensorflow::DT_FLOAT);
  return n->name();
}

std::string GraphBuilder::conv2d(const std::string& name, const std::string& input, const std::string& filter,
                                 const std::vector<std::int64_t>& strides, const std::string& padding) {
  auto* n = add("Conv2D", name, {input, filter});
  setAttrType(n, "T", tensorflow::DT_FLOAT);
  setAttrString(n, "data_format", "NHWC");
  setAttrInts(n, "dilations", {1, 1, 1, 1});
  setAttrString(n, "padding", padding);
  setAttrInts(n, "strides", strides);
  setAttrBool(n, "use_cudnn_on_gpu", true);
  return n->name();
}

std::string GraphBuilder::depthwiseConv2d(const std::string& name, const std::string& input,
                                          const std::string& filter, const std::vector<std::int64_t>& strides,
                                          const std::string& padding) {
  auto* n = add("DepthwiseConv2dNative", name, {input, filter});
  setAttrType(n, "T", tensorflow::DT_FLOAT);
  setAttrString(n, "data_format", "NHWC");
  setAttrInts(n, "dilations", {1, 1, 1, 1});
  setAttrString(n, "padding", padding);
  setAttrInts(n, "strides", strides);
  return n->name();
}

std::string GraphBuilder::biasAdd(const std::string& name, const std::string& input, const std::string& bias) {
  auto* n = add("BiasAdd", name, {input, bias});
  setAttrType(n, "T", tensorflow::DT_FLOAT);
  setAttrString(n, "data_format", "NHWC");
  return n->name();
}

std::string GraphBuilder::matMul(const std::string& name, const std::string& a, const std::string& b,
                                 bool transpose_a, bool transpose_b) {
  auto* n = add("MatMul", name, {a, b});
  setAttrType(n, "T", tensorflow::DT_FLOAT);
  setAttrBool(n, "transpose_a", transpose_a);
  setAttrBool(n, "transpose_b", transpose_b);
  return n->name();
}

std::string GraphBuilder::pool(const std::string& op, const std::string& name, const std::string& input,
                               const std::vector<std::int64_t>& ksize, const std::vector<std::int64_t>& strides,
                               const std::string& padding) {
  auto* n = add(op, name, {input});
  setAttrType(n, "T", tensorflow::DT_FLOAT);
  setAttrString(n, "data_format", "NHWC");
  setAttrInts(n, "ksize", ksize);
  setAttrString(n, "padding", padding);
  setAttrInts(n, "strides", strides);
  return n->name();
}

std::string GraphBuilder::fusedBatchNorm(const std::string& name, const std::string& x, const std::string& scale,
                                         const std::string& offset, const std::string& mean,
                                         const std::string& variance, float epsilon) {
  auto* n = add("FusedBatchNorm", name, {x, scale, offset, mean, variance});
  setAttrType(n, "T", tensorflow::DT_FLOAT);
  setAttrString(n, "data_format", "NHWC");
  setAttrFloat(n, "epsilon", epsilon);
  setAttrBool(n, "is_training", false);
  return n->name();
}

std::string GraphBuilder::reshape(const std::string& name, const std::string& input, const std::string& shape) {
  auto* n = add("Reshape", name, {input, shape});
  setAttrType(n, "T", tensorflow::DT_FLOAT);
  setAttrType(n, "Tshape", tensorflow::DT_INT32);
  return n->name();
}

std::string GraphBuilder::squeeze(const std::string& name, const std::string& input,
                                  const std::vector<std::int64_t>& dims) {
  auto* n = add("Squeeze", name, {input});
  setAttrType(n, "T", tensorflow::DT_FLOAT);
  setAttrInts(n, "squeeze_dims", dims);
  return n->name();
}

namespace {

// splitmix64: a fixed, portable sequence (no <random> distributions, whose
// output differs between standard libraries).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi), exactly representable steps of 2^-24.
  float uniform(float lo, float hi) {
    float u = static_cast<float>(next() >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
  }
  std::vector<float> uniform(std::int64_t n, float lo, float hi) {
    std::vector<float> v(static_cast<size_t>(n));
    for (auto& x : v) x = uniform(lo, hi);
    return v;
  }

 private:
  std::uint64_t state_;
};

struct SampleMaker {
  GraphBuilder b;
  Rng rng{20170614};

  std::string weights(const std::string& name, const Shape& shape, std::int64_t fan_in) {
    // He-style uniform range keeps activations in a sensible range.
    float limit = std::sqrt(6.0f / static_cast<float>(fan_in));
    std::string w = b.constantFloat(name, shape, rng.uniform(numElements(shape), -limit, limit));
    return b.identity(name + "/read", w);
  }

  // tf.contrib.layers.batch_norm (fused=False) as frozen: moving statistics
  // behind Identity reads and the tf.nn.batch_normalization arithmetic.
  std::string batchNorm(const std::string& x, std::int64_t channels, bool fused) {
    auto scope = b.scope("BatchNorm");
    std::string gamma = b.identity("gamma/read", b.constantFloat("gamma", {channels}, rng.uniform(channels, 0.8f, 1.2f)));
    std::string beta = b.identity("beta/read", b.constantFloat("beta", {channels}, rng.uniform(channels, -0.1f, 0.1f)));
    std::string mean = b.identity("moving_mean/read",
                                  b.constantFloat("moving_mean", {channels}, rng.uniform(channels, -0.1f, 0.1f)));
    std::string var = b.identity("moving_variance/read",
                                 b.constantFloat("moving_variance", {channels}, rng.uniform(channels, 0.5f, 1.5f)));
    if (fused) return b.fusedBatchNorm("FusedBatchNorm", x, gamma, beta, mean, var, 0.001f);
    auto inner = b.scope("batchnorm");
    std::string add = b.binary("Add", "add", var, b.constantFloat("add/y", {}, {0.001f}));
    std::string rsqrt = b.unary("Rsqrt", "Rsqrt", add);
    std::string mul = b.binary("Mul", "mul", rsqrt, gamma);
    std::string mul1 = b.binary("Mul", "mul_1", x, mul);
    std::string mul2 = b.binary("Mul", "mul_2", mean, mul);
    std::string sub = b.binary("Sub", "sub", beta, mul2);
    return b.binary("Add", "add_1", mul1, sub);
  }

  std::string convLayer(const std::string& scope_name, const std::string& x, bool depthwise, std::int64_t k,
                        std::int64_t in_c, std::int64_t out_c, std::int64_t stride, bool fused) {
    auto scope = b.scope(scope_name);
    std::string y;
    if (depthwise) {
      std::string w = weights("depthwise_weights", {k, k, in_c, 1}, k * k);
      y = b.depthwiseConv2d("depthwise", x, w, {1, stride, stride, 1}, "SAME");
    } else {
      std::string w = weights("weights", {k, k, in_c, out_c}, k * k * in_c);
      y = b.conv2d("Conv2D", x, w, {1, stride, stride, 1}, "SAME");
    }
    y = batchNorm(y, depthwise ? in_c : out_c, fused);
    return b.relu6("Relu6", y);
  }
};

}  // namespace

tensorflow::GraphDef makeSampleModel() {
  SampleMaker m;
  GraphBuilder& b = m.b;
  std::string x = b.placeholder("input", tensorflow::DT_FLOAT, {1, 64, 64, 3});
  {
    auto net = b.scope("MobilenetV1");
    x = m.convLayer("Conv2d_0", x, false, 3, 3, 8, 2, false);  // 32x32x8
    struct Block {
      std::int64_t out, stride;
    };
    const Block blocks[] = {{16, 1}, {32, 2}, {32, 1}, {64, 2}};  // 32x32x16, 16x16x32, 16x16x32, 8x8x64
    std::int64_t channels = 8;
    int index = 1;
    for (const auto& blk : blocks) {
      bool fused = index == 4;  // the last block uses FusedBatchNorm
      std::string base = "Conv2d_" + std::to_string(index);
      x = m.convLayer(base + "_depthwise", x, true, 3, channels, channels, blk.stride, fused);
      x = m.convLayer(base + "_pointwise", x, false, 1, channels, blk.out, 1, fused);
      channels = blk.out;
      ++index;
    }
    {
      auto logits = b.scope("Logits");
      x = b.pool("AvgPool", "AvgPool_1a", x, {1, 8, 8, 1}, {1, 2, 2, 1}, "VALID");  // 1x1x64
      {
        auto conv = b.scope("Conv2d_1c_1x1");
        std::string w = m.weights("weights", {1, 1, channels, 10}, channels);
        std::string bias = b.identity("biases/read", b.constantFloat("biases", {10}, m.rng.uniform(10, -0.05f, 0.05f)));
        x = b.biasAdd("BiasAdd", b.conv2d("Conv2D", x, w, {1, 1, 1, 1}, "SAME"), bias);
      }
      x = b.squeeze("SpatialSqueeze", x, {1, 2});
    }
    {
      auto pred = b.scope("Predictions");
      b.softmax("Softmax", x);
    }
  }
  return b.release();
}

}  // namespace gds::model
