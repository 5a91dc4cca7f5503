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
//   * a pipe or device that gives no byte for InputLimits::max_wait (a FIFO
//     nobody writes to) is refused instead of waited on for ever.
//
// The limits are process-wide: a tool sets them once from its command line
// (--max-input-bytes, --max-input-wait: vp::cli::run_main) before it reads
// anything. Their defaults are far above any real input.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace vp {

struct InputLimits {
  // 1 GiB: a dense demand file of 4,096 GPUs at 12 digits an entry is ~200 MB;
  // the largest hwloc XML of a real machine is a few MB.
  std::uint64_t max_bytes = std::uint64_t{1} << 30;
  // Longest wait for the next byte of a pipe or device (regular files never wait).
  std::chrono::milliseconds max_wait = std::chrono::seconds(60);
};

// The limits in force (process-wide; the defaults until a tool changes them).
InputLimits& input_limits();

// The whole content of `path` within input_limits(). Throws vp::InputError
// naming the file: "PATH: cannot read the file (why)".
std::string read_input_file(const std::string& path);

// How messages name `path`: "standard input" for "-", else the path.
std::string input_name(const std::string& path);

}  // namespace vp
