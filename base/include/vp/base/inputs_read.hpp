// The files this process has read as inputs, so that no output replaces one.
//
// `vp-analyze --input X.json --out X.json` would overwrite its own input with
// a catalog; `vp-catalog convert C.vpcat --out C.vpcat` would do the same in
// place. Every input reader records the file it read (read_input_file() does,
// and so does the tools' catalog opener), and vp::cli::write_outputs() refuses
// an output that is one of them: the same file by device and inode, whatever
// the name (a link, "./", another path).
#pragma once

#include <optional>
#include <string>

namespace vp {

// Records the file open as `fd`, or named `path`, as read under `path` (a
// regular file; anything else is ignored). Thread-safe.
void note_input_read(int fd, const std::string& path) noexcept;
void note_input_read(const std::string& path) noexcept;

// The name under which `path`'s file was read as an input, if it was (the
// same device and inode); nullopt when it does not exist or was not read.
std::optional<std::string> read_as_input(const std::string& path);

}  // namespace vp
