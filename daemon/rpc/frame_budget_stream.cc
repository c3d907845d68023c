#include "rpc/frame_budget_stream.h"

#include <algorithm>
#include <cstring>

namespace mace::rpc {
namespace {

constexpr std::size_t kWordBytes = 8;

std::uint32_t little_endian_u32(const kj::byte* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

}  // namespace

FrameBudgetStream::FrameBudgetStream(kj::AsyncIoStream& inner, std::shared_ptr<FrameBudget> budget,
                                     std::size_t max_message_bytes)
    : inner_(inner), budget_(std::move(budget)), max_message_bytes_(max_message_bytes) {}

kj::Promise<std::size_t> FrameBudgetStream::tryRead(void* buffer, std::size_t min_bytes, std::size_t max_bytes) {
  return read_on(static_cast<kj::byte*>(buffer), min_bytes, max_bytes, 0);
}

kj::Promise<std::size_t> FrameBudgetStream::read_on(kj::byte* buffer, std::size_t min_bytes, std::size_t max_bytes,
                                                    std::size_t done) {
  while (done < min_bytes) {
    if (header_given_ < header_.size()) {
      const std::size_t n = std::min(header_.size() - header_given_, max_bytes - done);
      std::memcpy(buffer + done, header_.data() + header_given_, n);
      done += n;
      header_given_ += n;
      if (header_given_ == header_.size() && body_left_ == 0 && !unbudgeted_) {
        header_.clear();  // an empty message: it is all in
        header_given_ = 0;
        share_ = FrameBudget::Share();
      }
      continue;
    }
    if (unbudgeted_)
      return inner_.tryRead(buffer + done, min_bytes - done, max_bytes - done).then([done](std::size_t n) {
        return done + n;
      });
    if (body_left_ > 0) {
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(max_bytes - done, body_left_));
      const std::size_t need = std::min(min_bytes - done, want);
      return inner_.tryRead(buffer + done, need, want)
          .then([this, buffer, min_bytes, max_bytes, done](std::size_t n) -> kj::Promise<std::size_t> {
            if (n == 0) {
              ended_ = true;
              return done;
            }
            body_left_ -= n;
            if (body_left_ == 0) {  // the message is all in: its share goes back
              header_.clear();
              header_given_ = 0;
              share_ = FrameBudget::Share();
            }
            return read_on(buffer, min_bytes, max_bytes, done + n);
          });
    }
    if (ended_) return done;
    return admit_next_message().then([this, buffer, min_bytes, max_bytes, done]() {
      return read_on(buffer, min_bytes, max_bytes, done);
    });
  }
  return done;
}

kj::Promise<bool> FrameBudgetStream::fill_header(std::size_t have) {
  const std::size_t need = header_.size() - have;
  return inner_.tryRead(header_.data() + have, need, need).then([this, have, need](std::size_t n) {
    if (n == need) return true;
    header_.resize(have + n);  // the end came first: what there is goes to the reader
    ended_ = true;
    return false;
  });
}

kj::Promise<void> FrameBudgetStream::admit_next_message() {
  header_.assign(kWordBytes, 0);
  header_given_ = 0;
  return fill_header(0).then([this](bool whole) -> kj::Promise<void> {
    if (!whole) return kj::READY_NOW;
    const std::uint64_t segments = std::uint64_t{little_endian_u32(header_.data())} + 1;
    if (segments > kMaxSegments) {
      unbudgeted_ = true;
      return kj::READY_NOW;
    }
    // The first word holds the count and the first size; the rest, padded to a word.
    const std::size_t table_bytes = static_cast<std::size_t>(((1 + segments) * 4 + kWordBytes - 1) / kWordBytes * kWordBytes);
    header_.resize(table_bytes);
    auto rest = table_bytes > kWordBytes ? fill_header(kWordBytes) : kj::Promise<bool>(true);
    return rest.then([this, segments, table_bytes](bool whole) -> kj::Promise<void> {
      if (!whole) return kj::READY_NOW;
      std::uint64_t words = 0;
      for (std::uint64_t i = 0; i < segments; ++i) words += little_endian_u32(header_.data() + 4 + 4 * i);
      const std::uint64_t bytes = words * kWordBytes;
      if (bytes > max_message_bytes_) {
        unbudgeted_ = true;
        return kj::READY_NOW;
      }
      return budget_->acquire(table_bytes + static_cast<std::size_t>(bytes)).then([this, bytes](FrameBudget::Share share) {
        share_ = std::move(share);
        body_left_ = bytes;
      });
    });
  });
}

}  // namespace mace::rpc
