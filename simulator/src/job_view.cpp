#include "vp/sim/job_view.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include "vp/base/errors.hpp"

namespace vp::sim {

JobView job_view(const Topology& cluster, const std::vector<std::size_t>& gpus) {
  if (gpus.empty()) throw UsageError("job_view: no GPU");
  const std::size_t nodes = cluster.nodes.size();
  std::vector<std::int32_t> node_of(nodes, -1);      // cluster node -> job node
  std::vector<std::int32_t> rank_in_node(cluster.components.size(), -1);
  std::vector<NodeInfo> job_nodes;
  std::int32_t last = -1;
  for (std::size_t r = 0; r < gpus.size(); ++r) {
    if (gpus[r] >= cluster.gpus.size())
      throw UsageError(fmt::format("job_view: GPU {} is not in the cluster ({} GPUs)", gpus[r],
                                              cluster.gpus.size()));
    const Component& g = cluster.components[cluster.gpus[gpus[r]]];
    if (rank_in_node[g.id] >= 0) throw UsageError(fmt::format("job_view: GPU {} is listed twice", gpus[r]));
    const auto n = static_cast<std::size_t>(g.node);
    if (node_of[n] < 0) {
      node_of[n] = static_cast<std::int32_t>(job_nodes.size());
      job_nodes.push_back(cluster.nodes[n]);
    } else if (node_of[n] != last) {
      throw UsageError(
          fmt::format("job_view: node {} is listed twice (give its GPUs together)", cluster.nodes[n].name));
    }
    last = node_of[n];
    rank_in_node[g.id] = 0;
  }
  // Local indexes of the held GPUs: their order in the job.
  std::vector<std::int32_t> next(job_nodes.size(), 0);
  for (std::size_t r = 0; r < gpus.size(); ++r) {
    const Component& g = cluster.components[cluster.gpus[gpus[r]]];
    rank_in_node[g.id] = next[static_cast<std::size_t>(node_of[static_cast<std::size_t>(g.node)])]++;
  }

  JobView v;
  Topology& t = v.topology;
  t.fabric = cluster.fabric;
  t.defaults = cluster.defaults;
  t.warnings = cluster.warnings;
  t.nodes = job_nodes;
  std::vector<ComponentId> new_id(cluster.components.size(), kNone);
  auto kept = [&](const Component& c) {
    if (c.node < 0) return true;  // a fabric switch
    if (node_of[static_cast<std::size_t>(c.node)] < 0) return false;
    return c.kind != ComponentKind::gpu || rank_in_node[c.id] >= 0;
  };
  // Job nodes in rank order, then the fabric: components keep their
  // relative order within a node.
  auto add = [&](const Component& c) {
    Component copy = c;
    copy.id = static_cast<ComponentId>(t.components.size());
    if (c.node >= 0) copy.node = node_of[static_cast<std::size_t>(c.node)];
    if (c.kind == ComponentKind::gpu) copy.local_index = rank_in_node[c.id];
    new_id[c.id] = copy.id;
    t.components.push_back(std::move(copy));
  };
  std::vector<std::vector<ComponentId>> by_job_node(job_nodes.size());
  for (const Component& c : cluster.components)
    if (c.node >= 0 && kept(c)) by_job_node[static_cast<std::size_t>(node_of[static_cast<std::size_t>(c.node)])].push_back(c.id);
  for (const std::vector<ComponentId>& ids : by_job_node)
    for (ComponentId id : ids) add(cluster.components[id]);
  for (const Component& c : cluster.components)
    if (c.node < 0) add(c);
  for (Component& c : t.components)
    if (c.parent != kNone) c.parent = new_id[c.parent];
  std::vector<LinkId> new_link(cluster.links.size(), kNone);
  for (const Link& l : cluster.links) {
    if (new_id[l.src] == kNone || new_id[l.dst] == kNone) continue;
    new_link[l.id] = static_cast<LinkId>(t.links.size());
    Link copy = l;
    copy.id = new_link[l.id], copy.src = new_id[l.src], copy.dst = new_id[l.dst];
    t.links.push_back(std::move(copy));
  }
  for (Link& l : t.links) l.reverse = new_link[l.reverse];
  finalize(t, "the job's view of the cluster");
  for (std::size_t r = 0; r < gpus.size(); ++r) {
    if (new_id[cluster.gpus[gpus[r]]] != t.gpus[r])
      throw InternalError(fmt::format("job_view: rank {} is not GPU {}", r, gpus[r]));
  }
  v.cluster_gpu = gpus;
  v.view_component = std::move(new_id);
  v.view_link = std::move(new_link);
  return v;
}

JobView job_view(const Topology& cluster, const vpcat::Subset& subset) {
  std::vector<std::size_t> gpus;
  for (std::uint32_t r = 0; r < subset.gpu_count(); ++r) gpus.push_back(subset.catalog_gpu(r));
  return job_view(cluster, gpus);
}

Schedule view_schedule(const JobView& job, const Schedule& on_cluster) {
  auto component = [&](ComponentId c) {
    const ComponentId v = c < job.view_component.size() ? job.view_component[c] : kNone;
    if (v == kNone) throw InternalError(fmt::format("view_schedule: component {} is not in the job's view", c));
    return v;
  };
  Schedule out = on_cluster;
  for (Step& step : out.steps) {
    for (Flow& f : step.flows) {
      f.src = component(f.src), f.dst = component(f.dst), f.origin = component(f.origin), f.final = component(f.final);
      for (ComponentId& c : f.route.forwarders) c = component(c);
      for (LinkId& l : f.route.links) {
        const LinkId v = l < job.view_link.size() ? job.view_link[l] : kNone;
        if (v == kNone) throw InternalError(fmt::format("view_schedule: link {} is not in the job's view", l));
        l = v;
      }
    }
  }
  return out;
}

}  // namespace vp::sim
