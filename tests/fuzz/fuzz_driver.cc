// mace_fuzz: the fuzz targets (targets.h) fed their corpus and then deterministic
// mutations of it, for a bounded time. CI runs it as a test; a person runs it longer:
//
//   mace_fuzz [--seconds N] [--target NAME] [--seed S] [--corpus DIR] [--save DIR]
//   mace_fuzz --replay DIR      # every file of DIR/<target>/ once: the regression inputs
//
// Exit 0 when every input held, 1 on the first violation (or crash), 2 on bad usage. The
// input that failed is written to DIR/<target>-failure (default: the current directory)
// and the seed is printed, so `--seed S --target NAME` replays the same sequence.

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "mutator.h"
#include "targets.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The input under test, for the crash handler: set before each input, read only there.
char g_failure_path[4096];
const std::string* g_current = nullptr;

void write_current(const char* path) {
  if (!g_current) return;
  int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const char* data = g_current->data();
  size_t left = g_current->size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n <= 0) break;
    data += n;
    left -= static_cast<size_t>(n);
  }
  ::close(fd);
}

// A crash is a failure like any other: keep the input that caused it, then die as before.
void on_crash(int sig) {
  write_current(g_failure_path);
  static const char message[] = "mace_fuzz: crashed; the input is in the failure file\n";
  ssize_t ignored = ::write(2, message, sizeof message - 1);
  (void)ignored;
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

std::vector<std::string> read_corpus(const fs::path& dir) {
  std::vector<std::string> inputs;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());  // the same order everywhere, for the seed
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    inputs.push_back(text.str());
  }
  if (inputs.empty()) inputs.push_back("");
  return inputs;
}

struct Options {
  double seconds = 10;
  std::string target;
  uint64_t seed = 1;
  fs::path corpus;
  fs::path save = ".";
  fs::path replay;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--seconds") o.seconds = std::atof(value().c_str());
    else if (arg == "--target") o.target = value();
    else if (arg == "--seed") o.seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (arg == "--corpus") o.corpus = value();
    else if (arg == "--save") o.save = value();
    else if (arg == "--replay") o.replay = value();
    else return false;
  }
  return o.seconds > 0;
}

// Runs one target for its share of the time; false on a violation.
bool fuzz(const mace::fuzz::Target& target, const Options& o, double seconds) {
  const std::vector<std::string> corpus = read_corpus(o.corpus / target.name);
  const std::string failure_file = (o.save / (target.name + "-failure")).string();
  std::snprintf(g_failure_path, sizeof g_failure_path, "%s", failure_file.c_str());
  mace::fuzz::Mutator mutator(o.seed, target.dictionary);
  auto run = [&](const std::string& input, const char* what) {
    g_current = &input;
    const auto start = Clock::now();
    try {
      target.check(input);
    } catch (const mace::fuzz::Violation& v) {
      write_current(g_failure_path);
      std::cerr << "mace_fuzz: " << target.name << ": " << what << " input violates: " << v.what()
                << "\n  input (" << input.size() << " bytes) in " << failure_file
                << "; replay with --target " << target.name << " --seed " << o.seed << "\n";
      return false;
    } catch (const std::exception& e) {
      write_current(g_failure_path);
      std::cerr << "mace_fuzz: " << target.name << ": " << what
                << " input threw what the reader promises never to: " << e.what() << "\n  input in "
                << failure_file << "\n";
      return false;
    }
    // A reader's time is bounded by its input; seconds for one input is a hang.
    if (Clock::now() - start > std::chrono::seconds(5)) {
      write_current(g_failure_path);
      std::cerr << "mace_fuzz: " << target.name << ": one input took over 5 s; in " << failure_file << "\n";
      return false;
    }
    return true;
  };
  for (const auto& input : corpus)
    if (!run(input, "a corpus")) return false;
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  std::string current = corpus[0];
  uint64_t count = 0;
  while (Clock::now() < until) {
    const std::string& other = corpus[mutator.below(corpus.size())];
    // Mostly grow from the last input, now and then restart from the corpus.
    const std::string& base = mutator.below(8) == 0 ? corpus[mutator.below(corpus.size())] : current;
    std::string input = mutator.mutate(base, other, target.max_size);
    if (!run(input, "a mutated")) return false;
    current = std::move(input);
    if (current.size() > target.max_size / 2) current = corpus[mutator.below(corpus.size())];
    ++count;
  }
  std::cout << target.name << ": " << corpus.size() << " corpus inputs and " << count
            << " mutations held\n";
  return true;
}

// Runs every input kept under `dir`/<target>/ (inputs a fuzzer found failing, fixed since)
// through its target once; false when any fails again or names no target.
bool replay(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_directory()) folders.push_back(entry.path());
  if (ec) {
    std::cerr << "mace_fuzz: cannot read " << dir << ": " << ec.message() << "\n";
    return false;
  }
  std::sort(folders.begin(), folders.end());
  bool held = true;
  std::size_t count = 0;
  for (const auto& folder : folders) {
    const mace::fuzz::Target* target = nullptr;
    for (const auto& t : mace::fuzz::all_targets())
      if (t.name == folder.filename().string()) target = &t;
    if (!target) {
      std::cerr << "mace_fuzz: " << folder << " names no target\n";
      held = false;
      continue;
    }
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(folder, ec))
      if (entry.is_regular_file()) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      std::ifstream in(file, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      const std::string input = text.str();
      // Named before it runs: a crash ends the process with the sanitizer's report.
      std::cout << folder.filename().string() << "/" << file.filename().string() << std::endl;
      try {
        target->check(input);
        ++count;
      } catch (const std::exception& e) {
        std::cerr << "mace_fuzz: " << file.string() << " fails again: " << e.what() << "\n";
        held = false;
      }
    }
  }
  if (held) std::cout << count << " regression inputs held\n";
  return held;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (const char* root = std::getenv("MACE_SOURCE_ROOT")) o.corpus = fs::path(root) / "tests/fuzz/corpus";
  if (!parse(argc, argv, o)) {
    std::cerr << "usage: mace_fuzz [--seconds N] [--target NAME] [--seed S] [--corpus DIR] "
                 "[--save DIR] | --replay DIR\n";
    return 2;
  }
  if (!o.replay.empty()) {
    return replay(o.replay) ? 0 : 1;
  }
  if (o.corpus.empty()) {
    std::cerr << "usage: mace_fuzz [--seconds N] [--target NAME] [--seed S] [--corpus DIR] "
                 "[--save DIR]\n  (--corpus defaults to $MACE_SOURCE_ROOT/tests/fuzz/corpus)\n";
    return 2;
  }
  for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) ::signal(sig, on_crash);
  std::vector<const mace::fuzz::Target*> chosen;
  for (const auto& t : mace::fuzz::all_targets())
    if (o.target.empty() || t.name == o.target) chosen.push_back(&t);
  if (chosen.empty()) {
    std::cerr << "mace_fuzz: no target named " << o.target << "\n";
    return 2;
  }
  for (const auto* t : chosen)
    if (!fuzz(*t, o, o.seconds / static_cast<double>(chosen.size()))) return 1;
  return 0;
}
