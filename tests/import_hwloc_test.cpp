// The hwloc importer (analyzer/src/import/hwloc_import.cpp) on real hwloc XML.
//
// Expected values come from reading each XML (the PCI tree below every host
// bridge, the packages above them), not from the importer's output: counts of
// GPUs, NICs (functions of one device merged, SR-IOV VFs dropped), sockets
// (hwloc Packages), PCIe switches (upstream port + its downstream ports, empty
// and single-child switches dropped) and host bridges with a GPU or NIC below,
// then the full GPU x GPU path-type matrix in PCI bus-id order.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "../analyzer/src/import/hwloc_backend.hpp"
#include "../analyzer/src/import/pci_classify.hpp"
#include "input_error.hpp"
#include "support.hpp"
#include "vp/import/import.hpp"
#include "vp/topology/errors.hpp"
#include "vp/topology/routes.hpp"

namespace {

using namespace vp;

std::string hwloc_fixture(const std::string& name) { return test::fixture("real/hwloc-xml/" + name); }

Topology import_fixture(const std::string& name) { return import_hwloc_xml(hwloc_fixture(name), ImportOptions{}); }

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Counts {
  std::size_t gpus = 0, nics = 0, sockets = 0, switches = 0, host_bridges = 0;
};

void check_counts(const Topology& t, const Counts& want) {
  CHECK(t.gpus.size() == want.gpus);
  CHECK(t.nics.size() == want.nics);
  CHECK(t.sockets.size() == want.sockets);
  CHECK(t.switches.size() == want.switches);
  CHECK(t.host_bridges.size() == want.host_bridges);
}

// One row per GPU: "LOC PIX PXB ...".
std::vector<std::string> matrix_rows(const Topology& t) {
  std::vector<std::string> rows;
  for (const auto& row : path_type_matrix(t)) {
    std::string line;
    for (PathType p : row) line += (line.empty() ? "" : " ") + std::string(to_string(p));
    rows.push_back(line);
  }
  return rows;
}

// Rows for GPUs without a switch in common: same host bridge -> PHB, same
// socket -> NODE, other socket -> SYS. `hb_of[i]` and `socket_of[i]` give
// GPU i's host bridge and socket.
std::vector<std::string> rows_by_bridge(const std::vector<int>& hb_of, const std::vector<int>& socket_of) {
  std::vector<std::string> rows;
  for (std::size_t i = 0; i < hb_of.size(); ++i) {
    std::string line;
    for (std::size_t j = 0; j < hb_of.size(); ++j) {
      std::string p = i == j ? "LOC" : hb_of[i] == hb_of[j] ? "PHB" : socket_of[i] == socket_of[j] ? "NODE" : "SYS";
      line += (line.empty() ? "" : " ") + p;
    }
    rows.push_back(line);
  }
  return rows;
}

const Component& parent_of(const Topology& t, ComponentId c) { return t.components[t.components[c].parent]; }
double uplink_gbps(const Topology& t, ComponentId c) {
  return t.links[t.find_link(c, t.components[c].parent)].capacity.gbps;
}

struct Failure {
  std::string file;
  int line = -1;
  std::string reason;
};

// The InputError's fields (vp::test::input_error_of: a failed check when none).
template <typename F>
Failure failure_of(F&& f) {
  const InputError e = vp::test::input_error_of(f);
  return Failure{e.file(), e.line(), e.reason()};
}

const std::string kHwlocHint = "HWLOC_XML_VERBOSE=1 prints hwloc's diagnostics";

}  // namespace

// ---------------------------------------------------------------------------
// Machines with GPUs

TEST_CASE("hwloc DGX-2: 16 V100 behind two levels of PLX switches") {
  // 2 packages x 2 host bridges; each host bridge: root port -> top switch
  // (upstream + downstream ports) -> 2 leaf switches -> 2 GPUs each. The third
  // leaf of two top switches serves only NVSwitches (not GPUs): dropped.
  // NICs were removed from this file.
  Topology t = import_fixture("hwloc-nvidiaDGX2.xml");
  check_counts(t, {16, 0, 2, 12, 4});
  const std::string a = "LOC PIX PXB PXB", b = "PIX LOC PXB PXB", c = "PXB PXB LOC PIX", d = "PXB PXB PIX LOC";
  const std::string n4 = "NODE NODE NODE NODE", s8 = "SYS SYS SYS SYS SYS SYS SYS SYS";
  std::vector<std::string> want;
  for (const std::string& r : {a, b, c, d}) want.push_back(r + " " + n4 + " " + s8);
  for (const std::string& r : {a, b, c, d}) want.push_back(n4 + " " + r + " " + s8);
  for (const std::string& r : {a, b, c, d}) want.push_back(s8 + " " + r + " " + n4);
  for (const std::string& r : {a, b, c, d}) want.push_back(s8 + " " + n4 + " " + r);
  CHECK(matrix_rows(t) == want);

  const Component& gpu0 = t.components[t.gpus[0]];
  CHECK(gpu0.pci_bus_id == "0000:34:00.0");
  CHECK(gpu0.model == "Tesla V100-SXM3-32GB-H");
  CHECK(gpu0.device_name == "nvml0");
  CHECK(gpu0.pci_class == 0x030200u);
  const Component& leaf = parent_of(t, gpu0.id);
  const Component& top = parent_of(t, leaf.id);
  CHECK(leaf.kind == ComponentKind::pcie_switch);
  CHECK(leaf.pci_bus_id == "0000:32:00.0");
  CHECK(top.kind == ComponentKind::pcie_switch);
  CHECK(top.pci_bus_id == "0000:2c:00.0");
  CHECK(parent_of(t, top.id).kind == ComponentKind::host_bridge);
  CHECK(uplink_gbps(t, gpu0.id) == 12.0);  // 15.75 GB/s raw = Gen3 x16
  CHECK(t.warnings.empty());
}

