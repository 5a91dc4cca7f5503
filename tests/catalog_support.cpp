#include "catalog_support.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "vpcat/crc32c.hpp"
#include "vpcat/format.hpp"

namespace vp::test {

namespace {

using namespace vp::catalog;

// Build links for every parent relation (both directions), sorted by (src, dst).
void add_tree_links(NodeType& t, const std::vector<double>& up_gbps) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (std::uint32_t c = 0; c < t.components.size(); ++c) {
    if (t.components[c].parent == kNone) continue;
    pairs.emplace_back(c, t.components[c].parent);
    pairs.emplace_back(t.components[c].parent, c);
  }
  std::sort(pairs.begin(), pairs.end());
  for (auto [src, dst] : pairs) {
    std::uint32_t child = t.components[src].parent == dst ? src : dst;
    t.links.push_back(Link{src, dst, LinkKind::pcie, up_gbps[child], kNone});
  }
  for (Link& l : t.links)
    for (std::uint32_t r = 0; r < t.links.size(); ++r)
      if (t.links[r].src == l.dst && t.links[r].dst == l.src) l.reverse = r;
}

std::uint32_t find_link(const NodeType& t, std::uint32_t src, std::uint32_t dst) {
  for (std::uint32_t l = 0; l < t.links.size(); ++l)
    if (t.links[l].src == src && t.links[l].dst == dst) return l;
  throw std::logic_error("no such link");
}

// Up the tree to the lowest common ancestor, then down.
Route tree_route(const NodeType& t, std::uint32_t from, std::uint32_t to) {
  auto chain = [&](std::uint32_t c) {
    std::vector<std::uint32_t> up{c};
    while (t.components[up.back()].parent != kNone) up.push_back(t.components[up.back()].parent);
    return up;
  };
  std::vector<std::uint32_t> a = chain(from), b = chain(to);
  while (a.size() > 1 && b.size() > 1 && a[a.size() - 2] == b[b.size() - 2]) a.pop_back(), b.pop_back();
  // a and b now end at the common ancestor.
  std::vector<std::uint32_t> path(a.begin(), a.end());
  for (auto it = b.rbegin() + 1; it != b.rend(); ++it) path.push_back(*it);
  Route r{from, to, 1e300, {}, {}};
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    std::uint32_t l = find_link(t, path[i], path[i + 1]);
    r.links.push_back(l);
    r.solo_gbps = std::min(r.solo_gbps, t.links[l].capacity_gbps);
    if (i > 0 && t.components[path[i]].forward_gbps > 0) {
      r.forwarders.push_back(path[i]);
      r.solo_gbps = std::min(r.solo_gbps, t.components[path[i]].forward_gbps);
    }
  }
  return r;
}

void add_routes(NodeType& t) {
  std::vector<std::uint32_t> endpoints;
  for (std::uint32_t c = 0; c < t.components.size(); ++c)
    if (t.components[c].kind == Kind::gpu || t.components[c].kind == Kind::nic) endpoints.push_back(c);
  for (std::uint32_t a : endpoints)
    for (std::uint32_t b : endpoints)
      if (a != b) t.routes.push_back(tree_route(t, a, b));
}

// Orbits under the generators: union-find, named by the smallest member.
std::vector<std::uint32_t> orbits(std::size_t n, const std::vector<std::vector<std::uint32_t>>& gens) {
  std::vector<std::uint32_t> rep(n);
  std::iota(rep.begin(), rep.end(), 0u);
  auto find = [&](std::uint32_t x) {
    while (rep[x] != x) x = rep[x];
    return x;
  };
  for (const auto& g : gens)
    for (std::uint32_t x = 0; x < n; ++x) {
      std::uint32_t a = find(x), b = find(g[x]);
      if (a != b) rep[std::max(a, b)] = std::min(a, b);
    }
  for (std::uint32_t x = 0; x < n; ++x) rep[x] = find(x);
  return rep;
}

// Generators act on links through their endpoints.
void add_orbits(NodeType& t) {
  t.component_orbit = orbits(t.components.size(), t.generators);
  std::vector<std::vector<std::uint32_t>> link_gens;
  for (const auto& g : t.generators) {
    std::vector<std::uint32_t> image;
    for (const Link& l : t.links) image.push_back(find_link(t, g[l.src], g[l.dst]));
    link_gens.push_back(image);
  }
  t.link_orbit = orbits(t.links.size(), link_gens);
}

Component comp(Kind kind, std::uint32_t parent, std::uint32_t index, const std::string& bus = "") {
  Component c;
  c.kind = kind;
  c.parent = parent;
  c.local_index = index;
  c.name = std::string(kind == Kind::cpu           ? "cpu"
                       : kind == Kind::host_bridge ? "host_bridge"
                       : kind == Kind::pcie_switch ? "pcie_switch"
                       : kind == Kind::gpu         ? "gpu"
                                                   : "nic") +
           std::to_string(index);
  c.pci_bus_id = bus;
  return c;
}

