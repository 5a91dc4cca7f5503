// The cluster description reader: the JSON document, its node types'
// topology files and host lists, into a ClusterSpec checked for expand_cluster().
#include "vp/import/cluster_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "vp/base/input_file.hpp"
#include "vp/base/json_document.hpp"
#include "vp/topology/errors.hpp"

namespace vp {

namespace {

// ---------------------------------------------------------------------------
// Reading the description. Errors name a path into the document
// ("nodes[1].names: ..."); load_cluster_spec() adds the file, the line and
// the column (vp/base/json_document.hpp).

using Json = nlohmann::ordered_json;

struct SpecError {
  std::string where, what;
};

[[noreturn]] void bad(const std::string& where, const std::string& what) { throw SpecError{where, what}; }

std::string describe(const Json& j) {
  if (j.is_object()) return "an object";
  if (j.is_array()) return "an array";
  return j.dump();
}

// `v` must be an object whose keys are among `allowed`.
void expect_object(const Json& v, const std::string& where, std::initializer_list<std::string_view> allowed) {
  if (!v.is_object()) bad(where, "must be an object, got " + describe(v));
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
      bad(where, fmt::format("unknown key \"{}\"", it.key()));
  }
}

const Json* find(const Json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

const Json& at(const Json& obj, const std::string& where, const char* key) {
  const Json* v = find(obj, key);
  if (!v) bad(where, fmt::format("missing required key \"{}\"", key));
  return *v;
}

std::string member_path(const std::string& where, std::string_view key) { return fmt::format("{}.{}", where, key); }

std::string text(const Json& v, const std::string& where) {
  if (!v.is_string() || v.get<std::string>().empty()) bad(where, "must be a non-empty string, got " + describe(v));
  return v.get<std::string>();
}

double positive(const Json& v, const std::string& where) {
  if (!v.is_number() || !(v.get<double>() > 0)) bad(where, "must be a positive number, got " + describe(v));
  return v.get<double>();
}

// A rate or ratio of the fabric (nic_gbitps, oversubscription): within
// [1e-6, 1e6], so that every capacity derived from it (a rate / 8 x ports, a
// sum of downlinks / oversubscription) is a normal, finite number of GB/s. A
// value the reader let through used to fail only in the expansion, as a link
// "of capacity 0" in "<input>" (5e-324 Gb/s) or of infinite capacity.
double fabric_factor(const Json& v, const std::string& where) {
  const double x = positive(v, where);
  if (!(x >= 1e-6 && x <= 1e6)) bad(where, "must be a number from 0.000001 to 1000000, got " + describe(v));
  return x;
}

std::uint64_t positive_int(const Json& v, const std::string& where, std::uint64_t max) {
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() < 1 || v.get<std::uint64_t>() > max)
    bad(where, fmt::format("must be an integer from 1 to {}, got {}", max, describe(v)));
  return v.get<std::uint64_t>();
}

void read_header(const Json& doc) {
  expect_object(doc, "document", {"format", "version", "node_types", "nodes", "fabric"});
  const Json& format = at(doc, "document", "format");
  if (format != "vp-cluster") bad("format", "expected \"vp-cluster\", got " + describe(format));
  const Json& version = at(doc, "document", "version");
  if (version != 1) bad("version", fmt::format("unsupported version {} (this reader knows version 1)", version.dump()));
}

// True when `file` (resolved: symbolic links followed, "." and ".."
// removed) lies inside folder `root` (resolved the same way).
bool path_is_under(const std::filesystem::path& file, const std::filesystem::path& root) {
  std::error_code ec;
  const std::filesystem::path f = std::filesystem::weakly_canonical(std::filesystem::absolute(file, ec), ec);
  if (ec) return false;
  const std::filesystem::path r = std::filesystem::weakly_canonical(std::filesystem::absolute(root, ec), ec);
  if (ec) return false;
  auto fi = f.begin();
  for (auto ri = r.begin(); ri != r.end(); ++ri, ++fi) {
    if (ri->empty()) continue;  // a trailing separator
    if (fi == f.end() || *fi != *ri) return false;
  }
  return true;
}

// A node type from its "input" file (relative to the description's folder),
// or the --input topology when it names none.
Topology node_type_topology(const Json& item, const std::string& where, const std::string& name,
                            const std::string& path, const DefaultNodeType& default_node_type,
                            const ImportOptions& opts, std::string& input_file) {
  const Json* input = find(item, "input");
  const Json* format = find(item, "format");
  if (!input) {
    if (format) bad(member_path(where, "format"), "given without \"input\"");
    const Topology* fallback = default_node_type ? default_node_type() : nullptr;
    if (!fallback) bad(where, "no \"input\", and no topology was given with --input");
    Topology t = *fallback;
    if (!t.nodes.empty()) t.nodes[0].type = name;
    return t;
  }
  const std::string named = text(*input, member_path(where, "input"));
  std::filesystem::path file = named;
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (file.is_relative()) file = folder / file;
  // A description names files under its own folder (or under --cluster-root):
  // a description from elsewhere must not make us open /etc/shadow and echo
  // its first line in a parse error.
  std::filesystem::path root = opts.cluster_root.empty() ? folder : std::filesystem::path(opts.cluster_root);
  if (root.empty()) root = ".";
  if (!path_is_under(file, root))
    bad(member_path(where, "input"),
        fmt::format("\"{}\" is outside {} ({}); --cluster-root DIR allows files under DIR", named,
                    opts.cluster_root.empty() ? "the description's folder" : "--cluster-root", root.string()));
  InputFormat fmt_kind = InputFormat::auto_detect;
  if (format) {
    auto parsed = parse_input_format(text(*format, member_path(where, "format")));
    if (!parsed)
      bad(member_path(where, "format"),
          "unknown format " + format->dump() + " (expected auto, hwloc, nccl, nvidia-smi or json)");
    fmt_kind = *parsed;
  }
  ImportOptions o = opts;
  o.node_type = name;
  input_file = file.string();
  return import_topology(input_file, fmt_kind, o);
}

std::vector<NodeTypeSpec> read_node_types(const Json& doc, const std::string& path,
                                          const DefaultNodeType& default_node_type, const ImportOptions& opts) {
  const Json& list = at(doc, "document", "node_types");
  if (!list.is_array() || list.empty()) bad("node_types", "must be a non-empty array, got " + describe(list));
  std::vector<NodeTypeSpec> types;
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string where = fmt::format("node_types[{}]", i);
    expect_object(list[i], where, {"name", "input", "format"});
    std::string name = text(at(list[i], where, "name"), member_path(where, "name"));
    for (const NodeTypeSpec& t : types)
      if (t.name == name) bad(member_path(where, "name"), fmt::format("\"{}\" is defined twice", name));
    std::string input_file;
    Topology topology = node_type_topology(list[i], where, name, path, default_node_type, opts, input_file);
    types.push_back({name, std::move(topology), std::move(input_file)});
  }
  return types;
}

