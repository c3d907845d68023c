// A build's progress read from its output: objects compiled of the objects make has to
// build, as a Verilator build prints them (build progress events).

#include "openpiton/build_progress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "openpiton/builder.h"
#include "openpiton/cache_defaults.h"
#include "support/child_process.h"
#include "support/fixture_checkout.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

// The shape of a real Vcmp_top_classes.mk (Verilator 5.006), shortened.
constexpr const char* kClassesMk = R"(# Verilated -*- Makefile -*-
VM_PARALLEL_BUILDS = 1
### Object file lists...
# Generated module classes, fast-path, compile with highest optimization
VM_CLASSES_FAST += \
	Vcmp_top \
	Vcmp_top___024root__DepSet_h664b01ae__0 \

# Generated module classes, non-fast-path, compile with low/medium optimization
VM_CLASSES_SLOW += \
	Vcmp_top__ConstPool_0 \

# Generated support classes, fast-path, compile with highest optimization
VM_SUPPORT_FAST += \
	Vcmp_top__Dpi \

VM_SUPPORT_SLOW += \
	Vcmp_top__Syms \

VM_GLOBAL_FAST += \
	verilated \

VM_GLOBAL_SLOW += \


# Verilated -*- Makefile -*-
)";

constexpr const char* kTopMk = R"(VM_PREFIX = Vcmp_top
VM_USER_CLASSES = \
	b_ary \
	my_top \

# User .cpp directories (from .cpp's on Verilator command line)
VM_USER_DIR = \
	/piton/tools/pli/iop \

include Vcmp_top_classes.mk
)";

class BuildProgressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    obj_ = fs::path(dir_.path()) / "obj_dir";
    fs::create_directories(obj_);
    write(obj_ / "Vcmp_top_classes.mk", kClassesMk);
    write(obj_ / "Vcmp_top.mk", kTopMk);
  }
  std::string compile(const std::string& object) const {
    return "g++  -I.  -MMD -I/usr/share/verilator/include -DVM_COVERAGE=0 -Os -c -o " + object +
           ".o " + object + ".cpp";
  }
  mace::testing::TempDir dir_;
  fs::path obj_;
};

TEST_F(BuildProgressTest, CountsTheListedObjectsNotYetBuilt) {
  EXPECT_EQ(objects_to_build(obj_, "Vcmp_top"), 8);
  write(obj_ / "b_ary.o", "");  // sims compiles its C helpers before make
  EXPECT_EQ(objects_to_build(obj_, "Vcmp_top"), 7);
  EXPECT_EQ(objects_to_build(obj_ / "absent", "Vcmp_top"), 0);
}

// A rebuild over an earlier model finds every .o in place: what make compiles again is
// what Verilator regenerated, so those objects count and the untouched ones do not.
TEST_F(BuildProgressTest, CountsObjectsWhoseSourceIsNewerThanTheirObject) {
  const std::vector<std::string> objects = {
      "Vcmp_top",      "Vcmp_top___024root__DepSet_h664b01ae__0", "Vcmp_top__ConstPool_0",
      "Vcmp_top__Dpi", "Vcmp_top__Syms", "verilated", "b_ary", "my_top"};
  const auto earlier = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (const auto& object : objects) {
    write(obj_ / (object + ".cpp"), "// generated");
    write(obj_ / (object + ".o"), "");
    fs::last_write_time(obj_ / (object + ".cpp"), earlier);
  }
  EXPECT_EQ(objects_to_build(obj_, "Vcmp_top"), 0);
  fs::last_write_time(obj_ / "Vcmp_top.cpp", earlier + std::chrono::hours(2));  // regenerated
  fs::last_write_time(obj_ / "Vcmp_top__Syms.cpp", earlier + std::chrono::hours(2));
  EXPECT_EQ(objects_to_build(obj_, "Vcmp_top"), 2);
}