TEST_CASE("hwloc MI300X: each GPU and one Thor 2 NIC behind their own Broadcom switch") {
  // 2 EPYC packages x 4 host bridges; each: root port -> Broadcom PEX890xx ->
  // (GPU-internal AMD bridges, single child: collapsed) MI300X (class 1200) +
  // a Thor 2 NIC. One host bridge also holds a ConnectX-6 Dx (2 functions, one
  // NIC) alone behind another Broadcom switch: collapsed. ASPEED VGA: not a GPU.
  Topology t = import_fixture("rixl-mi300x-topo.xml");
  check_counts(t, {8, 9, 2, 8, 8});
  CHECK(matrix_rows(t) == rows_by_bridge({0, 1, 2, 3, 4, 5, 6, 7}, {0, 0, 0, 0, 1, 1, 1, 1}));

  for (ComponentId g : t.gpus) {
    ComponentId nic = nearest_nic(t, g);
    CHECK(path_type(t, g, nic) == PathType::PIX);
    CHECK(t.components[nic].model == "BCM57608 Thor 2");
    CHECK(t.components[nic].gpudirect);
    CHECK(t.components[g].model == "gfx942:sramecc+:xnack-");
    CHECK(uplink_gbps(t, g) == 48.0);  // 63.0 GB/s raw = Gen5 x16
  }
  CHECK(t.components[t.gpus[0]].device_name == "opencl0d0");
  const Component& cx6 = t.components[t.nics[2]];  // bus ids: 06, 23, 30 (ConnectX), 43, ...
  CHECK(cx6.pci_bus_id == "0000:30:00.0");
  CHECK(cx6.model == "ConnectX-6 Dx");
  CHECK(cx6.ports == 2);
  CHECK(cx6.device_name == "mlx5_0");
  CHECK(parent_of(t, cx6.id).kind == ComponentKind::host_bridge);
  CHECK(uplink_gbps(t, cx6.id) == 24.0);  // its own Gen4 x16 link is slower than the switch's Gen5 uplink
  CHECK(t.warnings.empty());
}

TEST_CASE("hwloc p5.48xlarge: each H100 behind its own switch with 4 EFA and 4 ENA") {
  Topology t = import_fixture("nixl-p5.48xl-topo.xml");
  check_counts(t, {8, 64, 2, 8, 8});
  CHECK(matrix_rows(t) == rows_by_bridge({0, 1, 2, 3, 4, 5, 6, 7}, {0, 0, 0, 0, 1, 1, 1, 1}));
  std::size_t efa = 0, ena_without_gdr = 0;
  for (ComponentId n : t.nics) {
    const Component& c = t.components[n];
    efa += c.model == "EFA" && c.gpudirect && c.line_rate_gbitps == 100.0;
    ena_without_gdr += c.model == "ENA" && !c.gpudirect;
  }
  CHECK(efa == 32);
  CHECK(ena_without_gdr == 32);
  for (ComponentId g : t.gpus) {
    CHECK(parent_of(t, g).kind == ComponentKind::pcie_switch);
    CHECK(t.children[t.components[g].parent].size() == 9);  // GPU + 4 EFA + 4 ENA
    CHECK(uplink_gbps(t, g) == 48.0);
  }
  CHECK(t.warnings ==
        std::vector<std::string>{"line rate of 32 NICs ENA (1d0f:ec20) assumed: 100 Gb/s per port (hwloc reports no "
                                 "line rate)"});
}

