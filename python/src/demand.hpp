// A NumPy demand matrix as a vpcat::Demand, copying only when it must.
//
//   uint64, C-contiguous, native order       viewed in place (no copy)
//   int64, C-contiguous, native order        viewed in place as uint64 after a scan for negatives
//   float64, C-contiguous, native order      viewed in place (the planner checks whole numbers >= 0)
//   other integer / float dtypes, other
//     layouts (strided, Fortran, swapped)     converted to one of the above (a copy)
//   bool, complex, object, str, ...           TypeError
//   not 2-D or not square                     DemandError demand_size
//   a negative entry                          DemandError bad_demand_value naming its cell
#pragma once

#include <pybind11/numpy.h>

#include <cstdint>

#include "vpcat/planner/demand.hpp"

namespace vpcat_python {

struct HeldDemand {
  pybind11::array array;  // the array the Demand points into (the caller's, or a converted copy)
  vpcat::Demand demand;
  bool copied = false;
};

// Throws pybind11::type_error or StatusError.
HeldDemand to_demand(const pybind11::handle& matrix, std::uint64_t gpus);

}  // namespace vpcat_python
