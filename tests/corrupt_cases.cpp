#include "corrupt_cases.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "catalog_support.hpp"
#include "vp/catalog/writer.hpp"
#include "vpcat/bytes.hpp"
#include "vpcat/format.hpp"

namespace vp::test {

namespace {

namespace b = vpcat::bytes;
using vpcat::SectionType;

constexpr std::uint32_t type_id(SectionType t) { return static_cast<std::uint32_t>(t); }

Part& part(std::vector<Part>& parts, SectionType t) {
  for (Part& p : parts)
    if (p.type == type_id(t)) return p;
  throw std::logic_error("no such part");
}

// Byte `field` of record `i` of a section body.
std::uint8_t* record(Part& p, std::size_t i, std::size_t field) {
  const std::uint32_t size = b::load_u32(&p.body[vpcat::section::record_size]);
  return &p.body[vpcat::section::size + i * size + field];
}

class Cases {
 public:
  Cases() : base_(catalog::write_catalog(rail_catalog())) {}

  void add(const std::string& name, const std::string& description, std::vector<std::uint8_t> bytes) {
    out.push_back(CorruptCase{name, description, std::move(bytes)});
  }
  // The base file with bytes edited in place, checksums recomputed or not.
  template <typename Edit>
  void edit(const std::string& name, const std::string& description, bool seal, Edit e) {
    std::vector<std::uint8_t> bytes = base_;
    e(bytes);
    if (seal) reseal(bytes);
    add(name, description, std::move(bytes));
  }
  // The base file taken apart, edited and put together again.
  template <typename Edit>
  void rebuild(const std::string& name, const std::string& description, Edit e) {
    std::vector<Part> parts = split(base_);
    e(parts);
    add(name, description, join(base_, parts));
  }
  const std::vector<std::uint8_t>& base() const { return base_; }

  std::vector<CorruptCase> out;

