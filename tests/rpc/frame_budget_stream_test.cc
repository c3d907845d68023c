// One user's connections share a budget for the messages they have announced and not yet
// sent whole (rpc/frame_budget_stream.h): a message's size table reaches the reader only once
// its share fits, the bytes pass through unchanged, and the share returns when the message
// is in, or when its connection is gone.

#include "rpc/frame_budget_stream.h"

#include <cstring>
#include <list>
#include <vector>

#include <capnp/message.h>
#include <capnp/serialize-async.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <kj/async-io.h>

namespace mace::rpc {
namespace {

constexpr std::size_t kMaxMessage = 8 << 20;

// A frame as Cap'n Proto's stream framing has it: one segment of `words` words.
std::vector<kj::byte> frame(uint32_t words, kj::byte fill = 0x11) {
  std::vector<kj::byte> bytes(8 + std::size_t{words} * 8, fill);
  const uint32_t header[2] = {0, words};
  std::memcpy(bytes.data(), header, sizeof header);
  return bytes;
}

// A client's end (a socket pair, as a Unix socket is) and maced's, budgeted. What the client
// sends goes on in the background while the test reads: a socket holds far less than a
// message of megabytes.
struct Connection {
  Connection(kj::AsyncIoContext& io, std::shared_ptr<FrameBudget> budget)
      : pipe(io.provider->newTwoWayPipe()), stream(*pipe.ends[1], std::move(budget), kMaxMessage) {}
  kj::TwoWayPipe pipe;
  FrameBudgetStream stream;
  std::list<std::vector<kj::byte>> sent;
  kj::Promise<void> sending = kj::READY_NOW;  // one write after the other, as a stream needs
  void send(std::vector<kj::byte> bytes, kj::WaitScope&) {
    auto& piece = sent.emplace_back(std::move(bytes));
    sending = sending.then([this, &piece] { return pipe.ends[0]->write(piece.data(), piece.size()); })
                  .eagerlyEvaluate(nullptr);
  }
};

class FrameBudgetStreamTest : public ::testing::Test {
 protected:
  // Held by pointer: the context's destructor may throw, a test fixture's may not.
  std::unique_ptr<kj::AsyncIoContext> context = std::make_unique<kj::AsyncIoContext>(kj::setupAsyncIo());
  kj::AsyncIoContext& io = *context;
  // Whether `promise` resolves once the loop has run what is ready.
  template <typename T>
  bool done(kj::Promise<T>& promise) {
    return promise.poll(io.waitScope);
  }
};

TEST_F(FrameBudgetStreamTest, BytesPassThroughUnchangedAcrossMessages) {
  auto budget = std::make_shared<FrameBudget>(1 << 20);
  Connection c(io, budget);
  auto a = frame(3, 0xaa), b = frame(1, 0xbb);
  std::vector<kj::byte> both(a);
  both.insert(both.end(), b.begin(), b.end());
  c.send(both, io.waitScope);
  std::vector<kj::byte> got(both.size());
  // One read across the two messages, as a buffered reader would ask.
  const std::size_t n = c.stream.read(got.data(), got.size(), got.size()).wait(io.waitScope), expected = got.size();
  EXPECT_EQ(n, expected);
  EXPECT_EQ(got, both);
  EXPECT_EQ(budget->held(), 0u) << "both messages are in: nothing held";
}

TEST_F(FrameBudgetStreamTest, ASecondMessageThatDoesNotFitWaitsUntilTheFirstIsIn) {
  auto budget = std::make_shared<FrameBudget>(6 << 20);
  Connection first(io, budget), second(io, budget);
  const uint32_t four_mib_words = (4 << 20) / 8;
  auto big = frame(four_mib_words);
  // The first announces 4 MiB and sends half of it; the second announces 4 MiB more.
  first.send(std::vector<kj::byte>(big.begin(), big.begin() + (2 << 20)), io.waitScope);
  std::vector<kj::byte> sink(big.size());
  auto first_header = first.stream.read(sink.data(), 8, 8);
  ASSERT_TRUE(done(first_header));
  first_header.wait(io.waitScope);
  EXPECT_EQ(budget->held(), big.size());

  second.send(std::vector<kj::byte>(big.begin(), big.begin() + 8), io.waitScope);
  std::vector<kj::byte> second_header(8);
  auto waiting = second.stream.read(second_header.data(), 8, 8);
  EXPECT_FALSE(done(waiting)) << "4 + 4 MiB do not fit in 6: its size must not reach the reader yet";
  EXPECT_EQ(budget->waiting(), 1u);

  // The first message arrives whole and is read: its share returns, the second goes on.
  first.send(std::vector<kj::byte>(big.begin() + (2 << 20), big.end()), io.waitScope);
  first.stream.read(sink.data() + 8, big.size() - 8, big.size() - 8).wait(io.waitScope);
  ASSERT_TRUE(done(waiting));
  EXPECT_EQ(waiting.wait(io.waitScope), 8u);
  EXPECT_EQ(budget->held(), big.size()) << "now the second's";
}

TEST_F(FrameBudgetStreamTest, AConnectionGoneMidMessageGivesItsShareBack) {
  auto budget = std::make_shared<FrameBudget>(6 << 20);
  auto big = frame((4 << 20) / 8);
  {
    Connection gone(io, budget);
    gone.send(std::vector<kj::byte>(big.begin(), big.begin() + 64), io.waitScope);
    std::vector<kj::byte> header(8);
    gone.stream.read(header.data(), 8, 8).wait(io.waitScope);
    EXPECT_EQ(budget->held(), big.size());
  }
  EXPECT_EQ(budget->held(), 0u);
}

TEST_F(FrameBudgetStreamTest, AWaitingConnectionThatGoesAwayIsSkipped) {
  auto budget = std::make_shared<FrameBudget>(6 << 20);
  auto big = frame((4 << 20) / 8);
  Connection holder(io, budget), next(io, budget);
  holder.send(std::vector<kj::byte>(big.begin(), big.begin() + 8), io.waitScope);
  std::vector<kj::byte> header(8);
  holder.stream.read(header.data(), 8, 8).wait(io.waitScope);
  {
    Connection gone(io, budget);
    gone.send(std::vector<kj::byte>(big.begin(), big.begin() + 8), io.waitScope);
    auto read = gone.stream.read(header.data(), 8, 8);
    EXPECT_FALSE(done(read));
  }
  next.send(frame(1), io.waitScope);
  std::vector<kj::byte> small(16);
  auto read = next.stream.read(small.data(), 16, 16);
  EXPECT_TRUE(done(read)) << "a small message fits beside the holder's once the gone one is skipped";
}

// A size table no reader accepts is not budgeted: the reader refuses it without reserving.
TEST_F(FrameBudgetStreamTest, AMessageAboveTheReadersLimitPassesUnbudgeted) {
  auto budget = std::make_shared<FrameBudget>(1 << 20);
  Connection c(io, budget);
  const uint32_t header[2] = {0, 0x10000000u};  // 2 GiB
  c.send(std::vector<kj::byte>(reinterpret_cast<const kj::byte*>(header), reinterpret_cast<const kj::byte*>(header) + 8),
         io.waitScope);
  std::vector<kj::byte> got(8);
  EXPECT_EQ(c.stream.read(got.data(), 8, 8).wait(io.waitScope), 8u);
  EXPECT_EQ(budget->held(), 0u);
}

// Through it, Cap'n Proto reads what it reads without it.
TEST_F(FrameBudgetStreamTest, CapnpReadsItsMessagesThroughIt) {
  auto budget = std::make_shared<FrameBudget>(1 << 20);
  Connection c(io, budget);
  capnp::MallocMessageBuilder message;
  auto list = message.initRoot<capnp::AnyPointer>().initAs<capnp::List<uint64_t>>(1000);
  for (uint32_t i = 0; i < 1000; ++i) list.set(i, i * 7);
  auto writing = capnp::writeMessage(*c.pipe.ends[0], message)
                     .then([&] { return capnp::writeMessage(*c.pipe.ends[0], message); })
                     .eagerlyEvaluate(nullptr);
  for (int k = 0; k < 2; ++k) {
    auto reader = capnp::readMessage(c.stream).wait(io.waitScope);
    auto read = reader->getRoot<capnp::AnyPointer>().getAs<capnp::List<uint64_t>>();
    ASSERT_EQ(read.size(), 1000u);
    EXPECT_EQ(read[999], 999u * 7);
  }
  EXPECT_EQ(budget->held(), 0u);
}

}  // namespace
}  // namespace mace::rpc
