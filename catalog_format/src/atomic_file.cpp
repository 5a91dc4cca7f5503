// Atomic replacement of a file: unnamed temporary (O_TMPFILE) or a named one
// beside the target, fsync, rename, fsync of the folder.
#include "vp/catalog/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "vp/catalog/errors.hpp"

namespace vp::catalog {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& step, int err) {
  throw CatalogError(CatalogError::Kind::unreadable,
                     path + ": cannot write the file (" + step + ": " + std::strerror(err) + ")");
}

std::string random_suffix() {
  std::random_device rd;
  return std::to_string(rd()) + std::to_string(::getpid());
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

// An open temporary file in `dir`; `name` stays empty while it is unnamed.
struct Temp {
  int fd = -1;
  std::string name;
};

Temp create_temp(const fs::path& dir, const std::string& target, const std::string& path) {
  Temp t;
#ifdef O_TMPFILE
  // An unnamed file needs /proc to be named later (name_temp).
  if (::access("/proc/self/fd", X_OK) == 0) {
    t.fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (t.fd >= 0) return t;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) fail(path, "create a temporary file", errno);
  }
#endif
  for (int attempt = 0; attempt < 100; ++attempt) {
    t.name = (dir / ("." + target + ".tmp." + random_suffix())).string();
    t.fd = ::open(t.name.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
    if (t.fd >= 0) return t;
    if (errno != EEXIST) fail(path, "create a temporary file", errno);
  }
  fail(path, "create a temporary file", EEXIST);
}

// Give an unnamed temporary a name in `dir` (after it was written in full).
void name_temp(Temp& t, const fs::path& dir, const std::string& target, const std::string& path) {
  const std::string proc = "/proc/self/fd/" + std::to_string(t.fd);
  for (int attempt = 0; attempt < 100; ++attempt) {
    t.name = (dir / ("." + target + ".tmp." + random_suffix())).string();
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, t.name.c_str(), AT_SYMLINK_FOLLOW) == 0) return;
    if (errno != EEXIST) {
      const int err = errno;
      t.name.clear();
      fail(path, "name the temporary file", err);
    }
  }
  t.name.clear();
  fail(path, "name the temporary file", EEXIST);
}

void sync_folder(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);  // best effort: some file systems refuse fsync on folders
  ::close(fd);
}

}  // namespace

void write_file_atomically(const std::string& path, const std::uint8_t* data, std::size_t size) {
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string name = target.filename().string();
  if (name.empty()) fail(path, "resolve the file name", EISDIR);
  Temp t = create_temp(dir, name, path);
  auto abandon = [&](const std::string& step, int err) {
    ::close(t.fd);
    if (!t.name.empty()) ::unlink(t.name.c_str());
    fail(path, step, err);
  };
  if (int err = write_all(t.fd, data, size)) abandon("write", err);
  if (::fsync(t.fd) != 0) abandon("fsync", errno);
  if (t.name.empty()) {
    try {
      name_temp(t, dir, name, path);
    } catch (...) {
      ::close(t.fd);
      throw;
    }
  }
  if (::close(t.fd) != 0) {
    const int err = errno;
    ::unlink(t.name.c_str());
    fail(path, "close", err);
  }
  if (::rename(t.name.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(t.name.c_str());
    fail(path, "rename", err);
  }
  sync_folder(dir);
}

}  // namespace vp::catalog
