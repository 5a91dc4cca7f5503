#include "planner_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <stdexcept>
#include <string_view>

#include "support.hpp"
#include "vp/analysis/build_catalog.hpp"
#include "vp/analysis/contention.hpp"
#include "vp/analysis/local_patterns.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/catalog/writer.hpp"
#include "vp/sim/catalog_topology.hpp"
#include "vp/sim/workloads.hpp"

namespace vp::plantest {

namespace {

const std::string kNodeType = "platforms/pcie-gen4-2s4sw8g.json";

AnalysisRequest request(const std::string& input, const std::string& cluster) {
  AnalysisRequest r;
  r.input = input.empty() ? "" : test::fixture(input);
  r.cluster = cluster.empty() ? "" : test::fixture(cluster);
  return r;
}

AnalysisRequest shortcut(const std::string& input, std::uint32_t nodes, const std::string& fabric,
                         std::uint32_t leaf_size, double oversubscription) {
  AnalysisRequest r = request(input, "");
  r.nodes = nodes;
  r.fabric = fabric;
  r.leaf_size = leaf_size;
  r.oversubscription = oversubscription;
  return r;
}

// A cluster description of two node types, written next to nothing: inputs
// are absolute paths under fixtures/ (its --cluster-root).
std::string mixed_cluster_file() {
  static const std::string path = [] {
    std::string file = std::filesystem::temp_directory_path() / "vp-planner-mixed.cluster.json";
    std::ofstream f(file);
    f << R"({"format": "vp-cluster", "version": 1,
 "node_types": [{"name": "pcie", "input": ")"
      << test::fixture(kNodeType) << R"("},
                {"name": "mi300x", "input": ")"
      << test::fixture("real/hwloc-xml/rixl-mi300x-topo.xml") << R"(", "format": "hwloc"}],
 "nodes": [{"type": "pcie", "count": 2}, {"type": "mi300x", "count": 2}],
 "fabric": {"kind": "leaf_spine", "leaf_size": 3, "oversubscription": 2}})";
    return file;
  }();
  return path;
}

// The pcie-gen4 node type with GPUDirect RDMA on the first `gpudirect`
// NICs only (the others carry no GPU traffic), written to a temporary file.
std::string node_type_with_gpudirect(int gpudirect) {
  std::ifstream in(test::fixture(kNodeType));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  int seen = 0;
  for (std::size_t at = text.find("\"gpudirect\": true"); at != std::string::npos;
       at = text.find("\"gpudirect\": true", at + 1))
    if (seen++ >= gpudirect) text.replace(at, 17, "\"gpudirect\": false");
  const std::string file =
      (std::filesystem::temp_directory_path() / ("vp-planner-gpudirect" + std::to_string(gpudirect) + ".json")).string();
  std::ofstream(file) << text;
  return file;
}

}  // namespace

std::unique_ptr<Platform> build_platform(const std::string& name, const AnalysisRequest& r) {
  auto p = std::make_unique<Platform>();
  p->name = name;
  LoadedInput in = load_input(r);
  const catalog::Catalog c = build_catalog(in, r.search, canonical_options(r));
  p->bytes = catalog::write_catalog(c);
  p->topology = std::move(in.topology);
  if (vpcat::Status s = vpcat::CatalogView::open(p->bytes.data(), p->bytes.size(), &p->view); !s.ok())
    throw std::runtime_error(fmt::format("{}: {}", name, s.message()));
  if (vpcat::PlanStatus s = p->planner.init(p->view); !s.ok())
    throw std::runtime_error(fmt::format("{}: {}", name, s.message()));
  p->gpus = p->planner.gpu_count();
  if (p->gpus != p->topology.gpus.size()) throw std::runtime_error(name + ": GPU counts differ");
  return p;
}

bool small_property_run() {
  const char* run = std::getenv("VP_PROPERTY_RUN");
  return run != nullptr && std::string_view(run) == "small";
}

std::uint64_t property_seeds(std::uint64_t full) { return small_property_run() ? std::max<std::uint64_t>(1, full / 4) : full; }

