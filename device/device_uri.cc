#include "device/device_uri.h"

#include <cctype>

namespace gds::device {
namespace {

Status uriError(const std::string& text, const std::string& why) {
  return Status::Error("--device='" + text + "': " + why +
                       " (expected ssh://[user@]host[:port][/folder] or adb[:serial][/folder])");
}

bool validName(const std::string& s, const std::string& extra) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (!std::isalnum(c) && extra.find(static_cast<char>(c)) == std::string::npos) return false;
  return true;
}

// "/folder" with no shell metacharacters: it is quoted on the device, but a
// plain path keeps error messages readable.
bool validFolder(const std::string& f) { return f.size() > 1 && f[0] == '/' && validName(f.substr(1), "/._-+~@,"); }

}  // namespace

std::string DeviceUri::sshDestination(bool for_scp) const {
  std::string h = host;
  if (for_scp && h.find(':') != std::string::npos) h = "[" + h + "]";
  return user.empty() ? h : user + "@" + h;
}

std::string DeviceUri::text() const {
  if (kind == Kind::Adb) return "adb" + (serial.empty() ? std::string() : ":" + serial) + folder;
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return "ssh://" + (user.empty() ? std::string() : user + "@") + h + (port ? ":" + std::to_string(port) : "") + folder;
}

std::string DeviceUri::baseFolder() const {
  if (!folder.empty()) return folder;
  return kind == Kind::Adb ? "/data/local/tmp" : "";  // ssh: ${TMPDIR:-/tmp} on the device
}

Result<DeviceUri> parseDeviceUri(const std::string& text) {
  DeviceUri uri;
  if (text == "adb" || text.rfind("adb:", 0) == 0 || text.rfind("adb/", 0) == 0) {
    uri.kind = DeviceUri::Kind::Adb;
    std::string rest = text.substr(3);
    if (!rest.empty() && rest[0] == ':') rest = rest.substr(1);
    const std::size_t slash = rest.find('/');
    uri.serial = rest.substr(0, slash);
    if (slash != std::string::npos) uri.folder = rest.substr(slash);
    if (!uri.serial.empty() && !validName(uri.serial, ":._-"))
      return uriError(text, "the serial '" + uri.serial + "' has characters adb serials do not");
    if (!uri.folder.empty() && !validFolder(uri.folder))
      return uriError(text, "the folder '" + uri.folder + "' must be an absolute path of letters, digits and /._-+~@,");
    return uri;
  }
  if (text.rfind("ssh://", 0) != 0) return uriError(text, "unknown kind of device");
  std::string rest = text.substr(6);
  const std::size_t slash = rest.find('/');
  if (slash != std::string::npos) {
    uri.folder = rest.substr(slash);
    rest = rest.substr(0, slash);
    if (!validFolder(uri.folder))
      return uriError(text, "the folder '" + uri.folder + "' must be an absolute path of letters, digits and /._-+~@,");
  }
  const std::size_t at = rest.rfind('@');
  if (at != std::string::npos) {
    uri.user = rest.substr(0, at);
    rest = rest.substr(at + 1);
    if (!validName(uri.user, "._-")) return uriError(text, "the user name '" + uri.user + "' is not valid");
  }
  std::string port;
  bool port_given = false;
  if (!rest.empty() && rest[0] == '[') {
    const std::size_t close = rest.find(']');
    if (close == std::string::npos) return uriError(text, "an IPv6 address needs its closing ']'");
    uri.host = rest.substr(1, close - 1);
    const std::string after = rest.substr(close + 1);
    if (!after.empty() && after[0] != ':') return uriError(text, "unexpected '" + after + "' after the address");
    port_given = !after.empty();
    if (port_given) port = after.substr(1);
    if (!validName(uri.host, ":.%")) return uriError(text, "'" + uri.host + "' is not an IPv6 address");
  } else {
    const std::size_t colon = rest.find(':');
    uri.host = rest.substr(0, colon);
    port_given = colon != std::string::npos;
    if (port_given) port = rest.substr(colon + 1);
    if (uri.host.empty()) return uriError(text, "no host");
    if (!validName(uri.host, ".-_")) return uriError(text, "the host '" + uri.host + "' is not a host name or address");
  }
  if (port_given) {
    bool digits = !port.empty() && port.size() <= 5;
    for (char c : port) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    const long value = digits ? std::stol(port) : 0;
    if (!digits || value < 1 || value > 65535)
      return uriError(text, "the port '" + port + "' must be a number from 1 to 65535");
    uri.port = static_cast<int>(value);
  }
  return uri;
}

}  // namespace gds::device