TEST_CASE("hwloc p4d.24xlarge: 8 A100, 2 per host bridge with one EFA and one ENA") {
  // Virtualised: GPUs and NICs sit directly on 4 host buses (no bridges); the
  // OpenCL devices hang from the host bridges, not from the GPUs.
  Topology t = import_fixture("nixl-p4d.24xl-topo.xml");
  check_counts(t, {8, 8, 2, 0, 4});
  CHECK(matrix_rows(t) == rows_by_bridge({0, 0, 1, 1, 2, 2, 3, 3}, {0, 0, 0, 0, 1, 1, 1, 1}));
  const Component& gpu0 = t.components[t.gpus[0]];
  CHECK(gpu0.pci_bus_id == "0000:10:1c.0");
  CHECK(gpu0.model == "GA100 [A100 SXM4 40GB]");
  CHECK(gpu0.device_name.empty());
  CHECK(uplink_gbps(t, gpu0.id) == 24.0);  // 31.5 GB/s raw = Gen4 x16
  CHECK(t.warnings ==
        std::vector<std::string>{
            "hwloc reports no usable PCIe link speed for 8 links (first: 0000:10:00.0): assumed PCIe Gen3 x16 "
            "(pcie.unknown_gen, pcie.unknown_width)",
            "line rate of 4 NICs ENA (1d0f:ec20) assumed: 100 Gb/s per port (hwloc reports no line rate)"});
}

TEST_CASE("hwloc g6.48xlarge: 8 L4 on their own root ports, 4 per package") {
  // The ENA and the EFA share one (virtual) switch on a ninth host bridge; the
  // other switches there serve nothing and are dropped.
  Topology t = import_fixture("nixl-g6.48xl-topo.xml");
  check_counts(t, {8, 2, 2, 1, 9});
  CHECK(matrix_rows(t) == rows_by_bridge({0, 1, 2, 3, 4, 5, 6, 7}, {0, 0, 0, 0, 1, 1, 1, 1}));
  CHECK(t.components[t.gpus[0]].model == "NVIDIA L4");
  CHECK(uplink_gbps(t, t.gpus[0]) == 1.5);  // 2 GB/s raw = Gen1 x8, as the GPU reports it
  CHECK(t.warnings ==
        std::vector<std::string>{
            "8 GPUs report an implausibly slow PCIe link (first: 0000:9f:00.0 at 2 GB/s raw, below 3.9): kept as "
            "reported; an idle link trained down or a hypervisor's figure may understate it",
            "line rate of 1 NIC ENA (1d0f:ec20) assumed: 100 Gb/s per port (hwloc reports no line rate)"});
}

TEST_CASE("hwloc g5.48xlarge: 8 A10G on one root bus without CPU locality") {
  Topology t = import_fixture("nixl-g5.48xl-topo.xml");
  check_counts(t, {8, 2, 2, 0, 1});
  CHECK(matrix_rows(t) == rows_by_bridge({0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0}));
  const Component& gpu0 = t.components[t.gpus[0]];
  CHECK(gpu0.pci_bus_id == "0000:00:16.0");  // not the EC2 VGA at 00:03.0, whatever OpenCL says
  CHECK(gpu0.model == "GA102GL [A10G]");
  CHECK(parent_of(t, t.host_bridges[0]).local_index == 0);
  CHECK(t.warnings ==
        std::vector<std::string>{
            "I/O devices have no CPU locality in the input; attached to socket 0",
            "hwloc reports no usable PCIe link speed for 2 links (first: 0000:00:05.0): assumed PCIe Gen3 x16 "
            "(pcie.unknown_gen, pcie.unknown_width)",
            "8 GPUs report an implausibly slow PCIe link (first: 0000:00:16.0 at 2 GB/s raw, below 3.9): kept as "
            "reported; an idle link trained down or a hypervisor's figure may understate it",
            "line rate of 1 NIC ENA (1d0f:ec20) assumed: 100 Gb/s per port (hwloc reports no line rate)"});
}

TEST_CASE("hwloc POWER8: 4 P100, one per host bridge, 2 per socket") {
  Topology t = import_fixture("hwloc-power8gpudistances.xml");
  check_counts(t, {4, 0, 2, 0, 4});
  CHECK(matrix_rows(t) == rows_by_bridge({0, 1, 2, 3}, {0, 0, 1, 1}));
  for (std::size_t i = 0; i < t.gpus.size(); ++i) {
    CHECK(t.components[t.gpus[i]].device_name == fmt::format("cuda{}", i));  // CUDA before OpenCL and NVML
    CHECK(t.components[t.gpus[i]].model == "Tesla P100-SXM2-16GB");
  }
  CHECK(t.components[t.gpus[2]].pci_bus_id == "000a:01:00.0");
  CHECK(t.warnings.empty());
}