const Platform& platform(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Platform>> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return *it->second;
  AnalysisRequest r;
  if (name == "1n") r = request(kNodeType, "");
  else if (name == "4n-switch") r = request(kNodeType, "platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json");
  else if (name == "16n-rail") r = request(kNodeType, "platforms/pcie-gen4-2s4sw8g-16n-rail.cluster.json");
  else if (name == "32n-leafspine") r = request(kNodeType, "platforms/pcie-gen4-2s4sw8g-32n-leafspine2to1.cluster.json");
  else if (name == "3n-rail-tight") r = shortcut(kNodeType, 3, "rail", 8, 8.0);
  else if (name == "5n-leafspine-tight") r = shortcut(kNodeType, 5, "leaf_spine", 2, 4.0);
  else if (name == "mixed-4n") {
    r = request(kNodeType, "");
    r.cluster = mixed_cluster_file();
    r.cluster_root = test::fixture("");  // its node types are fixture files, by absolute path
  }
  else if (name == "2n-half-gpudirect" || name == "2n-no-gpudirect") {
    r.input = node_type_with_gpudirect(name == "2n-half-gpudirect" ? 2 : 0);
    r.nodes = 2;
    r.fabric = "single_switch";
  } else if (name == "g6-3n") r = shortcut("real/hwloc-xml/nixl-g6.48xl-topo.xml", 3, "single_switch", 8, 1.0);
  else if (name == "h20-2n") r = request("platforms/hgx-h20-8cx7.json", "platforms/hgx-h20-8cx7-2n-switch.cluster.json");
  else throw std::invalid_argument("unknown platform " + name);
  return *(cache[name] = build_platform(name, r));
}

// ---- demands ---------------------------------------------------------------------------

Matrix uniform(std::uint32_t n, std::uint64_t bytes) {
  Matrix m(std::size_t{n} * n, bytes);
  for (std::uint32_t i = 0; i < n; ++i) m[std::size_t{i} * n + i] = 0;
  return m;
}

Matrix random_dense(std::uint32_t n, std::uint64_t max_bytes, double zero_share, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Matrix m(std::size_t{n} * n, 0);
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint32_t d = 0; d < n; ++d)
      if (s != d && u(rng) >= zero_share) m[std::size_t{s} * n + d] = 1 + rng() % max_bytes;
  return m;
}

Matrix zipf_moe(std::uint32_t n, double exponent, std::uint64_t seed, std::size_t tokens) {
  sim::MoeOptions o;
  o.tokens_per_gpu = tokens;
  o.zipf_exponent = exponent;
  o.seed = seed;
  o.experts = std::max<std::size_t>(o.top_k, std::min<std::size_t>(128, 4 * std::size_t{n}));
  const sim::Demand d = sim::moe_dispatch_demand(n, o);
  Matrix m(std::size_t{n} * n, 0);
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint32_t t = 0; t < n; ++t) m[std::size_t{s} * n + t] = s == t ? 0 : static_cast<std::uint64_t>(d.at(s, t));
  return m;
}

Matrix hot_spot(std::uint32_t n, std::uint64_t bytes, std::uint32_t hot, double factor) {
  const sim::Demand d = sim::hot_spot_demand(n, static_cast<double>(bytes), hot, factor);
  Matrix m(std::size_t{n} * n, 0);
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint32_t t = 0; t < n; ++t) m[std::size_t{s} * n + t] = s == t ? 0 : static_cast<std::uint64_t>(d.at(s, t));
  return m;
}

Matrix skewed_nodes(std::uint32_t n, std::uint32_t gpus_per_node, std::uint64_t seed) {
  Matrix m = random_dense(n, 1 << 16, 0.3, seed);
  std::mt19937_64 rng(seed * 7 + 1);
  const std::uint32_t hot = static_cast<std::uint32_t>(rng() % n);
  for (std::uint32_t d = 0; d < n; ++d)
    if (d != hot) m[std::size_t{hot} * n + d] += 8u << 20;
  if (n > gpus_per_node) {  // node 0 -> the last node: every GPU pair heavy
    const std::uint32_t last = n - gpus_per_node;
    for (std::uint32_t g = 0; g < gpus_per_node; ++g)
      for (std::uint32_t h = 0; h < gpus_per_node; ++h) m[std::size_t{g} * n + last + h] += 4u << 20;
  }
  return m;
}

