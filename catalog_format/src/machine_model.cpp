#include "vp/catalog/machine_model.hpp"

#include <fmt/format.h>

#include "vp/catalog/errors.hpp"

namespace vp::catalog {

namespace {

// Short forms of simulator/contention.json's "source" texts (that file has
// them in full).
constexpr const char* kForwarderSlope =
    "class default: simulator/contention.json forwarder.slope: no published figure for a CPU family other than AMD "
    "EPYC: every other family takes the AMD EPYC fit, swept from 0 to 0.5";
constexpr const char* kFloor = "class default: simulator/contention.json {}.floor: no published figure: swept{}";
constexpr const char* kEpycSlope =
    "class default: simulator/contention.json forwarder.families[AMD EPYC].slope: fitted (scripts/calibrate.py --fit) on "
    "voipmonitor/rtx6kpro's dense all-read (2x EPYC 9575F) and the dual-Turin +4 probe; tested on nccl-tests issue 332 "
    "server C";
constexpr const char* kNicSlope =
    "class default: simulator/contention.json nic.slope: bounded by DeepEP's PCIe-mode figures "
    "(deepseek-ai/DeepEP docs/README_PCIe.md), swept from 0 to 0.0085";
constexpr const char* kChunkBytes =
    "class default: simulator/contention.json chunk.bytes: NVIDIA/nccl src/init.cc P2pNetChunkSize and "
    "P2pPciChunkSize, 1 << 17";
constexpr const char* kChunkOverhead =
    "class default: simulator/contention.json chunk.overhead_us: no published figure: swept, bounded by the PEX88096 "
    "calibration (at most 0.25)";

ModelValue value(double v, std::string source) { return ModelValue{v, std::move(source)}; }

}  // namespace

MachineModelSpec class_default_model() {
  const vpcat::MachineModel m;  // the class defaults
  MachineModelSpec s;
  s.forwarder = ModelCurve{m.forwarder.on, value(m.forwarder.slope, kForwarderSlope),
                           value(m.forwarder.floor, fmt::format(kFloor, "forwarder", ""))};
  for (std::uint32_t f = 0; f < m.family_count; ++f) {
    const vpcat::ForwarderFamily& fam = m.families[f];
    const std::string match(fam.match_view());
    // The one family of the class defaults is AMD EPYC; a later one would
    // need its own citation here.
    s.families.push_back(ModelFamily{
        match, value(fam.curve.slope, match == "AMD EPYC" ? kEpycSlope : "class default: simulator/contention.json"),
        value(fam.curve.floor, fmt::format(kFloor, "forwarder.families[" + match + "]", " (no Zen figure reaches it)"))});
  }
  s.nic = ModelCurve{m.nic.on, value(m.nic.slope, kNicSlope),
                     value(m.nic.floor, fmt::format(kFloor, "nic", " (at most half the line rate lost)"))};
  s.chunk_on = m.chunk_on;
  s.chunk_bytes = value(m.chunk_bytes, kChunkBytes);
  s.chunk_overhead_us = value(m.chunk_overhead_us, kChunkOverhead);
  return s;
}

MachineModelSpec model_spec(const vpcat::MachineModel& m, const std::string& source) {
  MachineModelSpec s;
  s.forwarder = ModelCurve{m.forwarder.on, value(m.forwarder.slope, source), value(m.forwarder.floor, source)};
  for (std::uint32_t f = 0; f < m.family_count && f < vpcat::MachineModel::kMaxFamilies; ++f)
    s.families.push_back(ModelFamily{std::string(m.families[f].match_view()), value(m.families[f].curve.slope, source),
                                     value(m.families[f].curve.floor, source)});
  s.nic = ModelCurve{m.nic.on, value(m.nic.slope, source), value(m.nic.floor, source)};
  s.chunk_on = m.chunk_on;
  s.chunk_bytes = value(m.chunk_bytes, source);
  s.chunk_overhead_us = value(m.chunk_overhead_us, source);
  return s;
}

vpcat::MachineModel runtime_model(const MachineModelSpec& s) {
  vpcat::MachineModel m;
  m.forwarder = vpcat::LossCurve{s.forwarder.on, s.forwarder.slope.value, s.forwarder.floor.value};
  if (s.families.size() > vpcat::MachineModel::kMaxFamilies)
    throw CatalogError(CatalogError::Kind::invalid,
                       fmt::format("machine_model: {} CPU families, the planner's model holds at most {}",
                                   s.families.size(), vpcat::MachineModel::kMaxFamilies));
  m.family_count = static_cast<std::uint32_t>(s.families.size());
  for (std::size_t f = 0; f < s.families.size(); ++f) {
    const ModelFamily& in = s.families[f];
    if (in.match.size() >= vpcat::ForwarderFamily::kMatchBytes)
      throw CatalogError(CatalogError::Kind::invalid,
                         fmt::format("machine_model: family {} match: {} bytes, the planner's model keeps at most {}", f,
                                     in.match.size(), vpcat::ForwarderFamily::kMatchBytes - 1));
    vpcat::ForwarderFamily& out = m.families[f];
    out = vpcat::ForwarderFamily{};
    in.match.copy(out.match, in.match.size());
    out.curve = vpcat::LossCurve{true, in.slope.value, in.floor.value};
  }
  m.nic = vpcat::LossCurve{s.nic.on, s.nic.slope.value, s.nic.floor.value};
  m.chunk_on = s.chunk_on;
  m.chunk_bytes = s.chunk_bytes.value;
  m.chunk_overhead_us = s.chunk_overhead_us.value;
  return m;
}

}  // namespace vp::catalog
