// Errors raised by the analyzer side (importers, model validation, CLI).
//
// Every error that reaches a user reads "where: what (why)": the file, the
// line when there is one, and the reason. The CLI maps the error kind to an
// exit code (see ExitCode); nothing else decides exit codes.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace vp {

// Process exit codes shared by every vp-* tool.
enum class ExitCode : int {
  ok = 0,
  usage = 1,      // bad command line
  bad_input = 2,  // unreadable or malformed input file
  invalid = 3,    // a catalog that is readable but invalid or mismatched
  internal = 4,   // a bug: an invariant of ours failed
};

// A problem with an input file (or an input value). `file` may be empty when
// the input is not a file (e.g. a command-line value); `line` is 0 when the
// format has no meaningful line (e.g. a binary file).
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, int line, std::string reason);

  const std::string& file() const noexcept { return file_; }
  int line() const noexcept { return line_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string file_;
  int line_;
  std::string reason_;
};

// A JSON number beyond a double (`1e999`), as nlohmann's out_of_range.406
// reports it (`what`: "... number overflow parsing '1e999'"): an InputError
// naming the line where the number first appears in `content`.
InputError json_number_overflow(const std::string& file, std::string_view content, std::string_view what);

// A bad command line (unknown option value, missing input, conflicting
// options). Exit code 1.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace vp
