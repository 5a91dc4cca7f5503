// Zero-copy, read-only access to a verified .vpcat buffer.
//
//   vpcat::CatalogView cat;
//   vpcat::Status s = vpcat::CatalogView::open(data, size, &cat);
//   if (!s.ok()) return report(s.message());
//   for (std::uint32_t t = 0; t < cat.node_type_count(); ++t) {
//     vpcat::NodeTypeView nt = cat.node_type(t);
//     ... nt.name(), nt.gpu_count(), nt.pattern(p).send(g) ...
//   }
//
// Contracts, for every accessor below:
// * The view and all sub-views (NodeTypeView, ComponentView, ...) point into
//   the caller's buffer: the buffer must outlive them and must not change.
//   Sub-views also point to their CatalogView, which must outlive them.
// * Nothing allocates, nothing throws, nothing fails: open() verified every
//   field, so accessors do no checks beyond the preconditions stated on them
//   (indexes below the matching count). Breaking a precondition is undefined
//   behaviour, as for std::vector::operator[].
// * Thread safety: any number of threads may read one view concurrently.
// * Ids: inside a node type, components and links have local ids 0..count-1
//   (the canonical order of SPEC.md "Numbering"). Cluster-wide ("global")
//   ids of components, links, GPUs and NICs follow SPEC.md "Global
//   numbering" and are computed, never stored: see NodeRef and the global_*
//   functions of CatalogView.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "vpcat/detail/records.hpp"
#include "vpcat/layout.hpp"
#include "vpcat/status.hpp"
#include "vpcat/verify.hpp"

