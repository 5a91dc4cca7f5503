// Writing a tool's output files, the one way every tool does: "-" is standard
// output, anything else a file written atomically (vp::catalog::
// write_files_atomically: all files land together or none does).
//
//   write_outputs({{out, bytes.data(), bytes.size()}, {json_out, ...}});
//
// The one "-" entry (at most one: two outputs cannot share standard output)
// is written and flushed first, then the files are committed: a failed write
// to standard output is an InputError "standard output: cannot write (why)",
// exit 2, and leaves every file as it was (a catalog is never replaced while
// its mirror is lost on the way).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "vp/catalog/atomic_file.hpp"

namespace vp::cli {

void write_outputs(const std::vector<catalog::OutputFile>& outputs);

// For a binary output named "-": refuse a terminal as standard output
// (UsageError naming `option`), as gzip does, before any work is done.
void check_binary_stdout(const std::string& option, const std::string& path);

// True when some output of `paths` is "-" (a tool then prints its summary
// on standard error).
bool writes_stdout(const std::vector<std::string>& paths);

// A report or summary for a person, to `to`: standard output (a failed write
// is caught by run_main's final check: exit 2) or standard error (best effort,
// vp::write_message: it never changes the exit code).
void write_report(std::FILE* to, std::string_view text);

}  // namespace vp::cli
