// Shared helpers for the test suites: where the model corpus is, and a clean
// skip when it is absent (a user's own checkout without ../shared).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gds::test {

// The folder holding models/ and data/ (env GDS_SHARED_DIR overrides).
std::string sharedDir();
bool sharedAvailable();
std::string modelPath(const std::string& relative);  // sharedDir()/models/<relative>
std::string dataPath(const std::string& relative);   // sharedDir()/data/<relative>
std::string sourceDir();                              // the repository
std::string binaryDir();                              // the build folder
// build/bin/gdstudio (build/bin/gdstudio_asan in the sanitized tests; the
// environment variable GDS_GDSTUDIO names another program to test).
std::string gdstudioPath();
// A fresh empty temporary folder, removed at exit.
std::string tempDir();
// A file's bytes ("" when it cannot be read).
std::string readAll(const std::string& path);
// n floats uniform in [-1, 1) from a Mersenne Twister seeded with `seed`.
std::vector<float> uniformFloats(std::int64_t n, unsigned seed);

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};
// Runs gdstudioPath() with the given arguments (no shell quoting needed). A
// sanitizer report on its standard error is a test failure.
CommandResult runGdstudio(const std::vector<std::string>& args);
// Runs a program (looked up in PATH unless it holds a '/'); exit code 127
// when it cannot be started.
CommandResult runProgram(const std::string& program, const std::vector<std::string>& args);

}  // namespace gds::test

#define GDS_REQUIRE_SHARED()                                                                     \
  do {                                                                                           \
    if (!::gds::test::sharedAvailable())                                                         \
      GTEST_SKIP() << "model corpus not found at " << ::gds::test::sharedDir()                   \
                   << " (set GDS_SHARED_DIR); skipping a test that reads ../shared";            \
  } while (0)
