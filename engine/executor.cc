// The dataflow executor of a compiled Plan. Control flow follows
// TensorFlow's executor (tensorflow/core/common_runtime/executor.cc,
// propagator_state.cc): every node runs in a frame instance and iteration;
// Enter moves values into a child frame (constant Enters into every
// iteration), Exit back to the parent, NextIteration to the next iteration;
// a node with a dead input produces dead outputs without running, Merge
// fires on its first live input (or dead when all data inputs are dead), and
// a dead NextIteration stops the loop.
#include <chrono>
#include <map>
#include <new>
#include <set>

#include "engine/allocation.h"
#include "engine/plan_impl.h"

namespace gds::engine {
namespace {

// A kernel reading an input or writing an output its node does not have (a
// malformed node the compile-time checks did not catch): this node's error,
// never a read past the slots.
class PortOutOfRange : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Clock = std::chrono::steady_clock;

struct Entry {
  Tensor tensor;
  bool dead = false;
};

struct IterState {
  std::vector<int> pending;
  std::vector<int> dead_count;
  std::vector<std::uint8_t> flags;  // kAnyDead, kMergeLive, kFired
  std::vector<int> merge_index;
  std::vector<Tensor> slots;
};
constexpr std::uint8_t kAnyDead = 1, kMergeLive = 2, kFired = 4;

struct FrameInst {
  int frame = 0;
  FrameInst* parent = nullptr;
  std::int64_t parent_iter = 0;
  std::vector<std::unique_ptr<IterState>> iters;
  std::vector<std::pair<int, Entry>> constants;  // constant Enter values
  std::map<std::pair<std::int64_t, int>, std::unique_ptr<FrameInst>> children;
  std::vector<int> dead_exits;
  std::set<int> live_exits;
  bool dead_exits_flushed = false;
};

struct Ready {
  FrameInst* frame;
  std::int64_t iter;
  int node;
};

class ContextImpl : public KernelContext {
 public:
  ContextImpl(const PlanNode& node, const ThreadPool& pool, BufferPool& buffers, std::int64_t step, bool reference)
      : node_(node), pool_(pool), buffers_(buffers), step_(step), reference_(reference) {}
  const tensorflow::NodeDef& node() const override { return *node_.def; }
  int numInputs() const override { return static_cast<int>(inputs.size()); }
  const Tensor& input(int i) const override { return *inputs[checkPort(i, inputs.size(), "input")]; }
  int numOutputs() const override { return static_cast<int>(outputs.size()); }
  // Every kernel's outputs are sized here: the one place where sizes that
  // come from tensor values are checked against the memory budget (the
  // throw ends this node's compute; Executor::process reports it).
  Tensor* allocateOutput(int i, DataType dtype, const Shape& shape) override {
    Tensor& out = outputs[checkPort(i, outputs.size(), "output")];
    if (Status s = checkOutputAllocation(i, dtype, shape); !s.ok())
      throw AllocationRefused(error(s.message()).message());
    std::int64_t n = model::numElements(shape);
    std::size_t esize = model::dtypeSize(dtype);
    if (esize == 0) {
      out = Tensor(dtype, shape);
    } else {
      out = Tensor::fromStorage(dtype, shape, buffers_.get(static_cast<std::size_t>(n) * esize));
    }
    return &out;
  }
  void setOutput(int i, Tensor tensor) override { outputs[checkPort(i, outputs.size(), "output")] = std::move(tensor); }
  // Each consumer's input slot holds its own reference, as do fetched
  // results, feeds and constants: a slot that is the buffer's sole owner is
  // this node's to reuse.
  Tensor* forwardInputOrAllocateOutput(int input, int output, DataType dtype, const Shape& shape) override {
    Tensor* in = inputs[checkPort(input, inputs.size(), "input")];
    if (in->dtype() == dtype && in->soleOwner() && in->numElements() == model::numElements(shape)) {
      Tensor& out = outputs[static_cast<size_t>(output)];
      out = in->reshaped(shape);
      return &out;
    }
    return allocateOutput(output, dtype, shape);
  }
  const ThreadPool& pool() const override { return pool_; }
  std::int64_t step() const override { return step_; }
  bool referenceKernels() const override { return reference_; }

