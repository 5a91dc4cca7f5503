// vpcat.place() and vpcat.Placement (placement.cpp): where an N-GPU job goes
// among a cluster's free GPUs, vpcat::place() (vpcat/placement.hpp).
#pragma once

#include <pybind11/pybind11.h>

namespace vpcat_python {

void register_placement(pybind11::module_& m);

}  // namespace vpcat_python
