#pragma once
// What MACE reads from people, models and logs, as fuzz targets: each feeds one input to a
// reader and checks what must hold whatever the bytes are (it returns, in bounded time,
// and what it writes is well-formed), throwing Violation when something does not. A crash
// is a failure too; the driver catches the signal and keeps the input.

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mace::fuzz {

class Violation : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Target {
  std::string name;                     // also the corpus folder: tests/fuzz/corpus/<name>
  std::vector<std::string> dictionary;  // tokens of the input's grammar
  std::size_t max_size;                 // inputs are cut to this
  std::function<void(std::string_view input)> check;
};

// The spec parser, the plan parser, the verdict reader, the CLI agents' output readers,
// Vertex's error bodies and key files, the diagnosis and post-mortem readers, the MCP
// server's request handling, and the bytes a client sends maced's socket.
const std::vector<Target>& all_targets();

}  // namespace mace::fuzz
