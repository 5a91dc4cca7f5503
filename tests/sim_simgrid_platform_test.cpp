// The SimGrid platform of a machine (vp/sim/simgrid_platform.hpp): its
// hosts, links and routes are the topology's, in GPU order, and the
// calibrated one marks exactly the resources the contention model degrades.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "baseline_common.hpp"
#include "sim_platforms.hpp"
#include "vp/sim/simgrid_platform.hpp"
#include "vp/topology/routes.hpp"
#include "vp/base/errors.hpp"

using namespace vp;
using namespace vp::sim;

namespace {

// A link element of the XML: its bandwidth (bytes/s) and properties.
struct XmlLink {
  double bps = 0.0;
  std::map<std::string, std::string> props;
};

struct Parsed {
  std::vector<std::string> hosts;
  std::map<std::string, XmlLink> links;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> routes;  // (src, dst) -> link ids
};

Parsed parse(const std::string& xml) {
  Parsed p;
  std::istringstream in(xml);
  std::string line, open_link;
  const std::regex host(R"re(^ *<host id="([^"]+)")re");
  const std::regex link(R"re(^ *<link id="([^"]+)" bandwidth="([^"]+)Bps")re");
  const std::regex prop(R"re(^ *<prop id="([^"]+)" value="([^"]*)"/>)re");
  const std::regex route(R"re(^ *<route src="([^"]+)" dst="([^"]+)" symmetrical="NO">(.*)</route>)re");
  const std::regex ctn(R"re(<link_ctn id="([^"]+)"/>)re");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, host)) {
      p.hosts.push_back(m[1]);
    } else if (std::regex_search(line, m, link)) {
      open_link = m[1];
      p.links[open_link].bps = std::stod(m[2]);
      if (line.find("/>") != std::string::npos) open_link.clear();
    } else if (std::regex_search(line, m, prop) && !open_link.empty()) {
      p.links[open_link].props[m[1]] = m[2];
    } else if (line.find("</link>") != std::string::npos) {
      open_link.clear();
    } else if (std::regex_search(line, m, route)) {
      std::vector<std::string>& ids = p.routes[{m[1], m[2]}];
      const std::string body = m[3];
      for (auto it = std::sregex_iterator(body.begin(), body.end(), ctn); it != std::sregex_iterator(); ++it)
        ids.push_back((*it)[1]);
    }
  }
  return p;
}

}  // namespace

TEST_CASE("simgrid platform: one host per GPU, the default routes, the capacities") {
  const Topology& t = test::fixture_platforms().at("pcie-gen4-2s4sw8g-4n-switch");
  const std::size_t n = t.gpus.size();
  const Parsed p = parse(simgrid_platform_xml(t, SimgridPlatformOptions{7.5, nullptr}));
  REQUIRE(p.hosts.size() == n);
  CHECK(p.hosts[0] == t.nodes[0].name + ".gpu0");
  CHECK(p.hosts[n - 1] == t.nodes.back().name + ".gpu7");
  CHECK(p.routes.size() == n * (n - 1));
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d) continue;
      const Route r = default_route(t, t.gpus[s], t.gpus[d]);  // every NIC of the fixture has GPUDirect RDMA
      std::vector<std::string> want{"lat" + std::to_string(s)};
      for (LinkId l : r.links) want.push_back("l" + std::to_string(l));
      for (ComponentId c : r.forwarders) want.push_back("f" + std::to_string(c));
      INFO("route ", s, " -> ", d);
      CHECK(p.routes.at({p.hosts[s], p.hosts[d]}) == want);
    }
  for (const Link& l : t.links) {
    const auto it = p.links.find("l" + std::to_string(l.id));
    if (it == p.links.end()) continue;  // on no GPU route
    CHECK(it->second.bps == doctest::Approx(l.capacity.gbps * 1e9));
    CHECK(it->second.props.count("vp_slope") == 0);
  }
  for (const Component& c : t.components)
    if (c.forward && p.links.count("f" + std::to_string(c.id)))
      CHECK(p.links.at("f" + std::to_string(c.id)).bps == doctest::Approx(c.forward->gbps * 1e9));
  // The latency: on each GPU's lat link only.
  const std::string xml = simgrid_platform_xml(t, SimgridPlatformOptions{7.5, nullptr});
  CHECK(xml.find("<link id=\"lat0\" bandwidth=\"1e15Bps\" latency=\"7.5us\" sharing_policy=\"FATPIPE\"/>") != std::string::npos);
  CHECK(xml.find("latency=\"0us\" sharing_policy=\"SHARED\"") != std::string::npos);
}

