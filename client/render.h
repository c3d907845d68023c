#pragma once
// How mace shows what maced answers: compact lines for people, JSON for scripts. The JSON
// field names match the store's columns and the run spec's snake_case names.

#include <string>
#include <vector>
#include <string_view>

#include "core/design_configuration.h"
#include "core/json_writer.h"
#include "coverage_text.h"
#include "mace.capnp.h"

namespace mace::client {

std::string state_name(api::RunState s);  // snake_case, as in the store
std::string event_kind_name(api::EventKind k);
std::string stage_name(api::TaskStage s);
std::string verdict_name(api::Verdict v);
std::string check_topic_name(api::CheckTopic t);
std::string check_level_name(api::CheckLevel l);

// A run's whole detail as fields of an object the caller has opened, as `mace status --json`
// prints it and a report page reads it: "run" (its summary), "spec", "tasks",
// "default_caches", "diagnoses", "narrowing_builds", "failure_groups", "coverage",
// "environment" and "post_mortem" (null when it has none).
void write_run_detail_fields(JsonWriter& w, api::RunDetail::Reader run);

void write_json(JsonWriter& w, api::RunSummary::Reader run);
void write_json(JsonWriter& w, api::Event::Reader event);
void write_json(JsonWriter& w, api::Metrics::Reader metrics);
void write_json(JsonWriter& w, api::LogEntry::Reader entry);
void write_json(JsonWriter& w, api::TaskState::Reader task);
void write_json(JsonWriter& w, api::CacheSetting::Reader cache);
void write_json(JsonWriter& w, api::Diagnosis::Reader diagnosis);
void write_json(JsonWriter& w, api::FailureGroup::Reader group);
void write_json(JsonWriter& w, api::NarrowingBuild::Reader build);
void write_json(JsonWriter& w, api::PostMortem::Reader post_mortem);
void write_json(JsonWriter& w, api::LlmCall::Reader call);
void write_json(JsonWriter& w, api::CheckoutStatus::Reader checkout);

// "environment MACE 0.1.0 (abc123) on host" and a line per checkout: its OpenPiton commit,
// source fingerprint and Verilator; "" for an empty or unreadable environment.
std::string human_environment(std::string_view environment_json);
// One line per call attempt; with `full`, its prompt and reply below it, indented.
std::string human_call(api::LlmCall::Reader call, bool full);

// A task's build configuration (core/design_configuration.h), and whether it has one:
// a unit_test task, or a task recorded before its configuration was, has none.
bool has_configuration(api::TaskState::Reader task);
DesignConfiguration design_configuration(api::TaskState::Reader task);
// "13,886"
std::string cycles_text(int64_t cycles);
// "built in 54.2 s, CPU 1 min 36 s, peak 263 MiB", "reused in place in 0.1 s"; "" when the
// task's build was not measured.
std::string build_figures_text(api::TaskState::Reader task);

// "2026-11-30 12:15:30" in local time; "-" for 0.
std::string format_time(int64_t ms);
std::string format_duration(double seconds);

// What a run's end means, for a column of runs: a fault check's caught or missed, else its
// state, marked "(direct)" for the direct planner's runs (which built the spec's defaults
// and did not try the objective).
std::string outcome_word(api::RunSummary::Reader run);
std::string human_summary_header();
std::string human_summary_row(api::RunSummary::Reader run);
std::string human_run_detail(api::RunDetail::Reader run);
std::string human_event(api::Event::Reader event);
std::string human_metrics(api::Metrics::Reader metrics);
// "checkouts (slurm):" and one line per checkout: path, node, holder, the job on it, or why
// its node takes no work.
std::string human_checkouts(const std::string& executor,
                            capnp::List<api::CheckoutStatus>::Reader checkouts);

}  // namespace mace::client
