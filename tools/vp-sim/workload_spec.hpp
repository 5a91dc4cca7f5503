// `vp-sim --workload SPEC` and `vp-plan --workload SPEC`: the evaluation
// suite's demand generators
// (vp/sim/workloads.hpp) by name, with their parameters.
//
//   SPEC = NAME [":" KEY "=" VALUE ("," KEY "=" VALUE)*]
//
//   uniform   bytes=1048576                    every GPU sends `bytes` to every other
//   p2pmark   bytes=67108864                   p2pmark's dense test: every GPU reads `bytes`
//                                              from every peer at once (= uniform, p2pmark's size)
//   shift     k=1,bytes=67108864               p2pmark's probe "+k": GPU i reads from (i+k) mod n,
//                                              i.e. (i+k) mod n sends to i
//   incast    reader=0,bytes=67108864          p2pmark's single reader: every other GPU sends to it
//   hotspot   bytes=1048576,hot=0,factor=10    uniform, GPU `hot` receives factor x
//                                              (bytes x factor at most 1e15, as bytes)
//   moe       zipf=1.0,hidden=2048,experts=128,topk=8,tokens=4096,elem=2,seed=1
//   seqpar    tokens=32768,hidden=4096,elem=2  sequence-parallel attention all-to-all
//   drift     calls=50,hidden=2048,experts=128,topk=8,tokens=4096,elem=2,seed=1
//             (the drifting MoE sequence: one demand per call)
//
// Generated entries are whole numbers of bytes (fractions, as seqpar gives
// for GPU counts that do not divide its size, are rounded down), as the
// planner wants them. Every problem is a vp::UsageError:
// "--workload moe: unknown key \"zipff\" (expected zipf, hidden, ...)".
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "vp/sim/demand.hpp"

namespace vp::sim_cli {

struct WorkloadSpec {
  std::string name;                     // uniform, p2pmark, shift, incast, hotspot, moe, seqpar, drift
  std::map<std::string, double> values; // every key of the workload, defaults filled in
  std::string text() const;             // canonical: "moe:elem=2,experts=128,hidden=2048,..."
};

WorkloadSpec parse_workload(const std::string& spec);

// The help text of the --workload option, one for vp-sim and vp-plan.
extern const char* const kWorkloadHelp;

// The demands of the workload for `gpus` GPUs (one, or `calls` for drift).
std::vector<sim::Demand> make_demands(const WorkloadSpec& w, std::size_t gpus);

}  // namespace vp::sim_cli
