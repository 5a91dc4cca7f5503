// Atomic output: the new file appears whole, a catalog and its mirror land
// together, two writers of a pair commit one after the other, a failed or
// killed write leaves the old files and no temporary behind (or a journal
// that the next writer or reader completes), and what is not a regular file
// is never replaced.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>

#include "catalog_support.hpp"
#include "input_error.hpp"
#include "support.hpp"
#include "vp/catalog/atomic_file.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/writer.hpp"

namespace {

namespace fs = std::filesystem;
using vp::catalog::CatalogError;
using vp::catalog::write_file_atomically;

void write(const std::string& path, const std::string& text) {
  write_file_atomically(path, reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}

std::size_t entries(const std::string& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

std::string error_of(const std::string& path, const std::string& text) {
  return vp::test::message_of<CatalogError>([&] { write(path, text); });
}

// Limit the size of files this process writes, as a full disk would.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &old_);
    old_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit r = old_;
    r.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &r);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_);
    signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_;
  void (*old_handler_)(int);
};

}  // namespace

TEST_CASE("atomic: writes a new file and replaces an old one") {
  vp::test::TempDir dir;
  const std::string path = dir.path() + "/c.vpcat";
  write(path, "first");
  CHECK(vp::test::read_text(path) == "first");
  write(path, "second, longer");
  CHECK(vp::test::read_text(path) == "second, longer");
  CHECK(entries(dir.path()) == 1);
}

TEST_CASE("atomic: a write that fails half-way keeps the old file and leaves nothing else") {
  vp::test::TempDir dir;
  const std::string path = dir.path() + "/c.vpcat";
  write(path, "old");
  const std::string big(1 << 16, 'x');
  std::string error;
  {
    FileSizeLimit limit(4096);
    error = error_of(path, big);
  }
  CHECK(error == path + ": cannot write the file (write: File too large)");
  CHECK(vp::test::read_text(path) == "old");
  CHECK(entries(dir.path()) == 1);
}

TEST_CASE("atomic: a missing or read-only folder is an error, the old file stays") {
  vp::test::TempDir dir;
  CHECK(error_of(dir.path() + "/no/such/c.vpcat", "x").rfind(dir.path() + "/no/such/c.vpcat: cannot write the file (", 0) ==
        0);
  const std::string path = dir.path() + "/c.vpcat";
  write(path, "old");
  if (geteuid() == 0) {
    MESSAGE("running as root: permissions do not stop writes; read-only case skipped");
    return;
  }
  chmod(dir.path().c_str(), 0555);
  CHECK(error_of(path, "new").find("cannot write the file") != std::string::npos);
  chmod(dir.path().c_str(), 0755);
  CHECK(vp::test::read_text(path) == "old");
  CHECK(entries(dir.path()) == 1);
}

