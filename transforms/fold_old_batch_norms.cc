// fold_old_batch_norms: a monolithic batch norm with Const mean, variance,
// beta and gamma after a convolution becomes scaled weights plus a BiasAdd
// (TensorFlow's fold_old_batch_norms.cc):
//   scale  = gamma / sqrt(variance + epsilon)  (gamma only with
//            scale_after_normalization, always for the fused ops)
//   offset = beta - mean * scale
// The weights keep their name, "<conv>_bn_offset" holds the offset and the
// BiasAdd takes the batch norm's name. Also folded, as TensorFlow does:
// BatchToSpaceND(Conv2D) (BiasAdd "<conv>/biasadd" before the
// BatchToSpaceND, which takes the batch norm's name) and ConcatV2 of two
// Conv2Ds ("<concat>_bn_in0/1"; the scale is split when the axis is the
// channel axis). Passes repeat until nothing changes.
//
// Beyond TensorFlow: FusedBatchNormV2/V3 as well as FusedBatchNorm and
// BatchNormWithGlobalNormalization; DepthwiseConv2dNative and MatMul as
// well as Conv2D; a BiasAdd between the convolution and the batch norm
// (Keras's Conv2D with use_bias and BatchNormalization, as in Keras's
// ResNet-50), whose bias b is folded too: offset = b * scale + offset, the
// BiasAdd keeping the batch norm's name. Batch norms in training mode, or
// whose extra outputs (batch mean/variance) are used, and convolutions,
// biases or weights used elsewhere are left alone instead of being folded
// wrongly.
#include "model/attr.h"
#include "model/conv_tail.h"
#include "transforms/builtin.h"
#include "transforms/conv_weights.h"
#include "transforms/transform_utils.h"

