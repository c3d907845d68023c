// REQ-PLAT-1: maced starts only on Linux with a POSIX shell at /bin/sh.

#include <sys/stat.h>

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "maced/host_platform.h"
#include "os/temp_dir.h"

namespace mace {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(HostPlatformTest, ThisMachineRunsMace) {  // REQ-PLAT-1
  EXPECT_THAT(this_host_platform_problems(), IsEmpty());
  EXPECT_THAT(host_platform_problems("Linux", kPosixShell), IsEmpty());
}

TEST(HostPlatformTest, AnotherSystemOrNoShellIsNamed) {  // REQ-PLAT-1
  EXPECT_THAT(host_platform_problems("Darwin", kPosixShell),
              ElementsAre(HasSubstr("this machine runs Darwin; MACE needs Linux")));
  os::TempDir dir(std::filesystem::temp_directory_path(), "mace-host-platform");
  const auto shell = dir.path() / "sh";
  EXPECT_THAT(host_platform_problems("Linux", shell),
              ElementsAre(HasSubstr("no executable POSIX shell at " + shell.string())));
  std::ofstream(shell) << "#!/bin/true\n";
  ::chmod(shell.c_str(), 0644);  // there, but not executable
  EXPECT_EQ(host_platform_problems("Linux", shell).size(), 1u);
  ::chmod(shell.c_str(), 0755);
  EXPECT_THAT(host_platform_problems("Linux", shell), IsEmpty());
  EXPECT_EQ(host_platform_problems("FreeBSD", dir.path()).size(), 2u);  // a directory is no shell
}

}  // namespace
}  // namespace mace
