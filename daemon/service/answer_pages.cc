#include "service/answer_pages.h"

namespace mace::service {
namespace {

// Where a cut may fall: not inside a UTF-8 character (not before a continuation byte).
std::size_t back_to_character(const std::string& text, std::size_t at) {
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}

}  // namespace

std::size_t answer_bytes(const store::RunRecord& run) {
  std::size_t bytes = kItemOverheadBytes + run.id.size() + run.reason.size() + run.core.size() +
                      run.objective.size() + run.backend.size() + run.model.size() +
                      run.replay_of.size();
  for (const auto& w : run.workloads) bytes += w.size() + 16;
  return bytes;
}

std::size_t answer_bytes(const store::EventRecord& event) {
  return kItemOverheadBytes + event.task_id.size() + event.workload.size() + event.message.size();
}

std::size_t answer_bytes(const store::LlmCallRecord& call) {
  return kItemOverheadBytes + to_string(call.phase).size() + call.task_id.size() +
         call.backend.size() + call.model.size() + to_string(call.error_class).size() +
         (call.cost_source ? to_string(*call.cost_source).size() : 0) + call.prompt_text.size() +
         call.reply_text.size();
}

std::size_t answer_bytes(const store::TaskRecord& task) {
  std::size_t bytes = kItemOverheadBytes + task.task_id.size() + task.instruction.size() +
                      task.checkout.size() + task.network.size() + task.build_id.size() +
                      task.build_source.size() + task.build_origin.size() +
                      task.rtl_edits.size() + task.waiting_for.size();
  for (const auto& dep : task.deps) bytes += dep.size() + 16;
  for (const auto& result : task.results)
    bytes += result.workload.size() + result.run_dir.size() + result.error_line.size() +
             result.excerpt.size() + 48;
  return bytes;
}

std::size_t answer_bytes(const FailureGroup& group) {
  std::size_t bytes = kItemOverheadBytes + group.signature.size() + group.error_line.size();
  for (const auto& member : group.members) bytes += member.task_id.size() + member.workload.size() + 24;
  return bytes;
}

std::size_t answer_bytes(const store::TaskCoverageRecord& coverage) {
  std::size_t bytes = kItemOverheadBytes + coverage.task_id.size() + coverage.error.size() +
                      coverage.data_path.size() + coverage.annotated_dir.size();
  for (const auto& module : coverage.modules) bytes += module.module.size() + 48;
  return bytes;
}

std::size_t answer_bytes(const store::WaveformRecord& waveform) {
  std::size_t bytes = kItemOverheadBytes + waveform.task_id.size() + waveform.workload.size() +
                      waveform.path.size() + waveform.end.size() + waveform.build_id.size() +
                      waveform.problem.size() + waveform.note.size() + 96;
  for (const auto& line : waveform.changed_last) bytes += line.size() + 4;
  return bytes;
}

std::size_t answer_bytes(const store::DiagnosisRecord& diagnosis) {
  return kItemOverheadBytes + diagnosis.task_id.size() + diagnosis.label.size() +
         diagnosis.fix.size() + to_string(diagnosis.source).size();
}

std::size_t answer_bytes(const store::NarrowingBuildRecord& build) {
  return kItemOverheadBytes + build.task_id.size() + build.undone.size() + build.build_id.size();
}

std::string cut_for_answer(const std::string& text, std::size_t max) {
  if (text.size() <= max) return text;
  const std::size_t head = back_to_character(text, max / 2);
  const std::size_t tail = back_to_character(text, text.size() - max / 2);
  return text.substr(0, head) + "\n[maced: " + std::to_string(tail - head) +
         " bytes left out here; one answer carries at most " + std::to_string(max) +
         " bytes of one text]\n" + text.substr(tail);
}

}  // namespace mace::service
