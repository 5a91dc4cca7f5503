// The catalog's machine model (Catalog::machine_model, SPEC.md §6.13) and
// the planner's vpcat::MachineModel, both ways, with the sources each value
// is stored with.
#pragma once

#include <string>

#include "vp/catalog/catalog.hpp"
#include "vpcat/planner/machine_model.hpp"

namespace vp::catalog {

// The planner's class defaults (vpcat::MachineModel{}, the judge's
// calibrated table simulator/contention.json), each value's source
// "class default: <its citation in contention.json>". What vp-analyze
// writes unless told otherwise.
MachineModelSpec class_default_model();

// `m` with every value's source `source` ("table contention.json",
// "ideal: every loss off").
MachineModelSpec model_spec(const vpcat::MachineModel& m, const std::string& source);

// The planner's model of `spec`. Throws CatalogError(invalid) naming the
// field when the planner cannot hold it (more than
// vpcat::MachineModel::kMaxFamilies families, a match of 48 bytes or more);
// the values' ranges are the verifier's (write_catalog()).
vpcat::MachineModel runtime_model(const MachineModelSpec& spec);

}  // namespace vp::catalog
