#include "model/tflite/builtin_ops.h"

#include <algorithm>

namespace gds::model::tflite {
namespace {

// Builtin code, schema name, dialect op type (MLIR's TFL names), options.
const std::vector<BuiltinOp>& table() {
  static const std::vector<BuiltinOp> ops = {
      {0, "ADD", "tfl.add", "AddOptions"},
      {1, "AVERAGE_POOL_2D", "tfl.average_pool_2d", "Pool2DOptions"},
      {2, "CONCATENATION", "tfl.concatenation", "ConcatenationOptions"},
      {3, "CONV_2D", "tfl.conv_2d", "Conv2DOptions"},
      {4, "DEPTHWISE_CONV_2D", "tfl.depthwise_conv_2d", "DepthwiseConv2DOptions"},
      {5, "DEPTH_TO_SPACE", "tfl.depth_to_space", "DepthToSpaceOptions"},
      {6, "DEQUANTIZE", "tfl.dequantize", "DequantizeOptions"},
      {8, "FLOOR", "tfl.floor", nullptr},
      {9, "FULLY_CONNECTED", "tfl.fully_connected", "FullyConnectedOptions"},
      {11, "L2_NORMALIZATION", "tfl.l2_normalization", "L2NormOptions"},
      {12, "L2_POOL_2D", "tfl.l2_pool_2d", "Pool2DOptions"},
      {13, "LOCAL_RESPONSE_NORMALIZATION", "tfl.local_response_normalization", "LocalResponseNormalizationOptions"},
      {14, "LOGISTIC", "tfl.logistic", nullptr},
      {17, "MAX_POOL_2D", "tfl.max_pool_2d", "Pool2DOptions"},
      {18, "MUL", "tfl.mul", "MulOptions"},
      {19, "RELU", "tfl.relu", nullptr},
      {20, "RELU_N1_TO_1", "tfl.relu_n1_to_1", nullptr},
      {21, "RELU6", "tfl.relu6", nullptr},
      {22, "RESHAPE", "tfl.reshape", "ReshapeOptions"},
      {23, "RESIZE_BILINEAR", "tfl.resize_bilinear", "ResizeBilinearOptions"},
      {25, "SOFTMAX", "tfl.softmax", "SoftmaxOptions"},
      {26, "SPACE_TO_DEPTH", "tfl.space_to_depth", "SpaceToDepthOptions"},
      {28, "TANH", "tfl.tanh", nullptr},
      {34, "PAD", "tfl.pad", "PadOptions"},
      {36, "GATHER", "tfl.gather", "GatherOptions"},
      {37, "BATCH_TO_SPACE_ND", "tfl.batch_to_space_nd", "BatchToSpaceNDOptions"},
      {38, "SPACE_TO_BATCH_ND", "tfl.space_to_batch_nd", "SpaceToBatchNDOptions"},
      {39, "TRANSPOSE", "tfl.transpose", "TransposeOptions"},
      {40, "MEAN", "tfl.mean", "ReducerOptions"},
      {41, "SUB", "tfl.sub", "SubOptions"},
      {42, "DIV", "tfl.div", "DivOptions"},
      {43, "SQUEEZE", "tfl.squeeze", "SqueezeOptions"},
      {45, "STRIDED_SLICE", "tfl.strided_slice", "StridedSliceOptions"},
      {47, "EXP", "tfl.exp", "ExpOptions"},
      {49, "SPLIT", "tfl.split", "SplitOptions"},
      {50, "LOG_SOFTMAX", "tfl.log_softmax", "LogSoftmaxOptions"},
      {53, "CAST", "tfl.cast", "CastOptions"},
      {54, "PRELU", "tfl.prelu", nullptr},
      {55, "MAXIMUM", "tfl.maximum", "MaximumMinimumOptions"},
      {56, "ARG_MAX", "tfl.arg_max", "ArgMaxOptions"},
      {57, "MINIMUM", "tfl.minimum", "MaximumMinimumOptions"},
      {58, "LESS", "tfl.less", "LessOptions"},
      {59, "NEG", "tfl.neg", "NegOptions"},
      {60, "PADV2", "tfl.padv2", "PadV2Options"},
      {61, "GREATER", "tfl.greater", "GreaterOptions"},
      {62, "GREATER_EQUAL", "tfl.greater_equal", "GreaterEqualOptions"},
      {63, "LESS_EQUAL", "tfl.less_equal", "LessEqualOptions"},
      {65, "SLICE", "tfl.slice", "SliceOptions"},
      {67, "TRANSPOSE_CONV", "tfl.transpose_conv", "TransposeConvOptions"},
      {69, "TILE", "tfl.tile", "TileOptions"},
      {70, "EXPAND_DIMS", "tfl.expand_dims", "ExpandDimsOptions"},
      {71, "EQUAL", "tfl.equal", "EqualOptions"},
      {72, "NOT_EQUAL", "tfl.not_equal", "NotEqualOptions"},
      {73, "LOG", "tfl.log", nullptr},
      {74, "SUM", "tfl.sum", "ReducerOptions"},
      {75, "SQRT", "tfl.sqrt", nullptr},
      {76, "RSQRT", "tfl.rsqrt", nullptr},
      {77, "SHAPE", "tfl.shape", "ShapeOptions"},
      {78, "POW", "tfl.pow", "PowOptions"},
      {79, "ARG_MIN", "tfl.arg_min", "ArgMinOptions"},
      {81, "REDUCE_PROD", "tfl.reduce_prod", "ReducerOptions"},
      {82, "REDUCE_MAX", "tfl.reduce_max", "ReducerOptions"},
      {83, "PACK", "tfl.pack", "PackOptions"},
      {88, "UNPACK", "tfl.unpack", "UnpackOptions"},
      {89, "REDUCE_MIN", "tfl.reduce_min", "ReducerOptions"},
      {92, "SQUARE", "tfl.square", "SquareOptions"},
      {97, "RESIZE_NEAREST_NEIGHBOR", "tfl.resize_nearest_neighbor", "ResizeNearestNeighborOptions"},
      {98, "LEAKY_RELU", "tfl.leaky_relu", "LeakyReluOptions"},
      {99, "SQUARED_DIFFERENCE", "tfl.squared_difference", "SquaredDifferenceOptions"},
      {100, "MIRROR_PAD", "tfl.mirror_pad", "MirrorPadOptions"},
      {101, "ABS", "tfl.abs", "AbsOptions"},
      {102, "SPLIT_V", "tfl.split_v", "SplitVOptions"},
      {106, "ADD_N", "tfl.add_n", "AddNOptions"},
      {111, "ELU", "tfl.elu", nullptr},
      {114, "QUANTIZE", "tfl.quantize", "QuantizeOptions"},
      {116, "ROUND", "tfl.round", nullptr},
      {117, "HARD_SWISH", "tfl.hard_swish", "HardSwishOptions"},
      {123, "SELECT_V2", "tfl.select_v2", "SelectV2Options"},
      {126, "BATCH_MATMUL", "tfl.batch_matmul", "BatchMatMulOptions"},
      {150, "GELU", "tfl.gelu", "GeluOptions"},
  };
  return ops;
}

// BuiltinOperator names by value (schema.fbs), for messages about any code.
const char* const kCodeNames[] = {
      "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE",
      "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP", "L2_NORMALIZATION",
      "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D",
      "MUL", "RELU", "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR",
      "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH", "CONCAT_EMBEDDINGS",
      "SKIP_GRAM", "CALL", "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD", "UNIDIRECTIONAL_SEQUENCE_RNN",
      "GATHER", "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB",
      "DIV", "SQUEEZE", "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN", "EXP",
      "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE", "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST",
      "PRELU", "MAXIMUM", "ARG_MAX", "MINIMUM", "LESS", "NEG",
      "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL", "SELECT", "SLICE",
      "SIN", "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL",
      "NOT_EQUAL", "LOG", "SUM", "SQRT", "RSQRT", "SHAPE",
      "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX", "PACK",
      "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT", "UNPACK", "REDUCE_MIN",
      "FLOOR_DIV", "REDUCE_ANY", "SQUARE", "ZEROS_LIKE", "FILL", "FLOOR_MOD",
      "RANGE", "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE", "MIRROR_PAD", "ABS",
      "SPLIT_V", "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND",
      "COS", "WHERE", "RANK", "ELU", "REVERSE_SEQUENCE", "MATRIX_DIAG",
      "QUANTIZE", "MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF", "WHILE",
      "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2", "DENSIFY", "SEGMENT_SUM",
      "BATCH_MATMUL", "PLACEHOLDER_FOR_GREATER_OP_CODES", "CUMSUM", "CALL_ONCE", "BROADCAST_TO", "RFFT2D",
      "CONV_3D", "IMAG", "REAL", "COMPLEX_ABS", "HASHTABLE", "HASHTABLE_FIND",
      "HASHTABLE_IMPORT", "HASHTABLE_SIZE", "REDUCE_ALL", "CONV_3D_TRANSPOSE", "VAR_HANDLE", "READ_VARIABLE",
      "ASSIGN_VARIABLE", "BROADCAST_ARGS", "RANDOM_STANDARD_NORMAL", "BUCKETIZE", "RANDOM_UNIFORM", "MULTINOMIAL",
      "GELU"};

}  // namespace

const std::vector<BuiltinOp>& supportedBuiltins() { return table(); }

const BuiltinOp* builtinByCode(int code) {
  for (const BuiltinOp& op : table())
    if (op.code == code) return &op;
  return nullptr;
}

const BuiltinOp* builtinByOpType(const std::string& op_type) {
  for (const BuiltinOp& op : table())
    if (op_type == op.op_type) return &op;
  return nullptr;
}

std::string builtinCodeName(int code) {
  const int count = static_cast<int>(sizeof(kCodeNames) / sizeof(kCodeNames[0]));
  return code >= 0 && code < count ? kCodeNames[code] : "";
}

}  // namespace gds::model::tflite
