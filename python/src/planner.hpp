// vpcat.PlanOptions, vpcat.Planner and vpcat.Plan (planner.cpp).
#pragma once

#include <pybind11/pybind11.h>

namespace vpcat_python {

void register_planner(pybind11::module_& m);

}  // namespace vpcat_python
