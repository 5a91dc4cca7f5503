// Catalog -> .vpcat bytes. Sections are written in type order at 64-byte
// aligned offsets; strings are interned in the order the sections below
// visit them, so the output is a function of the Catalog alone.
#include "vp/catalog/writer.hpp"

#include <fmt/format.h>

#include <array>
#include <limits>

#include "section_builder.hpp"
#include "vp/catalog/atomic_file.hpp"
#include "vp/catalog/errors.hpp"
#include "vpcat/crc32c.hpp"
#include "vpcat/verify.hpp"

namespace vp::catalog {

namespace {

namespace b = vpcat::bytes;
using detail::SectionBuilder;
using detail::StringTable;

[[noreturn]] void unencodable(const std::string& what) {
  throw CatalogError(CatalogError::Kind::invalid, "catalog: " + what);
}

std::uint32_t u32(std::size_t v, const char* what) {
  if (v > std::numeric_limits<std::uint32_t>::max()) unencodable(fmt::format("{} {} exceeds 2^32 - 1", what, v));
  return static_cast<std::uint32_t>(v);
}

// Vectors whose sizes the format ties to other counts.
void check_sizes(const Catalog& c) {
  for (std::size_t t = 0; t < c.node_types.size(); ++t) {
    const NodeType& nt = c.node_types[t];
    std::string where = fmt::format("node type {} \"{}\"", t, nt.name);
    if (nt.component_orbit.size() != nt.components.size())
      unencodable(fmt::format("{}: component_orbit has {} entries for {} components", where, nt.component_orbit.size(),
                              nt.components.size()));
    if (nt.link_orbit.size() != nt.links.size())
      unencodable(fmt::format("{}: link_orbit has {} entries for {} links", where, nt.link_orbit.size(), nt.links.size()));
    for (std::size_t g = 0; g < nt.generators.size(); ++g)
      if (nt.generators[g].size() != nt.components.size())
        unencodable(fmt::format("{}: generator {} has {} images for {} components", where, g, nt.generators[g].size(),
                                nt.components.size()));
    std::size_t gpus = 0;
    for (const Component& comp : nt.components) gpus += comp.kind == Kind::gpu;
    for (std::size_t p = 0; p < nt.patterns.size(); ++p)
      if (nt.patterns[p].send.size() != gpus || nt.patterns[p].recv.size() != gpus)
        unencodable(fmt::format("{}: pattern {} has {} send and {} recv roles for {} GPUs", where, p,
                                nt.patterns[p].send.size(), nt.patterns[p].recv.size(), gpus));
  }
  if (c.fabric.spine_uplink_gbps.size() != c.fabric.switches)
    unencodable(fmt::format("fabric: spine_uplink_gbps has {} entries for {} switches", c.fabric.spine_uplink_gbps.size(),
                            c.fabric.switches));
}

struct Sections {
  StringTable strings;
  SectionBuilder node_types{vpcat::node_type::size}, components{vpcat::component::size}, links{vpcat::link::size},
      routes{vpcat::route::size}, route_hops{4}, permutations{4}, patterns{vpcat::pattern::size}, roles{4},
      node_groups{vpcat::node_group::size}, cluster{vpcat::cluster::size}, uplinks{8},
      defaults{vpcat::default_entry::size}, provenance{vpcat::provenance::size}, model{vpcat::model_entry::size};
};

void put_component(Sections& s, const Component& c, std::uint32_t orbit) {
  std::uint8_t* r = s.components.add();
  namespace f = vpcat::component;
  b::store_u8(r + f::kind, static_cast<std::uint8_t>(c.kind));
  b::store_u8(r + f::flags, c.gpudirect ? vpcat::kComponentGpuDirect : 0);
  b::store_u32(r + f::parent, c.parent);
  b::store_u32(r + f::local_index, c.local_index);
  b::store_u32(r + f::orbit, orbit);
  b::store_u32(r + f::name, s.strings.intern(c.name));
  b::store_u32(r + f::model, s.strings.intern(c.model));
  b::store_u32(r + f::pci_bus_id, s.strings.intern(c.pci_bus_id));
  b::store_u32(r + f::device_name, s.strings.intern(c.device_name));
  b::store_f64(r + f::forward_gbps, c.forward_gbps);
  b::store_f64(r + f::nic_gbps, c.nic_gbps);
}

void put_link(Sections& s, const Link& l, std::uint32_t orbit) {
  std::uint8_t* r = s.links.add();
  namespace f = vpcat::link;
  b::store_u32(r + f::src, l.src);
  b::store_u32(r + f::dst, l.dst);
  b::store_u32(r + f::reverse, l.reverse);
  b::store_u32(r + f::orbit, orbit);
  b::store_u8(r + f::kind, static_cast<std::uint8_t>(l.kind));
  b::store_f64(r + f::capacity_gbps, l.capacity_gbps);
}

void put_route(Sections& s, const Route& rt) {
  std::uint8_t* r = s.routes.add();
  namespace f = vpcat::route;
  b::store_u32(r + f::from, rt.from);
  b::store_u32(r + f::to, rt.to);
  b::store_u32(r + f::hop_first, s.route_hops.count());
  b::store_u32(r + f::link_count, u32(rt.links.size(), "route link count"));
  b::store_u32(r + f::forwarder_count, u32(rt.forwarders.size(), "route forwarder count"));
  b::store_f64(r + f::solo_gbps, rt.solo_gbps);
  for (std::uint32_t l : rt.links) s.route_hops.add_u32(l);
  for (std::uint32_t c : rt.forwarders) s.route_hops.add_u32(c);
}

void put_node_type(Sections& s, const NodeType& nt) {
  namespace f = vpcat::node_type;
  std::uint32_t gpus = 0, nics = 0;
  for (const Component& c : nt.components) gpus += c.kind == Kind::gpu, nics += c.kind == Kind::nic;
  // Strings first, in record order, then the owned arrays.
  const std::uint32_t name = s.strings.intern(nt.name);
  const std::uint32_t order = s.strings.intern(nt.group_order);
  const std::uint32_t represented = s.strings.intern(nt.patterns_represented);
  std::array<std::uint32_t, 7> first = {s.components.count(),   s.links.count(),    s.routes.count(),
                                        s.permutations.count(), s.patterns.count(), s.roles.count(), 0};
  for (std::size_t i = 0; i < nt.components.size(); ++i) put_component(s, nt.components[i], nt.component_orbit[i]);
  for (std::size_t i = 0; i < nt.links.size(); ++i) put_link(s, nt.links[i], nt.link_orbit[i]);
  for (const Route& r : nt.routes) put_route(s, r);
  for (const auto& g : nt.generators)
    for (std::uint32_t image : g) s.permutations.add_u32(image);
  for (const LocalPattern& p : nt.patterns) {
    b::store_u64(s.patterns.add() + vpcat::pattern::orbit_size, p.orbit_size);
    for (std::int32_t role : p.send) s.roles.add_i32(role);
    for (std::int32_t role : p.recv) s.roles.add_i32(role);
  }
  std::uint8_t* r = s.node_types.add();
  b::store_u32(r + f::name, name);
  b::store_u32(r + f::group_order, order);
  b::store_u32(r + f::patterns_represented, represented);
  b::store_u32(r + f::component_first, first[0]);
  b::store_u32(r + f::component_count, u32(nt.components.size(), "component count"));
  b::store_u32(r + f::link_first, first[1]);
  b::store_u32(r + f::link_count, u32(nt.links.size(), "link count"));
  b::store_u32(r + f::route_first, first[2]);
  b::store_u32(r + f::route_count, u32(nt.routes.size(), "route count"));
  b::store_u32(r + f::generator_count, u32(nt.generators.size(), "generator count"));
  b::store_u32(r + f::permutation_first, first[3]);
  b::store_u32(r + f::pattern_first, first[4]);
  b::store_u32(r + f::pattern_count, u32(nt.patterns.size(), "pattern count"));
  b::store_u32(r + f::role_first, first[5]);
  b::store_u32(r + f::gpu_count, gpus);
  b::store_u32(r + f::nic_count, nics);
}

// Node groups with their prefix sums, then the cluster record.
void put_cluster(Sections& s, const Catalog& c) {
  std::uint64_t nodes = 0, comps = 0, links = 0, gpus = 0, nics = 0;
  for (const NodeGroup& g : c.node_groups) {
    namespace f = vpcat::node_group;
    const std::uint32_t names = s.strings.intern(g.names);
    std::uint8_t* r = s.node_groups.add();
    b::store_u32(r + f::node_type, g.node_type);
    b::store_u32(r + f::count, g.count);
    b::store_u32(r + f::names, names);
    b::store_u32(r + f::first_node, u32(nodes, "node count"));
    b::store_u64(r + f::first_component, comps);
    b::store_u64(r + f::first_link, links);
    b::store_u64(r + f::first_gpu, gpus);
    b::store_u64(r + f::first_nic, nics);
    nodes += g.count;
    if (g.node_type >= c.node_types.size()) continue;  // the verifier names it
    const NodeType& t = c.node_types[g.node_type];
    std::uint64_t t_gpus = 0, t_nics = 0;
    for (const Component& comp : t.components) t_gpus += comp.kind == Kind::gpu, t_nics += comp.kind == Kind::nic;
    comps += std::uint64_t{g.count} * t.components.size();
    links += std::uint64_t{g.count} * t.links.size();
    gpus += g.count * t_gpus;
    nics += g.count * t_nics;
  }
  namespace f = vpcat::cluster;
  const std::uint32_t description = s.strings.intern(c.fabric.group_description);
  const std::uint32_t fabric_order = s.strings.intern(c.fabric.group_order);
  const std::uint32_t cluster_order = s.strings.intern(c.cluster_group_order);
  std::uint8_t* r = s.cluster.add();
  b::store_u8(r + f::fabric_kind, static_cast<std::uint8_t>(c.fabric.kind));
  b::store_u8(r + f::flags, c.fabric.spine ? vpcat::kClusterSpine : 0);
  b::store_u32(r + f::leaf_size, c.fabric.leaf_size);
  b::store_u32(r + f::switches, c.fabric.switches);
  b::store_u32(r + f::node_count, u32(nodes, "node count"));
  b::store_f64(r + f::oversubscription, c.fabric.oversubscription);
  b::store_u32(r + f::group_description, description);
  b::store_u32(r + f::fabric_group_order, fabric_order);
  b::store_u32(r + f::cluster_group_order, cluster_order);
  b::store_u64(r + f::gpu_count, gpus);
  b::store_u64(r + f::nic_count, nics);
  b::store_u64(r + f::component_count, comps);
  b::store_u64(r + f::link_count, links);
  for (double v : c.fabric.spine_uplink_gbps) s.uplinks.add_f64(v);
}

void put_tail(Sections& s, const Catalog& c) {
  for (const auto& [key, value] : c.defaults) {
    const std::uint32_t k = s.strings.intern(key);
    std::uint8_t* r = s.defaults.add();
    b::store_u32(r + vpcat::default_entry::key, k);
    b::store_f64(r + vpcat::default_entry::value, value);
  }
  namespace f = vpcat::provenance;
  const Provenance& p = c.provenance;
  const std::uint32_t tool = s.strings.intern(p.tool), version = s.strings.intern(p.tool_version);
  const std::uint32_t digest = s.strings.intern(p.input_digest), options = s.strings.intern(p.options);
  const std::uint32_t warnings = s.strings.intern(p.warnings);
  std::uint8_t* r = s.provenance.add();
  b::store_u32(r + f::tool, tool);
  b::store_u32(r + f::tool_version, version);
  b::store_u32(r + f::input_digest, digest);
  b::store_u32(r + f::options, options);
  b::store_u32(r + f::warnings, warnings);
}

void put_model_entry(Sections& s, vpcat::ModelPart part, bool on, const std::string& match, const ModelValue& a,
                     const ModelValue& b) {
  namespace f = vpcat::model_entry;
  const std::uint32_t m = s.strings.intern(match);
  const std::uint32_t a_source = s.strings.intern(a.source), b_source = s.strings.intern(b.source);
  std::uint8_t* r = s.model.add();
  b::store_u8(r + f::part, static_cast<std::uint8_t>(part));
  b::store_u8(r + f::flags, on ? vpcat::kModelOn : 0);
  b::store_u32(r + f::match, m);
  b::store_f64(r + f::a, a.value);
  b::store_f64(r + f::b, b.value);
  b::store_u32(r + f::a_source, a_source);
  b::store_u32(r + f::b_source, b_source);
}

// The machine model's records in their order (SPEC.md §6.13): forwarder,
// families, nic, chunk.
void put_machine_model(Sections& s, const MachineModelSpec& m) {
  using vpcat::ModelPart;
  put_model_entry(s, ModelPart::forwarder, m.forwarder.on, "", m.forwarder.slope, m.forwarder.floor);
  for (const ModelFamily& f : m.families) put_model_entry(s, ModelPart::family, false, f.match, f.slope, f.floor);
  put_model_entry(s, ModelPart::nic, m.nic.on, "", m.nic.slope, m.nic.floor);
  put_model_entry(s, ModelPart::chunk, m.chunk_on, "", m.chunk_bytes, m.chunk_overhead_us);
}

std::size_t align_up(std::size_t v) {
  return (v + vpcat::kWriterAlignment - 1) / vpcat::kWriterAlignment * vpcat::kWriterAlignment;
}

// Header, section table, and the sections in type order (bodies[i] has type
// i + 1; those past the required ones are written may_skip). `minor`: the
// file's format_minor.
std::vector<std::uint8_t> assemble(std::vector<std::vector<std::uint8_t>> bodies, std::uint16_t minor) {
  namespace h = vpcat::header;
  namespace e = vpcat::entry;
  const std::size_t count = bodies.size();
  const std::size_t table_end = h::size + count * e::entry_size;
  std::size_t end = table_end;
  std::vector<std::size_t> offsets;
  for (const auto& body : bodies) {
    offsets.push_back(align_up(end));
    end = offsets.back() + body.size();
  }
  std::vector<std::uint8_t> out(end, 0);
  std::copy(std::begin(vpcat::kMagic), std::end(vpcat::kMagic), out.begin());
  b::store_u16(&out[h::format_major], vpcat::kFormatMajor);
  b::store_u16(&out[h::format_minor], minor);
  b::store_u16(&out[h::min_reader_minor], 0);
  b::store_u16(&out[h::header_size], h::size);
  b::store_u16(&out[h::entry_size], e::entry_size);
  b::store_u16(&out[h::section_count], static_cast<std::uint16_t>(count));
  b::store_u64(&out[h::file_size], end);
  const WriterVersion v = writer_version();
  b::store_u16(&out[h::writer_major], v.major);
  b::store_u16(&out[h::writer_minor], v.minor);
  b::store_u16(&out[h::writer_patch], v.patch);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint8_t* entry = &out[h::size + i * e::entry_size];
    const auto type = static_cast<std::uint32_t>(i + vpcat::kFirstSectionType);
    b::store_u32(entry + e::type, type);
    if (type > vpcat::kLastRequiredSectionType) b::store_u32(entry + e::flags, vpcat::kSectionMaySkip);
    b::store_u64(entry + e::offset, offsets[i]);
    b::store_u64(entry + e::size, bodies[i].size());
    b::store_u32(entry + e::checksum, vpcat::crc32c(bodies[i].data(), bodies[i].size()));
    std::copy(bodies[i].begin(), bodies[i].end(), out.begin() + static_cast<std::ptrdiff_t>(offsets[i]));
  }
  std::uint32_t crc = vpcat::crc32c(out.data(), h::checksum);
  crc = vpcat::crc32c_extend(crc, out.data() + h::size, table_end - h::size);
  b::store_u32(&out[h::checksum], crc);
  return out;
}

}  // namespace

