// The programs OpenPiton's builds and simulations run, as a PATH finds them
// (openpiton/host_tools.h): each named with its Debian package, versions for the two that
// decide what a model is.

#include <sys/stat.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "openpiton/host_tools.h"
#include "support/child_process.h"

namespace mace::openpiton {
namespace {

using mace::testing::TempDir;
using ::testing::IsEmpty;
using ::testing::StartsWith;

const HostToolFinding& of(const std::vector<HostToolFinding>& found, HostTool tool) {
  for (const auto& f : found)
    if (f.tool == tool) return f;
  throw std::runtime_error("no finding for " + std::string(program_name(tool)));
}

// A PATH of one directory holding stand-ins: what is there is found, with the version its
// --version prints; what is not is missing, with the package that brings it.
TEST(HostToolsTest, FindsWhatThePathHoldsWithVersionsAndNamesThePackageOfWhatItLacks) {
  TempDir bin;
  bin.write("verilator", "#!/bin/sh\necho 'Verilator 5.006 2023-01-22 rev (Debian 5.006-3)'\n");
  bin.write("git", "#!/bin/sh\nexit 0\n");
  ::chmod(bin.file("verilator").c_str(), 0755);
  ::chmod(bin.file("git").c_str(), 0755);
  const auto found = find_host_tools({{"PATH", bin.path()}});
  EXPECT_EQ(of(found, HostTool::verilator).path, bin.file("verilator"));
  EXPECT_THAT(of(found, HostTool::verilator).version, StartsWith("Verilator 5.006"));
  EXPECT_EQ(of(found, HostTool::git).path, bin.file("git"));
  EXPECT_THAT(of(found, HostTool::git).version, IsEmpty()) << "git's version decides nothing of a model";
  EXPECT_EQ(of(found, HostTool::riscv_gcc).path, std::nullopt);
  EXPECT_EQ(debian_package(HostTool::riscv_gcc), "gcc-riscv64-unknown-elf");
  EXPECT_TRUE(needed_by_every_run(HostTool::verilator));
  EXPECT_FALSE(needed_by_every_run(HostTool::riscv_gcc)) << "sparc runs need no RISC-V compiler";
}

// A tool that hangs on --version costs its timeout, not the check.
TEST(HostToolsTest, AVersionThatNeverComesIsLeftEmpty) {
  TempDir bin;
  bin.write("verilator", "#!/bin/sh\nexec sleep 60\n");
  ::chmod(bin.file("verilator").c_str(), 0755);
  const auto found = find_host_tools({{"PATH", bin.path()}});
  EXPECT_TRUE(of(found, HostTool::verilator).path.has_value());
  EXPECT_THAT(of(found, HostTool::verilator).version, IsEmpty());
}

}  // namespace
}  // namespace mace::openpiton
