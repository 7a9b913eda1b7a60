#include "app/version.h"

#include <google/protobuf/stubs/common.h>
#include <Eigen/Core>
#ifdef GDS_HAVE_GUI
#include <QtCore/qconfig.h>
#include <QtCore/qglobal.h>
#include <graphviz/graphviz_version.h>
#endif

namespace gds::app {

std::string versionText() {
  std::string out = std::string("gdstudio ") + GDS_VERSION + "\n";
  out += "protobuf " + google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION) + "\n";
  out += "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
         std::to_string(EIGEN_MINOR_VERSION) + "\n";
#ifdef GDS_HAVE_GUI
  out += std::string("Qt ") + qVersion() + "\n";
  out += std::string("Graphviz ") + PACKAGE_VERSION + "\n";
#endif
  return out;
}

}  // namespace gds::app
