#pragma once
// A client connection's stream as maced's RPC reads it, each message's size asked of its
// user's FrameBudget (rpc/frame_budget.h) before the reader sees it. Cap'n Proto's stream
// framing: a first word holding the number of segments less one and the first segment's
// size in words, then the other segments' sizes (4 bytes each, padded to a word), then the
// segments. This stream reads a message's sizes itself, waits for its share of the budget,
// then passes the sizes and the segments through unchanged, and gives the share back when
// the last byte of the message has been read. A size table no Cap'n Proto reader accepts
// (more than kMaxSegments segments, or a message above `max_message_bytes`) is passed on
// at once, unbudgeted: the reader refuses it and ends the connection without reserving
// anything.
//
// Used on the event loop's thread only. Writes and everything else go straight through.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <kj/async-io.h>

#include "rpc/frame_budget.h"

namespace mace::rpc {

class FrameBudgetStream final : public kj::AsyncIoStream {
 public:
  FrameBudgetStream(kj::AsyncIoStream& inner, std::shared_ptr<FrameBudget> budget, std::size_t max_message_bytes);

  kj::Promise<std::size_t> tryRead(void* buffer, std::size_t min_bytes, std::size_t max_bytes) override;
  kj::Promise<void> write(const void* buffer, std::size_t size) override { return inner_.write(buffer, size); }
  kj::Promise<void> write(kj::ArrayPtr<const kj::ArrayPtr<const kj::byte>> pieces) override {
    return inner_.write(pieces);
  }
  kj::Promise<void> whenWriteDisconnected() override { return inner_.whenWriteDisconnected(); }
  void shutdownWrite() override { inner_.shutdownWrite(); }
  void abortRead() override { inner_.abortRead(); }
  void getsockopt(int level, int option, void* value, kj::uint* length) override {
    inner_.getsockopt(level, option, value, length);
  }
  void setsockopt(int level, int option, const void* value, kj::uint length) override {
    inner_.setsockopt(level, option, value, length);
  }
  void getsockname(struct sockaddr* addr, kj::uint* length) override { inner_.getsockname(addr, length); }
  void getpeername(struct sockaddr* addr, kj::uint* length) override { inner_.getpeername(addr, length); }

  // Cap'n Proto's readers refuse more segments than this in one message.
  static constexpr std::uint32_t kMaxSegments = 512;

 private:
  // Reads on until `done` bytes of at least `min_bytes` are in `buffer`, or the end.
  kj::Promise<std::size_t> read_on(kj::byte* buffer, std::size_t min_bytes, std::size_t max_bytes, std::size_t done);
  // Reads the next message's size table into header_ and takes its share of the budget.
  kj::Promise<void> admit_next_message();
  // Reads exactly header_.size() - have bytes more into header_ (fewer at the end).
  kj::Promise<bool> fill_header(std::size_t have);

  kj::AsyncIoStream& inner_;
  std::shared_ptr<FrameBudget> budget_;
  const std::size_t max_message_bytes_;
  std::vector<kj::byte> header_;   // the size table read ahead, for the reader
  std::size_t header_given_ = 0;   // of it, already passed on
  std::uint64_t body_left_ = 0;    // bytes of the message's segments still to pass on
  bool unbudgeted_ = false;        // a table no reader accepts: everything passes straight on
  bool ended_ = false;             // the client's end is closed
  FrameBudget::Share share_;       // what the message being read holds of the budget
};

}  // namespace mace::rpc
