#include "vp/analysis/contention.hpp"

#include <fmt/format.h>

#include <vector>

namespace vp {

namespace {
bool over(double load, double cap, double tol) { return load > cap * (1.0 + tol); }
}  // namespace

ContentionReport check_contention(const Topology& t, std::span<const Transfer> transfers,
                                  const ContentionOptions& opts) {
  std::vector<double> link_load(t.links.size(), 0.0), fwd_load(t.components.size(), 0.0);
  std::vector<int> sends(t.components.size(), 0), receives(t.components.size(), 0);
  for (const Transfer& x : transfers) {
    for (LinkId l : x.route.links) link_load[l] += x.route.solo_gbps;
    for (ComponentId f : x.route.forwarders) fwd_load[f] += x.route.solo_gbps;
    ++sends[x.src];
    ++receives[x.dst];
  }
  ContentionReport r;
  for (const Link& l : t.links) {
    if (!over(link_load[l.id], l.capacity.gbps, opts.tolerance)) continue;
    r = {ContentionReport::Kind::link, l.id, link_load[l.id], l.capacity.gbps,
         fmt::format("link {} -> {} carries {:g} GB/s over its {:g} GB/s", t.display_name(l.src),
                     t.display_name(l.dst), link_load[l.id], l.capacity.gbps)};
    return r;
  }
  for (const Component& c : t.components) {
    if (!c.forward || !over(fwd_load[c.id], c.forward->gbps, opts.tolerance)) continue;
    r = {ContentionReport::Kind::forwarder, c.id, fwd_load[c.id], c.forward->gbps,
         fmt::format("{} forwards {:g} GB/s over its {:g} GB/s", t.display_name(c.id), fwd_load[c.id],
                     c.forward->gbps)};
    return r;
  }
  for (ComponentId g : t.gpus) {
    if (sends[g] > opts.ports_per_gpu)
      return {ContentionReport::Kind::send_ports, g, double(sends[g]), double(opts.ports_per_gpu),
              fmt::format("{} sends {} transfers over its {} port(s)", t.display_name(g), sends[g],
                          opts.ports_per_gpu)};
    if (receives[g] > opts.ports_per_gpu)
      return {ContentionReport::Kind::receive_ports, g, double(receives[g]), double(opts.ports_per_gpu),
              fmt::format("{} receives {} transfers over its {} port(s)", t.display_name(g), receives[g],
                          opts.ports_per_gpu)};
  }
  return r;
}

}  // namespace vp
