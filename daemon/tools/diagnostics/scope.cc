#include "tools/diagnostics/scope.h"

#include <system_error>
#include <utility>

#include "os/path_containment.h"
#include "tools/diagnostic_tools.h"
#include "tools/diagnostics/text.h"

namespace mace::tools::diagnostics {

namespace fs = std::filesystem;

bool contained(const fs::path& root, const fs::path& p) { return os::is_inside(p, root); }

const Place* State::find(std::string_view name) const {
  for (const auto& p : places)
    if (p.name == name) return &p;
  return nullptr;
}

const Place* State::last_failed_run() const {
  const Place* last = nullptr;
  for (const auto& p : places)
    if (p.kind == PlaceKind::failed) last = &p;
  return last;
}

std::string State::place_names() const {
  std::string out;
  for (const auto& p : places) {
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out;
}

std::vector<Resolved> State::resolve_many(const std::string& arg, bool allow_group) const {
  auto refuse = [&](const std::string& why) -> Refusal {
    return Refusal("path " + in_quotes(arg) + " refused: " + why);
  };
  if (arg.empty()) throw refuse("it is empty");
  if (arg.find('\0') != std::string::npos) throw refuse("it contains a NUL byte");
  if (arg.front() == '/')
    throw refuse("absolute paths are not allowed; paths start with one of: " + place_names());
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= arg.size()) {
    auto slash = arg.find('/', start);
    if (slash == std::string::npos) slash = arg.size();
    std::string part = arg.substr(start, slash - start);
    if (part == "..") throw refuse("\"..\" components are not allowed");
    if (!part.empty() && part != ".") parts.push_back(std::move(part));
    start = slash + 1;
  }
  if (parts.empty()) throw refuse("it names nothing");

  const std::string& head = parts[0];
  const Place* place = nullptr;
  std::size_t rest_from = 0;
  if (head == kFailedPlace || head == kReferencePlace) {
    if (parts.size() == 1) {
      const PlaceKind kind = head == kFailedPlace ? PlaceKind::failed : PlaceKind::reference;
      std::vector<Resolved> all;
      for (const auto& p : places)
        if (p.kind == kind) all.push_back(Resolved{&p, p.name, p.root});
      if (all.empty()) throw refuse("this scope has no " + head + " run directory");
      if (!allow_group)
        throw refuse("name one run directory in it (" + names_of(all) + ")");
      return all;
    }
    place = find(head + "/" + parts[1]);
    rest_from = 2;
  } else if (head == kBuildPlace) {
    for (const auto& p : places)
      if (p.kind == PlaceKind::build) place = &p;
    if (place && parts.size() > 1) {
      if (parts.size() != 2 || place->name != head + "/" + parts[1])
        throw refuse("build/ holds only " + place->name);
    }
    rest_from = parts.size();
  } else if (head == kWorkloadsPlace) {
    place = find(head);
    rest_from = 1;
  }
  if (place == nullptr)
    throw refuse("it names no place of this scope; paths start with one of: " + place_names());

  fs::path candidate = place->root;
  std::string name = place->name;
  for (std::size_t i = rest_from; i < parts.size(); ++i) {
    candidate /= parts[i];
    name += "/" + parts[i];
  }
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(candidate, ec);
  if (ec) throw refuse("it cannot be resolved: " + ec.message());
  if (!contained(place->root, canonical))
    throw refuse("it resolves outside " + place->name + " (through a symlink)");
  return {Resolved{place, name, canonical}};
}

std::string State::names_of(const std::vector<Resolved>& rs) {
  std::string out;
  for (const auto& r : rs) out += (out.empty() ? "" : ", ") + r.name;
  return out;
}

}  // namespace mace::tools::diagnostics