// ---- routes -----------------------------------------------------------------------------

namespace {

// Component of local NIC k in the node of global GPU `gpu`.
ComponentId nic_component(const Topology& t, std::uint32_t gpu, std::uint16_t k) {
  const std::int32_t node = t.components[t.gpus[gpu]].node;
  for (ComponentId c : t.nics)
    if (t.components[c].node == node && t.components[c].local_index == k) return c;
  throw std::logic_error(fmt::format("no NIC {} in the node of GPU {}", k, gpu));
}

}  // namespace

Route to_route(const Platform& p, const vpcat::PlanTransfer& t) {
  Route r;
  std::vector<std::uint64_t> ids(p.planner.max_route_links());
  const std::uint32_t n = p.planner.route_links(t, ids.data(), static_cast<std::uint32_t>(ids.size()));
  if (n > ids.size()) throw std::logic_error("route longer than max_route_links()");
  for (std::uint32_t k = 0; k < n; ++k) r.links.push_back(static_cast<LinkId>(ids[k]));
  std::vector<std::uint64_t> fwd(64);
  const std::uint32_t f = p.planner.route_forwarders(t, fwd.data(), static_cast<std::uint32_t>(fwd.size()));
  for (std::uint32_t k = 0; k < f && k < fwd.size(); ++k) r.forwarders.push_back(static_cast<ComponentId>(fwd[k]));
  r.solo_gbps = t.solo_gbps;
  return r;
}

Route solo_route(const Topology& topo, const std::vector<LinkId>& links) {
  Route r;
  r.links = links;
  double rate = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (links[i] >= topo.links.size()) return Route{};
    rate = std::min(rate, topo.links[links[i]].capacity.gbps);
    if (i + 1 == links.size()) break;
    const ComponentId mid = topo.links[links[i]].dst;
    if (topo.components[mid].forward) {
      r.forwarders.push_back(mid);
      rate = std::min(rate, topo.components[mid].forward->gbps);
    }
  }
  r.solo_gbps = rate;
  return r;
}

Route analyzer_route(const Platform& p, const vpcat::PlanTransfer& t) {
  const Topology& topo = p.topology;
  const ComponentId s = topo.gpus[t.src], d = topo.gpus[t.dst];
  if (t.src_nic == vpcat::kNoNic) return intra_node_route(topo, s, d);
  return network_route(topo, s, nic_component(topo, t.src, t.src_nic), nic_component(topo, t.dst, t.dst_nic), d);
}

bool is_loopback(const vpcat::Planner& planner, const vpcat::PlanTransfer& t) {
  return t.src_nic != vpcat::kNoNic && planner.node_of_gpu(t.src) == planner.node_of_gpu(t.dst);
}

std::size_t loopbacks(const vpcat::Planner& planner, const vpcat::Plan& plan) {
  std::size_t k = 0;
  for (std::size_t i = 0; i < plan.transfer_count(); ++i) k += is_loopback(planner, plan.transfers()[i]);
  return k;
}

// ---- the checker -------------------------------------------------------------------------

std::vector<StepCopy> copy_steps(const vpcat::Plan& plan) {
  std::vector<StepCopy> out;
  for (std::size_t i = 0; i < plan.step_count(); ++i) {
    StepCopy c;
    c.transfers.assign(plan.step_transfers(i), plan.step_transfers(i) + plan.step(i).count);
    c.expected_us = plan.step(i).expected_us;
    c.ports = plan.step(i).ports;
    c.shared = plan.step(i).shared != 0;
    out.push_back(std::move(c));
  }
  return out;
}