  std::vector<Tensor*> inputs;
  std::vector<Tensor> outputs;

 private:
  static std::size_t checkPort(int i, std::size_t count, const char* what) {
    if (i < 0 || static_cast<std::size_t>(i) >= count)
      throw PortOutOfRange(std::string("the kernel asked for ") + what + " " + std::to_string(i) + ", but the node has " +
                           std::to_string(count) + " " + what + (count == 1 ? "" : "s"));
    return static_cast<std::size_t>(i);
  }
  const PlanNode& node_;
  const ThreadPool& pool_;
  BufferPool& buffers_;
  std::int64_t step_;
  bool reference_;
};

class Executor {
 public:
  Executor(Plan::Impl& im, const std::vector<PlanNodeInfo>& infos, const ThreadPool& pool, std::int64_t step,
           RunProfile* profile)
      : im_(im), infos_(infos), pool_(pool), step_(step), profile_(profile) {}

  Status run(const std::vector<Tensor>& feeds, std::vector<Tensor>* results) {
    feeds_ = &feeds;
    results_ = results;
    results->assign(im_.fetches.size(), Tensor());
    fetched_.assign(im_.fetches.size(), 0);
    start_ = Clock::now();
    root_.frame = 0;
    newIteration(&root_);
    // Sources of the root frame.
    const StaticFrame& rf = im_.frames[0];
    for (size_t l = rf.nodes.size(); l-- > 0;)
      if (rf.initial_pending[l] == 0 && im_.nodes[static_cast<size_t>(rf.nodes[l])].kind != NodeKind::Merge)
        ready_.push_back({&root_, 0, rf.nodes[l]});
    for (;;) {
      while (!ready_.empty()) {
        if (im_.cancelled && im_.cancelled()) return Status::Error("cancelled");
        Ready r = ready_.back();
        ready_.pop_back();
        GDS_RETURN_IF_ERROR(process(r));
      }
      if (!flushDeadExits(&root_)) break;
    }
    for (size_t j = 0; j < im_.fetches.size(); ++j) {
      if (im_.fetches[j].second < 0) continue;
      const std::string& name = infos_[static_cast<size_t>(im_.fetches[j].first)].name;
      if (fetched_[j] == 2)
        return Status::Error("fetch '" + name + "' is dead: it lies on a branch of a Switch that was not taken");
      if (fetched_[j] == 0)
        return Status::Error("fetch '" + name + "' was not computed (a while loop did not finish or an input "
                             "never arrived)");
    }
    return Status::Ok();
  }

 private:
  IterState* newIteration(FrameInst* f) {
    const StaticFrame& sf = im_.frames[static_cast<size_t>(f->frame)];
    auto it = std::make_unique<IterState>();
    it->pending = sf.initial_pending;
    it->dead_count.assign(sf.nodes.size(), 0);
    it->flags.assign(sf.nodes.size(), 0);
    it->merge_index.assign(sf.nodes.size(), -1);
    it->slots.resize(static_cast<size_t>(sf.num_slots));
    f->iters.push_back(std::move(it));
    std::int64_t iter = static_cast<std::int64_t>(f->iters.size()) - 1;
    IterState* state = f->iters.back().get();
    // Nodes of the frame without inputs from inside it (only possible for
    // the root frame) start right away; constant Enter values reach every
    // iteration.
    if (iter > 0)
      for (auto& [enter, entry] : f->constants) deliverOutputs(enter, f, iter, entry, 0, true);
    return state;
  }

  IterState* iteration(FrameInst* f, std::int64_t iter) {
    while (static_cast<std::int64_t>(f->iters.size()) <= iter) newIteration(f);
    return f->iters[static_cast<size_t>(iter)].get();
  }

  FrameInst* child(FrameInst* f, std::int64_t iter, int static_frame) {
    auto key = std::make_pair(iter, static_frame);
    auto it = f->children.find(key);
    if (it != f->children.end()) return it->second.get();
    auto c = std::make_unique<FrameInst>();
    c->frame = static_frame;
    c->parent = f;
    c->parent_iter = iter;
    FrameInst* raw = c.get();
    f->children.emplace(key, std::move(c));
    all_frames_.push_back(raw);
    iteration(raw, 0);
    return raw;
  }

