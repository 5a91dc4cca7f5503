// The .vpcat file format, version 1.2, as constants (catalog_format/SPEC.md
// is the normative text; every number here appears there).
//
// A file is: a 64-byte header, a section table (one 32-byte entry per
// section), then the sections, each at an 8-byte aligned offset (writers use
// 64). Every section starts with an 8-byte section header (record count,
// record size) followed by its records. Records are fixed-size; their fields
// sit at the offsets below. Strings are referenced by index into the
// `strings` section.
//
// Field tables (`k...Fields`) describe every byte of every record, for
// annotated dumps and for tests: they use the same offset constants as the
// accessors, so there is one source of truth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {

// ---- versions ---------------------------------------------------------------
// The format version this library reads and writes. A reader of 1.y reads any
// 1.x file whose min_reader_minor <= y (SPEC.md "Compatibility").
inline constexpr std::uint16_t kFormatMajor = 1;
inline constexpr std::uint16_t kFormatMinor = 2;  // 1.1: provenance.warnings; 1.2: machine_model

// ---- signature ----------------------------------------------------------------
// 0x89: high bit set, catches 7-bit channels and text files; "VPC": the name;
// CR LF: catches CRLF->LF conversion; 0x1A: stops `type` on DOS; LF: catches
// LF->CRLF conversion (the PNG signature's reasoning).
inline constexpr std::uint8_t kMagic[8] = {0x89, 0x56, 0x50, 0x43, 0x0D, 0x0A, 0x1A, 0x0A};

inline constexpr std::uint32_t kNone = 0xFFFFFFFFu;  // "no component" (a socket's parent)
inline constexpr std::size_t kSectionAlignment = 8;  // MUST; writers use kWriterAlignment
inline constexpr std::size_t kWriterAlignment = 64;
inline constexpr std::uint32_t kMaxSectionCount = 256;  // hard format limit on the table

// ---- domain codes (stored as u8) -------------------------------------------------
enum class ComponentKind : std::uint8_t { cpu = 0, host_bridge = 1, pcie_switch = 2, gpu = 3, nic = 4, net_switch = 5 };
enum class LinkKind : std::uint8_t { pcie = 0, inter_socket = 1, network = 2 };
enum class FabricKind : std::uint8_t { none = 0, single_switch = 1, rail = 2, leaf_spine = 3 };

// The kinds' names, the words of the JSON mirror and `vp-analyze topology
// --json`; "unknown" for a value outside the enumeration. The one set of kind
// enums and names: the tools' topology model and catalog use these
// (vp::ComponentKind, vp::catalog::Kind, ... are aliases).
namespace detail {
inline constexpr const char* kComponentKindNames[] = {"cpu", "host_bridge", "pcie_switch", "gpu", "nic", "net_switch"};
inline constexpr const char* kLinkKindNames[] = {"pcie", "inter_socket", "network"};
inline constexpr const char* kFabricKindNames[] = {"none", "single_switch", "rail", "leaf_spine"};

template <class Enum, std::size_t N>
std::optional<Enum> parse_kind_name(const char* const (&names)[N], std::string_view s) noexcept {
  for (std::size_t i = 0; i < N; ++i)
    if (s == names[i]) return static_cast<Enum>(i);
  return std::nullopt;
}
}  // namespace detail