TEST_CASE("hwloc 24em64t: 3 Teslas on root ports, an ATI ES1000 VGA that is not a GPU") {
  // Socket 0: one Tesla, the 82576 (2 functions, 1 NIC) and a ConnectX-2
  // (class 0c06); socket 1: two Teslas on one host bridge.
  Topology t = import_fixture("hwloc-24em64t-2n6c2t-pci.xml");
  check_counts(t, {3, 2, 2, 0, 2});
  CHECK(matrix_rows(t) == std::vector<std::string>{"LOC SYS SYS", "SYS LOC PHB", "SYS PHB LOC"});
  CHECK(t.components[t.gpus[0]].model == "10de:06d2");  // no name in the file
  const Component& igb = t.components[t.nics[0]];
  CHECK(igb.model == "82576");
  CHECK(igb.ports == 2);
  CHECK(igb.device_name == "eth0");
  CHECK(t.components[t.nics[1]].model == "ConnectX-2");
  CHECK(t.components[t.nics[1]].device_name == "mlx4_0");
  CHECK(t.warnings ==
        std::vector<std::string>{"hwloc reports no usable PCIe link speed for 1 link (first: 0000:04:00.0): assumed "
                                 "PCIe Gen3 x16 (pcie.unknown_gen, pcie.unknown_width)"});
}

TEST_CASE("hwloc 32em64t: 3 Teslas and a Radeon with an OpenCL device; Matrox VGA excluded") {
  // Socket 1's root port 80:03.0 carries a Tesla (cuda0), a Radeon (opencl0d1)
  // and a ConnectX-4: root ports are not components, so all three hang from
  // the host bridge.
  Topology t = import_fixture("hwloc-32em64t-2n8c2t-pci-wholeio.xml");
  check_counts(t, {4, 2, 2, 0, 2});
  CHECK(matrix_rows(t) ==
        std::vector<std::string>{"LOC SYS SYS SYS", "SYS LOC PHB PHB", "SYS PHB LOC PHB", "SYS PHB PHB LOC"});
  CHECK(t.components[t.gpus[2]].device_name == "cuda0");
  CHECK(t.components[t.gpus[2]].model == "Tesla K40m");
  CHECK(t.components[t.gpus[3]].device_name == "opencl0d1");
  CHECK(t.components[t.gpus[3]].pci_class == 0x030000u);
  CHECK(t.components[t.gpus[0]].model == "Tesla M2075 Dual-Slot Computing Processor Module");
  CHECK(t.components[t.nics[0]].model == "ConnectX-4");  // 0000:04:00.0, before the I350 at 81:00.0
  CHECK(t.components[t.nics[0]].device_name == "mlx5_0");
  CHECK(t.components[t.nics[1]].ports == 2);
  CHECK(t.warnings ==
        std::vector<std::string>{"hwloc reports no usable PCIe link speed for 6 links (first: 0000:03:00.0): assumed "
                                 "PCIe Gen3 x16 (pcie.unknown_gen, pcie.unknown_width)"});
}

TEST_CASE("hwloc 64intel64: 2 Quadro VGA GPUs on packages outside the allowed cpuset") {
  // 8 packages (3 outside the cgroup of the process that wrote the file: kept,
  // the node's hardware matters); the GPUs are on packages P#4 and P#8.
  Topology t = import_fixture("hwloc-64intel64-3g2n+2n-irregulargroups+pci.xml");
  check_counts(t, {2, 1, 8, 0, 3});
  CHECK(matrix_rows(t) == std::vector<std::string>{"LOC SYS", "SYS LOC"});
  CHECK(t.components[t.gpus[0]].pci_bus_id == "0002:01:00.0");
  CHECK(t.components[t.gpus[1]].pci_bus_id == "0004:01:00.0");
  CHECK(t.links.size() == 2 * (8 * 7 / 2 + 3 + 3));  // socket mesh, host bridge uplinks, device links
}

TEST_CASE("hwloc: sockets are joined pairwise; bridges and sockets forward at the root-complex rate") {
  // MI300X: every host bridge's fastest link is a Broadcom switch's Gen5 x16 uplink.
  Topology t = import_fixture("rixl-mi300x-topo.xml");
  LinkId across = t.find_link(t.sockets[0], t.sockets[1]);
  REQUIRE(across != kNone);
  CHECK(t.links[across].kind == LinkKind::inter_socket);
  CHECK(t.links[across].capacity == t.defaults.inter_socket("amd"));
  CHECK(t.components[t.sockets[0]].cpu_family == "amd");
  CHECK(t.components[t.sockets[0]].model == "AMD EPYC 9534 64-Core Processor");
  for (ComponentId h : t.host_bridges) CHECK(t.components[h].forward == t.defaults.root_complex(48.0));
  for (ComponentId s : t.sockets) CHECK(t.components[s].forward == t.defaults.root_complex(48.0));
  // A host bridge's uplink to its socket is the sum of its downstream links:
  // the one with the ConnectX-6 Dx carries a switch (48) and the NIC (24).
  std::vector<double> uplinks;
  for (ComponentId h : t.host_bridges) uplinks.push_back(uplink_gbps(t, h));
  CHECK(uplinks == std::vector<double>{48, 72, 48, 48, 48, 48, 48, 48});
}

