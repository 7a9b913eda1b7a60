// The built-in catalogue. Adding a transform: one new source file defining
// its TransformInfo, one declaration in builtin.h, one line here.
#include "transforms/builtin.h"

namespace gds::transforms {

void registerBuiltinTransforms(TransformRegistry* r) {
  r->add(addDefaultAttributesTransform());
  r->add(backportConcatV2Transform());
  r->add(backportTensorArrayV3Transform());
  r->add(flattenAtrousConvTransform());
  r->add(foldBatchNormsTransform());
  r->add(foldConstantsTransform());
  r->add(foldOldBatchNormsTransform());
  r->add(inlinePartitionedCallTransform());
  r->add(fusePadAndConvTransform());
  r->add(fuseResizeAndConvTransform());
  r->add(fuseResizePadAndConvTransform());
  r->add(mergeDuplicateNodesTransform());
  r->add(obfuscateNamesTransform());
  r->add(quantizeWeightsTransform());
  r->add(removeAttributeTransform());
  r->add(removeControlDependenciesTransform());
  r->add(removeDeviceTransform());
  r->add(removeNodesTransform());
  r->add(renameAttributeTransform());
  r->add(renameNodeTransform());
  r->add(renameOpTransform());
  r->add(roundWeightsTransform());
  r->add(setDeviceTransform());
  r->add(sortByExecutionOrderTransform());
  r->add(sparsifyGatherTransform());
  r->add(stripUnusedNodesTransform());
  r->add(unrollWhileLoopsTransform());
  r->add(quantizeNodesTransform());
  r->add(insertLoggingTransform());
  r->add(freezeRequantizationRangesTransform());
}

}  // namespace gds::transforms
