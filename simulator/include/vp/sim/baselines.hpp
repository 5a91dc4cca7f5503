// The baselines VarioPath is judged against (DESIGN.md §7), each built as
// its authors would run it on our topology model. Every schedule delivers
// each off-diagonal byte of the demand exactly once to its final
// destination; relays are explicit flows in later steps. Each baseline is
// in its own source file, whose header comment cites what it follows.
//
// All take the topology and a demand that fits it (InputError("demand", ...)
// otherwise). FAST-like and DeepEP-like need a cluster whose nodes all have
// the same number of GPUs (std::invalid_argument otherwise); on a demand
// that stays inside nodes both are one step of direct intra-node transfers.
#pragma once

#include "vp/sim/demand.hpp"
#include "vp/sim/schedule.hpp"
#include "vp/topology/topology.hpp"

namespace vp::sim {

// Fan-out: every transfer at once on its default route, one step, as NCCL
// and MPI issue an AlltoAllv.
Schedule fanout_schedule(const Topology& t, const Demand& demand);

// SpreadOut: n-1 steps; step k (1..n-1) sends i -> (i+k) mod n for every
// GPU i on default routes. Steps without bytes are left out.
Schedule spreadout_schedule(const Topology& t, const Demand& demand);

// FAST-like: server-level Birkhoff-von Neumann scheduling with intra-server
// balancing and forwarding over the real PCIe links (src/fast.cpp).
Schedule fast_schedule(const Topology& t, const Demand& demand);

struct DeepEpOptions {
  int chunks = 8;  // pipeline depth: each payload split in this many equal chunks, >= 1
};

// DeepEP-like: inter-node bytes go to the GPU of the same local index on the
// target node (default routes), which forwards them over PCIe; pipelined in
// chunks (src/deepep.cpp).
Schedule deepep_schedule(const Topology& t, const Demand& demand, const DeepEpOptions& opts = {});

}  // namespace vp::sim
