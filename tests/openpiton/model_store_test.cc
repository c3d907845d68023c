// The model store (REQ-VER-12 is the rule for what a model may serve): publish,
// hit, a miss on each key input, LRU eviction, racing publishers in separate processes, a
// partial or damaged entry ignored and replaced, and a store on a read-only or full file
// system. Then the builder with a store on two fixture checkouts.

#include "openpiton/model_store.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "openpiton/builder.h"
#include "openpiton/cache_defaults.h"
#include "os/temp_dir.h"
#include "support/checkout_files.h"
#include "support/fixture_checkout.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using mace::testing::read_file;

const std::string kDigestA(64, 'a');
const std::string kDigestB(64, 'b');

void write(const fs::path& path, const std::string& content, fs::perms perms = fs::perms::none) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
  if (perms != fs::perms::none) fs::permissions(path, perms);
}

// A model directory as a Verilator build leaves it, in miniature: text files naming the
// checkout it was built in, a binary with NUL bytes that also names it, and what is not
// the model (a simulation's directory, the transcript, MACE's marker).
fs::path make_model(const fs::path& root, const std::string& build_id, const std::string& tag) {
  const fs::path dir = root / "build/manycore" / build_id;
  write(dir / "flist", root.string() + "/piton/design/chip/tile/l15/rtl/l15.v\n" + tag + "\n");
  write(dir / "obj_dir/Vcmp_top.mk", "VM_USER_DIR = " + root.string() + "/piton/tools/pli/iop\n"
                                     "OTHER = " + root.string() + "2/not/this/one\n");
  write(dir / "obj_dir/Vcmp_top", std::string("\x7f" "ELF\0\0", 6) + root.string() + tag,
        fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
  write(dir / "runs/add-1/sim.log", "a simulation, not the model\n");
  write(dir / "mace_build.log", "the transcript\n");
  write(dir / ".mace_build_ok", "marker\n");
  return dir;
}

class ModelStoreTest : public ::testing::Test {
 protected:
  ModelStoreTest()
      : scratch_(os::default_temp_parent(), "model-store-test."),
        root_a_(scratch_.path() / "piton-a"),
        root_b_(scratch_.path() / "piton-b"),
        store_({.directory = scratch_.path() / "store", .max_bytes = 1 << 20}) {}

  os::TempDir scratch_;
  fs::path root_a_, root_b_;
  ModelStore store_;
};

TEST_F(ModelStoreTest, PublishedModelIsFetchedIntoAnotherCheckoutWithItsPaths) {
  const fs::path model_a = make_model(root_a_, "mace_0001", "one");
  const ModelKey key{"mace_0001", kDigestA};
  const StorePublish published = store_.publish(key, model_a, root_a_);
  ASSERT_TRUE(published.published) << published.problem;
  EXPECT_FALSE(fs::exists(store_.entry_path(key) / "model/runs"));
  EXPECT_FALSE(fs::exists(store_.entry_path(key) / "model/mace_build.log"));
  EXPECT_FALSE(fs::exists(store_.entry_path(key) / "model/.mace_build_ok"));

  const fs::path model_b = root_b_ / "build/manycore/mace_0001";
  const StoreFetch fetched = store_.fetch(key, model_b, root_b_);
  ASSERT_TRUE(fetched.hit) << fetched.problem;
  EXPECT_THAT(fetched.origin, HasSubstr("built in " + root_a_.string()));
  // Text files name the receiving checkout; a longer name that merely starts with the old
  // root is another directory and stays.
  EXPECT_EQ(read_file(model_b / "flist"),
            root_b_.string() + "/piton/design/chip/tile/l15/rtl/l15.v\none\n");
  EXPECT_EQ(read_file(model_b / "obj_dir/Vcmp_top.mk"),
            "VM_USER_DIR = " + root_b_.string() + "/piton/tools/pli/iop\nOTHER = " +
                root_a_.string() + "2/not/this/one\n");
  // The binary is copied byte for byte, executable as it was.
  EXPECT_EQ(read_file(model_b / "obj_dir/Vcmp_top"), read_file(model_a / "obj_dir/Vcmp_top"));
  EXPECT_EQ(access((model_b / "obj_dir/Vcmp_top").c_str(), X_OK), 0);
  EXPECT_FALSE(fs::exists(model_b / "runs"));
  EXPECT_FALSE(fs::exists(model_b / ".mace_build_ok"));  // the builder writes its own

  // A second publish of the key finds it there.
  const StorePublish again = store_.publish(key, model_a, root_a_);
  EXPECT_FALSE(again.published);
  EXPECT_TRUE(again.already_present);
}

TEST_F(ModelStoreTest, AnyOtherBuildIdOrFingerprintIsAMiss) {
  const fs::path model_a = make_model(root_a_, "mace_0001", "one");
  ASSERT_TRUE(store_.publish({"mace_0001", kDigestA}, model_a, root_a_).published);
  const fs::path into = root_b_ / "build/manycore/x";
  for (const ModelKey& other : {ModelKey{"mace_0002", kDigestA}, ModelKey{"mace_0001", kDigestB}}) {
    const StoreFetch fetched = store_.fetch(other, into, root_b_);
    EXPECT_FALSE(fetched.hit);
    EXPECT_EQ(fetched.problem, "");
  }
  EXPECT_FALSE(fs::exists(into));
}

TEST_F(ModelStoreTest, KeysThatCouldNameAPathOutsideTheStoreAreRefused) {
  EXPECT_THROW((ModelKey{"../x", kDigestA}.entry_name()), std::invalid_argument);
  EXPECT_THROW((ModelKey{"mace_1", "abc"}.entry_name()), std::invalid_argument);
  EXPECT_THROW((ModelKey{"mace_1", std::string(64, 'G')}.entry_name()), std::invalid_argument);
}

TEST_F(ModelStoreTest, EvictsTheLeastRecentlyUsedBeyondTheLimit) {
  const fs::path directory = scratch_.path() / "lru";
  const ModelStore unlimited({.directory = directory, .max_bytes = UINT64_MAX});
  std::vector<ModelKey> keys;
  for (int i = 0; i < 3; ++i) keys.push_back({"mace_000" + std::to_string(i), kDigestA});
  auto model = [&](int i) { return make_model(root_a_, keys[i].build_id, "model " + std::to_string(i)); };
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(unlimited.publish(keys[i], model(i), root_a_).published);
    fs::last_write_time(unlimited.entry_path(keys[i]) / "last_used",
                        fs::file_time_type::clock::now() - std::chrono::hours(10 - i));
  }
  // Model 0 is used after model 1 was published: model 1 is now the least recent.
  ASSERT_TRUE(unlimited.fetch(keys[0], root_b_ / "m0", root_b_).hit);
  const std::uint64_t one = unlimited.total_bytes() / 2;

  const ModelStore limited({.directory = directory, .max_bytes = one * 5 / 2});
  const StorePublish published = limited.publish(keys[2], model(2), root_a_);
  ASSERT_TRUE(published.published) << published.problem;
  EXPECT_EQ(published.evicted, std::vector<std::string>{keys[1].entry_name()});
  EXPECT_TRUE(fs::exists(limited.entry_path(keys[0])));
  EXPECT_FALSE(fs::exists(limited.entry_path(keys[1])));
  EXPECT_TRUE(fs::exists(limited.entry_path(keys[2])));
  EXPECT_LE(limited.total_bytes(), one * 5 / 2);

  // The entry just published stays even when it alone is over the limit.
  const ModelStore tiny({.directory = directory, .max_bytes = 1});
  const ModelKey big{"mace_0009", kDigestA};
  const StorePublish alone = tiny.publish(big, make_model(root_a_, big.build_id, "big"), root_a_);
  ASSERT_TRUE(alone.published) << alone.problem;
  EXPECT_EQ(alone.evicted.size(), 2u);
  EXPECT_TRUE(fs::exists(tiny.entry_path(big)));
}

