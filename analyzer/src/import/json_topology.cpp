// Our JSON topology document (schemas/topology.schema.json): the writer
// topology_to_json() and the reader import_json().
//
// The reader accepts what the writer prints (and returns a Topology that is
// same_as() the one written) and hand-authored documents: component ids are
// labels that parents and links refer to, a link without "reverse" is a
// full-duplex link, and omitted capacities are derived through the default
// table. The derived arrays (gpus, nics, switches, sockets, path_types,
// nic_path_types) are output-only; when present they must agree with the model.
//
// Every error the reader finds is an InputError naming the file, the line
// and column where the offending value starts (then that line and a caret),
// and a path into the document:
// "links[5].capacity_gbps: must be a positive number, got -3". The model rules
// that only finalize() knows (which kind may hang below which, at least one
// GPU) pass through with its message and line 0.
#include "vp/import/json_topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <variant>

#include "vp/base/json_document.hpp"
#include "vp/base/json_field.hpp"
#include "vp/import/import.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/errors.hpp"
#include "vp/topology/routes.hpp"
#include "vpcat/pci_bus_id.hpp"

namespace vp {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kFormat = "vp-topology";
constexpr std::int64_t kVersion = 1;
constexpr std::int64_t kMaxId = kNone - 1;

// ---------------------------------------------------------------------------
// Places in the document (the located-JSON front end, vp/base/json_document.hpp)

using PathSegment = json::Segment;  // object key or array index
using JsonPath = json::Path;
using json::format_path;

// ---------------------------------------------------------------------------
// Typed access to a JSON value that knows where it is: base's located fields
// (vp/base/json_field.hpp), with the few reads of this format on top.

using Value = json::Field;
using json::describe;

double positive(const Value& v) {
  if (!v.json().is_number() || !(v.json().get<double>() > 0)) v.fail("must be a positive number, got " + describe(v.json()));
  return v.json().get<double>();
}

double capacity(const Value& v) {
  if (!v.json().is_number() || !in_capacity_range(v.json().get<double>()))
    v.fail("must be a capacity " + capacity_range_text() + ", got " + describe(v.json()));
  return v.json().get<double>();
}

double non_negative(const Value& v) {
  if (!v.json().is_number() || !(v.json().get<double>() >= 0))
    v.fail("must be a non-negative number, got " + describe(v.json()));
  return v.json().get<double>();
}

// The keys an object may have; a key with `only` set belongs to that kind.
struct KeyRule {
  std::string_view key;
  std::string_view only;
};

// Rejects keys outside `rules`, and kind-specific keys on another kind.
void check_keys(const Value& obj, std::span<const KeyRule> rules, std::string_view kind = {}) {
  obj.expect_object();
  for (const auto& member : obj.json().items()) {
    const std::string& key = member.key();
    auto rule = std::find_if(rules.begin(), rules.end(), [&](const KeyRule& r) { return r.key == key; });
    if (rule == rules.end()) obj.fail(fmt::format("unknown key \"{}\"", key));
    if (!rule->only.empty() && rule->only != kind)
      obj.fail(fmt::format("key \"{}\" applies only to kind {}", key, rule->only));
  }
}

// Parse the value of an optional key with `read`, or return `fallback`.
template <typename T, typename Read>
T optional_field(const Value& obj, const std::string& key, T fallback, Read read) {
  auto v = obj.find(key);
  return v ? read(*v) : fallback;
}

std::string optional_text(const Value& obj, const std::string& key) {
  return optional_field(obj, key, std::string(), [](const Value& v) { return v.text(); });
}

// ---------------------------------------------------------------------------
// Small value formats

// "0x10de" with exactly `digits` hex digits (lower case).
std::string hex(std::uint32_t value, int digits) { return fmt::format("0x{:0{}x}", value, digits); }

// "0x10de": 1 to `max_digits` hex digits after "0x".
std::uint32_t read_hex(const Value& v, std::size_t max_digits) {
  std::string s = v.text();
  std::uint32_t out = 0;
  bool ok = s.size() > 2 && s.size() <= 2 + max_digits && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  if (ok) {
    auto [end, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), out, 16);
    ok = ec == std::errc() && end == s.data() + s.size();
  }
  if (!ok)
    v.fail(fmt::format("must be a hex string of 1 to {} digits such as \"0x10de\", got {}", max_digits,
                       describe(v.json())));
  return out;
}

