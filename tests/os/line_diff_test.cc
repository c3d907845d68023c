#include "os/line_diff.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/checkout_files.h"
#include "support/child_process.h"

namespace mace::os {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using mace::testing::ProcessResult;
using mace::testing::run_process;
using mace::testing::TempDir;

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

TEST(LineDiffTest, EqualSequencesHaveNoChanges) {
  std::vector<int> a{1, 2, 3};
  EXPECT_TRUE(diff_lines(a, a).changes.empty());
  EXPECT_TRUE(diff_lines(std::vector<int>{}, std::vector<int>{}).changes.empty());
}

TEST(LineDiffTest, ChangesArePlacedInTheWholeSequences) {
  std::vector<int> a{1, 2, 3, 4, 5, 6};
  std::vector<int> b{1, 2, 9, 4, 5, 6, 7};
  LineDiff d = diff_lines(a, b);
  EXPECT_TRUE(d.minimal);
  EXPECT_THAT(d.changes, ElementsAre(LineChange{2, 1, 2, 1}, LineChange{6, 0, 6, 1}));
}

TEST(LineDiffTest, PureInsertionAndDeletion) {
  EXPECT_THAT(diff_lines(std::vector<int>{1, 3}, std::vector<int>{1, 2, 3}).changes,
              ElementsAre(LineChange{1, 0, 1, 1}));
  EXPECT_THAT(diff_lines(std::vector<int>{1, 2, 3}, std::vector<int>{}).changes,
              ElementsAre(LineChange{0, 3, 0, 0}));
}

TEST(LineDiffTest, BeyondTheCapOneChangeCoversTheMiddle) {
  std::vector<int> a, b;
  a.push_back(0);
  b.push_back(0);
  for (int i = 0; i < 50; ++i) {
    a.push_back(100 + i);
    b.push_back(200 + i);
  }
  a.push_back(1);
  b.push_back(1);
  LineDiff d = diff_lines(a, b, 10);
  EXPECT_FALSE(d.minimal);
  EXPECT_THAT(d.changes, ElementsAre(LineChange{1, 50, 1, 50}));
  EXPECT_TRUE(diff_lines(a, b, 100).minimal);
}

TEST(LineDiffTest, StringLinesDiffLikeIntegers) {
  std::vector<std::string_view> a{"x", "y", "z"}, b{"x", "z"};
  EXPECT_THAT(diff_lines(a, b).changes, ElementsAre(LineChange{1, 1, 1, 0}));
}

TEST(UnifiedDiffTest, SmallDiffHasTheExpectedShape) {
  std::string old_text, new_text;
  for (int i = 1; i <= 10; ++i) old_text += "line " + std::to_string(i) + "\n";
  new_text = old_text;
  new_text.replace(new_text.find("line 5\n"), 7, "line five\n");
  EXPECT_EQ(unified_diff_text(old_text, new_text, "a/f.v", "b/f.v"),
            "--- a/f.v\n+++ b/f.v\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n"
            "+line five\n line 6\n line 7\n line 8\n");
  EXPECT_EQ(unified_diff_text("a\n", "a\n", "a/f", "b/f"), "");
  EXPECT_EQ(unified_diff_text("", "x\n", "/dev/null", "b/f"),
            "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+x\n");
  EXPECT_EQ(unified_diff_text("x", "y", "a/f", "b/f"),
            "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n"
            "\\ No newline at end of file\n");
}

TEST(UnifiedDiffTest, FarChangesMakeTwoHunksAndCreationStartsAtZero) {
  std::string old_text, new_text;
  for (int i = 1; i <= 20; ++i) {
    old_text += std::to_string(i) + "\n";
    new_text += (i == 2 || i == 19 ? "x" : std::to_string(i)) + "\n";
  }
  std::string diff = unified_diff_text(old_text, new_text, "a", "b");
  EXPECT_NE(diff.find("@@ -1,5 +1,5 @@"), std::string::npos) << diff;
  EXPECT_NE(diff.find("@@ -16,5 +16,5 @@"), std::string::npos) << diff;
  EXPECT_EQ(unified_diff_text("", "new\n", "/dev/null", "b/f"),
            "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+new\n");
}

// Random edits of a file; each diff must turn the old text into the new one under git apply.
TEST(UnifiedDiffTest, RandomEditsRoundTripThroughGitApply) {
  TempDir dir;
  std::mt19937 random(12345);
  for (int round = 0; round < 40; ++round) {
    std::vector<std::string> lines;
    const int length = static_cast<int>(random() % 60);
    for (int i = 0; i < length; ++i) lines.push_back("l" + std::to_string(random() % 8) + "\n");
    std::string old_text;
    for (const auto& l : lines) old_text += l;
    const int changes = 1 + static_cast<int>(random() % 6);
    for (int c = 0; c < changes; ++c) {
      const size_t at = lines.empty() ? 0 : random() % (lines.size() + 1);
      switch (random() % 3) {
        case 0: lines.insert(lines.begin() + static_cast<long>(at), "new" + std::to_string(c) + "\n"); break;
        case 1: if (at < lines.size()) lines.erase(lines.begin() + static_cast<long>(at)); break;
        default: if (at < lines.size()) lines[at] = "changed" + std::to_string(c) + "\n"; break;
      }
    }
    std::string new_text;
    for (const auto& l : lines) new_text += l;
    if (round % 5 == 0 && !new_text.empty()) new_text.pop_back();  // drop the last newline
    if (round % 7 == 0 && !old_text.empty()) old_text.pop_back();
    if (old_text.empty() || old_text == new_text) continue;

    write_text(fs::path(dir.path()) / "f.txt", old_text);
    const std::string diff = unified_diff_text(old_text, new_text, "a/f.txt", "b/f.txt");
    mace::testing::ProcessOptions options;
    options.stdin_text = diff;
    // Outside a repository git apply works relative to the current directory.
    ProcessResult result = run_process({"sh", "-c", "cd '" + dir.path() + "' && git apply -"}, options);
    ASSERT_EQ(result.exit_code, 0) << "round " << round << "\n" << result.err << diff;
    EXPECT_EQ(mace::testing::read_file(dir.file("f.txt")), new_text) << "round " << round << "\n" << diff;
  }
}

TEST(UnifiedDiffTest, LargeRewriteStillGivesACorrectDiff) {
  std::string old_text, new_text;
  for (int i = 0; i < 5000; ++i) {
    old_text += "old " + std::to_string(i) + "\n";
    new_text += "new " + std::to_string(i) + "\n";
  }
  const std::string diff = unified_diff_text(old_text, new_text, "a/f", "b/f");
  EXPECT_THAT(diff, HasSubstr("@@ -1,5000 +1,5000 @@\n-old 0\n"));
  EXPECT_THAT(diff, HasSubstr("+new 4999\n"));
}

}  // namespace
}  // namespace mace::os