std::string plan_difference(const vpcat::Plan& a, const vpcat::Plan& b) {
  if (a.step_count() != b.step_count()) return fmt::format("{} steps against {}", a.step_count(), b.step_count());
  if (a.expected_us() != b.expected_us()) return fmt::format("expected {} us against {}", a.expected_us(), b.expected_us());
  for (std::size_t i = 0; i < a.step_count(); ++i) {
    if (a.step(i).count != b.step(i).count)
      return fmt::format("step {}: {} transfers against {}", i, a.step(i).count, b.step(i).count);
    for (std::uint32_t k = 0; k < a.step(i).count; ++k) {
      const vpcat::PlanTransfer &x = a.step_transfers(i)[k], &y = b.step_transfers(i)[k];
      if (!(x.src == y.src && x.dst == y.dst && x.bytes == y.bytes && x.src_nic == y.src_nic &&
            x.dst_nic == y.dst_nic && x.origin == y.origin && x.final == y.final))
        return fmt::format("step {} transfer {}: {}->{} {} bytes (NICs {},{}) against {}->{} {} bytes (NICs {},{})", i, k,
                           x.src, x.dst, x.bytes, x.src_nic, x.dst_nic, y.src, y.dst, y.bytes, y.src_nic, y.dst_nic);
    }
  }
  return "";
}

std::string check_plan(const Platform& p, const Matrix& demand, const vpcat::Plan& plan, const CheckOptions& opts) {
  const std::uint32_t n = p.gpus;
  if (plan.gpus() != n) return fmt::format("plan.gpus() is {}, expected {}", plan.gpus(), n);
  std::uint64_t total = 0, expected_first = 0;
  for (std::size_t i = 0; i < demand.size(); ++i)
    if (i % (n + 1) != 0) total += demand[i];
  if (plan.total_bytes() != total) return fmt::format("total_bytes {} != demand {}", plan.total_bytes(), total);
  for (std::size_t i = 0; i < plan.step_count(); ++i) {
    if (plan.step(i).first != expected_first || plan.step(i).count == 0)
      return fmt::format("step {}: transfers [{}, +{}) do not follow the previous step", i, plan.step(i).first,
                         plan.step(i).count);
    expected_first += plan.step(i).count;
  }
  if (expected_first != plan.transfer_count()) return "transfers outside every step";
  return check_steps(p, demand, copy_steps(plan), opts);
}

