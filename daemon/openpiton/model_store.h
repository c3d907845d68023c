#pragma once
// A store of finished Verilator models shared by checkouts, runs and machines, so that a
// model is built once. A model is determined by its build ID (the whole build
// configuration) and the source fingerprint of the checkout it was built in: the inputs the
// `.mace_build_ok` marker already records. Two checkouts with equal fingerprints hold the
// same sources, so either's model serves the other.
//
// Layout under the store's directory (a local directory, or one on a file system the
// nodes of a cluster share):
//   entries/<build_id>-<fingerprint>/MANIFEST   every file's size, SHA-256 and mode, and
//                                               where the model was built
//   entries/<build_id>-<fingerprint>/model/...  the model directory's files
//   entries/<build_id>-<fingerprint>/last_used  its modification time is the LRU clock
//   incoming/  entries being published          trash/  entries being removed
//
// Publishing copies the model into incoming/, writes the MANIFEST last and renames the
// directory into entries/: rename(2) of a directory onto a non-empty one fails, so of two
// publishers of one key (two maced processes, two nodes) exactly one wins and the other
// discards its copy; nobody ever sees half an entry under entries/. Fetching checks every
// file against the MANIFEST while copying it out; an entry that does not match (a damaged
// disk, someone's hand) is moved to trash/ and reported, never used.
//
// Relocation: what a built model directory holds of the checkout it was built in is its
// absolute path, in text files only (flist, the Verilator makefiles and dependency files,
// the generated C++ naming the testbench files). A fetch rewrites that path to the
// receiving checkout's in every file without NUL bytes. The model binary keeps the old
// path in the four file names Verilator compiled in for $display/$finish messages (e.g.
// the "- <root>/piton/verif/env/manycore/pc_cmp.tmp.v:1775: Verilog $finish" line); sims
// passes the checkout's own paths (+dv_root, the diag) at run time, so nothing the run
// reads comes from the old checkout (docs/model-store.md).
//
// Self-contained: it depends on the base layer os/ only, like the rest of the adapter.

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "os/cancel_token.h"

namespace mace::openpiton {

struct ModelKey {
  std::string build_id;     // letters, digits, '_', '-', '.'; at most 100
  std::string fingerprint;  // SourceFingerprint::digest: 64 lowercase hex digits

  // "<build_id>-<fingerprint>", the entry's directory name; throws std::invalid_argument
  // when a part is not what it must be (so no key can name a path outside the store).
  std::string entry_name() const;
};

struct ModelStoreSettings {
  std::filesystem::path directory;
  // The store evicts least recently used entries beyond this total (the entry just
  // published is never evicted, so one model larger than the limit still serves its run).
  std::uint64_t max_bytes = std::uint64_t{20} << 30;
};

struct StoreFetch {
  bool hit = false;
  std::string entry;   // the entry's directory
  std::string origin;  // on a hit: "built in <checkout> on <host> at <UTC time>"
  // Why an entry that exists was not used (damaged, partial) or could not be copied out
  // (the checkout's disk full); empty on a hit and on a plain miss.
  std::string problem;
};

struct StorePublish {
  bool published = false;        // this call put the entry in place
  bool already_present = false;  // an intact entry of the key was there (or won the race)
  std::string problem;           // why it could not publish; the model stays in the checkout
  std::vector<std::string> evicted;  // entry names removed to keep within the limit
};

class ModelStore {
 public:
  // While it lives, no other build of its key in this process gets past claim(): a second
  // task wanting the same model waits for the first to build and publish it, then takes it
  // from the store. (Processes and nodes do not wait for each other; they may both build,
  // and one publish wins.)
  class Claim {
   public:
    Claim(Claim&& other) noexcept : store_(other.store_), name_(std::move(other.name_)) {
      other.store_ = nullptr;
    }
    Claim& operator=(Claim&& other) noexcept {
      if (this != &other) {
        release();
        store_ = other.store_;
        name_ = std::move(other.name_);
        other.store_ = nullptr;
      }
      return *this;
    }
    ~Claim() { release(); }

   private:
    void release() noexcept;
    friend class ModelStore;
    Claim(const ModelStore* store, std::string name) : store_(store), name_(std::move(name)) {}
    const ModelStore* store_;
    std::string name_;
  };

  explicit ModelStore(ModelStoreSettings settings);

  const ModelStoreSettings& settings() const { return settings_; }
  std::filesystem::path entry_path(const ModelKey& key) const;

  // Copies the model of `key` into `model_dir` (created if missing; files of the same name
  // replaced, others left), rewriting the building checkout's path to `checkout_root`.
  // On a hit the entry becomes the most recently used. Never throws for I/O: a miss with
  // `problem` says what went wrong; a partial copy is left for the caller's next build to
  // overwrite (the caller writes its marker only on a hit).
  StoreFetch fetch(const ModelKey& key, const std::filesystem::path& model_dir,
                   const std::filesystem::path& checkout_root) const;

  // Publishes the model in `model_dir`, built in `checkout_root`, under `key`, then evicts
  // to the limit. Left out: runs/ (simulations), mace_build.log, and MACE's own files
  // (names starting ".mace_"). Never throws for I/O: `problem` says what went wrong (a
  // read-only or full file system), and nothing of a failed publish stays in the store.
  StorePublish publish(const ModelKey& key, const std::filesystem::path& model_dir,
                       const std::filesystem::path& checkout_root) const;

  // Removes least recently used entries until the total is within max_bytes, never
  // `keep`; also clears what crashed publishers left in incoming/ and trash/ (older than
  // a day, so a publish in progress elsewhere is left alone). Returns the removed entries'
  // names.
  std::vector<std::string> evict(const std::string& keep = "") const;

  // The sum of the entries' sizes as their manifests give them.
  std::uint64_t total_bytes() const;

  // Whether an entry of model `build_id` is published, whatever checkout sources it was
  // built from: a cheap guess that a build of it will be a hit (nothing is read but the
  // directory's names and the manifest's presence), for ordering work before it starts.
  bool holds_build(const std::string& build_id) const;

  // Waits until no other Claim of `key` lives in this process, then returns one; nullopt
  // when `cancel` (may be null) is cancelled first. Throws std::invalid_argument for a key
  // the store cannot hold.
  std::optional<Claim> claim(const ModelKey& key, const os::CancelToken* cancel) const;

 private:
  ModelStoreSettings settings_;
  // The keys claimed now; shared by the copies of nothing (a store is used through one
  // object per process), guarded by its mutex.
  struct Claims {
    std::mutex mutex;
    std::condition_variable released;
    std::set<std::string> names;
  };
  std::unique_ptr<Claims> claims_ = std::make_unique<Claims>();
};

}  // namespace mace::openpiton
