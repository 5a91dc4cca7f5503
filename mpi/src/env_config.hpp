// The interposer's settings from the environment (docs/mpi.md "Settings"):
// a pure function of the variables, so that it is tested without MPI and
// rank 0's reading can be broadcast to every rank.
//
//   VPCAT_DEBUG               NONE, WARN (default) or INFO: what the interposer says on stderr
//   VPCAT_DEBUG_RANKS         0 (default: rank 0 speaks) or all (every rank says its own lines)
//   VPCAT_STRICT              0 (default) or 1: fail instead of falling back to plain MPI
//   VPCAT_INIT                eager (default: the world's context at MPI_Init) or lazy (at the first call)
//   VPCAT_MPI_PLAN            every (default) or root: vpcat_mpi_options.plan_mode
//   VPCAT_MAX_STEPS, VPCAT_LATENCY_US, VPCAT_MIN_STEP_LATENCIES, VPCAT_MIN_CHUNK_BYTES,
//   VPCAT_CHUNK_ALIGN_BYTES, VPCAT_CHANNELS_ONLY, VPCAT_ALLOW_SHARED, VPCAT_REPLAY
//                             the planner's options (vpcat_plan_options) of the same names
#pragma once

#include <functional>
#include <string>

#include "vpcat.h"

namespace vpcat_mpi {

enum class DebugLevel { none = 0, warn = 1, info = 2 };

struct EnvConfig {
  DebugLevel debug = DebugLevel::warn;
  bool debug_all_ranks = false;
  bool strict = false;
  bool eager = true;
  int plan_mode = 1;  // VPCAT_MPI_PLAN_EVERY_RANK (vpcat_mpi.h; plan_mode.hpp)
  vpcat_plan_options plan = vpcat_plan_options_default();
  std::string plan_set;  // the planner variables that were set, "VPCAT_LATENCY_US=2 ..." (for INFO)
};

// The variables' value or nullptr when unset (std::getenv in the interposer).
using GetEnv = std::function<const char*(const char*)>;

// Read every variable above. false and *error ("VPCAT_LATENCY_US=\"abc\":
// not a number (want a finite number >= 0)") at the first bad value; *out
// then holds the defaults for what follows it. An empty value is unset.
bool read_env_config(const GetEnv& getenv, EnvConfig* out, std::string* error);

// The options as the INFO line shows them: "max_steps=4194304 latency_us=5 ...".
std::string describe_plan_options(const vpcat_plan_options& o);

}  // namespace vpcat_mpi
