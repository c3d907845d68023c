#include "maced/accept_loop.h"

#include <fcntl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "os/errno_text.h"

namespace mace {
namespace {

// A flood of clients must not keep the event loop from serving the others: after this
// many connections the loop lets it turn before taking more.
constexpr int kAcceptsPerTurn = 32;

std::string seconds_text(std::chrono::steady_clock::duration d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", std::chrono::duration<double>(d).count());
  return text;
}

}  // namespace

AcceptFailure classify_accept_failure(int error) {
  switch (error) {
    // Each concerns one connection or one call, so an immediate retry cannot spin. The
    // network errors Linux also passes on from a new socket (ENETDOWN, EHOSTUNREACH, ...)
    // do not occur on a Unix socket, and some of them (EOPNOTSUPP) also mean a socket that
    // can never accept: they are waited on as unexpected.
    case EINTR:
    case ECONNABORTED:
    case EPROTO:
      return AcceptFailure::retry_now;
    case EMFILE:
    case ENFILE:
    case ENOBUFS:
    case ENOMEM:
      return AcceptFailure::out_of_resources;
    default:
      return AcceptFailure::unexpected;
  }
}

std::chrono::milliseconds accept_backoff(unsigned retries) {
  constexpr std::chrono::milliseconds first(100), most(1000);
  return std::min<std::chrono::milliseconds>(first * (1 << std::min(retries, 4u)), most);
}

AcceptLoop::AcceptLoop(os::UniqueFd listen_fd, kj::UnixEventPort& event_port,
                       kj::LowLevelAsyncIoProvider& provider, kj::Timer& timer,
                       std::ostream& log, Accepted accepted)
    : listen_fd_(std::move(listen_fd)),
      observer_(event_port, listen_fd_.get(), kj::UnixEventPort::FdObserver::OBSERVE_READ),
      provider_(provider),
      timer_(timer),
      log_(log),
      accepted_(std::move(accepted)) {
  // A socket systemd passes may be blocking; accept must never stop the event loop.
  int flags = ::fcntl(listen_fd_.get(), F_GETFL);
  if (flags < 0 || ::fcntl(listen_fd_.get(), F_SETFL, flags | O_NONBLOCK) != 0)
    throw std::runtime_error("cannot make the listening socket non-blocking: " +
                             os::errno_text(errno));
}

kj::Promise<void> AcceptLoop::run() {
  for (int taken = 0; taken < kAcceptsPerTurn; ++taken) {
    os::UniqueFd fd(::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd) {
      int error = errno;
      if (error == EAGAIN || error == EWOULDBLOCK) {
        // Nobody is waiting any more, and a descriptor could have been had (the kernel
        // takes one before it looks at the backlog): the episode is over.
        accepting_again();
        return observer_.whenBecomesReadable().then([this] { return run(); });
      }
      if (classify_accept_failure(error) == AcceptFailure::retry_now) continue;
      return retry_later(error);
    }
    // Some progress, but not the episode's end: connections that were waiting are often
    // dead by now (their clients gave up) and each holds a descriptor until the event
    // loop sees it closed, so taking them can run out again at once. Only the wait
    // starts short again.
    if (episode_) episode_->backoff_step = 0;
    try {
      auto stream = provider_.wrapSocketFd(
          fd.get(), kj::LowLevelAsyncIoProvider::TAKE_OWNERSHIP |
                        kj::LowLevelAsyncIoProvider::ALREADY_CLOEXEC |
                        kj::LowLevelAsyncIoProvider::ALREADY_NONBLOCK);
      fd.release();
      accepted_(kj::mv(stream));
    } catch (const kj::Exception& e) {
      // That one connection is lost (and closed); the next is taken as usual.
      log_ << "maced: cannot serve a new connection: " << e.getDescription().cStr() << "\n";
    } catch (const std::exception& e) {
      log_ << "maced: cannot serve a new connection: " << e.what() << "\n";
    }
  }
  return kj::evalLater([this] { return run(); });
}

kj::Promise<void> AcceptLoop::retry_later(int error) {
  // Assigned, not emplace(): clang 14 takes a nested struct with member initialisers as not
  // default-constructible inside std::optional (the sanitizer build is clang's).
  if (!episode_) episode_ = Episode{.since = std::chrono::steady_clock::now()};
  if (episode_->errors_logged.insert(error).second) {
    if (classify_accept_failure(error) == AcceptFailure::out_of_resources)
      log_ << "maced: cannot accept connections: " << os::errno_text(error)
           << "; serving the open ones and trying again until some close\n";
    else
      log_ << "maced: accepting a connection failed unexpectedly: " << os::errno_text(error)
           << "; trying again\n";
    log_.flush();
  }
  ++episode_->retries;
  auto wait = accept_backoff(episode_->backoff_step++);
  return timer_.afterDelay(wait.count() * kj::MILLISECONDS).then([this] { return run(); });
}

void AcceptLoop::accepting_again() {
  if (!episode_) return;
  log_ << "maced: accepting connections again after "
       << seconds_text(std::chrono::steady_clock::now() - episode_->since) << " ("
       << episode_->retries << " retries)\n";
  log_.flush();
  episode_.reset();
}

}  // namespace mace
