// The error types every vp-* tool maps to an exit code.
//
// Every error that reaches a user reads "where: what (why)": the file, the
// line and column when there are some, and the reason; errors in a text file
// add the offending line and a caret under the column (as ninja does). A
// tool's run_main() (tools/common, vp::cli::run_main) maps an error to its
// exit code through exit_code(); nothing else decides exit codes.
#pragma once

#include <stdexcept>
#include <string>

namespace vp {

// Process exit codes shared by every vp-* tool (README "Exit codes").
enum class ExitCode : int {
  ok = 0,
  usage = 1,      // bad command line
  bad_input = 2,  // unreadable or malformed input file
  invalid = 3,    // a catalog that is readable but invalid or mismatched
  internal = 4,   // a bug: an invariant of ours failed
};

// The base of the errors a user can cause: each knows its exit code. An
// exception of any other type that reaches run_main() is a bug (exit 4).
class ToolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  virtual ExitCode exit_code() const noexcept = 0;
};

// A problem with an input file (or an input value). `file` may be empty when
// the input is not a file (e.g. a command-line value); `line` is 0 when the
// format has no meaningful line (e.g. a binary file), `column` 0 when only
// the line is known. `excerpt` is the offending line and a caret line below
// it ("" when there is no text to show); what() is
// "file:line:col: reason", then "\n" and the excerpt when there is one.
class InputError : public ToolError {
 public:
  InputError(std::string file, int line, std::string reason);
  InputError(std::string file, int line, int column, std::string reason, std::string excerpt);

  const std::string& file() const noexcept { return file_; }
  int line() const noexcept { return line_; }
  int column() const noexcept { return column_; }
  const std::string& reason() const noexcept { return reason_; }
  const std::string& excerpt() const noexcept { return excerpt_; }
  ExitCode exit_code() const noexcept override { return ExitCode::bad_input; }

 private:
  std::string file_;
  int line_;
  int column_;
  std::string reason_;
  std::string excerpt_;
};

// A bad command line (unknown option value, missing input, conflicting
// options), or a value a caller passed to a library function outside the
// range it documents (a tool passes its options' values on: --latency-us,
// --gpus). Exit code 1.
class UsageError : public ToolError {
 public:
  using ToolError::ToolError;
  ExitCode exit_code() const noexcept override { return ExitCode::usage; }
};

// A check of ours that failed: a bug, never the user's doing (a schedule
// that leaves the machine, a route the topology lacks, a solver that gives
// up). Exit code 4; run_main() prints "TOOL: internal error: what". The
// libraries throw this, never a bare std:: exception, for an invariant they
// rely on (ctest no_bare_std_throws checks).
class InternalError : public ToolError {
 public:
  using ToolError::ToolError;
  ExitCode exit_code() const noexcept override { return ExitCode::internal; }
};

// "file:line:col" ("<input>" for an unnamed input; the line and the column
// only when known).
std::string source_place(const std::string& file, int line, int column = 0);

// `s` with every byte that is not part of valid UTF-8 (the runtime's
// validator), and every control character but LF and TAB, written as \xNN:
// text that echoes input bytes (an error message, an importer's warning that
// goes into JSON and a catalog's provenance) stays text.
std::string printable(const std::string& s);

// As printable(), with LF and TAB escaped too: a file name, or a message of
// one line, that must stay on its line ("a\nb.json" prints as a\x0ab.json).
std::string printable_line(const std::string& s);

}  // namespace vp
