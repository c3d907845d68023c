#pragma once
// The one way MACE turns an errno value into words for a message.

#include <string>

namespace mace::os {

// "No such file or directory" for ENOENT. Thread-safe (no strerror's static buffer).
std::string errno_text(int err);

}  // namespace mace::os
