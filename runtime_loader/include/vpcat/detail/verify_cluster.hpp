// Verification, part 3: the cluster (node groups, fabric, spine uplinks),
// the default table and the provenance. SPEC.md "node_groups" ..
// "provenance". Internal to verify.hpp; runs after the node types are proven.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

#include "vpcat/detail/verify_context.hpp"
#include "vpcat/hostlist.hpp"

namespace vpcat {
inline namespace v0_1 {
namespace detail {

// Sums over the nodes, in node order (node group prefix sums).
struct ClusterTotals {
  std::uint64_t nodes = 0, components = 0, links = 0, gpus = 0, nics = 0;
  std::uint32_t max_nics = 0;  // most NICs in one node
};

class ClusterVerifier {
 public:
  explicit ClusterVerifier(const VerifyContext& c) noexcept
      : c_(c),
        types_(c.records(SectionType::node_types)),
        groups_(c.records(SectionType::node_groups)),
        cluster_(c.records(SectionType::cluster)),
        uplinks_(c.records(SectionType::spine_uplinks)),
        defaults_(c.records(SectionType::defaults)),
        provenance_(c.records(SectionType::provenance)) {}

  Status run() noexcept {
    Status s = node_groups();
    if (s.ok()) s = cluster();
    if (s.ok()) s = fabric();
    if (s.ok()) s = defaults();
    if (s.ok()) s = provenance();
    return s;
  }

 private:
  Status prefix(std::uint64_t g, std::size_t field, std::uint64_t stored, std::uint64_t expected,
                const char* what) const noexcept {
    if (stored != expected)
      return Status::in_section(Error::bad_range, groups_.type, groups_.at(g, field),
                                "node group %llu: %s %llu, expected %llu (the sum over the previous groups)", ull(g),
                                what, ull(stored), ull(expected));
    return {};
  }

  Status host_names(std::uint32_t g, std::uint32_t count) const noexcept {
    const std::string_view names = string_at(c_.data, c_.layout, groups_.u32(g, node_group::names));
    // Counts above 2^32 are reported as 2^32 ("or more").
    std::uint64_t n = 0;
    if (!count_hostlist(names, (std::uint64_t{1} << 32) - 1, &n, nullptr))
      return Status::in_section(Error::bad_host_list, groups_.type, groups_.at(g, node_group::names),
                                "node group %lu: names is not a host list expression", ul(g));
    if (n != count)
      return Status::in_section(Error::bad_host_list, groups_.type, groups_.at(g, node_group::names),
                                "node group %lu: names expand to %llu%s host name(s), the group has %lu nodes", ul(g),
                                ull(n), n == (std::uint64_t{1} << 32) ? " or more" : "", ul(count));
    return {};
  }

  Status node_groups() noexcept {
    if (groups_.count() == 0)
      return Status::in_section(Error::bad_count, groups_.type, groups_.ref.offset + section::count,
                                "no node group; a cluster has at least one node");
    for (std::uint32_t g = 0; g < groups_.count(); ++g) {
      const std::uint32_t type = groups_.u32(g, node_group::node_type);
      const std::uint32_t count = groups_.u32(g, node_group::count);
      if (type >= types_.count())
        return Status::in_section(Error::bad_id, groups_.type, groups_.at(g, node_group::node_type),
                                  "node group %lu: node type %lu, the catalog has %lu", ul(g), ul(type),
                                  ul(types_.count()));
      if (count == 0)
        return Status::in_section(Error::bad_count, groups_.type, groups_.at(g, node_group::count),
                                  "node group %lu has no node", ul(g));
      if (Status s = c_.check_string(groups_, g, node_group::names, "names"); !s.ok()) return s;
      if (Status s = host_names(g, count); !s.ok()) return s;
      Status s = prefix(g, node_group::first_node, groups_.u32(g, node_group::first_node), t_.nodes, "first_node");
      if (s.ok()) s = prefix(g, node_group::first_component, groups_.u64(g, node_group::first_component), t_.components, "first_component");
      if (s.ok()) s = prefix(g, node_group::first_link, groups_.u64(g, node_group::first_link), t_.links, "first_link");
      if (s.ok()) s = prefix(g, node_group::first_gpu, groups_.u64(g, node_group::first_gpu), t_.gpus, "first_gpu");
      if (s.ok()) s = prefix(g, node_group::first_nic, groups_.u64(g, node_group::first_nic), t_.nics, "first_nic");
      if (!s.ok()) return s;
      // With at most 2^32 nodes of at most 2^32 items each, no sum overflows.
      t_.nodes += count;
      if (t_.nodes > c_.opts.max_nodes)
        return Status::in_section(Error::limit_exceeded, groups_.type, groups_.at(g, node_group::count),
                                  "%llu nodes up to node group %lu, limit max_nodes %lu", ull(t_.nodes), ul(g),
                                  ul(c_.opts.max_nodes));
      const std::uint32_t nics = types_.u32(type, node_type::nic_count);
      t_.components += std::uint64_t{count} * types_.u32(type, node_type::component_count);
      t_.links += std::uint64_t{count} * types_.u32(type, node_type::link_count);
      t_.gpus += std::uint64_t{count} * types_.u32(type, node_type::gpu_count);
      t_.nics += std::uint64_t{count} * nics;
      t_.max_nics = nics > t_.max_nics ? nics : t_.max_nics;
    }
    return {};
  }

  Status total(std::size_t field, std::uint64_t stored, std::uint64_t expected, const char* what) const noexcept {
    if (stored != expected)
      return Status::in_section(Error::bad_count, cluster_.type, cluster_.at(0, field),
                                "%s %llu, the node groups hold %llu", what, ull(stored), ull(expected));
    return {};
  }

  Status cluster() const noexcept {
    if (cluster_.count() != 1)
      return Status::in_section(Error::bad_count, cluster_.type, cluster_.ref.offset + section::count,
                                "%lu records, expected exactly 1", ul(cluster_.count()));
    const std::uint8_t kind = cluster_.u8(0, cluster::fabric_kind), flags = cluster_.u8(0, cluster::flags);
    if (kind > static_cast<std::uint8_t>(FabricKind::leaf_spine))
      return Status::in_section(Error::bad_enum, cluster_.type, cluster_.at(0, cluster::fabric_kind),
                                "fabric kind %u", kind);
    if ((flags & ~kClusterFlagsKnown) != 0)
      return Status::in_section(Error::reserved_flag, cluster_.type, cluster_.at(0, cluster::flags), "flags 0x%02x",
                                flags);
    Status s = c_.check_zero(cluster_.type, nullptr, cluster_.at(0, cluster::reserved), 2);
    if (s.ok()) s = c_.check_zero(cluster_.type, nullptr, cluster_.at(0, cluster::reserved2), 4);
    if (s.ok()) s = total(cluster::node_count, cluster_.u32(0, cluster::node_count), t_.nodes, "node_count");
    if (s.ok()) s = total(cluster::gpu_count, cluster_.u64(0, cluster::gpu_count), t_.gpus, "gpu_count");
    if (s.ok()) s = total(cluster::nic_count, cluster_.u64(0, cluster::nic_count), t_.nics, "nic_count");
    if (s.ok()) s = total(cluster::component_count, cluster_.u64(0, cluster::component_count), t_.components, "component_count");
    if (s.ok()) s = total(cluster::link_count, cluster_.u64(0, cluster::link_count), t_.links, "link_count");
    if (s.ok()) s = c_.check_string(cluster_, 0, cluster::group_description, "group_description");
    if (s.ok()) s = c_.check_decimal(cluster_, 0, cluster::fabric_group_order, "fabric_group_order");
    if (s.ok()) s = c_.check_decimal(cluster_, 0, cluster::cluster_group_order, "cluster_group_order");
    const double over = cluster_.f64(0, cluster::oversubscription);
    if (s.ok() && !finite_positive(over))
      return Status::in_section(Error::bad_number, cluster_.type, cluster_.at(0, cluster::oversubscription),
                                "oversubscription must be finite and > 0");
    if (s.ok() && !positive_normal(over))
      return Status::in_section(Error::bad_number, cluster_.type, cluster_.at(0, cluster::oversubscription),
                                "oversubscription %g is denormal", over);
    return s;
  }

  Status fabric_error(std::size_t field, const char* detail) const noexcept {
    return Status::in_section(Error::bad_fabric, cluster_.type, cluster_.at(0, field), "%s", detail);
  }

  // The switches a fabric of this kind needs for these nodes (SPEC.md "Global numbering").
  std::uint64_t expected_switches(FabricKind kind, std::uint32_t leaf_size) const noexcept {
    switch (kind) {
      case FabricKind::none: return 0;
      case FabricKind::single_switch: return 1;
      case FabricKind::rail: return t_.max_nics;
      case FabricKind::leaf_spine: return leaf_size == 0 ? 0 : (t_.nodes + leaf_size - 1) / leaf_size;
    }
    return 0;
  }

  Status fabric() const noexcept {
    const auto kind = static_cast<FabricKind>(cluster_.u8(0, cluster::fabric_kind));
    const std::uint32_t leaf_size = cluster_.u32(0, cluster::leaf_size);
    const std::uint32_t switches = cluster_.u32(0, cluster::switches);
    const bool spine = (cluster_.u8(0, cluster::flags) & kClusterSpine) != 0;
    if (kind == FabricKind::none && t_.nodes != 1) return fabric_error(cluster::fabric_kind, "no fabric, but several nodes");
    if ((kind == FabricKind::leaf_spine) != (leaf_size != 0))
      return fabric_error(cluster::leaf_size, "leaf_size is non-zero exactly for a leaf_spine fabric");
    const std::uint64_t expected = expected_switches(kind, leaf_size);
    if (switches != expected)
      return Status::in_section(Error::bad_fabric, cluster_.type, cluster_.at(0, cluster::switches),
                                "%lu switches, this fabric and these nodes need %llu", ul(switches), ull(expected));
    const bool needs_spine = (kind == FabricKind::rail || kind == FabricKind::leaf_spine) && switches >= 2;
    if (spine != needs_spine)
      return fabric_error(cluster::flags, "the spine flag is set exactly for a rail or leaf_spine fabric of 2+ switches");
    if (uplinks_.count() != switches)
      return Status::in_section(Error::bad_count, uplinks_.type, uplinks_.ref.offset + section::count,
                                "%lu uplinks for %lu switches", ul(uplinks_.count()), ul(switches));
    for (std::uint32_t k = 0; k < switches; ++k) {
      const double v = uplinks_.f64(k);
      if (spine ? !positive_normal(v) : v != 0.0)
        return Status::in_section(Error::bad_number, uplinks_.type, uplinks_.at(k), "uplink %lu must be %s", ul(k),
                                  !spine                ? "0 without a spine"
                                  : finite_positive(v) ? "normal (it is denormal)"
                                                        : "finite and > 0");
    }
    return {};
  }

  Status defaults() const noexcept {
    for (std::uint32_t i = 0; i < defaults_.count(); ++i) {
      if (Status s = c_.check_string(defaults_, i, default_entry::key, "key"); !s.ok()) return s;
      if (Status s = c_.check_zero(defaults_.type, nullptr, defaults_.at(i, default_entry::reserved), 4); !s.ok())
        return s;
      if (i > 0 && string_at(c_.data, c_.layout, defaults_.u32(i - 1, default_entry::key)) >=
                       string_at(c_.data, c_.layout, defaults_.u32(i, default_entry::key)))
        return Status::in_section(Error::bad_order, defaults_.type, defaults_.at(i, default_entry::key),
                                  "default %lu: keys are sorted bytewise, once each", ul(i));
      if (Status s = default_value(i); !s.ok()) return s;
    }
    return {};
  }

  // nic.assume_gpudirect is a switch, 0 or 1; every other value is a
  // capacity or a factor, > 0 and normal as every capacity (SPEC.md §1).
  Status default_value(std::uint32_t i) const noexcept {
    const double v = defaults_.f64(i, default_entry::value);
    const std::string_view key = string_at(c_.data, c_.layout, defaults_.u32(i, default_entry::key));
    const char* why = !std::isfinite(v)               ? "must be finite"
                      : key == "nic.assume_gpudirect" ? (v == 0.0 || v == 1.0 ? nullptr : "must be 0 or 1 (a switch)")
                      : !(v > 0.0)                    ? "must be > 0"
                      : !positive_normal(v)           ? "is denormal"
                                                      : nullptr;
    if (why)
      return Status::in_section(Error::bad_number, defaults_.type, defaults_.at(i, default_entry::value),
                                "default %lu: value %g %s", ul(i), v, why);
    return {};
  }

  Status provenance() const noexcept {
    if (provenance_.count() != 1)
      return Status::in_section(Error::bad_count, provenance_.type, provenance_.ref.offset + section::count,
                                "%lu records, expected exactly 1", ul(provenance_.count()));
    Status s = c_.check_string(provenance_, 0, provenance::tool, "tool");
    if (s.ok()) s = c_.check_string(provenance_, 0, provenance::tool_version, "tool_version");
    if (s.ok()) s = c_.check_string(provenance_, 0, provenance::input_digest, "input_digest");
    if (s.ok()) s = c_.check_string(provenance_, 0, provenance::options, "options");
    if (provenance_.ref.record_size >= provenance::size) {  // the fields appended in 1.1
      if (s.ok()) s = c_.check_string(provenance_, 0, provenance::warnings, "warnings");
      if (s.ok()) s = c_.check_zero(provenance_.type, nullptr, provenance_.at(0, provenance::reserved), 4);
    }
    return s;
  }

  const VerifyContext& c_;
  Records types_, groups_, cluster_, uplinks_, defaults_, provenance_;
  ClusterTotals t_;
};

}  // namespace detail
}  // namespace v0_1
}  // namespace vpcat
