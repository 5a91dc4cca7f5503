// The baselines VarioPath is judged against (docs/design.md §7), each built as
// its authors would run it on our topology model. Every schedule delivers
// each off-diagonal byte of the demand exactly once to its final
// destination; relays are explicit flows in later steps. Each baseline is
// in its own source file, whose header comment cites what it follows.
//
// All take the topology and a demand that fits it (InputError("demand", ...)
// otherwise). FAST-like and DeepEP-like need a cluster whose nodes all have
// the same number of GPUs (UnevenNodes otherwise); DeepEP's PCIe mode a NIC
// for every GPU that sends or receives inside its node (NoNic otherwise):
// both are Inapplicable, a machine the baseline does not run on. On a demand
// that stays inside nodes DeepEP NVLink-style is one step of direct
// intra-node transfers and FAST-like g-1 shifted permutations. Where a
// baseline runs but its authors' code would not (DeepEP), a *_hypothetical()
// function says why. NCCL on nodes of different sizes uses its flat
// schedule, as NCCL does.
#pragma once

#include <string>

#include <stdexcept>
#include <utility>
#include <vector>

#include "vp/base/errors.hpp"
#include "vp/sim/demand.hpp"
#include "vp/sim/schedule.hpp"
#include "vp/topology/routes.hpp"
#include "vp/topology/topology.hpp"

namespace vp::sim {

// A baseline on a machine (or a job's view of one) it does not run on: the
// comparison leaves it out and says why, never an internal error; asked for
// alone, it is a usage error (exit 1).
class Inapplicable : public UsageError {
 public:
  using UsageError::UsageError;
};

// A baseline that needs every node to hold the same number of GPUs, on a
// machine whose nodes do not.
class UnevenNodes : public Inapplicable {
 public:
  using Inapplicable::Inapplicable;
};

// DeepEP's PCIe mode on a GPU with traffic inside its node and no NIC to
// send it through (a machine without NICs).
class NoNic : public Inapplicable {
 public:
  using Inapplicable::Inapplicable;
};

// Fan-out: every transfer at once on its default route, one step, as Open
// MPI's basic linear AlltoAllv posts it (src/fanout.cpp).
Schedule fanout_schedule(const Topology& t, const Demand& demand);

struct NcclOptions {
  // Rounds of NCCL's p2p schedule in flight at once, >= 1: 8 operations per
  // work batch x p2p channels / channels per peer (src/nccl.cpp).
  int peers_in_flight = 8;
};

// NCCL: grouped send/recv in NCCL's round order, peers_in_flight rounds at a
// time, each wave a step on default routes (src/nccl.cpp).
Schedule nccl_schedule(const Topology& t, const Demand& demand, const NcclOptions& opts = {});

// How NCCL connects two GPUs (src/nccl.cpp): CUDA P2P where
// ncclTopoCheckP2p allows it, else its SHM transport through host memory;
// the network between nodes.
enum class NcclTransport { p2p, shm, net };
NcclTransport nccl_transport(const Topology& t, ComponentId gpu_a, ComponentId gpu_b);

// NCCL's SHM path src_gpu -> dst_gpu (one node): up the PCIe tree to the
// socket, across the inter-socket link(s) to the receiver's socket when
// they differ (the buffer is in the receiver's host memory), and down to
// dst_gpu (src/nccl.cpp says what is charged and what is not).
Route nccl_host_memory_route(const Topology& t, ComponentId src_gpu, ComponentId dst_gpu);

// NCCL's round order for `nodes` nodes of `locals` GPUs each: (node delta,
// local delta) per round, round 0 = (0, 0), nodes x locals rounds.
std::vector<std::pair<std::size_t, std::size_t>> nccl_round_deltas(std::size_t nodes, std::size_t locals);

// SpreadOut: n-1 steps; step k (1..n-1) sends i -> (i+k) mod n for every
// GPU i on default routes. Steps without bytes are left out.
Schedule spreadout_schedule(const Topology& t, const Demand& demand);

struct FastOptions {
  // FAST's alpha-beta test (check_balance_dispatch): skip the balancing of a
  // server pair when its bandwidth cost is under twice its start-up cost.
  bool skip_cheap_balancing = true;
  double alpha_us = 5.0;    // FAST's alpha: the simulator's start-up latency
  double intra_gbps = 0.0;  // FAST's 1/beta inside a server; 0: the GPUs' PCIe link
};

// FAST-like: server-level Birkhoff-von Neumann scheduling with intra-server
// balancing and forwarding over the real PCIe links, every intra-server
// transfer set as g-1 shifted permutations (src/fast.cpp).
Schedule fast_schedule(const Topology& t, const Demand& demand, const FastOptions& opts = {});

struct DeepEpOptions {
  int chunks = 8;  // pipeline depth: each payload split in this many equal chunks, >= 1
};

// DeepEP's normal (NVLink) mode transposed to PCIe: inter-node bytes go to
// the GPU of the same local index on the target node (default routes),
// which forwards them over PCIe; pipelined in chunks
// (src/deepep_nvlink_style.cpp). Not what DeepEP runs without NVLink.
Schedule deepep_nvlink_style_schedule(const Topology& t, const Demand& demand, const DeepEpOptions& opts = {});

// DeepEP's PCIe mode: every payload, intra-node ones included, through the
// sender's and the receiver's RDMA NICs, all at once (src/deepep_pcie.cpp).
// Without a fabric the sender's NIC loops intra-node payloads back. Throws
// NoNic when a GPU with traffic inside its node has no NIC.
Schedule deepep_pcie_schedule(const Topology& t, const Demand& demand);

// Why DeepEP's PCIe mode would not run on `t` as its authors run it, or ""
// when nothing known stops it (src/deepep_pcie.cpp): more than 32 ranks
// (docs/README_PCIe.md), a GPU whose RDMA NIC is known not to be an NVIDIA
// (Mellanox) ConnectX/BlueField device, which IBGDA needs (EFA: DeepEP
// issue 369), or GPUs sharing a NIC (stated and measured with one NIC per
// GPU). The schedule is still computed; a report shows it as hypothetical.
std::string deepep_pcie_hypothetical(const Topology& t);

// Why DeepEP NVLink-style is hypothetical on every machine here: DeepEP
// runs that mode only over NVLink.
std::string deepep_nvlink_style_hypothetical();

}  // namespace vp::sim
