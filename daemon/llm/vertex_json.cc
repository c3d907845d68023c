#include "llm/vertex_json.h"

namespace mace::llm::vertex {

using simdjson::dom::element;

std::string excerpt(std::string_view s, size_t n) {
  if (s.size() <= n) return std::string(s);
  return std::string(s.substr(0, n)) + "…";
}

std::string string_field(element obj, std::string_view key) {
  std::string_view v;
  if (obj[key].get_string().get(v)) return {};
  return std::string(v);
}

int64_t int_field(element obj, std::string_view key) {
  int64_t v = 0;
  if (!obj[key].get_int64().get(v)) return v;
  double d = 0;
  if (!obj[key].get_double().get(d)) return static_cast<int64_t>(d);
  // Proto3 JSON may give int64 values as strings.
  std::string_view s;
  if (!obj[key].get_string().get(s)) {
    try {
      return std::stoll(std::string(s));
    } catch (...) {
    }
  }
  return 0;
}

}  // namespace mace::llm::vertex
