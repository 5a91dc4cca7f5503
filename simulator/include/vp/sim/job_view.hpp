// A job that holds some GPUs of a cluster (docs/subsets.md "Simulating a
// subset"): the cluster as the job's communicator sees it. The baselines
// schedule ranks 0..n-1 of their communicator on it; VarioPath's plan, in
// the cluster's ids, is carried onto it; the judge checks, bounds and
// simulates every schedule there, with the rest of the cluster idle.
#pragma once

#include <cstddef>
#include <vector>

#include "vp/sim/schedule.hpp"
#include "vp/topology/topology.hpp"
#include "vpcat/subset.hpp"

namespace vp::sim {

struct JobView {
  // The job's nodes in rank order, each with its held GPUs only (numbered
  // in rank order: GPU index r is rank r) and all its other components;
  // every fabric switch; every link between what is kept, at its capacity.
  // A GPU is a leaf of its node's PCIe tree, so no route between held GPUs
  // changes, and with the rest of the cluster idle a schedule of the job
  // takes the same time here as on the cluster.
  Topology topology;
  std::vector<std::size_t> cluster_gpu;        // per rank: the cluster's GPU index
  std::vector<ComponentId> view_component;     // per cluster component: its id here, or kNone
  std::vector<LinkId> view_link;               // per cluster link: its id here, or kNone
};

// The view of the job on `gpus` (cluster GPU indexes in rank order; a
// node's GPUs together). Throws vp::UsageError for an empty list, an
// index outside the cluster, a repeated GPU or a node listed twice.
// O(cluster components + links).
JobView job_view(const Topology& cluster, const std::vector<std::size_t>& gpus);
// The same for a planner's subset of the catalog the cluster was rebuilt
// from (ranks in subset order).
JobView job_view(const Topology& cluster, const vpcat::Subset& subset);

// A schedule in the cluster's component and link ids (VarioPath's, from a
// subset planner) in the view's. Throws std::invalid_argument when it uses
// a GPU, a component or a link the view does not hold.
Schedule view_schedule(const JobView& job, const Schedule& on_cluster);

}  // namespace vp::sim