TEST_CASE("hwloc: the node is named after the XML's HostName (else node0), its type after the file stem") {
  Topology t = import_fixture("hwloc-power8gpudistances.xml");
  CHECK(t.nodes == std::vector<NodeInfo>{{"drac-12.grenoble.grid5000.fr", "hwloc-power8gpudistances"}});
  CHECK(import_fixture("nixl-g6.48xl-topo.xml").nodes == std::vector<NodeInfo>{{"node0", "nixl-g6.48xl-topo"}});
  ImportOptions opts;
  opts.node_type = "power8-4g";
  CHECK(import_hwloc_xml(hwloc_fixture("hwloc-power8gpudistances.xml"), opts).nodes[0].type == "power8-4g");
}

TEST_CASE("hwloc: a HostName that is no host name leaves node0 and says so") {
  std::string xml = slurp(hwloc_fixture("hwloc-24em64t-2n6c2t-pci.xml"));
  const std::string name = R"(name="HostName" value="mirage004")";
  const auto at = xml.find(name);
  REQUIRE(at != std::string::npos);
  xml.replace(at, name.size(), R"(name="HostName" value="mirage 004;")");
  test::TempDir dir;
  Topology t = import_hwloc_xml(dir.write("badhost.xml", xml), ImportOptions{});
  CHECK(t.nodes == std::vector<NodeInfo>{{"node0", "badhost"}});
  bool said = false;
  for (const std::string& w : t.warnings)
    said = said || w == "HostName \"mirage 004;\" is not a host name (letters, digits, '-', '.' and '_'): the node "
                        "is named node0 (name it with --hostname)";
  CHECK(said);
}

TEST_CASE("hwloc: XML v1 (hwloc 1.x) loads too") {
  // Two sockets (v1 "Socket" under NUMANode), one Tesla P40 each.
  const std::string xml = R"(<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc.dtd">
<topology>
  <object type="Machine" os_index="0" cpuset="0x00000003" complete_cpuset="0x00000003" online_cpuset="0x00000003" allowed_cpuset="0x00000003" nodeset="0x00000003" complete_nodeset="0x00000003" allowed_nodeset="0x00000003">
    <object type="NUMANode" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" online_cpuset="0x00000001" allowed_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" allowed_nodeset="0x00000001" local_memory="1073741824">
      <object type="Socket" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" online_cpuset="0x00000001" allowed_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" allowed_nodeset="0x00000001">
        <info name="CPUModel" value="Intel(R) Xeon(R) CPU E5-2650 v4 @ 2.20GHz  "/>
        <object type="PU" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" online_cpuset="0x00000001" allowed_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" allowed_nodeset="0x00000001"/>
        <object type="Bridge" bridge_type="0-1" depth="0" bridge_pci="0000:[00-01]">
          <object type="Bridge" bridge_type="1-1" depth="1" bridge_pci="0000:[01-01]" pci_busid="0000:00:02.0" pci_type="0604 [8086:6f04] [0000:0000] 01" pci_link_speed="15.753846">
            <object type="PCIDev" pci_busid="0000:01:00.0" pci_type="0302 [10de:1b38] [10de:11d9] a1" pci_link_speed="15.753846">
              <object type="OSDev" name="cuda0" osdev_type="5">
                <info name="GPUModel" value="Tesla P40"/>
              </object>
            </object>
          </object>
        </object>
      </object>
    </object>
    <object type="NUMANode" os_index="1" cpuset="0x00000002" complete_cpuset="0x00000002" online_cpuset="0x00000002" allowed_cpuset="0x00000002" nodeset="0x00000002" complete_nodeset="0x00000002" allowed_nodeset="0x00000002" local_memory="1073741824">
      <object type="Socket" os_index="1" cpuset="0x00000002" complete_cpuset="0x00000002" online_cpuset="0x00000002" allowed_cpuset="0x00000002" nodeset="0x00000002" complete_nodeset="0x00000002" allowed_nodeset="0x00000002">
        <object type="PU" os_index="1" cpuset="0x00000002" complete_cpuset="0x00000002" online_cpuset="0x00000002" allowed_cpuset="0x00000002" nodeset="0x00000002" complete_nodeset="0x00000002" allowed_nodeset="0x00000002"/>
        <object type="Bridge" bridge_type="0-1" depth="0" bridge_pci="0000:[80-81]">
          <object type="Bridge" bridge_type="1-1" depth="1" bridge_pci="0000:[81-81]" pci_busid="0000:80:02.0" pci_type="0604 [8086:6f04] [0000:0000] 01" pci_link_speed="15.753846">
            <object type="PCIDev" pci_busid="0000:81:00.0" pci_type="0302 [10de:1b38] [10de:11d9] a1" pci_link_speed="15.753846">
              <object type="OSDev" name="cuda1" osdev_type="5">
                <info name="GPUModel" value="Tesla P40"/>
              </object>
            </object>
          </object>
        </object>
      </object>
    </object>
  </object>
</topology>
)";
  test::TempDir dir;
  Topology t = import_hwloc_xml(dir.write("v1.xml", xml), ImportOptions{});
  check_counts(t, {2, 0, 2, 0, 2});
  CHECK(matrix_rows(t) == std::vector<std::string>{"LOC SYS", "SYS LOC"});
  CHECK(t.components[t.gpus[1]].device_name == "cuda1");
  CHECK(t.components[t.gpus[1]].model == "Tesla P40");
  CHECK(t.components[t.sockets[0]].model == "Intel(R) Xeon(R) CPU E5-2650 v4 @ 2.20GHz");
  CHECK(t.warnings.empty());
}