WriterVersion writer_version() { return {VP_VERSION_MAJOR, VP_VERSION_MINOR, VP_VERSION_PATCH}; }

std::vector<std::uint8_t> write_catalog(const Catalog& c) {
  check_sizes(c);
  Sections s;
  for (const NodeType& nt : c.node_types) put_node_type(s, nt);
  put_cluster(s, c);
  put_tail(s, c);
  if (c.machine_model) put_machine_model(s, *c.machine_model);
  std::vector<std::vector<std::uint8_t>> bodies = {
      s.strings.finish(),  s.node_types.finish(),   s.components.finish(), s.links.finish(),
      s.routes.finish(),   s.route_hops.finish(),   s.permutations.finish(), s.patterns.finish(),
      s.roles.finish(),    s.node_groups.finish(),  s.cluster.finish(),    s.uplinks.finish(),
      s.defaults.finish(), s.provenance.finish()};
  // A catalog without a machine model is a 1.1 file byte for byte; with
  // one, a 1.2 file a 1.1 reader still reads (the section is may_skip, so
  // min_reader_minor stays 0).
  if (c.machine_model) bodies.push_back(s.model.finish());
  const std::uint16_t minor = c.machine_model ? vpcat::kFormatMinor : 1;
  std::vector<std::uint8_t> out = assemble(std::move(bodies), minor);
  // With the default limits: what this writes, a default reader accepts.
  if (vpcat::Status st = vpcat::verify(out.data(), out.size(), nullptr); !st.ok())
    throw CatalogError(CatalogError::Kind::invalid, std::string("catalog breaks a format rule: ") + st.message(),
                       st.code());
  return out;
}

void write_catalog_file(const Catalog& c, const std::string& path) {
  const std::vector<std::uint8_t> bytes = write_catalog(c);
  write_file_atomically(path, bytes.data(), bytes.size());
}

}  // namespace vp::catalog