// "cpu", "host_bridge", "pcie_switch", "gpu", "nic", "net_switch"; "unknown" otherwise.
inline const char* component_kind_name(std::uint8_t kind) noexcept {
  return kind < 6 ? detail::kComponentKindNames[kind] : "unknown";
}
inline std::string_view to_string(ComponentKind k) noexcept { return component_kind_name(static_cast<std::uint8_t>(k)); }
inline std::string_view to_string(LinkKind k) noexcept {
  const auto i = static_cast<std::uint8_t>(k);
  return i < 3 ? detail::kLinkKindNames[i] : "unknown";
}
inline std::string_view to_string(FabricKind k) noexcept {
  const auto i = static_cast<std::uint8_t>(k);
  return i < 4 ? detail::kFabricKindNames[i] : "unknown";
}
// The kind named `s` (exactly, as to_string() writes it); nullopt otherwise.
inline std::optional<ComponentKind> parse_component_kind(std::string_view s) noexcept {
  return detail::parse_kind_name<ComponentKind>(detail::kComponentKindNames, s);
}
inline std::optional<LinkKind> parse_link_kind(std::string_view s) noexcept {
  return detail::parse_kind_name<LinkKind>(detail::kLinkKindNames, s);
}
inline std::optional<FabricKind> parse_fabric_kind(std::string_view s) noexcept {
  return detail::parse_kind_name<FabricKind>(detail::kFabricKindNames, s);
}

// Pattern roles (i32), per local GPU index g: kIdle, a local GPU index
// 0..G-1 (peer-to-peer partner, never g itself), or kNicBase + k (to or from
// the network through local NIC index k).
inline constexpr std::int32_t kIdle = -1;
inline constexpr std::int32_t kNicBase = 1 << 16;

// ---- section types (u32, never renumbered) ------------------------------------
enum class SectionType : std::uint32_t {
  strings = 1,
  node_types = 2,
  components = 3,
  links = 4,
  routes = 5,
  route_hops = 6,
  permutations = 7,
  patterns = 8,
  pattern_roles = 9,
  node_groups = 10,
  cluster = 11,
  spine_uplinks = 12,
  defaults = 13,
  provenance = 14,
  machine_model = 15,  // 1.2, optional, written may_skip
};
inline constexpr std::uint32_t kFirstSectionType = 1;
inline constexpr std::uint32_t kLastRequiredSectionType = 14;  // every type 1..14 is required (from 1.0)
inline constexpr std::uint32_t kLastSectionType = 15;          // the last type this version knows

// Section-table entry flags.
inline constexpr std::uint32_t kSectionMaySkip = 1u << 0;  // a reader that does not know the type may ignore it
inline constexpr std::uint32_t kSectionFlagsKnown = kSectionMaySkip;

// Record flags.
inline constexpr std::uint8_t kComponentGpuDirect = 1u << 0;
inline constexpr std::uint8_t kComponentFlagsKnown = kComponentGpuDirect;
inline constexpr std::uint8_t kClusterSpine = 1u << 0;
inline constexpr std::uint8_t kClusterFlagsKnown = kClusterSpine;

// ---- field descriptions ------------------------------------------------------------
enum class FieldType : std::uint8_t {
  magic,     // the 8-byte signature
  u8,
  u16,
  u32,
  u64,
  i32,
  f64,
  str,       // u32 index into the strings section
  id,        // u32 id, kNone = none
  flags8,    // u8 bit set
  flags32,   // u32 bit set
  checksum,  // u32 CRC-32C
  reserved,  // bytes that MUST be zero
};

struct Field {
  std::uint32_t offset;
  std::uint32_t width;  // bytes
  FieldType type;
  const char* name;
};

// ---- header (64 bytes at offset 0) -------------------------------------------
namespace header {
inline constexpr std::size_t magic = 0;
inline constexpr std::size_t format_major = 8;
inline constexpr std::size_t format_minor = 10;
inline constexpr std::size_t min_reader_minor = 12;
inline constexpr std::size_t header_size = 14;
inline constexpr std::size_t entry_size = 16;
inline constexpr std::size_t section_count = 18;
inline constexpr std::size_t flags = 20;
inline constexpr std::size_t file_size = 24;
inline constexpr std::size_t writer_major = 32;
inline constexpr std::size_t writer_minor = 34;
inline constexpr std::size_t writer_patch = 36;
inline constexpr std::size_t reserved = 38;  // 22 bytes
inline constexpr std::size_t checksum = 60;
inline constexpr std::size_t size = 64;
inline constexpr std::uint32_t flags_known = 0;  // no header flag is defined in 1.0
}  // namespace header