// Separate processes, as two maced processes or two nodes on a shared file system.
TEST_F(ModelStoreTest, RacingPublishersOfOneKeyLeaveOneIntactEntry) {
  const ModelKey key{"mace_0001", kDigestA};
  constexpr int kPublishers = 6;
  std::vector<fs::path> models;
  for (int i = 0; i < kPublishers; ++i) {
    const fs::path root = scratch_.path() / ("piton-" + std::to_string(i));
    models.push_back(make_model(root, "mace_0001", std::string(20000, 'x')));
  }
  std::vector<pid_t> children;
  for (int i = 0; i < kPublishers; ++i) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const StorePublish r = store_.publish(key, models[i], models[i].parent_path().parent_path().parent_path());
      _exit(r.problem.empty() && (r.published || r.already_present) ? (r.published ? 10 : 11) : 1);
    }
    children.push_back(pid);
  }
  int winners = 0;
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_NE(WEXITSTATUS(status), 1);
    winners += WEXITSTATUS(status) == 10;
  }
  EXPECT_GE(winners, 1);
  std::size_t left = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(store_.settings().directory / "incoming"))
    ++left;
  EXPECT_EQ(left, 0u);
  const StoreFetch fetched = store_.fetch(key, root_b_ / "m", root_b_);
  ASSERT_TRUE(fetched.hit) << fetched.problem;
  EXPECT_THAT(read_file(root_b_ / "m/flist"), HasSubstr(std::string(20000, 'x')));
}

