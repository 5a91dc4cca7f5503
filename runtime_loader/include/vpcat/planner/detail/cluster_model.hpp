// What the planner needs from a verified catalog, derived once (Planner::init)
// and then read without further checks:
//
// * per node type: its endpoint routes (GPU->GPU, GPU->NIC, NIC->GPU) with
//   their solo rates, local link ids and forwarders, and the *shared*
//   resources each one loads (see below), with their capacities; per GPU, its
//   NICs in order of preference for sending and for receiving;
// * per node: its type and where its ids start in the global numbering;
// * the fabric: which switch each NIC hangs on, the spine uplinks.
//
// Shared resources. A GPU or a NIC is a leaf of its node's PCIe tree, so the
// link between it and its parent carries, per direction, only transfers that
// start or end at it: at most one per step (one-port GPUs, one flow per NIC
// and direction by the fabric rule), each within the link's capacity since a
// route's solo rate is at most the capacity of every link on it. Only the
// other links (switch uplinks, root ports, inter-socket links) and the
// forwarding components can be overloaded by a set of transfers, so only
// they are tracked; a route lists them as compact per-type indexes.
//
// NIC preference. For GPU g the usable NICs (fabric port > 0: a NIC without
// GPUDirect RDMA carries no GPU traffic) are ordered by: the route's solo
// rate (higher first), then the share of the node type's maximal local
// patterns in which g sends to (receives from) that NIC (higher first), then
// the shared resources the route loads (fewer first), its length, the NIC
// index. The share is computed from the stored orbit representatives and the
// symmetry generators without expanding any orbit: for a representative P
// with orbit size |P^Aut| and m_P(O) roles (g', k') in the orbit O of (g, k)
// under Aut acting on (GPU, NIC) pairs, exactly |P^Aut| m_P(O) / |O| members
// of P's orbit contain (g, k) (every member contains m_P(O) such roles and
// the group acts transitively on O). The *nearest* NICs of g are those whose
// route loads the fewest shared resources; the planner tries them first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

#include "vpcat/catalog_view.hpp"
#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/stored_patterns.hpp"
#include "vpcat/planner/detail/subset_layout.hpp"
#include "vpcat/planner/plan.hpp"
#include "vpcat/planner/status.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

// Planner limits (docs/planner.md "Limits"): the per-call state holds dense
// GPU x GPU and node x node matrices.
inline constexpr std::uint64_t kMaxPlannerGpus = 16384;
inline constexpr std::uint32_t kMaxNicsPerNode = 64;  // NIC lanes are 64-bit masks
inline constexpr std::uint32_t kMaxGpusPerNode = 64;  // free and busy GPUs are 64-bit masks

struct RouteEntry {
  double gbps = 0.0;               // solo rate; 0 for the unused g -> g entries
  std::uint32_t shared_first = 0;  // into ClusterModel::shared_ids()
  std::uint32_t link_first = 0;    // into ClusterModel::route_links() (local link ids)
  std::uint32_t fwd_first = 0;     // into ClusterModel::route_forwarders() (local component ids)
  std::uint16_t shared_count = 0, link_count = 0, fwd_count = 0, reserved = 0;
};

struct TypeModel {
  std::uint32_t gpus = 0, nics = 0, links = 0, components = 0;
  std::uint32_t first_gpu_comp = 0, first_nic_comp = 0;  // local component ids of GPU 0 and NIC 0
  std::uint32_t shared = 0;      // tracked resources of the type
  std::uint32_t cap_first = 0;   // their capacities in ClusterModel::caps()
  // Capacities of the endpoints' own links, in ClusterModel::leaf_caps():
  // GPU g up (g), GPU g down (gpus + g), into NIC k (2 gpus + k: towards
  // the network, the NIC's port included) and out of NIC k (2 gpus + nics + k).
  std::uint32_t leaf_first = 0;
  std::uint32_t gg_first = 0;    // route g -> h at gg_first + g * gpus + h
  std::uint32_t gn_first = 0;    // route g -> NIC k at gn_first + g * nics + k
  std::uint32_t ng_first = 0;    // route NIC k -> h at ng_first + k * gpus + h
  std::uint32_t pref_first = 0;  // send/recv NIC preferences of GPU g at pref_first + g * usable
  std::uint32_t share_first = 0; // pattern share of (GPU g, NIC k) at share_first + g * nics + k
  std::uint32_t near_first = 0;  // nearest-NIC masks of GPU g at near_first + g
  std::uint32_t nic_first = 0;   // per-NIC masks of the GPUs it is nearest to, at nic_first + k
  std::uint32_t usable = 0;      // NICs whose port carries GPU traffic
  std::uint64_t usable_mask = 0; // bit k: NIC k is usable
  // The slowest GPU -> NIC (up) and NIC -> GPU (down) solo rates over the
  // nearest NICs ([0]) and over every usable NIC ([1]).
  double slow_up[2] = {0.0, 0.0}, slow_down[2] = {0.0, 0.0};
};

