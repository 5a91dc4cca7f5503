// vpcat._map_ranks: the MPI executor's rank -> GPU rules (mpi/src/rank_map.*,
// docs/mpi.md "Rank to GPU") for executors written in Python (vpcat.torch).
#pragma once

#include <pybind11/pybind11.h>

namespace vpcat_python {

void register_ranks(pybind11::module_& m);

}  // namespace vpcat_python