inline constexpr Field kHeaderFields[] = {
    {header::magic, 8, FieldType::magic, "magic"},
    {header::format_major, 2, FieldType::u16, "format_major"},
    {header::format_minor, 2, FieldType::u16, "format_minor"},
    {header::min_reader_minor, 2, FieldType::u16, "min_reader_minor"},
    {header::header_size, 2, FieldType::u16, "header_size"},
    {header::entry_size, 2, FieldType::u16, "entry_size"},
    {header::section_count, 2, FieldType::u16, "section_count"},
    {header::flags, 4, FieldType::flags32, "flags"},
    {header::file_size, 8, FieldType::u64, "file_size"},
    {header::writer_major, 2, FieldType::u16, "writer_major"},
    {header::writer_minor, 2, FieldType::u16, "writer_minor"},
    {header::writer_patch, 2, FieldType::u16, "writer_patch"},
    {header::reserved, 22, FieldType::reserved, "reserved"},
    {header::checksum, 4, FieldType::checksum, "header_checksum"},
};

// ---- section-table entry (32 bytes) ------------------------------------------------
namespace entry {
inline constexpr std::size_t type = 0;
inline constexpr std::size_t flags = 4;
inline constexpr std::size_t offset = 8;
inline constexpr std::size_t size = 16;
inline constexpr std::size_t checksum = 24;
inline constexpr std::size_t reserved = 28;
inline constexpr std::size_t entry_size = 32;
}  // namespace entry

inline constexpr Field kEntryFields[] = {
    {entry::type, 4, FieldType::u32, "type"},
    {entry::flags, 4, FieldType::flags32, "flags"},
    {entry::offset, 8, FieldType::u64, "offset"},
    {entry::size, 8, FieldType::u64, "size"},
    {entry::checksum, 4, FieldType::checksum, "checksum"},
    {entry::reserved, 4, FieldType::reserved, "reserved"},
};

// ---- section header (8 bytes at the start of every section) -----------------------
namespace section {
inline constexpr std::size_t count = 0;
inline constexpr std::size_t record_size = 4;
inline constexpr std::size_t size = 8;
}  // namespace section

inline constexpr Field kSectionHeaderFields[] = {
    {section::count, 4, FieldType::u32, "count"},
    {section::record_size, 4, FieldType::u32, "record_size"},
};

// ---- records -------------------------------------------------------------------
namespace node_type {
inline constexpr std::size_t name = 0;
inline constexpr std::size_t group_order = 4;
inline constexpr std::size_t patterns_represented = 8;
inline constexpr std::size_t component_first = 12;
inline constexpr std::size_t component_count = 16;
inline constexpr std::size_t link_first = 20;
inline constexpr std::size_t link_count = 24;
inline constexpr std::size_t route_first = 28;
inline constexpr std::size_t route_count = 32;
inline constexpr std::size_t generator_count = 36;
inline constexpr std::size_t permutation_first = 40;
inline constexpr std::size_t pattern_first = 44;
inline constexpr std::size_t pattern_count = 48;
inline constexpr std::size_t role_first = 52;
inline constexpr std::size_t gpu_count = 56;
inline constexpr std::size_t nic_count = 60;
inline constexpr std::size_t size = 64;
}  // namespace node_type