TEST_CASE("hwloc: SR-IOV virtual functions are not NICs (16intel64-manyVFs with a GPU added)") {
  // 18 PCI functions: an I350 (2 functions = 1 NIC, 2 ports) and four Cisco VIC
  // PFs (1137:0043), 12 usNIC VFs (1137:00cf, two of them with vendor 1138) in
  // their PFs' slots. The file has no GPU: one is added on socket 0's root bus.
  // Each socket's VICs sit behind two nested Cisco switches; the outer one has
  // a single child (collapsed), the inner one two NICs.
  std::string xml = slurp(hwloc_fixture("hwloc-16intel64-manyVFs.xml"));
  const std::string host_bridge = R"(bridge_type="0-1" depth="0" bridge_pci="0000:[00-15]">)";
  auto at = xml.find(host_bridge);
  REQUIRE(at != std::string::npos);
  xml.insert(at + host_bridge.size(),
             R"(<object type="PCIDev" pci_busid="0000:00:05.0" pci_type="0302 [10de:1db4] [10de:1214] a1" )"
             R"(pci_link_speed="15.753846"/>)");
  test::TempDir dir;
  Topology t = import_hwloc_xml(dir.write("manyVFs+gpu.xml", xml), ImportOptions{});
  check_counts(t, {1, 5, 2, 2, 2});
  std::vector<std::string> nics;
  for (ComponentId n : t.nics) {
    const Component& c = t.components[n];
    nics.push_back(fmt::format("{} {} x{}", c.pci_bus_id, c.device_name, c.ports));
  }
  CHECK(nics == std::vector<std::string>{"0000:02:00.0 eth0 x2", "0000:0b:00.0 usnic_0 x1", "0000:0c:00.0 usnic_1 x1",
                                         "0000:88:00.0 usnic_2 x1", "0000:89:00.0 eth7 x1"});
}

TEST_CASE("pci rules: virtual functions on a port bus, VFs alone in a virtual machine") {
  using pci::FunctionIds;
  // Intel I350 PF functions 02:00.0-1 and VFs 8086:1520 at 02:10.x behind a port.
  std::vector<FunctionIds> bus{{0, 2, 0x10, 0, 0x0200, 0x8086, 0x1520},
                               {0, 2, 0x00, 0, 0x0200, 0x8086, 0x1521},
                               {0, 2, 0x00, 1, 0x0200, 0x8086, 0x1521},
                               {0, 2, 0x10, 4, 0x0200, 0x8086, 0x1520}};
  CHECK(pci::group_nic_functions(bus, true) == std::vector<std::vector<std::size_t>>{{1, 2}});
  // A virtual machine's root bus: two ConnectX VFs in one slot and an EFA.
  std::vector<FunctionIds> vm{
      {0, 0, 5, 0, 0x0200, 0x15b3, 0x101e}, {0, 0, 5, 1, 0x0200, 0x15b3, 0x101e}, {0, 0, 6, 0, 0x0200, 0x1d0f, 0xefa1}};
  CHECK(pci::group_nic_functions(vm, false) == std::vector<std::vector<std::size_t>>{{0, 1}, {2}});
}

