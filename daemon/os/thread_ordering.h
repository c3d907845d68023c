#pragma once
// Ordering between threads that ThreadSanitizer cannot see for itself. kj's cross-thread
// call (kj::Executor::executeSync) waits on futexes inside kj's library, and a kj not built
// with ThreadSanitizer (Debian's) hides them: every object handed to the event-loop thread
// and back then looks raced. `published(token)` on one thread and `received(token)` on
// another tell ThreadSanitizer that what the first did before is seen by the second after,
// which kj guarantees. Outside a ThreadSanitizer build both are nothing.

#if defined(__SANITIZE_THREAD__)
#define MACE_THREAD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MACE_THREAD_SANITIZER 1
#endif
#endif

#ifdef MACE_THREAD_SANITIZER
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace mace::os {

inline void published(void* token) {
#ifdef MACE_THREAD_SANITIZER
  __tsan_release(token);
#else
  (void)token;
#endif
}

inline void received(void* token) {
#ifdef MACE_THREAD_SANITIZER
  __tsan_acquire(token);
#else
  (void)token;
#endif
}

}  // namespace mace::os
