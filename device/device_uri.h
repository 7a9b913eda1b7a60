// Where a model runs when it is not run here: `--device=` values.
//
//   ssh://[user@]host[:port][/folder]   the system's OpenSSH client (keys,
//                                       agent and ~/.ssh/config as the user has them)
//   adb[:serial][/folder]               Android's adb (serial as `adb devices`
//                                       lists it, e.g. emulator-5554 or 192.168.1.7:5555)
//
// The folder is where the temporary working folder is made (default: $TMPDIR
// or /tmp over ssh, /data/local/tmp over adb, where TensorFlow's guide puts
// benchmark_model).
#pragma once

#include <string>

#include "model/status.h"

namespace gds::device {

struct DeviceUri {
  enum class Kind { Ssh, Adb };
  Kind kind = Kind::Ssh;
  std::string user;    // ssh: empty = ssh's default (~/.ssh/config, then the local user)
  std::string host;    // ssh
  int port = 0;        // ssh: 0 = ssh's default
  std::string serial;  // adb: empty = the only device attached
  std::string folder;  // absolute; empty = the default for the kind

  // The URI as the user wrote it, normalized: "ssh://pi@board:2222", "adb:emulator-5554".
  std::string text() const;
  // [user@]host, bracketing an IPv6 address for scp ("[::1]").
  std::string sshDestination(bool for_scp) const;
  // The base folder of temporary folders: `folder`, else the kind's default.
  std::string baseFolder() const;
};

// Errors name the value and what was expected.
Result<DeviceUri> parseDeviceUri(const std::string& text);

}  // namespace gds::device
