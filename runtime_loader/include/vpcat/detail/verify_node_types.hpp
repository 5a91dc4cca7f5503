// Verification, part 2: node types and what they own (components, links,
// routes and their hops, generator permutations, patterns and their roles).
// SPEC.md "node_types" .. "pattern_roles". Internal to verify.hpp.
//
// Every node type owns a contiguous range of each array, the ranges of
// consecutive node types are adjacent, and together they cover each array
// exactly; the ranges are proven in bounds before any record is read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "vpcat/detail/verify_context.hpp"
#include "vpcat/pci_bus_id.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

// One node type's fields, read once.
struct NodeTypeRanges {
  std::uint32_t index = 0;
  std::uint32_t component_first = 0, component_count = 0;
  std::uint32_t link_first = 0, link_count = 0;
  std::uint32_t route_first = 0, route_count = 0;
  std::uint32_t generator_count = 0, permutation_first = 0;
  std::uint32_t pattern_first = 0, pattern_count = 0;
  std::uint32_t role_first = 0;
  std::uint32_t gpu_count = 0, nic_count = 0;
};

inline NodeTypeRanges read_node_type(const Records& t, std::uint32_t i) noexcept {
  NodeTypeRanges n;
  n.index = i;
  n.component_first = t.u32(i, node_type::component_first);
  n.component_count = t.u32(i, node_type::component_count);
  n.link_first = t.u32(i, node_type::link_first);
  n.link_count = t.u32(i, node_type::link_count);
  n.route_first = t.u32(i, node_type::route_first);
  n.route_count = t.u32(i, node_type::route_count);
  n.generator_count = t.u32(i, node_type::generator_count);
  n.permutation_first = t.u32(i, node_type::permutation_first);
  n.pattern_first = t.u32(i, node_type::pattern_first);
  n.pattern_count = t.u32(i, node_type::pattern_count);
  n.role_first = t.u32(i, node_type::role_first);
  n.gpu_count = t.u32(i, node_type::gpu_count);
  n.nic_count = t.u32(i, node_type::nic_count);
  return n;
}

// A NIC port as nic_ports() tracks the flows of one pattern and direction.
struct NicPort {
  double gbps = 0.0;        // the node type's NIC's nic_gbps
  double load = 0.0;        // the flows through it so far, once shared
  std::uint64_t stamp = 0;  // the pattern and direction of its last use (0: none)
  std::uint32_t first = 0;  // the first GPU of that use
  bool shared = false;      // a second GPU of that use: load is counted
};

// The NICs a pattern's roles name, per direction, as masks of NIC indexes
// below 64 (higher ones alias: one_flow_per_port() is then not used): a
// test of nic_ports()'s common case without a branch per role.
struct NicUse {
  std::uint64_t used = 0, twice = 0;
  void add(std::int32_t role) noexcept {
    const std::uint64_t bit = role >= kNicBase ? std::uint64_t{1} << ((role - kNicBase) & 63) : 0;
    twice |= used & bit;
    used |= bit;
  }
  // No NIC named twice and none in `no_port`: every port carries one flow,
  // which fits it (its route's solo rate counts the port).
  bool one_flow_per_port(std::uint64_t no_port) const noexcept { return (twice | (used & no_port)) == 0; }
};

class NodeTypeVerifier {
 public:
  explicit NodeTypeVerifier(const VerifyContext& c) noexcept
      : c_(c),
        types_(c.records(SectionType::node_types)),
        comps_(c.records(SectionType::components)),
        links_(c.records(SectionType::links)),
        routes_(c.records(SectionType::routes)),
        hops_(c.records(SectionType::route_hops)),
        perms_(c.records(SectionType::permutations)),
        patterns_(c.records(SectionType::patterns)),
        roles_(c.records(SectionType::pattern_roles)) {}

  Status run() noexcept {
    std::uint32_t largest = 0;
    for (std::uint32_t i = 0; i < types_.count(); ++i) {
      const std::uint32_t n = types_.u32(i, node_type::component_count);
      largest = n > largest ? n : largest;
    }
    // No valid node type has more components than the components section,
    // whose size bounds it: allocate no more than that, before ranges().
    seen_.assign(largest < comps_.count() ? largest : comps_.count(), 0);
    ports_.assign(seen_.size(), NicPort());
    for (std::uint32_t i = 0; i < types_.count(); ++i) {
      t_ = read_node_type(types_, i);
      Status s = strings();
      if (s.ok()) s = ranges();
      if (s.ok()) s = components();
      if (s.ok()) s = links();
      if (s.ok()) s = tree();
      if (s.ok()) s = routes();
      if (s.ok()) s = generators();
      if (s.ok()) s = patterns();
      if (s.ok()) s = orbit_sizes();
      if (!s.ok()) return s;
    }
    return totals();
  }

 private:
  // ---- the node type record -----------------------------------------------------
  Status strings() const noexcept {
    if (Status s = c_.check_string(types_, t_.index, node_type::name, "name"); !s.ok()) return s;
    if (Status s = c_.check_decimal(types_, t_.index, node_type::group_order, "group_order"); !s.ok()) return s;
    return c_.check_decimal(types_, t_.index, node_type::patterns_represented, "patterns_represented");
  }

