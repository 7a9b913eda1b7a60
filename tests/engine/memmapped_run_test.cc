// A memory-mapped MobileNet runs with its weights borrowed from the mapping
// and gives the outputs of the original frozen graph. Loading and compiling
// leave the weights on disk (no page of them mapped into the process); a run
// maps exactly what it reads, as clean file pages.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "engine/rewrite/optimize_for_inference.h"
#include "model/io.h"
#include "model/memmapped.h"
#include "tests/test_util.h"

namespace gds {
namespace {

// Pages of [data, data + length) present in this process's page table
// (/proc/self/pagemap bit 63), or -1 when pagemap cannot be read.
std::int64_t residentPages(const void* data, std::uint64_t length) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(data) / page;
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + length + page - 1) / page;
  int fd = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  std::int64_t present = 0;
  for (std::uintptr_t p = begin; p < end; ++p) {
    std::uint64_t entry = 0;
    if (::pread(fd, &entry, sizeof entry, static_cast<off_t>(p * sizeof entry)) != sizeof entry) {
      present = -1;
      break;
    }
    present += static_cast<std::int64_t>(entry >> 63);
  }
  ::close(fd);
  return present;
}

std::int64_t residentWeightPages(const model::MemmappedFile& file) {
  std::int64_t total = 0;
  for (const auto& r : file.regions()) {
    if (r.name == model::kMemmappedGraphDefName) continue;
    const std::int64_t n = residentPages(file.regionData(r.name, nullptr), r.length);
    if (n < 0) return -1;
    total += n;
  }
  return total;
}

TEST(MemmappedRun, MobilenetSameOutputsAsOriginal) {
  GDS_REQUIRE_SHARED();
  auto m = model::load(test::modelPath("mobilenet_v1_0.25_128_frozen.pb"));
  ASSERT_TRUE(m.ok()) << m.error();
  std::string path = test::tempDir() + "/mobilenet.mmpb";
  auto w = model::writeMemmapped(m->graph, path);
  ASSERT_TRUE(w.ok()) << w.error();
  auto loaded = model::load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  ASSERT_TRUE(loaded->memmapped);
  EXPECT_EQ(loaded->file_bytes, w->file_bytes);
  auto file = std::static_pointer_cast<const model::MemmappedFile>(loaded->mapping);
  // The loader took the GraphDef out of the file object: one copy, not two.
  EXPECT_EQ(file->graph().node_size(), 0);
  EXPECT_EQ(loaded->graph.node_size(), m->graph.node_size());
  EXPECT_EQ(residentWeightPages(*file), 0);

  const std::string out = "MobilenetV1/Predictions/Reshape_1";
  auto original = engine::compileForInference(m->graph, {"input"}, {out});
  ASSERT_TRUE(original.ok()) << original.error();
  auto memmapped = engine::compileForInference(std::make_shared<const tensorflow::GraphDef>(std::move(loaded->graph)),
                                         {"input"}, {out});
  ASSERT_TRUE(memmapped.ok()) << memmapped.error();
  EXPECT_EQ(residentWeightPages(*file), 0);  // compiling borrows, never reads

  engine::Tensor input(tensorflow::DT_FLOAT, {1, 128, 128, 3});
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  for (std::int64_t i = 0; i < input.numElements(); ++i) input.data<float>()[i] = uniform(rng);
  auto a = (*original)->run({input});
  auto b = (*memmapped)->run({input});
  ASSERT_TRUE(a.ok()) << a.error();
  ASSERT_TRUE(b.ok()) << b.error();
  ASSERT_EQ((*b)[0].shape(), (model::Shape{1, 1001}));
  // Same kernels on the same weights. The plan may rewrite a frozen graph's
  // Const weights (a batch norm folded into a filter) but never copies mapped
  // ones, so the two agree to float rounding.
  const float* x = (*a)[0].data<float>();
  const float* y = (*b)[0].data<float>();
  float max_diff = 0;
  for (std::int64_t i = 0; i < 1001; ++i) max_diff = std::max(max_diff, std::fabs(x[i] - y[i]));
  EXPECT_LE(max_diff, 1e-5f);
  EXPECT_EQ(std::max_element(x, x + 1001) - x, std::max_element(y, y + 1001) - y);
  // A run reads every weight once: all of their pages are mapped now.
  std::int64_t weight_pages = 0;
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  for (const auto& r : file->regions()) {
    if (r.name == model::kMemmappedGraphDefName) continue;
    const auto start = reinterpret_cast<std::uintptr_t>(file->regionData(r.name, nullptr));
    weight_pages += static_cast<std::int64_t>((start + r.length + page - 1) / page - start / page);
  }
  EXPECT_EQ(residentWeightPages(*file), weight_pages);

  // The plan keeps the mapping alive after the model and file are released.
  file.reset();
  loaded = model::LoadedModel();
  auto c = (*memmapped)->run({input});
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ((*c)[0].data<float>()[5], y[5]);
}

}  // namespace
}  // namespace gds