TEST_F(ModelStoreTest, AnEntryWithoutItsManifestIsRemovedAndReplaced) {
  const ModelKey key{"mace_0001", kDigestA};
  // What a copy without the store's protocol (or a lost manifest) leaves.
  write(store_.entry_path(key) / "model/flist", "half\n");
  const StoreFetch fetched = store_.fetch(key, root_b_ / "m", root_b_);
  EXPECT_FALSE(fetched.hit);
  EXPECT_THAT(fetched.problem, HasSubstr("no complete MANIFEST"));
  EXPECT_FALSE(fs::exists(store_.entry_path(key)));
  EXPECT_FALSE(fs::exists(root_b_ / "m/flist"));

  write(store_.entry_path(key) / "model/flist", "half\n");
  const StorePublish published = store_.publish(key, make_model(root_a_, "mace_0001", "1"), root_a_);
  ASSERT_TRUE(published.published) << published.problem;
  EXPECT_TRUE(store_.fetch(key, root_b_ / "m", root_b_).hit);
}

TEST_F(ModelStoreTest, AFileThatNoLongerMatchesItsManifestIsNeverUsed) {
  const ModelKey key{"mace_0001", kDigestA};
  ASSERT_TRUE(store_.publish(key, make_model(root_a_, "mace_0001", "1"), root_a_).published);
  {
    std::fstream f(store_.entry_path(key) / "model/obj_dir/Vcmp_top",
                   std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(1);
    f.put('X');
  }
  const StoreFetch fetched = store_.fetch(key, root_b_ / "m", root_b_);
  EXPECT_FALSE(fetched.hit);
  EXPECT_THAT(fetched.problem, HasSubstr("damaged"));
  EXPECT_FALSE(fs::exists(store_.entry_path(key)));
  // A manifest cut short is as good as none.
  ASSERT_TRUE(store_.publish(key, make_model(root_a_, "mace_0001", "1"), root_a_).published);
  const fs::path manifest = store_.entry_path(key) / "MANIFEST";
  const std::string text = read_file(manifest);
  write(manifest, text.substr(0, text.size() - 4));
  EXPECT_FALSE(store_.fetch(key, root_b_ / "m2", root_b_).hit);
}

// Runs `body` in a child process with `dir` a fresh tmpfs of `kib` KiB (read-only when
// asked), mounted in a private user and mount namespace. Returns the child's exit status,
// or -1 when this machine does not allow such namespaces.
int in_private_tmpfs(const fs::path& dir, int kib, bool read_only,
                     const std::function<void(const fs::path&)>& prepare,
                     const std::function<int(const fs::path&)>& body) {
  fs::create_directories(dir);
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const uid_t uid = getuid();
    const gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) _exit(77);
    auto put = [](const char* file, const std::string& text) {
      const int fd = open(file, O_WRONLY);
      const bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == ssize_t(text.size());
      if (fd >= 0) close(fd);
      return ok;
    };
    put("/proc/self/setgroups", "deny");
    if (!put("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1\n") ||
        !put("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1\n"))
      _exit(77);
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) _exit(77);
    const std::string options = "size=" + std::to_string(kib) + "k";
    if (mount("none", dir.c_str(), "tmpfs", 0, options.c_str()) != 0) _exit(77);
    prepare(dir);
    if (read_only &&
        mount(nullptr, dir.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) != 0)
      _exit(77);
    _exit(body(dir));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status)) return 100;
  return WEXITSTATUS(status) == 77 ? -1 : WEXITSTATUS(status);
}

TEST_F(ModelStoreTest, AStoreOnAFullFileSystemLeavesNothingHalfPublished) {
  const fs::path model = make_model(root_a_, "mace_0001", std::string(200 * 1024, 'z'));
  const int status = in_private_tmpfs(
      scratch_.path() / "full", 64, false, [](const fs::path&) {},
      [&](const fs::path& dir) {
        const ModelStore store({.directory = dir});
        const StorePublish r = store.publish({"mace_0001", kDigestA}, model, root_a_);
        if (r.published || r.problem.find("No space left") == std::string::npos) return 1;
        if (!fs::is_empty(dir / "incoming") || fs::exists(store.entry_path({"mace_0001", kDigestA})))
          return 2;
        return 0;
      });
  if (status == -1) GTEST_SKIP() << "no user and mount namespaces here to make a full tmpfs";
  EXPECT_EQ(status, 0);
  EXPECT_TRUE(fs::exists(model / "obj_dir/Vcmp_top"));  // nothing is lost
}

