// The evidence archive on its own: where each file goes, the copy of a log (whole, cut
// between its head and tail with a note, compressed when large, never half written, never
// over another), reading a copy back by offset and from its end, a follower carried from
// the live log into its cut copy, and the retention rule.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "evidence/chunked_gzip.h"
#include "evidence/evidence_archive.h"
#include "os/file_io.h"
#include "support/child_process.h"

namespace mace::evidence {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Numbered lines, so a piece of the text says where it came from.
std::string numbered_lines(int count, int width = 40) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    std::string line = "line " + std::to_string(i) + " ";
    line.resize(static_cast<std::size_t>(width), 'x');
    out += line + "\n";
  }
  return out;
}

class EvidenceArchiveTest : public ::testing::Test {
 protected:
  EvidenceArchive archive(KeepLimits keep = {}) const {
    return EvidenceArchive({fs::path(dir_.path()) / "runs", keep, {}});
  }
  fs::path source(const std::string& name, const std::string& content) const {
    dir_.write(name, content);
    return dir_.file(name);
  }
  static EvidencePlace build_place(const std::string& run = "R1", const std::string& task = "t1") {
    return {run, 1, task, "", "", EvidenceKind::build_log};
  }

  mace::testing::TempDir dir_;
};

TEST(EvidenceLayoutTest, EachFileHasItsPlaceInItsRunsDirectory) {
  EXPECT_EQ(relative_path({"R", 2, "t1", "", "", EvidenceKind::build_log}), "R/iter2/t1/build.log");
  EXPECT_EQ(relative_path({"R", 1, "t1", "", "hello", EvidenceKind::sim_log}),
            "R/iter1/t1/sims/hello/sim.log");
  const fs::path narrowing = relative_path({"R", 1, "t1", "undo l1d", "add.S", EvidenceKind::sim_log});
  EXPECT_THAT(narrowing.string(), StartsWith("R/iter1/t1/narrowing/undo_l1d-"));
  EXPECT_THAT(narrowing.string(), ::testing::EndsWith("/sims/add.S/sim.log"));
  EXPECT_EQ(numbered_name("R/iter1/t1/build.log", 1), "R/iter1/t1/build.log");
  EXPECT_EQ(numbered_name("R/iter1/t1/build.log", 3), "R/iter1/t1/build.3.log");
}

TEST(EvidenceLayoutTest, NamesFromPeopleAndModelsBecomeOneSafeComponent) {
  for (const std::string text : {"..", ".", "", ".hidden", "a/b", "../../etc", "x\ny", "é"}) {
    const std::string name = path_component(text);
    EXPECT_FALSE(name.empty()) << text;
    EXPECT_NE(name.front(), '.') << text;
    EXPECT_EQ(name.find('/'), std::string::npos) << text;
    EXPECT_LE(name.size(), 96u + 9u) << text;
  }
  EXPECT_EQ(path_component("hello"), "hello");
  EXPECT_EQ(path_component("princeton-test-test.s"), "princeton-test-test.s");
  EXPECT_NE(path_component("a b"), path_component("a_b")) << "a changed name keeps its own";
  EXPECT_NE(path_component(std::string(200, 'a')), path_component(std::string(201, 'a')));
}

TEST(ChunkedGzipTest, ARoundTripReadsAnyPieceAndGzipReadsTheWholeFile) {
  mace::testing::TempDir dir;
  const fs::path path = dir.file("log.gz");
  std::string text;
  std::mt19937 random(7);
  while (text.size() < 3 * kGzipChunkBytes + 12345) text += "word" + std::to_string(random() % 1000) + " ";
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ChunkedGzipWriter writer(fd, path);
    for (std::size_t at = 0; at < text.size(); at += 77777) writer.write(std::string_view(text).substr(at, 77777));
    writer.finish();
    ::close(fd);
  }
  ChunkedGzipReader reader(path);
  EXPECT_EQ(reader.size(), text.size());
  for (std::uint64_t offset : std::vector<std::uint64_t>{0, 1, kGzipChunkBytes - 3, 2 * kGzipChunkBytes,
                                                         text.size() - 10})
    EXPECT_EQ(reader.read(offset, 1 << 20), text.substr(offset, 1 << 20)) << offset;
  EXPECT_EQ(reader.read(text.size(), 10), "");
  EXPECT_LT(fs::file_size(path), text.size() / 2) << "it is compressed";

  const auto unzipped = mace::testing::run_process({"gzip", "-dc", path.string()}, {});
  EXPECT_EQ(unzipped.exit_code, 0) << unzipped.err;
  EXPECT_TRUE(unzipped.out == text) << "gzip reads it as one file";
}

