// vpcat._env_settings: the MPI interposer's settings parser
// (mpi/src/env_config.*, docs/mpi.md "Settings") for executors written in
// Python (vpcat.torch), so that both read the same variables the same way.
#pragma once

#include <pybind11/pybind11.h>

namespace vpcat_python {

void register_settings(pybind11::module_& m);

}  // namespace vpcat_python
