// Fuzz target: the verifier and every accessor of the view, on arbitrary
// bytes. Built two ways (tests/CMakeLists.txt):
//  * with -DVP_BUILD_FUZZERS=ON and clang, a libFuzzer binary:
//      build-fuzz/tests/vp_verify_fuzz -max_total_time=300 tests/fuzz/corpus/verify
//  * always, with replay_main.cpp, a program ctest runs over tests/fuzz/corpus/verify.
//
// Each input is verified as is, then once more with its checksums
// recomputed, so that mutations reach the structural checks behind the
// CRCs. When verification passes, the walk reads every field through the
// view and traps on a broken invariant of the view's contract.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "vpcat/catalog_view.hpp"
#include "vpcat/crc32c.hpp"

namespace {

namespace b = vpcat::bytes;

void expect(bool ok) {
  if (!ok) __builtin_trap();
}

// Recompute section checksums and the header checksum wherever the
// (possibly damaged) table says they are, staying inside the buffer.
void reseal(std::vector<std::uint8_t>& d) {
  const std::size_t hs = b::load_u16(&d[vpcat::header::header_size]);
  const std::size_t es = b::load_u16(&d[vpcat::header::entry_size]);
  const std::size_t n = b::load_u16(&d[vpcat::header::section_count]);
  if (es < vpcat::entry::entry_size || hs < vpcat::header::size) return;
  for (std::size_t i = 0; i < n && hs + i * es + es <= d.size(); ++i) {
    std::uint8_t* e = &d[hs + i * es];
    const std::uint64_t off = b::load_u64(e + vpcat::entry::offset), size = b::load_u64(e + vpcat::entry::size);
    if (size <= d.size() && off <= d.size() - size) b::store_u32(e + vpcat::entry::checksum, vpcat::crc32c(&d[off], size));
  }
  const std::size_t end = hs + n * es;
  if (end > d.size()) return;
  std::uint32_t crc = vpcat::crc32c(d.data(), vpcat::header::checksum);
  crc = vpcat::crc32c_extend(crc, d.data() + vpcat::header::size, end - vpcat::header::size);
  b::store_u32(&d[vpcat::header::checksum], crc);
}

// The flows of one direction of a pattern through each NIC port have a
// port and fit it (their routes' solo rates summed, relative 1e-9).
void expect_ports_fit(const vpcat::NodeTypeView& t, const vpcat::PatternView& v, bool receive) {
  std::vector<double> load(t.nic_count(), 0.0);
  for (std::uint32_t g = 0; g < v.gpu_count(); ++g) {
    const std::int32_t role = receive ? v.recv(g) : v.send(g);
    if (role < vpcat::kNicBase) continue;
    const auto k = static_cast<std::uint32_t>(role - vpcat::kNicBase);
    const double port = t.component(t.nic(k)).nic_gbps();
    expect(port > 0);
    load[k] += (receive ? t.route(t.nic(k), t.gpu(g)) : t.route(t.gpu(g), t.nic(k))).solo_gbps();
    expect(load[k] <= port * (1 + 1e-9));
  }
}

std::uint64_t walk_node_type(const vpcat::NodeTypeView& t) {
  std::uint64_t sum = t.name().size() + t.group_order().size() + t.patterns_represented().size();
  for (std::uint32_t c = 0; c < t.component_count(); ++c) {
    const vpcat::ComponentView v = t.component(c);
    sum += static_cast<std::uint64_t>(v.kind()) + v.parent() + v.local_index() + v.orbit() + v.name().size() +
           v.model().size() + v.pci_bus_id().size() + v.device_name().size() + v.gpudirect();
    expect(v.forward_gbps() >= 0 && v.nic_gbps() >= 0);
    expect(v.orbit() <= c);
  }
  for (std::uint32_t l = 0; l < t.link_count(); ++l) {
    const vpcat::LinkView v = t.link(l);
    expect(t.find_link(v.src(), v.dst()) == l);
    expect(t.link(v.reverse()).reverse() == l);
    sum += v.orbit() + static_cast<std::uint64_t>(v.kind());
    expect(v.capacity_gbps() > 0);
  }
  const std::uint32_t first = t.first_gpu();
  for (std::uint32_t a = first; a < t.component_count(); ++a)
    for (std::uint32_t z = first; z < t.component_count(); ++z) {
      if (a == z) continue;
      const vpcat::RouteView r = t.route(a, z);
      expect(r.from() == a && r.to() == z && r.link_count() >= 1);
      expect(r.link_count() < t.component_count());  // a path visits no component twice
      expect(t.link(r.link(0)).src() == a && t.link(r.link(r.link_count() - 1)).dst() == z);
      for (std::uint32_t k = 0; k < r.forwarder_count(); ++k) expect(r.forwarder(k) < t.component_count());
      expect(r.solo_gbps() > 0);
    }
  for (std::uint32_t g = 0; g < t.generator_count(); ++g)
    for (std::uint32_t c = 0; c < t.component_count(); ++c)
      expect(t.component(t.generator(g).image(c)).kind() == t.component(c).kind());
  for (std::uint32_t p = 0; p < t.pattern_count(); ++p) {
    const vpcat::PatternView v = t.pattern(p);
    sum += v.orbit_size();
    for (std::uint32_t g = 0; g < v.gpu_count(); ++g) {
      if (v.send(g) >= 0 && v.send(g) < vpcat::kNicBase) expect(v.recv(static_cast<std::uint32_t>(v.send(g))) == static_cast<std::int32_t>(g));
      sum += static_cast<std::uint32_t>(v.recv(g));
    }
    expect_ports_fit(t, v, false);
    expect_ports_fit(t, v, true);
  }
  return sum;
}

void walk_cluster(const vpcat::CatalogView& v) {
  const vpcat::FabricView f = v.fabric();
  expect(v.global_component_count() >= v.nodes_component_count() + f.switches);
  for (std::uint32_t k = 0; k < f.switches; ++k) expect(f.spine ? v.spine_uplink_gbps(k) > 0 : v.spine_uplink_gbps(k) == 0);
  std::uint64_t gpus = 0;
  for (std::uint32_t g = 0; g < v.node_group_count(); ++g) {
    const vpcat::NodeGroupView group = v.node_group(g);
    expect(group.node_type < v.node_type_count());
    // The first and the last node of every group map back to it.
    for (std::uint32_t n : {group.first_node, group.first_node + group.count - 1}) {
      const vpcat::NodeRef ref = v.node(n);
      expect(ref.group == g && ref.node_type == group.node_type);
      const vpcat::NodeTypeView t = v.node_type(ref.node_type);
      for (std::uint32_t k = 0; k < t.nic_count(); ++k) expect(v.switch_of_nic(n, k) < f.switches || f.switches == 0);
    }
    gpus += std::uint64_t{group.count} * v.node_type(group.node_type).gpu_count();
  }
  expect(gpus == v.gpu_count());
  for (std::uint32_t i = 1; i < v.default_count(); ++i) expect(v.default_at(i - 1).key < v.default_at(i).key);
  for (std::uint32_t i = 0; i < v.default_count(); ++i)
    expect(v.default_at(i).key == "nic.assume_gpudirect" ? v.default_at(i).value == 0 || v.default_at(i).value == 1
                                                          : std::isnormal(v.default_at(i).value) && v.default_at(i).value > 0);
  const vpcat::ProvenanceView p = v.provenance();
  expect(p.tool.size() + p.tool_version.size() + p.input_digest.size() + p.options.size() < v.file_size());
  for (std::uint32_t i = 0; i < v.section_count(); ++i) expect(v.section(i).offset + v.section(i).size <= v.file_size());
}

void check(const std::uint8_t* data, std::size_t size) {
  vpcat::CatalogView view;
  if (!vpcat::CatalogView::open(data, size, &view).ok()) return;
  std::uint64_t sum = 0;
  for (std::uint32_t t = 0; t < view.node_type_count(); ++t) sum += walk_node_type(view.node_type(t));
  walk_cluster(view);
  volatile std::uint64_t sink = sum;
  (void)sink;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check(data, size);
  if (size >= vpcat::header::size && size <= (std::size_t{1} << 22)) {
    std::vector<std::uint8_t> copy(data, data + size);
    reseal(copy);
    check(copy.data(), copy.size());
  }
  return 0;
}
