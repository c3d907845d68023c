#pragma once
// A run's verdicts as JUnit XML (`mace report RUN --junit FILE`), the format Jenkins,
// GitLab and GitHub's test views read: one <testsuite> per task that built a configuration,
// one <testcase> per gate workload it simulated, a <failure> for a workload that did not
// pass (its verdict, error line, transcript excerpt and where its sim.log is), an <error>
// for a task whose build failed, <skipped> for what never ran. The run's provenance goes
// in <properties>. Every text is made valid XML 1.0 (characters XML cannot hold become
// U+FFFD) and bounded, so a hostile transcript cannot break the file or make it huge.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mace::client {

struct JunitCase {
  std::string name;          // the workload, or "build" for a task that simulated nothing
  double time_s = 0;
  enum class Outcome { passed, failed, error, skipped } outcome = Outcome::passed;
  std::string type;          // failed: the verdict (fail, timeout, maxcycles, none); error: the reason
  std::string message;       // one line: the error line, or why it errored or was skipped
  std::string details;       // failed: the excerpt and how to read the log; error: the reason
};

struct JunitSuite {
  std::string name;          // "iteration 1 task t1"
  std::string classname;     // "mace.<run>.iter1.t1": GitLab and Jenkins group by it
  std::vector<std::pair<std::string, std::string>> properties;  // configuration, checkout, ...
  std::vector<JunitCase> cases;
};

struct JunitRun {
  std::string run_id;
  std::string timestamp;     // ISO 8601, UTC, of the run's start
  std::string hostname;      // maced's host, from the run's environment
  std::vector<std::pair<std::string, std::string>> properties;  // the run's provenance
  std::vector<JunitSuite> suites;
};

// Bounds: a message is one line of at most this many bytes, details at most
// kMaxJunitDetailBytes (their middle left out, saying how much).
inline constexpr std::size_t kMaxJunitMessageBytes = 1024;
inline constexpr std::size_t kMaxJunitDetailBytes = 64 * 1024;

std::string junit_xml(const JunitRun& run);

// `text` as XML character data or attribute value: & < > " ' escaped, what XML 1.0 cannot
// hold (control characters, invalid UTF-8) written U+FFFD, tabs and newlines kept unless
// `one_line`.
std::string xml_text(const std::string& text, bool one_line = false);

}  // namespace mace::client
