#pragma once
// How far a Verilator build is, read from what it prints (BuildOptions::on_progress).
//
// A sims build first runs Verilator (no output worth counting for a minute or so), then
// `sims: make -j -C <obj_dir> -f Vcmp_top.mk Vcmp_top`, whose make prints one compiler
// command per object (`g++ ... -c -o NAME.o SRC`) and then the link (`g++ ... -o
// Vcmp_top`). When the make line appears, the objects it has to build are known from the
// files Verilator just wrote: the classes listed in <obj_dir>/Vcmp_top_classes.mk
// (VM_CLASSES_*, VM_SUPPORT_*, VM_GLOBAL_*) and the VM_USER_CLASSES of Vcmp_top.mk,
// less those whose object already exists (sims compiles the C helpers itself before make).
// A pico 1x1 build here has 44 such objects, compiled in about a minute.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace mace::openpiton {

enum class BuildPhase { verilating, compiling, linking };
std::string_view to_string(BuildPhase phase);

struct BuildProgress {
  BuildPhase phase = BuildPhase::verilating;
  int objects_done = 0;
  int objects_total = 0;  // 0 while not known (before make, or its lists were unreadable)
  // The same in bytes of source, since Verilator's objects differ a thousandfold in size
  // and in the time they take: a pico 1x1 has 40 generated sources from 0.5 KB to 1.8 MB.
  // The object make started last counts half (it is being compiled). Both 0 when no
  // source's size could be read (the total counts an unread source at the mean).
  int64_t work_done = 0;
  int64_t work_total = 0;
  bool operator==(const BuildProgress&) const = default;
};

// The objects make has to compile in `obj_dir` for the top `prefix` (e.g. "Vcmp_top"),
// from its generated .mk lists: those without a .o, or with a .o older than their .cpp;
// 0 when the lists cannot be read.
int objects_to_build(const std::filesystem::path& obj_dir, std::string_view prefix);

// The same objects, each with the size of its source: the generated .cpp in `obj_dir`, a
// user class's source in VM_USER_DIR, a global class's in $VERILATOR_ROOT/include; -1
// when not found.
std::map<std::string, int64_t> object_source_sizes(const std::filesystem::path& obj_dir,
                                                   std::string_view prefix);

// Fed every line of a build's output, in order; says when the progress moved.
class BuildProgressReader {
 public:
  // True when `line` changed the progress.
  bool feed(std::string_view line);
  const BuildProgress& progress() const { return progress_; }

 private:
  void start_compiling(std::string_view obj_dir, std::string_view prefix);
  void object_started(std::string_view object_file);

  BuildProgress progress_;
  std::string link_target_;  // the model binary make links last
  std::map<std::string, int64_t> weights_;  // object -> bytes of source, unread ones the mean
  int64_t mean_weight_ = 0;                 // 0: no source's size was read
  int64_t work_started_ = 0;
};

}  // namespace mace::openpiton
