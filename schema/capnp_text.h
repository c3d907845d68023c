#pragma once
// A Cap'n Proto Text field as a std::string, every byte of it: the one conversion maced's
// RPC edge and the client both use.

#include <string>

#include <capnp/blob.h>

namespace mace {

inline std::string text(capnp::Text::Reader t) { return std::string(t.cStr(), t.size()); }

}  // namespace mace
