// JSON mirror -> Catalog: the document's shape, strictly (unknown keys,
// missing keys, wrong types and out-of-range values are errors naming their
// path, and from text, its line and column). The format's own rules are left
// to write_catalog()'s verification.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <limits>
#include <optional>

#include "vp/base/json_document.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/names.hpp"
#include "vpcat/format.hpp"

namespace vp::catalog {

namespace {

// A JSON value and its path in the document ("node_types[0].links[3].src").
class Node {
 public:
  // `doc`: the text `j` was parsed from, to locate errors; nullptr when none.
  Node(const Json& j, std::string path, const std::string& origin, const json::Document* doc)
      : j_(j), path_(std::move(path)), origin_(origin), doc_(doc) {}

  [[noreturn]] void fail(const std::string& what) const {
    const std::string where = path_.empty() ? "document" : path_;
    if (doc_ != nullptr)
      throw CatalogError(CatalogError::Kind::invalid, doc_->error_at(json::parse_path(path_), where + ": " + what).what());
    throw CatalogError(CatalogError::Kind::invalid, (origin_.empty() ? "" : origin_ + ": ") + where + ": " + what);
  }

  // An object with exactly these keys.
  void expect_keys(std::initializer_list<std::string_view> keys) const {
    if (!j_.is_object()) fail("must be an object, got " + describe());
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) fail(fmt::format("unknown key \"{}\"", it.key()));
    for (std::string_view k : keys)
      if (!j_.contains(k)) fail(fmt::format("missing key \"{}\"", k));
  }

  Node operator[](const char* key) const { return Node(j_.at(key), join(key), origin_, doc_); }

  std::size_t size() const {
    if (!j_.is_array()) fail("must be an array, got " + describe());
    return j_.size();
  }
  Node operator[](std::size_t i) const { return Node(j_.at(i), fmt::format("{}[{}]", path_, i), origin_, doc_); }

  const Json& json() const { return j_; }
  bool is_null() const { return j_.is_null(); }

  std::string text() const {
    if (!j_.is_string()) fail("must be a string, got " + describe());
    return j_.get<std::string>();
  }
  double number() const {
    if (!j_.is_number()) fail("must be a number, got " + describe());
    return j_.get<double>();
  }
  bool boolean() const {
    if (!j_.is_boolean()) fail("must be true or false, got " + describe());
    return j_.get<bool>();
  }
  std::uint64_t u64() const {
    const bool non_negative = j_.is_number_unsigned() || (j_.is_number_integer() && j_.get<std::int64_t>() >= 0);
    if (!non_negative) fail("must be a non-negative integer, got " + describe());
    return j_.get<std::uint64_t>();
  }
  std::uint32_t u32() const {
    const std::uint64_t v = u64();
    if (v > std::numeric_limits<std::uint32_t>::max()) fail(fmt::format("{} exceeds 2^32 - 1", v));
    return static_cast<std::uint32_t>(v);
  }
  std::uint32_t id_or_none() const { return is_null() ? kNone : u32(); }
  std::vector<std::uint32_t> u32s() const {
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < size(); ++i) out.push_back((*this)[i].u32());
    return out;
  }

 private:
  std::string join(const char* key) const { return path_.empty() ? key : path_ + "." + key; }
  std::string describe() const {
    if (j_.is_object()) return "an object";
    if (j_.is_array()) return "an array";
    std::string s = j_.dump();
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
  }

  const Json& j_;
  std::string path_;
  const std::string& origin_;
  const json::Document* doc_;
};

template <typename Enum>
Enum enum_of(const Node& n, std::optional<Enum> (*parse)(std::string_view), const char* expected) {
  const std::string s = n.text();
  auto v = parse(s);
  if (!v) n.fail(fmt::format("unknown value \"{}\" (expected {})", s, expected));
  return *v;
}

