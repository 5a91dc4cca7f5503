#include "vp/sim/route_bound.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "baseline_common.hpp"
#include "vp/base/errors.hpp"

namespace vp::sim {

LowerBound direct_route_bound(const Topology& t, const Demand& demand, const BoundOptions& opts) {
  demand.check_fits(t, "demand");
  if (!std::isfinite(opts.latency_us) || opts.latency_us < 0)
    throw UsageError(
        fmt::format("direct_route_bound: latency_us must be finite and >= 0, got {}", opts.latency_us));
  // The routes fan-out, NCCL and SpreadOut send on (one rule: FlowMaker's).
  detail::FlowMaker make(t);
  std::vector<double> link_bytes(t.links.size(), 0.0), forward_bytes(t.components.size(), 0.0);
  // Per route, a forwarder is charged once (as StepBuilder::build in
  // simulate.cpp does): stamp[c] is the last pair that charged c.
  std::vector<std::size_t> stamp(t.components.size(), 0);
  std::size_t pair = 0;
  for (std::size_t s = 0; s < demand.size(); ++s) {
    for (std::size_t d = 0; d < demand.size(); ++d) {
      const double bytes = demand.at(s, d);
      if (s == d || bytes <= 0) continue;
      const Route& r = make.route(s, d);
      ++pair;
      auto charge = [&](ComponentId c) {
        if (stamp[c] == pair) return;
        stamp[c] = pair;
        forward_bytes[c] += bytes;
      };
      for (LinkId l : r.links) link_bytes[l] += bytes;
      // A route lists every component with a forwarding capacity it
      // transits (routes.cpp), which is what the simulator charges.
      for (ComponentId c : r.forwarders) charge(c);
    }
  }
  Cut best;
  auto consider = [&](double bytes, double gbps, auto name) {
    if (bytes <= 0) return;
    const double time = gbps > 0 ? bytes / (gbps * 1e3) : std::numeric_limits<double>::infinity();
    if (best.name.empty() || time > best.time_us) best = Cut{name(), bytes, gbps, time};
  };
  for (LinkId l = 0; l < t.links.size(); ++l) {
    const Link& link = t.links[l];
    consider(link_bytes[l], link.capacity.gbps,
             [&] { return t.display_name(link.src) + " -> " + t.display_name(link.dst) + " link"; });
  }
  for (ComponentId c = 0; c < t.components.size(); ++c)
    if (t.components[c].forward)
      consider(forward_bytes[c], t.components[c].forward->gbps, [&] { return t.display_name(c) + " forwarding"; });
  LowerBound b;
  b.cut = best;
  if (!best.name.empty()) b.time_us = best.time_us + opts.latency_us;
  return b;
}

}  // namespace vp::sim
