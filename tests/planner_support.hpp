// Shared by the planner's tests and its benchmark: platforms built in process
// by the analyzer (catalog bytes + the cluster Topology vp::load_input builds
// for the same input), demand generators, and the independent checker of a
// plan: delivery per (origin, final), every channel step contention-free at
// solo rates by vp::check_contention (solo rates and forwarders recomputed
// from the Topology), every route against vp::intra_node_route /
// vp::network_route.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "vp/analysis/request.hpp"
#include "vp/topology/routes.hpp"
#include "vp/topology/topology.hpp"
#include "vpcat/catalog_view.hpp"
#include "vpcat/planner.hpp"

namespace vp::plantest {

struct Platform {
  std::string name;
  Topology topology;                // the whole cluster, as vp::load_input builds it
  std::vector<std::uint8_t> bytes;  // the .vpcat
  vpcat::CatalogView view;
  vpcat::Planner planner;
  std::uint32_t gpus = 0;
};

// Analyse `request` (in process, as vp-analyze does) and open the catalog.
std::unique_ptr<Platform> build_platform(const std::string& name, const AnalysisRequest& request);

// Cached platforms of the suite, by name:
//   "1n"                one pcie-gen4-2s4sw8g node (no fabric)
//   "4n-switch"         fixtures/platforms/...-4n-switch.cluster.json (32 GPUs)
//   "16n-rail"          ...-16n-rail.cluster.json (128 GPUs)
//   "32n-leafspine"     ...-32n-leafspine2to1.cluster.json (256 GPUs)
//   "3n-rail-tight"     3 nodes on rails, oversubscription 8 (the spine binds)
//   "5n-leafspine-tight" 5 nodes, leaves of 2, oversubscription 4
//   "mixed-4n"          2 pcie-gen4 nodes + 2 MI300X nodes (hwloc fixture), leaf_spine of 3
//   "g6-3n"             3 AWS g6.48xlarge nodes (one NIC for 8 GPUs), single switch
//   "2n-half-gpudirect" 2 pcie-gen4 nodes whose NICs 2 and 3 lack GPUDirect RDMA
//   "2n-no-gpudirect"   2 pcie-gen4 nodes whose NICs all lack GPUDirect RDMA
const Platform& platform(const std::string& name);

// One node type of a platform as the analyzer sees it: the node alone (no
// fabric) with its network ports (vp::with_network_ports), and the fabric
// port rate of each local NIC (0: it carries no GPU traffic).
struct PortedNodeType {
  Topology ported;
  std::vector<double> ports;
};
PortedNodeType ported_node_type(const Platform& p, std::uint32_t type);

// How many seeds a property test runs: `full` normally; a quarter of it (at
// least one) when VP_PROPERTY_RUN=small, as scripts/test.sh sets it for the
// sanitizer phase, where every case runs several times slower and the full
// run lives in the unit phase already. small_property_run() says which.
bool small_property_run();
std::uint64_t property_seeds(std::uint64_t full);

// Dense row-major demands (row = source), diagonal 0.
using Matrix = std::vector<std::uint64_t>;
Matrix uniform(std::uint32_t n, std::uint64_t bytes);
Matrix random_dense(std::uint32_t n, std::uint64_t max_bytes, double zero_share, std::uint64_t seed);
Matrix zipf_moe(std::uint32_t n, double exponent, std::uint64_t seed, std::size_t tokens = 512);
Matrix hot_spot(std::uint32_t n, std::uint64_t bytes, std::uint32_t hot, double factor);
// One hot sender and one hot node pair over a light random background.
Matrix skewed_nodes(std::uint32_t n, std::uint32_t gpus_per_node, std::uint64_t seed);

// Route of a transfer as the planner expands it (links and forwarders from
// the planner, solo rate from the transfer).
Route to_route(const Platform& p, const vpcat::PlanTransfer& t);
// The route along `links` as the Topology gives it: the forwarders it
// transits and its solo rate (its slowest link or forwarder); an empty
// Route when a link id is outside the Topology.
Route solo_route(const Topology& topo, const std::vector<LinkId>& links);
// The analyzer's own route for the same endpoints and NICs.
Route analyzer_route(const Platform& p, const vpcat::PlanTransfer& t);
// A NIC loopback (PlanOptions::nic_loopback): a transfer between two GPUs of
// one node through NICs; and how many a plan holds.
bool is_loopback(const vpcat::Planner& planner, const vpcat::PlanTransfer& t);
std::size_t loopbacks(const vpcat::Planner& planner, const vpcat::Plan& plan);

// PlanOptions with channels_only: the plans of channel steps only that the
// planner made by default before it weighed other candidates.
inline vpcat::PlanOptions channels_only() {
  vpcat::PlanOptions o;
  o.channels_only = true;
  return o;
}

struct CheckOptions {
  // The plan may hold sharing steps (PlanStep::shared): a default plan, or
  // channels_only with allow_shared (then only its last step may share:
  // shared_last_only).
  bool allow_shared = false;
  bool shared_last_only = false;
  bool compare_routes = true;  // against the analyzer's (cached per endpoints and NICs)
  std::uint64_t max_route_checks = 100000;
};

// "" when the plan is a correct plan of `demand`; otherwise the first
// problem found, in words.
std::string check_plan(const Platform& p, const Matrix& demand, const vpcat::Plan& plan,
                       const CheckOptions& opts = {});

// The same on a plan given as its steps' transfers (tests alter plans to
// see the checker catch every kind of fault).
struct StepCopy {
  std::vector<vpcat::PlanTransfer> transfers;
  double expected_us = 0;
  std::uint32_t ports = 1;  // the step's claim: most transfers per GPU and direction
  bool shared = false;      // the shared step
};
std::vector<StepCopy> copy_steps(const vpcat::Plan& plan);

// "" when two plans are the same transfer for transfer (steps, their
// transfers with ends, NICs, origins and finals, and the expected time);
// otherwise the first difference, in words.
std::string plan_difference(const vpcat::Plan& a, const vpcat::Plan& b);
std::string check_steps(const Platform& p, const Matrix& demand, const std::vector<StepCopy>& steps,
                        const CheckOptions& opts = {});

}  // namespace vp::plantest