TEST(ChunkedGzipTest, AnEmptyLogIsAValidFileAndDamageIsAnError) {
  mace::testing::TempDir dir;
  const fs::path path = dir.file("empty.gz");
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ChunkedGzipWriter writer(fd, path);
    writer.finish();
    ::close(fd);
  }
  EXPECT_EQ(ChunkedGzipReader(path).size(), 0u);
  EXPECT_EQ(ChunkedGzipReader(path).read(0, 10), "");
  EXPECT_EQ(mace::testing::run_process({"gzip", "-t", path.string()}, {}).exit_code, 0);

  dir.write("plain.gz", "not gzip at all");
  EXPECT_THROW(ChunkedGzipReader(dir.file("plain.gz")), os::FileError);
  std::string bytes = os::read_file(path);
  bytes.resize(bytes.size() - 3);
  dir.write("cut.gz", bytes);
  EXPECT_THROW(ChunkedGzipReader(dir.file("cut.gz")), os::FileError);
}

TEST_F(EvidenceArchiveTest, ASmallLogIsKeptWholeAndPlain) {
  const std::string text = numbered_lines(20);
  const KeptFile kept = archive().keep(build_place(), source("live.log", text));
  EXPECT_EQ(kept.path, fs::path(dir_.path()) / "runs/R1/iter1/t1/build.log");
  EXPECT_FALSE(kept.cut());
  EXPECT_FALSE(kept.compressed);
  EXPECT_EQ(kept.original_bytes, text.size());
  EXPECT_EQ(kept.stored_bytes, text.size());
  EXPECT_EQ(os::read_file(kept.path), text);
  EXPECT_EQ(fs::status(kept.path).permissions() & fs::perms::others_all, fs::perms::none);
  for (const auto& entry : fs::directory_iterator(kept.path.parent_path()))
    EXPECT_EQ(entry.path().filename(), "build.log") << "no temporary file is left";
}

TEST_F(EvidenceArchiveTest, ALaterCopyOfTheSameKindAtTheSamePlaceNeverReplacesTheFirst) {
  const KeptFile first = archive().keep(build_place(), source("a.log", "first build\n"));
  const KeptFile second = archive().keep(build_place(), source("b.log", "model reused\n"));
  EXPECT_EQ(second.path.filename(), "build.2.log");
  EXPECT_EQ(os::read_file(first.path), "first build\n");
  EXPECT_EQ(os::read_file(second.path), "model reused\n");
}

TEST_F(EvidenceArchiveTest, ALogOverTheLimitKeepsItsHeadAndTailWithANoteOfWhatWasCut) {
  const std::string text = numbered_lines(100000);  // 4 MB
  KeepLimits limits;
  limits.max_log_bytes = 1 << 20;
  limits.compress_above_bytes = 64ull << 20;  // plain, to read it here as it is
  const KeptFile kept = archive(limits).keep(build_place(), source("big.log", text));
  ASSERT_TRUE(kept.cut());
  EXPECT_EQ(kept.original_bytes, text.size());
  EXPECT_LE(kept.head_bytes + kept.tail_bytes, limits.max_log_bytes);
  EXPECT_GT(kept.head_bytes + kept.tail_bytes, limits.max_log_bytes - 2 * 64 * 1024);
  const std::string copy = os::read_file(kept.path);
  EXPECT_EQ(copy.substr(0, kept.head_bytes), text.substr(0, kept.head_bytes));
  EXPECT_EQ(copy.back(), '\n');
  EXPECT_EQ(copy.substr(copy.size() - kept.tail_bytes), text.substr(text.size() - kept.tail_bytes));
  EXPECT_EQ(text[kept.head_bytes - 1], '\n') << "the head ends with a whole line";
  EXPECT_EQ(text[text.size() - kept.tail_bytes - 1], '\n') << "the tail starts with one";
  const std::string note = copy.substr(kept.head_bytes, copy.size() - kept.head_bytes - kept.tail_bytes);
  EXPECT_EQ(note, cut_note(kept.original_bytes, kept.head_bytes, kept.tail_bytes, limits.max_log_bytes));
  EXPECT_THAT(note, HasSubstr(std::to_string(text.size() - kept.head_bytes - kept.tail_bytes) + " bytes cut here"));
  EXPECT_THAT(note, HasSubstr("evidence.max_log_mb"));
  EXPECT_THAT(copy, ::testing::EndsWith("line 99999 " + std::string(29, 'x') + "\n"));
}

