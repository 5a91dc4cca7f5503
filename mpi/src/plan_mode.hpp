// VPCAT_MPI_PLAN, read in one place: the library (vpcat_mpi_init with
// options.plan_mode = VPCAT_MPI_PLAN_DEFAULT) and the interposer's settings
// (env_config.cpp) take the same values, in any case (docs/mpi.md
// "Settings"). Header-only: the interposer and the library are linked apart.
// Without <mpi.h> (the settings are tested without MPI): the values are
// vpcat_mpi.h's, which vpcat_mpi.cpp asserts.
#pragma once

#include <cctype>

namespace vpcat_mpi {

inline constexpr int kPlanEveryRank = 1;  // VPCAT_MPI_PLAN_EVERY_RANK
inline constexpr int kPlanRoot = 2;       // VPCAT_MPI_PLAN_ROOT

// What VPCAT_MPI_PLAN's values mean, for the error messages of both readers.
inline constexpr const char* kPlanModeValues = "want every (every rank plans) or root (rank 0 plans and broadcasts)";

// The plan mode VPCAT_MPI_PLAN=`value` names: kPlanEveryRank for "every",
// unset (nullptr) or empty; kPlanRoot for "root"; 0 for anything else. Letters in any case ("ROOT", "Every").
inline int parse_plan_mode(const char* value) {
  if (value == nullptr || *value == '\0') return kPlanEveryRank;
  auto is = [value](const char* word) {
    const char* v = value;
    for (; *word != '\0'; ++v, ++word)
      if (std::tolower(static_cast<unsigned char>(*v)) != *word) return false;
    return *v == '\0';
  };
  if (is("every")) return kPlanEveryRank;
  if (is("root")) return kPlanRoot;
  return 0;
}

}  // namespace vpcat_mpi
