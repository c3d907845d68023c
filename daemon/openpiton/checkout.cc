#include "openpiton/checkout.h"

#include <sys/utsname.h>

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include "openpiton/build_config.h"

namespace mace::openpiton {
namespace {

// An empty element in a search path means "the current directory", which nobody wants.
std::string append_path_element(const std::string& list, const std::string& element) {
  return list.empty() ? element : list + ":" + element;
}

}  // namespace

Checkout::Checkout(std::filesystem::path root)
    : Checkout(std::move(root), os::local_command_runner()) {}

Checkout::Checkout(std::filesystem::path root, std::shared_ptr<const os::CommandRunner> runner)
    : runner_(runner ? std::move(runner) : os::local_command_runner()) {
  std::error_code error;
  root_ = std::filesystem::absolute(root, error).lexically_normal();
  if (error) throw std::invalid_argument("cannot resolve checkout path " + root.string());
  // lexically_normal keeps a trailing separator, which would double up in every path below.
  if (!root_.has_filename() && root_.has_parent_path() && root_ != root_.root_path()) {
    root_ = root_.parent_path();
  }
  if (!std::filesystem::is_directory(root_)) {
    throw std::invalid_argument("not an OpenPiton checkout: " + root_.string() +
                                " is not a directory");
  }
  for (const char* required : {"piton/piton_settings.bash", "piton/tools/bin/sims"}) {
    if (!std::filesystem::exists(root_ / required)) {
      throw std::invalid_argument("not an OpenPiton checkout: " + root_.string() + " has no " +
                                  required);
    }
  }
}

std::filesystem::path Checkout::model_dir(const std::string& build_id) const {
  return model_root() / "manycore" / build_id;
}

std::filesystem::path Checkout::model_binary(const std::string& build_id) const {
  return model_dir(build_id) / "obj_dir" / "Vcmp_top";
}

std::map<std::string, std::string> Checkout::environment(
    const std::map<std::string, std::string>& base) const {
  std::map<std::string, std::string> env;
  for (const char* kept : {"HOME", "USER", "LANG", "TMPDIR"}) {
    if (auto it = base.find(kept); it != base.end()) env[kept] = it->second;
  }
  const auto base_path = base.find("PATH");
  const std::string inherited_path =
      base_path != base.end() ? base_path->second : "/usr/local/bin:/usr/bin:/bin";

  const std::string piton = dv_root().string();
  env["PITON_ROOT"] = root_.string();
  env["DV_ROOT"] = piton;
  env["MODEL_DIR"] = model_root().string();
  env["CC_BIN"] = "/usr/bin";
  env["TRE_ENTRY"] = "/";
  env["TRE_LOG"] = "nobody";
  env["TRE_SEARCH"] = piton + "/tools/env/tools.iver";
  env["ENVDIR"] = piton + "/tools/env";
  env["PERL_MODULE_BASE"] = piton + "/tools/perlmod";
  env["PERL_CMD"] = "/usr/bin/perl";
  // NEWPATH is tools/bin then CC_BIN, put before the inherited PATH.
  env["PATH"] = append_path_element(piton + "/tools/bin:" + env["CC_BIN"], inherited_path);

  struct utsname host {};
  std::string os = "Linux", cpu = "x86_64";
  if (uname(&host) == 0) {
    os = host.sysname;
    cpu = host.machine;
  }
  env["M4PATH"] = piton + "/tools/" + os + "/" + cpu + "/lib/m4";
  // piton_settings.bash writes `$LD_LIBRARY_PATH:...`; with nothing inherited that would
  // start with an empty element, which the loader reads as the current directory.
  env["LD_LIBRARY_PATH"] = piton + "/tools/src/goldfinger/lib";
  return env;
}

std::vector<std::string> Checkout::remove_mace_models() const {
  namespace fs = std::filesystem;
  std::vector<std::string> removed;
  std::error_code ec;
  if (!fs::is_directory(model_root(), ec)) return removed;
  // build/<system>/<build id>: sims puts each model under its system's folder.
  std::vector<fs::path> systems;
  for (const auto& entry : fs::directory_iterator(model_root(), ec))
    if (entry.is_directory() && !entry.is_symlink() &&
        !entry.path().filename().string().starts_with("."))
      systems.push_back(entry.path());
  for (const auto& system : systems) {
    std::vector<fs::path> models;
    for (const auto& entry : fs::directory_iterator(system, ec))
      if (entry.path().filename().string().starts_with(kBuildIdPrefix)) models.push_back(entry.path());
    std::sort(models.begin(), models.end());
    for (const auto& model : models) {
      fs::remove_all(model);
      removed.push_back(fs::relative(model, root_).string());
    }
  }
  return removed;
}

Checkout Checkout::labelled(const std::string& label) const {
  Checkout copy = *this;
  copy.runner_ = runner_->labelled(label);
  return copy;
}

std::optional<Checkout> Checkout::side_by_side(std::size_t at_once, const os::CancelToken* cancel,
                                               std::string& why) const {
  auto runner = runner_->side_by_side(at_once, cancel, why);
  if (!runner) return std::nullopt;
  Checkout copy = *this;
  copy.runner_ = std::move(runner);
  return copy;
}

}  // namespace mace::openpiton
