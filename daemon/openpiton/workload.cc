#include "openpiton/workload.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>
#include <utility>

#include "openpiton/diag_search.h"
#include "openpiton/pico_program.h"
#include "os/environment.h"
#include "os/file_io.h"
#include "os/process_group.h"
#include "os/sha256.h"
#include "os/text.h"

namespace mace::openpiton {
namespace {

namespace fs = std::filesystem;

// sims hands -asm_diag_path / -asm_diag_root to `cp` and `find` in backticks and runs
// -pre_process_cmd with system(): a path going there must be one plain shell word.
bool is_shell_safe(const std::string& text) {
  if (text.empty()) return false;
  for (unsigned char c : text) {
    if (std::isalnum(c) != 0) continue;
    if (c == '/' || c == '.' || c == '_' || c == '-' || c == '+' || c == ',' || c == ':' ||
        c == '@' || c == '%')
      continue;
    return false;
  }
  return text[0] != '-' && text[0] != '~';
}

// A workload name: letters, digits, '_', '.', '+', '-', not starting with '-' or '.', at
// most one '/' (for "sparc/<name>.s"), no "..".
bool is_valid_name(const std::string& name) {
  if (name.empty() || name.size() > 200) return false;
  if (name[0] == '-' || name[0] == '.' || name.find("..") != std::string::npos) return false;
  if (std::count(name.begin(), name.end(), '/') > 1 || name.back() == '/') return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '_' || c == '.' || c == '+' || c == '-' || c == '/';
  });
}

bool regular_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::string core_name(Core core) { return std::string(to_string(core)); }

// Which of our own files carry this name (for names given with an extension).
bool ours_anywhere(const fs::path& workloads, const std::string& name) {
  return regular_file(workloads / name) || regular_file(workloads / "pico" / name) ||
         regular_file(workloads / "sparc" / name);
}

// What is wrong with the name, the mesh or the workloads directory, before any file is
// looked at; empty: nothing.
std::string request_problem(const std::string& name, const WorkloadContext& ctx) {
  if (!is_valid_name(name)) {
    return "workload name '" + name +
           "' is not valid: use letters, digits, '_', '.', '+', '-' (no leading '-')";
  }
  if (ctx.x_tiles < 1 || ctx.y_tiles < 1) {
    return "workload '" + name + "': mesh " + std::to_string(ctx.x_tiles) + "x" +
           std::to_string(ctx.y_tiles) + " has no tiles";
  }
  const fs::path& workloads = ctx.workloads_dir;
  if (!workloads.is_absolute() || !is_shell_safe(workloads.string())) {
    return "workloads directory '" + workloads.string() +
           "' must be an absolute path of letters, digits and /._+,:@%- only "
           "(sims passes it through a shell)";
  }
  return "";
}

// A workload name taken apart: "sparc/add.s" is base "add.s", stem "add", extension ".s".
struct WorkloadName {
  std::string base;       // without the "sparc/" prefix
  std::string stem;       // base without its extension
  std::string extension;  // from the last '.', dot included; "" without one
  bool has_extension = false;
  bool sparc_prefixed = false;
  std::string error;  // non-empty: a directory other than sparc/ was named
};

// "sparc/<name>.s" is accepted for sparc programs; no other name has a directory.
WorkloadName split_name(const std::string& name, const WorkloadContext& ctx) {
  WorkloadName parts;
  parts.base = name;
  if (const auto slash = name.find('/'); slash != std::string::npos) {
    if (name.substr(0, slash) != "sparc" || ctx.core != Core::sparc) {
      parts.error = "workload '" + name + "' for core " + core_name(ctx.core) +
                    ": only sparc programs may be named with a directory (sparc/<name>.s)";
      return parts;
    }
    parts.base = name.substr(slash + 1);
    parts.sparc_prefixed = true;
  }
  const auto dot = parts.base.rfind('.');
  parts.has_extension = dot != std::string::npos;
  parts.stem = parts.has_extension ? parts.base.substr(0, dot) : parts.base;
  parts.extension = parts.has_extension ? parts.base.substr(dot) : "";
  return parts;
}

// A workload sims finds by itself: `diag_name`, located by one option of sims.
PreparedWorkload sims_finds(std::string diag_name, std::string location_arg) {
  PreparedWorkload result;
  result.diag_name = std::move(diag_name);
  result.sims_args.push_back(std::move(location_arg));
  return result;
}

// `file` when the workload's name allows `extension` and the file is there; otherwise
// nullopt, and a file that was looked for is noted for the error that lists them.
std::optional<fs::path> own_file(const WorkloadName& parts, std::string_view extension,
                                 fs::path file, std::vector<fs::path>& looked_for) {
  if (parts.has_extension && parts.extension != extension) return std::nullopt;
  if (regular_file(file)) return file;
  looked_for.push_back(std::move(file));
  return std::nullopt;
}

