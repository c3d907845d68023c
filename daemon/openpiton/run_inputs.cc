#include "openpiton/run_inputs.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <system_error>

namespace mace::openpiton {

namespace fs = std::filesystem;

RunInputs read_run_inputs(const fs::path& dir) {
  RunInputs inputs;
  std::error_code ec;
  std::vector<fs::path> files;
  std::uintmax_t total = 0;
  std::vector<std::string> links;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::file_status status = it->symlink_status(ec);
    if (ec) break;
    if (fs::is_symlink(status)) {
      links.push_back(fs::relative(it->path(), dir, ec).string());
      continue;
    }
    if (!fs::is_regular_file(status)) continue;
    total += it->file_size(ec);
    if (ec) break;
    files.push_back(it->path());
    if (files.size() > kMaxRunInputFiles || total > kMaxRunInputBytes) {
      inputs.note = "the run directory held more than " + std::to_string(kMaxRunInputFiles) + " files or " +
                    std::to_string(kMaxRunInputBytes / 1024) + " KiB before sims started: none kept";
      return inputs;
    }
  }
  if (ec) {
    inputs.note = "cannot read the run directory " + dir.string() + ": " + ec.message();
    return inputs;
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::string content{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (!in.good() && !in.eof()) {
      inputs.files.clear();
      inputs.note = "cannot read " + file.string();
      return inputs;
    }
    inputs.files.push_back({fs::relative(file, dir).string(), std::move(content)});
  }
  if (!links.empty()) {
    inputs.note = "symbolic links not kept:";
    for (const auto& link : links) inputs.note += " " + link;
  }
  return inputs;
}

}  // namespace mace::openpiton
