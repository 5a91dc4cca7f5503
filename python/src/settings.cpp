#include "settings.hpp"

#include <pybind11/stl.h>

#include <map>
#include <string>

#include "env_config.hpp"
#include "vpcat/planner.hpp"

namespace py = pybind11;

namespace vpcat_python {

namespace {

const char* level_name(vpcat_mpi::DebugLevel level) {
  switch (level) {
    case vpcat_mpi::DebugLevel::none: return "NONE";
    case vpcat_mpi::DebugLevel::warn: return "WARN";
    case vpcat_mpi::DebugLevel::info: return "INFO";
  }
  return "WARN";
}

vpcat::PlanOptions plan_options_of(const vpcat_plan_options& c) {
  vpcat::PlanOptions o;
  o.latency_us = c.latency_us, o.min_step_latencies = c.min_step_latencies;
  o.min_chunk_bytes = c.min_chunk_bytes, o.chunk_align_bytes = c.chunk_align_bytes;
  o.max_steps = c.max_steps, o.allow_shared = c.allow_shared != 0, o.replay = c.replay != 0;
  o.nic_loopback = c.nic_loopback != 0, o.channels_only = c.channels_only != 0;
  return o;
}

}  // namespace

void register_settings(py::module_& m) {
  m.def(
      "_env_settings",
      [](const std::map<std::string, std::string>& env) {
        vpcat_mpi::EnvConfig c;
        std::string error;
        const bool ok = vpcat_mpi::read_env_config(
            [&](const char* name) -> const char* {
              const auto it = env.find(name);
              return it == env.end() ? nullptr : it->second.c_str();
            },
            &c, &error);
        py::dict out;
        out["error"] = ok ? py::object(py::none()) : py::object(py::str(error));
        out["debug"] = level_name(c.debug);
        out["debug_all_ranks"] = c.debug_all_ranks;
        out["strict"] = c.strict;
        out["plan"] = plan_options_of(c.plan);
        out["plan_text"] = vpcat_mpi::describe_plan_options(c.plan);
        out["plan_set"] = c.plan_set;
        return out;
      },
      py::arg("env"),
      "The interposer's settings (docs/mpi.md \"Settings\") from `env`, a dict of the VPCAT_* variables: a dict "
      "with error (None, or \"VPCAT_X=\\\"v\\\": why\" for the first bad value; what follows it keeps its default), "
      "debug (NONE, WARN, INFO), debug_all_ranks, strict, plan (a PlanOptions), plan_text (as the INFO line shows "
      "them) and plan_set (the planner variables that were set).");
}

}  // namespace vpcat_python