namespace {

using vp::catalog::OutputFile;
using vp::catalog::recover_interrupted_writes;
using vp::catalog::write_files_atomically;

OutputFile out(const std::string& path, const std::string& text) {
  return OutputFile{path, reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

std::string error_of_pair_texts(const std::string& a, const std::string& a_text, const std::string& b,
                                const std::string& b_text) {
  return vp::test::message_of<CatalogError>([&] { write_files_atomically({out(a, a_text), out(b, b_text)}); });
}
std::string error_of_pair(const std::string& a, const std::string& b, const std::string& text) {
  return error_of_pair_texts(a, text, b, text);
}

// A catalog and its mirror of generation `k`: `size` bytes that name k at both
// ends, so a torn or mixed file shows.
std::string generation(const char* what, int k, std::size_t size) {
  std::string head = std::string(what) + " " + std::to_string(k) + ":";
  std::string body(size, static_cast<char>('a' + k % 26));
  body.replace(0, head.size(), head);
  body.replace(body.size() - head.size(), head.size(), head);
  return body;
}

// Which generation a file holds, or -1 when it is not one whole generation.
int generation_of(const std::string& text, const char* what, std::size_t size) {
  const std::string prefix = std::string(what) + " ";
  if (text.size() != size || text.rfind(prefix, 0) != 0) return -1;
  const int k = std::atoi(text.c_str() + prefix.size());
  return text == generation(what, k, size) ? k : -1;
}

}  // namespace

TEST_CASE("atomic: a catalog and its mirror land together") {
  vp::test::TempDir dir;
  const std::string cat = dir.path() + "/c.vpcat", json = dir.path() + "/c.json";
  write_files_atomically({out(cat, "catalog 1"), out(json, "mirror 1")});
  write_files_atomically({out(cat, "catalog 2"), out(json, "mirror 2")});
  CHECK(vp::test::read_text(cat) == "catalog 2");
  CHECK(vp::test::read_text(json) == "mirror 2");
  CHECK(entries(dir.path()) == 3);  // the pair and the lock file: no temporary, no journal
}

TEST_CASE("atomic: when the second file cannot be written, neither is replaced") {
  vp::test::TempDir dir;
  const std::string cat = dir.path() + "/c.vpcat", json = dir.path() + "/c.json";
  write_files_atomically({out(cat, "old catalog"), out(json, "old mirror")});
  const std::string small = "new catalog", big(1 << 16, 'x');
  std::string error;
  {
    FileSizeLimit limit(4096);  // as a full disk: the mirror does not fit
    error = error_of_pair_texts(cat, small, json, big);
  }
  CHECK(error == json + ": cannot write the file (write: File too large)");
  CHECK(vp::test::read_text(cat) == "old catalog");
  CHECK(vp::test::read_text(json) == "old mirror");
  CHECK(entries(dir.path()) == 3);  // the pair and the lock file
}

TEST_CASE("atomic: a full file system keeps the old pair and leaves nothing") {
  // A small tmpfs where this process may mount one (root); the file size
  // limit above covers the same path otherwise.
  vp::test::TempDir dir;
  const std::string mnt = dir.path() + "/small";
  fs::create_directory(mnt);
  if (geteuid() != 0 || vp::test::run("mount -t tmpfs -o size=64k tmpfs " + vp::test::shell_quote(mnt)).exit_code != 0) {
    MESSAGE("cannot mount a tmpfs here (needs root): the full-disk case runs where it can");
    return;
  }
  struct Unmount {
    std::string at;
    ~Unmount() { vp::test::run("umount " + vp::test::shell_quote(at)); }
  } unmount{mnt};
  const std::string cat = mnt + "/c.vpcat", json = mnt + "/c.json";
  write_files_atomically({out(cat, "old catalog"), out(json, "old mirror")});
  const std::string big(48 << 10, 'x');  // each fits alone; both do not
  const std::string error = error_of_pair(cat, json, big);
  CHECK(error == json + ": cannot write the file (write: No space left on device)");
  CHECK(vp::test::read_text(cat) == "old catalog");
  CHECK(vp::test::read_text(json) == "old mirror");
  CHECK(entries(mnt) == 3);  // the pair and the lock file
}

TEST_CASE("atomic: a target that is not a regular file is refused, never replaced") {
  vp::test::TempDir dir;
  const std::string fifo = dir.path() + "/fifo", link = dir.path() + "/link", sub = dir.path() + "/sub";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  write(dir.path() + "/real", "real");
  fs::create_symlink(dir.path() + "/real", link);
  fs::create_directory(sub);
  CHECK(error_of(fifo, "x") == fifo + ": cannot write the file (it is a FIFO; refusing to replace it)");
  CHECK(error_of(link, "x") ==
        link + ": cannot write the file (it is a symbolic link: name the file it points to; refusing to replace it)");
  CHECK(error_of(sub, "x") == sub + ": cannot write the file (it is a folder; refusing to replace it)");
  CHECK(fs::is_fifo(fs::symlink_status(fifo)));
  CHECK(fs::is_symlink(fs::symlink_status(link)));
  CHECK(vp::test::read_text(dir.path() + "/real") == "real");
  if (geteuid() == 0) {  // a device node of our own, never /dev/null itself
    const std::string dev = dir.path() + "/null";
    REQUIRE(mknod(dev.c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0);
    CHECK(error_of(dev, "x") == dev + ": cannot write the file (it is a character device; refusing to replace it)");
    CHECK(fs::is_character_file(fs::symlink_status(dev)));
  }
  CHECK(entries(dir.path()) == (geteuid() == 0 ? 5u : 4u));  // fifo, real, link, sub (, null)
}

TEST_CASE("atomic: the same file named twice is refused before anything is written") {
  vp::test::TempDir dir;
  const std::string cat = dir.path() + "/c.vpcat";
  CHECK(error_of_pair(cat, cat, "x") ==
        cat + ": cannot write the file (the same file is already an output of this command)");
  CHECK(error_of_pair(cat, dir.path() + "/./c.vpcat", "x") ==
        dir.path() + "/./c.vpcat: cannot write the file (the same file is already an output of this command)");
  write(cat, "old");
  REQUIRE(link(cat.c_str(), (dir.path() + "/hard").c_str()) == 0);
  CHECK(error_of_pair(cat, dir.path() + "/hard", "x") ==
        dir.path() + "/hard: cannot write the file (the same file is already an output of this command)");
  CHECK(vp::test::read_text(cat) == "old");
  CHECK(entries(dir.path()) == 2);
}

TEST_CASE("atomic: the old file's mode is kept; a new file gets 0666 less the umask") {
  vp::test::TempDir dir;
  const std::string path = dir.path() + "/c.vpcat";
  const mode_t old_mask = umask(022);
  write(path, "new");
  CHECK((fs::status(path).permissions() & fs::perms::mask) == static_cast<fs::perms>(0644));
  chmod(path.c_str(), 0640);
  write(path, "replaced");
  CHECK((fs::status(path).permissions() & fs::perms::mask) == static_cast<fs::perms>(0640));
  umask(old_mask);
}

TEST_CASE("atomic: killed at random moments, the pair is always whole and ends up consistent") {
  vp::test::TempDir dir;
  const std::string cat = dir.path() + "/c.vpcat", json = dir.path() + "/c.json";
  constexpr std::size_t kCatBytes = 96 << 10, kJsonBytes = 160 << 10;
  const std::string c0 = generation("catalog", 0, kCatBytes), j0 = generation("mirror", 0, kJsonBytes);
  write_files_atomically({out(cat, c0), out(json, j0)});
  std::mt19937 rng(7);
  int mixed_before_recovery = 0, journals_completed = 0;
  for (int round = 0; round < 60; ++round) {
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {  // write generations until killed
      for (int k = 1;; ++k) {
        const std::string c = generation("catalog", k, kCatBytes), j = generation("mirror", k, kJsonBytes);
        try {
          write_files_atomically({out(cat, c), out(json, j)});
        } catch (...) {
          _exit(3);
        }
      }
    }
    usleep(200 + static_cast<useconds_t>(rng() % 20000));
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    REQUIRE_MESSAGE(WIFSIGNALED(status), "the writer failed instead of being killed");
    // Whatever moment the kill hit: each file is one whole generation.
    const int kc = generation_of(vp::test::read_text(cat), "catalog", kCatBytes);
    const int kj = generation_of(vp::test::read_text(json), "mirror", kJsonBytes);
    CAPTURE(round);
    REQUIRE(kc >= 0);
    REQUIRE(kj >= 0);
    if (kc != kj) ++mixed_before_recovery;
    // What the next writer does first: complete the set, remove leftovers.
    journals_completed += static_cast<int>(recover_interrupted_writes(cat));
    const int rc = generation_of(vp::test::read_text(cat), "catalog", kCatBytes);
    const int rj = generation_of(vp::test::read_text(json), "mirror", kJsonBytes);
    CHECK(rc == rj);
    CHECK(entries(dir.path()) == 3);  // the pair and the lock file
  }
  MESSAGE("60 kills: " << mixed_before_recovery << " left a pair mid-commit, " << journals_completed
                       << " journals completed by recovery");
}

namespace {

using vp::catalog::set_commit_hook;

// The pipes a hooked writer (a forked child) talks to the test through.
int tell_fd = -1, resume_fd = -1;

void tell() { (void)!::write(tell_fd, "!", 1); }

// Writer A: after renaming its catalog, say so and wait for the test's word.
void pause_after_first_rename(const char* moment, const std::string&) {
  if (std::string(moment) != "renamed") return;
  tell();
  char c;
  (void)!::read(resume_fd, &c, 1);
  set_commit_hook(nullptr);
}

// Writer B: say when it finds the lock held (then it waits).
void tell_when_lock_busy(const char* moment, const std::string&) {
  if (std::string(moment) == "lock busy") tell();
}

// A writer killed right after renaming its first file.
void die_after_first_rename(const char* moment, const std::string&) {
  if (std::string(moment) == "renamed") raise(SIGKILL);
}

// Fork a child that writes the pair (`cat`, `json`) with `hook` set; the
// child's `tell()` goes to the returned pipe's read end.
struct Child {
  pid_t pid = -1;
  int told = -1;  // read end: a byte per tell(), end of file once the child has exited
};
Child fork_writer(vp::catalog::CommitHook hook, const std::vector<OutputFile>& files, int resume = -1) {
  int p[2];
  REQUIRE(pipe(p) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(p[0]);
    tell_fd = p[1];
    resume_fd = resume;
    set_commit_hook(hook);
    try {
      write_files_atomically(files);
    } catch (...) {
      _exit(3);
    }
    _exit(0);
  }
  ::close(p[1]);
  return Child{pid, p[0]};
}

// 1 when the child said something, 0 when it exited without a word.
ssize_t heard(const Child& c) {
  char b;
  return ::read(c.told, &b, 1);
}

int exit_status(const Child& c) {
  int status = 0;
  waitpid(c.pid, &status, 0);
  ::close(c.told);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

TEST_CASE("atomic: a second writer of the pair waits for the first; the pair ends up as one wrote it") {
  vp::test::TempDir dir;
  const std::string cat = dir.path() + "/c.vpcat", json = dir.path() + "/c.json";
  write_files_atomically({out(cat, "catalog 0"), out(json, "mirror 0")});
  int resume[2];
  REQUIRE(pipe(resume) == 0);
  const std::string ca = "catalog A", ja = "mirror A", cb = "catalog B", jb = "mirror B";
  const Child a = fork_writer(pause_after_first_rename, {out(cat, ca), out(json, ja)}, resume[0]);
  const bool a_paused = heard(a) == 1;  // A has renamed its catalog, not yet its mirror
  const Child b = a_paused ? fork_writer(tell_when_lock_busy, {out(cat, cb), out(json, jb)}) : Child{};
  const bool b_waited = a_paused && heard(b) == 1;  // end of file instead: B committed while A was paused
  (void)!::write(resume[1], "!", 1);
  CHECK(a_paused);
  CHECK(b_waited);
  CHECK(exit_status(a) == 0);
  if (a_paused) CHECK(exit_status(b) == 0);
  ::close(resume[0]);
  ::close(resume[1]);
  CHECK(vp::test::read_text(cat) == cb);  // B committed after A: its pair, whole
  CHECK(vp::test::read_text(json) == jb);
  CHECK(fs::is_regular_file(dir.path() + "/" + vp::catalog::kCommitLockName));  // kept, see atomic_file.hpp
  CHECK(entries(dir.path()) == 3);
}

TEST_CASE("atomic: a writer that cannot get the lock in time fails, naming the lock; the old pair stays") {
  vp::test::TempDir dir;
  const std::string cat = dir.path() + "/c.vpcat", json = dir.path() + "/c.json";
  write_files_atomically({out(cat, "catalog 0"), out(json, "mirror 0")});
  const std::string lock = dir.path() + "/" + vp::catalog::kCommitLockName;
  const int held = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(held >= 0);
  REQUIRE(flock(held, LOCK_EX) == 0);  // another open file description: as another writer
  struct Restore {
    int fd;
    ~Restore() {
      vp::catalog::set_commit_lock_wait(vp::catalog::kCommitLockWaitSeconds);
      ::close(fd);
    }
  } restore{held};
  vp::catalog::set_commit_lock_wait(0);
  CHECK(error_of_pair(cat, json, "new") ==
        cat + ": cannot write the file (lock " + lock + ": another writer has held it for 0 s)");
  CHECK(vp::test::read_text(cat) == "catalog 0");
  CHECK(vp::test::read_text(json) == "mirror 0");
  CHECK(entries(dir.path()) == 3);  // no temporary left
}

TEST_CASE("atomic: a writer killed between the renames; the next reader completes the pair") {
  vp::test::TempDir dir;
  const std::string cat = dir.path() + "/c.vpcat", json = dir.path() + "/c.json";
  write_files_atomically({out(cat, "catalog 0"), out(json, "mirror 0")});
  CHECK(!vp::catalog::complete_interrupted_write(json));  // nothing pending
  const Child w = fork_writer(die_after_first_rename, {out(cat, "catalog 1"), out(json, "mirror 1")});
  REQUIRE(exit_status(w) == 128 + SIGKILL);
  REQUIRE(vp::test::read_text(cat) == "catalog 1");
  REQUIRE(vp::test::read_text(json) == "mirror 0");  // half new: the journal says what is left
  CHECK(vp::catalog::complete_interrupted_write(json));
  CHECK(vp::test::read_text(json) == "mirror 1");
  CHECK(entries(dir.path()) == 3);  // the pair and the lock file: no journal, no temporary
}

namespace {

struct Pair {
  std::string cat, json;
};

Pair pair_of(const vp::catalog::Catalog& c) {
  const std::vector<std::uint8_t> bytes = vp::catalog::write_catalog(c);
  return Pair{std::string(bytes.begin(), bytes.end()), vp::catalog::dump_json(c)};
}

// In `folder`: the pair of rail_catalog(), then a writer of mixed_catalog()'s
// pair killed between its renames.
void half_replace(const std::string& folder) {
  const std::string cat = folder + "/c.vpcat", json = folder + "/c.json";
  const Pair old_pair = pair_of(vp::test::rail_catalog()), new_pair = pair_of(vp::test::mixed_catalog());
  write_files_atomically({out(cat, old_pair.cat), out(json, old_pair.json)});
  const Child w = fork_writer(die_after_first_rename, {out(cat, new_pair.cat), out(json, new_pair.json)});
  REQUIRE(exit_status(w) == 128 + SIGKILL);
  REQUIRE(vp::test::read_text(cat) == new_pair.cat);
  REQUIRE(vp::test::read_text(json) == old_pair.json);
}

// The one entry of `folder` whose name contains `part`.
std::string entry_named(const std::string& folder, const std::string& part) {
  std::string found;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.path().filename().string().find(part) != std::string::npos) found = e.path().string();
  return found;
}

const std::string kCatalogTool = VP_CATALOG_BIN;

}  // namespace

TEST_CASE("atomic: vp-catalog validate of a half-replaced pair completes it first") {
  vp::test::TempDir dir;
  half_replace(dir.path());
  const std::string json = dir.path() + "/c.json";
  const vp::test::RunResult r = vp::test::run(kCatalogTool + " validate " + json);
  CHECK(r.exit_code == 0);
  CHECK(r.out == json + ": valid catalog (2 node types, 3 nodes, 8 GPUs)\n");  // the new mirror
  CHECK(vp::test::read_text(json) == pair_of(vp::test::mixed_catalog()).json);
  CHECK(entries(dir.path()) == 3);  // the pair and the lock file
}

TEST_CASE("atomic: a reader that may not complete a half-replaced pair says so, exit 2") {
  // Read-only to this user: a folder without write permission, or, as root
  // (whom permissions do not stop), a tmpfs remounted read-only.
  vp::test::TempDir dir;
  const std::string folder = dir.path() + "/pair";
  fs::create_directory(folder);
  const bool root = geteuid() == 0;
  if (root && vp::test::run("mount -t tmpfs -o size=1m tmpfs " + vp::test::shell_quote(folder)).exit_code != 0) {
    MESSAGE("root, and cannot mount a tmpfs here: the read-only case runs where it can");
    return;
  }
  struct Unmount {
    std::string at;
    bool mounted;
    ~Unmount() {
      if (mounted) vp::test::run("umount " + vp::test::shell_quote(at));
    }
  } unmount{folder, root};
  half_replace(folder);
  const std::string json = folder + "/c.json", journal = entry_named(folder, ".commit."),
                    temp = entry_named(folder, ".c.json.tmp.");
  auto set_read_only = [&](bool ro) {
    if (root)
      REQUIRE(vp::test::run(std::string("mount -o remount,") + (ro ? "ro " : "rw ") + vp::test::shell_quote(folder))
                  .exit_code == 0);
    else
      chmod(folder.c_str(), ro ? 0555 : 0755);
  };
  set_read_only(true);
  vp::test::RunResult r = vp::test::run(kCatalogTool + " validate " + json);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "vp-catalog: error: " + json + ": an interrupted write of it is pending (commit journal " + journal +
                     ": rename " + temp + " to " + json + ": " +
                     (root ? "Read-only file system" : "Permission denied") +
                     "); reading it as a user who may write into " + folder + " completes the write\n");
  CHECK(vp::test::read_text(json) == pair_of(vp::test::rail_catalog()).json);
  set_read_only(false);
  r = vp::test::run(kCatalogTool + " validate " + json);
  CHECK(r.exit_code == 0);
  CHECK(vp::test::read_text(json) == pair_of(vp::test::mixed_catalog()).json);
}