TEST_F(ModelStoreTest, AReadOnlyStoreStillServesWhatItHoldsAndRefusesToPublish) {
  const fs::path model = make_model(root_a_, "mace_0001", "1");
  const int status = in_private_tmpfs(
      scratch_.path() / "ro", 1024, true,
      [&](const fs::path& dir) {
        ModelStore({.directory = dir}).publish({"mace_0001", kDigestA}, model, root_a_);
      },
      [&](const fs::path& dir) {
        const ModelStore store({.directory = dir});
        if (!store.fetch({"mace_0001", kDigestA}, root_b_ / "m", root_b_).hit) return 1;
        const StorePublish r =
            store.publish({"mace_0002", kDigestA}, make_model(root_a_, "mace_0002", "2"), root_a_);
        if (r.published || r.problem.find("Read-only file system") == std::string::npos) return 2;
        return 0;
      });
  if (status == -1) GTEST_SKIP() << "no user and mount namespaces here to make a read-only tmpfs";
  EXPECT_EQ(status, 0);
}

// The builder with a store, on two fixture checkouts: they have the same commit and no
// changes, so the same fingerprint.
class BuilderWithStoreTest : public ::testing::Test {
 protected:
  BuilderWithStoreTest()
      : scratch_(os::default_temp_parent(), "model-store-builder."),
        store_({.directory = scratch_.path() / "store"}),
        a_(fixture_a_.root()),
        b_(fixture_b_.root()) {}

  BuildConfig pico_1x1() const {
    BuildConfig config;
    config.core = Core::pico;
    config.caches = read_cache_defaults(a_, Core::pico).caches.value_or(CacheSet{});
    config.rtl_defines = normalise_defines({});
    return config;
  }

  BuildOptions options(const ModelStore* store) const {
    BuildOptions options;
    options.verilator = VerilatorVersion{5, 6, "Verilator 5.006 2023-01-22 rev (Debian 5.006-3)"};
    options.timeout = std::chrono::seconds(60);
    options.model_store = store;
    return options;
  }

  os::TempDir scratch_;
  ModelStore store_;
  mace::testing::FixtureCheckout fixture_a_, fixture_b_;
  Checkout a_, b_;
};

TEST_F(BuilderWithStoreTest, ASecondCheckoutTakesTheModelFromTheStoreAndBuildsNothing) {
  const BuildResult built = build(a_, pico_1x1(), options(&store_));
  ASSERT_TRUE(built.success) << built.message;
  EXPECT_FALSE(built.reused);
  EXPECT_EQ(built.reused_from, "");
  EXPECT_THAT(built.store_notes, IsEmpty());
  EXPECT_THAT(read_file(built.log_path), HasSubstr("mace: model published to the store"));

  const BuildResult taken = build(b_, pico_1x1(), options(&store_));
  ASSERT_TRUE(taken.success) << taken.message;
  EXPECT_TRUE(taken.reused);
  EXPECT_EQ(taken.reused_from, "store");
  EXPECT_THAT(taken.origin, HasSubstr("built in " + fixture_a_.root()));
  EXPECT_EQ(fixture_b_.invocations("build"), 0);
  EXPECT_TRUE(fs::exists(b_.model_binary(taken.build_id)));
  EXPECT_THAT(read_file(taken.model_dir + "/flist"), HasSubstr(fixture_b_.root() + "/piton/"));
  EXPECT_THAT(read_file(taken.model_dir + "/flist"),
              ::testing::Not(HasSubstr(fixture_a_.root() + "/")));
  EXPECT_THAT(read_file(taken.log_path), HasSubstr("mace: model taken from the store"));

  // From then on the checkout's own marker serves it.
  const BuildResult again = build(b_, pico_1x1(), options(&store_));
  EXPECT_TRUE(again.reused);
  EXPECT_EQ(again.reused_from, "checkout");
  EXPECT_EQ(fixture_b_.invocations("build"), 0);
}

TEST_F(BuilderWithStoreTest, ADamagedEntryIsRebuiltAndReplaced) {
  const BuildResult built = build(a_, pico_1x1(), options(&store_));
  ASSERT_TRUE(built.success) << built.message;
  const ModelKey key{built.build_id, built.fingerprint.digest};
  fs::remove(store_.entry_path(key) / "MANIFEST");

  const BuildResult rebuilt = build(b_, pico_1x1(), options(&store_));
  ASSERT_TRUE(rebuilt.success) << rebuilt.message;
  EXPECT_FALSE(rebuilt.reused);
  EXPECT_EQ(fixture_b_.invocations("build"), 1);
  ASSERT_EQ(rebuilt.store_notes.size(), 1u);
  EXPECT_THAT(rebuilt.store_notes[0], HasSubstr("no complete MANIFEST"));
  EXPECT_THAT(read_file(rebuilt.log_path), HasSubstr("no complete MANIFEST"));
  EXPECT_TRUE(fs::exists(store_.entry_path(key) / "MANIFEST"));  // b's build replaced it
}

