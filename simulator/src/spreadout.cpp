// SpreadOut baseline: n-1 shifted permutations, step k sends i -> (i+k) mod n,
// the pairwise-exchange AlltoAllv of MPI (Open MPI
// ompi/mca/coll/base/coll_base_alltoallv.c,
// ompi_coll_base_alltoallv_intra_pairwise: at step k send to rank+k and
// receive from rank-k, one exchange at a time; Thakur, Rabenseifner & Gropp,
// "Optimization of Collective Communication Operations in MPICH", IJHPCA
// 2005, §4 "pairwise exchange") and the "SpreadOut" baseline of the FAST
// paper. Each step is a permutation on default routes; a step waits for the
// previous one.
#include "baseline_common.hpp"
#include "vp/sim/baselines.hpp"

namespace vp::sim {

Schedule spreadout_schedule(const Topology& t, const Demand& demand) {
  demand.check_fits(t, "demand");
  detail::FlowMaker make(t);
  const std::size_t n = demand.size();
  Schedule out;
  for (std::size_t k = 1; k < n; ++k) {
    Step step;
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t d = (i + k) % n;
      if (demand.at(i, d) > 0) step.flows.push_back(make.direct(i, d, demand.at(i, d)));
    }
    if (!step.flows.empty()) out.steps.push_back(std::move(step));
  }
  return out;
}

}  // namespace vp::sim
