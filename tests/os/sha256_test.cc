#include "os/sha256.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "os/file_io.h"
#include "support/child_process.h"

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

// A file larger than one read block hashes as its content does in memory, so workload
// checksums and source fingerprints agree with sha256sum whatever the file's size.
TEST(Sha256FileTest, AFileHashesAsItsContent) {
  mace::testing::TempDir dir;
  std::string content;
  for (int i = 0; content.size() < 200 * 1024; ++i) content += std::to_string(i) + "\n";
  dir.write("big", content);
  dir.write("empty", "");
  EXPECT_EQ(sha256_file_hex(dir.file("big")), sha256_hex(content));
  EXPECT_EQ(sha256_file_hex(dir.file("empty")), sha256_hex(""));
}

TEST(Sha256FileTest, RefusesWhatIsNotARegularFile) {
  mace::testing::TempDir dir;
  dir.write("target", "x");
  ASSERT_EQ(::symlink("target", dir.file("link").c_str()), 0);
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  auto error_of = [](const std::filesystem::path& path) {
    try {
      sha256_file_hex(path);
    } catch (const FileError& e) {
      return e.error();
    }
    return 0;
  };
  EXPECT_EQ(error_of(dir.path()), EISDIR);
  EXPECT_EQ(error_of(dir.file("fifo")), EINVAL);  // and the open did not block
  EXPECT_EQ(error_of(dir.file("link")), ELOOP);
  EXPECT_EQ(error_of(dir.file("missing")), ENOENT);
}

}  // namespace
}  // namespace mace::os
