// What the bound tests (sim_bound_test.cpp, sim_flow_bound_test.cpp) share:
// the fixture platforms, the suite's demands on them, the committed
// contention table's options, bound options without latency.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "vp/sim/demand.hpp"
#include "vp/sim/lower_bound.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/topology/topology.hpp"

namespace vp::sim::test {

// The fixture platforms (fixtures/platforms/): each node type alone, each
// 4-node cluster file, and the suite's server on small rail and leaf/spine
// fabrics (the 16- and 32-node files have the same shapes, too big to
// simulate here under ASan). Built once.
const std::map<std::string, Topology>& fixture_platforms();

// uniform (1 MB per pair), hotspot (a third of the GPUs hot) and MoE
// dispatch (Zipf 1.2, 256 tokens per GPU) demands on n GPUs.
std::vector<std::pair<std::string, Demand>> suite_demands(std::size_t n);

// f(platform, topology, workload, demand) for every fixture platform and
// every suite demand on it, inside a test case, the two names captured.
void for_each_suite_case(
    const std::function<void(const std::string&, const Topology&, const std::string&, const Demand&)>& f);

// Simulator options under the committed contention table
// (simulator/contention.json), checked to be enabled.
SimOptions committed_contention();

// Bound options without the start-up latency.
BoundOptions no_latency();

}  // namespace vp::sim::test