// "0000:17:00.0" (a 4- to 8-digit domain, device 00-1f, function 0-7:
// vpcat/pci_bus_id.hpp's exact form); returned in lower case.
std::string read_bus_id(const Value& v) {
  std::string s = v.text();
  vpcat::PciBusId id;
  const bool ok = vpcat::parse_pci_bus_id(s, id);
  if (!ok) v.fail(fmt::format("must be a PCI address such as \"0000:17:00.0\", got {}", describe(v.json())));
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

template <typename Enum, typename Parse>
Enum read_enum(const Value& v, Parse parse, std::string_view what, std::string_view expected) {
  auto e = parse(v.text());
  if (!e) v.fail(fmt::format("unknown {} {} (expected {})", what, describe(v.json()), expected));
  return *e;
}

CapacitySource read_source(const Value& v) {
  return read_enum<CapacitySource>(v, parse_capacity_source, "capacity source", "input, default, override or measured");
}

// A capacity stated by `gbps_key` (with optional source and basis keys), or
// nullopt when `gbps_key` is absent: the caller derives it from the table.
// Without a figure, the source may only say "default" and no basis is allowed.
std::optional<Capacity> read_capacity(const Value& obj, const std::string& gbps_key, const std::string& source_key,
                                      const std::string& basis_key) {
  auto gbps = obj.find(gbps_key);
  auto source = obj.find(source_key);
  auto basis = obj.find(basis_key);
  if (gbps)
    return Capacity{capacity(*gbps), source ? read_source(*source) : CapacitySource::input,
                    basis ? basis->text() : std::string()};
  if (source && read_source(*source) != CapacitySource::default_table)
    source->fail(fmt::format("must be \"default\" when \"{}\" is absent (the table decides the figure)", gbps_key));
  if (basis) basis->fail(fmt::format("given without \"{}\"", gbps_key));
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// The header: format, nodes, fabric, defaults, warnings

constexpr KeyRule kRootKeys[] = {{"format", {}},   {"version", {}},    {"nodes", {}}, {"fabric", {}},
                                 {"defaults", {}}, {"components", {}}, {"gpus", {}},  {"nics", {}},
                                 {"switches", {}}, {"sockets", {}},    {"links", {}}, {"path_types", {}},
                                 {"nic_path_types", {}}, {"warnings", {}}};
constexpr KeyRule kNodeKeys[] = {{"name", {}}, {"type", {}}};
constexpr KeyRule kFabricKeys[] = {{"kind", {}}, {"leaf_size", {}}, {"oversubscription", {}}};

void check_header(const Value& doc) {
  doc.expect_object();
  check_keys(doc, kRootKeys);
  Value format = doc.at("format");
  if (format.text() != kFormat) format.fail(fmt::format("expected \"{}\", got {}", kFormat, describe(format.json())));
  Value version = doc.at("version");
  if (version.integer(0, INT32_MAX) != kVersion)
    version.fail(fmt::format("unsupported version {} (this reader knows version {})", version.json().dump(), kVersion));
}

// Without "nodes": one node named node0 whose type is opts.node_type or the
// file's stem. opts.node_type also renames the type of a single listed node.
std::vector<NodeInfo> read_nodes(const Value& doc, const std::string& path, const ImportOptions& opts) {
  auto list = doc.find("nodes");
  if (!list) {
    std::string type = opts.node_type.empty() ? std::filesystem::path(path).stem().string() : opts.node_type;
    return {NodeInfo{"node0", type}};
  }
  std::vector<NodeInfo> nodes;
  std::map<std::string, std::size_t> seen;
  for (const Value& item : list->items(analysis_limits().max_nodes, "--max-nodes")) {
    item.expect_object();
    check_keys(item, kNodeKeys);
    Value name = item.at("name");
    NodeInfo node{name.text(), item.at("type").text()};
    if (node.name.empty()) name.fail("must not be empty");
    if (auto [it, fresh] = seen.emplace(node.name, nodes.size()); !fresh)
      name.fail(fmt::format("\"{}\" is already the name of nodes[{}]", node.name, it->second));
    nodes.push_back(std::move(node));
  }
  if (nodes.empty()) list->fail("must list at least one node");
  if (nodes.size() == 1 && !opts.node_type.empty()) nodes[0].type = opts.node_type;
  return nodes;
}

FabricInfo read_fabric(const Value& doc) {
  FabricInfo f;
  auto v = doc.find("fabric");
  if (!v) return f;
  v->expect_object();
  check_keys(*v, kFabricKeys);
  f.kind =
      read_enum<FabricKind>(v->at("kind"), parse_fabric_kind, "fabric kind", "none, single_switch, rail or leaf_spine");
  f.leaf_size = static_cast<std::uint32_t>(
      optional_field(*v, "leaf_size", std::int64_t{0}, [](const Value& x) { return x.integer(0, UINT32_MAX); }));
  f.oversubscription = optional_field(*v, "oversubscription", 1.0, [](const Value& x) { return positive(x); });
  return f;
}

// The document's table (entries that differ from the built-in table are
// applied with set(), then "overridden" is taken as written), with the user's
// own overrides on top. Without "defaults": the user's table.
CapacityDefaults read_defaults(const Value& doc, const CapacityDefaults& user) {
  auto v = doc.find("defaults");
  if (!v) return user;
  CapacityDefaults d;
  const auto builtin = d.entries();
  std::optional<Value> overridden;
  for (const auto& [key, value] : v->members()) {
    if (key == "overridden") {
      overridden = value;
      continue;
    }
    double x = value.number();
    if (auto it = builtin.find(key); it != builtin.end() && it->second == x) continue;
    try {
      d.set(key, x, "");
    } catch (const InputError& e) {
      // set() words its reason "KEY: what"; the path already names the key.
      std::string_view reason = e.reason();
      if (reason.substr(0, key.size() + 2) == key + ": ") reason.remove_prefix(key.size() + 2);
      value.fail(std::string(reason));
    }
  }
  d.overridden.clear();
  if (overridden) {
    auto keys = d.entries();
    for (const Value& item : overridden->items()) {
      std::string key = item.text();
      if (!keys.count(key)) item.fail(fmt::format("\"{}\" is not a key of the default table", key));
      d.overridden.insert(key);
    }
  }
  auto user_values = user.entries();
  for (const std::string& key : user.overridden) d.set(key, user_values.at(key), "");
  return d;
}

// A topology's warnings are an import's few findings; far more is no topology.
constexpr std::size_t kMaxWarnings = 10000;

std::vector<std::string> read_warnings(const Value& doc) {
  std::vector<std::string> out;
  if (auto list = doc.find("warnings"))
    for (const Value& item : list->items(kMaxWarnings, "warnings of a topology")) out.push_back(item.text());
  return out;
}

// ---------------------------------------------------------------------------
// The model: components and links, with the document's ids resolved

constexpr KeyRule kComponentKeys[] = {
    {"id", {}},           {"kind", {}},           {"name", {}},          {"node", {}},
    {"parent", {}},       {"local_index", {}},    {"model", {}},         {"pci_bus_id", {}},
    {"device_name", {}},  {"pci_vendor", {}},     {"pci_device", {}},    {"pci_class", {}},
    {"forward_gbps", {}}, {"forward_source", {}}, {"forward_basis", {}}, {"line_rate_gbitps", "nic"},
    {"ports", "nic"},     {"gpudirect", "nic"},   {"cpu_family", "cpu"}, {"role", "net_switch"}};
constexpr KeyRule kLinkKeys[] = {{"id", {}},
                                 {"src", {}},
                                 {"dst", {}},
                                 {"kind", {}},
                                 {"capacity_gbps", {}},
                                 {"capacity_source", {}},
                                 {"capacity_basis", {}},
                                 {"reverse", {}},
                                 {"pcie_gen", "pcie"},
                                 {"pcie_width", "pcie"}};

class ModelReader {
 public:
  explicit ModelReader(Topology& t) : t_(t) {}

  // Components in document order (component i = components[i]); parents
  // resolved; no dangling parent, cross-node parent, cycle or duplicate bus id.
  void read_components(const Value& list);
  // Links in document order, then the implicit reverse of every link without
  // "reverse"; omitted capacities derived; every parent backed by a link.
  void read_links(const Value& list);
  // Forwarding capacities marked "forward_source": "default" without a figure.
  void derive_forwards();

 private:
  void read_component(const Value& item);
  void resolve_parent(std::size_t i);
  void check_acyclic() const;
  void check_bus_ids() const;
  ComponentId component_ref(const Value& v) const;
  Capacity derive_link_capacity(const Value& item, const Link& l) const;
  void pair_reverses(const std::vector<std::optional<Value>>& reverse_refs);
  void check_duplicates_and_parents(std::size_t listed) const;

  Topology& t_;
  std::vector<Value> comp_items_, link_items_;
  std::map<std::int64_t, ComponentId> comp_by_id_;
  std::map<std::int64_t, LinkId> link_by_id_;
  std::vector<std::int64_t> comp_ids_, link_ids_;  // document ids, by index
  std::vector<ComponentId> derive_forward_;
};

// `item` must be a non-negative integer id not used before in `by_id`.
std::int64_t read_id(const Value& item, const std::string& list, std::map<std::int64_t, std::uint32_t>& by_id) {
  Value v = item.at("id");
  std::int64_t id = v.integer(0, kMaxId);
  auto [it, fresh] = by_id.emplace(id, static_cast<std::uint32_t>(by_id.size()));
  if (!fresh) v.fail(fmt::format("{} is already the id of {}[{}]", id, list, it->second));
  return id;
}

ComponentId ModelReader::component_ref(const Value& v) const {
  std::int64_t id = v.integer(0, kMaxId);
  auto it = comp_by_id_.find(id);
  if (it == comp_by_id_.end()) v.fail(fmt::format("refers to component {}, which does not exist", id));
  return it->second;
}

void ModelReader::read_components(const Value& list) {
  comp_items_ = list.items(analysis_limits().max_components, "--max-components");
  if (comp_items_.empty()) list.fail("must list at least one component");
  for (const Value& item : comp_items_) {
    item.expect_object();
    comp_ids_.push_back(read_id(item, "components", comp_by_id_));
    read_component(item);
  }
  for (std::size_t i = 0; i < comp_items_.size(); ++i) resolve_parent(i);
  check_acyclic();
  check_bus_ids();
}

// "node": an index into nodes; null (or absent) for a net_switch; may be
// omitted in a single-node document.
std::int32_t read_node(const Value& item, ComponentKind kind, std::size_t node_count) {
  auto v = item.find("node");
  bool fabric = kind == ComponentKind::net_switch;
  if (!v || v->is_null()) {
    if (fabric || node_count == 1) return fabric ? -1 : 0;
    item.fail(fmt::format("missing key \"node\" (the document has {} nodes)", node_count));
  }
  if (fabric) v->fail("must be null: a net_switch belongs to the fabric");
  return static_cast<std::int32_t>(v->integer(0, static_cast<std::int64_t>(node_count) - 1));
}

void ModelReader::read_component(const Value& item) {
  auto kind = read_enum<ComponentKind>(item.at("kind"), parse_component_kind, "component kind",
                                       "cpu, host_bridge, pcie_switch, gpu, nic or net_switch");
  check_keys(item, kComponentKeys, to_string(kind));
  Component& c = t_.components[t_.add_component(kind, read_node(item, kind, t_.nodes.size()))];
  c.name = optional_text(item, "name");
  c.local_index = static_cast<std::int32_t>(
      optional_field(item, "local_index", std::int64_t{-1}, [](const Value& v) { return v.integer(-1, INT32_MAX); }));
  c.model = optional_text(item, "model");
  c.device_name = optional_text(item, "device_name");
  c.pci_bus_id = optional_field(item, "pci_bus_id", std::string(), read_bus_id);
  auto hex16 = [](const Value& v) { return static_cast<std::uint16_t>(read_hex(v, 4)); };
  c.pci_vendor = optional_field(item, "pci_vendor", std::uint16_t{0}, hex16);
  c.pci_device = optional_field(item, "pci_device", std::uint16_t{0}, hex16);
  c.pci_class = optional_field(item, "pci_class", std::uint32_t{0}, [](const Value& v) { return read_hex(v, 6); });
  c.forward = read_capacity(item, "forward_gbps", "forward_source", "forward_basis");
  if (!c.forward && item.find("forward_source")) derive_forward_.push_back(c.id);
  c.line_rate_gbitps = optional_field(item, "line_rate_gbitps", 0.0, [](const Value& v) { return non_negative(v); });
  // A NIC has one port unless it says otherwise; other kinds have none.
  c.ports = static_cast<std::uint32_t>(optional_field(item, "ports", std::int64_t{kind == ComponentKind::nic},
                                                      [](const Value& v) { return v.integer(0, 1024); }));
  c.gpudirect = optional_field(item, "gpudirect", false, [](const Value& v) { return v.boolean(); });
  c.cpu_family = optional_text(item, "cpu_family");
  c.role = optional_text(item, "role");
}

void ModelReader::resolve_parent(std::size_t i) {
  auto v = comp_items_[i].find("parent");
  if (!v || v->is_null()) return;
  ComponentId p = component_ref(*v);
  Component& c = t_.components[i];
  if (t_.components[p].node != c.node)
    v->fail(fmt::format("component {} is in node {}, not in node {} like this one", comp_ids_[p], t_.components[p].node,
                        c.node));
  c.parent = p;
}

void ModelReader::check_acyclic() const {
  const auto n = t_.components.size();
  std::vector<unsigned char> state(n, 0);  // 0 unseen, 1 on the current chain, 2 done
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<ComponentId> chain;
    ComponentId c = static_cast<ComponentId>(i);
    for (; c != kNone && state[c] == 0; c = t_.components[c].parent) {
      state[c] = 1;
      chain.push_back(c);
    }
    if (c != kNone && state[c] == 1) {
      std::string cycle = std::to_string(comp_ids_[c]);
      for (ComponentId x = t_.components[c].parent; x != c; x = t_.components[x].parent)
        cycle += fmt::format(" -> {}", comp_ids_[x]);
      cycle += fmt::format(" -> {}", comp_ids_[c]);
      comp_items_[c].at("parent").fail("the parents form a cycle: " + cycle);
    }
    for (ComponentId x : chain) state[x] = 2;
  }
}

void ModelReader::check_bus_ids() const {
  std::map<std::pair<std::int32_t, std::string>, ComponentId> seen;
  for (const Component& c : t_.components) {
    if (c.pci_bus_id.empty()) continue;
    auto [it, fresh] = seen.emplace(std::make_pair(c.node, c.pci_bus_id), c.id);
    if (!fresh)
      comp_items_[c.id]
          .at("pci_bus_id")
          .fail(fmt::format("\"{}\" is already the bus id of component {} in the same node", c.pci_bus_id,
                            comp_ids_[it->second]));
  }
}

void ModelReader::read_links(const Value& list) {
  // Two directed links a cable, a few cables a component.
  link_items_ = list.items(4 * analysis_limits().max_components, "four links a component, --max-components");
  std::vector<std::optional<Value>> reverse_refs;
  for (const Value& item : link_items_) {
    item.expect_object();
    link_ids_.push_back(read_id(item, "links", link_by_id_));
  }
  for (const Value& item : link_items_) {
    Link l;
    l.id = static_cast<LinkId>(t_.links.size());
    l.kind = read_enum<LinkKind>(item.at("kind"), parse_link_kind, "link kind", "pcie, inter_socket or network");
    check_keys(item, kLinkKeys, to_string(l.kind));
    l.src = component_ref(item.at("src"));
    Value dst = item.at("dst");
    l.dst = component_ref(dst);
    if (l.src == l.dst) dst.fail(fmt::format("joins component {} to itself", comp_ids_[l.src]));
    auto small = [](const Value& v) { return static_cast<int>(v.integer(0, 64)); };
    l.pcie_gen = optional_field(item, "pcie_gen", 0, small);
    l.pcie_width = optional_field(item, "pcie_width", 0, small);
    auto stated = read_capacity(item, "capacity_gbps", "capacity_source", "capacity_basis");
    l.capacity = stated ? *stated : derive_link_capacity(item, l);
    reverse_refs.push_back(item.find("reverse"));
    t_.links.push_back(std::move(l));
  }
  pair_reverses(reverse_refs);
  check_duplicates_and_parents(link_items_.size());
}

// An omitted capacity from the link's facts: PCIe generation and width, the
// CPUs' family, or the NIC's line rate and ports.
Capacity ModelReader::derive_link_capacity(const Value& item, const Link& l) const {
  const Component &a = t_.components[l.src], &b = t_.components[l.dst];
  switch (l.kind) {
    case LinkKind::pcie:
      if (l.pcie_gen == 0 && l.pcie_width == 0)
        item.fail("missing \"capacity_gbps\" (or \"pcie_gen\"/\"pcie_width\" to derive it)");
      return t_.defaults.pcie(l.pcie_gen, l.pcie_width);
    case LinkKind::inter_socket:
      if (a.kind != ComponentKind::cpu || b.kind != ComponentKind::cpu || a.cpu_family != b.cpu_family)
        item.fail("missing \"capacity_gbps\" (derived only between two cpus of the same cpu_family)");
      return t_.defaults.inter_socket(a.cpu_family);
    case LinkKind::network: {
      const Component& nic = a.kind == ComponentKind::nic ? a : b;
      if (nic.kind != ComponentKind::nic || !(nic.line_rate_gbitps > 0))
        item.fail("missing \"capacity_gbps\" (derived only from a nic end with a line rate)");
      return t_.defaults.nic(nic.line_rate_gbitps, static_cast<int>(nic.ports));
    }
  }
  item.fail("missing \"capacity_gbps\"");
}

// A listed "reverse" must name the opposite direction, which names this link
// back; a link without one gets its reverse appended (same kind and capacity).
void ModelReader::pair_reverses(const std::vector<std::optional<Value>>& reverse_refs) {
  const std::size_t listed = t_.links.size();
  for (std::size_t k = 0; k < listed; ++k) {
    const std::optional<Value>& ref = reverse_refs[k];
    if (!ref) {
      Link r = t_.links[k];
      std::swap(r.src, r.dst);
      r.id = static_cast<LinkId>(t_.links.size());
      r.reverse = static_cast<LinkId>(k);
      t_.links[k].reverse = r.id;
      t_.links.push_back(std::move(r));
      continue;
    }
    std::int64_t id = ref->integer(0, kMaxId);
    auto it = link_by_id_.find(id);
    if (it == link_by_id_.end()) ref->fail(fmt::format("refers to link {}, which does not exist", id));
    const Link &l = t_.links[k], &r = t_.links[it->second];
    if (r.src != l.dst || r.dst != l.src)
      ref->fail(fmt::format("link {} goes from component {} to {}, not from {} to {}", id, comp_ids_[r.src],
                            comp_ids_[r.dst], comp_ids_[l.dst], comp_ids_[l.src]));
    const std::optional<Value>& back = reverse_refs[it->second];
    if (!back || back->integer(0, kMaxId) != link_ids_[k])
      ref->fail(fmt::format("link {} does not name link {} as its reverse", id, link_ids_[k]));
    t_.links[k].reverse = it->second;
  }
}

// One link per direction between two components, and a link from every
// component to its parent. Link i >= `listed` is the implicit reverse of
// links[i.reverse].
void ModelReader::check_duplicates_and_parents(std::size_t listed) const {
  std::map<std::pair<ComponentId, ComponentId>, std::size_t> seen;  // -> listed link that made it
  for (const Link& l : t_.links) {
    std::size_t origin = l.id < listed ? l.id : l.reverse;
    auto [it, fresh] = seen.emplace(std::make_pair(l.src, l.dst), origin);
    if (fresh) continue;
    std::string direction = fmt::format("component {} -> {}", comp_ids_[l.src], comp_ids_[l.dst]);
    if (l.id < listed) link_items_[origin].fail(fmt::format("duplicates links[{}] ({})", it->second, direction));
    link_items_[origin].fail(
        fmt::format("its implicit reverse ({}) duplicates links[{}]; pair the two with "
                    "\"reverse\" or drop one",
                    direction, it->second));
  }
  for (const Component& c : t_.components) {
    if (c.parent != kNone && !seen.count({c.id, c.parent}))
      comp_items_[c.id].at("parent").fail(
          fmt::format("no link joins component {} to its parent {}", comp_ids_[c.id], comp_ids_[c.parent]));
  }
}

// Root-complex forwarding from the table, given the fastest link between the
// component and its PCIe children (the root ports it forwards between).
void ModelReader::derive_forwards() {
  for (ComponentId c : derive_forward_) {
    double fastest = 0;
    for (const Link& l : t_.links)
      if (l.src == c && t_.components[l.dst].parent == c) fastest = std::max(fastest, l.capacity.gbps);
    if (fastest == 0)
      comp_items_[c].at("forward_source").fail("cannot derive a forwarding capacity: the component has no child");
    t_.components[c].forward = t_.defaults.root_complex(fastest);
  }
}

Topology read_document(const Value& doc, const std::string& path, const ImportOptions& opts) {
  check_header(doc);
  Topology t;
  t.nodes = read_nodes(doc, path, opts);
  t.fabric = read_fabric(doc);
  t.defaults = read_defaults(doc, opts.defaults);
  ModelReader model(t);
  model.read_components(doc.at("components"));
  model.read_links(doc.at("links"));
  model.derive_forwards();
  t.warnings = read_warnings(doc);
  return t;
}

// ---------------------------------------------------------------------------
// The output-only arrays must agree with the (canonical) model

void check_ids(const Value& doc, const std::string& key, const std::vector<ComponentId>& expected) {
  auto list = doc.find(key);
  if (!list) return;
  auto items = list->items();
  if (items.size() != expected.size())
    list->fail(fmt::format("has length {}, but the model has {} (this array is output-only and may be omitted)",
                           items.size(), expected.size()));
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].integer(0, kMaxId) != expected[i])
      items[i].fail(fmt::format("is {}, but the model gives {}", items[i].json().dump(), expected[i]));
  }
}

