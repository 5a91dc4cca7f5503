#include "vp/base/inputs_read.hpp"

#include <sys/stat.h>

#include <map>
#include <mutex>
#include <utility>

namespace vp {

namespace {

using FileKey = std::pair<dev_t, ino_t>;

struct Registry {
  std::mutex mutex;
  std::map<FileKey, std::string> files;
};

Registry& registry() {
  static Registry r;
  return r;
}

void remember(const struct stat& st, const std::string& path) noexcept {
  if (!S_ISREG(st.st_mode)) return;
  try {
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.mutex);
    r.files.emplace(FileKey{st.st_dev, st.st_ino}, path);
  } catch (...) {  // out of memory: the check is lost, never the read
  }
}

}  // namespace

void note_input_read(int fd, const std::string& path) noexcept {
  struct stat st {};
  if (::fstat(fd, &st) == 0) remember(st, path);
}

void note_input_read(const std::string& path) noexcept {
  struct stat st {};
  if (path != "-" && ::stat(path.c_str(), &st) == 0) remember(st, path);
}

std::optional<std::string> read_as_input(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = r.files.find(FileKey{st.st_dev, st.st_ino});
  if (it == r.files.end()) return std::nullopt;
  return it->second;
}

}  // namespace vp
