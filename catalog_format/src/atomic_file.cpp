// Atomic output (atomic_file.hpp): temporaries beside the targets, a folder
// lock and a commit journal when several files must land together, renames,
// folder fsyncs, and the recovery of what a killed writer left behind.
#include "vp/catalog/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>  // HOST_NAME_MAX
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "vp/catalog/errors.hpp"

namespace vp::catalog {

namespace {

namespace fs = std::filesystem;

constexpr const char* kTempTag = ".tmp.";
constexpr const char* kJournalTag = ".commit.";

[[noreturn]] void fail(const std::string& path, const std::string& step, int err) {
  throw CatalogError(CatalogError::Kind::unreadable,
                     path + ": cannot write the file (" + step + ": " + std::strerror(err) + ")");
}

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw CatalogError(CatalogError::Kind::unreadable, path + ": cannot write the file (" + why + ")");
}

// This host's name as one word of a file name: letters, digits and '-' only,
// so that the fields of ".NAME.tmp.HOST.PID.RANDOM" split at dots.
const std::string& host_word() {
  static const std::string word = [] {
    char buf[HOST_NAME_MAX + 1] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return std::string("host");
    std::string w;
    for (const char* p = buf; *p; ++p) {
      const char c = *p;
      const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
      w += keep ? c : '-';
    }
    return w;
  }();
  return word;
}

std::string random_word() {
  std::random_device rd;
  return std::to_string(rd());
}

std::string temp_name(const std::string& target) {
  return "." + target + kTempTag + host_word() + "." + std::to_string(::getpid()) + "." + random_word();
}

// The writer (host, pid) that a temporary or journal name records after
// `tag`: "HOST.PID" or "HOST.PID.RANDOM"; nullopt when the name is not ours.
struct Writer {
  std::string host;
  long pid = 0;
};
std::optional<Writer> writer_of(const std::string& name, const char* tag) {
  if (name.empty() || name[0] != '.') return std::nullopt;
  const auto at = name.rfind(tag);
  if (at == std::string::npos || at == 0) return std::nullopt;
  const std::string rest = name.substr(at + std::strlen(tag));
  const auto dot = rest.find('.');
  if (dot == std::string::npos || dot == 0) return std::nullopt;
  const std::string pid_text = rest.substr(dot + 1, rest.find('.', dot + 1) - dot - 1);
  if (pid_text.empty() || pid_text.size() > 9 || 
      !std::all_of(pid_text.begin(), pid_text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return Writer{rest.substr(0, dot), std::stol(pid_text)};
}

// True when the writer is certainly gone: a process of this host that no
// longer runs. A writer of another host (a shared file system) is never
// presumed gone, nor this very process (another thread may be writing).
bool writer_gone(const Writer& w) {
  if (w.host != host_word() || w.pid == ::getpid()) return false;
  return ::kill(static_cast<pid_t>(w.pid), 0) != 0 && errno == ESRCH;
}

std::atomic<CommitHook> commit_hook{nullptr};
std::atomic<int> lock_wait_seconds{kCommitLockWaitSeconds};

void notify(const char* moment, const std::string& path) {
  if (const CommitHook hook = commit_hook.load()) hook(moment, path);
}

// Write all bytes, retrying on EINTR and short writes; returns 0 or an errno.
int write_all(int fd, const std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return 0;
}

void sync_folder(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);  // best effort: some file systems refuse fsync on folders
  ::close(fd);
}

std::string why(const std::string& step, int err) { return step + ": " + std::strerror(err); }

// An exclusive flock(2) on a folder's kCommitLockName: one commit into the
// folder at a time. flock rather than fcntl: closing some other descriptor of
// the file does not drop it, and two threads' descriptors exclude each other.
// The kernel drops it when its holder dies, so a killed writer never leaves
// the folder locked; the file stays (removing it would race with a writer
// that has just opened it).
class FolderLock {
 public:
  FolderLock() = default;
  FolderLock(FolderLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  FolderLock& operator=(const FolderLock&) = delete;
  ~FolderLock() {
    if (fd_ >= 0) ::close(fd_);
  }

  // Take the lock of `dir`, waiting at most lock_wait_seconds for another
  // holder; "" or why not ("lock PATH: reason").
  std::string take(const fs::path& dir) {
    const std::string path = (dir / kCommitLockName).string();
    fd_ = ::open(path.c_str(), O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);  // read-only suffices for flock
    if (fd_ < 0) return why("lock " + path, errno);
    const int wait = lock_wait_seconds.load();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(wait);
    bool told = false;
    for (auto pause = std::chrono::milliseconds(1);; pause = std::min(2 * pause, std::chrono::milliseconds(50))) {
      if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return "";
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK) return why("lock " + path, errno);
      if (!told) notify("lock busy", path);
      told = true;
      if (std::chrono::steady_clock::now() >= deadline)
        return "lock " + path + ": another writer has held it for " + std::to_string(wait) + " s";
      std::this_thread::sleep_for(pause);
    }
  }

 private:
  int fd_ = -1;
};

const char* kind_of(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link: name the file it points to";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// One target being written.
struct Target {
  const OutputFile* file = nullptr;
  fs::path dir;
  std::string name;       // file name of the target
  std::optional<struct stat> old;  // the file it replaces
  int fd = -1;
  std::string temp;       // full path of the named temporary, once named
};

// Step 0: what the targets are.
std::vector<Target> check_targets(const std::vector<OutputFile>& files) {
  std::vector<Target> targets;
  std::set<std::string> paths;
  std::set<std::pair<dev_t, ino_t>> inodes;
  for (const OutputFile& f : files) {
    Target t;
    t.file = &f;
    const fs::path p(f.path);
    t.name = p.filename().string();
    if (t.name.empty() || t.name == "." || t.name == "..") refuse(f.path, "not a file name");
    t.dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    std::error_code ec;
    const std::string key = fs::absolute(p, ec).lexically_normal().string();
    struct stat st {};
    if (::lstat(f.path.c_str(), &st) == 0) {
      if (!S_ISREG(st.st_mode)) refuse(f.path, std::string("it is ") + kind_of(st.st_mode) + "; refusing to replace it");
      t.old = st;
      if (!inodes.insert({st.st_dev, st.st_ino}).second)
        refuse(f.path, "the same file is already an output of this command");
    } else if (errno != ENOENT) {
      fail(f.path, "look at the target", errno);
    }
    if (!paths.insert(key).second) refuse(f.path, "the same file is already an output of this command");
    targets.push_back(std::move(t));
  }
  return targets;
}

// Step 2: an open temporary holding the file's bytes, fsynced.
void write_temp(Target& t) {
  const std::string& path = t.file->path;
  const mode_t mode = t.old ? (t.old->st_mode & 07777) : 0666;
#ifdef O_TMPFILE
  if (::access("/proc/self/fd", X_OK) == 0) {  // an unnamed file needs /proc to be named later
    t.fd = ::open(t.dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (t.fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
      fail(path, "create a temporary file", errno);
  }
#endif
  if (t.fd < 0) {
    for (int attempt = 0; attempt < 100 && t.fd < 0; ++attempt) {
      t.temp = (t.dir / temp_name(t.name)).string();
      t.fd = ::open(t.temp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
      if (t.fd < 0 && errno != EEXIST) fail(path, "create a temporary file", errno);
    }
    if (t.fd < 0) fail(path, "create a temporary file", EEXIST);
  }
  if (t.old) {
    if (::fchmod(t.fd, mode) != 0) fail(path, "keep the old file's mode", errno);
    if (::geteuid() == 0) (void)!::fchown(t.fd, t.old->st_uid, t.old->st_gid);  // best effort
  }
  if (int err = write_all(t.fd, t.file->data, t.file->size)) fail(path, "write", err);
  if (::fsync(t.fd) != 0) fail(path, "fsync", errno);
}

// Step 3: a name for an unnamed temporary.
void name_temp(Target& t) {
  if (!t.temp.empty()) return;
  const std::string proc = "/proc/self/fd/" + std::to_string(t.fd);
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string name = (t.dir / temp_name(t.name)).string();
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      t.temp = name;
      return;
    }
    if (errno != EEXIST) fail(t.file->path, "name the temporary file", errno);
  }
  fail(t.file->path, "name the temporary file", EEXIST);
}

// Step 4: the journal, NUL-separated "TEMP\0TARGET\0" pairs of absolute
// paths, written under a temporary name and renamed into place.
std::string write_journal(const std::vector<Target>& targets) {
  const Target& first = targets.front();
  std::string body;
  for (const Target& t : targets) {
    body += fs::absolute(t.temp).string();
    body += '\0';
    body += fs::absolute(t.file->path).string();
    body += '\0';
  }
  const std::string journal =
      (first.dir / ("." + first.name + kJournalTag + host_word() + "." + std::to_string(::getpid()))).string();
  const std::string temp = journal + ".part";
  const int fd = ::open(temp.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) fail(first.file->path, "create the commit journal", errno);
  int err = write_all(fd, reinterpret_cast<const std::uint8_t*>(body.data()), body.size());
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  ::close(fd);
  if (err == 0 && ::rename(temp.c_str(), journal.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(temp.c_str());
    fail(first.file->path, "write the commit journal", err);
  }
  sync_folder(first.dir);
  return journal;
}

// The (temporary, target) pairs a journal lists; empty when it is damaged.
std::vector<std::pair<std::string, std::string>> read_journal(const fs::path& journal) {
  std::ifstream in(journal, std::ios::binary);
  const std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t i = 0; i < body.size(); ++i)
    if (body[i] == '\0') {
      fields.push_back(body.substr(start, i - start));
      start = i + 1;
    }
  std::vector<std::pair<std::string, std::string>> pairs;
  if (start != body.size() || fields.size() % 2 != 0) return pairs;  // a journal is renamed into place whole
  for (std::size_t i = 0; i < fields.size(); i += 2) pairs.emplace_back(fields[i], fields[i + 1]);
  return pairs;
}

bool is_part(const std::string& name) {
  return name.size() > 5 && name.compare(name.size() - 5, 5, ".part") == 0;
}

// What killed or failed writers left in a folder.
struct Leftovers {
  std::vector<fs::path> journals;  // named commit journals, sorted
  std::vector<fs::path> parts;     // journals that never got their name: nothing was renamed
  std::vector<fs::path> temps;     // temporaries of writers that are gone
};

// A journal exists only while its writer holds the folder's lock, so one
// seen under the lock is stale whoever wrote it; temporaries are written
// before the lock is taken, so only those of gone writers are.
Leftovers find_leftovers(const fs::path& dir) {
  Leftovers l;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (writer_of(name, kJournalTag)) {
      (is_part(name) ? l.parts : l.journals).push_back(it->path());
    } else if (auto t = writer_of(name, kTempTag); t && writer_gone(*t)) {
      l.temps.push_back(it->path());
    }
  }
  std::sort(l.journals.begin(), l.journals.end());
  return l;
}

// Rename what `journal` still lists; "" or what failed. The folders renamed
// into join `touched`.
std::string complete_journal(const fs::path& journal, std::set<fs::path>& touched) {
  for (const auto& [temp, target] : read_journal(journal)) {
    struct stat st {};
    if (::lstat(temp.c_str(), &st) != 0) {
      if (errno == ENOENT) continue;  // renamed before the writer stopped
      return why("look at " + temp, errno);
    }
    if (!S_ISREG(st.st_mode)) continue;
    if (::rename(temp.c_str(), target.c_str()) != 0) return why("rename " + temp + " to " + target, errno);
    touched.insert(fs::path(target).parent_path());
  }
  return "";
}

// Recovery of `dir` by a holder of its lock: complete every journal (one
// that cannot be completed is dropped all the same: the write that follows
// supersedes it), then remove the leftovers. Returns the journals completed.
std::size_t recover_locked(const fs::path& dir) {
  const Leftovers l = find_leftovers(dir);
  std::set<fs::path> touched{dir};
  for (const fs::path& journal : l.journals) {
    (void)complete_journal(journal, touched);
    ::unlink(journal.c_str());
  }
  for (const fs::path& part : l.parts) ::unlink(part.c_str());
  for (const fs::path& temp : l.temps) ::unlink(temp.c_str());  // the journals above took theirs
  for (const fs::path& folder : touched) sync_folder(folder);
  return l.journals.size();
}

// Recovery of `dir` without its lock: the lock is taken only when there is
// a journal to complete, so that writes of single files leave no lock file.
// When it cannot be taken, the journals and every temporary stay.
std::size_t recover_folder(const fs::path& dir) {
  const Leftovers l = find_leftovers(dir);
  if (l.journals.empty() && l.parts.empty()) {
    for (const fs::path& temp : l.temps) ::unlink(temp.c_str());
    return 0;
  }
  FolderLock lock;
  return lock.take(dir).empty() ? recover_locked(dir) : 0;
}

// The locks of the folders of `targets`, each folder once and in one order
// (by device and inode) so that writers of overlapping sets cannot deadlock.
std::vector<FolderLock> lock_folders(const std::vector<Target>& targets) {
  std::map<std::pair<dev_t, ino_t>, const Target*> folders;
  for (const Target& t : targets) {
    struct stat st {};
    if (::stat(t.dir.c_str(), &st) != 0) fail(t.file->path, "look at the folder", errno);
    folders.emplace(std::make_pair(st.st_dev, st.st_ino), &t);
  }
  std::vector<FolderLock> locks;
  for (const auto& [id, t] : folders) {
    locks.emplace_back();
    if (const std::string why_not = locks.back().take(t->dir); !why_not.empty()) refuse(t->file->path, why_not);
  }
  return locks;
}

// The same file name in the same folder (the folder compared by device and
// inode, so that two spellings of one folder match).
bool same_place(const fs::path& a, const fs::path& b) {
  if (a.filename() != b.filename()) return false;
  const fs::path da = a.has_parent_path() ? a.parent_path() : fs::path(".");
  const fs::path db = b.has_parent_path() ? b.parent_path() : fs::path(".");
  struct stat sa {}, sb {};
  return ::stat(da.c_str(), &sa) == 0 && ::stat(db.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// The journals of `dir` that list `path` as a target.
std::vector<fs::path> journals_listing(const fs::path& dir, const fs::path& path) {
  std::vector<fs::path> found;
  for (const fs::path& journal : find_leftovers(dir).journals) {
    const auto pairs = read_journal(journal);
    if (std::any_of(pairs.begin(), pairs.end(), [&](const auto& p) { return same_place(p.second, path); }))
      found.push_back(journal);
  }
  return found;
}

[[noreturn]] void pending(const std::string& path, const fs::path& journal, const fs::path& dir,
                          const std::string& reason) {
  throw CatalogError(CatalogError::Kind::unreadable,
                     path + ": an interrupted write of it is pending (commit journal " + journal.string() + ": " +
                         reason + "); reading it as a user who may write into " + dir.string() +
                         " completes the write");
}

}  // namespace

void set_commit_hook(CommitHook hook) noexcept { commit_hook.store(hook); }

void set_commit_lock_wait(int seconds) noexcept { lock_wait_seconds.store(seconds); }

std::size_t recover_interrupted_writes(const std::string& path) noexcept {
  try {
    const fs::path p(path);
    return recover_folder(p.has_parent_path() ? p.parent_path() : fs::path("."));
  } catch (...) {
    return 0;
  }
}

bool complete_interrupted_write(const std::string& path) {
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  const std::vector<fs::path> seen = journals_listing(dir, p);
  if (seen.empty()) return false;
  FolderLock lock;
  if (const std::string why_not = lock.take(dir); !why_not.empty()) pending(path, seen.front(), dir, why_not);
  std::set<fs::path> touched{dir};
  bool completed = false;
  for (const fs::path& journal : journals_listing(dir, p)) {  // again: its writer may have finished meanwhile
    if (const std::string why_not = complete_journal(journal, touched); !why_not.empty())
      pending(path, journal, dir, why_not);
    if (::unlink(journal.c_str()) != 0) pending(path, journal, dir, why("remove it", errno));
    completed = true;
  }
  for (const fs::path& folder : touched) sync_folder(folder);
  return completed;
}

void write_files_atomically(const std::vector<OutputFile>& files) {
  if (files.empty()) return;
  std::vector<Target> targets = check_targets(files);
  std::set<fs::path> folders;
  for (const Target& t : targets) folders.insert(t.dir);

  std::vector<FolderLock> locks;  // released last, after the journal is removed
  std::string journal;
  std::size_t renamed = 0;
  auto clean_up = [&] {
    for (std::size_t i = renamed; i < targets.size(); ++i) {
      if (targets[i].fd >= 0) ::close(targets[i].fd);
      if (!targets[i].temp.empty() && journal.empty()) ::unlink(targets[i].temp.c_str());
    }
  };
  try {
    for (Target& t : targets) write_temp(t);
    for (Target& t : targets) {
      name_temp(t);
      const int fd = t.fd;
      t.fd = -1;
      if (::close(fd) != 0) fail(t.file->path, "close", errno);
    }
    if (targets.size() > 1) locks = lock_folders(targets);
    for (const fs::path& folder : folders) {
      if (locks.empty())
        recover_folder(folder);
      else
        recover_locked(folder);
    }
    if (targets.size() > 1) journal = write_journal(targets);
    for (Target& t : targets) {
      if (::rename(t.temp.c_str(), t.file->path.c_str()) != 0) {
        const int err = errno;
        fail(t.file->path,
             journal.empty() ? "rename"
                             : "rename; the next write into this folder, or a read of these files, completes the set "
                               "from " + journal,
             err);
      }
      ++renamed;
      notify("renamed", t.file->path);
    }
  } catch (...) {
    clean_up();
    throw;
  }
  for (const fs::path& folder : folders) sync_folder(folder);
  if (!journal.empty()) {
    ::unlink(journal.c_str());
    sync_folder(targets.front().dir);
  }
}

void write_file_atomically(const std::string& path, const std::uint8_t* data, std::size_t size) {
  write_files_atomically({OutputFile{path, data, size}});
}

}  // namespace vp::catalog