// pico runs workloads/<stem>.c, built here; nullopt when there is no such file.
std::optional<PreparedWorkload> own_pico_program(const WorkloadName& parts,
                                                 const WorkloadContext& ctx,
                                                 std::vector<fs::path>& looked_for) {
  auto source = own_file(parts, ".c", ctx.workloads_dir / (parts.stem + ".c"), looked_for);
  if (!source) return std::nullopt;
  if (!ctx.run_dir.is_absolute() || !is_shell_safe(ctx.run_dir.string())) {
    return unprepared("run directory '" + ctx.run_dir.string() +
                  "' must be an absolute path of letters, digits and /._+,:@%- only "
                  "(sims runs -pre_process_cmd and -asm_diag_path through a shell)");
  }
  const std::int64_t tiles = static_cast<std::int64_t>(ctx.x_tiles) * ctx.y_tiles;
  return prepare_pico_program(parts.stem, *source, ctx, tiles);
}

// sparc runs workloads/sparc/<stem>.s as it is; nullopt when there is no such file.
std::optional<PreparedWorkload> own_sparc_program(const WorkloadName& parts,
                                                  const WorkloadContext& ctx,
                                                  std::vector<fs::path>& looked_for) {
  if (!own_file(parts, ".s", ctx.workloads_dir / "sparc" / (parts.stem + ".s"), looked_for))
    return std::nullopt;
  return sims_finds(parts.stem + ".s", "-asm_diag_path=" + (ctx.workloads_dir / "sparc").string());
}

// sims compiles C for Ariane itself; not verified here (no Ariane model). nullopt when
// there is no workloads/<stem>.c.
std::optional<PreparedWorkload> own_ariane_program(const WorkloadName& parts,
                                                   const WorkloadContext& ctx,
                                                   std::vector<fs::path>& looked_for) {
  if (!own_file(parts, ".c", ctx.workloads_dir / (parts.stem + ".c"), looked_for))
    return std::nullopt;
  return sims_finds(parts.stem + ".c", "-asm_diag_path=" + ctx.workloads_dir.string());
}

// One of MACE's own programs for ctx.core, prepared (or why it cannot be); nullopt when
// the name is none of ours, with the files it would have been in `looked_for`.
std::optional<PreparedWorkload> own_program(const std::string& name, const WorkloadName& parts,
                                            const WorkloadContext& ctx,
                                            std::vector<fs::path>& looked_for) {
  switch (ctx.core) {
    case Core::pico:
      return own_pico_program(parts, ctx, looked_for);
    case Core::sparc:
      return own_sparc_program(parts, ctx, looked_for);
    case Core::ariane:
      return own_ariane_program(parts, ctx, looked_for);
    case Core::generic:
      // Built as for pico, for the descriptor's ISA, link script and reset vector.
      if (!ctx.generic) {
        if (!parts.has_extension)
          return unprepared("workload '" + name + "' for core generic: no core descriptor to build " +
                            "MACE's own programs for; name a checkout diag with its extension",
                        Failure::workload_not_found);
        return std::nullopt;
      }
      if (ctx.generic->march.find('a', 5) == std::string::npos && !parts.has_extension)
        return unprepared("workload '" + name + "' for core generic: MACE's start-up code "
                      "(workloads/pico/start.S) takes a stack slot with amoadd.w, and the core's "
                      "ISA " + ctx.generic->march + " has no A; name a checkout diag instead",
                      Failure::workload_not_built);
      return own_pico_program(parts, ctx, looked_for);
  }
  return std::nullopt;
}

// A name with an extension that is not one of our programs for this core: one of the
// checkout's diags, unless one of our files carries it.
PreparedWorkload checkout_diag(const std::string& name, const std::string& base,
                               const WorkloadContext& ctx) {
  const std::string core = core_name(ctx.core);
  const fs::path& workloads = ctx.workloads_dir;
  if (ours_anywhere(workloads, base)) {
    return unprepared("workload '" + name + "' for core " + core + ": " + workloads.string() +
                      " has a file of that name, but it is not a program for " + core,
                  Failure::workload_not_found);
  }
  // sims searches piton/verif/diag first, then workloads/.
  return sims_finds(base, "-asm_diag_root=" + workloads.string());
}

// Says where the program was looked for, or where this core's programs live.
std::string no_such_program(const std::string& name, const WorkloadContext& ctx,
                            const std::vector<fs::path>& looked_for) {
  const std::string core = core_name(ctx.core);
  const fs::path& workloads = ctx.workloads_dir;
  std::string message = "workload '" + name + "' for core " + core + ": no such program";
  if (!looked_for.empty()) {
    message += " (looked for";
    for (std::size_t i = 0; i < looked_for.size(); ++i) {
      message += (i == 0 ? " " : ", ") + looked_for[i].string();
    }
    message += ")";
  } else if (ctx.core == Core::pico || ctx.core == Core::ariane) {
    message += " (" + core + " runs C programs " + (workloads / "<name>.c").string() + ")";
  } else if (ctx.core == Core::sparc) {
    message += " (sparc runs " + (workloads / "sparc" / "<name>.s").string() + ")";
  }
  message += "; a checkout diag needs its extension, e.g. add.S or princeton-test-test.s";
  return message;
}

}  // namespace

