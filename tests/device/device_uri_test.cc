// --device= values: ssh://[user@]host[:port][/folder] and adb[:serial][/folder].
#include <gtest/gtest.h>

#include "device/device_uri.h"
#include "device/transport.h"

namespace gds::device {
namespace {

TEST(DeviceUri, SshWithUserPortAndFolder) {
  auto u = parseDeviceUri("ssh://pi@raspberrypi.local:2222/home/pi/tmp");
  ASSERT_TRUE(u.ok()) << u.error();
  EXPECT_EQ(u->kind, DeviceUri::Kind::Ssh);
  EXPECT_EQ(u->user, "pi");
  EXPECT_EQ(u->host, "raspberrypi.local");
  EXPECT_EQ(u->port, 2222);
  EXPECT_EQ(u->folder, "/home/pi/tmp");
  EXPECT_EQ(u->text(), "ssh://pi@raspberrypi.local:2222/home/pi/tmp");
  EXPECT_EQ(u->baseFolder(), "/home/pi/tmp");
}

TEST(DeviceUri, SshHostOnlyLeavesTheRestToSsh) {
  auto u = parseDeviceUri("ssh://board");
  ASSERT_TRUE(u.ok()) << u.error();
  EXPECT_EQ(u->user, "");
  EXPECT_EQ(u->port, 0);
  EXPECT_EQ(u->sshDestination(false), "board");
  EXPECT_EQ(u->baseFolder(), "");  // $TMPDIR or /tmp on the device
}

TEST(DeviceUri, Ipv6IsBracketedForScp) {
  auto u = parseDeviceUri("ssh://root@[::1]:22");
  ASSERT_TRUE(u.ok()) << u.error();
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, 22);
  EXPECT_EQ(u->sshDestination(false), "root@::1");
  EXPECT_EQ(u->sshDestination(true), "root@[::1]");
}

TEST(DeviceUri, AdbSerialsMayHoldColons) {
  auto plain = parseDeviceUri("adb");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->kind, DeviceUri::Kind::Adb);
  EXPECT_EQ(plain->serial, "");
  EXPECT_EQ(plain->baseFolder(), "/data/local/tmp");
  auto net = parseDeviceUri("adb:192.168.1.7:5555/sdcard/tmp");
  ASSERT_TRUE(net.ok()) << net.error();
  EXPECT_EQ(net->serial, "192.168.1.7:5555");
  EXPECT_EQ(net->folder, "/sdcard/tmp");
  EXPECT_EQ(net->text(), "adb:192.168.1.7:5555/sdcard/tmp");
}

TEST(DeviceUri, BadValuesNameTheProblem) {
  const std::string expected = " (expected ssh://[user@]host[:port][/folder] or adb[:serial][/folder])";
  EXPECT_EQ(parseDeviceUri("http://x").error(), "--device='http://x': unknown kind of device" + expected);
  EXPECT_EQ(parseDeviceUri("ssh://host:99999").error(),
            "--device='ssh://host:99999': the port '99999' must be a number from 1 to 65535" + expected);
  EXPECT_EQ(parseDeviceUri("ssh://host:").error(),
            "--device='ssh://host:': the port '' must be a number from 1 to 65535" + expected);
  EXPECT_EQ(parseDeviceUri("ssh://").error(), "--device='ssh://': no host" + expected);
  EXPECT_EQ(parseDeviceUri("ssh://a;b@host").error(), "--device='ssh://a;b@host': the user name 'a;b' is not valid" + expected);
  EXPECT_EQ(parseDeviceUri("ssh://host/tmp/$(x)").error(),
            "--device='ssh://host/tmp/$(x)': the folder '/tmp/$(x)' must be an absolute path of letters, digits and "
            "/._-+~@," + expected);
  EXPECT_EQ(parseDeviceUri("adb:a b").error(), "--device='adb:a b': the serial 'a b' has characters adb serials do not" + expected);
}

TEST(ShellWords, QuotingRoundTrips) {
  EXPECT_EQ(shellQuote("plain/path-1.tflite"), "plain/path-1.tflite");
  EXPECT_EQ(shellQuote("it's here"), "'it'\\''s here'");
  EXPECT_EQ(shellQuote(""), "''");
  auto w = splitShellWords("-F '/tmp/my config' -i \"key \\\"x\\\"\" -o BatchMode=yes a\\ b");
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_EQ(*w, (std::vector<std::string>{"-F", "/tmp/my config", "-i", "key \"x\"", "-o", "BatchMode=yes", "a b"}));
  EXPECT_EQ(splitShellWords("-i 'key").error(), "unclosed ' in '-i 'key'");
}

TEST(Transport, SshCallsUseBatchModeAndTheUsersOptionsFirst) {
  auto u = parseDeviceUri("ssh://pi@board:2222");
  ASSERT_TRUE(u.ok());
  TransportOptions o;
  o.ssh_options = {"-F", "cfg"};
  auto t = makeTransport(*u, o);
  EXPECT_EQ(t->shellArgv("uname -m"),
            (std::vector<std::string>{"ssh", "-T", "-F", "cfg", "-o", "BatchMode=yes", "-o", "ServerAliveInterval=5", "-o",
                                      "ServerAliveCountMax=3", "-o", "ConnectTimeout=15", "-p", "2222", "--", "pi@board",
                                      "sh -c 'uname -m'"}));
}

TEST(Transport, AdbShellAsTheGuideDoes) {
  auto u = parseDeviceUri("adb:emulator-5554");
  ASSERT_TRUE(u.ok());
  auto t = makeTransport(*u, {});
  EXPECT_EQ(t->shellArgv("chmod +x /data/local/tmp/benchmark_model"),
            (std::vector<std::string>{"adb", "-s", "emulator-5554", "shell", "chmod +x /data/local/tmp/benchmark_model"}));
}

}  // namespace
}  // namespace gds::device
