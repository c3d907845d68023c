#pragma once
// One field of a CSV file (RFC 4180) that a spreadsheet opens safely.

#include <string>

namespace mace {

// Quoted when it holds a comma, quote or line break; a field that starts with a formula
// character (= + - @) is prefixed with ' so a spreadsheet shows it as text.
std::string csv_field(const std::string& s);

}  // namespace mace