// The host names of one "nodes" entry: its host list, or "nodeK" for the
// cluster-wide indexes K it occupies.
std::vector<std::string> entry_names(const Json& item, const std::string& where, std::size_t first_index) {
  const Json* names = find(item, "names");
  const Json* n = find(item, "count");
  if ((names != nullptr) == (n != nullptr)) bad(where, "give exactly one of \"names\" and \"count\"");
  if (n) {
    std::vector<std::string> out;
    for (std::uint64_t k = 0; k < positive_int(*n, member_path(where, "count"), kMaxHosts); ++k)
      out.push_back(fmt::format("node{}", first_index + k));
    return out;
  }
  std::string field = member_path(where, "names");
  try {
    return expand_hostlist(text(*names, field), "");
  } catch (const InputError& e) {
    bad(field, e.reason());
  }
}

std::vector<NodeInfo> read_cluster_nodes(const Json& doc, const std::vector<NodeTypeSpec>& types) {
  const Json& list = at(doc, "document", "nodes");
  if (!list.is_array() || list.empty()) bad("nodes", "must be a non-empty array, got " + describe(list));
  std::vector<NodeInfo> nodes;
  std::map<std::string, std::size_t> entry_of;  // host name -> nodes[] entry
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string where = fmt::format("nodes[{}]", i);
    expect_object(list[i], where, {"type", "names", "count"});
    std::string type = text(at(list[i], where, "type"), member_path(where, "type"));
    if (std::none_of(types.begin(), types.end(), [&](const NodeTypeSpec& t) { return t.name == type; }))
      bad(member_path(where, "type"), fmt::format("unknown node type \"{}\"", type));
    for (std::string& name : entry_names(list[i], where, nodes.size())) {
      if (auto [it, fresh] = entry_of.emplace(name, i); !fresh)
        bad(where, fmt::format("host \"{}\" is already in nodes[{}]", name, it->second));
      if (nodes.size() == kMaxHosts) bad("nodes", fmt::format("more than {} nodes", kMaxHosts));
      nodes.push_back(NodeInfo{std::move(name), type});
    }
  }
  return nodes;
}

