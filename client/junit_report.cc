#include "junit_report.h"

#include <cstdio>
#include <string_view>

#include "core/printable_text.h"
#include "os/text.h"

namespace mace::client {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The head and tail of `text`, each ending on a character, with a line between them
// saying how much was left out.
std::string bounded(const std::string& text, std::size_t max) {
  if (text.size() <= max) return text;
  const std::size_t half = max / 2;
  const std::string_view head = os::clip_utf8(text, half);
  std::size_t tail_start = text.size() - half;
  while (tail_start < text.size() && (static_cast<unsigned char>(text[tail_start]) & 0xC0) == 0x80) ++tail_start;
  const std::size_t left_out = tail_start - head.size();
  return std::string(head) + "\n[... " + std::to_string(left_out) + " bytes left out of the middle ...]\n" +
         text.substr(tail_start);
}

std::string time_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f", seconds < 0 ? 0.0 : seconds);
  return buffer;
}

struct Counts {
  std::size_t tests = 0, failures = 0, errors = 0, skipped = 0;
  double time_s = 0;
  void add(const JunitCase& c) {
    ++tests;
    failures += c.outcome == JunitCase::Outcome::failed;
    errors += c.outcome == JunitCase::Outcome::error;
    skipped += c.outcome == JunitCase::Outcome::skipped;
    time_s += c.time_s;
  }
  void add(const Counts& other) {
    tests += other.tests;
    failures += other.failures;
    errors += other.errors;
    skipped += other.skipped;
    time_s += other.time_s;
  }
  std::string attributes() const {
    return " tests=\"" + std::to_string(tests) + "\" failures=\"" + std::to_string(failures) +
           "\" errors=\"" + std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) +
           "\" time=\"" + time_text(time_s) + "\"";
  }
};

std::string attribute(const std::string& name, const std::string& value) {
  return " " + name + "=\"" + xml_text(value, true) + "\"";
}

void write_properties(std::string& out, const std::vector<std::pair<std::string, std::string>>& properties,
                      const std::string& indent) {
  if (properties.empty()) return;
  out += indent + "<properties>\n";
  for (const auto& [name, value] : properties)
    out += indent + "  <property" + attribute("name", name) + attribute("value", bounded(value, kMaxJunitMessageBytes)) +
           "/>\n";
  out += indent + "</properties>\n";
}

void write_case(std::string& out, const JunitSuite& suite, const JunitCase& c) {
  out += "    <testcase" + attribute("name", c.name) + attribute("classname", suite.classname) +
         " time=\"" + time_text(c.time_s) + "\"";
  const std::string message = attribute("message", bounded(c.message, kMaxJunitMessageBytes));
  const std::string details = xml_text(bounded(c.details, kMaxJunitDetailBytes));
  switch (c.outcome) {
    case JunitCase::Outcome::passed:
      out += "/>\n";
      return;
    case JunitCase::Outcome::failed:
      out += ">\n      <failure" + message + attribute("type", c.type) + ">" + details + "</failure>\n";
      break;
    case JunitCase::Outcome::error:
      out += ">\n      <error" + message + attribute("type", c.type) + ">" + details + "</error>\n";
      break;
    case JunitCase::Outcome::skipped:
      out += ">\n      <skipped" + message + "/>\n";
      break;
  }
  out += "    </testcase>\n";
}

}  // namespace

std::string xml_text(const std::string& text, bool one_line) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const std::size_t n = os::utf8_sequence_length(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    if (n == 1) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        case '\n':
        case '\t':
          // An attribute's newline would be read back as a space; say so in the text.
          out += one_line ? std::string(" ") : std::string(1, c);
          break;
        default:
          if (is_printable_character(static_cast<unsigned char>(c))) out += c;
          else out += kReplacement;
      }
      ++i;
      continue;
    }
    if (is_printable_character(os::utf8_code_point(text, i, n))) out.append(text, i, n);
    else out += kReplacement;
    i += n;
  }
  return out;
}

std::string junit_xml(const JunitRun& run) {
  Counts all;
  std::string suites;
  std::size_t index = 0;
  for (const auto& suite : run.suites) {
    Counts counts;
    for (const auto& c : suite.cases) counts.add(c);
    all.add(counts);
    suites += "  <testsuite" + attribute("name", suite.name) + counts.attributes() +
              attribute("timestamp", run.timestamp) + attribute("hostname", run.hostname) + " id=\"" +
              std::to_string(index++) + "\"" + attribute("package", "mace." + run.run_id) + ">\n";
    write_properties(suites, suite.properties, "    ");
    for (const auto& c : suite.cases) write_case(suites, suite, c);
    suites += "  </testsuite>\n";
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites" + attribute("name", "mace run " + run.run_id) + all.attributes() + ">\n";
  out += suites;
  // The run's provenance: a suite of no cases, so readers that know only <testsuite>
  // properties still find it.
  if (!run.properties.empty()) {
    out += "  <testsuite" + attribute("name", "run " + run.run_id) + Counts{}.attributes() +
           attribute("timestamp", run.timestamp) + attribute("hostname", run.hostname) + " id=\"" +
           std::to_string(index) + "\"" + attribute("package", "mace." + run.run_id) + ">\n";
    write_properties(out, run.properties, "    ");
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace mace::client
