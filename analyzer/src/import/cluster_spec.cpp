// The cluster description reader: the JSON document, its node types'
// topology files and host lists, into a ClusterSpec checked for expand_cluster().
#include "vp/import/cluster_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "vp/base/input_file.hpp"
#include "vp/base/json_document.hpp"
#include "vp/base/json_field.hpp"
#include "vp/topology/errors.hpp"

namespace vp {

namespace {

// ---------------------------------------------------------------------------
// Reading the description through base's located fields
// (vp/base/json_field.hpp): every error names its path ("nodes[1].names:
// ...") at the value's line and column.

using json::Field;
using json::describe;

std::string text(const Field& v) {
  const std::string s = v.text();
  if (s.empty()) v.fail("must be a non-empty string, got \"\"");
  return s;
}

double positive(const Field& v) {
  if (!v.json().is_number() || !(v.json().get<double>() > 0)) v.fail("must be a positive number, got " + describe(v.json()));
  return v.json().get<double>();
}

// A rate or ratio of the fabric (nic_gbitps, oversubscription): within
// [1e-6, 1e6], so that every capacity derived from it (a rate / 8 x ports, a
// sum of downlinks / oversubscription) is a normal, finite number of GB/s. A
// value the reader let through used to fail only in the expansion, as a link
// "of capacity 0" in "<input>" (5e-324 Gb/s) or of infinite capacity.
double fabric_factor(const Field& v) {
  const double x = positive(v);
  if (!(x >= 1e-6 && x <= 1e6)) v.fail("must be a number from 0.000001 to 1000000, got " + describe(v.json()));
  return x;
}

std::uint64_t positive_int(const Field& v, std::uint64_t max) {
  return static_cast<std::uint64_t>(v.integer(1, static_cast<std::int64_t>(max)));
}

void read_header(const Field& doc) {
  doc.allow_keys({"format", "version", "node_types", "nodes", "fabric"});
  const Field format = doc.at("format");
  if (format.json() != "vp-cluster") format.fail("expected \"vp-cluster\", got " + describe(format.json()));
  const Field version = doc.at("version");
  if (version.json() != 1)
    version.fail(fmt::format("unsupported version {} (this reader knows version 1)", describe(version.json())));
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
Topology node_type_topology(const Field& item, const std::string& name, const std::string& path,
                            const DefaultNodeType& default_node_type, const ImportOptions& opts,
                            std::string& input_file) {
  const std::optional<Field> input = item.find("input"), format = item.find("format");
  if (!input) {
    if (format) format->fail("given without \"input\"");
    const Topology* fallback = default_node_type ? default_node_type() : nullptr;
    if (!fallback) item.fail("no \"input\", and no topology was given with --input");
    Topology t = *fallback;
    if (!t.nodes.empty()) t.nodes[0].type = name;
    return t;
  }
  const std::string named = text(*input);
  std::filesystem::path file = named;
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (file.is_relative()) file = folder / file;
  // A description names files under its own folder (or under --cluster-root):
  // a description from elsewhere must not make us open /etc/shadow and echo
  // its first line in a parse error.
  std::filesystem::path root = opts.cluster_root.empty() ? folder : std::filesystem::path(opts.cluster_root);
  if (root.empty()) root = ".";
  if (!path_is_under(file, root))
    input->fail(fmt::format("\"{}\" is outside {} ({}); --cluster-root DIR allows files under DIR", named,
                            opts.cluster_root.empty() ? "the description's folder" : "--cluster-root", root.string()));
  InputFormat fmt_kind = InputFormat::auto_detect;
  if (format) {
    auto parsed = parse_input_format(text(*format));
    if (!parsed)
      format->fail("unknown format " + describe(format->json()) + " (expected auto, hwloc, nccl, nvidia-smi or json)");
    fmt_kind = *parsed;
  }
  ImportOptions o = opts;
  o.node_type = name;
  input_file = file.string();
  return import_topology(input_file, fmt_kind, o);
}

// A non-empty array.
std::vector<Field> entries(const Field& list) {
  std::vector<Field> out = list.items();
  if (out.empty()) list.fail("must be a non-empty array, got []");
  return out;
}

std::vector<NodeTypeSpec> read_node_types(const Field& doc, const std::string& path,
                                          const DefaultNodeType& default_node_type, const ImportOptions& opts) {
  std::vector<NodeTypeSpec> types;
  for (const Field& item : entries(doc.at("node_types"))) {
    item.allow_keys({"name", "input", "format"});
    const Field name_field = item.at("name");
    std::string name = text(name_field);
    for (const NodeTypeSpec& t : types)
      if (t.name == name) name_field.fail(fmt::format("\"{}\" is defined twice", name));
    std::string input_file;
    Topology topology = node_type_topology(item, name, path, default_node_type, opts, input_file);
    types.push_back({name, std::move(topology), std::move(input_file)});
  }
  return types;
}

// The host names of one "nodes" entry: its host list, or "nodeK" for the
// cluster-wide indexes K it occupies.
std::vector<std::string> entry_names(const Field& item, std::size_t first_index) {
  const std::optional<Field> names = item.find("names"), n = item.find("count");
  if (names.has_value() == n.has_value()) item.fail("give exactly one of \"names\" and \"count\"");
  if (n) {
    std::vector<std::string> out;
    for (std::uint64_t k = 0; k < positive_int(*n, kMaxHosts); ++k) out.push_back(fmt::format("node{}", first_index + k));
    return out;
  }
  try {
    return expand_hostlist(text(*names), "");
  } catch (const InputError& e) {
    names->fail(e.reason());  // the host list's error, at its value
  }
}

std::vector<NodeInfo> read_cluster_nodes(const Field& doc, const std::vector<NodeTypeSpec>& types) {
  const Field list = doc.at("nodes");
  std::vector<NodeInfo> nodes;
  std::map<std::string, std::size_t> entry_of;  // host name -> nodes[] entry
  const std::vector<Field> items = entries(list);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Field& item = items[i];
    item.allow_keys({"type", "names", "count"});
    const Field type_field = item.at("type");
    std::string type = text(type_field);
    if (std::none_of(types.begin(), types.end(), [&](const NodeTypeSpec& t) { return t.name == type; }))
      type_field.fail(fmt::format("unknown node type \"{}\"", type));
    for (std::string& name : entry_names(item, nodes.size())) {
      if (auto [it, fresh] = entry_of.emplace(name, i); !fresh)
        item.fail(fmt::format("host \"{}\" is already in nodes[{}]", name, it->second));
      if (nodes.size() == kMaxHosts) list.fail(fmt::format("more than {} nodes", kMaxHosts));
      nodes.push_back(NodeInfo{std::move(name), type});
    }
  }
  return nodes;
}

// "fabric": kind; leaf_size (leaf_spine only); oversubscription (rail and
// leaf_spine); nic_gbitps.
void read_fabric(const Field& doc, ClusterSpec& spec) {
  const std::optional<Field> f = doc.find("fabric");
  if (!f) return;
  f->allow_keys({"kind", "leaf_size", "oversubscription", "nic_gbitps"});
  const Field kind = f->at("kind");
  auto parsed = parse_fabric_kind(kind.json().is_string() ? kind.json().get<std::string>() : std::string());
  if (!parsed)
    kind.fail("unknown fabric kind " + describe(kind.json()) + " (expected none, single_switch, rail or leaf_spine)");
  spec.fabric.kind = *parsed;
  const std::optional<Field> leaf = f->find("leaf_size");
  if (spec.fabric.kind == FabricKind::leaf_spine && !leaf) f->fail("missing key \"leaf_size\" (kind leaf_spine)");
  if (leaf && spec.fabric.kind != FabricKind::leaf_spine) leaf->fail("applies only to kind leaf_spine");
  if (leaf) spec.fabric.leaf_size = static_cast<std::uint32_t>(positive_int(*leaf, kMaxHosts));
  if (const std::optional<Field> over = f->find("oversubscription")) {
    if (spec.fabric.kind != FabricKind::rail && spec.fabric.kind != FabricKind::leaf_spine)
      over->fail("applies only to kinds rail and leaf_spine");
    spec.fabric.oversubscription = fabric_factor(*over);
  }
  if (const std::optional<Field> rate = f->find("nic_gbitps")) spec.nic_gbitps = fabric_factor(*rate);
}

}  // namespace

ClusterSpec load_cluster_spec(const std::string& path, const Topology* default_node_type, const ImportOptions& opts) {
  return load_cluster_spec(path, DefaultNodeType([default_node_type] { return default_node_type; }), opts);
}

namespace {

ClusterSpec read_cluster_spec(const std::string& path, const DefaultNodeType& default_node_type,
                              const ImportOptions& opts) {
  const json::Document text(path, read_input_file(path));
  const Field doc(text);
  ClusterSpec spec;
  read_header(doc);
  spec.node_types = read_node_types(doc, path, default_node_type, opts);
  spec.nodes = read_cluster_nodes(doc, spec.node_types);
  read_fabric(doc, spec);
  check_cluster_spec(spec, path);
  return spec;
}

}  // namespace

ClusterSpec load_cluster_spec(const std::string& path, const DefaultNodeType& default_node_type,
                              const ImportOptions& opts) {
  return reading_input(path, [&] { return read_cluster_spec(path, default_node_type, opts); });
}

}  // namespace vp
