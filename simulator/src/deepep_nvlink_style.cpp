// DeepEP-like baseline ("deepep_nvlink_style"), after DeepEP's normal
// (high-throughput) internode
// dispatch (github.com/deepseek-ai/DeepEP, csrc/kernels/internode.cu,
// `dispatch`: kRDMASender warps send each token over RDMA to the GPU with
// the same local rank on the target node, kRDMAAndNVLForwarder warps there
// forward it over NVLink to the target GPUs, both streaming chunk by chunk;
// docs/legacy.md "Normal kernels with NVLink and RDMA forwarding").
//
// Here: bytes for a GPU of the same node go directly over PCIe; bytes for
// GPU j of another node go over the network (default route) to the GPU of
// that node with the sender's local index, which forwards them to j over
// PCIe (no second hop when that is j itself). The streaming is modelled as
// a pipeline of `chunks` equal chunks per payload: step k (0-based) carries
// chunk k of every network transfer and of every direct intra-node transfer,
// and forwards chunk k-1; one last step forwards the last chunk (a demand
// that stays inside nodes is one step of direct transfers). DeepEP also
// sends a token once per target node even when several GPUs there need it;
// a GPU-level demand matrix does not say which bytes are the same token, so
// each (source, destination) payload travels on its own, as it does for
// every other scheduler. DeepEP itself runs this mode only with NVLink; on
// PCIe it runs its PCIe mode (src/deepep_pcie.cpp).
#include <fmt/format.h>

#include <stdexcept>

#include "baseline_common.hpp"
#include "vp/sim/baselines.hpp"
#include "vp/base/errors.hpp"

namespace vp::sim {

Schedule deepep_nvlink_style_schedule(const Topology& t, const Demand& demand, const DeepEpOptions& opts) {
  demand.check_fits(t, "demand");
  if (opts.chunks < 1)
    throw UsageError(fmt::format("deepep_nvlink_style_schedule: chunks must be >= 1, got {}", opts.chunks));
  detail::Servers srv(t, "deepep_nvlink_style_schedule");
  detail::FlowMaker make(t);
  // Chunks overlap forwarding with the network; without network traffic
  // there is nothing to overlap.
  bool network = false;
  for (std::size_t s = 0; s < demand.size(); ++s)
    for (std::size_t d = 0; d < demand.size(); ++d)
      network |= demand.at(s, d) > 0 && srv.server_of(s) != srv.server_of(d);
  const std::size_t chunks = network ? static_cast<std::size_t>(opts.chunks) : 1;
  std::vector<Step> steps(chunks + 1);
  for (std::size_t s = 0; s < demand.size(); ++s) {
    for (std::size_t d = 0; d < demand.size(); ++d) {
      if (s == d || demand.at(s, d) <= 0) continue;
      const double part = demand.at(s, d) / static_cast<double>(chunks);
      const std::size_t relay =
          srv.server_of(s) == srv.server_of(d) ? d : srv.gpu_of(srv.server_of(d), srv.local_of(s));
      for (std::size_t k = 0; k < chunks; ++k) {
        steps[k].flows.push_back(make.hop(s, relay, s, d, part));
        if (relay != d) steps[k + 1].flows.push_back(make.hop(relay, d, s, d, part));
      }
    }
  }
  Schedule out;
  for (Step& step : steps)
    if (!step.flows.empty()) out.steps.push_back(std::move(step));
  return out;
}

// DeepEP's normal kernels forward inside a node over NVLink
// (csrc/kernels/internode.cu); without NVLink DeepEP runs its PCIe mode
// instead (docs/README_PCIe.md), so this schedule is never what DeepEP runs
// on a PCIe-only machine.
std::string deepep_nvlink_style_hypothetical() {
  return "DeepEP runs this mode only with NVLink inside a node; without it DeepEP runs its PCIe mode";
}

}  // namespace vp::sim