// A GPU-rows matrix of path types (`key`: "path_types" GPU x GPU,
// "nic_path_types" GPU x NIC), computed by `matrix` only when present.
template <typename Matrix>
void check_path_types(const Value& doc, const std::string& key, const Topology& t, std::size_t columns,
                      std::string_view column_noun, Matrix matrix) {
  auto list = doc.find(key);
  if (!list) return;
  auto rows = list->items();
  if (rows.size() != t.gpus.size())
    list->fail(fmt::format("has length {}, but the model has {} GPUs (this array is output-only and may be omitted)",
                           rows.size(), t.gpus.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].items().size() != columns)
      rows[i].fail(fmt::format("has length {}, but the model has {} {}", rows[i].items().size(), columns, column_noun));
  }
  const std::vector<std::vector<PathType>> expected = matrix(t);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto cells = rows[i].items();
    for (std::size_t j = 0; j < cells.size(); ++j) {
      if (cells[j].text() != to_string(expected[i][j]))
        cells[j].fail(
            fmt::format("is {}, but the model gives \"{}\"", cells[j].json().dump(), to_string(expected[i][j])));
    }
  }
}

void check_derived(const Value& doc, const Topology& t) {
  check_ids(doc, "gpus", t.gpus);
  check_ids(doc, "nics", t.nics);
  check_ids(doc, "switches", t.switches);
  check_ids(doc, "sockets", t.sockets);
  check_path_types(doc, "path_types", t, t.gpus.size(), "GPUs", path_type_matrix);
  check_path_types(doc, "nic_path_types", t, t.nics.size(), "NICs", nic_path_type_matrix);
}

