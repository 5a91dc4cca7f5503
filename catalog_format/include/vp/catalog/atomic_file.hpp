// Replace a file atomically: readers of `path` see either the old content or
// the new one, never a mix, and a failure leaves the old file as it was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace vp::catalog {

// Write `size` bytes to `path`:
//  1. create an unnamed temporary file in the target folder (Linux
//     O_TMPFILE; elsewhere a named ".NAME.tmp.RANDOM" beside the target),
//  2. write everything and fsync it,
//  3. give it a temporary name and rename() it over `path`,
//  4. fsync the folder (best effort: some file systems cannot).
// A process killed before step 3 leaves no file behind (a named temporary
// when O_TMPFILE is unavailable). The new file gets mode 0666 & ~umask.
// Throws CatalogError(unreadable) "PATH: cannot write the file (step:
// reason)" on failure, after removing the temporary file; the old file, if
// any, is untouched.
void write_file_atomically(const std::string& path, const std::uint8_t* data, std::size_t size);

}  // namespace vp::catalog