  // `first` must continue where the previous node type stopped, and
  // `first + count` must stay inside the array.
  Status range(std::size_t first_field, std::uint32_t first, std::uint64_t count, std::uint64_t& cursor,
               const Records& array, const char* what) const noexcept {
    if (first != cursor)
      return Status::in_section(Error::bad_range, types_.type, types_.at(t_.index, first_field),
                                "node type %lu: %s %lu, expected %llu (right after the previous node type's)",
                                ul(t_.index), what, ul(first), ull(cursor));
    if (count > array.count() - cursor)
      return Status::in_section(Error::bad_range, types_.type, types_.at(t_.index, first_field),
                                "node type %lu: %s %lu + %llu records is past the %lu records of section '%s'",
                                ul(t_.index), what, ul(first), ull(count), ul(array.count()),
                                section_name(array.type));
    cursor += count;
    return {};
  }

  Status ranges() noexcept {
    const std::uint64_t perms = std::uint64_t{t_.generator_count} * t_.component_count;
    const std::uint64_t roles = std::uint64_t{t_.pattern_count} * 2u * t_.gpu_count;
    Status s = range(node_type::component_first, t_.component_first, t_.component_count, component_cursor_, comps_,
                     "component_first");
    if (s.ok()) s = range(node_type::link_first, t_.link_first, t_.link_count, link_cursor_, links_, "link_first");
    if (s.ok()) s = range(node_type::route_first, t_.route_first, t_.route_count, route_cursor_, routes_, "route_first");
    if (s.ok())
      s = range(node_type::permutation_first, t_.permutation_first, perms, permutation_cursor_, perms_,
                "permutation_first");
    if (s.ok())
      s = range(node_type::pattern_first, t_.pattern_first, t_.pattern_count, pattern_cursor_, patterns_,
                "pattern_first");
    if (s.ok()) s = range(node_type::role_first, t_.role_first, roles, role_cursor_, roles_, "role_first");
    return s;
  }

  Status total(const Records& array, std::uint64_t used) const noexcept {
    if (used != array.count())
      return Status::in_section(Error::bad_range, array.type, array.ref.offset + section::count,
                                "%lu records, the node types use %llu", ul(array.count()), ull(used));
    return {};
  }

  Status totals() const noexcept {
    Status s = total(comps_, component_cursor_);
    if (s.ok()) s = total(links_, link_cursor_);
    if (s.ok()) s = total(routes_, route_cursor_);
    if (s.ok()) s = total(hops_, hop_cursor_);
    if (s.ok()) s = total(perms_, permutation_cursor_);
    if (s.ok()) s = total(patterns_, pattern_cursor_);
    if (s.ok()) s = total(roles_, role_cursor_);
    return s;
  }

  // ---- components ------------------------------------------------------------------
  std::uint8_t kind(std::uint32_t local) const noexcept { return comps_.u8(t_.component_first + local, component::kind); }
  std::uint32_t parent(std::uint32_t local) const noexcept {
    return comps_.u32(t_.component_first + local, component::parent);
  }

  static bool valid_parent(std::uint8_t child, std::uint8_t parent) noexcept {
    const auto p = static_cast<ComponentKind>(parent);
    switch (static_cast<ComponentKind>(child)) {
      case ComponentKind::host_bridge: return p == ComponentKind::cpu;
      case ComponentKind::pcie_switch:
      case ComponentKind::gpu:
      case ComponentKind::nic: return p == ComponentKind::pcie_switch || p == ComponentKind::host_bridge;
      default: return false;
    }
  }

  Status component_strings(std::uint32_t i) const noexcept {
    Status s = c_.check_string(comps_, i, component::name, "name");
    if (s.ok()) s = c_.check_string(comps_, i, component::model, "model");
    if (s.ok()) s = c_.check_string(comps_, i, component::pci_bus_id, "pci_bus_id");
    if (s.ok()) s = c_.check_string(comps_, i, component::device_name, "device_name");
    return s;
  }

  // Empty, or DOMAIN:BB:DD.F in lower-case hexadecimal: a 4- to 8-digit
  // domain, 2-digit bus and device (at most 1f), 1-digit function (at most
  // 7), what the importers write (vpcat/pci_bus_id.hpp).
  Status bus_id(std::uint32_t i) const noexcept {
    const std::string_view v = string_at(c_.data, c_.layout, comps_.u32(i, component::pci_bus_id));
    if (v.empty() || is_canonical_pci_bus_id(v)) return {};
    return Status::in_section(Error::bad_bus_id, comps_.type, comps_.at(i, component::pci_bus_id),
                              "component %lu: pci_bus_id is not empty and not dddd:bb:dd.f (lower-case hex)", ul(i));
  }