namespace vpcat {
inline namespace v0_1 {

class CatalogView;

// A component of a node type.
class ComponentView {
 public:
  std::uint32_t id() const noexcept { return local_; }  // local id
  ComponentKind kind() const noexcept;
  std::uint32_t parent() const noexcept;       // local id of the next component towards the CPU; kNone for a cpu
  std::uint32_t local_index() const noexcept;  // rank among the node's components of the same kind
  std::uint32_t orbit() const noexcept;        // smallest local id in its orbit under Aut(node type)
  std::string_view name() const noexcept;      // "gpu3"
  std::string_view model() const noexcept;     // may be empty
  std::string_view pci_bus_id() const noexcept;   // "0000:17:00.0"; may be empty
  std::string_view device_name() const noexcept;  // "cuda0"; may be empty
  double forward_gbps() const noexcept;        // forwarding capacity; 0 = not a bottleneck
  double nic_gbps() const noexcept;            // nic: fabric port capacity per direction; 0 otherwise
  bool gpudirect() const noexcept;             // nic: GPUDirect RDMA capable

 private:
  friend class NodeTypeView;
  ComponentView(const CatalogView* c, std::uint64_t record, std::uint32_t local) noexcept
      : cat_(c), rec_(record), local_(local) {}
  const CatalogView* cat_;
  std::uint64_t rec_;
  std::uint32_t local_;
};

// A directed internal link of a node type.
class LinkView {
 public:
  std::uint32_t id() const noexcept { return local_; }  // local id
  std::uint32_t src() const noexcept;      // local component id
  std::uint32_t dst() const noexcept;      // local component id
  std::uint32_t reverse() const noexcept;  // local id of the opposite direction
  std::uint32_t orbit() const noexcept;    // smallest local link id in its orbit
  LinkKind kind() const noexcept;          // pcie or inter_socket
  double capacity_gbps() const noexcept;   // > 0

 private:
  friend class NodeTypeView;
  LinkView(const CatalogView* c, std::uint64_t record, std::uint32_t local) noexcept
      : cat_(c), rec_(record), local_(local) {}
  const CatalogView* cat_;
  std::uint64_t rec_;
  std::uint32_t local_;
};

// The route between two endpoints (GPU or NIC) of one node: a path of
// directed links from from() to to(), and the forwarding components it
// transits.
class RouteView {
 public:
  std::uint32_t from() const noexcept;  // local component id
  std::uint32_t to() const noexcept;    // local component id
  double solo_gbps() const noexcept;    // min capacity along the route, > 0
  std::uint32_t link_count() const noexcept;  // >= 1
  std::uint32_t link(std::uint32_t k) const noexcept;  // local link id; k < link_count()
  std::uint32_t forwarder_count() const noexcept;
  std::uint32_t forwarder(std::uint32_t k) const noexcept;  // local component id; k < forwarder_count()

 private:
  friend class NodeTypeView;
  RouteView(const CatalogView* c, std::uint64_t record) noexcept : cat_(c), rec_(record) {}
  const CatalogView* cat_;
  std::uint64_t rec_;
};

// A generator of Aut(node type): a kind-preserving permutation of the local
// component ids.
class GeneratorView {
 public:
  std::uint32_t size() const noexcept { return size_; }  // the node type's component count
  std::uint32_t image(std::uint32_t c) const noexcept;   // c < size()

 private:
  friend class NodeTypeView;
  GeneratorView(const CatalogView* c, std::uint64_t first, std::uint32_t size) noexcept
      : cat_(c), first_(first), size_(size) {}
  const CatalogView* cat_;
  std::uint64_t first_;
  std::uint32_t size_;
};

// One orbit representative of maximal local patterns. Roles per local GPU
// index g (0..gpu_count-1): kIdle, another local GPU index (peer-to-peer),
// or kNicBase + k (network through local NIC index k). Peer roles are
// paired: send(g) == h implies recv(h) == g.
class PatternView {
 public:
  std::uint64_t orbit_size() const noexcept;  // patterns in its orbit, >= 1
  std::uint32_t gpu_count() const noexcept { return gpus_; }
  std::int32_t send(std::uint32_t g) const noexcept;  // g < gpu_count()
  std::int32_t recv(std::uint32_t g) const noexcept;  // g < gpu_count()

 private:
  friend class NodeTypeView;
  PatternView(const CatalogView* c, std::uint64_t record, std::uint64_t roles, std::uint32_t gpus) noexcept
      : cat_(c), rec_(record), roles_(roles), gpus_(gpus) {}
  const CatalogView* cat_;
  std::uint64_t rec_, roles_;
  std::uint32_t gpus_;
};

// A node type: its topology, routes, symmetry and patterns. Components are
// sorted by kind, so GPUs are the local ids [first_gpu(), first_gpu() +
// gpu_count()) and NICs follow them up to component_count().
class NodeTypeView {
 public:
  std::uint32_t index() const noexcept { return index_; }
  std::string_view name() const noexcept;
  std::string_view group_order() const noexcept;           // |Aut|, decimal
  std::string_view patterns_represented() const noexcept;  // sum of orbit sizes, decimal

  std::uint32_t component_count() const noexcept { return components_; }
  ComponentView component(std::uint32_t local) const noexcept;  // local < component_count()
  std::uint32_t gpu_count() const noexcept { return gpus_; }
  std::uint32_t nic_count() const noexcept { return nics_; }
  std::uint32_t first_gpu() const noexcept { return components_ - nics_ - gpus_; }
  std::uint32_t gpu(std::uint32_t g) const noexcept { return first_gpu() + g; }           // local id; g < gpu_count()
  std::uint32_t nic(std::uint32_t k) const noexcept { return components_ - nics_ + k; }  // local id; k < nic_count()

  std::uint32_t link_count() const noexcept { return links_; }
  LinkView link(std::uint32_t local) const noexcept;  // local < link_count()
  // Local id of the link src -> dst, or kNone. O(log link_count).
  std::uint32_t find_link(std::uint32_t src, std::uint32_t dst) const noexcept;

  std::uint32_t route_count() const noexcept { return routes_; }  // E * (E - 1), E = gpus + nics
  RouteView route_at(std::uint32_t r) const noexcept;             // r < route_count(), in (from, to) order
  // The route between two distinct endpoints (local ids of GPUs or NICs). O(1).
  RouteView route(std::uint32_t from, std::uint32_t to) const noexcept;

  std::uint32_t generator_count() const noexcept { return generators_; }
  GeneratorView generator(std::uint32_t g) const noexcept;  // g < generator_count()

  std::uint32_t pattern_count() const noexcept { return patterns_; }
  PatternView pattern(std::uint32_t p) const noexcept;  // p < pattern_count(), in stored order

 private:
  friend class CatalogView;
  NodeTypeView(const CatalogView* c, std::uint32_t index) noexcept;
  const CatalogView* cat_;
  std::uint32_t index_;
  std::uint32_t component_first_, components_, link_first_, links_, route_first_, routes_;
  std::uint32_t generators_, permutation_first_, pattern_first_, patterns_, role_first_, gpus_, nics_;
};

// Consecutive nodes of one type, and where their ids start in the global numbering.
struct NodeGroupView {
  std::uint32_t node_type;
  std::uint32_t count;          // >= 1
  std::string_view names;       // hostlist expression expanding to `count` names ("gpu[001-032]")
  std::uint32_t first_node;
  std::uint64_t first_component, first_link, first_gpu, first_nic;
};

// One node of the cluster: its type and the global ids of its first
// component, link, GPU and NIC (its local id x maps to first_component + x).
struct NodeRef {
  std::uint32_t node;
  std::uint32_t node_type;
  std::uint32_t group;
  std::uint64_t first_component, first_link, first_gpu, first_nic;
};

struct FabricView {
  FabricKind kind;
  std::uint32_t leaf_size;       // leaf_spine: nodes per leaf; 0 otherwise
  double oversubscription;
  std::uint32_t switches;        // non-spine switches: the one switch, rails, or leaves
  bool spine;                    // one logical spine above the switches
  std::string_view group_description;
  std::string_view group_order;  // of the fabric's group acting on nodes, decimal
};

struct DefaultEntry {
  std::string_view key;  // "pcie.gen4"
  double value;
};

struct ProvenanceView {
  std::string_view tool, tool_version, input_digest, options;
  // What the analyzer assumed (import warnings), one per line; empty in a
  // 1.0 file, which has no such field.
  std::string_view warnings;
};

// One record of the machine model (format 1.2, SPEC.md §6.13): a mechanism's
// parameters and where each comes from. Curves (forwarder, family, nic): a =
// slope, b = floor; chunk: a = bytes, b = overhead_us. `on` is false for a
// family (it follows the forwarder's).
struct ModelEntryView {
  ModelPart part;
  bool on;
  std::string_view match;  // family: a substring of the socket's CPU model; empty otherwise
  double a, b;
  std::string_view a_source, b_source;
};

// A section-table entry, known or skipped.
struct SectionEntry {
  std::uint32_t type;
  const char* name;  // "patterns", or "unknown"
  std::uint32_t flags;
  std::uint64_t offset, size;
  std::uint32_t checksum;
};

class CatalogView {
 public:
  CatalogView() noexcept = default;  // empty until open() succeeds

  // Verify `size` bytes at `data` (verify.hpp) and, on success, make *out a
  // view of them. On failure *out is left unchanged.
  static Status open(const std::uint8_t* data, std::size_t size, CatalogView* out,
                     const VerifyOptions& options = VerifyOptions()) noexcept {
    Layout layout;
    Status s = verify(data, size, &layout, options);
    if (s.ok()) *out = CatalogView(data, layout);
    return s;
  }

  // ---- file ------------------------------------------------------------------
  const Layout& layout() const noexcept { return layout_; }
  const std::uint8_t* data() const noexcept { return data_; }
  std::uint64_t file_size() const noexcept { return layout_.file_size; }
  std::uint32_t section_count() const noexcept { return layout_.section_count; }
  SectionEntry section(std::uint32_t i) const noexcept;  // i < section_count(), table order

  // ---- node types ----------------------------------------------------------------
  std::uint32_t node_type_count() const noexcept { return rec(SectionType::node_types).count(); }
  NodeTypeView node_type(std::uint32_t i) const noexcept { return NodeTypeView(this, i); }  // i < node_type_count()

  // ---- cluster -------------------------------------------------------------------
  std::uint32_t node_count() const noexcept;
  std::uint64_t gpu_count() const noexcept;  // all nodes
  std::uint64_t nic_count() const noexcept;  // all nodes
  std::uint32_t node_group_count() const noexcept { return rec(SectionType::node_groups).count(); }
  NodeGroupView node_group(std::uint32_t g) const noexcept;  // g < node_group_count()
  NodeRef node(std::uint32_t n) const noexcept;              // n < node_count(); O(log groups)
  // The node and local GPU index of global GPU `gpu` (< gpu_count()); O(log groups).
  void locate_gpu(std::uint64_t gpu, std::uint32_t* node, std::uint32_t* local) const noexcept;
  FabricView fabric() const noexcept;
  std::string_view cluster_group_order() const noexcept;     // decimal

  // ---- global numbering (SPEC.md "Global numbering") --------------------------------
  // Components: every node's, in node order, then the fabric's switches
  // (switch k at nodes_component_count() + k), then the spine if any.
  std::uint64_t nodes_component_count() const noexcept;
  std::uint64_t global_switch(std::uint32_t k) const noexcept { return nodes_component_count() + k; }
  std::uint64_t global_spine() const noexcept { return nodes_component_count() + fabric_switches(); }  // if spine
  std::uint64_t global_component_count() const noexcept;
  // Links: every node's internal links, in node order; then per NIC (global
  // NIC order) its uplink NIC -> switch and its downlink switch -> NIC; then
  // per switch k its uplink k -> spine and its downlink spine -> k. A fabric
  // of kind none has no network link.
  std::uint64_t nodes_link_count() const noexcept;
  std::uint64_t global_nic_uplink(std::uint64_t nic) const noexcept { return nodes_link_count() + 2 * nic; }
  std::uint64_t global_nic_downlink(std::uint64_t nic) const noexcept { return global_nic_uplink(nic) + 1; }
  std::uint64_t global_spine_uplink(std::uint32_t k) const noexcept {
    return nodes_link_count() + 2 * nic_count() + 2 * std::uint64_t{k};
  }
  std::uint64_t global_spine_downlink(std::uint32_t k) const noexcept { return global_spine_uplink(k) + 1; }
  std::uint64_t global_link_count() const noexcept;
  // The switch (0..switches-1) that local NIC k of node n connects to.
  std::uint32_t switch_of_nic(std::uint32_t n, std::uint32_t k) const noexcept;
  double spine_uplink_gbps(std::uint32_t k) const noexcept;  // k < fabric().switches; 0 without a spine

  // ---- defaults and provenance -------------------------------------------------------
  std::uint32_t default_count() const noexcept { return rec(SectionType::defaults).count(); }
  DefaultEntry default_at(std::uint32_t i) const noexcept;  // i < default_count(), sorted by key
  ProvenanceView provenance() const noexcept;

  // ---- machine model (format 1.2; absent from older files) ---------------------------
  // Records in order: forwarder, its CPU families, nic, chunk (the verifier
  // proved that order). planner/catalog_machine.hpp turns them into a
  // MachineModel.
  bool has_machine_model() const noexcept { return layout_[SectionType::machine_model].offset != 0; }
  std::uint32_t model_entry_count() const noexcept { return rec(SectionType::machine_model).count(); }  // 0 when absent
  ModelEntryView model_entry(std::uint32_t i) const noexcept;  // i < model_entry_count()

  // ---- low level (for the sub-views and tools) -------------------------------------
  detail::Records rec(SectionType t) const noexcept { return detail::Records(data_, layout_, t); }
  std::string_view string(std::uint32_t i) const noexcept { return detail::string_at(data_, layout_, i); }

 private:
  CatalogView(const std::uint8_t* data, const Layout& layout) noexcept : data_(data), layout_(layout) {}
  std::uint32_t fabric_switches() const noexcept { return rec(SectionType::cluster).u32(0, cluster::switches); }
  const std::uint8_t* data_ = nullptr;
  Layout layout_;
};

// ---- inline definitions ----------------------------------------------------------------

inline ComponentKind ComponentView::kind() const noexcept {
  return static_cast<ComponentKind>(cat_->rec(SectionType::components).u8(rec_, component::kind));
}
inline std::uint32_t ComponentView::parent() const noexcept { return cat_->rec(SectionType::components).u32(rec_, component::parent); }
inline std::uint32_t ComponentView::local_index() const noexcept {
  return cat_->rec(SectionType::components).u32(rec_, component::local_index);
}
inline std::uint32_t ComponentView::orbit() const noexcept { return cat_->rec(SectionType::components).u32(rec_, component::orbit); }
inline std::string_view ComponentView::name() const noexcept {
  return cat_->string(cat_->rec(SectionType::components).u32(rec_, component::name));
}
inline std::string_view ComponentView::model() const noexcept {
  return cat_->string(cat_->rec(SectionType::components).u32(rec_, component::model));
}
inline std::string_view ComponentView::pci_bus_id() const noexcept {
  return cat_->string(cat_->rec(SectionType::components).u32(rec_, component::pci_bus_id));
}
inline std::string_view ComponentView::device_name() const noexcept {
  return cat_->string(cat_->rec(SectionType::components).u32(rec_, component::device_name));
}
inline double ComponentView::forward_gbps() const noexcept {
  return cat_->rec(SectionType::components).f64(rec_, component::forward_gbps);
}
inline double ComponentView::nic_gbps() const noexcept { return cat_->rec(SectionType::components).f64(rec_, component::nic_gbps); }
inline bool ComponentView::gpudirect() const noexcept {
  return (cat_->rec(SectionType::components).u8(rec_, component::flags) & kComponentGpuDirect) != 0;
}

inline std::uint32_t LinkView::src() const noexcept { return cat_->rec(SectionType::links).u32(rec_, link::src); }
inline std::uint32_t LinkView::dst() const noexcept { return cat_->rec(SectionType::links).u32(rec_, link::dst); }
inline std::uint32_t LinkView::reverse() const noexcept { return cat_->rec(SectionType::links).u32(rec_, link::reverse); }
inline std::uint32_t LinkView::orbit() const noexcept { return cat_->rec(SectionType::links).u32(rec_, link::orbit); }
inline LinkKind LinkView::kind() const noexcept {
  return static_cast<LinkKind>(cat_->rec(SectionType::links).u8(rec_, link::kind));
}
inline double LinkView::capacity_gbps() const noexcept { return cat_->rec(SectionType::links).f64(rec_, link::capacity_gbps); }

inline std::uint32_t RouteView::from() const noexcept { return cat_->rec(SectionType::routes).u32(rec_, route::from); }
inline std::uint32_t RouteView::to() const noexcept { return cat_->rec(SectionType::routes).u32(rec_, route::to); }
inline double RouteView::solo_gbps() const noexcept { return cat_->rec(SectionType::routes).f64(rec_, route::solo_gbps); }
inline std::uint32_t RouteView::link_count() const noexcept { return cat_->rec(SectionType::routes).u32(rec_, route::link_count); }
inline std::uint32_t RouteView::link(std::uint32_t k) const noexcept {
  return cat_->rec(SectionType::route_hops).u32(std::uint64_t{cat_->rec(SectionType::routes).u32(rec_, route::hop_first)} + k);
}
inline std::uint32_t RouteView::forwarder_count() const noexcept {
  return cat_->rec(SectionType::routes).u32(rec_, route::forwarder_count);
}
inline std::uint32_t RouteView::forwarder(std::uint32_t k) const noexcept {
  const detail::Records r = cat_->rec(SectionType::routes);
  return cat_->rec(SectionType::route_hops)
      .u32(std::uint64_t{r.u32(rec_, route::hop_first)} + r.u32(rec_, route::link_count) + k);
}

inline std::uint32_t GeneratorView::image(std::uint32_t c) const noexcept {
  return cat_->rec(SectionType::permutations).u32(first_ + c);
}

inline std::uint64_t PatternView::orbit_size() const noexcept {
  return cat_->rec(SectionType::patterns).u64(rec_, pattern::orbit_size);
}
inline std::int32_t PatternView::send(std::uint32_t g) const noexcept {
  return cat_->rec(SectionType::pattern_roles).i32(roles_ + g);
}
inline std::int32_t PatternView::recv(std::uint32_t g) const noexcept {
  return cat_->rec(SectionType::pattern_roles).i32(roles_ + gpus_ + g);
}

inline NodeTypeView::NodeTypeView(const CatalogView* c, std::uint32_t index) noexcept : cat_(c), index_(index) {
  const detail::NodeTypeRanges r = detail::read_node_type(c->rec(SectionType::node_types), index);
  component_first_ = r.component_first, components_ = r.component_count;
  link_first_ = r.link_first, links_ = r.link_count;
  route_first_ = r.route_first, routes_ = r.route_count;
  generators_ = r.generator_count, permutation_first_ = r.permutation_first;
  pattern_first_ = r.pattern_first, patterns_ = r.pattern_count, role_first_ = r.role_first;
  gpus_ = r.gpu_count, nics_ = r.nic_count;
}
inline std::string_view NodeTypeView::name() const noexcept {
  return cat_->string(cat_->rec(SectionType::node_types).u32(index_, node_type::name));
}
inline std::string_view NodeTypeView::group_order() const noexcept {
  return cat_->string(cat_->rec(SectionType::node_types).u32(index_, node_type::group_order));
}
inline std::string_view NodeTypeView::patterns_represented() const noexcept {
  return cat_->string(cat_->rec(SectionType::node_types).u32(index_, node_type::patterns_represented));
}
inline ComponentView NodeTypeView::component(std::uint32_t local) const noexcept {
  return ComponentView(cat_, std::uint64_t{component_first_} + local, local);
}
inline LinkView NodeTypeView::link(std::uint32_t local) const noexcept {
  return LinkView(cat_, std::uint64_t{link_first_} + local, local);
}
inline std::uint32_t NodeTypeView::find_link(std::uint32_t src, std::uint32_t dst) const noexcept {
  const detail::Records l = cat_->rec(SectionType::links);
  std::uint32_t lo = 0, hi = links_;
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    const std::uint32_t s = l.u32(std::uint64_t{link_first_} + mid, link::src);
    const std::uint32_t d = l.u32(std::uint64_t{link_first_} + mid, link::dst);
    if (s < src || (s == src && d < dst)) lo = mid + 1;
    else hi = mid;
  }
  if (lo < links_ && l.u32(std::uint64_t{link_first_} + lo, link::src) == src &&
      l.u32(std::uint64_t{link_first_} + lo, link::dst) == dst)
    return lo;
  return kNone;
}
inline RouteView NodeTypeView::route_at(std::uint32_t r) const noexcept {
  return RouteView(cat_, std::uint64_t{route_first_} + r);
}
inline RouteView NodeTypeView::route(std::uint32_t from, std::uint32_t to) const noexcept {
  const std::uint32_t e = gpus_ + nics_, a = from - first_gpu(), b = to - first_gpu();
  return route_at(a * (e - 1) + (b < a ? b : b - 1));
}
inline GeneratorView NodeTypeView::generator(std::uint32_t g) const noexcept {
  return GeneratorView(cat_, std::uint64_t{permutation_first_} + std::uint64_t{g} * components_, components_);
}
inline PatternView NodeTypeView::pattern(std::uint32_t p) const noexcept {
  return PatternView(cat_, std::uint64_t{pattern_first_} + p, std::uint64_t{role_first_} + std::uint64_t{p} * 2u * gpus_,
                     gpus_);
}

inline SectionEntry CatalogView::section(std::uint32_t i) const noexcept {
  const std::uint8_t* p = data_ + layout_.header_size + std::uint64_t{i} * layout_.entry_size;
  const std::uint32_t type = bytes::load_u32(p + entry::type);
  return {type, section_name(type), bytes::load_u32(p + entry::flags), bytes::load_u64(p + entry::offset),
          bytes::load_u64(p + entry::size), bytes::load_u32(p + entry::checksum)};
}
inline std::uint32_t CatalogView::node_count() const noexcept { return rec(SectionType::cluster).u32(0, cluster::node_count); }
inline std::uint64_t CatalogView::gpu_count() const noexcept { return rec(SectionType::cluster).u64(0, cluster::gpu_count); }
inline std::uint64_t CatalogView::nic_count() const noexcept { return rec(SectionType::cluster).u64(0, cluster::nic_count); }
inline NodeGroupView CatalogView::node_group(std::uint32_t g) const noexcept {
  const detail::Records r = rec(SectionType::node_groups);
  return {r.u32(g, node_group::node_type),       r.u32(g, node_group::count),
          string(r.u32(g, node_group::names)),   r.u32(g, node_group::first_node),
          r.u64(g, node_group::first_component), r.u64(g, node_group::first_link),
          r.u64(g, node_group::first_gpu),       r.u64(g, node_group::first_nic)};
}
inline NodeRef CatalogView::node(std::uint32_t n) const noexcept {
  const detail::Records r = rec(SectionType::node_groups);
  std::uint32_t lo = 0, hi = r.count();  // last group with first_node <= n
  while (hi - lo > 1) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (r.u32(mid, node_group::first_node) <= n) lo = mid;
    else hi = mid;
  }
  const NodeGroupView g = node_group(lo);
  const NodeTypeView t = node_type(g.node_type);
  const std::uint64_t k = n - g.first_node;
  return {n,
          g.node_type,
          lo,
          g.first_component + k * t.component_count(),
          g.first_link + k * t.link_count(),
          g.first_gpu + k * t.gpu_count(),
          g.first_nic + k * t.nic_count()};
}
inline void CatalogView::locate_gpu(std::uint64_t gpu, std::uint32_t* node, std::uint32_t* local) const noexcept {
  const detail::Records r = rec(SectionType::node_groups);
  std::uint32_t lo = 0, hi = r.count();  // the last group with first_gpu <= gpu
  while (hi - lo > 1) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (node_group(mid).first_gpu <= gpu) lo = mid;
    else hi = mid;
  }
  const NodeGroupView g = node_group(lo);
  const std::uint32_t per_node = node_type(g.node_type).gpu_count();  // > 0: the group holds `gpu`
  const std::uint64_t k = (gpu - g.first_gpu) / per_node;
  *node = g.first_node + static_cast<std::uint32_t>(k);
  *local = static_cast<std::uint32_t>(gpu - g.first_gpu - k * per_node);
}
inline FabricView CatalogView::fabric() const noexcept {
  const detail::Records r = rec(SectionType::cluster);
  return {static_cast<FabricKind>(r.u8(0, cluster::fabric_kind)),
          r.u32(0, cluster::leaf_size),
          r.f64(0, cluster::oversubscription),
          r.u32(0, cluster::switches),
          (r.u8(0, cluster::flags) & kClusterSpine) != 0,
          string(r.u32(0, cluster::group_description)),
          string(r.u32(0, cluster::fabric_group_order))};
}
inline std::string_view CatalogView::cluster_group_order() const noexcept {
  return string(rec(SectionType::cluster).u32(0, cluster::cluster_group_order));
}
inline std::uint64_t CatalogView::nodes_component_count() const noexcept {
  return rec(SectionType::cluster).u64(0, cluster::component_count);
}
inline std::uint64_t CatalogView::global_component_count() const noexcept {
  const FabricView f = fabric();
  return nodes_component_count() + f.switches + (f.spine ? 1u : 0u);
}
inline std::uint64_t CatalogView::nodes_link_count() const noexcept { return rec(SectionType::cluster).u64(0, cluster::link_count); }
inline std::uint64_t CatalogView::global_link_count() const noexcept {
  const FabricView f = fabric();
  if (f.kind == FabricKind::none) return nodes_link_count();
  return nodes_link_count() + 2 * nic_count() + (f.spine ? 2 * std::uint64_t{f.switches} : 0u);
}
inline std::uint32_t CatalogView::switch_of_nic(std::uint32_t n, std::uint32_t k) const noexcept {
  const FabricView f = fabric();
  switch (f.kind) {
    case FabricKind::rail: return k;
    case FabricKind::leaf_spine: return n / f.leaf_size;
    default: return 0;
  }
}
inline double CatalogView::spine_uplink_gbps(std::uint32_t k) const noexcept { return rec(SectionType::spine_uplinks).f64(k); }
inline DefaultEntry CatalogView::default_at(std::uint32_t i) const noexcept {
  const detail::Records r = rec(SectionType::defaults);
  return {string(r.u32(i, default_entry::key)), r.f64(i, default_entry::value)};
}
inline ProvenanceView CatalogView::provenance() const noexcept {
  const detail::Records r = rec(SectionType::provenance);
  const bool has_warnings = r.ref.record_size >= provenance::size;
  return {string(r.u32(0, provenance::tool)), string(r.u32(0, provenance::tool_version)),
          string(r.u32(0, provenance::input_digest)), string(r.u32(0, provenance::options)),
          has_warnings ? string(r.u32(0, provenance::warnings)) : std::string_view()};
}

inline ModelEntryView CatalogView::model_entry(std::uint32_t i) const noexcept {
  const detail::Records r = rec(SectionType::machine_model);
  return {static_cast<ModelPart>(r.u8(i, model_entry::part)),
          (r.u8(i, model_entry::flags) & kModelOn) != 0,
          string(r.u32(i, model_entry::match)),
          r.f64(i, model_entry::a),
          r.f64(i, model_entry::b),
          string(r.u32(i, model_entry::a_source)),
          string(r.u32(i, model_entry::b_source))};
}

}  // namespace v0_1
}  // namespace vpcat