TEST_F(BuilderWithStoreTest, AStoreThatCannotBeWrittenLeavesTheBuildSuccessful) {
  // The store's directory is a regular file: nothing can be created under it.
  write(scratch_.path() / "not-a-dir", "");
  const ModelStore broken({.directory = scratch_.path() / "not-a-dir"});
  const BuildResult built = build(a_, pico_1x1(), options(&broken));
  ASSERT_TRUE(built.success) << built.message;
  ASSERT_EQ(built.store_notes.size(), 1u);
  EXPECT_THAT(built.store_notes[0], HasSubstr("cannot publish to the model store"));
  EXPECT_THAT(read_file(built.log_path), HasSubstr("the model stays in this checkout"));
  EXPECT_TRUE(build(a_, pico_1x1(), options(&broken)).reused);
}

// Two tasks of one process wanting the same model at once: one builds, the other waits
// and takes it from the store.
TEST_F(BuilderWithStoreTest, TwoBuildsOfOneModelAtOnceBuildItOnce) {
  fixture_a_.set_control("build_sleep", "1");
  fixture_b_.set_control("build_sleep", "1");
  BuildResult in_a, in_b;
  std::thread other([&] { in_b = build(b_, pico_1x1(), options(&store_)); });
  in_a = build(a_, pico_1x1(), options(&store_));
  other.join();
  ASSERT_TRUE(in_a.success) << in_a.message;
  ASSERT_TRUE(in_b.success) << in_b.message;
  EXPECT_EQ(fixture_a_.invocations("build") + fixture_b_.invocations("build"), 1);
  EXPECT_EQ((in_a.reused_from == "store") + (in_b.reused_from == "store"), 1);
}

TEST_F(BuilderWithStoreTest, AWaitingBuildStopsWhenCancelled) {
  const BuildResult built = build(a_, pico_1x1(), options(nullptr));
  ASSERT_TRUE(built.success) << built.message;
  const auto held = store_.claim({built.build_id, built.fingerprint.digest}, nullptr);
  ASSERT_TRUE(held);
  os::CancelToken cancel;
  BuildOptions opts = options(&store_);
  opts.cancel = &cancel;
  BuildResult waited;
  std::thread waiter([&] { waited = build(b_, pico_1x1(), opts); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  cancel.cancel();
  waiter.join();
  EXPECT_FALSE(waited.success);
  EXPECT_EQ(waited.failure_reason, Failure::cancelled);
  EXPECT_EQ(fixture_b_.invocations("build"), 0);
}

// A checkout copied with its models (cp -a) holds models that name the checkout they were
// built in; the store records that root, so a fetch rewrites the right one.
TEST_F(BuilderWithStoreTest, AModelCopiedWithItsCheckoutIsPublishedUnderTheRootItNames) {
  const BuildResult built = build(a_, pico_1x1(), options(nullptr));
  ASSERT_TRUE(built.success) << built.message;
  fs::create_directories(b_.model_dir(built.build_id).parent_path());
  fs::copy(built.model_dir, b_.model_dir(built.build_id), fs::copy_options::recursive);

  const BuildResult reused = build(b_, pico_1x1(), options(&store_));
  ASSERT_TRUE(reused.success) << reused.message;
  EXPECT_EQ(reused.reused_from, "checkout");  // and published, since the store lacked it
  const fs::path elsewhere = scratch_.path() / "piton-c";
  const StoreFetch fetched = store_.fetch({built.build_id, built.fingerprint.digest},
                                          elsewhere / "build/manycore" / built.build_id, elsewhere);
  ASSERT_TRUE(fetched.hit) << fetched.problem;
  EXPECT_THAT(fetched.origin, HasSubstr("built in " + fixture_a_.root() + " "));
  const std::string flist = read_file(elsewhere / "build/manycore" / built.build_id / "flist");
  EXPECT_THAT(flist, HasSubstr(elsewhere.string() + "/piton/"));
  EXPECT_THAT(flist, ::testing::Not(HasSubstr(fixture_a_.root() + "/")));
}

}  // namespace
}  // namespace mace::openpiton
