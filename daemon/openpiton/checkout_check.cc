#include "openpiton/checkout_check.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "os/file_io.h"
#include "os/text.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;

// The files each patch step edits, and how to tell it has: the markers patch_openpiton.sh
// writes, or for the testbench the seven assignments it makes non-blocking.
constexpr const char* kTestbench = "piton/verif/env/manycore/ciop_iob.v.pyv";
constexpr const char* kTile = "piton/design/chip/tile/rtl/tile.v.pyv";
constexpr const char* kTestbenchMain = "piton/tools/verilator/my_top.cpp";
constexpr const char* kPal = "piton/tools/local/pal/1.13/bin/pal";
constexpr const char* kTileMarker = "MACE first request";
constexpr const char* kCoverageMarker = "MACE (scripts/patch_openpiton.sh): a model built with coverage";
constexpr const char* kPalHardCodedTmp = "\"/usr/tmp/$name.$$.";
constexpr std::array<const char*, 7> kBlockingAssignments = {
    "out_buffer[i] = 0;",
    "out_buffer_val[i] = 1'b0;",
    "out_buffer[out_write_index + 1] = iob_buffer_data[63:0];",
    "out_buffer[out_write_index] = iob_buffer_data[127:64];",
    "out_buffer_val[out_write_index] = 1'b1;",
    "out_buffer_val[out_write_index + 1] = 1'b1;",
    "out_buffer_val[out_read_index] = 1'b0;",
};

// Source files of a checkout are small; anything larger is not the file we know.
constexpr std::size_t kMaxSourceBytes = 8 << 20;

bool has_line(std::string_view text, std::string_view wanted) {
  for (std::string_view line : os::split_at_newlines(text))
    if (os::trim(line) == wanted) return true;
  return false;
}

std::string non_blocking(std::string_view assignment) {
  std::string text(assignment);
  text.replace(text.find(" = "), 3, " <= ");
  return text;
}

enum class TestbenchState { patched, unpatched, unknown };

TestbenchState testbench_state(std::string_view text) {
  int blocking = 0, patched = 0;
  for (const char* assignment : kBlockingAssignments) {
    if (has_line(text, assignment)) ++blocking;
    if (has_line(text, non_blocking(assignment))) ++patched;
  }
  if (patched == static_cast<int>(kBlockingAssignments.size()) && blocking == 0)
    return TestbenchState::patched;
  if (blocking > 0) return TestbenchState::unpatched;
  return TestbenchState::unknown;
}

// Whether this process may write into `dir` (its effective IDs; a read-only file system
// too). Reasons other than EACCES, EPERM and EROFS (the directory is gone) are not ours to
// report here.
std::optional<std::string> unwritable(const fs::path& dir) {
  if (::faccessat(AT_FDCWD, dir.c_str(), W_OK, AT_EACCESS) == 0) return std::nullopt;
  const int error = errno;
  if (error != EACCES && error != EPERM && error != EROFS) return std::nullopt;
  return dir.string() + ": " + std::strerror(error);
}

void check_patches(const fs::path& root, std::optional<int> verilator_major,
                   std::vector<CheckoutFinding>& out) {
  if (auto text = os::try_read_file(root / kTestbench, kMaxSourceBytes)) {
    switch (testbench_state(*text)) {
      case TestbenchState::patched: break;
      case TestbenchState::unpatched:
        if (verilator_major.value_or(5) >= 5)
          out.push_back({CheckoutProblem::testbench_unpatched, kTestbench});
        break;
      case TestbenchState::unknown:
        out.push_back({CheckoutProblem::testbench_unknown, kTestbench});
        break;
    }
  } else {
    out.push_back({CheckoutProblem::testbench_unknown, std::string(kTestbench) + " cannot be read"});
  }
  if (auto text = os::try_read_file(root / kTile, kMaxSourceBytes);
      text && text->find(kTileMarker) == std::string::npos)
    out.push_back({CheckoutProblem::tile_unpatched, kTile});
  if (auto text = os::try_read_file(root / kTestbenchMain, kMaxSourceBytes);
      text && text->find(kCoverageMarker) == std::string::npos)
    out.push_back({CheckoutProblem::coverage_unpatched, kTestbenchMain});
  if (auto text = os::try_read_file(root / kPal, kMaxSourceBytes);
      text && text->find(kPalHardCodedTmp) != std::string::npos)
    out.push_back({CheckoutProblem::pal_unpatched, kPal});
}

bool allowed_path_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || os::is_ascii_digit(c) ||
         std::strchr("/._-@", c) != nullptr;
}

}  // namespace

std::optional<std::string> unusable_path_reason(std::string_view path) {
  if (path.find("-B") != std::string_view::npos)
    return "it contains \"-B\", which OpenPiton's bw_cpp deletes from every argument (sims "
           "then dies with \"could not find manycore in sims.config\")";
  for (char c : path) {
    if (allowed_path_char(c)) continue;
    const auto byte = static_cast<unsigned char>(c);
    char shown[32];
    if (byte == ' ') std::snprintf(shown, sizeof shown, "a space");
    else if (byte < 0x20 || byte >= 0x7f) std::snprintf(shown, sizeof shown, "byte 0x%02x", byte);
    else std::snprintf(shown, sizeof shown, "\"%c\"", c);
    return std::string("it contains ") + shown +
           ", which OpenPiton's shell scripts do not pass on safely (a checkout's path may hold "
           "letters, digits and /._-@ only)";
  }
  return std::nullopt;
}

std::vector<CheckoutFinding> check_checkout(const fs::path& root,
                                            std::optional<int> verilator_major) {
  std::vector<CheckoutFinding> out;
  std::error_code error;
  const fs::file_status status = fs::status(root, error);
  if (error && error != std::errc::no_such_file_or_directory && error != std::errc::not_a_directory) {
    out.push_back({CheckoutProblem::inaccessible, root.string() + ": " + error.message()});
    return out;
  }
  if (!fs::exists(status)) {
    out.push_back({CheckoutProblem::missing, root.string()});
    return out;
  }
  if (!fs::is_directory(status)) {
    out.push_back({CheckoutProblem::not_a_directory, root.string()});
    return out;
  }
  if (::faccessat(AT_FDCWD, root.c_str(), R_OK | X_OK, AT_EACCESS) != 0) {
    out.push_back({CheckoutProblem::inaccessible, root.string() + ": " + std::strerror(errno)});
    return out;
  }
  for (const char* required : {"piton/piton_settings.bash", "piton/tools/bin/sims"}) {
    if (!fs::exists(root / required, error)) {
      out.push_back({CheckoutProblem::not_openpiton, std::string("no ") + required});
      return out;
    }
  }
  // As configured and as it resolves: sims sees the one and pwd-based tools the other.
  std::optional<std::string> path_reason = unusable_path_reason(root.string());
  if (!path_reason) {
    const fs::path resolved = fs::canonical(root, error);
    if (!error && resolved != root) {
      if (auto reason = unusable_path_reason(resolved.string()))
        path_reason = "it resolves to " + resolved.string() + ", and " + *reason;
    }
  }
  if (path_reason) out.push_back({CheckoutProblem::unusable_path, *path_reason});
  for (const fs::path& dir : {root, root / "build", root / "piton/design/chip/tile/rtl",
                              root / "piton/verif/env/manycore"}) {
    if (!fs::is_directory(dir, error)) continue;
    if (auto why = unwritable(dir)) {
      out.push_back({CheckoutProblem::not_writable, *why});
      break;
    }
  }
  check_patches(root, verilator_major, out);
  return out;
}

}  // namespace mace::openpiton