TEST_F(BuildProgressTest, FollowsVerilatingCompilingAndLinking) {
  write(obj_ / "b_ary.o", "");
  BuildProgressReader reader;
  EXPECT_FALSE(reader.feed("sims: Building rtl model"));
  EXPECT_EQ(reader.progress().phase, BuildPhase::verilating);
  EXPECT_FALSE(reader.feed(compile("not_yet")));  // Verilator's own output, not make's
  ASSERT_TRUE(reader.feed("sims: make -j -C " + obj_.string() + " -f Vcmp_top.mk Vcmp_top"));
  EXPECT_EQ(reader.progress(), (BuildProgress{BuildPhase::compiling, 0, 7}));
  EXPECT_FALSE(reader.feed("make: Entering directory '" + obj_.string() + "'"));
  for (const char* object : {"my_top", "verilated", "Vcmp_top"}) EXPECT_TRUE(reader.feed(compile(object)));
  EXPECT_EQ(reader.progress(), (BuildProgress{BuildPhase::compiling, 3, 7}));
  EXPECT_FALSE(reader.feed("Archive ar -rcs Vcmp_top__ALL.a Vcmp_top.o"));
  EXPECT_TRUE(reader.feed("g++    my_top.o b_ary.o verilated.o Vcmp_top__ALL.a    -pthread -lpthread "
                          "-latomic   -o Vcmp_top"));
  EXPECT_EQ(reader.progress().phase, BuildPhase::linking);
}

TEST_F(BuildProgressTest, ATotalReadWrongNeverLetsDoneExceedIt) {
  BuildProgressReader reader;
  reader.feed("sims: make -j -C " + obj_.string() + " -f Vcmp_top.mk Vcmp_top");
  for (int i = 0; i < 12; ++i) reader.feed(compile("extra" + std::to_string(i)));
  EXPECT_EQ(reader.progress().objects_done, 12);
  EXPECT_EQ(reader.progress().objects_total, 12);
}

TEST_F(BuildProgressTest, UnreadableListsLeaveTheTotalUnknown) {
  BuildProgressReader reader;
  reader.feed("sims: make -j -C /nonexistent/obj_dir -f Vcmp_top.mk Vcmp_top");
  reader.feed(compile("Vcmp_top"));
  EXPECT_EQ(reader.progress(), (BuildProgress{BuildPhase::compiling, 1, 0}));
}

// The fixture's sims prints what a real build prints; the builder reports each step.
TEST(BuildProgressOfABuild, TheBuilderReportsEachObjectOfTheFixtureBuild) {
  mace::testing::FixtureCheckout fixture;
  Checkout checkout(fixture.root());
  BuildConfig config;
  config.core = Core::pico;
  config.caches = read_cache_defaults(checkout, Core::pico).caches.value_or(CacheSet{});
  config.rtl_defines = normalise_defines({});
  BuildOptions options;
  options.verilator = VerilatorVersion{5, 6, "Verilator 5.006 2023-01-22 rev (Debian 5.006-3)"};
  std::vector<BuildProgress> seen;
  options.on_progress = [&](const BuildProgress& p) { seen.push_back(p); };
  const BuildResult built = build(checkout, config, options);
  ASSERT_TRUE(built.success) << built.message;
  ASSERT_GE(seen.size(), 3u);
  EXPECT_EQ(seen.front(), (BuildProgress{BuildPhase::verilating, 0, 0}));
  EXPECT_EQ(seen[1], (BuildProgress{BuildPhase::compiling, 0, 11}));
  for (std::size_t i = 2; i < seen.size() - 1; ++i)
    EXPECT_EQ(seen[i].objects_done, seen[i - 1].objects_done + 1);
  EXPECT_EQ(seen.back(), (BuildProgress{BuildPhase::linking, 11, 11}));

  // A reused model builds nothing and reports nothing.
  seen.clear();
  const BuildResult again = build(checkout, config, options);
  ASSERT_TRUE(again.reused);
  EXPECT_TRUE(seen.empty());
}

}  // namespace
}  // namespace mace::openpiton