struct NodeModel {
  std::uint32_t type = 0;
  std::uint32_t catalog_node = 0;  // its index in the catalog (the fabric places it)
  std::uint32_t first_gpu = 0;   // planner GPU index of its GPU 0
  std::uint32_t gpus = 0;
  std::uint32_t load_first = 0;  // its shared resources in per-call load arrays
  std::uint64_t first_component = 0, first_link = 0, first_nic = 0;
};

// One NIC preference: the NIC, and whether it is one of the nearest.
struct NicPref {
  std::uint16_t nic = 0;
  std::uint8_t nearest = 0;
  std::uint8_t reserved = 0;
};

class ClusterModel {
 public:
  // The model of the layout's nodes (the whole catalog, or a subset's):
  // `stored` holds the layout types' patterns (stored_patterns.hpp).
  PlanStatus build(const CatalogView& cat, const SubsetLayout& layout, const StoredPatterns& stored) noexcept {
    *this = ClusterModel();
    std::uint64_t gpus = 0;
    for (std::uint32_t n = 0; n < layout.node_count(); ++n) gpus += layout.type(layout.node(n).type).gpus;
    if (gpus > kMaxPlannerGpus)
      return PlanStatus::at(PlanError::unsupported_catalog, "catalog", "%llu GPUs, the planner handles at most %llu",
                            static_cast<unsigned long long>(gpus), static_cast<unsigned long long>(kMaxPlannerGpus));
    gpus_ = static_cast<std::uint32_t>(gpus);
    nodes_count_ = layout.node_count();
    if (nodes_count_ > kMaxPlannerGpus)
      return PlanStatus::at(PlanError::unsupported_catalog, "catalog", "%u nodes, the planner handles at most %llu",
                            nodes_count_, static_cast<unsigned long long>(kMaxPlannerGpus));
    const FabricView f = cat.fabric();
    fabric_kind_ = f.kind;
    leaf_size_ = f.leaf_size;
    switches_ = f.switches;
    spine_ = f.spine;
    nodes_link_count_ = cat.nodes_link_count();
    nodes_component_count_ = cat.nodes_component_count();
    nic_count_ = cat.nic_count();
    if (!spine_caps_.resize(switches_)) return oom();
    min_spine_gbps_ = std::numeric_limits<double>::infinity();
    for (std::uint32_t k = 0; k < switches_; ++k) {
      spine_caps_[k] = spine_ ? cat.spine_uplink_gbps(k) : 0.0;
      if (spine_ && spine_caps_[k] < min_spine_gbps_) min_spine_gbps_ = spine_caps_[k];
    }
    min_inter_gbps_ = min_spine_gbps_;

    // The types some node uses, in type order.
    PodBuffer<std::uint8_t> used;
    if (!types_.assign(layout.type_count(), TypeModel()) || !used.assign(layout.type_count(), 0)) return oom();
    for (std::uint32_t n = 0; n < nodes_count_; ++n) used[layout.node(n).type] = 1;
    for (std::uint32_t t = 0; t < layout.type_count(); ++t) {
      if (!used[t]) continue;
      const SubsetLayout::Type& lt = layout.type(t);
      if (PlanStatus s = build_type(cat.node_type(lt.catalog_type), layout.held(lt), lt.gpus, stored, stored.type(t),
                                    types_[t]);
          !s.ok())
        return s;
    }

    subset_ = nodes_count_ != cat.node_count();
    for (std::uint32_t n = 0; n < nodes_count_ && !subset_; ++n)
      subset_ = layout.node(n).catalog_node != n || !layout.type(layout.node(n).type).whole;
    if (!nodes_.resize(nodes_count_) || !gpu_node_.resize(gpus_)) return oom();
    std::uint32_t load = 0, first_gpu = 0;
    for (std::uint32_t n = 0; n < nodes_count_; ++n) {
      const NodeRef r = cat.node(layout.node(n).catalog_node);
      NodeModel& m = nodes_[n];
      m.type = layout.node(n).type;
      m.catalog_node = r.node;
      m.first_gpu = first_gpu;
      m.gpus = types_[m.type].gpus;
      first_gpu += m.gpus;
      m.load_first = load;
      load += types_[m.type].shared;
      m.first_component = r.first_component;
      m.first_link = r.first_link;
      m.first_nic = r.first_nic;
      for (std::uint32_t g = 0; g < m.gpus; ++g) gpu_node_[m.first_gpu + g] = n;
    }
    load_count_ = load;
    return {};
  }

  std::uint32_t gpu_count() const noexcept { return gpus_; }
  std::uint32_t node_count() const noexcept { return nodes_count_; }
  // Is it a subset of the catalog's GPUs (not every one, in catalog order)?
  bool subset() const noexcept { return subset_; }
  std::uint32_t load_count() const noexcept { return load_count_; }
  const NodeModel& node(std::uint32_t n) const noexcept { return nodes_[n]; }
  std::uint32_t node_of_gpu(std::uint32_t g) const noexcept { return gpu_node_[g]; }
  const TypeModel& type(std::uint32_t t) const noexcept { return types_[t]; }
  const TypeModel& type_of(std::uint32_t node) const noexcept { return types_[nodes_[node].type]; }