// ---------------------------------------------------------------------------
// Parsing

// ---------------------------------------------------------------------------
// Writing

Json nullable(std::int64_t value, bool present) { return present ? Json(value) : Json(nullptr); }

Json component_json(const Component& c) {
  Json j;
  j["id"] = c.id;
  j["kind"] = std::string(to_string(c.kind));
  j["name"] = c.name;
  j["node"] = nullable(c.node, c.node >= 0);
  j["parent"] = nullable(c.parent, c.parent != kNone);
  j["local_index"] = c.local_index;
  if (!c.model.empty()) j["model"] = c.model;
  if (!c.pci_bus_id.empty()) j["pci_bus_id"] = c.pci_bus_id;
  if (!c.device_name.empty()) j["device_name"] = c.device_name;
  if (c.pci_vendor) j["pci_vendor"] = hex(c.pci_vendor, 4);
  if (c.pci_device) j["pci_device"] = hex(c.pci_device, 4);
  if (c.pci_class) j["pci_class"] = hex(c.pci_class, 6);
  if (c.forward) {
    j["forward_gbps"] = c.forward->gbps;
    j["forward_source"] = std::string(to_string(c.forward->source));
    j["forward_basis"] = c.forward->basis;
  }
  switch (c.kind) {
    case ComponentKind::nic:
      j["line_rate_gbitps"] = c.line_rate_gbitps;
      j["ports"] = c.ports;
      j["gpudirect"] = c.gpudirect;
      break;
    case ComponentKind::cpu:
      j["cpu_family"] = c.cpu_family;
      break;
    case ComponentKind::net_switch:
      j["role"] = c.role;
      break;
    default:
      break;
  }
  return j;
}