  // Delivers one input (data slot or control) to node dst in (f, iter).
  void deliver(FrameInst* f, std::int64_t iter, int dst, int slot, const Tensor* value, bool dead) {
    const PlanNode& n = im_.nodes[static_cast<size_t>(dst)];
    IterState* st = iteration(f, iter);
    size_t l = static_cast<size_t>(n.local);
    if (n.kind == NodeKind::Merge) {
      if (slot < 0) {
        if (dead) st->flags[l] |= kAnyDead;
        if (--st->pending[l] == 0) maybeFireMerge(f, iter, dst, st);
        return;
      }
      if (!dead) {
        if (st->flags[l] & (kMergeLive | kFired)) return;  // first live input wins
        st->flags[l] |= kMergeLive;
        st->merge_index[l] = slot;
        st->slots[static_cast<size_t>(n.slot_base + slot)] = *value;
      } else {
        ++st->dead_count[l];
      }
      if (st->pending[l] == 0) maybeFireMerge(f, iter, dst, st);
      return;
    }
    if (dead) st->flags[l] |= kAnyDead;
    else if (slot >= 0) st->slots[static_cast<size_t>(n.slot_base + slot)] = *value;
    if (--st->pending[l] == 0) ready_.push_back({f, iter, dst});
  }

  void maybeFireMerge(FrameInst* f, std::int64_t iter, int dst, IterState* st) {
    const PlanNode& n = im_.nodes[static_cast<size_t>(dst)];
    size_t l = static_cast<size_t>(n.local);
    if (st->flags[l] & kFired) return;
    if ((st->flags[l] & kMergeLive) || st->dead_count[l] == n.num_data) {
      st->flags[l] |= kFired;
      ready_.push_back({f, iter, dst});
    }
  }

  // Sends output `port` of node src (run in frame f, iteration iter) to its
  // consumers; `only_data` skips control edges (used when re-sending
  // constant Enter values to a new iteration).
  void deliverOutputs(int src, FrameInst* f, std::int64_t iter, const Entry& e, int port, bool only_data,
                      bool node_dead = false) {
    const PlanNode& n = im_.nodes[static_cast<size_t>(src)];
    FrameInst* tf = f;
    std::int64_t ti = iter;
    if (n.kind == NodeKind::Enter) {
      if (only_data) {
        ti = iter;  // f is already the child frame
      } else {
        tf = child(f, iter, n.child_frame);
        ti = 0;
      }
    } else if (n.kind == NodeKind::Exit) {
      tf = f->parent;
      ti = f->parent_iter;
    } else if (n.kind == NodeKind::NextIteration) {
      ti = iter + 1;
    }
    const auto& outs = n.outs[static_cast<size_t>(port)];
    for (size_t k = 0; k < outs.size(); ++k) deliver(tf, ti, outs[k].dst, outs[k].slot, &e.tensor, e.dead);
    if (!only_data && port == 0)
      for (const OutEdge& c : n.control_outs) deliver(tf, ti, c.dst, -1, nullptr, node_dead);
  }

  void propagate(int src, FrameInst* f, std::int64_t iter, std::vector<Entry>& outputs, bool node_dead) {
    const PlanNode& n = im_.nodes[static_cast<size_t>(src)];
    if (n.kind == NodeKind::NextIteration && outputs[0].dead) return;  // the loop ends here
    if (n.kind == NodeKind::Exit) {
      if (outputs[0].dead) {
        f->dead_exits.push_back(src);
        return;
      }
      f->live_exits.insert(src);
    }
    FrameInst* out_frame = n.kind == NodeKind::Exit ? f->parent : (n.kind == NodeKind::Enter ? nullptr : f);
    if (out_frame == &root_) {
      for (size_t p = 0; p < outputs.size(); ++p)
        for (int j : n.fetch_slots[p]) {
          fetched_[static_cast<size_t>(j)] = outputs[p].dead ? 2 : 1;
          if (!outputs[p].dead) (*results_)[static_cast<size_t>(j)] = outputs[p].tensor;
        }
    }
    if (n.kind == NodeKind::Enter) {
      FrameInst* c = child(f, iter, n.child_frame);
      if (n.is_constant) {
        c->constants.push_back({src, outputs[0]});
        for (std::int64_t k = 1; k < static_cast<std::int64_t>(c->iters.size()); ++k)
          deliverOutputs(src, c, k, outputs[0], 0, true);
      }
    }
    bool any_control = !n.control_outs.empty();
    for (size_t p = 0; p < outputs.size(); ++p) {
      if (n.outs[p].empty() && !(p == 0 && any_control)) continue;
      deliverOutputs(src, f, iter, outputs[p], static_cast<int>(p), false, node_dead);
    }
  }

