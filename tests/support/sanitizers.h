#pragma once
// Whether this build runs under AddressSanitizer (scripts/sanitize.sh) or ThreadSanitizer
// (scripts/tsan.sh). Each reserves terabytes of address space for its shadow memory at
// start-up, so a child given an address-space or data limit (RLIMIT_AS, RLIMIT_DATA) cannot start at all: tests that
// bound a child's memory that way leave the bound to the ordinary build, which checks it,
// and keep everything else they check.

namespace mace::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

#if defined(__SANITIZE_THREAD__)
inline constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif
#else
inline constexpr bool kThreadSanitizer = false;
#endif

// Either sanitizer maps shadow memory (so no RLIMIT_AS or RLIMIT_DATA child can start, and
// RSS is the sanitizer's more than the code's) and runs several times slower.
inline constexpr bool kShadowMemory = kAddressSanitizer || kThreadSanitizer;

}  // namespace mace::testing
