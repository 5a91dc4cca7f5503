// Atomic output: readers of a target see either its old content or the new
// one, never a mix; a catalog and its JSON mirror land together or not at all,
// and two writers of a pair commit one after the other; a failure or a kill
// leaves the old files as they were, or a journal that completes the set.
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

// The lock file of a folder's commits (see write_files_atomically), and how
// long a writer waits for another writer to release it.
inline constexpr const char* kCommitLockName = ".vp-commit.lock";
inline constexpr int kCommitLockWaitSeconds = 60;

// Write every file of `files`, all or none:
//  0. check every target: a path that exists must be a regular file (a
//     device, a FIFO, a socket, a folder or a symbolic link is refused, never
//     replaced), and no file may be named twice (the same file under two
//     names included);
//  1. write each file in full to a temporary beside its target (unnamed with
//     Linux O_TMPFILE while it is written), with the old file's mode (and,
//     as root, its owner) or 0666 & ~umask for a new one, and fsync it;
//  2. name the temporaries ".NAME.tmp.HOST.PID.RANDOM";
//  3. with more than one file, lock the targets' folders: an exclusive
//     flock(2) on FOLDER/.vp-commit.lock (created if absent, 0644 & ~umask,
//     and kept: removing it would race with the next writer), folders taken
//     in one fixed order. A writer that finds the lock held waits for it, at
//     most kCommitLockWaitSeconds, then fails: "PATH: cannot write the file
//     (lock FOLDER/.vp-commit.lock: another writer has held it for 60 s)".
//     The kernel drops the lock of a writer that dies;
//  4. finish or clean up what an earlier, killed write left in the targets'
//     folders (as recover_interrupted_writes, under the lock of step 3);
//  5. with more than one file, record the renames still to do in a commit
//     journal ".NAME.commit.HOST.PID" beside the first target (written and
//     fsynced before it gets its name);
//  6. rename each temporary over its target, in order, fsync the folders,
//     remove the journal, then release the locks.
// So two writers of one set (or of sets sharing a folder) commit one after
// the other, and the set ends up as one of them wrote it. A kill before step
// 5 leaves the old files (and, after step 2, temporaries that the next write
// to those folders removes); a kill after it leaves a journal that the next
// write into the first target's folder completes, or a reader of one of the
// files (complete_interrupted_write), so the set ends up new. Needs a file
// system with flock(2) (local ones, NFS with its lock manager) for sets of
// more than one file. Safe for several threads. Throws
// CatalogError(unreadable) "PATH: cannot write the file (step: reason)" on
// failure, after removing its temporaries; the old files are untouched.
void write_files_atomically(const std::vector<OutputFile>& files);

// write_files_atomically() of one file (no lock: a single rename needs none;
// the lock is taken only to complete an earlier journal of its folder).
void write_file_atomically(const std::string& path, const std::uint8_t* data, std::size_t size);

// In the folder of `path`: when it holds a commit journal, take the folder's
// lock and complete every journal (rename what it still lists, then remove
// it): none belongs to a commit under way, which would hold the lock. Then
// remove the temporaries of writers on this host that are no longer running;
// those of live writers, of this process and of other hosts (a shared file
// system) are left alone. Never throws; returns how many journals it
// completed (0 when the lock could not be taken: everything then stays).
std::size_t recover_interrupted_writes(const std::string& path) noexcept;

// For a reader about to open `path`: when a commit journal in its folder
// lists it (a writer died between its renames, so the set is half new and
// half old), complete that journal under the folder's lock, as the next
// writer would; returns true when it did, false when nothing was pending.
// Throws CatalogError(unreadable) "PATH: an interrupted write of it is
// pending (commit journal JOURNAL: reason); reading it as a user who may
// write into FOLDER completes the write" when it cannot (a read-only folder,
// the lock held past kCommitLockWaitSeconds). A set that spans folders is
// seen only from the first target's folder, where its journal is.
bool complete_interrupted_write(const std::string& path);

// For tests: `hook(moment, path)` is called by the writing thread at the
// moments "lock busy" (another writer holds the lock file `path`; called
// once, then the writer waits) and "renamed" (the temporary of target `path`
// has just been renamed over it). nullptr (the default) for none.
using CommitHook = void (*)(const char* moment, const std::string& path);
void set_commit_hook(CommitHook hook) noexcept;

// For tests: how long a writer waits for a held lock (by default
// kCommitLockWaitSeconds).
void set_commit_lock_wait(int seconds) noexcept;

}  // namespace vp::catalog
