// The files a task's RTL edits change, read from the unified diff the store keeps.

#include "core/edited_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(EditedFiles, EachFileOfTheDiffOnceInOrder) {
  const std::string diff =
      "--- a/piton/design/chip/tile/l15/rtl/l15.v\n"
      "+++ b/piton/design/chip/tile/l15/rtl/l15.v\n"
      "@@ -40,3 +40,3 @@\n"
      " a\n"
      "-b\n"
      "+c\n"
      " d\n"
      "--- /dev/null\n"
      "+++ b/piton/design/chip/tile/pico/rtl/new.v\n"
      "@@ -0,0 +1 @@\n"
      "+module m; endmodule\n"
      "--- a/piton/design/include/define.h.pyv\n"
      "+++ /dev/null\n"
      "@@ -1 +0,0 @@\n"
      "-gone\n";
  EXPECT_THAT(edited_files(diff),
              ElementsAre("piton/design/chip/tile/l15/rtl/l15.v", "piton/design/chip/tile/pico/rtl/new.v",
                          "piton/design/include/define.h.pyv"));
}

// A removed line "-- a/x" and an added line "++ b/y" read "--- a/x" and "+++ b/y" in a
// hunk: they are content, not headers.
TEST(EditedFiles, HeaderLookingContentIsNotAFile) {
  const std::string diff =
      "--- a/x.v\n"
      "+++ b/x.v\n"
      "@@ -1,2 +1,2 @@\n"
      "--- a/not_a_file.v\n"
      "+++ b/not_a_file.v\n"
      " same\n";
  EXPECT_THAT(edited_files(diff), ElementsAre("x.v"));
}

TEST(EditedFiles, NoEditsNoFiles) {
  EXPECT_THAT(edited_files(""), IsEmpty());
  EXPECT_THAT(edited_files("+++ b/lonely.v\n"), IsEmpty());  // not after a --- header
}

}  // namespace
}  // namespace mace
