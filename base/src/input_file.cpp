#include "vp/base/input_file.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "vp/base/errors.hpp"
#include "vp/base/inputs_read.hpp"

namespace vp {

InputLimits& input_limits() {
  static InputLimits limits;
  return limits;
}

std::string input_name(const std::string& path) { return path == "-" ? "standard input" : path; }

std::string bytes_text(std::uint64_t n) {
  if (n >= (std::uint64_t{1} << 30) && n % (std::uint64_t{1} << 30) == 0) return fmt::format("{} GiB", n >> 30);
  if (n >= (std::uint64_t{1} << 20) && n % (std::uint64_t{1} << 20) == 0) return fmt::format("{} MiB", n >> 20);
  return fmt::format("{} bytes", n);
}

void throw_out_of_memory(const std::string& path) {
  throw InputError(input_name(path), 0,
                   "out of memory while reading the file (it needs more memory than this machine or its ulimit "
                   "gives; --max-input-bytes and --max-json-memory lower what an input may take)");
}

namespace {

class Descriptor {
 public:
  explicit Descriptor(int fd, bool owned) : fd_(fd), owned_(owned) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (owned_ && fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
  bool owned_;
};

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw InputError(input_name(path), 0, fmt::format("cannot read the file ({})", why));
}

[[noreturn]] void too_large(const std::string& path, const std::string& size, std::uint64_t limit) {
  refuse(path, fmt::format("{} is more than the limit of {} for an input file; --max-input-bytes raises it", size,
                           bytes_text(limit)));
}

using Clock = std::chrono::steady_clock;

// Wait until `fd` has a byte (or its end) to read, at most until `deadline`
// (`opened` + `wait`): a trickle of a byte now and then does not hold the
// reader past it.
void wait_readable(const std::string& path, int fd, Clock::time_point opened, std::chrono::milliseconds wait,
                   bool got_data) {
  const Clock::time_point deadline = opened + wait;
  pollfd p{fd, POLLIN, 0};
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    const int r = left.count() <= 0 ? 0 : ::poll(&p, 1, left.count() > 0x7fffffff ? 0x7fffffff : static_cast<int>(left.count()));
    if (r > 0) return;
    if (r == 0 && !got_data)
      refuse(path, fmt::format("no data for {} ms: a pipe or FIFO that nothing writes to? --max-input-wait raises the wait",
                               wait.count()));
    if (r == 0)
      refuse(path, fmt::format("no end after {} ms: a pipe or FIFO still being written, or trickling? --max-input-wait "
                               "raises the wait",
                               wait.count()));
    if (errno != EINTR) refuse(path, std::strerror(errno));
  }
}

std::string read_content(const std::string& path) {
  const InputLimits limits = input_limits();
  const Clock::time_point opened = Clock::now();
  const bool stdin_input = path == "-";
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of
  // waiting for one; reads then go through poll() with a bounded wait.
  const int fd = stdin_input ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) refuse(path, std::strerror(errno));
  Descriptor d(fd, !stdin_input);
  struct stat st {};
  if (::fstat(fd, &st) != 0) refuse(path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) refuse(path, std::strerror(EISDIR));
  note_input_read(fd, path);
  const bool regular = S_ISREG(st.st_mode);
  if (regular && static_cast<std::uint64_t>(st.st_size) > limits.max_bytes)
    too_large(path, bytes_text(static_cast<std::uint64_t>(st.st_size)), limits.max_bytes);

  std::string content;
  if (regular) content.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    // A pipe, FIFO, device or terminal: never wait on it past the deadline.
    if (!regular) wait_readable(path, fd, opened, limits.max_wait, !content.empty());
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      if (content.size() + static_cast<std::uint64_t>(n) > limits.max_bytes)
        too_large(path, "its content", limits.max_bytes);
      content.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) break;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) continue;  // woken, then drained by another reader
    refuse(path, std::strerror(errno));
  }
  return content;
}

}  // namespace

std::string read_input_file(const std::string& path) {
  return reading_input(path, [&] { return read_content(path); });
}

}  // namespace vp
