// Functional control flow lowered as TensorFlow's lower_if_op.cc,
// lower_while_op.cc and lower_case_op.cc do: If/StatelessIf to Switch/Merge
// around two branch calls, While/StatelessWhile to Enter/Merge/Switch/
// LoopCond/NextIteration/Exit, Case/StatelessCase to _SwitchN/Merge.
#include <string>
#include <vector>

#include "model/attr.h"
#include "model/functions_impl.h"
#include "model/tensor.h"

namespace gds::model::functions_impl {
namespace {

// Shared by the three lowerings: reads the node's inputs and a type list attr.
struct LoweringInputs {
  std::vector<std::string> data;
  std::vector<std::string> control;
};
LoweringInputs splitInputs(const NodeDef& n) {
  LoweringInputs r;
  for (const auto& in : n.input()) {
    if (!in.empty() && in[0] == '^') r.control.push_back(in.substr(1));
    else r.data.push_back(canonical(in));
  }
  return r;
}
Result<std::vector<DataType>> typeList(const NodeDef& n, const std::string& attr, size_t expected) {
  const AttrValue* v = findAttr(n, attr);
  if (!v) return Status::Error("node '" + n.name() + "' (" + n.op() + ") has no attr '" + attr + "'");
  std::vector<DataType> types;
  for (int t : v->list().type()) types.push_back(static_cast<DataType>(t));
  if (expected != static_cast<size_t>(-1) && types.size() != expected)
    return Status::Error("node '" + n.name() + "' (" + n.op() + "): attr '" + attr + "' lists " +
                         std::to_string(types.size()) + " types for " + std::to_string(expected) + " tensors");
  return types;
}
Result<tensorflow::NameAttrList> funcAttr(const NodeDef& n, const std::string& attr) {
  const AttrValue* v = findAttr(n, attr);
  if (!v || v->value_case() != AttrValue::kFunc)
    return Status::Error("node '" + n.name() + "' (" + n.op() + ") has no function attr '" + attr + "'");
  return v->func();
}

// What a While node loops over: its variables' types, its functions (both
// in the library), parallel_iterations, and its first variable that is not a
// resource (the body's control hangs on it).
struct WhileLoop {
  std::vector<DataType> types;
  tensorflow::NameAttrList cond, body;
  std::int64_t parallel = 10;
  size_t first_value = 0;
  bool isResource(size_t k) const { return types[k] == tensorflow::DT_RESOURCE; }
};

Result<WhileLoop> whileLoop(const NodeDef& n, size_t count, const FunctionLibrary& lib) {
  const std::string where = "node '" + n.name() + "' (" + n.op() + ")";
  WhileLoop w;
  auto types = typeList(n, "T", count);
  if (!types.ok()) return types.status();
  w.types = std::move(*types);
  auto cond_fn = funcAttr(n, "cond");
  if (!cond_fn.ok()) return cond_fn.status();
  auto body_fn = funcAttr(n, "body");
  if (!body_fn.ok()) return body_fn.status();
  for (const auto* f : {&*cond_fn, &*body_fn})
    if (!lib.find(f->name()))
      return Status::Error(where + " calls function '" + f->name() + "', which is not in the function library");
  w.cond = std::move(*cond_fn);
  w.body = std::move(*body_fn);
  if (const AttrValue* pi = findAttr(n, "parallel_iterations")) w.parallel = pi->i();
  if (w.parallel < 1)
    return Status::Error(where + ": parallel_iterations must be > 0, got " + std::to_string(w.parallel));
  w.first_value = count;
  for (size_t k = 0; k < count && w.first_value == count; ++k)
    if (!w.isResource(k)) w.first_value = k;
  if (w.first_value == count) return Status::Error(where + " has no loop variable that is not a resource");
  return w;
}

}  // namespace

Status Inliner::lowerIf(int i) {
  NodeDef n = nodes_[static_cast<size_t>(i)];
  const int chain = chain_[static_cast<size_t>(i)];
  LoweringInputs in = splitInputs(n);
  if (in.data.empty()) return Status::Error("node '" + n.name() + "' (" + n.op() + ") has no condition input");
  if (const AttrValue* tcond = findAttr(n, "Tcond"); tcond && tcond->type() != tensorflow::DT_BOOL)
    return Status::Error("node '" + n.name() + "' (" + n.op() + "): its condition is " + dtypeName(tcond->type()) +
                         "; only bool conditions can be lowered to Switch/Merge");
  auto tin = typeList(n, "Tin", in.data.size() - 1);
  if (!tin.ok()) return tin.status();
  auto tout = typeList(n, "Tout", static_cast<size_t>(-1));
  if (!tout.ok()) return tout.status();
  auto then_fn = funcAttr(n, "then_branch");
  if (!then_fn.ok()) return then_fn.status();
  auto else_fn = funcAttr(n, "else_branch");
  if (!else_fn.ok()) return else_fn.status();
  GDS_RETURN_IF_ERROR(budget(static_cast<std::int64_t>(in.data.size() + tout->size()) + 8, "lowering node '" + n.name() + "'"));
  const std::string cond = in.data[0];
  const std::string p = n.name() + "/";
  auto boolAttr = [](NodeDef* x, DataType t) { (*x->mutable_attr())["T"].set_type(t); };

  NodeDef sw = makeNode(uniqueName(p + "switch_pred"), "Switch");
  sw.add_input(cond);
  sw.add_input(cond);
  for (const auto& c : in.control) sw.add_input("^" + c);
  boolAttr(&sw, tensorflow::DT_BOOL);
  std::string switch_pred = sw.name();
  add(std::move(sw), chain);
  std::string pivot[2];
  for (int b = 0; b < 2; ++b) {
    NodeDef piv = makeNode(uniqueName(p + (b ? "pivot_t" : "pivot_f")), "Identity");
    piv.add_input(tensorName(switch_pred, b));
    boolAttr(&piv, tensorflow::DT_BOOL);
    pivot[b] = piv.name();
    add(std::move(piv), chain);
  }
  const int new_chain = static_cast<int>(chains_.size());
  chains_.push_back({"", n.name(), chain});
  NodeDef call[2] = {makeNode("", else_fn->name()), makeNode("", then_fn->name())};
  for (size_t a = 1; a < in.data.size(); ++a) {
    NodeDef s = makeNode(uniqueName(p + "switch_" + std::to_string(a - 1)), "Switch");
    s.add_input(in.data[a]);
    s.add_input(cond);
    boolAttr(&s, (*tin)[a - 1]);
    call[0].add_input(tensorName(s.name(), 0));
    call[1].add_input(tensorName(s.name(), 1));
    add(std::move(s), chain);
  }
  const tensorflow::NameAttrList* fns[2] = {&*else_fn, &*then_fn};
  std::string call_name[2];
  for (int b = 1; b >= 0; --b) {
    call[b].set_name(uniqueName(p + (b ? "then" : "else")));
    call[b].add_input("^" + pivot[b]);
    *call[b].mutable_attr() = fns[b]->attr();
    (*call[b].mutable_attr())[kMultiDeviceAttr].set_b(true);
    call_name[b] = call[b].name();
    if (!lib_.find(fns[b]->name()))
      return Status::Error("node '" + n.name() + "' (" + n.op() + ") branch calls function '" + fns[b]->name() +
                           "', which is not in the function library");
    add(std::move(call[b]), new_chain);
  }
  Replaced r;
  for (size_t j = 0; j < tout->size(); ++j) {
    NodeDef m = makeNode(uniqueName(p + "output_" + std::to_string(j)), "Merge");
    m.add_input(tensorName(call_name[1], static_cast<int>(j)));
    m.add_input(tensorName(call_name[0], static_cast<int>(j)));
    boolAttr(&m, (*tout)[j]);
    (*m.mutable_attr())["N"].set_i(2);
    r.outputs_to.push_back(m.name());
    add(std::move(m), chain);
  }
  NodeDef executed = makeNode(uniqueName(p + "branch_executed"), "Merge");
  executed.add_input(pivot[1]);
  executed.add_input(pivot[0]);
  executed.add_input("^" + call_name[1]);
  executed.add_input("^" + call_name[0]);
  boolAttr(&executed, tensorflow::DT_BOOL);
  (*executed.mutable_attr())["N"].set_i(2);
  r.control_node = executed.name();
  add(std::move(executed), chain);
  r.outputs = static_cast<int>(tout->size());
  result_.inlined.push_back({n.name(), n.op(), "", "", parentNode(chain)});
  return finishReplacement(i, std::move(r), *tout);
}

Status Inliner::lowerWhile(int i) {
  NodeDef n = nodes_[static_cast<size_t>(i)];
  const int chain = chain_[static_cast<size_t>(i)];
  LoweringInputs in = splitInputs(n);
  const size_t count = in.data.size();
  auto loop = whileLoop(n, count, lib_);
  if (!loop.ok()) return loop.status();
  const std::vector<DataType>* types = &loop->types;
  const tensorflow::NameAttrList* cond_fn = &loop->cond;
  const tensorflow::NameAttrList* body_fn = &loop->body;
  const std::int64_t parallel = loop->parallel;
  const size_t first_value = loop->first_value;
  auto isResource = [&](size_t k) { return loop->isResource(k); };
  GDS_RETURN_IF_ERROR(budget(static_cast<std::int64_t>(count) * 5 + 8, "lowering node '" + n.name() + "'"));
  const std::string p = n.name() + "/";
  auto setT = [](NodeDef* x, DataType t) { (*x->mutable_attr())["T"].set_type(t); };

  std::string control_inputs;
  if (!in.control.empty()) {
    NodeDef c = makeNode(uniqueName(p + "LoopControlInputs"), "NoOp");
    for (const auto& s : in.control) c.add_input("^" + s);
    control_inputs = c.name();
    add(std::move(c), chain);
  }
  std::vector<std::string> enter(count), merge(count), sw(count), exit_(count);
  for (size_t k = 0; k < count; ++k) {
    NodeDef e = makeNode(uniqueName(p + "enter_" + std::to_string(k)), "Enter");
    e.add_input(in.data[k]);
    if (!control_inputs.empty()) e.add_input("^" + control_inputs);
    setT(&e, (*types)[k]);
    (*e.mutable_attr())["frame_name"].set_s(n.name());
    (*e.mutable_attr())["parallel_iterations"].set_i(parallel);
    (*e.mutable_attr())["is_constant"].set_b(isResource(k));
    enter[k] = e.name();
    add(std::move(e), chain);
  }
  // Merge inputs: Enter, then NextIteration (named now, added below).
  std::vector<std::string> next(count);
  for (size_t k = 0; k < count; ++k) {
    if (isResource(k)) continue;
    next[k] = uniqueName(p + "next_iteration_" + std::to_string(k));
    NodeDef m = makeNode(uniqueName(p + "merge_" + std::to_string(k)), "Merge");
    m.add_input(enter[k]);
    m.add_input(next[k]);
    setT(&m, (*types)[k]);
    (*m.mutable_attr())["N"].set_i(2);
    merge[k] = m.name();
    add(std::move(m), chain);
    index_[next[k]] = -1;  // reserve the name
  }
  const int new_chain = static_cast<int>(chains_.size());
  chains_.push_back({"", n.name(), chain});
  NodeDef cond = makeNode(uniqueName(p + "cond"), cond_fn->name());
  for (size_t k = 0; k < count; ++k) cond.add_input(isResource(k) ? enter[k] : merge[k]);
  cond.add_input("^" + merge[first_value]);
  *cond.mutable_attr() = cond_fn->attr();
  (*cond.mutable_attr())[kMultiDeviceAttr].set_b(true);
  std::string cond_name = cond.name();
  add(std::move(cond), new_chain);
  NodeDef loop_cond = makeNode(uniqueName(p + "LoopCond"), "LoopCond");
  loop_cond.add_input(cond_name);
  std::string loop_cond_name = loop_cond.name();
  add(std::move(loop_cond), chain);
  for (size_t k = 0; k < count; ++k) {
    if (isResource(k)) continue;
    NodeDef s = makeNode(uniqueName(p + "switch_" + std::to_string(k)), "Switch");
    s.add_input(merge[k]);
    s.add_input(loop_cond_name);
    setT(&s, (*types)[k]);
    sw[k] = s.name();
    add(std::move(s), chain);
  }
  NodeDef body_control = makeNode(uniqueName(p + "loop_body_control"), "Identity");
  body_control.add_input(tensorName(sw[first_value], 1));
  setT(&body_control, (*types)[first_value]);
  std::string body_control_name = body_control.name();
  add(std::move(body_control), chain);
  NodeDef body = makeNode(uniqueName(p + "body"), body_fn->name());
  for (size_t k = 0; k < count; ++k) body.add_input(isResource(k) ? enter[k] : tensorName(sw[k], 1));
  body.add_input("^" + body_control_name);
  *body.mutable_attr() = body_fn->attr();
  (*body.mutable_attr())[kMultiDeviceAttr].set_b(true);
  std::string body_name = body.name();
  add(std::move(body), new_chain);
  Replaced r;
  NodeDef executed = makeNode(uniqueName(p + "LoopExecuted"), "NoOp");
  for (size_t k = 0; k < count; ++k) {
    if (isResource(k)) {
      // A resource output is the resource that went in (never read in practice).
      r.outputs_to.push_back(in.data[k]);
      continue;
    }
    NodeDef x = makeNode(uniqueName(p + "exit_" + std::to_string(k)), "Exit");
    x.add_input(sw[k]);
    setT(&x, (*types)[k]);
    exit_[k] = x.name();
    executed.add_input("^" + x.name());
    r.outputs_to.push_back(x.name());
    add(std::move(x), chain);
    index_.erase(next[k]);
    NodeDef ni = makeNode(next[k], "NextIteration");
    ni.add_input(tensorName(body_name, static_cast<int>(k)));
    ni.add_input("^" + body_name);
    setT(&ni, (*types)[k]);
    add(std::move(ni), chain);
  }
  r.control_node = executed.name();
  add(std::move(executed), chain);
  r.outputs = static_cast<int>(count);
  result_.inlined.push_back({n.name(), n.op(), "", "", parentNode(chain)});
  return finishReplacement(i, std::move(r), *types);
}

Status Inliner::lowerCase(int i) {
  NodeDef n = nodes_[static_cast<size_t>(i)];
  const int chain = chain_[static_cast<size_t>(i)];
  LoweringInputs in = splitInputs(n);
  if (in.data.empty()) return Status::Error("node '" + n.name() + "' (" + n.op() + ") has no branch_index input");
  auto tin = typeList(n, "Tin", in.data.size() - 1);
  if (!tin.ok()) return tin.status();
  auto tout = typeList(n, "Tout", static_cast<size_t>(-1));
  if (!tout.ok()) return tout.status();
  const AttrValue* branches = findAttr(n, "branches");
  if (!branches || branches->list().func_size() == 0)
    return Status::Error("node '" + n.name() + "' (" + n.op() + ") has no branch functions (attr 'branches')");
  const int nb = branches->list().func_size();
  for (const auto& f : branches->list().func())
    if (!lib_.find(f.name()))
      return Status::Error("node '" + n.name() + "' (" + n.op() + ") calls function '" + f.name() +
                           "', which is not in the function library");
  GDS_RETURN_IF_ERROR(budget(static_cast<std::int64_t>(in.data.size() + tout->size() + 2 * static_cast<size_t>(nb)) + 4,
                             "lowering node '" + n.name() + "'"));
  const std::string p = n.name() + "/";
  const std::string index = in.data[0];
  auto switchN = [&](const std::string& name, const std::string& data, DataType t) {
    NodeDef s = makeNode(uniqueName(name), "_SwitchN");
    s.add_input(data);
    s.add_input(index);
    (*s.mutable_attr())["T"].set_type(t);
    (*s.mutable_attr())["num_outs"].set_i(nb);
    return s;
  };
  NodeDef bi = switchN(p + "branch_index", index, tensorflow::DT_INT32);
  for (const auto& c : in.control) bi.add_input("^" + c);
  std::string branch_index = bi.name();
  add(std::move(bi), chain);
  std::vector<std::string> pivots;
  for (int b = 0; b < nb; ++b) {
    NodeDef piv = makeNode(uniqueName(p + "pivot_" + std::to_string(b)), "Identity");
    piv.add_input(tensorName(branch_index, b));
    (*piv.mutable_attr())["T"].set_type(tensorflow::DT_INT32);
    pivots.push_back(piv.name());
    add(std::move(piv), chain);
  }
  std::vector<NodeDef> calls(static_cast<size_t>(nb));
  for (size_t a = 1; a < in.data.size(); ++a) {
    NodeDef s = switchN(p + "switch_" + std::to_string(a - 1), in.data[a], (*tin)[a - 1]);
    for (int b = 0; b < nb; ++b) calls[static_cast<size_t>(b)].add_input(tensorName(s.name(), b));
    add(std::move(s), chain);
  }
  const int new_chain = static_cast<int>(chains_.size());
  chains_.push_back({"", n.name(), chain});
  std::vector<std::string> call_names;
  for (int b = 0; b < nb; ++b) {
    NodeDef& c = calls[static_cast<size_t>(b)];
    const auto& fn = branches->list().func(b);
    c.set_name(uniqueName(p + "branch" + std::to_string(b)));
    c.set_op(fn.name());
    c.add_input("^" + pivots[static_cast<size_t>(b)]);
    *c.mutable_attr() = fn.attr();
    (*c.mutable_attr())[kMultiDeviceAttr].set_b(true);
    call_names.push_back(c.name());
    add(std::move(c), new_chain);
  }
  Replaced r;
  for (size_t j = 0; j < tout->size(); ++j) {
    NodeDef m = makeNode(uniqueName(p + "merge_" + std::to_string(j)), "Merge");
    for (const auto& c : call_names) m.add_input(tensorName(c, static_cast<int>(j)));
    (*m.mutable_attr())["T"].set_type((*tout)[j]);
    (*m.mutable_attr())["N"].set_i(nb);
    r.outputs_to.push_back(m.name());
    add(std::move(m), chain);
  }
  NodeDef executed = makeNode(uniqueName(p + "branch_executed"), "Merge");
  for (const auto& piv : pivots) executed.add_input(piv);
  for (const auto& c : call_names) executed.add_input("^" + c);
  (*executed.mutable_attr())["T"].set_type(tensorflow::DT_INT32);
  (*executed.mutable_attr())["N"].set_i(nb);
  r.control_node = executed.name();
  add(std::move(executed), chain);
  r.outputs = static_cast<int>(tout->size());
  result_.inlined.push_back({n.name(), n.op(), "", "", parentNode(chain)});
  return finishReplacement(i, std::move(r), *tout);
}

}  // namespace gds::model::functions_impl
