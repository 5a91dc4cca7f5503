// The runtime planner's machine model (vpcat::MachineModel,
// runtime_loader/include/vpcat/planner/machine_model.hpp) from the judge's
// contention table (schemas/contention.schema.json), for vp-plan
// --machine-model and vp-sim, which gives the planner the model it
// simulates under.
#pragma once

#include <string>

#include "vp/catalog/catalog.hpp"
#include "vp/sim/contention.hpp"
#include "vpcat/planner/machine_model.hpp"

namespace vp::sim_cli {

// The planner's model of the simulator's: the forwarder curve and its CPU
// families, the NIC curve and the chunk cost, each as the table says (off
// where the table turns a mechanism off, every loss off when the model is
// disabled: the ideal model). The GPU endpoint curve and port arbitration
// are left out: the one is for remote reads (executors write), the other
// only redistributes a resource among its users. Throws vp::InputError(where,
// 0, reason) naming `where` when the table has more CPU families than
// vpcat::MachineModel::kMaxFamilies or a family match longer than the
// planner keeps.
vpcat::MachineModel machine_model_of(const sim::ContentionModel& m, const std::string& where);

// --machine-model SPEC: "ideal" (every loss off) or a contention table file
// (read_contention_file's errors).
vpcat::MachineModel read_machine_model(const std::string& spec);

// The same as a catalog's machine model (vp-analyze --machine-model,
// vp-catalog set-model), each value's source "ideal: every loss off" or
// "table SPEC".
catalog::MachineModelSpec read_machine_model_spec(const std::string& spec);

}  // namespace vp::sim_cli
