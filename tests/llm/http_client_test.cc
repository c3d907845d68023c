#include "llm/http_client.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fake_vertex_server.h"

namespace mace::llm {
namespace {

using namespace std::chrono_literals;
using testing::FakeVertexServer;

TEST(HttpClient, PostsBodyAndHeadersAndReadsTheAnswer) {
  FakeVertexServer server;
  server.push(FakeVertexServer::error(429, "RESOURCE_EXHAUSTED", "slow down", {{"Retry-After", "12"}}));
  HttpRequest request;
  request.url = server.base_url() + "/v1/anything:generateContent";
  request.body = R"({"hello":"world"})";
  request.headers = {{"Authorization", "Bearer abc"}};
  HttpResponse response = http_post(request);
  ASSERT_TRUE(response.transport_ok()) << response.error;
  EXPECT_EQ(response.status, 429);
  EXPECT_NE(response.body.find("slow down"), std::string::npos);
  EXPECT_EQ(response.header("Retry-After"), "12");
  EXPECT_EQ(response.header("retry-after"), "12");
  EXPECT_FALSE(response.header("x-missing"));

  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].path, "/v1/anything:generateContent");
  EXPECT_EQ(seen[0].body, R"({"hello":"world"})");
  EXPECT_EQ(seen[0].header("authorization"), "Bearer abc");
  EXPECT_EQ(seen[0].header("content-type"), "application/json");
}

TEST(HttpClient, RefusedConnectionIsATransportError) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);  // nothing listens on this port now
  HttpRequest request;
  request.url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/x";
  HttpResponse response = http_post(request);
  EXPECT_FALSE(response.transport_ok());
  EXPECT_FALSE(response.timed_out);
  EXPECT_FALSE(response.error.empty());
}

TEST(HttpClient, SlowServerTimesOut) {
  FakeVertexServer server;
  auto slow = FakeVertexServer::text("late");
  slow.delay = 2000ms;
  server.push(slow);
  HttpRequest request;
  request.url = server.base_url() + "/v1/x:generateContent";
  request.timeout = 200ms;
  HttpResponse response = http_post(request);
  EXPECT_FALSE(response.transport_ok());
  EXPECT_TRUE(response.timed_out);
}

TEST(RetryAfter, ParsesSecondsAndDates) {
  EXPECT_EQ(parse_retry_after("30"), 30s);
  EXPECT_EQ(parse_retry_after(" 7 "), 7s);
  auto now = std::chrono::system_clock::from_time_t(784111717);  // Sun, 06 Nov 1994 08:48:37 GMT
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now), 60s);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now), 0s);
  EXPECT_FALSE(parse_retry_after(""));
  EXPECT_FALSE(parse_retry_after("soon"));
}

// A date past what the system clock can hold (found by libFuzzer: the conversion overflowed,
// undefined behaviour, and the wait came out as none) waits as long as the largest number
// of seconds does.
TEST(RetryAfter, ADateCenturiesAheadIsTheLongestWaitNotAnOverflow) {
  auto now = std::chrono::system_clock::from_time_t(784111717);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 5511 08:49:37 GMT", now), 999'999'999s);
  EXPECT_EQ(parse_retry_after("1000000000000", now), 999'999'999s);
}

}  // namespace
}  // namespace mace::llm
