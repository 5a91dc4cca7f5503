#include "pmpi_log.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>

namespace vpcat_mpi {

bool log_enabled(const EnvConfig& cfg, DebugLevel level, int rank) {
  return level != DebugLevel::none && static_cast<int>(level) <= static_cast<int>(cfg.debug) &&
         (rank == 0 || cfg.debug_all_ranks);
}

void log_line(const EnvConfig& cfg, DebugLevel level, int rank, const char* fmt, ...) {
  if (!log_enabled(cfg, level, rank)) return;
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  char text[2048];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  // One fprintf per line: lines of several ranks do not interleave mid-line.
  std::fprintf(stderr, "%s:%d:%ld [%d] VPCAT %s %s\n", host, static_cast<int>(getpid()),
               static_cast<long>(syscall(SYS_gettid)), rank, level == DebugLevel::info ? "INFO" : "WARN", text);
}

}  // namespace vpcat_mpi
