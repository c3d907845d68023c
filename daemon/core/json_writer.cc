#include "core/json_writer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "os/text.h"

namespace mace {

void append_json_escaped(std::string& out, std::string_view s) {
  const auto append_u_escape = [&out](unsigned code) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04x", code);
    out += buf;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      // JSON is UTF-8: a byte that is not part of a well-formed sequence (a model's or a
      // log's) becomes U+FFFD, so what we write always parses.
      const std::size_t n = os::utf8_sequence_length(s, i);
      if (n == 0) {
        out += "\\ufffd";
        continue;
      }
      // C1 controls (some terminals obey them when the JSON is printed) and the line and
      // paragraph separators (line ends to JavaScript and some readers) travel escaped.
      const char32_t code = os::utf8_code_point(s, i, n);
      if (code <= 0x9f || code == 0x2028 || code == 0x2029)
        append_u_escape(static_cast<unsigned>(code));
      else
        out.append(s.substr(i, n));
      i += n - 1;
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20 || c == 0x7f)  // every control character, DEL too
          append_u_escape(c);
        else
          out += static_cast<char>(c);
    }
  }
}

void JsonWriter::newline() {
  if (!pretty_) return;
  out_ += '\n';
  out_.append(has_element_.size() * 2, ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_element_.empty()) {
    if (has_element_.back()) out_ += ',';
    has_element_.back() = true;
    newline();
  }
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  has_element_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  bool had = has_element_.back();
  has_element_.pop_back();
  if (had) newline();
  out_ += bracket;
  return *this;
}

JsonWriter& JsonWriter::end_object() { return close('}'); }

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  has_element_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::end_array() { return close(']'); }

JsonWriter& JsonWriter::key(std::string_view k) {
  before_value();
  out_ += '"';
  append_json_escaped(out_, k);
  out_ += pretty_ ? "\": " : "\":";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  out_ += '"';
  append_json_escaped(out_, s);
  out_ += '"';
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  before_value();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::value(int64_t n) {
  before_value();
  out_ += std::to_string(n);
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t n) {
  before_value();
  out_ += std::to_string(n);
  return *this;
}

JsonWriter& JsonWriter::value(double d) {
  before_value();
  if (!std::isfinite(d)) {
    out_ += "null";  // JSON has no NaN or infinity
    return *this;
  }
  // Shortest text that reads back as the same double, and always a number a reader
  // sees as one ("20.0", not "20").
  char buf[32];
  if (d == std::trunc(d) && std::fabs(d) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.1f", d);
    out_ += buf;
    return *this;
  }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string text = buf;
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  out_ += text;
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  before_value();
  out_ += json;
  return *this;
}

}  // namespace mace
