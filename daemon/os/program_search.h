#pragma once
// Finding a program the way a shell would, but only where it is safe to: in the absolute
// directories of a PATH list (an empty or relative element would mean the current
// directory, which a build or a child changes), as an executable regular file.

#include <filesystem>
#include <optional>
#include <string_view>

namespace mace::os {

// `name` (a bare file name) in the first directory of `path_list` that holds it as an
// executable regular file; nullopt when none does.
std::optional<std::filesystem::path> find_program(std::string_view name, std::string_view path_list);

}  // namespace mace::os
