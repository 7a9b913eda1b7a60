// Descriptions of the built-in transforms, one per source file; registry.cc
// lists them.
#pragma once

#include "transforms/transform.h"

namespace gds::transforms {

TransformInfo addDefaultAttributesTransform();
TransformInfo backportConcatV2Transform();
TransformInfo backportTensorArrayV3Transform();
TransformInfo flattenAtrousConvTransform();
TransformInfo foldBatchNormsTransform();
TransformInfo foldConstantsTransform();
TransformInfo foldOldBatchNormsTransform();
TransformInfo inlinePartitionedCallTransform();
TransformInfo fusePadAndConvTransform();
TransformInfo fuseResizeAndConvTransform();
TransformInfo fuseResizePadAndConvTransform();
TransformInfo mergeDuplicateNodesTransform();
TransformInfo obfuscateNamesTransform();
TransformInfo quantizeWeightsTransform();
TransformInfo removeAttributeTransform();
TransformInfo removeControlDependenciesTransform();
TransformInfo removeDeviceTransform();
TransformInfo removeNodesTransform();
TransformInfo renameAttributeTransform();
TransformInfo renameNodeTransform();
TransformInfo renameOpTransform();
TransformInfo roundWeightsTransform();
TransformInfo setDeviceTransform();
TransformInfo sortByExecutionOrderTransform();
TransformInfo sparsifyGatherTransform();
TransformInfo stripUnusedNodesTransform();
TransformInfo unrollWhileLoopsTransform();
// 8-bit path
TransformInfo quantizeNodesTransform();
TransformInfo insertLoggingTransform();
TransformInfo freezeRequantizationRangesTransform();

}  // namespace gds::transforms
