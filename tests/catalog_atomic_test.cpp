// Atomic output: the new file appears whole, and a failed write leaves the
// old file and no temporary behind.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "catalog_support.hpp"
#include "support.hpp"
#include "vp/catalog/atomic_file.hpp"
#include "vp/catalog/errors.hpp"

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
  try {
    write(path, text);
  } catch (const CatalogError& e) {
    return e.what();
  }
  return "(written)";
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
