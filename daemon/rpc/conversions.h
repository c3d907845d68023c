#pragma once
// Between the schema's structs and the daemon's own types. Kept in one place so the
// store, the service and the wire agree on every name.

#include <stdexcept>

#include "core/check_finding.h"
#include "core/failure_signature.h"
#include "core/tile_figures.h"
#include "core/run_spec.h"
#include "mace.capnp.h"
#include "service/checkout_status.h"
#include "service/run_event_log.h"
#include "service/failures_across_runs.h"
#include "service/run_service.h"
#include "store/store.h"

namespace mace::rpc {

// A failure answered to the caller, `message` its whole text.
kj::Exception failure(const std::string& message);

// A value of the schema's enums this maced does not know: the request is refused.
class UnknownWireValue : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

api::RunState to_wire(RunState s);
RunState from_wire(api::RunState s);  // throws UnknownWireValue

void fill(api::RunSummary::Builder out, const store::RunRecord& run);
void fill(api::Event::Builder out, const store::EventRecord& event);
void fill(api::Metrics::Builder out, const store::RunMetrics& metrics);
// A task with its configuration: each cache marked default where it equals the run's
// default caches (store::RunRecord::default_caches).
void fill(api::TaskState::Builder out, const store::TaskRecord& task, const CacheGeometry& default_caches);
// Caches, in name order, each marked default where it equals `defaults`' of that name.
void fill(capnp::List<api::CacheSetting>::Builder out, const CacheGeometry& caches,
          const CacheGeometry& defaults);
void fill(api::Diagnosis::Builder out, const store::DiagnosisRecord& diagnosis);
void fill(api::FailureGroup::Builder out, const FailureGroup& group);
void fill(api::FailureHistory::Builder out, const service::FailureHistory& history);
void fill(api::ReproFacts::Builder out, const ReproFacts& facts);
void fill(api::TaskCoverage::Builder out, const store::TaskCoverageRecord& coverage);
void fill(api::Waveform::Builder out, const store::WaveformRecord& waveform);
void fill(api::NarrowingBuild::Builder out, const store::NarrowingBuildRecord& build);
void fill(api::PostMortem::Builder out, const store::PostMortemRecord& post_mortem);
void fill(api::LlmCall::Builder out, const store::LlmCallRecord& call);
// A log file as `mace logs --list` shows it, with its note (service::log_file_note).
void fill(api::LogFile::Builder out, const store::LogFileRecord& file, const std::string& note);
void fill(api::LogEntry::Builder out, const service::RunLogLine& line);
void fill(api::LogChunk::Builder out, const service::LogChunk& chunk);
void fill(api::CheckoutStatus::Builder out, const service::CheckoutStatus& checkout);
void fill(api::CheckFinding::Builder out, const CheckFinding& finding);
void fill(api::TileFigures::Builder out, const TileFigures& figures);

// The structured spec, checked by exactly the rules (and with the messages, in JSON field
// paths) of the JSON form: it is rendered as JSON and parsed by parse_run_spec_json.
SpecParseResult from_wire(api::RunSpec::Reader spec);

}  // namespace mace::rpc