inline constexpr Field kNodeTypeFields[] = {
    {node_type::name, 4, FieldType::str, "name"},
    {node_type::group_order, 4, FieldType::str, "group_order"},
    {node_type::patterns_represented, 4, FieldType::str, "patterns_represented"},
    {node_type::component_first, 4, FieldType::u32, "component_first"},
    {node_type::component_count, 4, FieldType::u32, "component_count"},
    {node_type::link_first, 4, FieldType::u32, "link_first"},
    {node_type::link_count, 4, FieldType::u32, "link_count"},
    {node_type::route_first, 4, FieldType::u32, "route_first"},
    {node_type::route_count, 4, FieldType::u32, "route_count"},
    {node_type::generator_count, 4, FieldType::u32, "generator_count"},
    {node_type::permutation_first, 4, FieldType::u32, "permutation_first"},
    {node_type::pattern_first, 4, FieldType::u32, "pattern_first"},
    {node_type::pattern_count, 4, FieldType::u32, "pattern_count"},
    {node_type::role_first, 4, FieldType::u32, "role_first"},
    {node_type::gpu_count, 4, FieldType::u32, "gpu_count"},
    {node_type::nic_count, 4, FieldType::u32, "nic_count"},
};

namespace component {
inline constexpr std::size_t kind = 0;
inline constexpr std::size_t flags = 1;
inline constexpr std::size_t reserved = 2;  // 2 bytes
inline constexpr std::size_t parent = 4;
inline constexpr std::size_t local_index = 8;
inline constexpr std::size_t orbit = 12;
inline constexpr std::size_t name = 16;
inline constexpr std::size_t model = 20;
inline constexpr std::size_t pci_bus_id = 24;
inline constexpr std::size_t device_name = 28;
inline constexpr std::size_t forward_gbps = 32;
inline constexpr std::size_t nic_gbps = 40;
inline constexpr std::size_t size = 48;
}  // namespace component

inline constexpr Field kComponentFields[] = {
    {component::kind, 1, FieldType::u8, "kind"},
    {component::flags, 1, FieldType::flags8, "flags"},
    {component::reserved, 2, FieldType::reserved, "reserved"},
    {component::parent, 4, FieldType::id, "parent"},
    {component::local_index, 4, FieldType::u32, "local_index"},
    {component::orbit, 4, FieldType::u32, "orbit"},
    {component::name, 4, FieldType::str, "name"},
    {component::model, 4, FieldType::str, "model"},
    {component::pci_bus_id, 4, FieldType::str, "pci_bus_id"},
    {component::device_name, 4, FieldType::str, "device_name"},
    {component::forward_gbps, 8, FieldType::f64, "forward_gbps"},
    {component::nic_gbps, 8, FieldType::f64, "nic_gbps"},
};

namespace link {
inline constexpr std::size_t src = 0;
inline constexpr std::size_t dst = 4;
inline constexpr std::size_t reverse = 8;
inline constexpr std::size_t orbit = 12;
inline constexpr std::size_t kind = 16;
inline constexpr std::size_t reserved = 17;  // 7 bytes
inline constexpr std::size_t capacity_gbps = 24;
inline constexpr std::size_t size = 32;
}  // namespace link

inline constexpr Field kLinkFields[] = {
    {link::src, 4, FieldType::u32, "src"},
    {link::dst, 4, FieldType::u32, "dst"},
    {link::reverse, 4, FieldType::u32, "reverse"},
    {link::orbit, 4, FieldType::u32, "orbit"},
    {link::kind, 1, FieldType::u8, "kind"},
    {link::reserved, 7, FieldType::reserved, "reserved"},
    {link::capacity_gbps, 8, FieldType::f64, "capacity_gbps"},
};

namespace route {
inline constexpr std::size_t from = 0;
inline constexpr std::size_t to = 4;
inline constexpr std::size_t hop_first = 8;
inline constexpr std::size_t link_count = 12;
inline constexpr std::size_t forwarder_count = 16;
inline constexpr std::size_t reserved = 20;  // 4 bytes
inline constexpr std::size_t solo_gbps = 24;
inline constexpr std::size_t size = 32;
}  // namespace route

inline constexpr Field kRouteFields[] = {
    {route::from, 4, FieldType::u32, "from"},
    {route::to, 4, FieldType::u32, "to"},
    {route::hop_first, 4, FieldType::u32, "hop_first"},
    {route::link_count, 4, FieldType::u32, "link_count"},
    {route::forwarder_count, 4, FieldType::u32, "forwarder_count"},
    {route::reserved, 4, FieldType::reserved, "reserved"},
    {route::solo_gbps, 8, FieldType::f64, "solo_gbps"},
};