  Status components() const noexcept {
    const std::uint32_t n = t_.component_count;
    std::uint32_t per_kind[5] = {};
    for (std::uint32_t local = 0; local < n; ++local) {
      const std::uint32_t i = t_.component_first + local;
      const std::uint8_t k = kind(local);
      if (k > static_cast<std::uint8_t>(ComponentKind::nic))
        return Status::in_section(Error::bad_enum, comps_.type, comps_.at(i, component::kind),
                                  "component %lu: kind %u; a node holds kinds 0 = cpu to 4 = nic", ul(i), k);
      if (local > 0 && k < kind(local - 1))
        return Status::in_section(Error::bad_order, comps_.type, comps_.at(i, component::kind),
                                  "component %lu: kind %u after kind %u; a node's components are sorted by kind",
                                  ul(i), k, kind(local - 1));
      const std::uint32_t index = comps_.u32(i, component::local_index);
      if (index != per_kind[k])
        return Status::in_section(Error::bad_order, comps_.type, comps_.at(i, component::local_index),
                                  "component %lu: local_index %lu, expected %lu (its rank among its kind)", ul(i),
                                  ul(index), ul(per_kind[k]));
      ++per_kind[k];
      const std::uint8_t flags = comps_.u8(i, component::flags);
      if ((flags & ~kComponentFlagsKnown) != 0)
        return Status::in_section(Error::reserved_flag, comps_.type, comps_.at(i, component::flags),
                                  "component %lu: flags 0x%02x", ul(i), flags);
      if (Status s = c_.check_zero(comps_.type, nullptr, comps_.at(i, component::reserved), 2); !s.ok()) return s;
      if (Status s = component_strings(i); !s.ok()) return s;
      const double forward = comps_.f64(i, component::forward_gbps), nic_gbps = comps_.f64(i, component::nic_gbps);
      if (!finite_at_least_zero(forward))
        return Status::in_section(Error::bad_number, comps_.type, comps_.at(i, component::forward_gbps),
                                  "component %lu: forward_gbps must be finite and >= 0", ul(i));
      if (!positive_normal_or_zero(forward))
        return Status::in_section(Error::bad_number, comps_.type, comps_.at(i, component::forward_gbps),
                                  "component %lu: forward_gbps %g is denormal", ul(i), forward);
      if (!finite_at_least_zero(nic_gbps))
        return Status::in_section(Error::bad_number, comps_.type, comps_.at(i, component::nic_gbps),
                                  "component %lu: nic_gbps must be finite and >= 0", ul(i));
      if (!positive_normal_or_zero(nic_gbps))
        return Status::in_section(Error::bad_number, comps_.type, comps_.at(i, component::nic_gbps),
                                  "component %lu: nic_gbps %g is denormal", ul(i), nic_gbps);
      if (nic_gbps != 0.0 && k != static_cast<std::uint8_t>(ComponentKind::nic))
        return Status::in_section(Error::bad_number, comps_.type, comps_.at(i, component::nic_gbps),
                                  "component %lu: nic_gbps of a %s must be 0", ul(i), component_kind_name(k));
      if (Status s = bus_id(i); !s.ok()) return s;
      const std::uint32_t p = parent(local);
      if (k == static_cast<std::uint8_t>(ComponentKind::cpu)) {
        if (p != kNone)
          return Status::in_section(Error::bad_tree, comps_.type, comps_.at(i, component::parent),
                                    "component %lu: a cpu has parent %lu, expected none", ul(i), ul(p));
      } else if (p >= n) {
        return Status::in_section(Error::bad_id, comps_.type, comps_.at(i, component::parent),
                                  "component %lu: parent %lu, the node type has %lu components", ul(i), ul(p), ul(n));
      } else if (!valid_parent(k, kind(p))) {
        return Status::in_section(Error::bad_tree, comps_.type, comps_.at(i, component::parent),
                                  "component %lu: a %s cannot hang below a %s", ul(i), component_kind_name(k),
                                  component_kind_name(kind(p)));
      }
    }
    if (per_kind[3] != t_.gpu_count || per_kind[4] != t_.nic_count)
      return Status::in_section(Error::bad_count, types_.type, types_.at(t_.index, node_type::gpu_count),
                                "node type %lu: gpu_count %lu and nic_count %lu, its components hold %lu and %lu",
                                ul(t_.index), ul(t_.gpu_count), ul(t_.nic_count), ul(per_kind[3]), ul(per_kind[4]));
    for (std::uint32_t local = 0; local < n; ++local) {
      const std::uint32_t i = t_.component_first + local;
      const std::uint32_t o = comps_.u32(i, component::orbit);
      if (o > local || comps_.u32(t_.component_first + o, component::orbit) != o || kind(o) != kind(local))
        return Status::in_section(Error::bad_orbit, comps_.type, comps_.at(i, component::orbit),
                                  "component %lu: orbit %lu; an orbit is named by its smallest member, of the same kind",
                                  ul(i), ul(o));
    }
    return {};
  }