  const RouteEntry& gg(const TypeModel& t, std::uint32_t g, std::uint32_t h) const noexcept {
    return routes_[t.gg_first + g * t.gpus + h];
  }
  const RouteEntry& gn(const TypeModel& t, std::uint32_t g, std::uint32_t k) const noexcept {
    return routes_[t.gn_first + g * t.nics + k];
  }
  const RouteEntry& ng(const TypeModel& t, std::uint32_t k, std::uint32_t h) const noexcept {
    return routes_[t.ng_first + k * t.gpus + h];
  }
  const std::uint32_t* shared_ids(const RouteEntry& r) const noexcept { return shared_ids_.data() + r.shared_first; }
  const double* caps(const TypeModel& t) const noexcept { return caps_.data() + t.cap_first; }
  // Per tracked resource of t (as caps()): kNone for a link, else the CPU
  // model (cpu_model()) of the socket the forwarding component belongs to.
  const std::uint32_t* resource_cpus(const TypeModel& t) const noexcept { return res_cpu_.data() + t.cap_first; }
  // The distinct CPU models of the forwarders' sockets (may be empty strings).
  std::uint32_t cpu_model_count() const noexcept { return static_cast<std::uint32_t>(cpu_first_.size()); }
  std::string_view cpu_model(std::uint32_t k) const noexcept {
    const std::size_t end = k + 1 < cpu_first_.size() ? cpu_first_[k + 1] : cpu_text_.size();
    return std::string_view(cpu_text_.data() + cpu_first_[k], end - cpu_first_[k]);
  }
  const double* leaf_caps(const TypeModel& t) const noexcept { return leaf_caps_.data() + t.leaf_first; }
  std::uint64_t nic_total() const noexcept { return nic_count_; }
  const NicPref* send_prefs(const TypeModel& t, std::uint32_t g) const noexcept {
    return send_pref_.data() + t.pref_first + g * t.usable;
  }
  const NicPref* recv_prefs(const TypeModel& t, std::uint32_t h) const noexcept {
    return recv_pref_.data() + t.pref_first + h * t.usable;
  }
  // Bit g: NIC k is one of GPU g's nearest for sending (receiving).
  std::uint64_t near_send_gpus(const TypeModel& t, std::uint32_t k) const noexcept { return near_send_gpus_[t.nic_first + k]; }
  std::uint64_t near_recv_gpus(const TypeModel& t, std::uint32_t k) const noexcept { return near_recv_gpus_[t.nic_first + k]; }
  const std::uint64_t* near_send_gpus_of(const TypeModel& t) const noexcept { return near_send_gpus_.data() + t.nic_first; }
  const std::uint64_t* near_recv_gpus_of(const TypeModel& t) const noexcept { return near_recv_gpus_.data() + t.nic_first; }
  // Bit k: NIC k is one of GPU g's nearest for sending (receiving).
  std::uint64_t near_send_mask(const TypeModel& t, std::uint32_t g) const noexcept { return near_send_[t.near_first + g]; }
  std::uint64_t near_recv_mask(const TypeModel& t, std::uint32_t g) const noexcept { return near_recv_[t.near_first + g]; }
  // The smallest solo rate of any GPU <-> usable NIC route and spine uplink:
  // no inter-node flow is slower.
  double min_inter_gbps() const noexcept { return min_inter_gbps_; }
  // The smallest spine uplink capacity; infinite without a spine.
  double min_spine_gbps() const noexcept { return min_spine_gbps_; }

  // Share of the type's maximal local patterns in which GPU g sends to
  // (receives from) NIC k, in [0, 1]; 0 when the catalog stores no pattern.
  double send_share(const TypeModel& t, std::uint32_t g, std::uint32_t k) const noexcept {
    return send_share_[t.share_first + g * t.nics + k];
  }
  double recv_share(const TypeModel& t, std::uint32_t g, std::uint32_t k) const noexcept {
    return recv_share_[t.share_first + g * t.nics + k];
  }

  // ---- fabric --------------------------------------------------------------------
  bool has_fabric() const noexcept { return fabric_kind_ != FabricKind::none; }
  bool spine() const noexcept { return spine_; }
  std::uint32_t switches() const noexcept { return switches_; }
  double spine_cap(std::uint32_t k) const noexcept { return spine_caps_[k]; }
  // The switch of every NIC of `node` when the fabric puts them all on one
  // (single_switch, leaf_spine); kNone when it depends on the NIC (rail).
  std::uint32_t node_switch(std::uint32_t node) const noexcept {
    switch (fabric_kind_) {
      case FabricKind::rail: return kNone;
      case FabricKind::leaf_spine: return nodes_[node].catalog_node / leaf_size_;
      default: return 0;
    }
  }
  std::uint32_t switch_of(std::uint32_t node, std::uint32_t nic) const noexcept {
    switch (fabric_kind_) {
      case FabricKind::rail: return nic;
      case FabricKind::leaf_spine: return nodes_[node].catalog_node / leaf_size_;
      default: return 0;
    }
  }
  // NICs i and j of `node` can carry a NIC loopback (PlanOptions::
  // nic_loopback): out through i, through the fabric switch, back in
  // through j. They must differ (a switch port does not send a frame back
  // where it came from; a NIC's internal loopback is a route the catalog
  // does not describe) and hang on one switch. The one rule the intra-node
  // fill, the shared step and Planner::route_links() apply.
  bool can_loop(std::uint32_t node, std::uint32_t i, std::uint32_t j) const noexcept {
    return has_fabric() && i != j && switch_of(node, i) == switch_of(node, j);
  }
  // Global ids (SPEC.md "Global numbering").
  std::uint64_t nic_uplink(std::uint64_t global_nic) const noexcept { return nodes_link_count_ + 2 * global_nic; }
  std::uint64_t spine_uplink(std::uint32_t k) const noexcept {
    return nodes_link_count_ + 2 * nic_count_ + 2 * std::uint64_t{k};
  }