namespace pattern {
inline constexpr std::size_t orbit_size = 0;
inline constexpr std::size_t size = 8;
}  // namespace pattern

inline constexpr Field kPatternFields[] = {
    {pattern::orbit_size, 8, FieldType::u64, "orbit_size"},
};

namespace node_group {
inline constexpr std::size_t node_type = 0;
inline constexpr std::size_t count = 4;
inline constexpr std::size_t names = 8;
inline constexpr std::size_t first_node = 12;
inline constexpr std::size_t first_component = 16;
inline constexpr std::size_t first_link = 24;
inline constexpr std::size_t first_gpu = 32;
inline constexpr std::size_t first_nic = 40;
inline constexpr std::size_t size = 48;
}  // namespace node_group

inline constexpr Field kNodeGroupFields[] = {
    {node_group::node_type, 4, FieldType::u32, "node_type"},
    {node_group::count, 4, FieldType::u32, "count"},
    {node_group::names, 4, FieldType::str, "names"},
    {node_group::first_node, 4, FieldType::u32, "first_node"},
    {node_group::first_component, 8, FieldType::u64, "first_component"},
    {node_group::first_link, 8, FieldType::u64, "first_link"},
    {node_group::first_gpu, 8, FieldType::u64, "first_gpu"},
    {node_group::first_nic, 8, FieldType::u64, "first_nic"},
};

namespace cluster {
inline constexpr std::size_t fabric_kind = 0;
inline constexpr std::size_t flags = 1;
inline constexpr std::size_t reserved = 2;  // 2 bytes
inline constexpr std::size_t leaf_size = 4;
inline constexpr std::size_t switches = 8;
inline constexpr std::size_t node_count = 12;
inline constexpr std::size_t oversubscription = 16;
inline constexpr std::size_t group_description = 24;
inline constexpr std::size_t fabric_group_order = 28;
inline constexpr std::size_t cluster_group_order = 32;
inline constexpr std::size_t reserved2 = 36;  // 4 bytes
inline constexpr std::size_t gpu_count = 40;
inline constexpr std::size_t nic_count = 48;
inline constexpr std::size_t component_count = 56;
inline constexpr std::size_t link_count = 64;
inline constexpr std::size_t size = 72;
}  // namespace cluster

inline constexpr Field kClusterFields[] = {
    {cluster::fabric_kind, 1, FieldType::u8, "fabric_kind"},
    {cluster::flags, 1, FieldType::flags8, "flags"},
    {cluster::reserved, 2, FieldType::reserved, "reserved"},
    {cluster::leaf_size, 4, FieldType::u32, "leaf_size"},
    {cluster::switches, 4, FieldType::u32, "switches"},
    {cluster::node_count, 4, FieldType::u32, "node_count"},
    {cluster::oversubscription, 8, FieldType::f64, "oversubscription"},
    {cluster::group_description, 4, FieldType::str, "group_description"},
    {cluster::fabric_group_order, 4, FieldType::str, "fabric_group_order"},
    {cluster::cluster_group_order, 4, FieldType::str, "cluster_group_order"},
    {cluster::reserved2, 4, FieldType::reserved, "reserved"},
    {cluster::gpu_count, 8, FieldType::u64, "gpu_count"},
    {cluster::nic_count, 8, FieldType::u64, "nic_count"},
    {cluster::component_count, 8, FieldType::u64, "component_count"},
    {cluster::link_count, 8, FieldType::u64, "link_count"},
};

namespace default_entry {
inline constexpr std::size_t key = 0;
inline constexpr std::size_t reserved = 4;  // 4 bytes
inline constexpr std::size_t value = 8;
inline constexpr std::size_t size = 16;
}  // namespace default_entry

