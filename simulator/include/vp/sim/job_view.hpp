// A job that holds some GPUs of a cluster (docs/subsets.md "Simulating a
// subset"): the cluster as the job's communicator sees it, for the
// baselines, which schedule ranks 0..n-1 of their communicator, and the
// maps that carry their schedules back onto the cluster, where the judge
// checks, bounds and simulates them with the rest of the cluster idle.
#pragma once

#include <cstddef>
#include <vector>

#include "vp/sim/demand.hpp"
#include "vp/sim/schedule.hpp"
#include "vp/topology/topology.hpp"

namespace vp::sim {

struct JobView {
  // The job's nodes in rank order, each with its held GPUs only (numbered
  // in rank order: GPU index r is rank r) and all its other components;
  // every fabric switch; every link between what is kept, at its capacity.
  // A GPU is a leaf of its node's PCIe tree, so no route between held GPUs
  // changes.
  Topology topology;
  std::vector<ComponentId> cluster_component;  // per component of `topology`: the cluster's id
  std::vector<LinkId> cluster_link;            // per link of `topology`: the cluster's id
  std::vector<std::size_t> cluster_gpu;        // per rank: the cluster's GPU index
};

// The view of the job on `gpus` (cluster GPU indexes in rank order; a
// node's GPUs together). Throws std::invalid_argument for an empty list, an
// index outside the cluster, a repeated GPU or a node listed twice.
JobView job_view(const Topology& cluster, const std::vector<std::size_t>& gpus);

// The job's demand (ranks) as a demand over the cluster's GPUs.
Demand cluster_demand(const JobView& job, const Demand& demand, std::size_t cluster_gpus);

// A schedule on job.topology in the cluster's component and link ids.
Schedule cluster_schedule(const JobView& job, const Schedule& schedule);

}  // namespace vp::sim
