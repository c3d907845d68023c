#pragma once
// What a finished sims build says of itself: it made its model, or why not (a Failure) with
// a sentence for people. Decided from the process's end alone, in this order: it could not
// start, the machine ended it, it was cancelled, it ran out of time, sims failed, sims
// "passed" without a model.

#include <chrono>
#include <filesystem>
#include <string>

#include "openpiton/failure.h"
#include "os/process_group.h"

namespace mace::openpiton {

struct BuildClassification {
  Failure failure_reason = Failure::none;  // none: the build made its model
  std::string message;
};

BuildClassification classify_build(const os::ProcessResult& run, std::chrono::milliseconds timeout,
                                   const std::filesystem::path& binary);

}  // namespace mace::openpiton
