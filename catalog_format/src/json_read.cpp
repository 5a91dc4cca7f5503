// JSON mirror -> Catalog: the document's shape, strictly (unknown keys,
// missing keys, wrong types and out-of-range values are errors naming their
// path, and from text, its line and column). The format's own rules are left
// to write_catalog()'s verification.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>

#include "vp/base/json_document.hpp"
#include "vp/base/json_field.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/names.hpp"
#include "vpcat/format.hpp"

namespace vp::catalog {

namespace {

using json::Field;

// The mirror's own reads on top of vp/base/json_field.hpp: a component or
// link id that may be null, and a list of ids.
std::uint32_t id_or_none(const Field& n) { return n.is_null() ? kNone : n.u32(); }

std::vector<std::uint32_t> u32s(const Field& n) {
  std::vector<std::uint32_t> out;
  for (const Field& item : n.items()) out.push_back(item.u32());
  return out;
}

template <typename Enum>
Enum enum_of(const Field& n, std::optional<Enum> (*parse)(std::string_view), const char* expected) {
  const std::string s = n.text();
  auto v = parse(s);
  if (!v) n.fail(fmt::format("unknown value \"{}\" (expected {})", s, expected));
  return *v;
}

std::int32_t role_of(const Field& n) {
  if (n.is_null()) return kIdle;
  if (n.json().is_string()) {
    const std::string s = n.text();
    std::uint32_t k = 0;
    auto [end, ec] = std::from_chars(s.data() + std::min<std::size_t>(3, s.size()), s.data() + s.size(), k);
    if (s.rfind("nic", 0) != 0 || s.size() == 3 || ec != std::errc() || end != s.data() + s.size() ||
        k > static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max() - kNicBase))
      n.fail(fmt::format("role \"{}\" is not \"nicK\"", s));
    return kNicBase + static_cast<std::int32_t>(k);
  }
  const std::uint32_t g = n.u32();
  if (g >= static_cast<std::uint32_t>(kNicBase)) n.fail(fmt::format("GPU index {} is not below {}", g, kNicBase));
  return static_cast<std::int32_t>(g);
}

void expect_index(const Field& n, std::size_t index) {
  if (n.at("id").u64() != index) n.at("id").fail(fmt::format("is {}, expected its index {}", n.at("id").u64(), index));
}

void read_component(const Field& n, std::size_t index, NodeType& t) {
  n.require_keys({"id", "kind", "name", "parent", "local_index", "orbit", "model", "pci_bus_id", "device_name",
                 "forward_gbps", "nic_gbps", "gpudirect"});
  expect_index(n, index);
  Component c;
  c.kind = enum_of<Kind>(n.at("kind"), parse_component_kind, "cpu, host_bridge, pcie_switch, gpu, nic or net_switch");
  c.name = n.at("name").text();
  c.parent = id_or_none(n.at("parent"));
  c.local_index = n.at("local_index").u32();
  c.model = n.at("model").text();
  c.pci_bus_id = n.at("pci_bus_id").text();
  c.device_name = n.at("device_name").text();
  c.forward_gbps = n.at("forward_gbps").number();
  c.nic_gbps = n.at("nic_gbps").number();
  c.gpudirect = n.at("gpudirect").boolean();
  t.components.push_back(std::move(c));
  t.component_orbit.push_back(n.at("orbit").u32());
}

void read_link(const Field& n, std::size_t index, NodeType& t) {
  n.require_keys({"id", "src", "dst", "kind", "capacity_gbps", "reverse", "orbit"});
  expect_index(n, index);
  Link l;
  l.src = n.at("src").u32();
  l.dst = n.at("dst").u32();
  l.kind = enum_of<LinkKind>(n.at("kind"), parse_link_kind, "pcie, inter_socket or network");
  l.capacity_gbps = n.at("capacity_gbps").number();
  l.reverse = n.at("reverse").u32();
  t.links.push_back(l);
  t.link_orbit.push_back(n.at("orbit").u32());
}

Route read_route(const Field& n) {
  n.require_keys({"from", "to", "solo_gbps", "links", "forwarders"});
  return Route{n.at("from").u32(), n.at("to").u32(), n.at("solo_gbps").number(), u32s(n.at("links")), u32s(n.at("forwarders"))};
}

LocalPattern read_pattern(const Field& n) {
  n.require_keys({"send", "recv", "orbit_size"});
  LocalPattern p;
  for (std::size_t g = 0; g < n.at("send").size(); ++g) p.send.push_back(role_of(n.at("send").at(g)));
  for (std::size_t g = 0; g < n.at("recv").size(); ++g) p.recv.push_back(role_of(n.at("recv").at(g)));
  p.orbit_size = n.at("orbit_size").u64();
  return p;
}

NodeType read_node_type(const Field& n) {
  n.require_keys({"name", "components", "links", "routes", "symmetry", "patterns"});
  NodeType t;
  t.name = n.at("name").text();
  for (std::size_t i = 0; i < n.at("components").size(); ++i) read_component(n.at("components").at(i), i, t);
  for (std::size_t i = 0; i < n.at("links").size(); ++i) read_link(n.at("links").at(i), i, t);
  for (std::size_t i = 0; i < n.at("routes").size(); ++i) t.routes.push_back(read_route(n.at("routes").at(i)));
  const Field sym = n.at("symmetry");
  sym.require_keys({"group_order", "generators"});
  t.group_order = sym.at("group_order").text();
  for (std::size_t g = 0; g < sym.at("generators").size(); ++g) {
    const Field gen = sym.at("generators").at(g);
    auto images = parse_cycles(gen.text(), t.components.size());
    if (!images)
      gen.fail(fmt::format("\"{}\" is not a permutation of the {} components in cycle notation", gen.text(),
                           t.components.size()));
    t.generators.push_back(std::move(*images));
  }
  const Field pat = n.at("patterns");
  pat.require_keys({"represented", "representatives"});
  t.patterns_represented = pat.at("represented").text();
  for (std::size_t p = 0; p < pat.at("representatives").size(); ++p)
    t.patterns.push_back(read_pattern(pat.at("representatives").at(p)));
  return t;
}

Fabric read_fabric(const Field& n) {
  n.require_keys({"kind", "leaf_size", "oversubscription", "switches", "spine", "spine_uplink_gbps", "group_description",
                 "group_order"});
  Fabric f;
  f.kind = enum_of<FabricKind>(n.at("kind"), parse_fabric_kind, "none, single_switch, rail or leaf_spine");
  f.leaf_size = n.at("leaf_size").u32();
  f.oversubscription = n.at("oversubscription").number();
  f.switches = n.at("switches").u32();
  f.spine = n.at("spine").boolean();
  for (std::size_t k = 0; k < n.at("spine_uplink_gbps").size(); ++k)
    f.spine_uplink_gbps.push_back(n.at("spine_uplink_gbps").at(k).number());
  f.group_description = n.at("group_description").text();
  f.group_order = n.at("group_order").text();
  return f;
}

ModelValue read_value(const Field& n) {
  n.require_keys({"value", "source"});
  return ModelValue{n.at("value").number(), n.at("source").text()};
}

ModelCurve read_curve(const Field& n, bool families) {
  if (families) n.require_keys({"on", "slope", "floor", "families"});
  else n.require_keys({"on", "slope", "floor"});
  return ModelCurve{n.at("on").boolean(), read_value(n.at("slope")), read_value(n.at("floor"))};
}

// The values' ranges are the verifier's (write_catalog()).
MachineModelSpec read_machine_model(const Field& n) {
  n.require_keys({"forwarder", "nic", "chunk"});
  MachineModelSpec m;
  m.forwarder = read_curve(n.at("forwarder"), true);
  for (const Field& f : n.at("forwarder").at("families").items()) {
    f.require_keys({"match", "slope", "floor"});
    m.families.push_back(ModelFamily{f.at("match").text(), read_value(f.at("slope")), read_value(f.at("floor"))});
  }
  m.nic = read_curve(n.at("nic"), false);
  const Field chunk = n.at("chunk");
  chunk.require_keys({"on", "bytes", "overhead_us"});
  m.chunk_on = chunk.at("on").boolean();
  m.chunk_bytes = read_value(chunk.at("bytes"));
  m.chunk_overhead_us = read_value(chunk.at("overhead_us"));
  return m;
}

Catalog read_fields(const Field& doc) {
  // "machine_model" is new in format 1.2: older mirrors have none.
  const bool has_model = doc.json().is_object() && doc.json().contains("machine_model");
  if (has_model)
    doc.require_keys({"format", "format_version", "node_types", "node_groups", "fabric", "cluster_group_order",
                      "defaults", "provenance", "machine_model"});
  else
    doc.require_keys({"format", "format_version", "node_types", "node_groups", "fabric", "cluster_group_order",
                      "defaults", "provenance"});
  if (doc.at("format").text() != "vpcat-json")
    doc.at("format").fail("expected \"vpcat-json\", got " + json::describe(doc.at("format").json()));
  const std::string version = doc.at("format_version").text();
  if (version.rfind(std::to_string(vpcat::kFormatMajor) + ".", 0) != 0)
    doc.at("format_version").fail(fmt::format("format {} is not readable by this tool (format {}.{})", version,
                                           vpcat::kFormatMajor, vpcat::kFormatMinor));
  Catalog c;
  for (const Field& t : doc.at("node_types").items()) c.node_types.push_back(read_node_type(t));
  for (const Field& g : doc.at("node_groups").items()) {
    g.require_keys({"node_type", "count", "names"});
    c.node_groups.push_back(NodeGroup{g.at("node_type").u32(), g.at("count").u32(), g.at("names").text()});
  }
  c.fabric = read_fabric(doc.at("fabric"));
  c.cluster_group_order = doc.at("cluster_group_order").text();
  const Field defaults = doc.at("defaults");
  for (const auto& [key, value] : defaults.members()) c.defaults.emplace_back(key, value.number());
  const Field p = doc.at("provenance");
  // "warnings" is new in format 1.1: a 1.0 mirror has none.
  const bool has_warnings = p.json().is_object() && p.json().contains("warnings");
  if (has_warnings) p.require_keys({"tool", "tool_version", "input_digest", "options", "warnings"});
  else p.require_keys({"tool", "tool_version", "input_digest", "options"});
  const std::string warnings = has_warnings ? p.at("warnings").text() : std::string();
  c.provenance =
      Provenance{p.at("tool").text(), p.at("tool_version").text(), p.at("input_digest").text(), p.at("options").text(), warnings};
  if (has_model) c.machine_model = read_machine_model(doc.at("machine_model"));
  return c;
}

// A shape error of the mirror is an invalid catalog (exit 3), not bad input.
template <typename Read>
Catalog invalid_on_error(Read read) {
  try {
    return read();
  } catch (const InputError& e) {
    throw CatalogError(CatalogError::Kind::invalid, e.what());
  }
}

}  // namespace

Catalog from_json(const Json& j, const std::string& origin) {
  return invalid_on_error([&] { return read_fields(Field(j, origin)); });
}

Catalog parse_json_catalog(const std::string& text, const std::string& origin) {
  std::optional<json::Document> doc;
  try {
    doc.emplace(origin, text);
  } catch (const InputError& e) {
    throw CatalogError(CatalogError::Kind::unreadable, e.what());
  }
  return invalid_on_error([&] { return read_fields(Field(*doc)); });
}

}  // namespace vp::catalog