  // Solo rate of the inter-node route g (node a) -> NIC i ... NIC j -> h (node b).
  double inter_gbps(std::uint32_t a, std::uint32_t g, std::uint32_t i, std::uint32_t b, std::uint32_t j,
                    std::uint32_t h) const noexcept {
    const TypeModel &ta = type_of(a), &tb = type_of(b);
    double r = gn(ta, g, i).gbps;
    const double down = ng(tb, j, h).gbps;
    if (down < r) r = down;
    if (spine_) {
      const std::uint32_t si = switch_of(a, i), sj = switch_of(b, j);
      if (si != sj) {
        if (spine_caps_[si] < r) r = spine_caps_[si];
        if (spine_caps_[sj] < r) r = spine_caps_[sj];
      }
    }
    return r;
  }

  // Calls f(global link id) for every link of the route from global GPU src
  // to global GPU dst through local NICs src_nic, dst_nic (kNoNic both for an
  // intra-node route), in order. Returns the number of links.
  template <class F>
  std::uint32_t for_each_link(std::uint32_t src, std::uint32_t dst, std::uint16_t src_nic, std::uint16_t dst_nic,
                              F&& f) const noexcept {
    const LocalSegments s = local_segments(src, dst, src_nic, dst_nic);
    std::uint32_t n = 0;
    auto segment = [&](const RouteEntry& r, const NodeModel& node) {
      for (std::uint32_t k = 0; k < r.link_count; ++k) f(node.first_link + route_links_[r.link_first + k]);
      n += r.link_count;
    };
    segment(*s.first, *s.first_node);
    if (s.second == nullptr) return n;
    f(nic_uplink(s.first_node->first_nic + src_nic));
    ++n;
    if (spine_) {
      const std::uint32_t si = switch_of(gpu_node_[src], src_nic), sj = switch_of(gpu_node_[dst], dst_nic);
      if (si != sj) {
        f(spine_uplink(si));
        f(spine_uplink(sj) + 1);
        n += 2;
      }
    }
    f(nic_uplink(s.second_node->first_nic + dst_nic) + 1);
    ++n;
    segment(*s.second, *s.second_node);
    return n;
  }
  // Calls f(global component id) for every forwarding component the route
  // transits, in order. Returns their number.
  template <class F>
  std::uint32_t for_each_forwarder(std::uint32_t src, std::uint32_t dst, std::uint16_t src_nic, std::uint16_t dst_nic,
                                   F&& f) const noexcept {
    const LocalSegments s = local_segments(src, dst, src_nic, dst_nic);
    std::uint32_t n = 0;
    auto segment = [&](const RouteEntry& r, const NodeModel& node) {
      for (std::uint32_t k = 0; k < r.fwd_count; ++k) f(node.first_component + route_fwds_[r.fwd_first + k]);
      n += r.fwd_count;
    };
    segment(*s.first, *s.first_node);
    if (s.second != nullptr) segment(*s.second, *s.second_node);
    return n;
  }
  // The longest route, in links, over every GPU pair and NIC choice.
  std::uint32_t max_route_links() const noexcept { return max_route_links_; }

 private:
  static PlanStatus oom() noexcept { return PlanStatus::at(PlanError::out_of_memory, "planner", "building the cluster model"); }

