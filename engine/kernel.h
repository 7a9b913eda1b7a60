// The kernel interface: each op separates preparation (init: read attrs,
// check what is known at compile time, once per Plan) from evaluation
// (compute: the hot path, run many times). Kernels are registered by op type
// (and optionally dtype) in a KernelRegistry; engine/builtin_kernels.h has
// them all.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/tensor.h"
#include "engine/thread_pool.h"
#include "graph.pb.h"
#include "model/status.h"

namespace gds::engine {

// Declared here for KernelInit, defined with its values in the 8-bit layer
// (engine/lowp/requantize.h) that the kernels reading it include.
namespace lowp {
enum class Arithmetic : std::uint8_t;
}

// What a kernel sees when the plan is compiled.
class KernelInit {
 public:
  virtual ~KernelInit() = default;
  virtual const tensorflow::NodeDef& node() const = 0;
  virtual int numInputs() const = 0;  // data inputs only
  // dtype of data input i as declared by its producer (DT_INVALID if unknown).
  virtual DataType inputType(int i) const = 0;
  // Statically known shape of input i, if any (dims may be -1).
  virtual bool inputShape(int i, Shape* shape) const = 0;
  // Value of input i when it is a Const known at compile time (nullptr otherwise).
  virtual const Tensor* constantInput(int i) const = 0;
  // The graph node producing data input i and its output port, whether or not
  // it is fed (nullptr when unknown). Kernels read attrs their producers carry
  // (the TFLite dialect's per-tensor quantization, model/tflite/dialect.h).
  virtual const tensorflow::NodeDef* inputProducer(int i, int* port) const {
    (void)i; (void)port;
    return nullptr;
  }
  // Use the reference (plain loop) implementations instead of optimized ones.
  virtual bool referenceKernels() const = 0;
  // PlanOptions::winograd.
  virtual bool winogradAllowed() const { return true; }
  // PlanOptions::arithmetic: whose int8 arithmetic the TFLite dialect's
  // kernels follow (engine/lowp/requantize.h defines it).
  virtual lowp::Arithmetic arithmetic() const = 0;

  // Attr helpers; errors name the node and the attr.
  const tensorflow::AttrValue* attr(const std::string& name) const;
  Status getAttr(const std::string& name, std::string* value) const;
  Status getAttr(const std::string& name, std::int64_t* value) const;
  Status getAttr(const std::string& name, float* value) const;
  Status getAttr(const std::string& name, bool* value) const;
  Status getAttr(const std::string& name, DataType* value) const;
  Status getAttr(const std::string& name, std::vector<std::int64_t>* value) const;
  Status getAttr(const std::string& name, std::vector<DataType>* value) const;
  Status getAttr(const std::string& name, std::vector<float>* value) const;
  Status getAttr(const std::string& name, std::vector<std::string>* value) const;
  Status getAttr(const std::string& name, Shape* value, bool* known_rank) const;  // "shape" attrs
  Status getAttr(const std::string& name, const tensorflow::TensorProto** value) const;
  // The node's "T" attr, else "dtype", else DT_INVALID.
  DataType typeAttr() const;
  // Shape of input i when statically known with a known rank.
  bool inputRankKnown(int i, Shape* shape) const { return inputShape(i, shape); }
  // Same as getAttr but falls back to `fallback` when the attr is absent.
  template <typename T>
  Status getAttrOr(const std::string& name, T* value, const T& fallback) const {
    if (!attr(name)) {
      *value = fallback;
      return Status::Ok();
    }
    return getAttr(name, value);
  }
  // "node 'name' (Op): message"
  Status error(const std::string& message) const;
};

// What a kernel sees when it runs.
class KernelContext {
 public:
  virtual ~KernelContext() = default;
  virtual const tensorflow::NodeDef& node() const = 0;
  virtual int numInputs() const = 0;
  virtual const Tensor& input(int i) const = 0;
  virtual int numOutputs() const = 0;
  // Allocates output i from the plan's memory (buffers are reused by lifetime).
  virtual Tensor* allocateOutput(int i, DataType dtype, const Shape& shape) = 0;
  // Sets output i to an existing tensor (forwarding an input, a reshaped view, ...).
  virtual void setOutput(int i, Tensor tensor) = 0;
  // Output `output` in input `input`'s buffer when nothing else can read that
  // buffer any more (this node is its last reader; it is not fetched, fed or
  // a constant) and dtype and size match, else a new allocation, as
  // TensorFlow's forward_input_or_allocate_output. A kernel that calls this
  // must be correct when the output and the input share their bytes.
  virtual Tensor* forwardInputOrAllocateOutput(int input, int output, DataType dtype, const Shape& shape) {
    (void)input;
    return allocateOutput(output, dtype, shape);
  }
  virtual const ThreadPool& pool() const = 0;
  // Per-run state shared by stateful kernels (TensorArray, random generators).
  virtual std::int64_t step() const = 0;
  // "node 'name' (Op): message"
  Status error(const std::string& message) const;
  // True when the reference (plain loop) kernels were requested for this plan.
  virtual bool referenceKernels() const { return false; }
};

class OpKernel {
 public:
  virtual ~OpKernel() = default;
  virtual Status init(const KernelInit& init) { (void)init; return Status::Ok(); }
  virtual Status compute(KernelContext& ctx) = 0;
  // Number of outputs for this node (most ops: 1). Called after init.
  virtual int numOutputs(const KernelInit& init) const { (void)init; return 1; }
  // Estimated floating-point operations for given input shapes (0 if not meaningful).
  virtual double flops(const std::vector<Shape>& inputs, const std::vector<Shape>& outputs) const {
    (void)inputs; (void)outputs; return 0;
  }
  // Output dtypes (called after init). Empty: the plan derives them from the
  // op's output args in the op metadata and the node's attrs
  // (model::outputDtypes).
  virtual std::vector<DataType> outputTypes(const KernelInit& init) const { (void)init; return {}; }
  // Statically known output shapes (called after init; dims may be -1).
  // Return false when nothing is known; shapes->size() must equal numOutputs.
  virtual bool inferShapes(const KernelInit& init, std::vector<Shape>* shapes) const {
    (void)init; (void)shapes; return false;
  }
};

using KernelFactory = std::function<std::unique_ptr<OpKernel>()>;

class KernelRegistry {
 public:
  // dtype DT_INVALID: any dtype (the kernel checks in init).
  void add(const std::string& op, KernelFactory factory, DataType dtype = tensorflow::DT_INVALID);
  // Looks up by op and the node's "T"/"dtype" attr; nullptr when absent.
  const KernelFactory* find(const std::string& op, DataType dtype) const;
  bool hasOp(const std::string& op) const;
  std::vector<std::string> ops() const;
  // The dtypes registered for op (DT_INVALID means "any").
  std::vector<DataType> dtypes(const std::string& op) const;

 private:
  std::map<std::string, std::map<int, KernelFactory>> kernels_;
};

}  // namespace gds::engine
