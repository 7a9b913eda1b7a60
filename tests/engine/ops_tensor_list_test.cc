// The TensorList ops with TensorFlow's semantics (list_kernels.h/.cc): a
// list is a value (SetItem/PushBack/PopBack leave their input list as it
// was), unset elements read as zeros once their shape is known, and element
// shapes, dtypes, indices and sizes from the input are checked, naming the
// node. The Keras LSTM/GRU models that use them run in tests/app/cli_tf2_test.cc.
#include "model/memory_budget.h"
#include "tests/engine/core_test_util.h"

namespace gds::engine {
namespace {

using namespace coretest;

std::string intConst(const std::string& name, const std::vector<int>& values, bool scalar = false) {
  std::string t = "tensor { dtype: DT_INT32 tensor_shape { " +
                  (scalar ? std::string() : "dim { size: " + std::to_string(values.size()) + " } ") + "}";
  for (int v : values) t += " int_val: " + std::to_string(v);
  t += " }";
  return "node { name: '" + name + "' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: 'value' "
         "value { " + t + " } } }\n";
}

std::string listOp(const std::string& name, const std::string& op, const std::vector<std::string>& inputs,
                   const std::string& extra = "") {
  std::string s = "node { name: '" + name + "' op: '" + op + "'";
  for (const auto& in : inputs) s += " input: '" + in + "'";
  return s + " attr { key: 'element_dtype' value { type: DT_FLOAT } } " + extra + " }\n";
}

const std::string kShapeType = "attr { key: 'shape_type' value { type: DT_INT32 } }";

Result<std::vector<Tensor>> run(const std::string& text, const std::vector<std::string>& feeds,
                                const std::vector<Tensor>& values, const std::vector<std::string>& fetches) {
  // The plan refers to the graph's nodes: it must outlive the run.
  auto graph = std::make_shared<const tensorflow::GraphDef>(parseGraph(text));
  auto plan = compileForInference(graph, feeds, fetches);
  if (!plan.ok()) return plan.status();
  return (*plan)->run(values);
}

std::string placeholders() { return placeholderText("a", tensorflow::DT_FLOAT) + placeholderText("b", tensorflow::DT_FLOAT); }

TEST(TensorList, ReserveSetItemStackReadsUnsetElementsAsZeros) {
  std::string g = placeholders() + intConst("shape", {2}) + intConst("n", {3}, true) + intConst("i0", {0}, true) +
                  intConst("i2", {2}, true) + intConst("any", {-1}, true) +
                  listOp("reserve", "TensorListReserve", {"shape", "n"}, kShapeType) +
                  listOp("set0", "TensorListSetItem", {"reserve", "i0", "a"}) +
                  listOp("set2", "TensorListSetItem", {"set0", "i2", "b"}) +
                  listOp("stack", "TensorListStack", {"set2", "any"}, "attr { key: 'num_elements' value { i: 3 } }") +
                  listOp("get1", "TensorListGetItem", {"set2", "i0", "any"}) +
                  "node { name: 'len' op: 'TensorListLength' input: 'set2' }\n"
                  "node { name: 'eshape' op: 'TensorListElementShape' input: 'set2' " + kShapeType + " }\n" +
                  // The list before the first SetItem is unchanged: a value, not a resource.
                  listOp("stack0", "TensorListStack", {"reserve", "shape"});
  auto out = run(g, {"a", "b"}, {F({2}, {1, 2}), F({2}, {5, 6})}, {"stack", "get1", "len", "eshape", "stack0"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ((*out)[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(values<float>((*out)[0]), (std::vector<float>{1, 2, 0, 0, 5, 6}));
  EXPECT_EQ(values<float>((*out)[1]), (std::vector<float>{1, 2}));
  EXPECT_EQ((*out)[2].dtype(), tensorflow::DT_INT32);
  EXPECT_EQ(values<std::int32_t>((*out)[2]), (std::vector<std::int32_t>{3}));
  EXPECT_EQ(values<std::int32_t>((*out)[3]), (std::vector<std::int32_t>{2}));
  EXPECT_EQ(values<float>((*out)[4]), (std::vector<float>(6, 0.f)));
}

TEST(TensorList, FromTensorGetItemAndGather) {
  std::string g = placeholders() + intConst("any", {-1}, true) + intConst("i1", {1}, true) +
                  intConst("idx", {2, 0}) +
                  "node { name: 'list' op: 'TensorListFromTensor' input: 'a' input: 'any' "
                  "attr { key: 'element_dtype' value { type: DT_FLOAT } } " + kShapeType + " }\n" +
                  listOp("row1", "TensorListGetItem", {"list", "i1", "any"}) +
                  listOp("gather", "TensorListGather", {"list", "idx", "any"}) +
                  "node { name: 'eshape' op: 'TensorListElementShape' input: 'list' " + kShapeType + " }\n" +
                  "node { name: 'len' op: 'TensorListLength' input: 'list' }\n";
  auto out = run(g, {"a"}, {F({3, 2}, {1, 2, 3, 4, 5, 6})}, {"row1", "gather", "eshape", "len"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ((*out)[0].shape(), (Shape{2}));
  EXPECT_EQ(values<float>((*out)[0]), (std::vector<float>{3, 4}));
  EXPECT_EQ((*out)[1].shape(), (Shape{2, 2}));
  EXPECT_EQ(values<float>((*out)[1]), (std::vector<float>{5, 6, 1, 2}));
  // An unknown-rank element shape reads back as the scalar -1.
  EXPECT_EQ((*out)[2].shape(), Shape{});
  EXPECT_EQ(values<std::int32_t>((*out)[2]), (std::vector<std::int32_t>{-1}));
  EXPECT_EQ(values<std::int32_t>((*out)[3]), (std::vector<std::int32_t>{3}));
}

TEST(TensorList, PushBackPopBackAndMaxNumElements) {
  std::string g = placeholders() + intConst("shape", {-1}) + intConst("max", {2}, true) +
                  listOp("empty", "EmptyTensorList", {"shape", "max"}, kShapeType) +
                  listOp("p1", "TensorListPushBack", {"empty", "a"}) + listOp("p2", "TensorListPushBack", {"p1", "b"}) +
                  listOp("pop", "TensorListPopBack", {"p2", "shape"}) +
                  "node { name: 'len_pop' op: 'TensorListLength' input: 'pop' }\n"
                  "node { name: 'len_p2' op: 'TensorListLength' input: 'p2' }\n" +
                  listOp("full", "TensorListPushBack", {"p2", "a"});
  auto out = run(g, {"a", "b"}, {F({3}, {1, 2, 3}), F({3}, {7, 8, 9})}, {"pop:1", "len_pop", "len_p2"});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(values<float>((*out)[0]), (std::vector<float>{7, 8, 9}));
  EXPECT_EQ(values<std::int32_t>((*out)[1]), (std::vector<std::int32_t>{1}));
  EXPECT_EQ(values<std::int32_t>((*out)[2]), (std::vector<std::int32_t>{2}));
  auto full = run(g, {"a", "b"}, {F({3}, {1, 2, 3}), F({3}, {7, 8, 9})}, {"full"});
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error(), "node 'full' (TensorListPushBack): tried to push an item into a full list (size 2, "
                          "max_num_elements 2)");
  // An element of another shape than the list's ([-1]: any vector).
  auto scalar = run(g, {"a", "b"}, {F({}, {1}), F({3}, {7, 8, 9})}, {"p1"});
  ASSERT_FALSE(scalar.ok());
  EXPECT_EQ(scalar.error(), "node 'p1' (TensorListPushBack): the item's shape [] is incompatible with the list's "
                            "element shape [?]");
}

TEST(TensorList, ErrorsNameTheNodeAndWhatWasExpected) {
  const std::string base = placeholders() + intConst("shape", {2}) + intConst("partial", {-1}) +
                           intConst("n", {2}, true) + intConst("i5", {5}, true) + intConst("i0", {0}, true) +
                           listOp("reserve", "TensorListReserve", {"shape", "n"}, kShapeType) +
                           "node { name: 'rpartial' op: 'TensorListReserve' input: 'partial' input: 'n' "
                           "attr { key: 'element_dtype' value { type: DT_FLOAT } } " + kShapeType + " }\n";
  auto expectError = [&](const std::string& extra, const std::string& fetch, const std::vector<Tensor>& feeds,
                         const std::string& message) {
    auto r = run(base + extra, {"a", "b"}, feeds, {fetch});
    ASSERT_FALSE(r.ok()) << fetch;
    EXPECT_EQ(r.error(), message);
  };
  const std::vector<Tensor> ab = {F({2}, {1, 2}), F({3}, {1, 2, 3})};
  expectError(listOp("get", "TensorListGetItem", {"reserve", "i5", "shape"}), "get", ab,
              "node 'get' (TensorListGetItem): trying to access element 5 in a list with 2 elements");
  expectError(listOp("set", "TensorListSetItem", {"reserve", "i5", "a"}), "set", ab,
              "node 'set' (TensorListSetItem): trying to modify element 5 in a list with 2 elements");
  expectError(listOp("set", "TensorListSetItem", {"reserve", "i0", "b"}), "set", ab,
              "node 'set' (TensorListSetItem): the item's shape [3] is incompatible with the list's element "
              "shape [2]");
  expectError(listOp("stack", "TensorListStack", {"reserve", "shape"}, "attr { key: 'num_elements' value { i: 4 } }"),
              "stack", ab,
              "node 'stack' (TensorListStack): expected a list with 4 elements (num_elements) but got 2");
  // Nothing set and no full shape: TensorFlow cannot make the zeros either.
  expectError(listOp("stack", "TensorListStack", {"rpartial", "partial"}), "stack", ab,
              "node 'stack' (TensorListStack): an element is not set but the element shape [?] is not fully defined");
  expectError(listOp("get", "TensorListGetItem", {"rpartial", "i0", "partial"}), "get", ab,
              "node 'get' (TensorListGetItem): element 0 is not set but the element shape [?] is not fully defined");
  expectError("node { name: 'get' op: 'TensorListGetItem' input: 'reserve' input: 'i0' input: 'shape' "
              "attr { key: 'element_dtype' value { type: DT_INT32 } } }\n",
              "get", ab, "node 'get' (TensorListGetItem): the op's element_dtype is int32 but the list holds float");
  expectError(intConst("bad", {-2}) + "node { name: 'r' op: 'TensorListReserve' input: 'bad' input: 'n' "
              "attr { key: 'element_dtype' value { type: DT_FLOAT } } }\n",
              "r", ab, "node 'r' (TensorListReserve): element_shape (input 0) has dimension -2; expected a size >= -1");
  expectError(listOp("get", "TensorListGetItem", {"a", "i0", "shape"}), "get", ab,
              "node 'get' (TensorListGetItem): input 0 is not a TensorList (got float[2])");
}

TEST(TensorList, SizesFromTheInputRespectTheMemoryBudget) {
  model::setMemoryBudget(1 << 20);
  std::string g = placeholders() + intConst("shape", {100000, 100}) + intConst("n", {1000000000}, true) +
                  intConst("one", {1}, true) + intConst("i0", {0}, true) +
                  listOp("reserve", "TensorListReserve", {"shape", "n"}, kShapeType) +
                  listOp("small", "TensorListReserve", {"shape", "one"}, kShapeType) +
                  listOp("get", "TensorListGetItem", {"small", "i0", "shape"});
  auto huge = run(g, {}, {}, {"reserve"});
  auto zeros = run(g, {}, {}, {"get"});
  model::setMemoryBudget(0);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().rfind("node 'reserve' (TensorListReserve): num_elements: 1000000000 elements", 0), 0u)
      << huge.error();
  EXPECT_NE(huge.error().find("exceed the memory budget of 1.0 MiB"), std::string::npos) << huge.error();
  ASSERT_FALSE(zeros.ok());
  EXPECT_EQ(zeros.error().rfind("node 'get' (TensorListGetItem): zero element of shape [100000,100]: ", 0), 0u)
      << zeros.error();
}

}  // namespace
}  // namespace gds::engine
