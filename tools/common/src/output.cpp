#include "vp/cli/output.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "vp/base/errors.hpp"
#include "vp/base/inputs_read.hpp"
#include "vp/base/messages.hpp"

namespace vp::cli {

void write_outputs(const std::vector<catalog::OutputFile>& outputs) {
  std::vector<catalog::OutputFile> files;
  const catalog::OutputFile* to_stdout = nullptr;
  for (const catalog::OutputFile& o : outputs) {
    if (o.path == "-") continue;
    if (const std::optional<std::string> input = read_as_input(o.path))
      throw UsageError(fmt::format("{}: is {}an input of this run: the output would replace it (write to another file)",
                                   printable_line(o.path),
                                   *input == o.path ? "" : "the same file as " + printable_line(*input) + ", "));
  }
  for (const catalog::OutputFile& o : outputs) {
    if (o.path != "-") {
      files.push_back(o);
    } else if (to_stdout != nullptr) {
      throw UsageError("two outputs are \"-\": only one can go to standard output");
    } else {
      to_stdout = &o;
    }
  }
  if (to_stdout != nullptr &&
      (std::fwrite(to_stdout->data, 1, to_stdout->size, stdout) != to_stdout->size || std::fflush(stdout) != 0)) {
    const int err = errno != 0 ? errno : EIO;
    throw InputError("standard output", 0, fmt::format("cannot write ({})", std::strerror(err)));
  }
  catalog::write_files_atomically(files);
}

void check_binary_stdout(const std::string& option, const std::string& path) {
  if (path == "-" && ::isatty(STDOUT_FILENO))
    throw UsageError(fmt::format("{} -: standard output is a terminal; redirect it to a file or a pipe", option));
}

void write_report(std::FILE* to, std::string_view text) {
  if (to == stderr) vp::write_message(stderr, text);
  else std::fwrite(text.data(), 1, text.size(), to);
}

bool writes_stdout(const std::vector<std::string>& paths) {
  for (const std::string& p : paths)
    if (p == "-") return true;
  return false;
}

}  // namespace vp::cli
