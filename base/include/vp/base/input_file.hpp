// Reading an input file within bounds, the one way every reader does.
//
// Every text input of the tools (topologies, cluster descriptions, --defaults
// tables, demand files, contention tables) is read through read_input_file():
//
//   * "-" is standard input (named "standard input" in messages);
//   * a folder is refused ("cannot read the file (Is a directory)");
//   * a regular file larger than InputLimits::max_bytes is refused before any
//     byte is read; other files (a pipe, a FIFO, a character device such as
//     /dev/zero) are read up to max_bytes and refused when they hold more;
//   * a pipe or device that has not reached its end InputLimits::max_wait
//     after it was opened (a FIFO nobody writes to, or one that trickles a
//     byte now and then) is refused instead of waited on for ever.
//
// A JSON input is parsed into a tree (vp::json::Document) far larger than its
// text; InputLimits::max_json_memory bounds that tree (json_document.hpp).
// An allocation failure while a reader reads or parses an input is reported
// as that input's error (reading_input()), never as a crash.
//
// The limits are process-wide: a tool sets them once from its command line
// (--max-input-bytes, --max-input-wait, --max-json-memory: vp::cli::run_main)
// before it reads anything. Their defaults are far above any real input.
#pragma once

#include <chrono>
#include <cstdint>
#include <new>
#include <string>
#include <utility>

namespace vp {

struct InputLimits {
  // 1 GiB: a dense demand file of 4,096 GPUs at 12 digits an entry is ~200 MB;
  // the largest hwloc XML of a real machine is a few MB.
  std::uint64_t max_bytes = std::uint64_t{1} << 30;
  // Longest time a pipe or device may take from its opening to its end, and
  // so the longest wait for any byte of it (regular files never wait).
  std::chrono::milliseconds max_wait = std::chrono::seconds(60);
  // Largest parsed form of one JSON input, as json_document.hpp estimates it
  // from the text before it parses: 2 GiB holds a dense demand of 4,096 GPUs
  // (16.8 million numbers, 0.5 GiB) four times over.
  std::uint64_t max_json_memory = std::uint64_t{2} << 30;
};

// The limits in force (process-wide; the defaults until a tool changes them).
InputLimits& input_limits();

// The whole content of `path` within input_limits(). Throws vp::InputError
// naming the file: "PATH: cannot read the file (why)".
std::string read_input_file(const std::string& path);

// How messages name `path`: "standard input" for "-", else the path.
std::string input_name(const std::string& path);

// "1 GiB", "64 MiB", "5000 bytes": a limit in messages.
std::string bytes_text(std::uint64_t n);

// InputError(input_name(path), 0, "out of memory while reading the file (...)").
[[noreturn]] void throw_out_of_memory(const std::string& path);

// `read()`, which reads or parses the input `path` (a file name or "-"): an
// allocation failure in it (std::bad_alloc: the input needs more memory than
// the machine or its ulimit gives) becomes that input's error, exit 2. The
// memory `read()` held is freed by then, so the message can be built.
template <class Read>
auto reading_input(const std::string& path, Read&& read) -> decltype(read()) {
  try {
    return std::forward<Read>(read)();
  } catch (const std::bad_alloc&) {
    throw_out_of_memory(path);
  }
}

}  // namespace vp
