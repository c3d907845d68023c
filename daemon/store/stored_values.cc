#include "store/stored_values.h"

#include <simdjson.h>

#include <stdexcept>

#include "core/json_writer.h"

namespace mace::store {

std::string strings_to_json(const std::vector<std::string>& strings) {
  JsonWriter w;
  w.begin_array();
  for (auto& s : strings) w.value(s);
  w.end_array();
  return w.take();
}

std::vector<std::string> strings_from_json(const Database& db, const std::string& what,
                                           const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::array array;
  auto fail = [&] {
    return std::runtime_error(db.path().string() + ": " + what +
                              " is not a JSON array of strings");
  };
  if (parser.parse(json).get_array().get(array) != simdjson::SUCCESS) throw fail();
  std::vector<std::string> out;
  for (auto element : array) {
    std::string_view s;
    if (element.get_string().get(s) != simdjson::SUCCESS) throw fail();
    out.emplace_back(s);
  }
  return out;
}

std::string join_words(const char* column, const std::vector<std::string>& words) {
  std::string out;
  for (auto& w : words) {
    if (w.empty() || w.find_first_of(" \t\n\r\f\v") != std::string::npos)
      throw std::invalid_argument(std::string(column) + ": \"" + w +
                                  "\" cannot be stored space-separated");
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = text.find_first_not_of(' ', pos)) != std::string::npos) {
    size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

std::string in_list(int first, size_t count) {
  std::string out = "(";
  for (size_t i = 0; i < count; ++i) {
    if (i) out += ", ";
    out += "?" + std::to_string(first + static_cast<int>(i));
  }
  return out + ")";
}

}  // namespace mace::store