std::int32_t role_of(const Node& n) {
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

void expect_index(const Node& n, std::size_t index) {
  if (n["id"].u64() != index) n["id"].fail(fmt::format("is {}, expected its index {}", n["id"].u64(), index));
}

void read_component(const Node& n, std::size_t index, NodeType& t) {
  n.expect_keys({"id", "kind", "name", "parent", "local_index", "orbit", "model", "pci_bus_id", "device_name",
                 "forward_gbps", "nic_gbps", "gpudirect"});
  expect_index(n, index);
  Component c;
  c.kind = enum_of<Kind>(n["kind"], parse_component_kind, "cpu, host_bridge, pcie_switch, gpu, nic or net_switch");
  c.name = n["name"].text();
  c.parent = n["parent"].id_or_none();
  c.local_index = n["local_index"].u32();
  c.model = n["model"].text();
  c.pci_bus_id = n["pci_bus_id"].text();
  c.device_name = n["device_name"].text();
  c.forward_gbps = n["forward_gbps"].number();
  c.nic_gbps = n["nic_gbps"].number();
  c.gpudirect = n["gpudirect"].boolean();
  t.components.push_back(std::move(c));
  t.component_orbit.push_back(n["orbit"].u32());
}

void read_link(const Node& n, std::size_t index, NodeType& t) {
  n.expect_keys({"id", "src", "dst", "kind", "capacity_gbps", "reverse", "orbit"});
  expect_index(n, index);
  Link l;
  l.src = n["src"].u32();
  l.dst = n["dst"].u32();
  l.kind = enum_of<LinkKind>(n["kind"], parse_link_kind, "pcie, inter_socket or network");
  l.capacity_gbps = n["capacity_gbps"].number();
  l.reverse = n["reverse"].u32();
  t.links.push_back(l);
  t.link_orbit.push_back(n["orbit"].u32());
}

Route read_route(const Node& n) {
  n.expect_keys({"from", "to", "solo_gbps", "links", "forwarders"});
  return Route{n["from"].u32(), n["to"].u32(), n["solo_gbps"].number(), n["links"].u32s(), n["forwarders"].u32s()};
}

LocalPattern read_pattern(const Node& n) {
  n.expect_keys({"send", "recv", "orbit_size"});
  LocalPattern p;
  for (std::size_t g = 0; g < n["send"].size(); ++g) p.send.push_back(role_of(n["send"][g]));
  for (std::size_t g = 0; g < n["recv"].size(); ++g) p.recv.push_back(role_of(n["recv"][g]));
  p.orbit_size = n["orbit_size"].u64();
  return p;
}

NodeType read_node_type(const Node& n) {
  n.expect_keys({"name", "components", "links", "routes", "symmetry", "patterns"});
  NodeType t;
  t.name = n["name"].text();
  for (std::size_t i = 0; i < n["components"].size(); ++i) read_component(n["components"][i], i, t);
  for (std::size_t i = 0; i < n["links"].size(); ++i) read_link(n["links"][i], i, t);
  for (std::size_t i = 0; i < n["routes"].size(); ++i) t.routes.push_back(read_route(n["routes"][i]));
  const Node sym = n["symmetry"];
  sym.expect_keys({"group_order", "generators"});
  t.group_order = sym["group_order"].text();
  for (std::size_t g = 0; g < sym["generators"].size(); ++g) {
    const Node gen = sym["generators"][g];
    auto images = parse_cycles(gen.text(), t.components.size());
    if (!images)
      gen.fail(fmt::format("\"{}\" is not a permutation of the {} components in cycle notation", gen.text(),
                           t.components.size()));
    t.generators.push_back(std::move(*images));
  }
  const Node pat = n["patterns"];
  pat.expect_keys({"represented", "representatives"});
  t.patterns_represented = pat["represented"].text();
  for (std::size_t p = 0; p < pat["representatives"].size(); ++p)
    t.patterns.push_back(read_pattern(pat["representatives"][p]));
  return t;
}

Fabric read_fabric(const Node& n) {
  n.expect_keys({"kind", "leaf_size", "oversubscription", "switches", "spine", "spine_uplink_gbps", "group_description",
                 "group_order"});
  Fabric f;
  f.kind = enum_of<FabricKind>(n["kind"], parse_fabric_kind, "none, single_switch, rail or leaf_spine");
  f.leaf_size = n["leaf_size"].u32();
  f.oversubscription = n["oversubscription"].number();
  f.switches = n["switches"].u32();
  f.spine = n["spine"].boolean();
  for (std::size_t k = 0; k < n["spine_uplink_gbps"].size(); ++k)
    f.spine_uplink_gbps.push_back(n["spine_uplink_gbps"][k].number());
  f.group_description = n["group_description"].text();
  f.group_order = n["group_order"].text();
  return f;
}

Catalog read_document(const Json& j, const std::string& origin, const json::Document* text) {
  const Node doc(j, "", origin, text);
  doc.expect_keys({"format", "format_version", "node_types", "node_groups", "fabric", "cluster_group_order", "defaults",
                   "provenance"});
  if (doc["format"].text() != "vpcat-json") doc["format"].fail("expected \"vpcat-json\", got \"" + doc["format"].text() + "\"");
  const std::string version = doc["format_version"].text();
  if (version.rfind(std::to_string(vpcat::kFormatMajor) + ".", 0) != 0)
    doc["format_version"].fail(fmt::format("format {} is not readable by this tool (format {}.{})", version,
                                           vpcat::kFormatMajor, vpcat::kFormatMinor));
  Catalog c;
  for (std::size_t i = 0; i < doc["node_types"].size(); ++i) c.node_types.push_back(read_node_type(doc["node_types"][i]));
  for (std::size_t i = 0; i < doc["node_groups"].size(); ++i) {
    const Node g = doc["node_groups"][i];
    g.expect_keys({"node_type", "count", "names"});
    c.node_groups.push_back(NodeGroup{g["node_type"].u32(), g["count"].u32(), g["names"].text()});
  }
  c.fabric = read_fabric(doc["fabric"]);
  c.cluster_group_order = doc["cluster_group_order"].text();
  const Node defaults = doc["defaults"];
  if (!defaults.json().is_object()) defaults.fail("must be an object");
  for (auto it = j.at("defaults").begin(); it != j.at("defaults").end(); ++it)
    c.defaults.emplace_back(it.key(), defaults[it.key().c_str()].number());
  const Node p = doc["provenance"];
  // "warnings" is new in format 1.1: a 1.0 mirror has none.
  const bool has_warnings = p.json().is_object() && p.json().contains("warnings");
  if (has_warnings) p.expect_keys({"tool", "tool_version", "input_digest", "options", "warnings"});
  else p.expect_keys({"tool", "tool_version", "input_digest", "options"});
  const std::string warnings = has_warnings ? p["warnings"].text() : std::string();
  c.provenance =
      Provenance{p["tool"].text(), p["tool_version"].text(), p["input_digest"].text(), p["options"].text(), warnings};
  return c;
}

}  // namespace

Catalog from_json(const Json& j, const std::string& origin) { return read_document(j, origin, nullptr); }

Catalog parse_json_catalog(const std::string& text, const std::string& origin) {
  std::optional<json::Document> doc;
  try {
    doc.emplace(origin, text);
  } catch (const InputError& e) {
    throw CatalogError(CatalogError::Kind::unreadable, e.what());
  }
  return read_document(doc->root(), origin, &*doc);
}

}  // namespace vp::catalog
