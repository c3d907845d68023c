// spec-hardening finding 3: text in a spec is what it claims to be. The JSON text has no
// NUL byte and is UTF-8; every string of the spec is printable (the objective may also hold
// newlines and tabs), refused with its field path otherwise, from JSON and from the typed
// (structured) form alike; and no message carries the refused characters to a terminal.

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/run_spec.h"
#include "run_spec_test_support.h"

namespace mace {
namespace {

using spec_test::errors_for;
using spec_test::parsed;
using spec_test::spec_json;
using spec_test::valid_spec;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::Not;
using testing::StartsWith;

constexpr const char* kRightToLeftOverride = "\xe2\x80\xae";  // U+202E

const std::string kNulRule = "a run spec must not contain a NUL byte, got one at byte ";

TEST(SpecText, ANulByteAnywhereRefusesTheSpec) {
  // spec-hardening finding 3
  // What `mace spec check` read and what the old client sent (cut at the NUL) differed;
  // now the same bytes reach maced, and it refuses them.
  std::string json = spec_json() + std::string("\0garbage", 8);
  EXPECT_THAT(parse_run_spec_json(json).errors,
              ElementsAre(FieldError{"", kNulRule + std::to_string(spec_json().size())}));
  std::string inside = spec_json();
  inside[inside.find("boot")] = '\0';
  EXPECT_THAT(parse_run_spec_json(inside).errors,
              ElementsAre(FieldError{"", kNulRule + std::to_string(inside.find('\0'))}));
}

TEST(SpecText, BytesThatAreNotUtf8RefuseTheSpec) {
  // spec-hardening finding 3
  std::string json = R"({"workloads":["hello"],"objective":"caf)" "\xe9" R"("})";
  EXPECT_THAT(parse_run_spec_json(json).errors,
              ElementsAre(FieldError{"", "a run spec must be UTF-8 text, got bytes that are not "
                                         "UTF-8 at byte 39"}));
}

// The escaped forms JSON allows reach the strings decoded; each is refused where it lands.
TEST(SpecText, ControlAndFormattingCharactersInStringsAreRefusedWithTheFieldPath) {
  // spec-hardening finding 3
  const std::vector<std::pair<std::string, std::string>> fields = {
      {"objective", R"("objective":"boot\u0000 linux")"},
      {"model", R"("model":"m\u001b[2J")"},
      {"backend", R"("backend":"direct\u202e")"},
      {"workloads[0]", R"("workloads":["hel\u2066lo"])"},
      {"tools[0]", R"("tools":["a\u200e"])"},
      {"replay.from", R"("replay":{"from":"R\u061c"})"},
      {"workload_args.hello.options[0]",
       R"("workload_args":{"hello":{"options":["-fast_boot\u200f"]}})"},
      {"core_descriptor", R"("core":"generic","core_descriptor":{"isa":"rv32\u202ei"})"},
  };
  for (const auto& [path, member] : fields) {
    SCOPED_TRACE(member);
    std::string json = R"({"workloads":["hello"],"objective":"o",)" + member + "}";
    // A member given twice is a duplicate key: give workloads and objective once.
    if (member.starts_with(R"("workloads")"))
      json = R"({"objective":"o",)" + member + "}";
    if (member.starts_with(R"("objective")"))
      json = R"({"workloads":["hello"],)" + member + "}";
    FieldErrors errors = errors_for(json);
    ASSERT_EQ(errors.size(), 1u) << (errors.empty() ? "none" : errors[0].to_string());
    EXPECT_EQ(errors[0].path, path);
    EXPECT_THAT(errors[0].message, StartsWith("must be printable text"));
  }
}

TEST(SpecText, TheTypedFormIsRefusedTheSame) {
  // spec-hardening finding 3
  RunSpec spec = valid_spec();
  spec.objective = std::string("boot\0 linux", 11);
  spec.model = std::string("m") + kRightToLeftOverride;
  spec.workloads = {std::string("he") + kRightToLeftOverride + "llo"};
  FieldErrors typed = validate_run_spec(spec);
  EXPECT_THAT(typed, ElementsAre(FieldError{"workloads[0]",
                                            "must be printable text, got U+202E (a bidirectional "
                                            "formatting character) at byte 2"},
                                 FieldError{"objective",
                                            "must be printable text (newline and tab allowed), got "
                                            "U+0000 (a control character) at byte 4"},
                                 FieldError{"model",
                                            "must be printable text, got U+202E (a bidirectional "
                                            "formatting character) at byte 1"}));
  EXPECT_EQ(typed, errors_for(run_spec_to_json(spec)));
}

TEST(SpecText, OnlyTheObjectiveMayHaveNewlinesAndTabsAndAnyPrintableCharacterIsAccepted) {
  // spec-hardening finding 3
  RunSpec spec = parsed(spec_json().replace(spec_json().find("boot linux"), 10,
                                            R"(line one\n\tline two)"));
  EXPECT_EQ(spec.objective, "line one\n\tline two");
  EXPECT_THAT(errors_for(spec_json(R"("model":"a\nb")")),
              ElementsAre(FieldError{"model", "must be printable text, got U+000A (a control "
                                              "character) at byte 1"}));
  // The rule is an allowlist of printable characters, not of ASCII.
  RunSpec unicode = parsed(R"({"workloads":["hello"],"model":"mod\u00e8le",
                              "objective":"\u00e9l\u00e8ve \u4e2d\u6587 \ud83d\ude42"})");
  EXPECT_EQ(unicode.model, "mod\xc3\xa8le");
  EXPECT_THAT(validate_run_spec(unicode), IsEmpty());
}

TEST(SpecText, MessagesAndPathsNeverCarryTheRefusedCharacters) {
  // spec-hardening finding 3
  // An unknown key, a program that is not a workload and an echoed value, each with U+202E:
  // the key and value appear escaped, never as the raw bytes.
  std::string json = R"({"workloads":["hello"],"objective":"o","x\u202e":1,)"
                     R"("workload_args":{"p\u202e":{}},"backend":"v\u202e"})";
  FieldErrors errors = errors_for(json);
  ASSERT_EQ(errors.size(), 3u) << (errors.empty() ? "none" : errors[0].to_string());
  for (const FieldError& e : errors) {
    EXPECT_THAT(e.path, Not(HasSubstr(kRightToLeftOverride)));
    EXPECT_THAT(e.message, Not(HasSubstr(kRightToLeftOverride)));
  }
  EXPECT_EQ(errors[0].path, R"(workload_args."p\u202e")");
  EXPECT_EQ(errors[2].path, R"("x\u202e")");
  // Printable but unusual characters are shown as they are.
  EXPECT_THAT(errors_for(spec_json(R"("backend":"caf\u00e9")"))[0].message,
              HasSubstr("got \"caf\xc3\xa9\""));
}

}  // namespace
}  // namespace mace
