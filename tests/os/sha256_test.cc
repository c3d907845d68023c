#include "os/sha256.h"

#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace mace::os {
namespace {

TEST(Sha256Test, MatchesPublishedVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  Sha256 million;
  const std::string chunk(1000, 'a');
  for (int i = 0; i < 1000; ++i) million.update(chunk);
  EXPECT_EQ(million.finish_hex(),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, SplitUpdatesEqualOneUpdate) {
  const std::string text(1000, 'x');
  for (std::size_t split : {0u, 1u, 55u, 56u, 63u, 64u, 65u, 999u}) {
    Sha256 hasher;
    hasher.update(std::string_view(text).substr(0, split));
    hasher.update(std::string_view(text).substr(split));
    EXPECT_EQ(hasher.finish_hex(), sha256_hex(text)) << split;
  }
}

}  // namespace
}  // namespace mace::os
