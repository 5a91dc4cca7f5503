#include "vp/cli/output.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "vp/base/errors.hpp"

namespace vp::cli {

void write_outputs(const std::vector<catalog::OutputFile>& outputs) {
  std::vector<catalog::OutputFile> files;
  const catalog::OutputFile* to_stdout = nullptr;
  for (const catalog::OutputFile& o : outputs) {
    if (o.path != "-") {
      files.push_back(o);
    } else if (to_stdout != nullptr) {
      throw UsageError("two outputs are \"-\": only one can go to standard output");
    } else {
      to_stdout = &o;
    }
  }
  catalog::write_files_atomically(files);
  if (to_stdout == nullptr) return;
  if (std::fwrite(to_stdout->data, 1, to_stdout->size, stdout) != to_stdout->size || std::fflush(stdout) != 0) {
    const int err = errno != 0 ? errno : EIO;
    throw InputError("standard output", 0, fmt::format("cannot write ({})", std::strerror(err)));
  }
}

void check_binary_stdout(const std::string& option, const std::string& path) {
  if (path == "-" && ::isatty(STDOUT_FILENO))
    throw UsageError(fmt::format("{} -: standard output is a terminal; redirect it to a file or a pipe", option));
}

bool writes_stdout(const std::vector<std::string>& paths) {
  for (const std::string& p : paths)
    if (p == "-") return true;
  return false;
}

}  // namespace vp::cli