std::string check_steps(const Platform& p, const Matrix& demand, const std::vector<StepCopy>& steps,
                        const CheckOptions& opts) {
  const std::uint32_t n = p.gpus;
  std::vector<std::uint64_t> delivered(std::size_t{n} * n, 0);
  std::uint64_t nonzero = 0;
  for (std::size_t i = 0; i < demand.size(); ++i)
    if (i % (n + 1) != 0) nonzero += demand[i] != 0;
  if (steps.size() > nonzero)
    return fmt::format("{} steps for {} non-zero payloads (each step must finish one)", steps.size(), nonzero);
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint16_t, std::uint16_t>, bool> checked;
  std::uint64_t route_checks = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    std::vector<Transfer> transfers;
    std::vector<std::uint32_t> sends(n, 0), receives(n, 0);
    double longest = 0;
    for (const vpcat::PlanTransfer& t : steps[i].transfers) {
      if (t.src >= n || t.dst >= n || t.src == t.dst || t.bytes == 0)
        return fmt::format("step {}: bad transfer {} -> {} ({} bytes)", i, t.src, t.dst, t.bytes);
      if (t.origin != t.src || t.final != t.dst)
        return fmt::format("step {}: transfer {} -> {} relays {} -> {}, this planner never relays", i, t.src, t.dst,
                           t.origin, t.final);
      delivered[std::size_t{t.origin} * n + t.final] += t.bytes;
      ++sends[t.src], ++receives[t.dst];
      const Route planned = to_route(p, t);
      // The contention check below runs on the route's links as the
      // planner expands them, with the forwarders and the solo rate
      // recomputed here from the Topology (not the planner's figures).
      Transfer x{p.topology.gpus[t.src], p.topology.gpus[t.dst], solo_route(p.topology, planned.links)};
      if (x.route.links.empty()) return fmt::format("step {}: transfer {} -> {} has no route", i, t.src, t.dst);
      // The route is a path from src to dst.
      ComponentId at = x.src;
      for (LinkId l : x.route.links) {
        if (p.topology.links[l].src != at)
          return fmt::format("step {}: route of {} -> {} is not a path at link {}", i, t.src, t.dst, l);
        at = p.topology.links[l].dst;
      }
      if (at != x.dst) return fmt::format("step {}: route of {} -> {} ends elsewhere", i, t.src, t.dst);
      if (planned.forwarders != x.route.forwarders)
        return fmt::format("step {}: forwarders of {} -> {} differ from the route's", i, t.src, t.dst);
      if (!(t.solo_gbps > 0) || std::abs(t.solo_gbps - x.route.solo_gbps) > 1e-9 * x.route.solo_gbps)
        return fmt::format("step {}: solo rate of {} -> {} is {} GB/s, its route's slowest element gives {}", i,
                           t.src, t.dst, t.solo_gbps, x.route.solo_gbps);
      if (opts.compare_routes && route_checks < opts.max_route_checks) {
        auto key = std::make_tuple(t.src, t.dst, t.src_nic, t.dst_nic);
        if (checked.emplace(key, true).second) {
          ++route_checks;
          const Route a = analyzer_route(p, t);
          if (a.links != x.route.links || a.forwarders != x.route.forwarders)
            return fmt::format("step {}: route of {} -> {} (NICs {}, {}) differs from the analyzer's", i, t.src, t.dst,
                               t.src_nic, t.dst_nic);
          if (std::abs(a.solo_gbps - x.route.solo_gbps) > 1e-9 * a.solo_gbps)
            return fmt::format("step {}: solo rate of {} -> {} differs from the analyzer's", i, t.src, t.dst);
        }
      }
      longest = std::max(longest, static_cast<double>(t.bytes) / (x.route.solo_gbps * 1e3));
      transfers.push_back(std::move(x));
    }
    if (transfers.empty()) return fmt::format("step {} is empty", i);
    const std::uint32_t ports = std::max(*std::max_element(sends.begin(), sends.end()),
                                         *std::max_element(receives.begin(), receives.end()));
    if (steps[i].shared) {
      // Contending by design: only where asked for (with channels_only, only
      // last), and it must say how many transfers a GPU posts.
      if (!opts.allow_shared) return fmt::format("step {} is shared, and the plan was not to share", i);
      if (opts.shared_last_only && i + 1 != steps.size())
        return fmt::format("step {} of {} is shared: only a plan's last step may be", i, steps.size());
      if (steps[i].ports != ports) return fmt::format("shared step {} claims {} ports, has {}", i, steps[i].ports, ports);
      continue;
    }
    // A channel step: one-port, and contention-free with every transfer at
    // its route's solo rate (docs/design.md §3).
    if (steps[i].ports != 1) return fmt::format("channel step {} claims {} ports", i, steps[i].ports);
    ContentionOptions co;
    co.ports_per_gpu = 1;
    const ContentionReport report = check_contention(p.topology, transfers, co);
    if (!report.ok()) return fmt::format("step {}: {}", i, report.message);
    if (steps[i].expected_us + 1e-9 < longest)
      return fmt::format("step {}: expected {} us, below its longest transfer at its solo rate ({} us)", i,
                         steps[i].expected_us, longest);
  }
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint32_t d = 0; d < n; ++d) {
      const std::uint64_t want = s == d ? 0 : demand[std::size_t{s} * n + d];
      if (delivered[std::size_t{s} * n + d] != want)
        return fmt::format("payload {} -> {}: delivered {} bytes, demand {}", s, d, delivered[std::size_t{s} * n + d],
                           want);
    }
  return "";
}

PortedNodeType ported_node_type(const Platform& p, std::uint32_t type) {
  const catalog::Catalog cat = catalog::read_catalog(p.bytes);
  catalog::Catalog one;  // the type alone, one node, no fabric
  one.node_types = {cat.node_types.at(type)};
  one.node_groups = {catalog::NodeGroup{0, 1, "n0"}};
  PortedNodeType out;
  for (const catalog::Component& c : one.node_types[0].components)
    if (c.kind == catalog::Kind::nic) out.ports.push_back(c.nic_gbps);
  out.ported = with_network_ports(sim::catalog_topology(one), out.ports);
  return out;
}

}  // namespace vp::plantest