Json link_json(const Link& l) {
  Json j;
  j["id"] = l.id;
  j["src"] = l.src;
  j["dst"] = l.dst;
  j["kind"] = std::string(to_string(l.kind));
  j["capacity_gbps"] = l.capacity.gbps;
  j["capacity_source"] = std::string(to_string(l.capacity.source));
  j["capacity_basis"] = l.capacity.basis;
  j["reverse"] = l.reverse;
  if (l.pcie_gen) j["pcie_gen"] = l.pcie_gen;
  if (l.pcie_width) j["pcie_width"] = l.pcie_width;
  return j;
}

Json defaults_json(const CapacityDefaults& d) {
  Json j = Json::object();
  for (const auto& [key, value] : d.entries()) j[key] = value;
  j["overridden"] = Json(d.overridden);
  return j;
}

Json path_types_json(const std::vector<std::vector<PathType>>& matrix) {
  Json rows = Json::array();
  for (const auto& row : matrix) {
    Json cells = Json::array();
    for (PathType p : row) cells.push_back(std::string(to_string(p)));
    rows.push_back(std::move(cells));
  }
  return rows;
}

}  // namespace

// `t` must be finalized: the derived arrays and path types come from its indexes.
nlohmann::ordered_json topology_to_json(const Topology& t) {
  Json doc;
  doc["format"] = std::string(kFormat);
  doc["version"] = kVersion;
  Json nodes = Json::array();
  for (const NodeInfo& n : t.nodes) nodes.push_back(Json{{"name", n.name}, {"type", n.type}});
  doc["nodes"] = std::move(nodes);
  doc["fabric"] = Json{{"kind", std::string(to_string(t.fabric.kind))},
                       {"leaf_size", t.fabric.leaf_size},
                       {"oversubscription", t.fabric.oversubscription}};
  doc["defaults"] = defaults_json(t.defaults);
  Json components = Json::array();
  for (const Component& c : t.components) components.push_back(component_json(c));
  doc["components"] = std::move(components);
  doc["gpus"] = t.gpus;
  doc["nics"] = t.nics;
  doc["switches"] = t.switches;
  doc["sockets"] = t.sockets;
  Json links = Json::array();
  for (const Link& l : t.links) links.push_back(link_json(l));
  doc["links"] = std::move(links);
  // Output-only and quadratic: omitted beyond kMaxPathTypeCells cells.
  if (t.gpus.size() <= kMaxPathTypeGpus) doc["path_types"] = path_types_json(path_type_matrix(t));
  if (t.gpus.empty() || t.nics.size() <= kMaxPathTypeCells / t.gpus.size())
    doc["nic_path_types"] = path_types_json(nic_path_type_matrix(t));
  doc["warnings"] = t.warnings;
  return doc;
}

Topology import_json(const std::string& path, std::string_view content, const ImportOptions& opts) {
  const json::Document text(path, std::string(content));
  try {
    const Value root(text);
    Topology t = read_document(root, path, opts);
    canonicalize(t, path);
    check_derived(root, t);
    return t;
  } catch (const nlohmann::json::exception& e) {
    // Every access above checks types first; this is a safety net only.
    throw InputError(path, 0, fmt::format("unexpected JSON value ({})", e.what()));
  }
}

}  // namespace vp
