// Atomic output: readers of a target see either its old content or the new
// one, never a mix; a catalog and its JSON mirror land together or not at all;
// a failure or a kill leaves the old files as they were.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vp::catalog {

// One file to write: `size` bytes at `data` (borrowed for the call) to `path`.
struct OutputFile {
  std::string path;
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
};

// Write every file of `files`, all or none:
//  0. check every target: a path that exists must be a regular file (a
//     device, a FIFO, a socket, a folder or a symbolic link is refused, never
//     replaced), and no file may be named twice (the same file under two
//     names included);
//  1. finish or clean up what an earlier, killed write left in the targets'
//     folders (recover_interrupted_writes);
//  2. write each file in full to a temporary beside its target (unnamed with
//     Linux O_TMPFILE while it is written), with the old file's mode (and,
//     as root, its owner) or 0666 & ~umask for a new one, and fsync it;
//  3. name the temporaries ".NAME.tmp.HOST.PID.RANDOM";
//  4. with more than one file, record the renames still to do in a commit
//     journal ".NAME.commit.HOST.PID" beside the first target (written and
//     fsynced before it gets its name);
//  5. rename each temporary over its target, in order, fsync the folders,
//     then remove the journal.
// A kill before step 4 leaves the old files (and, after step 3, temporaries
// that the next write to those folders removes); a kill after it leaves a
// journal that the next write completes, so the pair ends up new (the next
// write to the first target's folder: a set that spans folders is completed
// from there). Not for two threads writing into one folder at once. Throws
// CatalogError(unreadable) "PATH: cannot write the file (step: reason)" on
// failure, after removing its temporaries; the old files are untouched.
void write_files_atomically(const std::vector<OutputFile>& files);

// write_files_atomically() of one file.
void write_file_atomically(const std::string& path, const std::uint8_t* data, std::size_t size);

// In the folder of `path`: complete every commit journal whose writer is gone
// (rename what it still lists, then remove it), and remove the temporaries of
// writers on this host that are no longer running. Files of live writers and
// of other hosts (a shared file system) are left alone. Never throws; returns
// how many journals it completed.
std::size_t recover_interrupted_writes(const std::string& path) noexcept;

}  // namespace vp::catalog
