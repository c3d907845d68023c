#include "earlier_states.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "child_process.h"
#include "store/sqlite.h"

namespace mace::testing {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

}  // namespace

std::vector<EarlierState> earlier_states() {
  std::vector<EarlierState> states;
  for (const auto& entry : fs::directory_iterator(fs::path(source_root()) / "tests/store/upgrade")) {
    const std::string name = entry.path().filename();
    if (!entry.is_directory() || name.size() < 2 || name[0] != 'v') continue;
    EarlierState state;
    state.schema_version = std::stoi(name.substr(1));
    state.dir = entry.path();
    state.made_by = read_all(entry.path() / "made_by");
    states.push_back(std::move(state));
  }
  std::sort(states.begin(), states.end(),
            [](const EarlierState& a, const EarlierState& b) { return a.schema_version < b.schema_version; });
  return states;
}

void lay_out(const EarlierState& earlier, const fs::path& state_dir, const fs::path& checkout_dir) {
  fs::create_directories(state_dir);
  if (fs::exists(earlier.dir / "runs")) fs::copy(earlier.dir / "runs", state_dir / "runs", fs::copy_options::recursive);
  std::string sql = read_all(earlier.dir / "mace.sql");
  replace_all(sql, "@STATE@", state_dir.string());
  replace_all(sql, "@CHECKOUT@", checkout_dir.string());
  replace_all(sql, "@WORK@", state_dir.parent_path().string());
  store::Database db(state_dir / "mace.db");
  db.exec(sql);
}

}  // namespace mace::testing