TEST_CASE("pci rules: which display functions are GPUs") {
  using pci::GpuVerdict;
  auto verdict = [](std::uint16_t cls, std::uint16_t vendor, std::uint16_t device, bool compute) {
    return pci::classify_gpu({0, 0, 0, 0, cls, vendor, device}, false, compute);
  };
  CHECK(verdict(0x0302, 0x10de, 0x2330, false) == GpuVerdict::gpu);                  // H100
  CHECK(verdict(0x1200, 0x1002, 0x74a1, false) == GpuVerdict::gpu);                  // MI300X
  CHECK(verdict(0x0380, 0x8086, 0x0bd5, false) == GpuVerdict::gpu);                  // Ponte Vecchio
  CHECK(verdict(0x0300, 0x10de, 0x2684, false) == GpuVerdict::gpu);                  // RTX 4090
  CHECK(verdict(0x0300, 0x1002, 0x515e, false) == GpuVerdict::vga_without_compute);  // ES1000
  CHECK(verdict(0x0300, 0x1002, 0x744c, true) == GpuVerdict::gpu);                   // Radeon with ROCm
  CHECK(verdict(0x0300, 0x1a03, 0x2000, true) == GpuVerdict::virtual_display);
  CHECK(verdict(0x0300, 0x1d0f, 0x1111, true) == GpuVerdict::virtual_display);
  CHECK(verdict(0x0680, 0x10de, 0x1ac2, false) == GpuVerdict::not_gpu_class);  // NVSwitch by class
  CHECK(pci::classify_gpu({0, 0, 0, 0, 0x0000, 0, 0}, true, false) == GpuVerdict::nvswitch);
}

// ---------------------------------------------------------------------------
// Inputs without GPUs, broken inputs

TEST_CASE("hwloc: a file without GPUs is an input error that says what it found") {
  struct Case {
    const char* file;
    const char* reason;
  };
  for (const Case& c : {
           Case{"hwloc-16intel64-manyVFs.xml", "no GPU found (18 PCI devices, none of a GPU class)"},
           Case{"local-gpuless-lstopo-2.9.0.xml", "no GPU found (2 PCI devices, none of a GPU class)"},
           Case{"local-gpuless-lstopo-2.9.0-wholeio.xml", "no GPU found (6 PCI devices, none of a GPU class)"},
           Case{"hwloc-96em64t-4n4d3ca2co-pci.xml",
                "no GPU found (14 PCI devices, none a GPU: 0000:01:00.0 [1002:515e] is a VGA controller without a "
                "compute driver)"},
       }) {
    CAPTURE(c.file);
    Failure f = failure_of([&] { import_fixture(c.file); });
    CHECK(f.file == hwloc_fixture(c.file));
    CHECK(f.line == 0);
    CHECK(f.reason == c.reason);
  }
}

TEST_CASE("hwloc: NVSwitches are never GPUs") {
  // The DGX-2 with its V100s turned into bridges (class 0680, as NVSwitches
  // are): what remains of a GPU class are the 12 NVSwitches (subtype NVSwitch).
  std::string xml = slurp(hwloc_fixture("hwloc-nvidiaDGX2.xml"));
  for (auto at = xml.find("\"0302 [10de:1db8]"); at != std::string::npos; at = xml.find("\"0302 [10de:1db8]", at))
    xml.replace(at + 1, 4, "0680");
  test::TempDir dir;
  std::string path = dir.write("dgx2-without-gpus.xml", xml);
  Failure f = failure_of([&] { import_hwloc_xml(path, ImportOptions{}); });
  CHECK(f.reason ==
        "no GPU found (28 PCI devices, none a GPU: 0000:61:00.0 [10de:1ac2] is an NVSwitch; 0000:62:00.0 [10de:1ac2] "
        "is an NVSwitch; 0000:63:00.0 [10de:1ac2] is an NVSwitch; and 9 more)");
}

TEST_CASE("hwloc: a PCI address with device above 1f or function above 7 is refused") {
  // hwloc keeps whatever pci_busid="..." says; the JSON topology and the
  // catalog would then carry an address no PCI function has.
  std::string xml = slurp(hwloc_fixture("hwloc-16intel64-manyVFs.xml"));
  const std::string host_bridge = R"(bridge_type="0-1" depth="0" bridge_pci="0000:[00-15]">)";
  auto at = xml.find(host_bridge);
  REQUIRE(at != std::string::npos);
  test::TempDir dir;
  for (const char* address : {"0000:00:05.9", "0000:00:25.0"}) {
    CAPTURE(address);
    std::string bad = xml;
    bad.insert(at + host_bridge.size(),
               fmt::format(R"(<object type="PCIDev" pci_busid="{}" pci_type="0302 [10de:1db4] [10de:1214] a1" )"
                           R"(pci_link_speed="15.753846"/>)",
                           address));
    std::string path = dir.write("bad-address.xml", bad);
    Failure f = failure_of([&] { import_hwloc_xml(path, ImportOptions{}); });
    CHECK(f.file == path);
    CHECK(f.reason.find(fmt::format("pci_busid \"{}\" is not a PCI address (device 00-1f, function 0-7)", address)) !=
          std::string::npos);
  }
}

