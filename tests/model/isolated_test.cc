// runIsolated: the child's answer, its error, a crash and a deadline passed,
// each reaching the caller as a value or an error naming the file.
#include "model/isolated.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

namespace gds::model {
namespace {

TEST(Isolated, ReturnsTheChildsBytes) {
  std::string big(3 << 20, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7);
  auto r = runIsolated("m.h5", 60, [&]() -> Result<std::string> { return big; });
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(*r == big);
}

TEST(Isolated, ReturnsTheChildsError) {
  auto r = runIsolated("m.h5", 60, []() -> Result<std::string> { return Status::Error("m.h5: no model_config"); });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "m.h5: no model_config");
}

TEST(Isolated, ACrashIsAnErrorNamingTheFile) {
  auto r = runIsolated("m.h5", 60, []() -> Result<std::string> {
    ::raise(SIGSEGV);
    return std::string("unreached");
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "m.h5: the reader crashed on it (signal 11): the file is damaged");
}

TEST(Isolated, ADeadlinePassedStopsTheChild) {
  auto r = runIsolated("m.h5", 1, []() -> Result<std::string> {
    for (;;) ::pause();
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "m.h5: reading it took more than 1 s and was stopped (the file is damaged, or larger than this reader "
            "handles)");
}

}  // namespace
}  // namespace gds::model
