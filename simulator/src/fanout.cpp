// Fan-out baseline: every transfer of the AlltoAllv posted at once, each on
// its default route (nearest NICs with GPUDirect RDMA), as Open MPI's basic
// linear AlltoAllv does (ompi/mca/coll/base/coll_base_alltoallv.c,
// ompi_coll_base_alltoallv_intra_basic_linear: post every irecv and isend,
// then wait for all). NCCL's grouped send/recv bounds the peers in flight
// and orders them in rounds: that is the `nccl` baseline (src/nccl.cpp).
#include "baseline_common.hpp"
#include "vp/sim/baselines.hpp"

namespace vp::sim {

Schedule fanout_schedule(const Topology& t, const Demand& demand) {
  demand.check_fits(t, "demand");
  detail::FlowMaker make(t);
  Step step;
  for (std::size_t s = 0; s < demand.size(); ++s)
    for (std::size_t d = 0; d < demand.size(); ++d)
      if (s != d && demand.at(s, d) > 0) step.flows.push_back(make.direct(s, d, demand.at(s, d)));
  Schedule out;
  if (!step.flows.empty()) out.steps.push_back(std::move(step));
  return out;
}

}  // namespace vp::sim