TEST_CASE("hwloc: a topology exported without I/O says so") {
  test::TempDir dir;
  std::string xml = R"(<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" allowed_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" allowed_nodeset="0x00000001" gp_index="1">
    <object type="Package" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="2">
      <object type="NUMANode" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="3" local_memory="1073741824"/>
      <object type="PU" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="4"/>
    </object>
  </object>
</topology>
)";
  std::string path = dir.write("no-io.xml", xml);
  Failure f = failure_of([&] { import_hwloc_xml(path, ImportOptions{}); });
  CHECK(f.file == path);
  CHECK(f.reason == "no GPU found (no PCI device at all: hwloc ran without I/O discovery)");
}

TEST_CASE("hwloc: truncated, malformed and missing files are input errors") {
  // These verdicts are libxml2's: without the backend the messages say that
  // hwloc's minimalistic parser failed instead (cli_test checks those).
  const HwlocXmlBackend backend = hwloc_xml_backend();
  REQUIRE_MESSAGE(backend.libxml2, "this test needs hwloc's libxml2 XML backend (libhwloc-plugins, installed by "
                                   "scripts/install-deps.sh): it is "
                                       << backend.why_not);
  test::TempDir dir;
  std::string dgx2 = slurp(hwloc_fixture("hwloc-nvidiaDGX2.xml"));
  struct Case {
    std::string name, content, reason;
  };
  for (const Case& c : {
           Case{"half.xml", dgx2.substr(0, dgx2.size() / 2),
                "hwloc cannot load the XML (malformed XML; " + kHwlocHint + ")"},
           Case{"empty.xml", "", "hwloc cannot load the XML (malformed XML; " + kHwlocHint + ")"},
           Case{"text.xml", "GPU0 GPU1\n", "hwloc cannot load the XML (malformed XML; " + kHwlocHint + ")"},
           Case{"foreign.xml", "<?xml version=\"1.0\"?>\n<system version=\"1\"><cpu numaid=\"0\"/></system>\n",
                "hwloc cannot load the XML (not a valid hwloc topology; " + kHwlocHint + ")"},
           Case{"badtype.xml",
                "<?xml version=\"1.0\"?>\n<topology version=\"2.0\"><object type=\"Gadget\" "
                "os_index=\"0\"/></topology>\n",
                "hwloc cannot load the XML (not a valid hwloc topology; " + kHwlocHint + ")"},
       }) {
    CAPTURE(c.name);
    std::string path = dir.write(c.name, c.content);
    Failure f = failure_of([&] { import_hwloc_xml(path, ImportOptions{}); });
    CHECK(f.file == path);
    CHECK(f.line == 0);
    CHECK(f.reason == c.reason);
  }
  std::string missing = dir.path() + "/missing.xml";
  Failure f = failure_of([&] { import_hwloc_xml(missing, ImportOptions{}); });
  CHECK(f.file == missing);
  CHECK(f.reason == "cannot read the file (No such file or directory)");
}

TEST_CASE("hwloc: a file that crashes libhwloc is an input error, not a crash") {
  // libhwloc 2.9 (lstopo too) dereferences the Machine's complete_cpuset
  // without checking that the file gave one.
  std::string xml = slurp(hwloc_fixture("hwloc-power8gpudistances.xml"));
  auto at = xml.find("complete_cpuset=");
  REQUIRE(at != std::string::npos);
  xml.replace(at, 15, "complete_apuset");
  test::TempDir dir;
  std::string path = dir.write("damaged.xml", xml);
  Failure f = failure_of([&] { import_hwloc_xml(path, ImportOptions{}); });
  CHECK(f.file == path);
  CHECK(f.reason == "hwloc cannot load the XML (hwloc crashed reading it: the file is damaged)");
}

TEST_CASE("hwloc probe: a machine without a GPU is an input error about the local machine") {
  // Where GPUs are visible the probe succeeds; on a GPU-less machine (the CI
  // virtual machines) it must say so clearly.
  try {
    Topology t = probe_local_machine(ImportOptions{});
    CHECK_FALSE(t.gpus.empty());
    CHECK(t.nodes[0].type == "local");
  } catch (const InputError& e) {
    CHECK(e.file() == "local machine");
    CHECK(e.line() == 0);
    CHECK(std::regex_match(
        e.reason(), std::regex(R"(no GPU found: this machine has no GPU visible to hwloc )"
                               R"(\((\d+ PCI devices?, none (of a GPU class|a GPU: .+)|no PCI device at all: .+)\); run vp-analyze )"
                               R"(on a GPU node, or give a GPU node's topology with --input FILE .+)")));
  }
}
