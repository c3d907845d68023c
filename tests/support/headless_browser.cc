#include "headless_browser.h"

#include <unistd.h>

#include <chrono>

namespace mace::testing {

std::string chromium_binary() {
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (::access(path, X_OK) == 0) return path;
  return "";
}

ProcessResult browse(const std::string& page, const std::vector<std::string>& options,
                     const std::string& scratch_dir) {
  std::vector<std::string> argv = {chromium_binary(), "--headless", "--no-sandbox", "--disable-gpu",
                                   "--disable-dev-shm-usage",
                                   "--user-data-dir=" + scratch_dir + "/chromium-profile",
                                   "--window-size=1280,1600", "--enable-logging=stderr", "--v=0"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("file://" + page);
  ProcessOptions process;
  process.timeout = std::chrono::seconds(60);
  process.set_env = {{"HOME", scratch_dir}};
  return run_process(argv, process);
}

}  // namespace mace::testing
