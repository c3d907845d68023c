#include "core/json_syntax.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "os/text.h"

namespace mace {
namespace {

bool is_hex(char c) { return os::is_ascii_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// What stands at byte `i`, as a message shows it.
std::string shown_at(std::string_view text, std::size_t i) {
  if (i >= text.size()) return "the end of the text";
  const auto c = static_cast<unsigned char>(text[i]);
  char buf[48];
  if (c > 0x20 && c < 0x7f) {
    if (os::is_word_char(static_cast<char>(c))) {  // a word, as a word: 'True', not 'T'
      std::size_t end = i;
      while (end < text.size() && end - i < 24 && os::is_word_char(text[end])) ++end;
      return "'" + std::string(text.substr(i, end - i)) + "'";
    }
    return std::string("'") + static_cast<char>(c) + "'";
  }
  if (c < 0x80) {
    std::snprintf(buf, sizeof buf, "the control character U+%04X", c);
    return buf;
  }
  const std::size_t n = os::utf8_sequence_length(text, i);
  if (n == 0) {
    std::snprintf(buf, sizeof buf, "the byte 0x%02X, which is not UTF-8", c);
    return buf;
  }
  unsigned code = c & (0x7f >> n);
  for (std::size_t k = 1; k < n; ++k) code = (code << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3f);
  std::snprintf(buf, sizeof buf, "U+%04X", code);
  return buf;
}

// One walk of the grammar. Each scan_ method starts at its token and leaves `at_` after it,
// or records the error and returns false.
class Scanner {
 public:
  // `check_ranges`: also a number JSON allows but a 64-bit parser cannot hold is an error.
  explicit Scanner(std::string_view text, bool check_ranges = false) : text_(text), check_ranges_(check_ranges) {}
  std::optional<JsonSyntaxError> run();

 private:
  enum class Expect { value, value_or_end_of_array, name_or_end_of_object, name, colon, comma_or_end };

  bool fail(std::size_t at, std::string what) {
    error_ = JsonSyntaxError{at, 1, 1, std::move(what)};
    return false;
  }
  bool fail_here(const std::string& expected) {
    std::string what = "expected " + expected + ", found " + shown_at(text_, at_);
    const char c = at_ < text_.size() ? text_[at_] : '\0';
    if (after_comma_ && (c == '}' || c == ']')) what += " (the comma before it is one too many)";
    if (!after_comma_ && expect_ == Expect::comma_or_end &&
        (c == '"' || c == '{' || c == '[' || os::is_ascii_digit(c) || c == '-' || c == 't' || c == 'f' || c == 'n'))
      what += " (a comma missing before it?)";
    return fail(at_, what);
  }
  void skip_space() {
    while (at_ < text_.size() && is_space(text_[at_])) ++at_;
  }
  bool step();
  bool scan_value();
  bool scan_string();
  bool scan_escape();
  bool scan_number();
  bool scan_literal();
  bool close();  // the '}' or ']' at at_

  std::string_view text_;
  std::size_t at_ = 0;
  Expect expect_ = Expect::value;
  std::vector<char> open_;  // '{' or '[' of each container not yet closed
  bool after_comma_ = false;
  std::optional<JsonSyntaxError> error_;
  bool check_ranges_ = false;
};

// What is wrong with the number `literal` (well-formed JSON) for a parser of 64-bit
// integers and doubles, as simdjson is; empty: nothing.
std::string number_range_problem(std::string_view literal) {
  const bool integer = literal.find_first_of(".eE") == std::string_view::npos;
  const std::string copy(literal.substr(0, 400));
  if (integer) {
    const bool negative = copy.front() == '-';
    errno = 0;
    if (negative) {
      (void)std::strtoll(copy.c_str(), nullptr, 10);
    } else {
      (void)std::strtoull(copy.c_str(), nullptr, 10);
    }
    if (errno == ERANGE || literal.size() > copy.size())
      return std::string("the integer ") + (literal.size() > 24 ? std::string(literal.substr(0, 20)) + "..." : std::string(literal)) +
             " is too large: integers go from -9223372036854775808 to 18446744073709551615";
    return "";
  }
  errno = 0;
  const double value = std::strtod(copy.c_str(), nullptr);
  if (std::isinf(value) || literal.size() > copy.size())
    return std::string("the number ") + (literal.size() > 24 ? std::string(literal.substr(0, 20)) + "..." : std::string(literal)) +
           " is too large for a double (at most about 1.8e308)";
  return "";
}

std::optional<JsonSyntaxError> Scanner::run() {
  for (;;) {
    skip_space();
    if (expect_ == Expect::comma_or_end && open_.empty()) {
      if (at_ == text_.size()) return std::nullopt;
      fail(at_, "more text after the JSON value, from " + shown_at(text_, at_));
      return error_;
    }
    if (!step()) return error_;
  }
}

bool Scanner::step() {
  const char c = at_ < text_.size() ? text_[at_] : '\0';
  const bool had_comma = after_comma_;
  after_comma_ = false;
  switch (expect_) {
    case Expect::value_or_end_of_array:
      if (c == ']') return close();
      [[fallthrough]];
    case Expect::value:
      after_comma_ = had_comma;
      return scan_value();
    case Expect::name_or_end_of_object:
      if (c == '}') return close();
      [[fallthrough]];
    case Expect::name:
      after_comma_ = had_comma;
      if (c != '"') return fail_here("a member's name in double quotes");
      after_comma_ = false;
      expect_ = Expect::colon;
      return scan_string();
    case Expect::colon:
      if (c != ':') return fail_here("':' after a member's name");
      ++at_;
      expect_ = Expect::value;
      return true;
    case Expect::comma_or_end: {
      const bool object = open_.back() == '{';
      if (c == ',') {
        ++at_;
        after_comma_ = true;
        expect_ = object ? Expect::name : Expect::value;
        return true;
      }
      if (c == (object ? '}' : ']')) return close();
      return fail_here(object ? "',' or '}' after a member's value" : "',' or ']' after an array element");
    }
  }
  return false;
}

bool Scanner::close() {
  ++at_;
  open_.pop_back();
  expect_ = Expect::comma_or_end;
  return true;
}

bool Scanner::scan_value() {
  const char c = at_ < text_.size() ? text_[at_] : '\0';
  if (c == '{' || c == '[') {
    if (open_.size() >= kMaxJsonDepth)
      return fail(at_, "nested deeper than " + std::to_string(kMaxJsonDepth) + " objects and arrays");
    open_.push_back(c);
    ++at_;
    after_comma_ = false;
    expect_ = c == '{' ? Expect::name_or_end_of_object : Expect::value_or_end_of_array;
    return true;
  }
  if (at_ < text_.size() && (c == '"' || c == '-' || os::is_word_char(c))) {
    after_comma_ = false;
    expect_ = Expect::comma_or_end;
    if (c == '"') return scan_string();
    if (c == '-' || os::is_ascii_digit(c)) return scan_number();
    return scan_literal();  // true, false, null, or a word JSON does not have
  }
  return fail_here(open_.empty() ? "a JSON value" : "a value");
}

bool Scanner::scan_string() {
  const std::size_t start = at_++;
  while (at_ < text_.size()) {
    const auto c = static_cast<unsigned char>(text_[at_]);
    if (c == '"') {
      ++at_;
      return true;
    }
    if (c == '\\') {
      if (!scan_escape()) return false;
      continue;
    }
    if (c < 0x20)
      return fail(at_, "a string holds " + shown_at(text_, at_) + ", which must be written as an escape (\\n, \\t, \\u0001)");
    const std::size_t n = os::utf8_sequence_length(text_, at_);
    if (n == 0) return fail(at_, "a string holds " + shown_at(text_, at_));
    at_ += n;
  }
  return fail(start, "a string that is never closed starts here");
}

bool Scanner::scan_escape() {
  const std::size_t start = at_++;
  const char e = at_ < text_.size() ? text_[at_] : '\0';
  if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
    ++at_;
    return true;
  }
  if (e == 'u') {
    for (std::size_t k = 1; k <= 4; ++k)
      if (at_ + k >= text_.size() || !is_hex(text_[at_ + k]))
        return fail(start, "\\u must be followed by four hex digits");
    at_ += 5;
    return true;
  }
  // The text is anyone's: only a printable character is shown as it is.
  const std::string escape = e > 0x20 && e < 0x7f ? "\\" + std::string(1, e) : "\\ followed by " + shown_at(text_, at_);
  return fail(start, "a string holds the escape " + escape +
                         ", which JSON does not have (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
}

bool Scanner::scan_number() {
  const std::size_t start = at_;
  auto digits = [&] {
    const std::size_t from = at_;
    while (at_ < text_.size() && os::is_ascii_digit(text_[at_])) ++at_;
    return at_ > from;
  };
  if (text_[at_] == '-') ++at_;
  if (at_ < text_.size() && text_[at_] == '0') {
    ++at_;
    if (at_ < text_.size() && os::is_ascii_digit(text_[at_])) return fail(start, "a number must not start with 0 and another digit");
  } else if (!digits()) {
    return fail(start, "a number needs a digit after its '-'");
  }
  if (at_ < text_.size() && text_[at_] == '.') {
    ++at_;
    if (!digits()) return fail(start, "a number needs a digit after its '.'");
  }
  if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
    ++at_;
    if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
    if (!digits()) return fail(start, "a number needs a digit in its exponent");
  }
  if (at_ < text_.size() && os::is_word_char(text_[at_])) return fail(start, "not a number: " + shown_at(text_, start));
  if (check_ranges_)
    if (std::string problem = number_range_problem(text_.substr(start, at_ - start)); !problem.empty())
      return fail(start, problem);
  return true;
}

bool Scanner::scan_literal() {
  for (std::string_view word : {"true", "false", "null"}) {
    if (text_.substr(at_, word.size()) != word) continue;
    if (at_ + word.size() < text_.size() && os::is_word_char(text_[at_ + word.size()])) break;
    at_ += word.size();
    return true;
  }
  return fail(at_, "expected a value, found " + shown_at(text_, at_) +
                       " (JSON's words are true, false and null; strings need double quotes)");
}

}  // namespace

std::string JsonSyntaxError::to_string() const {
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what;
}

namespace {

std::optional<JsonSyntaxError> first_error(std::string_view text, bool check_ranges) {
  std::optional<JsonSyntaxError> error = Scanner(text, check_ranges).run();
  if (!error) return error;
  // Lines end at '\n'; a column counts characters, a byte that is not UTF-8 as one.
  for (std::size_t i = 0; i < error->offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++error->line;
      error->column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xc0) != 0x80) {
      ++error->column;
    }
  }
  return error;
}

}  // namespace

std::optional<JsonSyntaxError> json_syntax_error(std::string_view text) { return first_error(text, false); }

std::string invalid_json_message(std::string_view text, std::string_view parser_message) {
  if (auto error = first_error(text, false)) return "invalid JSON at " + error->to_string();
  // The grammar holds: a number out of a parser's range, most likely.
  if (auto error = first_error(text, true)) return "invalid JSON at " + error->to_string();
  return "invalid JSON: " + std::string(parser_message);
}

}  // namespace mace
