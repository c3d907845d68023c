#include "tools/testbench_tool.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <simdjson.h>

#include "os/errno_text.h"
#include "os/file_io.h"
#include "tools/tool_arguments.h"

namespace mace::tools {

namespace fs = std::filesystem;

namespace {

// Every key of the arguments object must be one the method takes: a `path` the model adds
// must fail loudly, not be ignored while the fixed file is written.
void require_only(std::string_view json, std::initializer_list<std::string_view> allowed) {
  if (json.find_first_not_of(" \t\r\n") == std::string_view::npos) return;
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::object object;
  if (parser.parse(padded).get_object().get(object) != simdjson::SUCCESS) {
    throw ToolArgumentError("arguments must be a JSON object");
  }
  for (auto field : object) {
    std::string_view key = field.key;
    bool ok = false;
    for (auto a : allowed) ok = ok || a == key;
    if (!ok) {
      throw ToolArgumentError("unexpected argument '" + std::string(key) +
                              "': this tool works on one fixed file and takes no path");
    }
  }
}

std::string read_capped(const fs::path& path, std::size_t cap, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(std::string("cannot read the ") + what + ": " + os::errno_text(errno));
  std::string text(cap + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > cap) {
    text.resize(cap);
    text += "\n[... cut at " + std::to_string(cap) + " bytes]\n";
  }
  return text;
}

// Through a sibling temporary file renamed over `path`: the rename replaces whatever is at
// `path` (a symlink included) instead of writing through it, and a failed write leaves the
// old testbench whole.
void replace_file(const fs::path& path, std::string_view content) {
  try {
    os::write_file_atomically(path, content,
                              {.durable = false, .temp_path = path.string() + ".mace-tmp"});
  } catch (const os::FileError& e) {
    throw std::runtime_error(std::string("cannot write the testbench: ") +
                             os::errno_text(e.error()));
  }
}

}  // namespace

std::string unit_test_tool_name(std::string_view task_id) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(task_id.data(), task_id.size(), digest, &size, EVP_sha1(), nullptr) != 1 ||
      size < 4) {
    throw std::runtime_error("SHA-1 is not available from libcrypto");
  }
  static const char kHex[] = "0123456789abcdef";
  std::string name = "ut_edit_";
  for (int i = 0; i < 4; ++i) {
    name += kHex[digest[i] >> 4];
    name += kHex[digest[i] & 0xf];
  }
  return name;
}

llm::Tool make_testbench_tool(std::string_view task_id, fs::path testbench, fs::path dut_source) {
  llm::Tool tool;
  tool.name = unit_test_tool_name(task_id);
  tool.description =
      "Reconcile this unit-test task's testbench (" + testbench.filename().string() +
      ") with the module under test (" + dut_source.filename().string() +
      "): read the testbench, read the module's source, and rewrite the testbench whole. "
      "No other file can be read or written.";
  tool.methods = {
      {"read_testbench", "Returns the full text of the task's testbench.",
       R"({"type":"object","properties":{}})"},
      {"write_testbench",
       "Replaces the task's testbench with `content`, which must be the complete new file "
       "(not a diff). Nothing else is written.",
       R"({"type":"object","properties":{"content":{"type":"string","description":"the complete new testbench"}},"required":["content"]})"},
      {"read_dut_source", "Returns the full text of the module under test's source file.",
       R"({"type":"object","properties":{}})"},
  };
  tool.call = [testbench = std::move(testbench), dut_source = std::move(dut_source)](
                  const std::string& method, const std::string& arguments_json) {
    llm::ToolCallResult result;
    try {
      if (method == "read_testbench") {
        require_only(arguments_json, {});
        ToolArguments::parse(arguments_json);
        result.content = read_capped(testbench, kTestbenchMaxBytes, "testbench");
      } else if (method == "read_dut_source") {
        require_only(arguments_json, {});
        ToolArguments::parse(arguments_json);
        result.content = read_capped(dut_source, kDutSourceMaxBytes, "module source");
      } else if (method == "write_testbench") {
        require_only(arguments_json, {"content"});
        std::string content = ToolArguments::parse(arguments_json).string("content");
        if (content.size() > kTestbenchMaxBytes) {
          throw ToolArgumentError("content is " + std::to_string(content.size()) +
                                  " bytes; a testbench may have at most " +
                                  std::to_string(kTestbenchMaxBytes));
        }
        replace_file(testbench, content);
        result.content = "wrote " + std::to_string(content.size()) + " bytes to " +
                         testbench.filename().string();
      } else {
        result.ok = false;
        result.content = "unknown method '" + method +
                         "'; the methods are read_testbench, write_testbench, read_dut_source";
      }
    } catch (const std::exception& e) {
      result.ok = false;
      result.content = e.what();
    }
    return result;
  };
  return tool;
}

}  // namespace mace::tools