PreparedWorkload unprepared(std::string message, Failure problem) {
  PreparedWorkload result;
  result.error = std::move(message);
  result.problem = problem;
  return result;
}

PreparedWorkload prepare_workload(const std::string& name, const WorkloadContext& ctx) {
  if (std::string problem = request_problem(name, ctx); !problem.empty())
    return unprepared(problem, is_valid_name(name) ? Failure::none : Failure::workload_not_found);
  const WorkloadName parts = split_name(name, ctx);
  if (!parts.error.empty()) return unprepared(parts.error, Failure::workload_not_found);

  std::vector<fs::path> looked_for;
  if (auto own = own_program(name, parts, ctx, looked_for)) return std::move(*own);
  if (parts.has_extension && !parts.sparc_prefixed) return checkout_diag(name, parts.base, ctx);
  return unprepared(no_such_program(name, ctx, looked_for), Failure::workload_not_found);
}

namespace {

std::string more_than_one(const std::string& name, const fs::path& root, const DiagMatches& matches) {
  return "workload '" + name + "': sims would find more than one diag of that name under " +
         root.string() + " (" + matches.found[0].string() + ", " + matches.found[1].string() +
         ") and stop";
}

// Why sims, on the checkout whose diag root is `checkout_root`, would find no single diag
// named `base`; "" when it would, or when that cannot be told here.
std::string diag_problem(const std::string& name, const std::string& base, const fs::path& checkout_root,
                         const fs::path& workloads) {
  const DiagMatches in_checkout = find_diags(checkout_root, base);
  if (!in_checkout.readable || !in_checkout.complete) return "";
  if (in_checkout.found.size() > 1) return more_than_one(name, checkout_root, in_checkout);
  if (in_checkout.found.size() == 1) return "";
  const DiagMatches in_workloads = find_diags(workloads, base);
  if (!in_workloads.complete) return "";
  if (in_workloads.found.size() > 1) return more_than_one(name, workloads, in_workloads);
  if (in_workloads.found.size() == 1) return "";
  return "workload '" + name + "': no diag of that name under " + checkout_root.string() + " or " +
         workloads.string() + ", where sims looks for it";
}

}  // namespace

WorkloadLookup find_workload(const std::string& name, Core core, const fs::path& workloads_dir,
                             const std::vector<fs::path>& checkout_diag_roots) {
  WorkloadContext ctx;
  ctx.workloads_dir = workloads_dir;
  ctx.core = core;
  WorkloadLookup out;
  if (!is_valid_name(name)) {
    out.problem = request_problem(name, ctx);
    return out;
  }
  if (std::error_code ec; !fs::is_directory(workloads_dir, ec)) {
    out.problem = "workload '" + name + "': the workloads directory " + workloads_dir.string() +
                  " is not there, so none of MACE's programs can be run";
    return out;
  }
  const WorkloadName parts = split_name(name, ctx);
  if (!parts.error.empty()) {
    out.problem = parts.error;
    return out;
  }
  std::vector<fs::path> looked_for;
  const bool own = core == Core::sparc
                       ? own_file(parts, ".s", workloads_dir / "sparc" / (parts.stem + ".s"), looked_for).has_value()
                       : own_file(parts, ".c", workloads_dir / (parts.stem + ".c"), looked_for).has_value();
  if (own) {
    out.found = true;
    return out;
  }
  if (!parts.has_extension || parts.sparc_prefixed) {
    out.problem = no_such_program(name, ctx, looked_for);
    return out;
  }
  if (ours_anywhere(workloads_dir, parts.base)) {
    out.problem = checkout_diag(name, parts.base, ctx).error;
    return out;
  }
  for (const auto& root : checkout_diag_roots) {
    std::string problem = diag_problem(name, parts.base, root, workloads_dir);
    if (!problem.empty()) {
      out.problem = std::move(problem);
      return out;
    }
  }
  out.found = true;  // on every checkout whose diags could be read here
  return out;
}

std::string default_finish_mask(int x_tiles, int y_tiles) {
  if (x_tiles < 1 || y_tiles < 1) return "";
  // Tile N's thread 0 is bit 4N: hex digit N is 1, for every tile.
  const std::int64_t tiles = static_cast<std::int64_t>(x_tiles) * y_tiles;
  return std::string(static_cast<std::size_t>(tiles), '1');
}

}  // namespace mace::openpiton