// "fabric": kind; leaf_size (leaf_spine only); oversubscription (rail and
// leaf_spine); nic_gbitps.
void read_fabric(const Json& doc, ClusterSpec& spec) {
  const Json* f = find(doc, "fabric");
  if (!f) return;
  expect_object(*f, "fabric", {"kind", "leaf_size", "oversubscription", "nic_gbitps"});
  const Json& kind = at(*f, "fabric", "kind");
  auto parsed = parse_fabric_kind(kind.is_string() ? kind.get<std::string>() : std::string());
  if (!parsed)
    bad("fabric.kind", "unknown fabric kind " + describe(kind) + " (expected none, single_switch, rail or leaf_spine)");
  spec.fabric.kind = *parsed;
  const Json* leaf = find(*f, "leaf_size");
  if (spec.fabric.kind == FabricKind::leaf_spine && !leaf)
    bad("fabric", "missing required key \"leaf_size\" (kind leaf_spine)");
  if (leaf && spec.fabric.kind != FabricKind::leaf_spine) bad("fabric.leaf_size", "applies only to kind leaf_spine");
  if (leaf) spec.fabric.leaf_size = static_cast<std::uint32_t>(positive_int(*leaf, "fabric.leaf_size", kMaxHosts));
  if (const Json* over = find(*f, "oversubscription")) {
    if (spec.fabric.kind != FabricKind::rail && spec.fabric.kind != FabricKind::leaf_spine)
      bad("fabric.oversubscription", "applies only to kinds rail and leaf_spine");
    spec.fabric.oversubscription = fabric_factor(*over, "fabric.oversubscription");
  }
  if (const Json* rate = find(*f, "nic_gbitps")) spec.nic_gbitps = fabric_factor(*rate, "fabric.nic_gbitps");
}

}  // namespace

ClusterSpec load_cluster_spec(const std::string& path, const Topology* default_node_type, const ImportOptions& opts) {
  return load_cluster_spec(path, DefaultNodeType([default_node_type] { return default_node_type; }), opts);
}

namespace {

ClusterSpec read_cluster_spec(const std::string& path, const DefaultNodeType& default_node_type,
                              const ImportOptions& opts) {
  const json::Document text(path, read_input_file(path));
  const Json& doc = text.root();
  ClusterSpec spec;
  try {
    read_header(doc);
    spec.node_types = read_node_types(doc, path, default_node_type, opts);
    spec.nodes = read_cluster_nodes(doc, spec.node_types);
    read_fabric(doc, spec);
  } catch (const SpecError& e) {
    throw text.error_at(json::parse_path(e.where), e.where + ": " + e.what);
  }
  check_cluster_spec(spec, path);
  return spec;
}

}  // namespace

ClusterSpec load_cluster_spec(const std::string& path, const DefaultNodeType& default_node_type,
                              const ImportOptions& opts) {
  return reading_input(path, [&] { return read_cluster_spec(path, default_node_type, opts); });
}

}  // namespace vp
