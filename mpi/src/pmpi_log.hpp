// What the interposer says on stderr, in NCCL's shape
// ("host:pid:tid [rank] VPCAT INFO what"), filtered by VPCAT_DEBUG and
// VPCAT_DEBUG_RANKS (env_config.hpp).
#pragma once

#include "env_config.hpp"

namespace vpcat_mpi {

// Whether a line of `level` from `rank` (of the communicator it concerns) is
// printed under `cfg`: level <= VPCAT_DEBUG, and rank 0 or every rank.
bool log_enabled(const EnvConfig& cfg, DebugLevel level, int rank);

// Print one line (printf format) if log_enabled(); `rank` is the process's
// rank in the communicator the line is about.
void log_line(const EnvConfig& cfg, DebugLevel level, int rank, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

}  // namespace vpcat_mpi