inline constexpr Field kDefaultFields[] = {
    {default_entry::key, 4, FieldType::str, "key"},
    {default_entry::reserved, 4, FieldType::reserved, "reserved"},
    {default_entry::value, 8, FieldType::f64, "value"},
};

namespace provenance {
inline constexpr std::size_t tool = 0;
inline constexpr std::size_t tool_version = 4;
inline constexpr std::size_t input_digest = 8;
inline constexpr std::size_t options = 12;
inline constexpr std::size_t size_1_0 = 16;  // the 1.0 record: the smallest a reader accepts
// Appended in 1.1 (present when record_size >= size):
inline constexpr std::size_t warnings = 16;
inline constexpr std::size_t reserved = 20;  // 4 bytes
inline constexpr std::size_t size = 24;
}  // namespace provenance

inline constexpr Field kProvenanceFields[] = {
    {provenance::tool, 4, FieldType::str, "tool"},
    {provenance::tool_version, 4, FieldType::str, "tool_version"},
    {provenance::input_digest, 4, FieldType::str, "input_digest"},
    {provenance::options, 4, FieldType::str, "options"},
    {provenance::warnings, 4, FieldType::str, "warnings"},
    {provenance::reserved, 4, FieldType::reserved, "reserved"},
};

// The machine model (1.2): one record per mechanism, in kind order:
// forwarder, its CPU families (0..kMaxModelFamilies, first match wins), nic,
// chunk (SPEC.md §6.13).
enum class ModelPart : std::uint8_t { forwarder = 0, family = 1, nic = 2, chunk = 3 };
inline constexpr std::uint32_t kMaxModelFamilies = 8;
inline constexpr std::uint32_t kMaxModelMatchBytes = 47;  // a family's match, without its NUL
inline constexpr std::uint8_t kModelOn = 1u << 0;         // forwarder, nic, chunk: the mechanism charges its loss
inline constexpr std::uint8_t kModelFlagsKnown = kModelOn;

namespace model_entry {
inline constexpr std::size_t part = 0;
inline constexpr std::size_t flags = 1;
inline constexpr std::size_t reserved = 2;  // 2 bytes
inline constexpr std::size_t match = 4;     // family: a substring of the socket's CPU model; "" otherwise
inline constexpr std::size_t a = 8;         // curves: slope; chunk: bytes
inline constexpr std::size_t b = 16;        // curves: floor; chunk: overhead_us
inline constexpr std::size_t a_source = 24;
inline constexpr std::size_t b_source = 28;
inline constexpr std::size_t size = 32;
}  // namespace model_entry

inline constexpr Field kModelFields[] = {
    {model_entry::part, 1, FieldType::u8, "part"},
    {model_entry::flags, 1, FieldType::flags8, "flags"},
    {model_entry::reserved, 2, FieldType::reserved, "reserved"},
    {model_entry::match, 4, FieldType::str, "match"},
    {model_entry::a, 8, FieldType::f64, "a"},
    {model_entry::b, 8, FieldType::f64, "b"},
    {model_entry::a_source, 4, FieldType::str, "a_source"},
    {model_entry::b_source, 4, FieldType::str, "b_source"},
};

namespace detail {
inline constexpr const char* kModelPartNames[] = {"forwarder", "family", "nic", "chunk"};
}  // namespace detail
// "forwarder", "family", "nic", "chunk"; "unknown" otherwise.
inline const char* model_part_name(std::uint8_t part) noexcept { return part < 4 ? detail::kModelPartNames[part] : "unknown"; }

// Scalar array elements (record_size equals the element size exactly).
inline constexpr Field kRouteHopFields[] = {{0, 4, FieldType::u32, "hop"}};
inline constexpr Field kPermutationFields[] = {{0, 4, FieldType::u32, "image"}};
inline constexpr Field kRoleFields[] = {{0, 4, FieldType::i32, "role"}};
inline constexpr Field kUplinkFields[] = {{0, 8, FieldType::f64, "uplink_gbps"}};
inline constexpr Field kStringEndFields[] = {{0, 4, FieldType::u32, "end"}};

