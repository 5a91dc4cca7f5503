#include "support.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace vp::test {

namespace {
// Progress output of the tools a test runs (vp-analyze --progress) would make
// standard error depend on how long an analysis took on a loaded machine: off
// unless a test asks for it on the command line or in the command's own
// environment.
const bool kProgressOff = [] { return setenv("VP_PROGRESS", "none", 0) == 0; }();
}  // namespace

std::string fixture(const std::string& relative) { return std::string(VP_FIXTURES_DIR) + "/" + relative; }

TempDir::TempDir() {
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path p = fs::temp_directory_path() / ("vp-test-" + std::to_string(rd()));
    std::error_code ec;
    if (fs::create_directory(p, ec)) {
      path_ = p.string();
      return;
    }
  }
  throw std::runtime_error("cannot create a temporary folder");
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& name, const std::string& content) const {
  std::string full = path_ + "/" + name;
  std::ofstream f(full, std::ios::binary);
  f << content;
  if (!f) throw std::runtime_error("cannot write " + full);
  return full;
}

static std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

RunResult run(const std::string& command) {
  TempDir dir;
  std::string out = dir.path() + "/out", err = dir.path() + "/err";
  std::string full = command + " >" + out + " 2>" + err + " </dev/null";
  int status = std::system(full.c_str());
  RunResult r;
  r.exit_code = (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

}  // namespace vp::test
