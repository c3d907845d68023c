// The core descriptor of the core generic: its form (REQ-PLAN-1) and the Generic Tile's
// support check (REQ-EXEC-20).

#include "core/core_descriptor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/run_spec.h"

namespace mace {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// PicoRV32 itself, described as a generic core.
constexpr std::string_view kPico = R"({
  "name": "picorv32", "isa": "RV32IMA", "harts": 1, "mmu": false, "top_module": "picorv32",
  "files": ["piton/design/chip/tile/pico/rtl/picorv32.v"],
  "reset_vector": "0x40000000",
  "memory_interface": {"protocol": "picorv32_native", "ports": 1, "data_width": 32, "address_width": 32},
  "parameters": {"PROGADDR_RESET": "32'h4000_0000", "ENABLE_MUL": 1}
})";

CoreDescriptor parsed(std::string_view json) {
  auto r = parse_core_descriptor(json);
  EXPECT_THAT(r.errors, IsEmpty());
  return r.descriptor.value_or(CoreDescriptor{});
}

std::string with(std::string_view field_json) {
  std::string base(kPico);
  base.insert(base.find('{') + 1, std::string(field_json) + ",");
  return base;
}

TEST(CoreDescriptor, ReadsEveryField) {  // REQ-PLAN-1
  CoreDescriptor d = parsed(kPico);
  EXPECT_EQ(d.name, "picorv32");
  EXPECT_EQ(d.isa, "RV32IMA");
  EXPECT_EQ(d.top_module, "picorv32");
  EXPECT_THAT(d.files, ElementsAre("piton/design/chip/tile/pico/rtl/picorv32.v"));
  EXPECT_EQ(d.reset_vector, 0x40000000u);
  EXPECT_FALSE(d.link_script);
  EXPECT_EQ(d.memory_interface.protocol, "picorv32_native");
  ASSERT_EQ(d.parameters.size(), 2u);
  EXPECT_EQ(descriptor_march(d), "rv32ima");
  EXPECT_EQ(reset_vector_text(d.reset_vector), "0x40000000");
  EXPECT_THAT(generic_tile_support_problems(d), IsEmpty());
}

TEST(CoreDescriptor, EveryFormErrorNamesItsField) {  // REQ-PLAN-1
  auto r = parse_core_descriptor(R"({"name":"a b","isa":"rv32i","harts":0,"mmu":"no",
      "top_module":"x;y","files":["/etc/passwd","piton/design/../x.v","piton/design/a.c"],
      "reset_vector":"40000000","link_script":"","memory_interface":{"protocol":"obi","ports":9},
      "parameters":{"P":"1); evil"},"colour":"red"})");
  std::vector<std::string> paths;
  for (const auto& e : r.errors) paths.push_back(e.path);
  EXPECT_THAT(paths, ElementsAre("core_descriptor.colour", "core_descriptor.files[0]",
                                 "core_descriptor.files[1]", "core_descriptor.files[2]",
                                 "core_descriptor.harts", "core_descriptor.isa",
                                 "core_descriptor.link_script",
                                 "core_descriptor.memory_interface.ports",
                                 "core_descriptor.mmu", "core_descriptor.name",
                                 "core_descriptor.parameters.P", "core_descriptor.reset_vector",
                                 "core_descriptor.top_module"));
  EXPECT_FALSE(r.descriptor);
}

TEST(CoreDescriptor, RequiredFieldsAreNamed) {
  auto r = parse_core_descriptor("{}");
  std::vector<std::string> paths;
  for (const auto& e : r.errors) paths.push_back(e.path + ": " + e.message);
  EXPECT_THAT(paths, ElementsAre("core_descriptor.files: required", "core_descriptor.isa: required",
                                 "core_descriptor.memory_interface: required",
                                 "core_descriptor.name: required",
                                 "core_descriptor.reset_vector: required",
                                 "core_descriptor.top_module: required"));
}

TEST(CoreDescriptor, ListsAreBounded) {
  std::string files = "[";
  for (std::size_t i = 0; i <= kMaxDescriptorFiles; ++i)
    files += (i ? "," : "") + std::string("\"piton/design/f") + std::to_string(i) + ".v\"";
  files += "]";
  std::string json(kPico);
  json.replace(json.find("[\"piton"), json.find("],") + 1 - json.find("[\"piton"), files);
  auto r = parse_core_descriptor(json);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].path, "core_descriptor.files");
  EXPECT_THAT(r.errors[0].message, HasSubstr("at most 256"));
}

// A spec of the core generic is checked with its descriptor's form, and needs RTL edits.
TEST(CoreDescriptor, ASpecReportsItsDescriptorsErrorsAndNeedsRtlEdits) {  // REQ-PLAN-1
  RunSpec spec;
  spec.core = Core::generic;
  spec.workloads = {"hello"};
  spec.objective = "Host the core";
  spec.core_descriptor_json = R"({"name":"x"})";
  auto errors = validate_run_spec(spec);
  std::vector<std::string> paths;
  for (const auto& e : errors) paths.push_back(e.path);
  EXPECT_THAT(paths, ::testing::Contains("core_descriptor.isa"));
  EXPECT_THAT(paths, ::testing::Contains("options.rtl_edits"));
}

TEST(GenericTileSupport, SaysWhatTheTileCannotHost) {  // REQ-EXEC-20
  auto problems = [](std::string_view field) {
    return generic_tile_support_problems(parsed(with(field)));
  };
  EXPECT_THAT(problems(R"("isa":"RV64IMA")"), ElementsAre(HasSubstr("32-bit cores only")));
  EXPECT_THAT(problems(R"("isa":"RV32EM")"), ElementsAre(HasSubstr("base ISA must be RV32I")));
  EXPECT_THAT(problems(R"("isa":"RV32IMF")"), ElementsAre(HasSubstr("extension F")));
  EXPECT_THAT(problems(R"("isa":"RV32IM_ZICSR")"), IsEmpty());
  EXPECT_THAT(problems(R"("isa":"RV32I_ZBB")"), ElementsAre(HasSubstr("extension ZBB")));
  EXPECT_THAT(problems(R"("harts":2)"), ElementsAre(HasSubstr("one hart")));
  EXPECT_THAT(problems(R"("mmu":true)"), ElementsAre(HasSubstr("without an MMU")));
  EXPECT_THAT(problems(R"("reset_vector":"0x40000002")"), ElementsAre(HasSubstr("word-aligned")));
  EXPECT_THAT(problems(R"("memory_interface":{"protocol":"tilelink"})"),
              ElementsAre(HasSubstr("not a protocol the wrapper can adapt")));
  EXPECT_THAT(problems(R"("memory_interface":{"protocol":"obi","data_width":64})"),
              ElementsAre(HasSubstr("32-bit words")));
  EXPECT_THAT(problems(R"("memory_interface":{"protocol":"axi4_lite","ports":3})"),
              ElementsAre(HasSubstr("at most 2")));
}

}  // namespace
}  // namespace mace
