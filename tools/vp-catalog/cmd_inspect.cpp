// `vp-catalog inspect FILE [--json] [--verbose]`: the header, the sections
// and their sizes, the machine model, and the catalog summary (the keys of `vp-analyze
// --summary json`); the text gives each node type's GB/s, and the group
// orders and orbits with --verbose.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "vp/base/errors.hpp"
#include "vp/base/input_file.hpp"
#include "vp/base/messages.hpp"
#include "vp/cli/catalog_file.hpp"
#include "vp/catalog/bandwidth_summary.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/catalog/summary.hpp"
#include "vpcat/catalog_view.hpp"

namespace vp::catalog_cli {

namespace {

struct InspectOptions {
  std::string file;
  bool json = false;
  bool verbose = false;
};

catalog::Json sections_json(const vpcat::CatalogView& v) {
  catalog::Json out = catalog::Json::array();
  for (std::uint32_t i = 0; i < v.section_count(); ++i) {
    const vpcat::SectionEntry e = v.section(i);
    catalog::Json s = {{"type", e.type}, {"name", e.name}, {"flags", e.flags}, {"offset", e.offset}, {"size", e.size}};
    if (vpcat::section_spec(e.type)) {
      const vpcat::SectionRef& r = v.layout().sections[e.type];
      s["count"] = r.count;
      s["record_size"] = r.record_size;
    }
    s["checksum"] = fmt::format("0x{:08x}", e.checksum);
    out.push_back(std::move(s));
  }
  return out;
}

// The import warnings recorded in the provenance (format 1.1), one per line.
std::vector<std::string> warning_lines(const vpcat::CatalogView& v) {
  std::vector<std::string> out;
  std::string_view text = v.provenance().warnings;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    out.emplace_back(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return out;
}

// The node names as a group stores them (a host list expression), cut
// after about kNamesShown characters in the text output.
constexpr std::size_t kNamesShown = 160;

// Whether every name is a generated one (node0, node1, ...): the analyzer
// knew no host names.
bool generic_names(const vpcat::CatalogView& v) {
  for (std::uint32_t g = 0; g < v.node_group_count(); ++g) {
    std::string_view names = v.node_group(g).names;
    while (!names.empty()) {
      const std::size_t end = std::min(names.find(','), names.size());
      const std::string_view n = names.substr(0, end);
      if (n.size() < 5 || n.substr(0, 4) != "node" ||
          n.find_first_not_of("0123456789", 4) != std::string_view::npos)
        return false;
      names.remove_prefix(std::min(end + 1, names.size()));
    }
  }
  return true;
}

catalog::Json node_groups_json(const vpcat::CatalogView& v) {
  catalog::Json out = catalog::Json::array();
  for (std::uint32_t g = 0; g < v.node_group_count(); ++g) {
    const vpcat::NodeGroupView group = v.node_group(g);
    out.push_back({{"node_type", printable(std::string(v.node_type(group.node_type).name()))},
                   {"count", group.count},
                   {"names", printable(std::string(group.names))},
                   {"first_gpu", group.first_gpu}});
  }
  return out;
}

void print_nodes(const vpcat::CatalogView& v) {
  for (std::uint32_t g = 0; g < v.node_group_count(); ++g) {
    const vpcat::NodeGroupView group = v.node_group(g);
    std::string names = printable_line(std::string(group.names));
    if (names.size() > kNamesShown) names = names.substr(0, kNamesShown) + "... (--json lists them all)";
    const std::uint64_t gpus = std::uint64_t{group.count} * v.node_type(group.node_type).gpu_count();
    fmt::print("nodes {} ({} of type {}, GPUs {}-{})\n", names, group.count,
               printable_line(std::string(v.node_type(group.node_type).name())), group.first_gpu,
               group.first_gpu + gpus - 1);
  }
  if (generic_names(v))
    fmt::print("node names: generated (node0, ...), not host names: the runtime maps ranks by host name, so set "
               "VPCAT_RANK_MAP, or rebuild with vp-analyze --hostname NAME / --hosts LIST (docs/mpi.md)\n");
}

// A source's kind: its text up to the first ':' ("class default", "table
// FILE", "ideal", "measured").
std::string source_kind(const std::string& source) { return source.substr(0, source.find(':')); }

std::string curve_text(const char* name, const catalog::ModelCurve& c) {
  return fmt::format("{} {} (slope {:g}, floor {:g})", name, c.on ? "on" : "off", c.slope.value, c.floor.value);
}

// One line for the model, its sources by kind; with --verbose every value's
// source on a line of its own.
void print_machine_model(const catalog::Catalog& c, bool verbose) {
  if (!c.machine_model) {
    fmt::print("machine model: none (a format 1.1 catalog): the planner takes its class defaults\n");
    return;
  }
  const catalog::MachineModelSpec& m = *c.machine_model;
  std::string families;
  for (const catalog::ModelFamily& f : m.families)
    families += fmt::format("; {} slope {:g}, floor {:g}", printable_line(f.match), f.slope.value, f.floor.value);
  std::vector<std::pair<std::string, const catalog::ModelValue*>> values = {
      {"forwarder.slope", &m.forwarder.slope}, {"forwarder.floor", &m.forwarder.floor}};
  for (const catalog::ModelFamily& f : m.families) {
    values.emplace_back("forwarder.families[" + printable_line(f.match) + "].slope", &f.slope);
    values.emplace_back("forwarder.families[" + printable_line(f.match) + "].floor", &f.floor);
  }
  values.insert(values.end(), {{"nic.slope", &m.nic.slope},
                               {"nic.floor", &m.nic.floor},
                               {"chunk.bytes", &m.chunk_bytes},
                               {"chunk.overhead_us", &m.chunk_overhead_us}});
  std::vector<std::string> kinds;
  for (const auto& v : values)
    if (std::find(kinds.begin(), kinds.end(), source_kind(v.second->source)) == kinds.end())
      kinds.push_back(source_kind(v.second->source));
  std::string sources;
  for (const std::string& k : kinds) sources += (sources.empty() ? "" : ", ") + printable_line(k);
  fmt::print("machine model: {}{}, {}, chunk {} ({:g} bytes, {:g} us); sources: {}\n",
             curve_text("forwarder", m.forwarder), families, curve_text("nic", m.nic), m.chunk_on ? "on" : "off",
             m.chunk_bytes.value, m.chunk_overhead_us.value, sources);
  if (verbose)
    for (const auto& [name, v] : values) fmt::print("  {} {:g}: {}\n", name, v->value, printable_line(v->source));
}

void print_text(const InspectOptions& o, const vpcat::CatalogView& v, const catalog::Catalog& c,
                const catalog::Summary& s) {
  const vpcat::Layout& l = v.layout();
  fmt::print("{}: {} bytes, format {}.{} (readers of {}.{} or later), written by version {}.{}.{}\n", printable_line(input_name(o.file)),
             l.file_size, l.format_major, l.format_minor, l.format_major, l.min_reader_minor, l.writer_major,
             l.writer_minor, l.writer_patch);
  fmt::print("\n{:>4}  {:<14} {:>10} {:>10} {:>8} {:>7}  {}\n", "type", "section", "offset", "size", "records", "stride",
             "checksum");
  for (std::uint32_t i = 0; i < v.section_count(); ++i) {
    const vpcat::SectionEntry e = v.section(i);
    const vpcat::SectionRef& r = v.layout().sections[vpcat::section_spec(e.type) ? e.type : 0];
    fmt::print("{:>4}  {:<14} {:>10} {:>10} {:>8} {:>7}  0x{:08x}{}\n", e.type, e.name, e.offset, e.size, r.count,
               r.record_size, e.checksum, e.flags & vpcat::kSectionMaySkip ? "  may_skip" : "");
  }
  fmt::print("\n{} GPUs on {} nodes\n", s.gpus, s.nodes);
  print_nodes(v);
  for (std::size_t i = 0; i < s.node_types.size(); ++i)
    fmt::print("node type {}: {} GPUs, {}\n", s.node_types[i].name, s.node_types[i].gpus,
               catalog::bandwidth_text(catalog::bandwidth_of(c.node_types[i])));
  if (o.verbose) {
    fmt::print("cluster group order {}\n", catalog::readable_decimal(s.cluster_automorphism_group_order));
    for (const catalog::NodeTypeSummary& t : s.node_types)
      fmt::print("node type {}: group order {}, {} GPU orbits, {} local pattern orbits representing {}\n", t.name,
                 catalog::readable_decimal(t.automorphism_group_order), t.gpu_orbits, t.local_pattern_orbits,
                 catalog::readable_decimal(t.local_patterns));
    fmt::print("{} channel orbits stored, representing {}\n", s.channel_orbits, s.channels_represented);
  }
  print_machine_model(c, o.verbose);
  // The import's warnings are warnings: on standard error, as the analyzer
  // gave them (the report above stays the catalog's content).
  for (const std::string& w : warning_lines(v))
    vp::warn("vp-catalog", fmt::format("{}: analysis: {}", printable_line(input_name(o.file)), printable_line(w)));
}

int run(const InspectOptions& o) {
  const std::vector<std::uint8_t> bytes = cli::read_catalog_bytes(o.file);
  vpcat::CatalogView v;
  if (vpcat::Status st = vpcat::CatalogView::open(bytes.data(), bytes.size(), &v); !st.ok())
    throw catalog::status_error(st, input_name(o.file));
  const catalog::Catalog c = catalog::to_catalog(v);
  const catalog::Summary s = catalog::summarize(c, bytes.size());
  if (!o.json) {
    print_text(o, v, c, s);
    return 0;
  }
  catalog::Json j = catalog::to_json(s);
  const vpcat::Layout& l = v.layout();
  j["file"] = printable(input_name(o.file));
  j["format_version"] = fmt::format("{}.{}", l.format_major, l.format_minor);
  j["min_reader_version"] = fmt::format("{}.{}", l.format_major, l.min_reader_minor);
  j["writer_version"] = fmt::format("{}.{}.{}", l.writer_major, l.writer_minor, l.writer_patch);
  j["node_groups"] = node_groups_json(v);
  j["sections"] = sections_json(v);
  j["warnings"] = warning_lines(v);
  // As the JSON mirror holds it; null for a catalog without one (format 1.1).
  const catalog::Json mirror = catalog::to_json(c);
  j["machine_model"] = mirror.contains("machine_model") ? mirror["machine_model"] : catalog::Json(nullptr);
  fmt::print("{}\n", j.dump(2));
  return 0;
}

}  // namespace

Runner setup_inspect(CLI::App& app) {
  auto o = std::make_shared<InspectOptions>();
  CLI::App* cmd = app.add_subcommand("inspect", "Print the header, the sections, the nodes' names and the catalog summary");
  cmd->add_option("FILE,--catalog", o->file, "The .vpcat file")->required();
  cmd->add_flag("--json", o->json,
                "Print JSON: the keys of `vp-analyze --summary json`, then file, versions, node groups (their host "
                "names) and sections");
  cmd->add_flag("-v,--verbose", o->verbose,
                "Also print the group orders, the orbits and the source of each machine model value (the text "
                "output; --json always has them)");
  return [o] { return run(*o); };
}

}  // namespace vp::catalog_cli
