// The test executables' main: GoogleTest's, after taking the engine's kernel
// choice from the environment as gdstudio does (ctest runs some suites under
// GDS_CPU=avx2 or generic to cover the paths of older CPUs).
#include <gtest/gtest.h>

#include "app/kernel_environment.h"

int main(int argc, char** argv) {
  gds::app::applyKernelEnvironment();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