  // ---- links -------------------------------------------------------------------------
  // Local link id of src -> dst, or kNone (links are sorted by (src, dst)).
  std::uint32_t find_link(std::uint32_t src, std::uint32_t dst) const noexcept {
    std::uint32_t lo = 0, hi = t_.link_count;
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      const std::uint32_t s = links_.u32(t_.link_first + mid, link::src);
      const std::uint32_t d = links_.u32(t_.link_first + mid, link::dst);
      if (s < src || (s == src && d < dst)) lo = mid + 1;
      else hi = mid;
    }
    if (lo < t_.link_count && links_.u32(t_.link_first + lo, link::src) == src &&
        links_.u32(t_.link_first + lo, link::dst) == dst)
      return lo;
    return kNone;
  }

  Status links() const noexcept {
    const std::uint32_t n = t_.component_count, count = t_.link_count;
    for (std::uint32_t local = 0; local < count; ++local) {
      const std::uint32_t i = t_.link_first + local;
      const std::uint32_t src = links_.u32(i, link::src), dst = links_.u32(i, link::dst);
      const std::uint8_t k = links_.u8(i, link::kind);
      if (src >= n || dst >= n)
        return Status::in_section(Error::bad_id, links_.type, links_.at(i, src >= n ? link::src : link::dst),
                                  "link %lu: %lu -> %lu, the node type has %lu components", ul(i), ul(src), ul(dst),
                                  ul(n));
      if (src == dst)
        return Status::in_section(Error::bad_link, links_.type, links_.at(i, link::dst),
                                  "link %lu joins component %lu to itself", ul(i), ul(src));
      if (local > 0) {
        const std::uint32_t ps = links_.u32(i - 1, link::src), pd = links_.u32(i - 1, link::dst);
        if (src < ps || (src == ps && dst <= pd))
          return Status::in_section(Error::bad_order, links_.type, links_.at(i, link::src),
                                    "link %lu (%lu -> %lu) after (%lu -> %lu); links are sorted by (src, dst), once each",
                                    ul(i), ul(src), ul(dst), ul(ps), ul(pd));
      }
      if (k > static_cast<std::uint8_t>(LinkKind::network))
        return Status::in_section(Error::bad_enum, links_.type, links_.at(i, link::kind), "link %lu: kind %u", ul(i), k);
      if (k == static_cast<std::uint8_t>(LinkKind::network))
        return Status::in_section(Error::bad_link, links_.type, links_.at(i, link::kind),
                                  "link %lu: a network link inside a node type", ul(i));
      if (Status s = c_.check_zero(links_.type, nullptr, links_.at(i, link::reserved), 7); !s.ok()) return s;
      const double capacity = links_.f64(i, link::capacity_gbps);
      if (!finite_positive(capacity))
        return Status::in_section(Error::bad_number, links_.type, links_.at(i, link::capacity_gbps),
                                  "link %lu: capacity_gbps must be finite and > 0", ul(i));
      if (!positive_normal(capacity))
        return Status::in_section(Error::bad_number, links_.type, links_.at(i, link::capacity_gbps),
                                  "link %lu: capacity_gbps %g is denormal", ul(i), capacity);
    }
    for (std::uint32_t local = 0; local < count; ++local) {
      const std::uint32_t i = t_.link_first + local;
      const std::uint32_t r = links_.u32(i, link::reverse);
      if (r >= count)
        return Status::in_section(Error::bad_id, links_.type, links_.at(i, link::reverse),
                                  "link %lu: reverse %lu, the node type has %lu links", ul(i), ul(r), ul(count));
      const std::uint32_t j = t_.link_first + r;
      if (links_.u32(j, link::src) != links_.u32(i, link::dst) || links_.u32(j, link::dst) != links_.u32(i, link::src) ||
          links_.u32(j, link::reverse) != local || links_.u8(j, link::kind) != links_.u8(i, link::kind))
        return Status::in_section(Error::bad_link, links_.type, links_.at(i, link::reverse),
                                  "link %lu: its reverse %lu is not the same link the other way", ul(i), ul(r));
      const std::uint32_t o = links_.u32(i, link::orbit);
      if (o > local || links_.u32(t_.link_first + o, link::orbit) != o)
        return Status::in_section(Error::bad_orbit, links_.type, links_.at(i, link::orbit),
                                  "link %lu: orbit %lu; an orbit is named by its smallest member", ul(i), ul(o));
    }
    return {};
  }

  // Every parent relation is backed by a link, and every chain reaches a cpu.
  Status tree() const noexcept {
    // A chain longer than the node's component count is a cycle.
    const std::uint32_t depth =
        c_.opts.max_tree_depth < t_.component_count ? c_.opts.max_tree_depth : t_.component_count;
    for (std::uint32_t local = 0; local < t_.component_count; ++local) {
      const std::uint32_t i = t_.component_first + local;
      const std::uint32_t p = parent(local);
      if (p != kNone && find_link(local, p) == kNone)
        return Status::in_section(Error::bad_tree, comps_.type, comps_.at(i, component::parent),
                                  "component %lu: no link to its parent %lu", ul(i), ul(p));
      std::uint32_t c = local, steps = 0;
      while (parent(c) != kNone && steps <= depth) c = parent(c), ++steps;
      if (steps > depth)
        return Status::in_section(Error::bad_tree, comps_.type, comps_.at(i, component::parent),
                                  "component %lu: its parent chain does not reach a cpu within %lu steps: "
                                  "a cycle, or deeper than max_tree_depth",
                                  ul(i), ul(depth));
    }
    return {};
  }

  // ---- routes ------------------------------------------------------------------------
  // One route per ordered pair of distinct endpoints (GPUs, then NICs: the
  // last gpu_count + nic_count components), in (from, to) order.
  Status routes() noexcept {
    const std::uint64_t e = std::uint64_t{t_.gpu_count} + t_.nic_count;
    const std::uint32_t first_endpoint = t_.component_count - static_cast<std::uint32_t>(e);
    if (t_.route_count != e * (e == 0 ? 0 : e - 1))
      return Status::in_section(Error::bad_count, types_.type, types_.at(t_.index, node_type::route_count),
                                "node type %lu: %lu routes, expected %llu for %llu endpoints", ul(t_.index),
                                ul(t_.route_count), ull(e * (e == 0 ? 0 : e - 1)), ull(e));
    // Unmarked: generators() of the type before leaves its marks; simple_path()
    // clears its own.
    for (std::uint32_t c = 0; c < t_.component_count; ++c) seen_[c] = 0;
    for (std::uint32_t r = 0; r < t_.route_count; ++r) {
      const std::uint64_t i = std::uint64_t{t_.route_first} + r;
      const std::uint32_t a = static_cast<std::uint32_t>(r / (e - 1)), b0 = static_cast<std::uint32_t>(r % (e - 1));
      const std::uint32_t from = first_endpoint + a, to = first_endpoint + (b0 < a ? b0 : b0 + 1);
      if (routes_.u32(i, route::from) != from || routes_.u32(i, route::to) != to)
        return Status::in_section(Error::bad_route, routes_.type, routes_.at(i, route::from),
                                  "route %llu goes %lu -> %lu, expected %lu -> %lu (one per ordered endpoint pair)",
                                  ull(i), ul(routes_.u32(i, route::from)), ul(routes_.u32(i, route::to)), ul(from),
                                  ul(to));
      if (Status s = c_.check_zero(routes_.type, nullptr, routes_.at(i, route::reserved), 4); !s.ok()) return s;
      const double solo = routes_.f64(i, route::solo_gbps);
      if (!finite_positive(solo))
        return Status::in_section(Error::bad_number, routes_.type, routes_.at(i, route::solo_gbps),
                                  "route %llu: solo_gbps must be finite and > 0", ull(i));
      if (!positive_normal(solo))
        return Status::in_section(Error::bad_number, routes_.type, routes_.at(i, route::solo_gbps),
                                  "route %llu: solo_gbps %g is denormal", ull(i), solo);
      if (Status s = route_hops(i, from, to); !s.ok()) return s;
    }
    return {};
  }

  Status route_hops(std::uint64_t i, std::uint32_t from, std::uint32_t to) noexcept {
    const std::uint32_t first = routes_.u32(i, route::hop_first);
    const std::uint32_t nl = routes_.u32(i, route::link_count), nf = routes_.u32(i, route::forwarder_count);
    if (first != hop_cursor_)
      return Status::in_section(Error::bad_range, routes_.type, routes_.at(i, route::hop_first),
                                "route %llu: hop_first %lu, expected %llu (right after the previous route's)", ull(i),
                                ul(first), ull(hop_cursor_));
    if (std::uint64_t{nl} + nf > hops_.count() - hop_cursor_)
      return Status::in_section(Error::bad_range, routes_.type, routes_.at(i, route::link_count),
                                "route %llu: %lu links and %lu forwarders from hop %lu are past the %lu route hops",
                                ull(i), ul(nl), ul(nf), ul(first), ul(hops_.count()));
    if (nl == 0)
      return Status::in_section(Error::bad_route, routes_.type, routes_.at(i, route::link_count),
                                "route %llu has no link", ull(i));
    std::uint32_t at = from;
    for (std::uint32_t k = 0; k < nl; ++k) {
      const std::uint32_t l = hops_.u32(first + k);
      if (l >= t_.link_count)
        return Status::in_section(Error::bad_id, hops_.type, hops_.at(first + k),
                                  "route %llu: link %lu, the node type has %lu links", ull(i), ul(l), ul(t_.link_count));
      if (links_.u32(t_.link_first + l, link::src) != at)
        return Status::in_section(Error::bad_route, hops_.type, hops_.at(first + k),
                                  "route %llu: link %lu starts at component %lu, the route stands at %lu", ull(i),
                                  ul(l), ul(links_.u32(t_.link_first + l, link::src)), ul(at));
      at = links_.u32(t_.link_first + l, link::dst);
    }
    if (at != to)
      return Status::in_section(Error::bad_route, hops_.type, hops_.at(first + nl - 1),
                                "route %llu ends at component %lu, not at %lu", ull(i), ul(at), ul(to));
    if (Status s = simple_path(i, first, nl, from); !s.ok()) return s;
    for (std::uint32_t k = nl; k < nl + nf; ++k) {
      const std::uint32_t f = hops_.u32(first + k);
      if (f >= t_.component_count)
        return Status::in_section(Error::bad_id, hops_.type, hops_.at(first + k),
                                  "route %llu: forwarder %lu, the node type has %lu components", ull(i), ul(f),
                                  ul(t_.component_count));
    }
    if (Status s = forwarders(i, first, nl, nf); !s.ok()) return s;
    if (Status s = solo_rate(i, first, nl, nf, from, to); !s.ok()) return s;
    hop_cursor_ += std::uint64_t{nl} + nf;
    return {};
  }

  // A path visits no component twice, `from` included, so it crosses no link
  // and no forwarder twice: readers charge a route's load once per listing.
  // The links chain from `from` (checked before). Leaves the scratch clear.
  Status simple_path(std::uint64_t i, std::uint32_t first, std::uint32_t nl, std::uint32_t from) noexcept {
    auto dst = [&](std::uint32_t k) { return links_.u32(t_.link_first + hops_.u32(first + k), link::dst); };
    Status s;
    seen_[from] = 1;
    std::uint32_t k = 0;  // links whose end is marked
    for (; k < nl; ++k) {
      if (seen_[dst(k)] != 0) {
        s = Status::in_section(Error::bad_route, hops_.type, hops_.at(first + k),
                               "route %llu: link %lu comes back to component %lu, which the route has visited; "
                               "a route visits no component twice",
                               ull(i), ul(hops_.u32(first + k)), ul(dst(k)));
        break;
      }
      seen_[dst(k)] = 1;
    }
    seen_[from] = 0;
    for (std::uint32_t j = 0; j < k; ++j) seen_[dst(j)] = 0;
    return s;
  }

  double forward_gbps(std::uint32_t local) const noexcept {
    return comps_.f64(t_.component_first + local, component::forward_gbps);
  }

  // The forwarders are exactly the components the route transits (the end
  // of every link but the last) that have a forwarding capacity, in order.
  Status forwarders(std::uint64_t i, std::uint32_t first, std::uint32_t nl, std::uint32_t nf) const noexcept {
    std::uint32_t j = 0;  // forwarders matched so far
    for (std::uint32_t k = 0; k + 1 < nl; ++k) {
      const std::uint32_t mid = links_.u32(t_.link_first + hops_.u32(first + k), link::dst);
      if (!(forward_gbps(mid) > 0.0)) continue;
      if (j == nf)
        return Status::in_section(Error::bad_forwarder, routes_.type, routes_.at(i, route::forwarder_count),
                                  "route %llu: %lu forwarders, but it also transits component %lu, whose "
                                  "forward_gbps is > 0",
                                  ull(i), ul(nf), ul(mid));
      const std::uint32_t f = hops_.u32(first + nl + j);
      if (f != mid)
        return Status::in_section(Error::bad_forwarder, hops_.type, hops_.at(first + nl + j),
                                  "route %llu: forwarder %lu is component %lu, expected %lu (the next component "
                                  "with forward_gbps > 0 that its links pass through)",
                                  ull(i), ul(j), ul(f), ul(mid));
      ++j;
    }
    if (j != nf) {
      const std::uint32_t f = hops_.u32(first + nl + j);
      return Status::in_section(Error::bad_forwarder, hops_.type, hops_.at(first + nl + j),
                                "route %llu: forwarder %lu is component %lu, which %s", ull(i), ul(j), ul(f),
                                forward_gbps(f) > 0.0 ? "its links do not pass through there"
                                                      : "has no forwarding capacity (forward_gbps 0)");
    }
    return {};
  }

  // solo_gbps is the minimum over the route's link capacities, its
  // forwarders' forward_gbps and the nic_gbps of a NIC end that has a port
  // (> 0), within a relative 1e-9.
  Status solo_rate(std::uint64_t i, std::uint32_t first, std::uint32_t nl, std::uint32_t nf, std::uint32_t from,
                   std::uint32_t to) const noexcept {
    double rate = links_.f64(t_.link_first + hops_.u32(first), link::capacity_gbps);
    for (std::uint32_t k = 1; k < nl; ++k) {
      const double c = links_.f64(t_.link_first + hops_.u32(first + k), link::capacity_gbps);
      rate = c < rate ? c : rate;
    }
    for (std::uint32_t k = 0; k < nf; ++k) {
      const double c = forward_gbps(hops_.u32(first + nl + k));
      rate = c < rate ? c : rate;
    }
    for (std::uint32_t end : {from, to}) {
      const double c = comps_.f64(t_.component_first + end, component::nic_gbps);
      if (c > 0.0 && c < rate) rate = c;
    }
    const double solo = routes_.f64(i, route::solo_gbps);
    const double diff = solo > rate ? solo - rate : rate - solo;
    if (diff > rate * 1e-9)
      return Status::in_section(Error::bad_solo_rate, routes_.type, routes_.at(i, route::solo_gbps),
                                "route %llu: solo_gbps %.17g, the minimum over its links, forwarders and NIC ports "
                                "is %.17g",
                                ull(i), solo, rate);
    return {};
  }

  // ---- symmetry ----------------------------------------------------------------------
  Status generators() noexcept {
    const std::uint32_t n = t_.component_count;
    for (std::uint32_t g = 0; g < t_.generator_count; ++g) {
      const std::uint64_t base = t_.permutation_first + std::uint64_t{g} * n;
      for (std::uint32_t c = 0; c < n; ++c) seen_[c] = 0;
      for (std::uint32_t c = 0; c < n; ++c) {
        const std::uint32_t image = perms_.u32(base + c);
        const char* why = image >= n                ? "outside the node type"
                          : kind(image) != kind(c)  ? "of another kind"
                          : seen_[image] != 0       ? "already the image of another component"
                                                    : nullptr;
        if (why)
          return Status::in_section(Error::bad_permutation, perms_.type, perms_.at(base + c),
                                    "node type %lu, generator %lu maps component %lu to %lu, %s", ul(t_.index), ul(g),
                                    ul(c), ul(image), why);
        seen_[image] = 1;
      }
    }
    return {};
  }

  // ---- patterns ----------------------------------------------------------------------
  bool valid_role(std::int32_t role, std::uint32_t gpu) const noexcept {
    if (role == kIdle) return true;
    if (role >= 0 && static_cast<std::uint32_t>(role) < t_.gpu_count) return static_cast<std::uint32_t>(role) != gpu;
    return role >= kNicBase && static_cast<std::uint32_t>(role - kNicBase) < t_.nic_count;
  }

  // A verified decimal string as a u64; false when it does not fit.
  static bool decimal_u64(std::string_view v, std::uint64_t& out) noexcept {
    out = 0;
    for (char ch : v) {
      const auto d = static_cast<std::uint64_t>(ch - '0');
      if (out > (~std::uint64_t{0} - d) / 10u) return false;
      out = out * 10u + d;
    }
    return true;
  }

  // Four 32-bit limbs, least significant first: sums of up to 2^32 u64s.
  struct Wide {
    std::uint32_t limb[4] = {};
    void add(std::uint64_t v) noexcept {
      std::uint64_t carry = 0;
      for (int k = 0; k < 4; ++k) {
        const std::uint64_t part = k == 0 ? (v & 0xFFFFFFFFu) : k == 1 ? (v >> 32) : 0;
        const std::uint64_t x = std::uint64_t{limb[k]} + part + carry;
        limb[k] = static_cast<std::uint32_t>(x);
        carry = x >> 32;
      }
    }
    // this * 10 + d; false on overflow past 128 bits.
    bool push_digit(std::uint32_t d) noexcept {
      std::uint64_t carry = d;
      for (std::uint32_t& l : limb) {
        const std::uint64_t x = std::uint64_t{l} * 10u + carry;
        l = static_cast<std::uint32_t>(x);
        carry = x >> 32;
      }
      return carry == 0;
    }
    bool operator==(const Wide& o) const noexcept {
      return limb[0] == o.limb[0] && limb[1] == o.limb[1] && limb[2] == o.limb[2] && limb[3] == o.limb[3];
    }
  };

  // Orbit sizes against the group (orbit-stabilizer): the group order is at
  // least 1, each orbit size divides it (checked when it fits in 64 bits),
  // and patterns_represented is their sum.
  Status orbit_sizes() const noexcept {
    const std::string_view order_text = string_at(c_.data, c_.layout, types_.u32(t_.index, node_type::group_order));
    if (order_text == "0")
      return Status::in_section(Error::bad_orbit_size, types_.type, types_.at(t_.index, node_type::group_order),
                                "node type %lu: group_order 0; a group holds at least the identity", ul(t_.index));
    std::uint64_t order = 0;
    const bool fits = decimal_u64(order_text, order);
    Wide sum;
    for (std::uint32_t p = 0; p < t_.pattern_count; ++p) {
      const std::uint64_t i = std::uint64_t{t_.pattern_first} + p;
      const std::uint64_t size = patterns_.u64(i, pattern::orbit_size);
      if (fits && order % size != 0)
        return Status::in_section(Error::bad_orbit_size, patterns_.type, patterns_.at(i, pattern::orbit_size),
                                  "pattern %llu: orbit_size %llu does not divide the group order %llu of node type %lu",
                                  ull(i), ull(size), ull(order), ul(t_.index));
      sum.add(size);
    }
    const std::string_view represented =
        string_at(c_.data, c_.layout, types_.u32(t_.index, node_type::patterns_represented));
    Wide stored;
    bool same = true;
    for (char ch : represented) same = same && stored.push_digit(static_cast<std::uint32_t>(ch - '0'));
    if (!same || !(stored == sum))
      return Status::in_section(Error::bad_orbit_size, types_.type,
                                types_.at(t_.index, node_type::patterns_represented),
                                "node type %lu: patterns_represented %.40s is not the sum of its %lu orbit sizes",
                                ul(t_.index), represented.data(), ul(t_.pattern_count));
    return {};
  }

  Status patterns() noexcept {
    const std::uint32_t nic_records = t_.component_first + t_.component_count - t_.nic_count;
    std::uint64_t no_port = 0;  // NICs without a port, when they fit a mask
    for (std::uint32_t k = 0; k < t_.nic_count; ++k) {
      ports_[k].gbps = comps_.f64(nic_records + k, component::nic_gbps);
      if (ports_[k].gbps == 0.0 && k < 64) no_port |= std::uint64_t{1} << k;
    }
    const bool masks = t_.nic_count <= 64;
    for (std::uint32_t p = 0; p < t_.pattern_count; ++p) {
      const std::uint64_t i = std::uint64_t{t_.pattern_first} + p;
      if (patterns_.u64(i, pattern::orbit_size) == 0)
        return Status::in_section(Error::bad_pattern, patterns_.type, patterns_.at(i, pattern::orbit_size),
                                  "pattern %llu: orbit_size 0", ull(i));
      const std::uint64_t send = t_.role_first + std::uint64_t{p} * 2u * t_.gpu_count, recv = send + t_.gpu_count;
      NicUse sends, receives;
      Status s = pattern_roles(i, send, recv, sends, receives);
      if (s.ok() && !(masks && sends.one_flow_per_port(no_port))) s = nic_ports(i, send, false);
      if (s.ok() && !(masks && receives.one_flow_per_port(no_port))) s = nic_ports(i, recv, true);
      if (!s.ok()) return s;
    }
    return {};
  }

  // Every role is in range and peer roles pair up; `sends` and `receives`
  // get the NICs the roles name (kept in locals meanwhile: the file's bytes
  // may alias anything, which would send every update to memory).
  Status pattern_roles(std::uint64_t i, std::uint64_t send, std::uint64_t recv, NicUse& sends,
                       NicUse& receives) const noexcept {
    const std::uint32_t g_count = t_.gpu_count;
    NicUse out, in;
    for (std::uint32_t g = 0; g < g_count; ++g) {
      const std::int32_t s = roles_.i32(send + g), r = roles_.i32(recv + g);
      out.add(s);
      in.add(r);
      const bool send_ok = valid_role(s, g), recv_ok = valid_role(r, g);
      if (!send_ok || !recv_ok)
        return Status::in_section(Error::bad_pattern, roles_.type, roles_.at(send_ok ? recv + g : send + g),
                                  "pattern %llu: GPU %lu has %s role %ld; valid: -1 = idle, another GPU 0..%ld, "
                                  "65536 + NIC 0..%ld",
                                  ull(i), ul(g), send_ok ? "receive" : "send", static_cast<long>(send_ok ? r : s),
                                  static_cast<long>(g_count) - 1, static_cast<long>(t_.nic_count) - 1);
      if (s >= 0 && s < kNicBase && roles_.i32(recv + static_cast<std::uint32_t>(s)) != static_cast<std::int32_t>(g))
        return Status::in_section(Error::bad_pattern, roles_.type, roles_.at(send + g),
                                  "pattern %llu: GPU %lu sends to GPU %ld, which does not receive from it", ull(i),
                                  ul(g), static_cast<long>(s));
      if (r >= 0 && r < kNicBase && roles_.i32(send + static_cast<std::uint32_t>(r)) != static_cast<std::int32_t>(g))
        return Status::in_section(Error::bad_pattern, roles_.type, roles_.at(recv + g),
                                  "pattern %llu: GPU %lu receives from GPU %ld, which does not send to it", ull(i),
                                  ul(g), static_cast<long>(r));
    }
    sends = out, receives = in;
    return {};
  }

  // The route between two endpoints given by their indexes among the
  // endpoints (GPUs, then NICs), found as SPEC.md §6.5 numbers them.
  std::uint64_t route_between(std::uint32_t a, std::uint32_t b) const noexcept {
    const std::uint32_t e = t_.gpu_count + t_.nic_count;
    return std::uint64_t{t_.route_first} + std::uint64_t{a} * (e - 1) + (b < a ? b : b - 1);
  }

  // The network roles of one direction (`receive`: the receive roles at
  // `base`, else the send roles): each names a NIC with a port (nic_gbps
  // > 0), and the flows through one NIC port, each at its route's solo rate
  // (GPU -> NIC, or NIC -> GPU), add up to at most its nic_gbps, within a
  // relative 1e-9, added GPU by GPU as the analysis does. A port may carry
  // several flows of a pattern when they fit; the fabric rule then keeps one
  // per NIC and direction in a cluster channel. One flow always fits (its
  // solo rate counts the port), so routes are read only for a shared port.
  Status nic_ports(std::uint64_t i, std::uint64_t base, bool receive) noexcept {
    const std::uint64_t stamp = 1u + 2u * i + (receive ? 1u : 0u);  // this pattern and direction
    auto rate = [&](std::uint32_t g, std::uint32_t k) {  // of the route between GPU g and NIC k
      const std::uint32_t nic = t_.gpu_count + k;
      return routes_.f64(receive ? route_between(nic, g) : route_between(g, nic), route::solo_gbps);
    };
    for (std::uint32_t g = 0; g < t_.gpu_count; ++g) {
      const std::int32_t role = roles_.i32(base + g);
      if (role < kNicBase) continue;
      const auto k = static_cast<std::uint32_t>(role - kNicBase);
      NicPort& port = ports_[k];
      if (port.gbps == 0.0)
        return Status::in_section(Error::bad_pattern, roles_.type, roles_.at(base + g),
                                  "pattern %llu: GPU %lu %s through NIC %lu, which has no port (nic_gbps 0)", ull(i),
                                  ul(g), receive ? "receives" : "sends", ul(k));
      if (port.stamp != stamp) {  // the port's first flow in this pattern and direction
        port.stamp = stamp, port.first = g, port.shared = false;
        continue;
      }
      if (!port.shared) port.load = rate(port.first, k), port.shared = true;
      port.load += rate(g, k);
      if (port.load > port.gbps * (1.0 + 1e-9))
        return Status::in_section(Error::bad_pattern, roles_.type, roles_.at(base + g),
                                  "pattern %llu: GPU %lu %s through NIC %lu, whose port would then carry %.17g GB/s "
                                  "of the pattern's flows; its nic_gbps is %.17g",
                                  ull(i), ul(g), receive ? "receives" : "sends", ul(k), port.load, port.gbps);
    }
    return {};
  }

  const VerifyContext& c_;
  Records types_, comps_, links_, routes_, hops_, perms_, patterns_, roles_;
  NodeTypeRanges t_;
  std::vector<std::uint8_t> seen_;  // scratch for routes() and generators()
  std::vector<NicPort> ports_;      // scratch for nic_ports(), by local NIC index
  std::uint64_t component_cursor_ = 0, link_cursor_ = 0, route_cursor_ = 0, hop_cursor_ = 0;
  std::uint64_t permutation_cursor_ = 0, pattern_cursor_ = 0, role_cursor_ = 0;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