namespace gds::transforms {
namespace {

const char* kBatchNormOps = "BatchNormWithGlobalNormalization|FusedBatchNorm|FusedBatchNormV2|FusedBatchNormV3";

struct ScaleOffset {
  std::vector<float> scale, offset;
};

// nullopt (with no error) when the batch norm cannot be folded.
Result<std::optional<ScaleOffset>> scaleAndOffset(const NodeMatch& match) {
  const NodeDef& bn = match.def();
  const bool fused = bn.op() != "BatchNormWithGlobalNormalization";
  const int mean_idx = fused ? 3 : 1, var_idx = fused ? 4 : 2, beta_idx = fused ? 2 : 3, gamma_idx = fused ? 1 : 4;
  if (fused && model::batchNormTraining(bn)) return std::optional<ScaleOffset>();
  const bool scale_after = fused || model::attrBool(bn, "scale_after_normalization", false);

  auto mean = floatTensorAttr(match.inputs[mean_idx].def());
  auto variance = floatTensorAttr(match.inputs[var_idx].def());
  auto beta = floatTensorAttr(match.inputs[beta_idx].def());
  auto gamma = floatTensorAttr(match.inputs[gamma_idx].def());
  for (auto* t : {&mean, &variance, &beta, &gamma})
    if (!t->ok()) return t->status();
  if (mean->shape.size() != 1) return Status::Error("mean input to batch norm '" + bn.name() + "' is not a vector");
  const std::int64_t n = mean->shape[0];
  auto check = [&](const model::HostTensor& t, const char* what) {
    if (t.shape.size() != 1 || t.shape[0] != n)
      return Status::Error(std::string(what) + " input to batch norm '" + bn.name() + "' has bad shape " +
                           model::shapeString(t.shape) + "; expected [" + std::to_string(n) + "]");
    return Status::Ok();
  };
  GDS_RETURN_IF_ERROR(check(*variance, "variance"));
  GDS_RETURN_IF_ERROR(check(*beta, "beta"));
  GDS_RETURN_IF_ERROR(check(*gamma, "gamma"));
  ScaleOffset so;
  model::foldBatchNorm(scale_after ? gamma->as<float>() : nullptr, beta->as<float>(), mean->as<float>(),
                       variance->as<float>(), model::batchNormEpsilon(bn), n, model::BatchNormRounding::kReciprocal,
                       &so.scale, &so.offset);
  return std::optional<ScaleOffset>(std::move(so));
}

// Scaled weights, the op, "<op>_bn_offset" and a BiasAdd named `output_name`.
// False (nothing added) when the weights do not fit.
bool fuseIntoConv(const std::vector<float>& scale, const std::vector<float>& offset, const NodeMatch& conv_match,
                  const std::string& output_name, std::vector<NodeDef>* new_nodes) {
  const NodeDef& conv = conv_match.def();
  const NodeDef& input = conv_match.inputs[0].def();
  const NodeDef& weights_node = conv_match.inputs[1].def();
  auto weights = floatTensorAttr(weights_node);
  if (!weights.ok() || outputChannels(conv, *weights) != static_cast<std::int64_t>(scale.size())) return false;
  auto scaled = scaleWeights(conv, *weights, scale);
  if (!scaled.ok()) return false;
  NodeDef w = makeConst(weights_node.name(), *scaled);
  w.set_device(weights_node.device());
  new_nodes->push_back(std::move(w));
  if (&input != &weights_node) new_nodes->push_back(input);
  new_nodes->push_back(conv);
  NodeDef bias = makeConst(conv.name() + "_bn_offset", floatTensor({static_cast<std::int64_t>(offset.size())}, offset));
  bias.set_device(conv.device());
  NodeDef add;
  add.set_name(output_name);
  add.set_op("BiasAdd");
  add.set_device(conv.device());
  if (conv.attr().count("data_format")) copyAttr(conv, "data_format", "data_format", &add);
  copyAttr(conv, "T", "T", &add);
  add.add_input(conv.name());
  add.add_input(bias.name());
  new_nodes->push_back(std::move(bias));
  new_nodes->push_back(std::move(add));
  return true;
}

// Keeps the match's Const inputs (mean, variance, beta, gamma, axis, ...)
// that other nodes still use.
void keepSharedConsts(const NodeMatch& match, const std::set<std::string>& output_nodes,
                      std::vector<NodeDef>* new_nodes) {
  std::set<std::string> present;
  for (const auto& n : *new_nodes) present.insert(n.name());
  for (const NodeDef* n : matchedNodes(match))
    if (output_nodes.count(n->name()) && !present.count(n->name())) new_nodes->push_back(*n);
}

// Runs one pattern to a fixpoint. `fuse` returns true when it folded.
using FuseFn = std::function<Result<bool>(const NodeMatch&, const std::set<std::string>&, std::vector<NodeDef>*)>;

Status foldToFixpoint(GraphDef* graph, const OpTypePattern& pattern, const FuseFn& fuse) {
  bool changed;
  do {
    changed = false;
    // Batch norms whose secondary outputs (batch mean/variance, ...) are read.
    std::unordered_set<std::string> extra_outputs_used;
    for (const auto& node : graph->node())
      for (const auto& in : node.input()) {
        InputParts p = inputParts(in);
        if (p.prefix.empty() && !p.suffix.empty() && p.suffix != ":0") extra_outputs_used.insert(p.node);
      }
    GraphDef out;
    GDS_RETURN_IF_ERROR(replaceMatchingOpTypes(
        *graph, pattern,
        [&](const NodeMatch& match, const std::set<std::string>&, const std::set<std::string>& output_nodes,
            std::vector<NodeDef>* new_nodes) -> Status {
          if (extra_outputs_used.count(match.def().name())) {
            copyOriginalMatch(match, new_nodes);
            return Status::Ok();
          }
          std::vector<NodeDef> fused;
          auto done = fuse(match, output_nodes, &fused);
          if (!done.ok()) return done.status();
          if (!*done) {
            copyOriginalMatch(match, new_nodes);
            return Status::Ok();
          }
          *new_nodes = std::move(fused);
          keepSharedConsts(match, output_nodes, new_nodes);
          changed = true;
          return Status::Ok();
        },
        {}, &out));
    *graph = std::move(out);
  } while (changed);
  return Status::Ok();
}

OpTypePattern bnOver(OpTypePattern input) {
  return {kBatchNormOps, {std::move(input), {"Const"}, {"Const"}, {"Const"}, {"Const"}}};
}

Result<GraphDef> foldOldBatchNorms(const GraphDef& in, const TransformContext&) {
  GraphDef graph = in;
  // Convolution or MatMul directly under the batch norm.
  GDS_RETURN_IF_ERROR(foldToFixpoint(
      &graph, bnOver({"Conv2D|DepthwiseConv2dNative|MatMul", {{"*"}, {"Const"}}}),
      [](const NodeMatch& match, const std::set<std::string>& output_nodes, std::vector<NodeDef>* new_nodes) -> Result<bool> {
        const NodeMatch& conv = match.inputs[0];
        if (output_nodes.count(conv.def().name()) || output_nodes.count(conv.inputs[1].def().name())) return false;
        auto so = scaleAndOffset(match);
        if (!so.ok()) return so.status();
        if (!*so) return false;
        return fuseIntoConv((*so)->scale, (*so)->offset, match.inputs[0], match.def().name(), new_nodes);
      }));
  // BiasAdd(convolution or MatMul) under the batch norm.
  GDS_RETURN_IF_ERROR(foldToFixpoint(
      &graph, bnOver({"BiasAdd", {{"Conv2D|DepthwiseConv2dNative|MatMul", {{"*"}, {"Const"}}}, {"Const"}}}),
      [](const NodeMatch& match, const std::set<std::string>& output_nodes, std::vector<NodeDef>* new_nodes) -> Result<bool> {
        const NodeMatch& biasadd = match.inputs[0];
        const NodeMatch& conv = biasadd.inputs[0];
        if (output_nodes.count(biasadd.def().name()) || output_nodes.count(biasadd.inputs[1].def().name()) ||
            output_nodes.count(conv.def().name()) || output_nodes.count(conv.inputs[1].def().name()))
          return false;
        auto so = scaleAndOffset(match);
        if (!so.ok()) return so.status();
        if (!*so) return false;
        auto bias = floatTensorAttr(biasadd.inputs[1].def());
        if (!bias.ok() || bias->shape.size() != 1 || bias->shape[0] != static_cast<std::int64_t>((*so)->scale.size()))
          return false;
        std::vector<float> offset = (*so)->offset;
        for (size_t c = 0; c < offset.size(); ++c) offset[c] += bias->as<float>()[c] * (*so)->scale[c];
        return fuseIntoConv((*so)->scale, offset, conv, match.def().name(), new_nodes);
      }));
  // BatchToSpaceND(Conv2D) under the batch norm (atrous convolutions).
  GDS_RETURN_IF_ERROR(foldToFixpoint(
      &graph, bnOver({"BatchToSpaceND", {{"Conv2D", {{"*"}, {"Const"}}}, {"Const"}, {"Const"}}}),
      [](const NodeMatch& match, const std::set<std::string>& output_nodes, std::vector<NodeDef>* new_nodes) -> Result<bool> {
        const NodeMatch& b2s = match.inputs[0];
        const NodeMatch& conv = b2s.inputs[0];
        if (output_nodes.count(b2s.def().name()) || output_nodes.count(conv.def().name()) ||
            output_nodes.count(conv.inputs[1].def().name()))
          return false;
        auto so = scaleAndOffset(match);
        if (!so.ok()) return so.status();
        if (!*so) return false;
        const std::string biasadd = conv.def().name() + "/biasadd";
        if (!fuseIntoConv((*so)->scale, (*so)->offset, conv, biasadd, new_nodes)) return false;
        NodeDef node = b2s.def();
        node.set_name(match.def().name());
        node.set_input(0, biasadd);
        new_nodes->push_back(b2s.inputs[1].def());
        new_nodes->push_back(b2s.inputs[2].def());
        new_nodes->push_back(std::move(node));
        return true;
      }));
  // ConcatV2 of two Conv2Ds under the batch norm.
  GDS_RETURN_IF_ERROR(foldToFixpoint(
      &graph,
      bnOver({"ConcatV2|Concat", {{"Conv2D", {{"*"}, {"Const"}}}, {"Conv2D", {{"*"}, {"Const"}}}, {"Const"}}}),
      [](const NodeMatch& match, const std::set<std::string>& output_nodes, std::vector<NodeDef>* new_nodes) -> Result<bool> {
        const NodeMatch& concat = match.inputs[0];
        if (concat.def().op() != "ConcatV2" || output_nodes.count(concat.def().name())) return false;
        for (int i = 0; i < 2; ++i)
          if (output_nodes.count(concat.inputs[i].def().name()) ||
              output_nodes.count(concat.inputs[i].inputs[1].def().name()))
            return false;
        auto so = scaleAndOffset(match);
        if (!so.ok()) return so.status();
        if (!*so) return false;
        auto axis = tensorAttr(concat.inputs[2].def());
        if (!axis.ok() || axis->size() != 1) return false;
        const std::int64_t a = static_cast<std::int64_t>(axis->valueAt(0));
        std::vector<float> s0 = (*so)->scale, o0 = (*so)->offset, s1 = s0, o1 = o0;
        if (a == 3 || a == -1) {
          auto w0 = floatTensorAttr(concat.inputs[0].inputs[1].def());
          if (!w0.ok() || w0->shape.size() != 4) return false;
          const std::int64_t split = w0->shape[3];
          if (split > static_cast<std::int64_t>(s0.size())) return false;
          s0.resize(static_cast<size_t>(split));
          o0.resize(static_cast<size_t>(split));
          s1.erase(s1.begin(), s1.begin() + split);
          o1.erase(o1.begin(), o1.begin() + split);
        }
        const std::string in0 = concat.def().name() + "_bn_in0", in1 = concat.def().name() + "_bn_in1";
        if (!fuseIntoConv(s0, o0, concat.inputs[0], in0, new_nodes)) return false;
        if (!fuseIntoConv(s1, o1, concat.inputs[1], in1, new_nodes)) return false;
        new_nodes->push_back(concat.inputs[2].def());
        NodeDef node = concat.def();
        node.set_name(match.def().name());
        node.set_input(0, in0);
        node.set_input(1, in1);
        new_nodes->push_back(std::move(node));
        return true;
      }));
  return graph;
}

}  // namespace

TransformInfo foldOldBatchNormsTransform() {
  return {"fold_old_batch_norms",
          "Folds BatchNormWithGlobalNormalization / FusedBatchNorm(V2/V3) into the convolution before it", {},
          foldOldBatchNorms};
}

}  // namespace gds::transforms
