#include "fixture_checkout.h"

#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>

#include "child_process.h"

namespace mace::testing {
namespace {

namespace fs = std::filesystem;

// Fixed identity and dates: the same fixture content always gives the same commit ID.
const std::map<std::string, std::string>& git_environment() {
  static const std::map<std::string, std::string> env = {
      {"GIT_AUTHOR_NAME", "MACE fixture"},
      {"GIT_AUTHOR_EMAIL", "fixture@mace.invalid"},
      {"GIT_AUTHOR_DATE", "2024-01-16T12:00:00+0000"},
      {"GIT_COMMITTER_NAME", "MACE fixture"},
      {"GIT_COMMITTER_EMAIL", "fixture@mace.invalid"},
      {"GIT_COMMITTER_DATE", "2024-01-16T12:00:00+0000"},
      {"GIT_CONFIG_NOSYSTEM", "1"},
      {"GIT_CONFIG_GLOBAL", "/dev/null"},
      {"GIT_TERMINAL_PROMPT", "0"},
  };
  return env;
}

void git(const std::string& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"git", "-c", "init.defaultBranch=main",
                                   "-c", "commit.gpgsign=false",
                                   "-c", "core.hooksPath=/dev/null"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions options;
  options.set_env = git_environment();
  // A test run from inside a git hook must not write into that repository.
  options.unset_env = {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
                       "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR"};
  options.in_child = [dir] {
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
  };
  ProcessResult result = run_process(argv, options);
  if (result.exit_code != 0) {
    std::string command;
    for (const auto& a : argv) command += " " + a;
    throw std::runtime_error("fixture checkout:" + command + " failed (exit " +
                             std::to_string(result.exit_code) + "): " + result.err);
  }
}

// The fields of /proc/PID/stat after the command name: [0] is the state, [19] the start
// time. Empty when there is no such process.
std::vector<std::string> proc_stat(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> fields;
  const auto paren = text.rfind(')');
  if (paren == std::string::npos) return fields;
  std::istringstream rest(text.substr(paren + 1));
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

// The process `pid` exists, is not a zombie, and (when `start` is given) is the one that
// started then.
bool running_as_recorded(pid_t pid, const std::string& start) {
  const auto fields = proc_stat(pid);
  if (fields.size() < 20 || fields[0] == "Z" || fields[0] == "X") return false;
  return start.empty() || fields[19] == start;
}

std::string unescape(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      const char next = text[++i];
      out += next == 't' ? '\t' : next == 'n' ? '\n' : next;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    const auto tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  return fields;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The fix a checkout needs before Verilator 5 can pass any diag, applied the way a user
// applies it: scripts/patch_openpiton.sh.
void patch_testbench(const std::string& dir) {
  const ProcessResult result = run_process(
      {source_root() + "/scripts/patch_openpiton.sh", "--only", "testbench", dir});
  if (result.exit_code != 0) {
    throw std::runtime_error("fixture checkout: scripts/patch_openpiton.sh --only testbench failed (exit " +
                             std::to_string(result.exit_code) + "): " + result.err);
  }
}

std::string make_temp_dir(const std::string& prefix) {
  std::string pattern = (fs::temp_directory_path() / (prefix + "XXXXXX")).string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("fixture checkout: mkdtemp failed");
  return pattern;
}

// The fixture committed once per test process (git is the slow part of a checkout); every
// FixtureCheckout is a copy of it, .git included. Removed when the process exits.
class Template {
 public:
  explicit Template(FixtureState state)
      : dir_(make_temp_dir("mace-fixture-template.")), owner_(::getpid()) {
    try {
      const fs::path source = fs::path(source_root()) / "tests" / "fixtures" / "openpiton";
      if (!fs::is_directory(source / "piton")) {
        throw std::runtime_error("fixture checkout: no fixture at " + source.string());
      }
      for (const auto& entry : fs::directory_iterator(source)) {
        const std::string name = entry.path().filename().string();
        // Never what a run of the fake in the source tree may have left there.
        if (name == ".git" || name == ".fake_sims" || name == "build") continue;
        fs::copy(entry.path(), fs::path(dir_) / name,
                 fs::copy_options::recursive | fs::copy_options::copy_symlinks);
      }
      // The fake must be executable even if the source lost its mode bits.
      fs::permissions(dir_ + "/piton/tools/bin/sims",
                      fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                      fs::perm_options::add);
      if (state == FixtureState::patched_for_verilator) patch_testbench(dir_);
      // No template hooks and one pack: fewer files to copy for every checkout.
      git(dir_, {"init", "-q", "--template="});
      git(dir_, {"add", "-A"});
      git(dir_, {"commit", "-q", "--no-verify", "-m", "OpenPiton fixture checkout"});
      git(dir_, {"repack", "-a", "-d", "-q"});
    } catch (...) {
      std::error_code ignored;
      fs::remove_all(dir_, ignored);
      throw;
    }
  }
  ~Template() {
    // Not in a forked child that happens to exit normally: the parent still uses it.
    if (::getpid() != owner_) return;
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  Template(const Template&) = delete;
  Template& operator=(const Template&) = delete;

  const std::string& dir() const { return dir_; }
  bool intact() const { return fs::is_directory(dir_ + "/.git") && fs::exists(dir_ + "/piton"); }

 private:
  std::string dir_;
  pid_t owner_;
};

const Template& fixture_template(FixtureState state) {
  // Built on first use; a failure is retried by the next checkout.
  static std::mutex mutex;
  static std::map<FixtureState, std::unique_ptr<Template>> instances;
  std::lock_guard<std::mutex> lock(mutex);
  auto& instance = instances[state];
  if (!instance || !instance->intact()) instance = std::make_unique<Template>(state);
  return *instance;
}

}  // namespace

FixtureCheckout::FixtureCheckout(FixtureState state) {
  const std::string& source = fixture_template(state).dir();
  root_ = make_temp_dir("mace-fixture.");
  try {
    fs::copy(source, root_, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
    throw;
  }
}

FixtureCheckout::~FixtureCheckout() {
  std::vector<std::pair<pid_t, std::string>> recorded;
  for (const auto& line : lines_of(state_file("pids"))) {
    std::istringstream fields(line);
    long pid = 0;
    std::string start;
    if (!(fields >> pid) || pid <= 1) continue;
    fields >> start;
    recorded.emplace_back(static_cast<pid_t>(pid), start);
  }
  for (const auto& [pid, start] : recorded) {
    if (running_as_recorded(pid, start)) ::kill(pid, SIGKILL);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (const auto& [pid, start] : recorded) {
    while (running_as_recorded(pid, start) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  std::error_code ignored;
  fs::remove_all(root_, ignored);
}

std::string FixtureCheckout::sims() const { return root_ + "/piton/tools/bin/sims"; }

std::map<std::string, std::string> FixtureCheckout::environment() const {
  const std::string dv_root = root_ + "/piton";
  const char* inherited = std::getenv("PATH");
  std::map<std::string, std::string> env = {
      {"PITON_ROOT", root_},
      {"DV_ROOT", dv_root},
      {"MODEL_DIR", root_ + "/build"},
      {"CC_BIN", "/usr/bin"},
      {"TRE_ENTRY", "/"},
      {"TRE_LOG", "nobody"},
      {"TRE_SEARCH", dv_root + "/tools/env/tools.iver"},
      {"ENVDIR", dv_root + "/tools/env"},
      {"PERL_MODULE_BASE", dv_root + "/tools/perlmod"},
      {"PERL_CMD", "/usr/bin/perl"},
      {"PATH", dv_root + "/tools/bin:/usr/bin:" +
                   std::string(inherited && *inherited ? inherited : "/bin")},
      {"LD_LIBRARY_PATH", dv_root + "/tools/src/goldfinger/lib"},
  };
  struct utsname host {};
  std::string os = "Linux", cpu = "x86_64";
  if (::uname(&host) == 0) {
    os = host.sysname;
    cpu = host.machine;
  }
  env["M4PATH"] = dv_root + "/tools/" + os + "/" + cpu + "/lib/m4";
  return env;
}

std::string FixtureCheckout::state_file(const std::string& name) const {
  return root_ + "/.fake_sims/" + name;
}

void FixtureCheckout::set_control(const std::string& key, const std::string& value) {
  if (key.empty() || key.find_first_of("=\n") != std::string::npos ||
      value.find('\n') != std::string::npos) {
    throw std::invalid_argument("fixture control: bad key or value: " + key);
  }
  std::string text;
  bool replaced = false;
  for (const auto& line : lines_of(state_file("control"))) {
    if (line.compare(0, key.size() + 1, key + "=") == 0) {
      if (!replaced) text += key + "=" + value + "\n";
      replaced = true;
    } else {
      text += line + "\n";
    }
  }
  if (!replaced) text += key + "=" + value + "\n";
  write(".fake_sims/control", text);
}

void FixtureCheckout::clear_control() {
  std::error_code ignored;
  fs::remove(state_file("control"), ignored);
}

int FixtureCheckout::invocations(const std::string& mode) const {
  int count = 0;
  for (const auto& line : lines_of(state_file("invocations"))) {
    if (mode.empty() || line.substr(0, line.find('\t')) == mode) ++count;
  }
  return count;
}

std::vector<std::vector<std::string>> FixtureCheckout::invocation_args() const {
  std::vector<std::vector<std::string>> all;
  for (const auto& line : lines_of(state_file("invocations"))) {
    auto fields = split_tabs(line);
    std::vector<std::string> args;
    for (size_t i = 1; i < fields.size(); ++i) args.push_back(unescape(fields[i]));
    all.push_back(std::move(args));
  }
  return all;
}

std::vector<pid_t> FixtureCheckout::recorded_pids() const {
  std::vector<pid_t> pids;
  for (const auto& line : lines_of(state_file("pids"))) {
    std::istringstream fields(line);
    long pid = 0;
    if (fields >> pid && pid > 1) pids.push_back(static_cast<pid_t>(pid));
  }
  return pids;
}

std::string FixtureCheckout::read(const std::string& relative) const {
  const std::string path = root_ + "/" + relative;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("fixture checkout: cannot read " + path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void FixtureCheckout::write(const std::string& relative, const std::string& content) const {
  const fs::path path = fs::path(root_) / relative;
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  out.close();
  if (!out) throw std::runtime_error("fixture checkout: cannot write " + path.string());
}

}  // namespace mace::testing
