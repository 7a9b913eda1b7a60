#include "model/auxiliary.h"

#include "model/attr.h"

#include <cctype>
#include <unordered_set>

namespace gds::model {
namespace {

// "name" or "name_<digits>" (TensorFlow's unique-name suffix).
bool isNumbered(std::string_view s, std::string_view base) {
  if (s.substr(0, base.size()) != base) return false;
  std::string_view rest = s.substr(base.size());
  if (rest.empty()) return true;
  if (rest.size() < 2 || rest[0] != '_') return false;
  for (char c : rest.substr(1))
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

AuxiliaryKind opKind(const std::string& op) {
  static const std::unordered_set<std::string> kCheckpoint = {
      "SaveV2", "Save", "SaveSlices", "RestoreV2", "Restore", "RestoreSlice", "MergeV2Checkpoints", "ShardedFilename",
      "ShardedFilespec"};
  static const std::unordered_set<std::string> kSummary = {
      "ScalarSummary", "HistogramSummary", "ImageSummary", "AudioSummary", "AudioSummaryV2", "TensorSummary",
      "TensorSummaryV2", "MergeSummary", "WriteSummary", "WriteScalarSummary", "WriteHistogramSummary",
      "WriteImageSummary", "WriteAudioSummary", "WriteGraphSummary", "FlushSummaryWriter", "SummaryWriter",
      "CreateSummaryFileWriter", "CreateSummaryDbWriter", "CloseSummaryWriter", "ImportEvent"};
  static const std::unordered_set<std::string> kInitCheck = {"VarIsInitializedOp", "IsVariableInitialized",
                                                             "ReportUninitializedVariables"};
  if (kCheckpoint.count(op)) return AuxiliaryKind::Checkpoint;
  if (kSummary.count(op)) return AuxiliaryKind::Summary;
  if (kInitCheck.count(op)) return AuxiliaryKind::Initialization;
  return AuxiliaryKind::None;
}

}  // namespace

const char* auxiliaryKindName(AuxiliaryKind kind) {
  switch (kind) {
    case AuxiliaryKind::Checkpoint: return "checkpoint";
    case AuxiliaryKind::Initialization: return "initialization";
    case AuxiliaryKind::Gradients: return "gradients";
    case AuxiliaryKind::Summary: return "summaries";
    case AuxiliaryKind::None: break;
  }
  return "";
}

AuxiliaryKind auxiliaryScopeKind(std::string_view c) {
  if (isNumbered(c, "save") || isNumbered(c, "restore") || isNumbered(c, "checkpoint_initializer"))
    return AuxiliaryKind::Checkpoint;
  if (isNumbered(c, "init") || isNumbered(c, "init_all_tables") || isNumbered(c, "init_all_vars") ||
      isNumbered(c, "report_uninitialized_variables") || isNumbered(c, "report_uninitialized_resources"))
    return AuxiliaryKind::Initialization;
  if (isNumbered(c, "gradients")) return AuxiliaryKind::Gradients;
  if (isNumbered(c, "summaries") || isNumbered(c, "summary_op")) return AuxiliaryKind::Summary;
  return AuxiliaryKind::None;
}

std::vector<AuxiliaryKind> classifyAuxiliary(const Graph& graph) {
  const int n = graph.size();
  std::vector<AuxiliaryKind> kind(static_cast<std::size_t>(n), AuxiliaryKind::None);
  for (int i = 0; i < n; ++i) {
    const std::string& name = graph.name(i);
    const std::string& op = graph.op(i);
    const std::string_view view(name);
    const std::size_t slash = view.find('/');
    AuxiliaryKind k = auxiliaryScopeKind(view.substr(0, slash));
    // tf.gradients opens its scope under whatever scope is current
    // ("loss/gradients/..."); any component counts for it.
    for (std::size_t start = slash; k == AuxiliaryKind::None && start != std::string_view::npos;) {
      const std::size_t next = view.find('/', start + 1);
      const std::string_view part = view.substr(start + 1, next == std::string_view::npos ? next : next - start - 1);
      if (next != std::string_view::npos && isNumbered(part, "gradients")) k = AuxiliaryKind::Gradients;
      start = next;
    }
    if (k == AuxiliaryKind::None) k = opKind(op);
    // tf.saved_model.save's traced save and restore functions, called from
    // the outer graph ("__inference__traced_save_1782").
    if (k == AuxiliaryKind::None && (op == "StatefulPartitionedCall" || op == "PartitionedCall")) {
      const auto* f = findAttr(graph.node(i), "f");
      if (f && (f->func().name().find("_traced_save") != std::string::npos ||
                f->func().name().find("_traced_restore") != std::string::npos))
        k = AuxiliaryKind::Checkpoint;
    }
    // tf.Variable's initializer: "<var>/Initializer/..." computes the
    // initial value, "<var>/Assign" stores it.
    if (k == AuxiliaryKind::None &&
        (name.find("/Initializer/") != std::string::npos ||
         ((op == "Assign" || op == "AssignVariableOp") && view.substr(view.rfind('/') + 1) == "Assign")))
      k = AuxiliaryKind::Initialization;
    kind[static_cast<std::size_t>(i)] = k;
  }
  // What only reads auxiliary values is auxiliary too (hub modules'
  // "Identity_N" readers of "checkpoint_initializer_N").
  for (int i : graph.topoOrder()) {
    auto& k = kind[static_cast<std::size_t>(i)];
    const auto& inputs = graph.inputs(i);
    if (k != AuxiliaryKind::None || inputs.empty()) continue;
    // Assigning a restored value to a variable is part of restoring it (the
    // variable itself is not).
    const std::string& op = graph.op(i);
    if ((op == "Assign" || op == "AssignVariableOp") && inputs.size() >= 2 && !inputs[1].control &&
        kind[static_cast<std::size_t>(inputs[1].node)] != AuxiliaryKind::None) {
      k = kind[static_cast<std::size_t>(inputs[1].node)];
      continue;
    }
    AuxiliaryKind from = AuxiliaryKind::None;
    bool all = true;
    for (const auto& in : inputs) {
      const AuxiliaryKind src = kind[static_cast<std::size_t>(in.node)];
      if (src == AuxiliaryKind::None) {
        all = false;
        break;
      }
      from = src;
    }
    if (all) k = from;
  }
  // A Placeholder that only auxiliary nodes read is theirs (TF2's
  // "saver_filename", fed to the save and restore calls only).
  for (int i = 0; i < n; ++i) {
    auto& k = kind[static_cast<std::size_t>(i)];
    const auto& consumers = graph.consumers(i);
    if (k != AuxiliaryKind::None || graph.op(i) != "Placeholder" || consumers.empty()) continue;
    AuxiliaryKind from = kind[static_cast<std::size_t>(consumers.front().node)];
    for (const auto& c : consumers)
      if (kind[static_cast<std::size_t>(c.node)] == AuxiliaryKind::None) from = AuxiliaryKind::None;
    k = from;
  }
  return kind;
}

}  // namespace gds::model