constexpr std::int32_t I = kIdle;
constexpr std::int32_t N0 = kNicBase, N1 = kNicBase + 1;

}  // namespace

NodeType quad_node_type() {
  NodeType t;
  t.name = "quad";
  t.components = {comp(Kind::cpu, kNone, 0),
                  comp(Kind::host_bridge, 0, 0, "0000:00:00.0"),
                  comp(Kind::pcie_switch, 1, 0, "0000:01:00.0"),
                  comp(Kind::pcie_switch, 1, 1, "0000:81:00.0"),
                  comp(Kind::gpu, 2, 0, "0000:02:00.0"),
                  comp(Kind::gpu, 2, 1, "0000:03:00.0"),
                  comp(Kind::gpu, 3, 2, "0000:82:00.0"),
                  comp(Kind::gpu, 3, 3, "0000:83:00.0"),
                  comp(Kind::nic, 2, 0, "0000:04:00.0"),
                  comp(Kind::nic, 3, 1, "0000:84:00.0")};
  t.components[0].model = "AMD EPYC 9654";
  t.components[1].forward_gbps = 24.0;
  for (std::uint32_t g = 4; g < 8; ++g) {
    t.components[g].model = "NVIDIA L40S";
    t.components[g].device_name = "cuda" + std::to_string(g - 4);
  }
  for (std::uint32_t k = 8; k < 10; ++k) {
    t.components[k].model = "ConnectX-7";
    t.components[k].device_name = "mlx5_" + std::to_string(k - 8);
    t.components[k].nic_gbps = 25.0;
    t.components[k].gpudirect = true;
  }
  // Capacity of each component's link to its parent, by child.
  add_tree_links(t, {0, 24.0, 24.0, 24.0, 24.0, 24.0, 24.0, 24.0, 25.0, 25.0});
  add_routes(t);
  t.generators = {{0, 1, 2, 3, 5, 4, 6, 7, 8, 9}, {0, 1, 3, 2, 6, 7, 4, 5, 9, 8}};
  t.group_order = "8";
  add_orbits(t);
  // GPU pairs under a switch exchanging, everything to the network, and a ring.
  t.patterns = {LocalPattern{{1, 0, 3, 2}, {1, 0, 3, 2}, 1},
                LocalPattern{{N0, I, N1, I}, {I, N0, I, N1}, 4},
                LocalPattern{{2, 3, 1, 0}, {3, 2, 0, 1}, 2}};
  t.patterns_represented = "7";
  return t;
}

NodeType duo_node_type() {
  NodeType t;
  t.name = "duo";
  t.components = {comp(Kind::cpu, kNone, 0), comp(Kind::host_bridge, 0, 0, "0000:00:00.0"),
                  comp(Kind::gpu, 1, 0, "0000:01:00.0"), comp(Kind::gpu, 1, 1, "0000:02:00.0"),
                  comp(Kind::nic, 1, 0, "0000:03:00.0")};
  t.components[1].forward_gbps = 12.0;
  t.components[4].nic_gbps = 12.5;
  add_tree_links(t, {0, 16.0, 16.0, 16.0, 12.5});
  add_routes(t);
  t.generators = {{0, 1, 3, 2, 4}};
  t.group_order = "2";
  add_orbits(t);
  t.patterns = {LocalPattern{{1, 0}, {1, 0}, 1}, LocalPattern{{N0, I}, {I, N0}, 2}};
  t.patterns_represented = "3";
  return t;
}

namespace {

void common_tail(Catalog& c) {
  c.defaults = {{"nic_efficiency", 1.0}, {"pcie.gen4", 24.0}, {"root_complex_p2p_factor", 1.0}};
  c.provenance = Provenance{"vp-analyze", "0.1.0", "sha256:0123456789abcdef", "ports_per_gpu=1", ""};
}

}  // namespace

Catalog rail_catalog() {
  Catalog c;
  c.node_types = {quad_node_type()};
  c.node_groups = {NodeGroup{0, 4, "gpu[001-004]"}};
  c.fabric = Fabric{FabricKind::rail, 0, 1.0, 2, true, {100.0, 100.0}, "S4 (any permutation of the 4 nodes)", "24"};
  c.cluster_group_order = "98304";
  common_tail(c);
  return c;
}

Catalog mixed_catalog() {
  Catalog c;
  c.node_types = {quad_node_type(), duo_node_type()};
  c.node_groups = {NodeGroup{0, 1, "big1"}, NodeGroup{1, 2, "small[1-2]"}};
  c.fabric = Fabric{FabricKind::single_switch, 0, 1.0, 1, false, {0.0}, "S2 (the two duo nodes)", "2"};
  c.cluster_group_order = "64";
  common_tail(c);
  return c;
}