  // When everything has stopped, Exits of frames that only ever saw dead
  // values pass deadness to the parent frame (TensorFlow's dead_exits).
  bool flushDeadExits(FrameInst* root) {
    (void)root;
    bool any = false;
    for (FrameInst* f : all_frames_) {
      if (f->dead_exits_flushed) continue;
      f->dead_exits_flushed = true;
      std::set<int> done;
      for (int x : f->dead_exits) {
        if (f->live_exits.count(x) || !done.insert(x).second) continue;
        Entry dead{Tensor(), true};
        deliverOutputs(x, f, 0, dead, 0, false, true);
        any = true;
      }
    }
    return any;
  }

  Status process(const Ready& r) {
    const PlanNode& n = im_.nodes[static_cast<size_t>(r.node)];
    IterState* st = r.frame->iters[static_cast<size_t>(r.iter)].get();
    size_t l = static_cast<size_t>(n.local);
    std::vector<Entry> outputs(static_cast<size_t>(n.num_outputs));
    Tensor* slots = st->slots.data() + n.slot_base;
    bool dead = (st->flags[l] & kAnyDead) != 0;
    Clock::time_point t0;
    if (profile_) t0 = Clock::now();

    switch (n.kind) {
      case NodeKind::Feed:
        outputs[0].tensor = (*feeds_)[static_cast<size_t>(n.feed_index)];
        break;
      case NodeKind::Const:
        if (dead) outputs[0].dead = true;
        else outputs[0].tensor = n.value;
        break;
      case NodeKind::Enter: case NodeKind::Exit: case NodeKind::NextIteration: case NodeKind::LoopCond:
        outputs[0].dead = dead;
        if (!dead) outputs[0].tensor = std::move(slots[0]);
        break;
      case NodeKind::Switch: {
        if (dead) {
          outputs[0].dead = outputs[1].dead = true;
          slots[0] = Tensor();
          slots[1] = Tensor();
          break;
        }
        const Tensor& pred = slots[1];
        if (pred.dtype() != tensorflow::DT_BOOL || pred.numElements() != 1)
          return Status::Error(nodeLabel(*n.def) + ": pred must be a bool scalar, got " + pred.debugString(2));
        int taken = pred.data<bool>()[0] ? 1 : 0;
        outputs[static_cast<size_t>(taken)].tensor = std::move(slots[0]);
        outputs[static_cast<size_t>(1 - taken)].dead = true;
        slots[1] = Tensor();
        break;
      }
      case NodeKind::Merge: {
        bool live = (st->flags[l] & kMergeLive) != 0 && !(st->flags[l] & kAnyDead);
        if (!live) {
          outputs[0].dead = outputs[1].dead = true;
          break;
        }
        int k = st->merge_index[l];
        outputs[0].tensor = std::move(slots[k]);
        outputs[1].tensor = Tensor::scalar<std::int32_t>(tensorflow::DT_INT32, k);
        for (int s = 0; s < n.num_data; ++s) slots[s] = Tensor();
        break;
      }
      case NodeKind::Kernel: {
        if (dead) {
          for (auto& o : outputs) o.dead = true;
          for (int s = 0; s < n.num_data; ++s) slots[s] = Tensor();
          break;
        }
        ContextImpl ctx(n, pool_, *im_.buffers, step_, im_.reference);
        ctx.inputs.resize(static_cast<size_t>(n.num_data));
        for (int s = 0; s < n.num_data; ++s) ctx.inputs[static_cast<size_t>(s)] = &slots[s];
        ctx.outputs.resize(static_cast<size_t>(n.num_outputs));
        Status s;
        try {
          s = n.kernel->compute(ctx);
        } catch (const AllocationRefused& e) {
          s = Status::Error(e.what());
        } catch (const PortOutOfRange& e) {
          s = Status::Error(e.what());
        } catch (const std::bad_alloc&) {
          s = Status::Error("out of memory: the machine could not allocate what this node needs (the memory "
                            "budget, GDS_MEMORY_BUDGET, is more than is free)");
        }
        if (!s.ok()) {
          if (s.message().rfind("node '", 0) == 0) return s;
          return Status::Error(nodeLabel(*n.def) + ": " + s.message());
        }
        if (profile_) recordShapes(r.node, ctx);
        for (int k = 0; k < n.num_data; ++k) slots[k] = Tensor();
        for (size_t p = 0; p < outputs.size(); ++p) {
          if (!ctx.outputs[p].valid() && (!n.outs[p].empty() || !n.fetch_slots[p].empty()))
            return Status::Error(nodeLabel(*n.def) + ": kernel did not produce output " + std::to_string(p));
          outputs[p].tensor = std::move(ctx.outputs[p]);
        }
        break;
      }
    }
    if (profile_) {
      auto t1 = Clock::now();
      NodeRunStats& ns = profile_->nodes[static_cast<size_t>(r.node)];
      // A node visited only to pass deadness on did no work: not a call.
      const bool did_work = !dead && n.kind != NodeKind::Feed;
      if (did_work && ns.calls == 0)
        ns.start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t0 - start_).count();
      if (did_work) ++ns.calls;
      ns.duration_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
      std::int64_t bytes = 0;
      for (const auto& o : outputs)
        if (!o.dead) bytes += static_cast<std::int64_t>(o.tensor.bytes());
      ns.output_bytes = bytes;
      if (n.kind != NodeKind::Kernel) {
        ns.output_shapes.resize(outputs.size());
        for (size_t i = 0; i < outputs.size(); ++i) ns.output_shapes[i] = outputs[i].tensor.shape();
      }
    }
    // A Switch is dead only when its inputs are; its untaken output is dead
    // but control edges from it still carry a live signal.
    bool node_dead = n.kind == NodeKind::Switch ? dead : outputs[0].dead;
    propagate(r.node, r.frame, r.iter, outputs, node_dead);
    return Status::Ok();
  }

