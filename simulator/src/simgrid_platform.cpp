#include "vp/sim/simgrid_platform.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "baseline_common.hpp"
#include "vp/base/xml.hpp"
#include "vp/topology/routes.hpp"
#include "vp/base/errors.hpp"

namespace vp::sim {

namespace {

// Bytes per second of `gbps` (GB/s = 1e9 bytes/s), exact to print.
std::string bandwidth(double gbps) { return fmt::format("{}Bps", gbps * 1e9); }

std::string host_name(const Topology& t, ComponentId gpu) {
  const Component& c = t.components[gpu];
  return fmt::format("{}.gpu{}", t.nodes.at(static_cast<std::size_t>(c.node)).name, c.local_index);
}

// A resource of the platform: a directed link or a forwarder.
struct Resource {
  std::string id, path;
  double gbps = 0.0;
  EfficiencyCurve curve;       // off: linear sharing
  double solo_max_gbps = 0.0;  // the largest solo rate of a route through it
};

}  // namespace

std::string simgrid_platform_xml(const Topology& t, const SimgridPlatformOptions& options) {
  if (!std::isfinite(options.latency_us) || options.latency_us < 0)
    throw UsageError(fmt::format("simgrid platform: latency_us must be finite and >= 0, got {}", options.latency_us));
  if (t.gpus.size() < 2) throw UsageError("simgrid platform: the machine has fewer than two GPUs");
  const ContentionModel* model = options.model && options.model->enabled ? options.model : nullptr;
  const std::size_t n = t.gpus.size();

  std::vector<Resource> res(t.links.size() + t.components.size());
  for (const Link& l : t.links) {
    Resource& r = res[l.id];
    r.id = fmt::format("l{}", l.id);
    r.path = fmt::format("{} -> {}", t.display_name(l.src), t.display_name(l.dst));
    r.gbps = l.capacity.gbps;
    if (model) r.curve = link_curve(t, *model, l.id);
  }
  for (const Component& c : t.components) {
    if (!c.forward) continue;
    Resource& r = res[t.links.size() + c.id];
    r.id = fmt::format("f{}", c.id);
    r.path = fmt::format("forwarder {}", t.display_name(c.id));
    r.gbps = c.forward->gbps;
    if (model) r.curve = forwarder_curve(t, *model, c.id);
  }
  // The routes, and through them the solo rates each resource sees.
  // The baselines' routes (baseline_common.hpp FlowMaker: the PCIe tree,
  // the nearest NIC with GPUDirect RDMA on each side), which are the
  // default routes wherever every NIC has GPUDirect RDMA.
  detail::FlowMaker maker(t);
  std::vector<Route> routes(n * n);
  std::vector<bool> used(res.size(), false);
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d) continue;
      Route& route = routes[s * n + d] = maker.route(s, d);
      auto see = [&](std::size_t k) {
        used[k] = true;
        if (route.solo_gbps > res[k].solo_max_gbps) res[k].solo_max_gbps = route.solo_gbps;
      };
      for (LinkId l : route.links) see(l);
      for (ComponentId c : route.forwarders) see(t.links.size() + c);
    }

  std::string x;
  x += "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";
  x += "<!-- Written by vp-sim --simgrid-platform (docs/smpi.md): one host per GPU, one link per directed link and\n"
       "     per forwarder of the topology, each GPU pair's default route. -->\n";
  x += "<platform version=\"4.1\">\n";
  x += fmt::format("  <zone id=\"variopath\" routing=\"Full\">\n");
  x += fmt::format("    <prop id=\"vp_model\" value=\"{}\"/>\n", model ? "calibrated" : "ideal");
  for (std::size_t g = 0; g < n; ++g) {
    x += fmt::format("    <host id=\"{}\" speed=\"1Gf\">\n      <prop id=\"vp_gpu\" value=\"{}\"/>\n    </host>\n",
                     escape_xml(host_name(t, t.gpus[g])), g);
  }
  for (std::size_t g = 0; g < n; ++g)
    x += fmt::format("    <link id=\"lat{}\" bandwidth=\"1e15Bps\" latency=\"{}us\" sharing_policy=\"FATPIPE\"/>\n", g,
                     options.latency_us);
  for (std::size_t k = 0; k < res.size(); ++k) {
    const Resource& r = res[k];
    if (!used[k]) continue;
    // As the simulator's degraded_capacity: the curve when it is on, the
    // chunk factor on every resource when chunks are on.
    const double slope = r.curve.on ? r.curve.slope : 0.0, floor = r.curve.on ? r.curve.floor : 1.0;
    const double chunk = model ? chunk_factor(*model, r.gbps * 1e3) : 1.0;
    const bool lossy = model && (slope > 0 || floor < 1 || chunk < 1);
    x += fmt::format("    <link id=\"{}\" bandwidth=\"{}\" latency=\"0us\" sharing_policy=\"SHARED\">\n", r.id, bandwidth(r.gbps));
    x += fmt::format("      <prop id=\"vp_path\" value=\"{}\"/>\n", escape_xml(r.path));
    if (lossy) {
      x += fmt::format("      <prop id=\"vp_slope\" value=\"{}\"/>\n", slope);
      x += fmt::format("      <prop id=\"vp_floor\" value=\"{}\"/>\n", floor);
      x += fmt::format("      <prop id=\"vp_chunk_factor\" value=\"{}\"/>\n", chunk);
      x += fmt::format("      <prop id=\"vp_solo_max_Bps\" value=\"{}\"/>\n", r.solo_max_gbps * 1e9);
    }
    x += "    </link>\n";
  }
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d) continue;
      const Route& route = routes[s * n + d];
      x += fmt::format("    <route src=\"{}\" dst=\"{}\" symmetrical=\"NO\"><link_ctn id=\"lat{}\"/>",
                       escape_xml(host_name(t, t.gpus[s])), escape_xml(host_name(t, t.gpus[d])), s);
      for (LinkId l : route.links) x += fmt::format("<link_ctn id=\"{}\"/>", res[l].id);
      for (ComponentId c : route.forwarders) x += fmt::format("<link_ctn id=\"{}\"/>", res[t.links.size() + c].id);
      x += "</route>\n";
    }
  x += "  </zone>\n</platform>\n";
  return x;
}

}  // namespace vp::sim
