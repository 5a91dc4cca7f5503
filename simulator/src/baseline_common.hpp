// What the baselines share: the GPUs grouped by node, cached default routes
// and flow construction. Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "vp/sim/schedule.hpp"
#include "vp/topology/routes.hpp"

namespace vp::sim::detail {

// GPUs by node: gpu_of(node, local) is a global GPU index. Every node must
// hold the same number of GPUs: otherwise the constructor throws
// UnevenNodes(who + ": ...") (baselines.hpp).
class Servers {
 public:
  Servers(const Topology& t, const char* who);
  std::size_t count() const { return members_.size(); }
  std::size_t gpus_per_server() const { return members_.front().size(); }
  std::size_t server_of(std::size_t gpu) const { return server_[gpu]; }
  std::size_t local_of(std::size_t gpu) const { return local_[gpu]; }
  std::size_t gpu_of(std::size_t server, std::size_t local) const { return members_[server][local]; }

 private:
  std::vector<std::vector<std::size_t>> members_;  // per node, GPU indexes in local order
  std::vector<std::size_t> server_, local_;
};

// Flows between global GPU indexes on default routes (default_route()'s
// choice: the PCIe route inside a node, nearest NICs across nodes -- the
// nearest with GPUDirect RDMA when the node has one, as a communication
// library uses only RDMA devices for GPU buffers), each route computed once
// per GPU pair.
class FlowMaker {
 public:
  explicit FlowMaker(const Topology& t);
  // A hop src -> dst of the payload (origin -> final). Throws
  // NoNic (vp/sim/baselines.hpp) when src and dst are in different nodes and one
  // of them has no NIC.
  Flow hop(std::size_t src, std::size_t dst, std::size_t origin, std::size_t final, double bytes);
  // The payload's own single hop origin -> final.
  Flow direct(std::size_t origin, std::size_t final, double bytes) { return hop(origin, final, origin, final, bytes); }
  // The NIC a GPU (global index) sends through: its nearest with GPUDirect
  // RDMA, else its nearest; kNone when its node has none.
  ComponentId nic(std::size_t gpu) const { return nic_[gpu]; }
  // The default route src -> dst (global GPU indexes, src != dst), computed
  // once and kept for the FlowMaker's life; throws as hop() does.
  const Route& route(std::size_t src, std::size_t dst);

 private:
  const Topology& t_;
  std::vector<ComponentId> nic_;  // nearest NIC per GPU index
  std::unordered_map<std::uint64_t, Route> routes_;
};

}  // namespace vp::sim::detail