TEST_F(EvidenceArchiveTest, ALargeCopyIsCompressedAndReadBackByOffsetAndFromItsEnd) {
  const std::string text = numbered_lines(200000);  // 8 MB
  KeepLimits limits;
  limits.max_log_bytes = 0;
  const KeptFile kept = archive(limits).keep({"R1", 1, "t1", "", "memstress", EvidenceKind::sim_log},
                                             source("sim.log", text));
  ASSERT_TRUE(kept.compressed);
  EXPECT_EQ(kept.path.filename(), "sim.log.gz");
  EXPECT_LT(kept.stored_bytes, text.size() / 4);
  EXPECT_EQ(kept.stored_bytes, fs::file_size(kept.path));
  const KeptFileReader reader(kept.path, true);
  EXPECT_EQ(reader.size(), text.size());
  EXPECT_EQ(reader.read(3000000, 1 << 20), text.substr(3000000, 1 << 20));
  EXPECT_EQ(reader.tail(2, 1 << 20), text.substr(text.size() - 82));
  const KeptFileReader plain(source("plain.log", text), false);
  EXPECT_EQ(plain.tail(2, 1 << 20), reader.tail(2, 1 << 20)) << "read alike whatever the form";
  EXPECT_EQ(plain.tail(100000, 4096), reader.tail(100000, 4096));
}

TEST_F(EvidenceArchiveTest, AFollowerOfTheLiveLogGoesOnWhereItWasInTheCutCopy) {
  const std::string text = numbered_lines(100000);
  KeepLimits limits;
  limits.max_log_bytes = 1 << 20;
  const KeptFile kept = archive(limits).keep(build_place(), source("big.log", text));
  const KeptFileReader reader(kept.path, kept.compressed);
  const std::uint64_t size = reader.size();
  EXPECT_EQ(kept_offset(kept, size, 10), 10u);
  EXPECT_EQ(kept_offset(kept, size, kept.head_bytes + 5), kept.head_bytes) << "in the cut: the note";
  const std::uint64_t in_tail = text.size() - 100;
  EXPECT_EQ(reader.read(kept_offset(kept, size, in_tail), 1000), text.substr(in_tail));
  EXPECT_EQ(kept_offset(kept, size, text.size()), size);
}

TEST_F(EvidenceArchiveTest, ASymbolicLinkOrAMissingFileIsRefusedAndLeavesNothing) {
  const fs::path target = source("target.log", "secret\n");
  const fs::path link = fs::path(dir_.path()) / "link.log";
  fs::create_symlink(target, link);
  EXPECT_THROW(archive().keep(build_place(), link), os::FileError);
  EXPECT_THROW(archive().keep(build_place(), fs::path(dir_.path()) / "none.log"), os::FileError);
  EXPECT_FALSE(fs::exists(fs::path(dir_.path()) / "runs/R1/iter1/t1/build.log"));
}

TEST_F(EvidenceArchiveTest, RemovingARunRemovesItsDirectoryAndNoOtherRunsFiles) {
  archive().keep(build_place("R1"), source("a.log", "a\n"));
  const KeptFile other = archive().keep(build_place("R2"), source("b.log", "b\n"));
  archive().remove_run("R1");
  EXPECT_FALSE(fs::exists(archive().run_path("R1")));
  EXPECT_TRUE(fs::exists(other.path));
  EXPECT_NO_THROW(archive().remove_run("R1")) << "a run without evidence has nothing to remove";
}

TEST(RetentionTest, TheRunsThatFinishedFirstGoFirstUntilTheArchiveFits) {
  const std::int64_t day = 24ll * 3600 * 1000, now = 100 * day;
  RetentionLimits limits{300, day};
  const auto plan = plan_retention({{"new", true, now - day / 2, 200},
                                    {"old", true, now - 10 * day, 100},
                                    {"older", true, now - 20 * day, 100},
                                    {"middle", true, now - 5 * day, 100}},
                                   limits, now);
  EXPECT_EQ(plan.total_bytes, 500u);
  EXPECT_EQ(plan.remove, (std::vector<std::string>{"older", "old"}));
  EXPECT_EQ(plan.freed_bytes, 200u);
  EXPECT_FALSE(plan.still_over);
}

TEST(RetentionTest, ARunningOrRecentRunIsNeverTouchedEvenOverTheLimit) {
  const std::int64_t hour = 3600ll * 1000, now = 1000 * hour;
  RetentionLimits limits{100, 24 * hour};
  const auto plan = plan_retention({{"running", false, 0, 500}, {"recent", true, now - hour, 500}}, limits, now);
  EXPECT_TRUE(plan.remove.empty());
  EXPECT_TRUE(plan.still_over);
  EXPECT_TRUE(plan_retention({{"a", true, 0, 100}}, limits, now).remove.empty()) << "within the limit";
}

}  // namespace
}  // namespace mace::evidence