 private:
  std::vector<std::uint8_t> base_;
};

void header_cases(Cases& c) {
  const auto& base = c.base();
  c.add("empty", "a file of zero bytes", {});
  c.add("truncated-header", "the first 40 bytes of a catalog", {base.begin(), base.begin() + 40});
  c.add("truncated", "a catalog without its last 100 bytes", {base.begin(), base.end() - 100});
  c.edit("crlf-damaged", "text-mode transfer turned the signature's CR LF into LF", false,
         [](auto& bytes) { bytes.erase(bytes.begin() + 4); });
  const std::string json = "{\"format\": \"vpcat-json\", \"format_version\": \"1.0\"}\n";
  c.add("not-a-catalog", "a JSON mirror given where a binary is expected", {json.begin(), json.end()});
  c.edit("newer-major", "format major version 2", false,
         [](auto& bytes) { b::store_u16(&bytes[vpcat::header::format_major], 2); });
  c.edit("needs-newer-reader",
         fmt::format("format 1.{} that needs a 1.{} reader", vpcat::kFormatMinor + 2, vpcat::kFormatMinor + 1), true,
         [](auto& bytes) {
           b::store_u16(&bytes[vpcat::header::format_minor], static_cast<std::uint16_t>(vpcat::kFormatMinor + 2));
           b::store_u16(&bytes[vpcat::header::min_reader_minor], static_cast<std::uint16_t>(vpcat::kFormatMinor + 1));
         });
  c.edit("bad-header-checksum", "the writer version changed without updating the header checksum", false,
         [](auto& bytes) { bytes[vpcat::header::writer_patch] ^= 0x01; });
  c.edit("reserved-header-flag", "header flag bit 0 set (no flag is defined in 1.0)", true,
         [](auto& bytes) { b::store_u32(&bytes[vpcat::header::flags], 1); });
  c.edit("reserved-header-bytes", "a reserved header byte set", true,
         [](auto& bytes) { bytes[vpcat::header::reserved + 2] = 0x5A; });
  c.edit("too-many-sections", "section count 200, above the default limit of 64", false,
         [](auto& bytes) { b::store_u16(&bytes[vpcat::header::section_count], 200); });
  c.edit("trailing-bytes", "16 bytes appended after the declared end", false,
         [](auto& bytes) { bytes.insert(bytes.end(), 16, 0); });
}

void table_cases(Cases& c) {
  c.rebuild("section-order", "the components and links entries swapped in the table",
            [](auto& parts) { std::swap(parts[2], parts[3]); });
  c.edit("section-out-of-bounds", "the last section's size runs past the end of the file", true, [](auto& bytes) {
    const std::uint64_t e = entry_offset(bytes, type_id(SectionType::provenance));
    b::store_u64(&bytes[e + vpcat::entry::size], 1u << 20);
  });
  c.edit("section-misaligned", "the patterns section's offset moved by 4 bytes", true, [](auto& bytes) {
    const std::uint64_t e = entry_offset(bytes, type_id(SectionType::patterns));
    b::store_u64(&bytes[e + vpcat::entry::offset], b::load_u64(&bytes[e + vpcat::entry::offset]) + 4);
  });
  c.edit("overlapping-sections", "the routes entry points at the links section", true, [](auto& bytes) {
    const std::uint64_t links = section_offset(bytes, type_id(SectionType::links));
    b::store_u64(&bytes[entry_offset(bytes, type_id(SectionType::routes)) + vpcat::entry::offset], links);
  });
  c.edit("section-reserved-flag", "an unknown flag bit set on the strings entry", true, [](auto& bytes) {
    b::store_u32(&bytes[entry_offset(bytes, type_id(SectionType::strings)) + vpcat::entry::flags], 1u << 5);
  });
  c.edit("nonzero-padding", "a byte set in the padding after the strings section", false, [](auto& bytes) {
    const std::uint64_t e = entry_offset(bytes, type_id(SectionType::strings));
    const std::uint64_t end = b::load_u64(&bytes[e + vpcat::entry::offset]) + b::load_u64(&bytes[e + vpcat::entry::size]);
    if (end % 64 == 0) throw std::logic_error("no padding after the strings");
    bytes[end] = 0xAA;
  });
  c.edit("bad-section-checksum", "a byte of the patterns section changed", false, [](auto& bytes) {
    bytes[section_offset(bytes, type_id(SectionType::patterns)) + vpcat::section::size] ^= 0x10;
  });
  c.rebuild("unknown-required-section", "a section of type 99 not marked may_skip",
            [](auto& parts) { parts.push_back(Part{99, 0, std::vector<std::uint8_t>(8, 0)}); });
  c.rebuild("missing-section", "no provenance section", [](auto& parts) { parts.pop_back(); });
}

void record_cases(Cases& c) {
  c.rebuild("bad-record-size", "patterns with 4-byte records (1.0 needs 8)", [](auto& parts) {
    b::store_u32(&part(parts, SectionType::patterns).body[vpcat::section::record_size], 4);
  });
  c.rebuild("huge-count", "a patterns count of 4294967295", [](auto& parts) {
    b::store_u32(&part(parts, SectionType::patterns).body[vpcat::section::count], 0xFFFFFFFFu);
  });
  c.rebuild("bad-utf8", "the first string's first byte replaced by 0xFF", [](auto& parts) {
    Part& s = part(parts, SectionType::strings);
    s.body[vpcat::section::size + 4 * b::load_u32(&s.body[vpcat::section::count])] = 0xFF;
  });
  c.rebuild("bad-string-ref", "a node type name pointing past the string table", [](auto& parts) {
    b::store_u32(record(part(parts, SectionType::node_types), 0, vpcat::node_type::name), 9999);
  });
  c.rebuild("reserved-record-bytes", "a component's reserved bytes set", [](auto& parts) {
    b::store_u16(record(part(parts, SectionType::components), 4, vpcat::component::reserved), 7);
  });
  c.rebuild("bad-link-id", "a link whose destination is component 999", [](auto& parts) {
    b::store_u32(record(part(parts, SectionType::links), 0, vpcat::link::dst), 999);
  });
  c.rebuild("nan-capacity", "a link capacity of NaN", [](auto& parts) {
    b::store_f64(record(part(parts, SectionType::links), 2, vpcat::link::capacity_gbps),
                 std::numeric_limits<double>::quiet_NaN());
  });
  c.rebuild("bad-parent-kind", "a GPU whose parent is a GPU", [](auto& parts) {
    b::store_u32(record(part(parts, SectionType::components), 4, vpcat::component::parent), 5);
  });
  c.rebuild("bad-route", "a route whose first link starts at another component", [](auto& parts) {
    b::store_u32(record(part(parts, SectionType::route_hops), 0, 0), 0);
  });
  c.rebuild("not-a-permutation", "a generator mapping two components to the same one", [](auto& parts) {
    b::store_u32(record(part(parts, SectionType::permutations), 5, 0), 5);
  });
  c.rebuild("bad-pattern-role", "a pattern where GPU 0 sends to GPU 7 of 4", [](auto& parts) {
    b::store_i32(record(part(parts, SectionType::pattern_roles), 0, 0), 7);
  });
  c.rebuild("bad-fabric", "a rail fabric with 3 rails for nodes with 2 NICs", [](auto& parts) {
    b::store_u32(record(part(parts, SectionType::cluster), 0, vpcat::cluster::switches), 3);
  });
  c.rebuild("bad-node-count", "a cluster record claiming 5 nodes for groups of 4", [](auto& parts) {
    b::store_u32(record(part(parts, SectionType::cluster), 0, vpcat::cluster::node_count), 5);
  });
}

// The first forwarder of route 1 (gpu0 -> gpu2 of "quad", through the host bridge).
std::uint8_t* first_forwarder(std::vector<Part>& parts) {
  Part& routes = part(parts, SectionType::routes);
  const std::uint32_t hop_first = b::load_u32(record(routes, 1, vpcat::route::hop_first));
  const std::uint32_t links = b::load_u32(record(routes, 1, vpcat::route::link_count));
  if (b::load_u32(record(routes, 1, vpcat::route::forwarder_count)) != 1) throw std::logic_error("route 1 changed");
  return record(part(parts, SectionType::route_hops), hop_first + links, 0);
}

// Route 1 (gpu0 -> gpu2 of "quad") with a detour at its start: out to the
// GPU's parent (a PCIe switch, no forwarder), back to the GPU and out again.
// Contiguous, with the right forwarders and solo rate, but not a path: it
// crosses its first link twice.
void add_detour(std::vector<Part>& parts) {
  Part& routes = part(parts, SectionType::routes);
  Part& hops = part(parts, SectionType::route_hops);
  Part& links = part(parts, SectionType::links);
  Part& comps = part(parts, SectionType::components);
  const std::uint32_t first = b::load_u32(record(routes, 1, vpcat::route::hop_first));
  const std::uint32_t l0 = b::load_u32(record(hops, first, 0));
  const std::uint32_t back = b::load_u32(record(links, l0, vpcat::link::reverse));
  const std::uint32_t gpu = b::load_u32(record(links, l0, vpcat::link::src));
  const std::uint32_t parent = b::load_u32(record(links, l0, vpcat::link::dst));
  // The detour must break no other rule: neither the GPU nor its parent
  // forwards (the forwarder list stays as it is) and the way back is no
  // slower than the route.
  if (b::load_u32(record(routes, 1, vpcat::route::link_count)) < 2 ||
      b::load_f64(record(comps, gpu, vpcat::component::forward_gbps)) > 0.0 ||
      b::load_f64(record(comps, parent, vpcat::component::forward_gbps)) > 0.0 ||
      b::load_f64(record(links, back, vpcat::link::capacity_gbps)) <
          b::load_f64(record(routes, 1, vpcat::route::solo_gbps)))
    throw std::logic_error("route 1 changed");
  // links: l0, back, l0, then the rest.
  const std::size_t at = vpcat::section::size + 4 * (std::size_t{first} + 1);
  std::vector<std::uint8_t> inserted(8);
  b::store_u32(&inserted[0], back);
  b::store_u32(&inserted[4], l0);
  hops.body.insert(hops.body.begin() + static_cast<std::ptrdiff_t>(at), inserted.begin(), inserted.end());
  const std::uint32_t added = 2;
  b::store_u32(record(routes, 1, vpcat::route::link_count),
               b::load_u32(record(routes, 1, vpcat::route::link_count)) + 2);
  b::store_u32(&hops.body[vpcat::section::count], b::load_u32(&hops.body[vpcat::section::count]) + added);
  const std::uint32_t n = b::load_u32(&routes.body[vpcat::section::count]);
  for (std::uint32_t r = 2; r < n; ++r)
    b::store_u32(record(routes, r, vpcat::route::hop_first), b::load_u32(record(routes, r, vpcat::route::hop_first)) + added);
}

// What the readers rely on beyond the structure.
void consistency_cases(Cases& c) {
  c.rebuild("zero-forward-capacity", "the host bridge, a listed forwarder, with forward_gbps 0", [](auto& parts) {
    b::store_f64(record(part(parts, SectionType::components), 1, vpcat::component::forward_gbps), 0.0);
  });
  c.rebuild("wrong-forwarder", "a route listing a PCIe switch it passes instead of the host bridge",
            [](auto& parts) { b::store_u32(first_forwarder(parts), 2); });
  c.rebuild("denormal-capacity", "a link capacity of 1e-310 (a denormal)", [](auto& parts) {
    b::store_f64(record(part(parts, SectionType::links), 2, vpcat::link::capacity_gbps), 1e-310);
  });
  c.rebuild("inconsistent-solo-rate", "a route's solo_gbps of 50 over links of 24", [](auto& parts) {
    b::store_f64(record(part(parts, SectionType::routes), 1, vpcat::route::solo_gbps), 50.0);
  });
  c.rebuild("nic-gbps-on-gpu", "a GPU with a NIC port capacity", [](auto& parts) {
    b::store_f64(record(part(parts, SectionType::components), 4, vpcat::component::nic_gbps), 25.0);
  });
  c.rebuild("bad-bus-id", "a GPU whose pci_bus_id is its name (\"gpu0\")", [](auto& parts) {
    Part& comps = part(parts, SectionType::components);
    b::store_u32(record(comps, 4, vpcat::component::pci_bus_id), b::load_u32(record(comps, 4, vpcat::component::name)));
  });
  c.rebuild("orbit-size-not-dividing", "a pattern orbit of 3 in a group of order 8", [](auto& parts) {
    b::store_u64(record(part(parts, SectionType::patterns), 0, vpcat::pattern::orbit_size), 3);
  });
  c.rebuild("bad-host-list", "4 nodes named \"quad\" (one host name)", [](auto& parts) {
    b::store_u32(record(part(parts, SectionType::node_groups), 0, vpcat::node_group::names),
                 b::load_u32(record(part(parts, SectionType::node_types), 0, vpcat::node_type::name)));
  });
  c.rebuild("route-revisits", "a route that goes out to the GPU's parent, back and out again (not a path)",
            add_detour);
  c.rebuild("bad-patterns-represented", "a pattern orbit of 8 (not 4): its sizes no longer sum to 7", [](auto& parts) {
    b::store_u64(record(part(parts, SectionType::patterns), 1, vpcat::pattern::orbit_size), 8);
  });
}

// Pattern 1 of "quad" ({nic0, -, nic1, -} sending, {-, nic0, -, nic1}
// receiving): its send roles, checked so that the cases below change what
// they mean to.
std::uint8_t* network_pattern_sends(std::vector<Part>& parts) {
  Part& roles = part(parts, SectionType::pattern_roles);
  const std::int32_t expected[4] = {vpcat::kNicBase, vpcat::kIdle, vpcat::kNicBase + 1, vpcat::kIdle};
  for (std::size_t g = 0; g < 4; ++g)
    if (b::load_i32(record(roles, 8 + g, 0)) != expected[g]) throw std::logic_error("pattern 1 changed");
  return record(roles, 8, 0);
}

// What the patterns and the default table mean, beyond their structure:
// every one passes a verifier that checks only roles' ranges and pairs.
void meaning_cases(Cases& c) {
  c.rebuild("nic-port-overloaded", "a pattern where GPUs 0 and 1 both send through nic0 (2 x 24 GB/s, port 25)",
            [](auto& parts) { b::store_i32(network_pattern_sends(parts) + 4, vpcat::kNicBase); });
  c.rebuild("nic-role-without-port", "nic1 with nic_gbps 0 (no port), which a pattern sends through",
            [](auto& parts) {
              network_pattern_sends(parts);
              // The routes' solo rates stay right: nic1's link (24) bounds them below its port (25).
              b::store_f64(record(part(parts, SectionType::components), 9, vpcat::component::nic_gbps), 0.0);
            });
  c.rebuild("unpaired-peer-roles", "a pattern where GPU 0 sends to GPU 1, which receives from nic0",
            [](auto& parts) { b::store_i32(record(part(parts, SectionType::pattern_roles), 5, 0), vpcat::kNicBase); });
  c.rebuild("denormal-default", "the default pcie.gen4 of 1e-310 (a denormal)", [](auto& parts) {
    b::store_f64(record(part(parts, SectionType::defaults), 1, vpcat::default_entry::value), 1e-310);
  });
  c.rebuild("zero-default", "the default root_complex_p2p_factor of 0", [](auto& parts) {
    b::store_f64(record(part(parts, SectionType::defaults), 2, vpcat::default_entry::value), 0.0);
  });
}

}  // namespace

std::vector<CorruptCase> corrupt_cases() {
  Cases c;
  header_cases(c);
  table_cases(c);
  record_cases(c);
  consistency_cases(c);
  meaning_cases(c);
  return std::move(c.out);
}

}  // namespace vp::test
