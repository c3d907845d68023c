#pragma once
// How much one answer of maced's API carries when what it holds grows with what users
// stored: the runs of a listing, a run's tasks, diagnoses and narrowing builds, its log, its
// LLM calls. Cap'n Proto's RPC refuses to
// send a message larger than the limit its connection reads with (8 MiB for maced's,
// maced/connection_limits.h) and a client reads 64 MiB at most by default, so a thousand
// queued runs answered at once failed with a raw Cap'n Proto error. Such an answer is a
// page instead: at most kMaxAnswerBytes of text and a count of items, and it says where
// the next page starts; `mace` asks for pages until it has all it wants.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/failure_signature.h"
#include "store/store.h"

namespace mace::service {

// An eighth of the smallest limit an answer meets, so the estimate below may be rough (Cap'n
// Proto adds a NUL and padding to each text, pointers and the RPC frame around the whole),
// one item larger alone still fits, and building one answer holds maced's event loop for
// a millisecond or two, not the tens a listing of 4 MiB took.
inline constexpr std::size_t kMaxAnswerBytes = 1 << 20;
// What one item costs an answer beyond its texts (its struct, its pointers), rounded up.
inline constexpr std::size_t kItemOverheadBytes = 256;

inline constexpr int64_t kMaxRunsPerAnswer = 500;
inline constexpr int64_t kMaxEventsPerAnswer = 5000;
inline constexpr int64_t kMaxCallsPerAnswer = 100;
// An LLM call's prompt or reply, a task's RTL diff, a diagnosis's fix, a run's reason or
// post-mortem beyond this is cut in an answer (its middle left out, and a line saying how
// much), so that any one item fits in one.
inline constexpr std::size_t kMaxCallTextBytes = 1 << 20;

// Counts what a page holds as items are added. The first item always fits (each kind of
// item is bounded: its long texts cut to kMaxCallTextBytes, so one call is at most about
// 2 MiB), so every page makes progress and stays far under the message limit.
class AnswerBudget {
 public:
  // False, and nothing counted, when `bytes` more would pass the limit.
  bool take(std::size_t bytes) {
    if (used_ > 0 && used_ + bytes > kMaxAnswerBytes) return false;
    used_ += bytes;
    return true;
  }

 private:
  std::size_t used_ = 0;
};

// What each item costs an answer.
std::size_t answer_bytes(const store::RunRecord& run);
std::size_t answer_bytes(const store::EventRecord& event);
std::size_t answer_bytes(const store::LlmCallRecord& call);
std::size_t answer_bytes(const store::TaskRecord& task);
std::size_t answer_bytes(const store::DiagnosisRecord& diagnosis);
std::size_t answer_bytes(const store::NarrowingBuildRecord& build);
std::size_t answer_bytes(const FailureGroup& group);
std::size_t answer_bytes(const store::TaskCoverageRecord& coverage);
std::size_t answer_bytes(const store::WaveformRecord& waveform);

// `text` cut to at most about `max` bytes: its head and tail, each ending on a UTF-8
// character, and between them a line saying how many bytes were left out and why.
std::string cut_for_answer(const std::string& text, std::size_t max = kMaxCallTextBytes);

}  // namespace mace::service
