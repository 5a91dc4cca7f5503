#include "machine_model_file.hpp"

#include <fmt/format.h>

#include "contention_file.hpp"
#include "vp/catalog/machine_model.hpp"
#include "vp/topology/errors.hpp"

namespace vp::sim_cli {

vpcat::MachineModel machine_model_of(const sim::ContentionModel& m, const std::string& where) {
  if (!m.enabled) return vpcat::MachineModel::ideal();
  vpcat::MachineModel out;
  out.forwarder = vpcat::LossCurve{m.forwarder.on, m.forwarder.slope, m.forwarder.floor};
  if (m.forwarder_families.size() > vpcat::MachineModel::kMaxFamilies)
    throw InputError(where, 0,
                     fmt::format("forwarder.families: {} CPU families, the planner's model holds at most {}",
                                 m.forwarder_families.size(), vpcat::MachineModel::kMaxFamilies));
  out.family_count = static_cast<std::uint32_t>(m.forwarder_families.size());
  for (std::size_t i = 0; i < m.forwarder_families.size(); ++i) {
    const sim::FamilyCurve& f = m.forwarder_families[i];
    vpcat::ForwarderFamily& g = out.families[i];
    if (f.match.size() >= vpcat::ForwarderFamily::kMatchBytes)
      throw InputError(where, 0,
                       fmt::format("forwarder.families[{}].match: {} characters, the planner's model keeps at most {}",
                                   i, f.match.size(), vpcat::ForwarderFamily::kMatchBytes - 1));
    g = vpcat::ForwarderFamily{};
    f.match.copy(g.match, f.match.size());
    g.curve = vpcat::LossCurve{true, f.slope, f.floor};
  }
  out.nic = vpcat::LossCurve{m.nic.on, m.nic.slope, m.nic.floor};
  out.chunk_on = m.chunk_on;
  out.chunk_bytes = m.chunk_bytes;
  out.chunk_overhead_us = m.chunk_overhead_us;
  return out;
}

vpcat::MachineModel read_machine_model(const std::string& spec) {
  if (spec == "ideal") return vpcat::MachineModel::ideal();
  return machine_model_of(read_contention_file(spec), spec);
}

catalog::MachineModelSpec read_machine_model_spec(const std::string& spec) {
  if (spec == "ideal") return catalog::model_spec(vpcat::MachineModel::ideal(), "ideal: every loss off");
  return catalog::model_spec(read_machine_model(spec), "table " + spec);
}

}  // namespace vp::sim_cli
