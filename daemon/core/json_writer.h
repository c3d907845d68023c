#pragma once
// A small streaming JSON writer: what `mace --json` and the normalised spec print.
// Commas and nesting are tracked so callers only say what goes where.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mace {

class JsonWriter {
 public:
  explicit JsonWriter(bool pretty = false) : pretty_(pretty) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(int64_t n);
  JsonWriter& value(uint64_t n);
  JsonWriter& value(int n) { return value(static_cast<int64_t>(n)); }
  JsonWriter& value(unsigned n) { return value(static_cast<uint64_t>(n)); }
  JsonWriter& value(double d);
  JsonWriter& null();
  // Inserts already-serialised JSON (for example a stored object) as one value.
  JsonWriter& raw(std::string_view json);

  template <typename T>
  JsonWriter& field(std::string_view k, const T& v) { key(k); return value(v); }

  const std::string& str() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void before_value();
  JsonWriter& close(char bracket);
  void newline();

  std::string out_;
  // One entry per open container: whether it already holds an element.
  std::vector<bool> has_element_;
  bool after_key_ = false;
  bool pretty_;
};

// Escapes `s` as the body of a JSON string (without the quotes).
void append_json_escaped(std::string& out, std::string_view s);

}  // namespace mace