  // The model of node type nt restricted to its GPUs held[0..gpus) (all of
  // them, in local order, for a catalog type): its GPU g is nt's held[g].
  PlanStatus build_type(const NodeTypeView& nt, const std::uint16_t* held, std::uint32_t gpus,
                        const StoredPatterns& stored, const StoredPatterns::Type& st, TypeModel& t) noexcept {
    t.gpus = gpus;
    t.nics = nt.nic_count();
    t.links = nt.link_count();
    t.components = nt.component_count();
    t.first_gpu_comp = nt.first_gpu();
    t.first_nic_comp = nt.first_gpu() + nt.gpu_count();
    if (t.nics > kMaxNicsPerNode)
      return PlanStatus::at(PlanError::unsupported_catalog, "catalog",
                            "node type %u has %u NICs, the planner handles at most %u", nt.index(), t.nics,
                            kMaxNicsPerNode);
    if (t.gpus > kMaxGpusPerNode)
      return PlanStatus::at(PlanError::unsupported_catalog, "catalog",
                            "node type %u has %u GPUs, the planner handles at most %u", nt.index(), t.gpus,
                            kMaxGpusPerNode);
    if (t.links > 0xFFFFu)
      return PlanStatus::at(PlanError::unsupported_catalog, "catalog", "node type %u has %u links, at most 65535",
                            nt.index(), t.links);

    for (std::uint32_t r = 0; r < nt.route_count(); ++r) {
      const RouteView rv = nt.route_at(r);
      if (std::uint64_t{rv.link_count()} + rv.forwarder_count() > 0xFFFFu)
        return PlanStatus::at(PlanError::unsupported_catalog, "catalog",
                              "node type %u has a route of %u links and %u forwarders, at most 65535 in all",
                              nt.index(), rv.link_count(), rv.forwarder_count());
    }

    // The endpoints' own links (a NIC's also capped by its port). The catalog
    // is a PCIe tree (verified): a GPU or NIC has one link to its parent and
    // one back, so each of these slots is written once.
    t.leaf_first = static_cast<std::uint32_t>(leaf_caps_.size());
    if (!leaf_caps_.resize(leaf_caps_.size() + 2 * (std::size_t{t.gpus} + t.nics))) return oom();
    double* leaf = leaf_caps_.data() + t.leaf_first;
    for (std::uint32_t k = 0; k < 2 * (t.gpus + t.nics); ++k) leaf[k] = std::numeric_limits<double>::infinity();
    PodBuffer<std::uint32_t> index;  // local component id -> its GPU's index in the type, or kNone
    if (!index.assign(t.components, kNone)) return oom();
    for (std::uint32_t g = 0; g < t.gpus; ++g) index[nt.gpu(held[g])] = g;
    for (std::uint32_t l = 0; l < t.links; ++l) {
      const LinkView lv = nt.link(l);
      const std::uint32_t s = lv.src(), d = lv.dst();
      if (index[s] != kNone) leaf[index[s]] = lv.capacity_gbps();
      if (index[d] != kNone) leaf[t.gpus + index[d]] = lv.capacity_gbps();
      if (d >= t.first_nic_comp && d < t.first_nic_comp + t.nics) leaf[2 * t.gpus + d - t.first_nic_comp] = lv.capacity_gbps();
      if (s >= t.first_nic_comp && s < t.first_nic_comp + t.nics)
        leaf[2 * t.gpus + t.nics + s - t.first_nic_comp] = lv.capacity_gbps();
    }
    for (std::uint32_t k = 0; k < t.nics; ++k) {
      const double port = nt.component(t.first_nic_comp + k).nic_gbps();
      if (port > 0) {
        double& in = leaf[2 * t.gpus + k];
        double& out = leaf[2 * t.gpus + t.nics + k];
        if (port < in) in = port;
        if (port < out) out = port;
      }
    }

    // Tracked resources: links between two non-endpoints, then forwarders.
    PodBuffer<std::uint32_t> link_res, comp_res;
    if (!link_res.assign(t.links, kNone) || !comp_res.assign(t.components, kNone)) return oom();
    t.cap_first = static_cast<std::uint32_t>(caps_.size());
    auto endpoint = [&](std::uint32_t c) {
      const ComponentKind k = nt.component(c).kind();
      return k == ComponentKind::gpu || k == ComponentKind::nic;
    };
    for (std::uint32_t l = 0; l < t.links; ++l) {
      const LinkView lv = nt.link(l);
      if (endpoint(lv.src()) || endpoint(lv.dst())) continue;
      link_res[l] = t.shared++;
      if (!caps_.push_back(lv.capacity_gbps()) || !res_cpu_.push_back(kNone)) return oom();
    }
    for (std::uint32_t c = 0; c < t.components; ++c) {
      const double fwd = nt.component(c).forward_gbps();
      if (!(fwd > 0)) continue;
      comp_res[c] = t.shared++;
      const std::uint32_t cpu = cpu_of(nt, c);
      if (cpu == kNoCpu || !caps_.push_back(fwd) || !res_cpu_.push_back(cpu)) return oom();
    }

    // Routes.
    auto add_route = [&](std::uint32_t from, std::uint32_t to) -> bool {
      RouteEntry e;
      if (from != to) {
        const RouteView r = nt.route(from, to);
        e.gbps = r.solo_gbps();
        e.shared_first = static_cast<std::uint32_t>(shared_ids_.size());
        e.link_first = static_cast<std::uint32_t>(route_links_.size());
        e.fwd_first = static_cast<std::uint32_t>(route_fwds_.size());
        for (std::uint32_t k = 0; k < r.link_count(); ++k) {
          const std::uint32_t l = r.link(k);
          if (!route_links_.push_back(l)) return false;
          if (link_res[l] != kNone && !shared_ids_.push_back(link_res[l])) return false;
        }
        for (std::uint32_t k = 0; k < r.forwarder_count(); ++k) {
          const std::uint32_t c = r.forwarder(k);
          if (!route_fwds_.push_back(c)) return false;
          if (comp_res[c] != kNone && !shared_ids_.push_back(comp_res[c])) return false;
        }
        e.link_count = static_cast<std::uint16_t>(r.link_count());
        e.fwd_count = static_cast<std::uint16_t>(r.forwarder_count());
        e.shared_count = static_cast<std::uint16_t>(shared_ids_.size() - e.shared_first);
      }
      return routes_.push_back(e);
    };
    t.gg_first = static_cast<std::uint32_t>(routes_.size());
    for (std::uint32_t g = 0; g < t.gpus; ++g)
      for (std::uint32_t h = 0; h < t.gpus; ++h)
        if (!add_route(nt.gpu(held[g]), nt.gpu(held[h]))) return oom();
    t.gn_first = static_cast<std::uint32_t>(routes_.size());
    for (std::uint32_t g = 0; g < t.gpus; ++g)
      for (std::uint32_t k = 0; k < t.nics; ++k)
        if (!add_route(nt.gpu(held[g]), nt.nic(k))) return oom();
    t.ng_first = static_cast<std::uint32_t>(routes_.size());
    for (std::uint32_t k = 0; k < t.nics; ++k)
      for (std::uint32_t h = 0; h < t.gpus; ++h)
        if (!add_route(nt.nic(k), nt.gpu(held[h]))) return oom();

    // Longest route: GPU -> NIC, 2 or 4 fabric links, NIC -> GPU (the other
    // side may be of another type: bounded per type, summed generously).
    std::uint32_t up = 0, down = 0, intra = 0;
    for (std::uint32_t g = 0; g < t.gpus; ++g) {
      for (std::uint32_t k = 0; k < t.nics; ++k) {
        if (gn(t, g, k).link_count > up) up = gn(t, g, k).link_count;
        if (ng(t, k, g).link_count > down) down = ng(t, k, g).link_count;
      }
      for (std::uint32_t h = 0; h < t.gpus; ++h)
        if (gg(t, g, h).link_count > intra) intra = gg(t, g, h).link_count;
    }
    const std::uint32_t longest = (up > down ? up : down) * 2 + 4;
    if (longest > max_route_links_) max_route_links_ = longest;
    if (intra > max_route_links_) max_route_links_ = intra;

    // Usable NICs and preferences.
    for (std::uint32_t k = 0; k < t.nics; ++k) {
      if (nt.component(nt.nic(k)).nic_gbps() > 0) {
        ++t.usable;
        t.usable_mask |= std::uint64_t{1} << k;
      }
    }
    if (!compute_shares(stored, st, t)) return oom();
    for (std::uint32_t g = 0; g < t.gpus; ++g)
      for (std::uint32_t k = 0; k < t.nics; ++k) {
        if (!(t.usable_mask >> k & 1u)) continue;
        if (gn(t, g, k).gbps < min_inter_gbps_) min_inter_gbps_ = gn(t, g, k).gbps;
        if (ng(t, k, g).gbps < min_inter_gbps_) min_inter_gbps_ = ng(t, k, g).gbps;
      }
    t.pref_first = static_cast<std::uint32_t>(send_pref_.size());
    if (!send_pref_.resize(send_pref_.size() + std::size_t{t.gpus} * t.usable) ||
        !recv_pref_.resize(recv_pref_.size() + std::size_t{t.gpus} * t.usable))
      return oom();
    t.near_first = static_cast<std::uint32_t>(near_send_.size());
    if (!near_send_.resize(near_send_.size() + t.gpus) || !near_recv_.resize(near_recv_.size() + t.gpus)) return oom();
    for (std::uint32_t g = 0; g < t.gpus; ++g) {
      NicPref* sp = send_pref_.data() + t.pref_first + g * t.usable;
      NicPref* rp = recv_pref_.data() + t.pref_first + g * t.usable;
      order_nics(t, g, true, sp);
      order_nics(t, g, false, rp);
      std::uint64_t ns = 0, nr = 0;
      for (std::uint32_t x = 0; x < t.usable; ++x) {
        if (sp[x].nearest) ns |= std::uint64_t{1} << sp[x].nic;
        if (rp[x].nearest) nr |= std::uint64_t{1} << rp[x].nic;
      }
      near_send_[t.near_first + g] = ns;
      near_recv_[t.near_first + g] = nr;
    }
    t.nic_first = static_cast<std::uint32_t>(near_send_gpus_.size());
    if (!near_send_gpus_.append(t.nics, 0) || !near_recv_gpus_.append(t.nics, 0)) return oom();
    for (std::uint32_t g = 0; g < t.gpus; ++g)
      for (std::uint32_t k = 0; k < t.nics; ++k) {
        if (near_send_[t.near_first + g] >> k & 1u) near_send_gpus_[t.nic_first + k] |= std::uint64_t{1} << g;
        if (near_recv_[t.near_first + g] >> k & 1u) near_recv_gpus_[t.nic_first + k] |= std::uint64_t{1} << g;
      }
    const double inf = std::numeric_limits<double>::infinity();
    t.slow_up[0] = t.slow_up[1] = t.slow_down[0] = t.slow_down[1] = inf;
    for (std::uint32_t g = 0; g < t.gpus; ++g) {
      for (std::uint32_t k = 0; k < t.nics; ++k) {
        if (!(t.usable_mask >> k & 1u)) continue;
        const double up_gbps = gn(t, g, k).gbps, down_gbps = ng(t, k, g).gbps;
        if (up_gbps < t.slow_up[1]) t.slow_up[1] = up_gbps;
        if (down_gbps < t.slow_down[1]) t.slow_down[1] = down_gbps;
        if ((near_send_[t.near_first + g] >> k & 1u) && up_gbps < t.slow_up[0]) t.slow_up[0] = up_gbps;
        if ((near_recv_[t.near_first + g] >> k & 1u) && down_gbps < t.slow_down[0]) t.slow_down[0] = down_gbps;
      }
    }
    return {};
  }

