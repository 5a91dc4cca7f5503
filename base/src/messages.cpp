#include "vp/base/messages.hpp"

#include <pthread.h>
#include <signal.h>

#include <ctime>
#include <initializer_list>

namespace vp {

namespace {

// SIGPIPE blocked for this thread while it lives; a SIGPIPE that the guarded
// writes raised (and that was not pending before) is taken off the queue.
class SigpipeGuard {
 public:
  SigpipeGuard() noexcept {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigemptyset(&pending);
    was_pending_ = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
    blocked_ = pthread_sigmask(SIG_BLOCK, &pipe_, &old_) == 0;
  }
  ~SigpipeGuard() {
    if (!blocked_) return;
    sigset_t pending;
    sigemptyset(&pending);
    if (!was_pending_ && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
      const timespec zero{0, 0};
      sigtimedwait(&pipe_, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t pipe_;
  sigset_t old_;
  bool was_pending_ = false;
  bool blocked_ = false;
};

void write_parts(std::FILE* to, std::initializer_list<std::string_view> parts) noexcept {
  if (to == nullptr) return;
  SigpipeGuard guard;
  for (std::string_view p : parts)
    if (!p.empty() && std::fwrite(p.data(), 1, p.size(), to) != p.size()) break;
  std::fflush(to);
  std::clearerr(to);
}

}  // namespace

void write_message(std::FILE* to, std::string_view text) noexcept { write_parts(to, {text}); }

void error(std::string_view tool, std::string_view text) noexcept {
  write_parts(stderr, {tool, ": error: ", text, "\n"});
}

void warn(std::string_view tool, std::string_view text) noexcept {
  write_parts(stderr, {tool, ": warning: ", text, "\n"});
}

void note(std::string_view tool, std::string_view text) noexcept { write_parts(stderr, {tool, ": ", text, "\n"}); }

}  // namespace vp