// ---- per-section description -----------------------------------------------------
enum class SectionShape : std::uint8_t {
  records,  // fixed-size records; record_size >= min_record_size, a multiple of 8; extra bytes unused
  array,    // scalars; record_size == min_record_size exactly
  strings,  // `count` u32 string ends (record_size 4), then the string bytes
};

struct SectionSpec {
  SectionType type;
  const char* name;
  SectionShape shape;
  std::uint32_t min_record_size;  // the 1.0 size: a smaller record is an error
  const Field* fields;            // in offset order; fields past min_record_size were appended by a later
  std::size_t field_count;        // minor and are present when record_size reaches their end
  std::uint32_t known_record_size = min_record_size;  // the bytes this version interprets
  bool required = true;                               // false: a later minor's section, absent from older files
};

namespace detail {
template <std::size_t N>
constexpr std::size_t count_of(const Field (&)[N]) {
  return N;
}
}  // namespace detail

inline constexpr SectionSpec kSectionSpecs[] = {
    {SectionType::strings, "strings", SectionShape::strings, 4, kStringEndFields, detail::count_of(kStringEndFields)},
    {SectionType::node_types, "node_types", SectionShape::records, node_type::size, kNodeTypeFields, detail::count_of(kNodeTypeFields)},
    {SectionType::components, "components", SectionShape::records, component::size, kComponentFields, detail::count_of(kComponentFields)},
    {SectionType::links, "links", SectionShape::records, link::size, kLinkFields, detail::count_of(kLinkFields)},
    {SectionType::routes, "routes", SectionShape::records, route::size, kRouteFields, detail::count_of(kRouteFields)},
    {SectionType::route_hops, "route_hops", SectionShape::array, 4, kRouteHopFields, detail::count_of(kRouteHopFields)},
    {SectionType::permutations, "permutations", SectionShape::array, 4, kPermutationFields, detail::count_of(kPermutationFields)},
    {SectionType::patterns, "patterns", SectionShape::records, pattern::size, kPatternFields, detail::count_of(kPatternFields)},
    {SectionType::pattern_roles, "pattern_roles", SectionShape::array, 4, kRoleFields, detail::count_of(kRoleFields)},
    {SectionType::node_groups, "node_groups", SectionShape::records, node_group::size, kNodeGroupFields, detail::count_of(kNodeGroupFields)},
    {SectionType::cluster, "cluster", SectionShape::records, cluster::size, kClusterFields, detail::count_of(kClusterFields)},
    {SectionType::spine_uplinks, "spine_uplinks", SectionShape::array, 8, kUplinkFields, detail::count_of(kUplinkFields)},
    {SectionType::defaults, "defaults", SectionShape::records, default_entry::size, kDefaultFields, detail::count_of(kDefaultFields)},
    {SectionType::provenance, "provenance", SectionShape::records, provenance::size_1_0, kProvenanceFields, detail::count_of(kProvenanceFields), provenance::size},
    {SectionType::machine_model, "machine_model", SectionShape::records, model_entry::size, kModelFields, detail::count_of(kModelFields), model_entry::size, false},
};
static_assert(sizeof(kSectionSpecs) / sizeof(kSectionSpecs[0]) == kLastSectionType);

// The description of a known section type, or nullptr.
inline const SectionSpec* section_spec(std::uint32_t type) noexcept {
  if (type < kFirstSectionType || type > kLastSectionType) return nullptr;
  return &kSectionSpecs[type - kFirstSectionType];
}

// "patterns"; "unknown" for a type this version does not know.
inline const char* section_name(std::uint32_t type) noexcept {
  const SectionSpec* s = section_spec(type);
  return s ? s->name : "unknown";
}

}  // namespace v0_1
}  // namespace vpcat
