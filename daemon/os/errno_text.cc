#include "os/errno_text.h"

#include <system_error>

namespace mace::os {

std::string errno_text(int err) { return std::generic_category().message(err); }

}  // namespace mace::os
