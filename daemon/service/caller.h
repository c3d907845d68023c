#pragma once
// Who is asking, and what maced lets people see of each other's runs (docs/operating-maced.md,
// "Who sees what"). A shared build server holds several people's designs: the queue (which runs,
// whose, in what state) is everyone's to see, as with `squeue`; a run's contents (its
// objective and spec, events, tasks, logs, LLM prompts and replies) are its submitter's
// and the administrators', unless maced's configuration opens them to everyone.

#include <cstdint>

namespace mace::service {

struct Caller {
  uint32_t uid = 0;
  // root, maced's own user, or a member of the group maced's configuration names
  // (access.admin_group): they read, cancel and replay every run.
  bool admin = false;
};

// access.others_see: what a user who neither submitted a run nor administers maced sees
// of it.
enum class OthersSee {
  queue,       // its id, state, core, mesh, submitter and times; nothing of its contents
  everything,  // all of it, as its submitter does (a one-team server)
};

}  // namespace mace::service