  void recordShapes(int node, const ContextImpl& ctx) {
    NodeRunStats& ns = profile_->nodes[static_cast<size_t>(node)];
    ns.input_shapes.resize(ctx.inputs.size());
    for (size_t i = 0; i < ctx.inputs.size(); ++i) ns.input_shapes[i] = ctx.inputs[i]->shape();
    ns.output_shapes.resize(ctx.outputs.size());
    for (size_t i = 0; i < ctx.outputs.size(); ++i) ns.output_shapes[i] = ctx.outputs[i].shape();
    ns.flops += im_.nodes[static_cast<size_t>(node)].kernel->flops(ns.input_shapes, ns.output_shapes);
  }

  Plan::Impl& im_;
  const std::vector<PlanNodeInfo>& infos_;
  const ThreadPool& pool_;
  std::int64_t step_;
  RunProfile* profile_;
  const std::vector<Tensor>* feeds_ = nullptr;
  std::vector<Tensor>* results_ = nullptr;
  std::vector<char> fetched_;
  Clock::time_point start_;
  FrameInst root_;
  std::vector<FrameInst*> all_frames_;
  std::vector<Ready> ready_;
};

}  // namespace

Status executePlan(Plan::Impl& im, const std::vector<PlanNodeInfo>& infos, const ThreadPool& pool,
                   std::int64_t step, RunProfile* profile, const std::vector<Tensor>& feeds,
                   std::vector<Tensor>* results) {
  Executor ex(im, infos, pool, step, profile);
  return ex.run(feeds, results);
}

}  // namespace gds::engine
