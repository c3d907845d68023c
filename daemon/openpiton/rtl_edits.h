#pragma once
// RTL edits an agent proposes for one build (REQ-EXEC-14..17, 19), one concept per header:
//   design_path.h    which paths an edit may touch (piton/design/ only, symlinks resolved)
//   edit_set.h       edits as data: replacements, full contents, their hash and diff
//   edit_staging.h   where the rtl_edit tool stages an agent's edits, never the checkout
//   edit_journal.h   the crash journal that makes applied edits come back out after kill -9
//   applied_edits.h  applying a set for a build and restoring the checkout afterwards
//   edit_io.h        their file I/O, errors as EditError (edit_error.h), the crash-test hook

#include "openpiton/applied_edits.h"
#include "openpiton/design_path.h"
#include "openpiton/edit_error.h"
#include "openpiton/edit_io.h"
#include "openpiton/edit_journal.h"
#include "openpiton/edit_set.h"
#include "openpiton/edit_staging.h"
