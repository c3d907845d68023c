#pragma once
// Base64 (RFC 4648): the standard alphabet with padding, which `base64 -d` reads (a
// reproduction script's embedded files), and base64url without padding, as JWTs use.

#include <optional>
#include <string>
#include <string_view>

namespace mace::os {

std::string base64_encode(std::string_view data);     // standard, padded
std::string base64url_encode(std::string_view data);  // URL-safe, no padding
// Either alphabet, padded or not; nullopt for anything else.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace mace::os
