#pragma once
#include <string>

namespace gds::app {
// "gdstudio X.Y.Z" followed by the versions of the libraries it uses.
std::string versionText();
}  // namespace gds::app
