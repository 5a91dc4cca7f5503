// Messages to a person on standard error: best effort, never an exception,
// never a signal.
//
// A tool's exit code and its outputs never depend on whether standard error
// can be written: a daemon with file descriptor 2 closed, a full log disk
// (2>/dev/full) or a reader that went away (a broken pipe) lose the message and
// nothing else. Every message of every tool goes through these functions, in
// one of three forms:
//
//   vp-plan: error: demand.json:3:4: ...        error()   (the exit code says the rest)
//   vp-analyze: warning: GPU 3 has no NUMA node  warn()
//   vp-analyze: gathered 4 probes                note()
//
// A write is attempted once, with SIGPIPE blocked for the calling thread for
// its duration (a SIGPIPE it raises is consumed), and a failure is forgotten
// (the stream's error flag is cleared).
#pragma once

#include <cstdio>
#include <string_view>

namespace vp {

// Writes `text` to `to` as above. Safe for any stream (the progress line uses
// it); for standard error it is the one way to write.
void write_message(std::FILE* to, std::string_view text) noexcept;

// "TOOL: error: TEXT\n", "TOOL: warning: TEXT\n", "TOOL: TEXT\n" on standard
// error. TEXT is printed as given: callers pass printable() text.
void error(std::string_view tool, std::string_view text) noexcept;
void warn(std::string_view tool, std::string_view text) noexcept;
void note(std::string_view tool, std::string_view text) noexcept;

}  // namespace vp