TEST_CASE("simgrid platform: the calibrated one carries the contention model's curves") {
  const Topology& t = test::fixture_platforms().at("pcie-gen4-2s4sw8g-4n-switch");
  const ContentionModel model = test::committed_contention().contention;
  const Parsed p = parse(simgrid_platform_xml(t, SimgridPlatformOptions{5.0, &model}));
  int forwarders = 0, nic_links = 0;
  for (const auto& [id, link] : p.links) {
    if (id.rfind("lat", 0) == 0) continue;
    const bool forwarder = id[0] == 'f';
    const std::size_t k = std::stoul(id.substr(1));
    const EfficiencyCurve curve =
        forwarder ? forwarder_curve(t, model, static_cast<ComponentId>(k)) : link_curve(t, model, static_cast<LinkId>(k));
    INFO(id);
    // The committed table has chunks on: every resource is lossy when crowded.
    REQUIRE(link.props.count("vp_slope") == 1);
    CHECK(std::stod(link.props.at("vp_slope")) == (curve.on ? curve.slope : 0.0));
    CHECK(std::stod(link.props.at("vp_floor")) == (curve.on ? curve.floor : 1.0));
    CHECK(std::stod(link.props.at("vp_chunk_factor")) == doctest::Approx(chunk_factor(model, link.bps / 1e6)));
    CHECK(std::stod(link.props.at("vp_solo_max_Bps")) > 0);
    CHECK(std::stod(link.props.at("vp_solo_max_Bps")) <= link.bps * (1 + 1e-12));
    if (curve.on && forwarder) ++forwarders;
    if (curve.on && !forwarder) ++nic_links;
  }
  CHECK(forwarders > 0);
  CHECK(nic_links == 2 * 4 * 4);  // each NIC's uplink and downlink: 4 nodes x 4 NICs
  // Chunks off and the curves off: nothing is lossy, the ideal platform.
  ContentionModel off = model;
  off.forwarder.on = off.nic.on = off.endpoint.on = false;
  off.chunk_on = false;
  const std::string xml = simgrid_platform_xml(t, SimgridPlatformOptions{5.0, &off});
  CHECK(xml.find("vp_slope") == std::string::npos);
}

TEST_CASE("simgrid platform: the baselines' routes, through NICs with GPUDirect RDMA") {
  // AWS g5: the nearest NIC of some GPUs lacks GPUDirect RDMA; the routes
  // must be the ones vp-sim gives the baselines' transfers.
  const Topology& t = test::fixture_platforms().at("aws-g5-48xl-4n-switch");
  const std::size_t n = t.gpus.size();
  const Parsed p = parse(simgrid_platform_xml(t, SimgridPlatformOptions{5.0, nullptr}));
  detail::FlowMaker maker(t);
  std::size_t not_default = 0;
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      if (s == d) continue;
      const Route& r = maker.route(s, d);
      if (!(r == default_route(t, t.gpus[s], t.gpus[d]))) ++not_default;
      std::vector<std::string> want{"lat" + std::to_string(s)};
      for (LinkId l : r.links) want.push_back("l" + std::to_string(l));
      for (ComponentId c : r.forwarders) want.push_back("f" + std::to_string(c));
      CHECK(p.routes.at({p.hosts[s], p.hosts[d]}) == want);
    }
  CHECK(not_default > 0);  // the case this test is for
}

TEST_CASE("simgrid platform: bad options are refused") {
  const Topology& t = test::fixture_platforms().at("pcie-gen4-2s4sw8g");
  CHECK_THROWS_AS(simgrid_platform_xml(t, SimgridPlatformOptions{-1.0, nullptr}), vp::UsageError);
  CHECK_THROWS_AS(simgrid_platform_xml(t, SimgridPlatformOptions{std::nan(""), nullptr}), vp::UsageError);
}
