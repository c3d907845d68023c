#pragma once
// RS256 signing for the service-account JWT, the one place that uses libcrypto so another
// crypto library can replace it.

#include <optional>
#include <string>
#include <string_view>

#include "llm/setup_error.h"

namespace mace::llm {

// RFC 4648 §5 base64url without padding, as JWTs use.
std::string base64url_encode(std::string_view data);
std::optional<std::string> base64url_decode(std::string_view text);

// RSASSA-PKCS1-v1_5 with SHA-256 of `data`, keyed by a PEM private key (PKCS#8 as Google's
// key files hold it, or PKCS#1). Throws SetupError when the key or signing fails.
std::string sign_rs256(std::string_view pem_private_key, std::string_view data);

}  // namespace mace::llm