  // send_share_/recv_share_ for the type's (GPU, NIC) pairs, from the pattern
  // representatives and the pair orbits under the generators.
  bool compute_shares(const StoredPatterns& sp, const StoredPatterns::Type& st, TypeModel& t) noexcept {
    const std::size_t base = send_share_.size();
    t.share_first = static_cast<std::uint32_t>(base);
    const std::size_t pairs = std::size_t{t.gpus} * t.nics;
    if (!send_share_.resize(base + pairs) || !recv_share_.resize(base + pairs)) return false;
    for (std::size_t i = 0; i < pairs; ++i) send_share_[base + i] = recv_share_[base + i] = 0.0;
    if (pairs == 0 || st.reps == 0 || st.gpus != t.gpus || st.nics != t.nics) return true;
    PodBuffer<std::uint32_t> parent, size;
    PodBuffer<double> tot_send, tot_recv;
    PodBuffer<std::uint32_t> cnt_send, cnt_recv;
    if (!parent.resize(pairs) || !size.assign(pairs, 0) || !tot_send.assign(pairs, 0.0) ||
        !tot_recv.assign(pairs, 0.0) || !cnt_send.assign(pairs, 0) || !cnt_recv.assign(pairs, 0))
      return false;
    for (std::size_t i = 0; i < pairs; ++i) parent[i] = static_cast<std::uint32_t>(i);
    auto find = [&](std::uint32_t x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    const std::uint32_t G = t.gpus;
    for (std::uint32_t p = 0; p < st.generators; ++p) {
      const std::uint16_t* gen = sp.generator(st, p);
      for (std::uint32_t g = 0; g < G; ++g) {
        const std::uint32_t g2 = gen[g];
        for (std::uint32_t k = 0; k < t.nics; ++k) {
          const std::uint32_t k2 = gen[G + k];
          const std::uint32_t x = find(g * t.nics + k), y = find(g2 * t.nics + k2);
          if (x != y) parent[x < y ? y : x] = x < y ? x : y;
        }
      }
    }
    for (std::uint32_t i = 0; i < pairs; ++i) ++size[find(i)];
    double total = 0.0;
    auto nic = [&](std::int16_t role) { return role >= static_cast<std::int16_t>(G); };
    for (std::uint32_t p = 0; p < st.reps; ++p) {
      const std::int16_t* roles = sp.rep(st, p);
      const double orbit = static_cast<double>(sp.orbit_size(st, p));
      total += orbit;
      for (std::uint32_t g = 0; g < G; ++g) {
        const std::int16_t s = roles[g], r = roles[G + g];
        if (nic(s)) ++cnt_send[find(g * t.nics + static_cast<std::uint32_t>(s) - G)];
        if (nic(r)) ++cnt_recv[find(g * t.nics + static_cast<std::uint32_t>(r) - G)];
      }
      for (std::uint32_t g = 0; g < G; ++g) {  // flush the touched orbits
        const std::int16_t s = roles[g], r = roles[G + g];
        if (nic(s)) {
          const std::uint32_t o = find(g * t.nics + static_cast<std::uint32_t>(s) - G);
          tot_send[o] += orbit * cnt_send[o];
          cnt_send[o] = 0;
        }
        if (nic(r)) {
          const std::uint32_t o = find(g * t.nics + static_cast<std::uint32_t>(r) - G);
          tot_recv[o] += orbit * cnt_recv[o];
          cnt_recv[o] = 0;
        }
      }
    }
    if (!(total > 0)) return true;
    for (std::uint32_t i = 0; i < pairs; ++i) {
      const std::uint32_t o = find(i);
      send_share_[base + i] = tot_send[o] / size[o] / total;
      recv_share_[base + i] = tot_recv[o] / size[o] / total;
    }
    return true;
  }

  void order_nics(const TypeModel& t, std::uint32_t g, bool send, NicPref* out) const noexcept {
    std::uint32_t n = 0;
    std::uint32_t min_shared = 0xFFFFFFFFu;
    for (std::uint32_t k = 0; k < t.nics; ++k) {
      if (!(t.usable_mask >> k & 1u)) continue;
      out[n++] = NicPref{static_cast<std::uint16_t>(k), 0, 0};
      const RouteEntry& r = send ? gn(t, g, k) : ng(t, k, g);
      if (r.shared_count < min_shared) min_shared = r.shared_count;
    }
    auto before = [&](std::uint32_t x, std::uint32_t y) {  // is NIC x preferred to NIC y?
      const RouteEntry& rx = send ? gn(t, g, x) : ng(t, x, g);
      const RouteEntry& ry = send ? gn(t, g, y) : ng(t, y, g);
      if (!close(rx.gbps, ry.gbps)) return rx.gbps > ry.gbps;
      const double sx = send ? send_share(t, g, x) : recv_share(t, g, x);
      const double sy = send ? send_share(t, g, y) : recv_share(t, g, y);
      if (!close(sx, sy)) return sx > sy;
      if (rx.shared_count != ry.shared_count) return rx.shared_count < ry.shared_count;
      if (rx.link_count != ry.link_count) return rx.link_count < ry.link_count;
      return x < y;
    };
    for (std::uint32_t i = 1; i < n; ++i)  // insertion sort: a handful of NICs
      for (std::uint32_t j = i; j > 0 && before(out[j].nic, out[j - 1].nic); --j) {
        const NicPref tmp = out[j];
        out[j] = out[j - 1];
        out[j - 1] = tmp;
      }
    for (std::uint32_t i = 0; i < n; ++i) {
      const RouteEntry& r = send ? gn(t, g, out[i].nic) : ng(t, out[i].nic, g);
      out[i].nearest = r.shared_count == min_shared ? 1 : 0;
    }
  }
  // The index of the CPU model of forwarding component c's socket (the cpu
  // its parents lead to; an empty model without one), added to the table
  // when new; kNoCpu when memory is short.
  static constexpr std::uint32_t kNoCpu = kNone - 1;
  std::uint32_t cpu_of(const NodeTypeView& nt, std::uint32_t c) noexcept {
    std::string_view model;
    for (std::uint32_t hops = 0; c != kNone && c < nt.component_count() && hops <= nt.component_count(); ++hops) {
      const ComponentView v = nt.component(c);
      if (v.kind() == ComponentKind::cpu) {
        model = v.model();
        break;
      }
      c = v.parent();
    }
    for (std::uint32_t k = 0; k < cpu_model_count(); ++k)
      if (cpu_model(k) == model) return k;
    const std::size_t first = cpu_text_.size();
    if (!cpu_first_.push_back(first) || !cpu_text_.resize(first + model.size())) return kNoCpu;
    for (std::size_t i = 0; i < model.size(); ++i) cpu_text_[first + i] = model[i];
    return cpu_model_count() - 1;
  }

  static bool close(double x, double y) noexcept {
    const double d = x > y ? x - y : y - x;
    const double m = x > y ? x : y;
    return d <= 1e-9 * m;
  }

  std::uint32_t gpus_ = 0, nodes_count_ = 0, load_count_ = 0;
  bool subset_ = false;
  FabricKind fabric_kind_ = FabricKind::none;
  std::uint32_t leaf_size_ = 0, switches_ = 0;
  bool spine_ = false;
  std::uint64_t nodes_link_count_ = 0, nodes_component_count_ = 0, nic_count_ = 0;
  std::uint32_t max_route_links_ = 0;
  double min_inter_gbps_ = 0.0, min_spine_gbps_ = 0.0;
  PodBuffer<double> spine_caps_;
  PodBuffer<TypeModel> types_;
  PodBuffer<NodeModel> nodes_;
  PodBuffer<std::uint32_t> gpu_node_;
  PodBuffer<RouteEntry> routes_;
  // The node-local parts of a route: GPU -> GPU inside a node (second
  // null), or GPU -> its NIC in the first node and NIC -> GPU in the second.
  struct LocalSegments {
    const RouteEntry* first = nullptr;
    const NodeModel* first_node = nullptr;
    const RouteEntry* second = nullptr;
    const NodeModel* second_node = nullptr;
  };
  LocalSegments local_segments(std::uint32_t src, std::uint32_t dst, std::uint16_t src_nic,
                               std::uint16_t dst_nic) const noexcept {
    const NodeModel &na = nodes_[gpu_node_[src]], &nb = nodes_[gpu_node_[dst]];
    const std::uint32_t g = src - na.first_gpu, h = dst - nb.first_gpu;
    if (src_nic == kNoNic) return {&gg(types_[na.type], g, h), &na, nullptr, nullptr};
    return {&gn(types_[na.type], g, src_nic), &na, &ng(types_[nb.type], dst_nic, h), &nb};
  }

  PodBuffer<std::uint32_t> shared_ids_, route_links_, route_fwds_;
  PodBuffer<double> leaf_caps_;
  PodBuffer<double> caps_;
  PodBuffer<std::uint32_t> res_cpu_;  // per tracked resource, as caps_
  PodBuffer<char> cpu_text_;          // the distinct CPU models, concatenated
  PodBuffer<std::size_t> cpu_first_;  // where each starts in cpu_text_
  PodBuffer<NicPref> send_pref_, recv_pref_;
  PodBuffer<std::uint64_t> near_send_, near_recv_, near_send_gpus_, near_recv_gpus_;
  PodBuffer<double> send_share_, recv_share_;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
