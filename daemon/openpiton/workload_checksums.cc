// REQ-BUD-7/8: MACE's own workload programs are checked against workloads/CHECKSUMS before
// a run uses them.
#include "openpiton/workload_checksums.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <system_error>

#include "os/file_io.h"
#include "os/sha256.h"

namespace mace::openpiton {

namespace {

namespace fs = std::filesystem;

// The file types CHECKSUMS covers.
bool is_program_file(const fs::path& path) {
  static const std::set<std::string> kExtensions = {".c", ".h", ".s", ".S", ".ev"};
  const std::string name = path.filename().string();
  if (name == "CHECKSUMS" || name == "README.md") return false;
  return kExtensions.count(path.extension().string()) != 0;
}

bool regular_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

bool is_hex_digest(const std::string& text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](unsigned char c) {
           return std::isxdigit(c) != 0;
         });
}

std::string lower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool is_safe_relative(const std::string& path) {
  if (path.empty() || path[0] == '/') return false;
  for (const auto& part : fs::path(path)) {
    if (part == ".." || part == ".") return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> verify_workload_checksums(const fs::path& workloads_dir) {
  std::vector<std::string> problems;
  const fs::path list = workloads_dir / "CHECKSUMS";

  // Every program file present, relative to workloads/ with '/' separators.
  std::set<std::string> present;
  std::error_code ec;
  fs::recursive_directory_iterator it(workloads_dir, fs::directory_options::none, ec);
  if (ec) {
    problems.push_back("cannot read workloads directory " + workloads_dir.string() + ": " +
                       ec.message());
    return problems;
  }
  for (const fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
    if (ec) {
      problems.push_back("cannot list " + workloads_dir.string() + ": " + ec.message());
      return problems;
    }
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;
    if (!is_program_file(it->path())) continue;
    present.insert(it->path().lexically_relative(workloads_dir).generic_string());
  }

  std::ifstream in(list, std::ios::binary);
  if (!in) {
    problems.push_back("CHECKSUMS: missing or unreadable (" + list.string() + ")");
    return problems;
  }

  std::map<std::string, std::string> listed;  // path -> digest (lowercase)
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    // "<64 hex digits><space><space or '*'><path>", as sha256sum writes it.
    const std::string digest = line.substr(0, 64);
    const bool well_formed = line.size() > 66 && is_hex_digest(digest) && line[64] == ' ' &&
                             (line[65] == ' ' || line[65] == '*');
    const std::string path = well_formed ? line.substr(66) : "";
    if (!well_formed || !is_safe_relative(path)) {
      problems.push_back("CHECKSUMS line " + std::to_string(number) +
                         " is malformed (want '<sha256>  <path relative to workloads/>'): " +
                         line.substr(0, 200));
      continue;
    }
    if (listed.count(path) != 0) {
      problems.push_back("CHECKSUMS line " + std::to_string(number) + " lists " + path +
                         " a second time");
      continue;
    }
    listed[path] = lower(digest);
  }

  for (const auto& [path, digest] : listed) {
    const fs::path file = workloads_dir / path;
    if (!regular_file(file)) {
      problems.push_back(path + ": listed in CHECKSUMS but missing");
      continue;
    }
    if (present.count(path) == 0) {
      problems.push_back(path + ": listed in CHECKSUMS but not a program file");
      continue;
    }
    std::string actual;
    try {
      actual = os::sha256_file_hex(file);
    } catch (const os::FileError& e) {
      problems.push_back(path + ": " + e.what());
      continue;
    }
    if (actual != digest) {
      problems.push_back(path + ": changed (CHECKSUMS has " + digest + ", the file has " +
                         actual + ")");
    }
  }
  for (const auto& path : present) {
    if (listed.count(path) == 0) problems.push_back(path + ": not listed in CHECKSUMS");
  }
  return problems;
}

}  // namespace mace::openpiton
