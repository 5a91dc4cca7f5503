// Helpers shared by the tests: fixture paths, temporary folders, running a
// tool binary and capturing its output and exit code.
#pragma once

#include <string>

namespace vp::test {

// Absolute path of a file under fixtures/ ("real/nccl-topo/azure-ndv4-topo.xml").
std::string fixture(const std::string& relative);

// A fresh empty folder under the system temp dir, removed at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Write `content` to path()/name and return the full path.
  std::string write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
};

struct RunResult {
  int exit_code = -1;
  std::string out;  // standard output
  std::string err;  // standard error
};

// Run `command` through /bin/sh, capturing stdout and stderr separately.
RunResult run(const std::string& command);

// `s` as one /bin/sh word (single-quoted).
std::string shell_quote(const std::string& s);

}  // namespace vp::test