Catalog single_node_catalog() {
  Catalog c;
  c.node_types = {duo_node_type()};
  c.node_groups = {NodeGroup{0, 1, "node0"}};
  c.fabric = Fabric{FabricKind::none, 0, 1.0, 0, false, {}, "trivial", "1"};
  c.cluster_group_order = "2";
  common_tail(c);
  return c;
}

std::uint64_t entry_offset(const std::vector<std::uint8_t>& bytes, std::uint32_t type) {
  namespace b = vpcat::bytes;
  const std::uint16_t count = b::load_u16(&bytes[vpcat::header::section_count]);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t e = vpcat::header::size + i * vpcat::entry::entry_size;
    if (b::load_u32(&bytes[e + vpcat::entry::type]) == type) return e;
  }
  throw std::logic_error("no section of type " + std::to_string(type));
}

std::uint64_t section_offset(const std::vector<std::uint8_t>& bytes, std::uint32_t type) {
  return vpcat::bytes::load_u64(&bytes[entry_offset(bytes, type) + vpcat::entry::offset]);
}

void reseal(std::vector<std::uint8_t>& bytes) {
  namespace b = vpcat::bytes;
  const std::uint16_t header_size = b::load_u16(&bytes[vpcat::header::header_size]);
  const std::uint16_t entry_size = b::load_u16(&bytes[vpcat::header::entry_size]);
  const std::uint16_t count = b::load_u16(&bytes[vpcat::header::section_count]);
  // The fields may be damaged on purpose: stay inside the buffer.
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::size_t at = header_size + std::size_t{i} * entry_size;
    if (at + vpcat::entry::entry_size > bytes.size()) break;
    std::uint8_t* e = &bytes[at];
    const std::uint64_t offset = b::load_u64(e + vpcat::entry::offset), size = b::load_u64(e + vpcat::entry::size);
    if (offset <= bytes.size() && size <= bytes.size() - offset)
      b::store_u32(e + vpcat::entry::checksum, vpcat::crc32c(&bytes[offset], size));
  }
  const std::size_t table_end =
      std::max<std::size_t>(vpcat::header::size, std::min<std::size_t>(bytes.size(), header_size + std::size_t{count} * entry_size));
  std::uint32_t crc = vpcat::crc32c(bytes.data(), vpcat::header::checksum);
  crc = vpcat::crc32c_extend(crc, bytes.data() + vpcat::header::size, table_end - vpcat::header::size);
  b::store_u32(&bytes[vpcat::header::checksum], crc);
}

std::vector<Part> split(const std::vector<std::uint8_t>& bytes) {
  namespace b = vpcat::bytes;
  std::vector<Part> parts;
  const std::uint16_t count = b::load_u16(&bytes[vpcat::header::section_count]);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint8_t* e = &bytes[vpcat::header::size + i * vpcat::entry::entry_size];
    const std::uint64_t offset = b::load_u64(e + vpcat::entry::offset), size = b::load_u64(e + vpcat::entry::size);
    parts.push_back(Part{b::load_u32(e + vpcat::entry::type), b::load_u32(e + vpcat::entry::flags),
                         std::vector<std::uint8_t>(bytes.begin() + static_cast<std::ptrdiff_t>(offset),
                                                   bytes.begin() + static_cast<std::ptrdiff_t>(offset + size))});
  }
  return parts;
}

std::vector<std::uint8_t> join(const std::vector<std::uint8_t>& header_from, const std::vector<Part>& parts) {
  namespace b = vpcat::bytes;
  std::vector<std::uint8_t> out(header_from.begin(), header_from.begin() + vpcat::header::size);
  out.resize(vpcat::header::size + parts.size() * vpcat::entry::entry_size, 0);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out.resize((out.size() + 63) / 64 * 64, 0);
    std::uint8_t* e = &out[vpcat::header::size + i * vpcat::entry::entry_size];
    b::store_u32(e + vpcat::entry::type, parts[i].type);
    b::store_u32(e + vpcat::entry::flags, parts[i].flags);
    b::store_u64(e + vpcat::entry::offset, out.size());
    b::store_u64(e + vpcat::entry::size, parts[i].body.size());
    out.insert(out.end(), parts[i].body.begin(), parts[i].body.end());
  }
  b::store_u16(&out[vpcat::header::section_count], static_cast<std::uint16_t>(parts.size()));
  b::store_u64(&out[vpcat::header::file_size], out.size());
  reseal(out);
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::uint8_t> read_binary(const std::string& path) {
  std::string s = read_text(path);
  return std::vector<std::uint8_t>(s.begin(), s.end());
}

void write_binary(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace vp::test
