// NCCL topology XML importer (analyzer/src/import/nccl_import.cpp).
//
// Expectations come from reading each fixture under fixtures/real/nccl-topo/:
// GPUs are numbered in PCI bus id order, sockets in numaid order, and the
// importer synthesises one host bridge per <cpu>.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "input_error.hpp"
#include "support.hpp"
#include "vp/base/input_file.hpp"
#include "vp/import/import.hpp"
#include "vp/import/json_topology.hpp"
#include "vp/topology/errors.hpp"
#include "vp/topology/routes.hpp"

namespace {

using vp::ComponentId;
using vp::ComponentKind;
using vp::Topology;

Topology load(const std::string& name, const vp::ImportOptions& opts = {}) {
  std::string path = vp::test::fixture("real/nccl-topo/" + name);
  return vp::import_nccl_xml(path, vp::read_input_file(path), opts);
}

// The GPU path-type matrix, one line of space-separated names per GPU.
std::vector<std::string> gpu_matrix(const Topology& t) {
  std::vector<std::string> rows;
  for (const auto& row : vp::path_type_matrix(t)) {
    std::string line;
    for (vp::PathType p : row) line += (line.empty() ? "" : " ") + std::string(vp::to_string(p));
    rows.push_back(line);
  }
  return rows;
}

// Local index of the socket above component c.
int socket_of(const Topology& t, ComponentId c) {
  while (t.components[c].parent != vp::kNone) c = t.components[c].parent;
  return t.components[c].local_index;
}

std::vector<std::string> gpu_bus_ids(const Topology& t) {
  std::vector<std::string> ids;
  for (ComponentId g : t.gpus) ids.push_back(t.components[g].pci_bus_id);
  return ids;
}

std::vector<int> gpu_sockets(const Topology& t) {
  std::vector<int> s;
  for (ComponentId g : t.gpus) s.push_back(socket_of(t, g));
  return s;
}

struct Counts {
  std::size_t gpus, nics, sockets, host_bridges, switches;
  friend bool operator==(const Counts&, const Counts&) = default;
};
Counts counts(const Topology& t) {
  return {t.gpus.size(), t.nics.size(), t.sockets.size(), t.host_bridges.size(), t.switches.size()};
}

std::string import_error(const std::string& path, const std::string& content) {
  return vp::test::message_of([&] { vp::import_nccl_xml(path, content, {}); });
}

// Capacity of the link from c to its PCIe parent.
double uplink_gbps(const Topology& t, ComponentId c) {
  return t.links[t.find_link(c, t.components[c].parent)].capacity.gbps;
}

}  // namespace

TEST_CASE("nccl: Azure NDv4, 8 A100 on 4 NUMA nodes, 2 GPUs + 2 NICs per virtual switch") {
  Topology t = load("azure-ndv4-topo.xml");
  CHECK(counts(t) == Counts{8, 8, 4, 4, 4});
  CHECK(gpu_bus_ids(t) == std::vector<std::string>{"0001:00:00.0", "0002:00:00.0", "0003:00:00.0", "0004:00:00.0",
                                                   "000b:00:00.0", "000c:00:00.0", "000d:00:00.0", "000e:00:00.0"});
  // numaid 1 holds 0001/0002, numaid 0 holds 0003/0004, numaid 3 holds 000b/000c, numaid 2 000d/000e.
  CHECK(gpu_sockets(t) == std::vector<int>{1, 1, 0, 0, 3, 3, 2, 2});
  CHECK(gpu_matrix(t) == std::vector<std::string>{
                             "LOC PIX SYS SYS SYS SYS SYS SYS",
                             "PIX LOC SYS SYS SYS SYS SYS SYS",
                             "SYS SYS LOC PIX SYS SYS SYS SYS",
                             "SYS SYS PIX LOC SYS SYS SYS SYS",
                             "SYS SYS SYS SYS LOC PIX SYS SYS",
                             "SYS SYS SYS SYS PIX LOC SYS SYS",
                             "SYS SYS SYS SYS SYS SYS LOC PIX",
                             "SYS SYS SYS SYS SYS SYS PIX LOC",
                         });
  // The Azure virtual bridges (ffff:ff:xx.x) are switch-like groupings.
  const vp::Component& sw = t.components[t.switches[0]];
  CHECK(sw.pci_bus_id == "ffff:ff:01.0");
  CHECK(t.components[sw.parent].kind == ComponentKind::host_bridge);
  CHECK(t.components[t.nics[0]].pci_class == 0x020700);
  // No <net> and no PCI ids: the line rate of an unknown NIC model is assumed.
  CHECK(t.components[t.nics[0]].line_rate_gbitps == 100.0);
  CHECK(t.warnings ==
        std::vector<std::string>{
            "line rate of 8 NICs assumed: 100 Gb/s per port (no <net speed>, PCI ids of no known model)",
            "GPUDirect RDMA of 8 RDMA NICs (InfiniBand class or Mellanox ids, no known model) not stated by the "
            "input: assumed capable (nic.assume_gpudirect=1; --set nic.assume_gpudirect=0 if not)"});
  // No <net gdr>: an InfiniBand NIC (class 0x0207) is taken as GPUDirect capable.
  for (ComponentId n : t.nics) CHECK(t.components[n].gpudirect);
  CHECK(t.components[t.sockets[0]].cpu_family == "amd");
  CHECK(uplink_gbps(t, t.gpus[0]) == 24.0);  // 16 GT/s x16
  CHECK(t.nodes == std::vector<vp::NodeInfo>{{"node0", "azure-ndv4-topo"}});
}

TEST_CASE("nccl: Azure NDv2, GPUs directly below two Skylake sockets, one NIC") {
  Topology t = load("azure-ndv2-topo.xml");
  CHECK(counts(t) == Counts{8, 1, 2, 2, 0});
  CHECK(gpu_sockets(t) == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});
  CHECK(gpu_matrix(t) == std::vector<std::string>{
                             "LOC PHB PHB PHB SYS SYS SYS SYS",
                             "PHB LOC PHB PHB SYS SYS SYS SYS",
                             "PHB PHB LOC PHB SYS SYS SYS SYS",
                             "PHB PHB PHB LOC SYS SYS SYS SYS",
                             "SYS SYS SYS SYS LOC PHB PHB PHB",
                             "SYS SYS SYS SYS PHB LOC PHB PHB",
                             "SYS SYS SYS SYS PHB PHB LOC PHB",
                             "SYS SYS SYS SYS PHB PHB PHB LOC",
                         });
  CHECK(socket_of(t, t.nics[0]) == 0);
  CHECK(t.components[t.sockets[0]].cpu_family == "intel_skylake");  // family 6 model 85
  vp::LinkId across = t.find_link(t.sockets[0], t.sockets[1]);
  REQUIRE(across != vp::kNone);
  CHECK(t.links[across].capacity.gbps == t.defaults.inter_socket_gbps.at("intel_skylake"));
}

TEST_CASE("nccl: Azure NDv5, one GPU + one NIC per virtual switch, 4 switches per socket") {
  Topology t = load("azure-ndv5-topo.xml");
  CHECK(counts(t) == Counts{8, 8, 2, 2, 8});
  CHECK(gpu_bus_ids(t) == std::vector<std::string>{"0001:00:00.0", "0002:00:00.0", "0003:00:00.0", "0008:00:00.0",
                                                   "0009:00:00.0", "000a:00:00.0", "000b:00:00.0", "000c:00:00.0"});
  CHECK(gpu_sockets(t) == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1});
  CHECK(gpu_matrix(t) == std::vector<std::string>{
                             "LOC PHB PHB PHB SYS SYS SYS SYS",
                             "PHB LOC PHB PHB SYS SYS SYS SYS",
                             "PHB PHB LOC PHB SYS SYS SYS SYS",
                             "PHB PHB PHB LOC SYS SYS SYS SYS",
                             "SYS SYS SYS SYS LOC PHB PHB PHB",
                             "SYS SYS SYS SYS PHB LOC PHB PHB",
                             "SYS SYS SYS SYS PHB PHB LOC PHB",
                             "SYS SYS SYS SYS PHB PHB PHB LOC",
                         });
  for (ComponentId g : t.gpus) CHECK(vp::path_type(t, g, vp::nearest_nic(t, g)) == vp::PathType::PIX);
  CHECK(t.components[t.sockets[0]].cpu_family == "intel_sapphire_rapids");  // model 143 = 0x8f
  CHECK(uplink_gbps(t, t.gpus[0]) == 48.0);                                 // "32.0 GT/s PCIe" x16
}

TEST_CASE("nccl: Azure NCv4, one A100 per NUMA node and a NIC without a PCI location") {
  Topology t = load("azure-ncv4-topo.xml");
  CHECK(counts(t) == Counts{4, 1, 4, 4, 0});
  CHECK(gpu_sockets(t) == std::vector<int>{0, 1, 2, 3});
  CHECK(gpu_matrix(t) == std::vector<std::string>{
                             "LOC SYS SYS SYS",
                             "SYS LOC SYS SYS",
                             "SYS SYS LOC SYS",
                             "SYS SYS SYS LOC",
                         });
  const vp::Component& nic = t.components[t.nics[0]];
  CHECK(nic.pci_bus_id.empty());
  CHECK(t.components[nic.parent].kind == ComponentKind::host_bridge);
  CHECK(socket_of(t, nic.id) == 0);
  CHECK(nic.device_name == "eth0");
  CHECK(nic.line_rate_gbitps == 100.0);
  CHECK(nic.ports == 1);
  CHECK_FALSE(nic.gpudirect);
  CHECK(t.components[t.gpus[2]].device_name == "cuda2");
  CHECK(t.components[t.gpus[0]].pci_device == 0x20b5);
  // link_speed="" link_width="0": the default table's unknown generation and width.
  CHECK(t.links[t.find_link(t.gpus[0], t.components[t.gpus[0]].parent)].capacity == t.defaults.pcie(0, 0));
  // 6 inter-socket links (12 directed) join the 4 sockets pairwise.
  std::size_t inter = 0;
  for (const vp::Link& l : t.links) inter += l.kind == vp::LinkKind::inter_socket;
  CHECK(inter == 12);
  CHECK(t.warnings == std::vector<std::string>{"NVLink connections are ignored (the model is PCIe only)"});
}

TEST_CASE("nccl: AWS p4d and p4de, 2 GPUs + 1 EFA per switch, 2 switches per socket") {
  for (const char* name : {"aws-p4d-24xl-topo.xml", "aws-p4de-24xl-topo.xml"}) {
    CAPTURE(name);
    Topology t = load(name);
    CHECK(counts(t) == Counts{8, 4, 2, 2, 4});
    CHECK(gpu_bus_ids(t) == std::vector<std::string>{"0000:10:1c.0", "0000:10:1d.0", "0000:20:1c.0", "0000:20:1d.0",
                                                     "0000:90:1c.0", "0000:90:1d.0", "0000:a0:1c.0", "0000:a0:1d.0"});
    CHECK(gpu_matrix(t) == std::vector<std::string>{
                               "LOC PIX PHB PHB SYS SYS SYS SYS",
                               "PIX LOC PHB PHB SYS SYS SYS SYS",
                               "PHB PHB LOC PIX SYS SYS SYS SYS",
                               "PHB PHB PIX LOC SYS SYS SYS SYS",
                               "SYS SYS SYS SYS LOC PIX PHB PHB",
                               "SYS SYS SYS SYS PIX LOC PHB PHB",
                               "SYS SYS SYS SYS PHB PHB LOC PIX",
                               "SYS SYS SYS SYS PHB PHB PIX LOC",
                           });
    // No <net>: what 1d0f:efa0 implies (EFA, 100 Gb/s, GPUDirect RDMA).
    const vp::Component& efa = t.components[t.nics[0]];
    CHECK(efa.pci_vendor == 0x1d0f);
    CHECK(efa.model == "EFA");
    CHECK(efa.line_rate_gbitps == 100.0);
    CHECK(efa.gpudirect);
    CHECK(uplink_gbps(t, t.gpus[0]) == 12.0);  // 8 GT/s x16
    CHECK(t.warnings.empty());
  }
}

TEST_CASE("nccl: AWS p5 full dump, one socket, 8 switches with 1 H100 + 4 EFA each") {
  Topology t = load("aws-p5.48xl-topo.xml");
  CHECK(counts(t) == Counts{8, 32, 1, 1, 8});
  std::vector<std::string> all_phb;
  for (int i = 0; i < 8; ++i) {
    std::string row;
    for (int j = 0; j < 8; ++j) row += std::string(j ? " " : "") + (i == j ? "LOC" : "PHB");
    all_phb.push_back(row);
  }
  CHECK(gpu_matrix(t) == all_phb);
  const vp::Component& nic = t.components[t.nics[0]];
  CHECK(nic.pci_bus_id == "0000:50:00.0");
  CHECK(nic.device_name == "rdmap79s0");
  CHECK(nic.line_rate_gbitps == 100.0);
  CHECK(nic.ports == 1);
  CHECK(nic.gpudirect);
  CHECK(t.components[t.gpus[7]].device_name == "cuda7");
  CHECK(uplink_gbps(t, t.gpus[0]) == 48.0);      // 32.0 GT/s x16
  CHECK(uplink_gbps(t, nic.id) == 12.0);         // 16.0 GT/s x8
  CHECK(uplink_gbps(t, t.switches[0]) == 24.0);  // 16.0 GT/s x16
  const vp::Component& hb = t.components[t.host_bridges[0]];
  CHECK(hb.forward->gbps == 24.0);  // fastest root-port link, factor 1
  CHECK(t.components[t.sockets[0]].forward->gbps == 24.0);
  CHECK(uplink_gbps(t, hb.id) == 8 * 24.0);  // sum of the 8 switch uplinks
  CHECK(t.components[t.sockets[0]].cpu_family == "amd");
  CHECK(t.warnings.empty());
}

TEST_CASE("nccl: the node type defaults to the file stem, ImportOptions::node_type overrides it") {
  vp::ImportOptions opts;
  opts.node_type = "ndv2";
  CHECK(load("azure-ndv2-topo.xml", opts).nodes == std::vector<vp::NodeInfo>{{"node0", "ndv2"}});
}

TEST_CASE("nccl: hint files that name no GPUs are refused with advice") {
  const std::string advice =
      ": names no GPUs: this is an NCCL topology hint file (bus ids to merge with NCCL's live detection), not a "
      "full topology; run vp-analyze on the machine itself (--probe) or give a full dump (NCCL_TOPO_DUMP_FILE)";
  for (const char* name : {"aws-g5.48xl-topo.xml", "aws-p5.48xl-topo-2023.xml"}) {
    std::string path = vp::test::fixture(std::string("real/nccl-topo/") + name);
    CHECK(import_error(path, vp::read_input_file(path)) == path + advice);
  }
}

TEST_CASE("nccl: an NCCL graph file is not a topology") {
  std::string path = vp::test::fixture("real/nccl-topo/azure-ncv4-graph.xml");
  CHECK(import_error(path, vp::read_input_file(path)) ==
        path +
            ":1: root element <graphs>, expected <system> (an NCCL topology: NCCL_TOPO_DUMP_FILE output or an "
            "NCCL_TOPO_FILE)");
}

TEST_CASE("nccl: malformed and truncated XML report pugixml's reason and the line") {
  std::string ndv2 = vp::read_input_file(vp::test::fixture("real/nccl-topo/azure-ndv2-topo.xml"));
  // Cut where the second <cpu> begins, on line 9: <system> is never closed.
  std::string truncated = ndv2.substr(0, ndv2.find("<cpu numaid=\"1\""));
  CHECK(import_error("t.xml", truncated) == "t.xml:9: malformed XML (Start-end tags mismatch)");
  CHECK(import_error("m.xml", "<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:01:00.0\" <\n") ==
        "m.xml:3: malformed XML (Error parsing start element tag)");
}

TEST_CASE("nccl: bad elements and attributes name their line") {
  auto system = [](const std::string& body) {
    return "<system version=\"1\">\n  <cpu numaid=\"0\">\n" + body + "  </cpu>\n</system>\n";
  };
  const std::string gpu = "    <pci busid=\"0000:01:00.0\" class=\"0x030200\"/>\n";
  CHECK(import_error("d.xml", system(gpu + gpu)) == "d.xml:4: duplicate PCI bus id 0000:01:00.0 (first at line 3)");
  // Bus ids compare in lower case.
  CHECK(import_error("d.xml", system("    <pci busid=\"0000:0a:00.0\" class=\"0x030200\"/>\n"
                                     "    <pci busid=\"0000:0A:00.0\" class=\"0x020000\"/>\n")) ==
        "d.xml:4: duplicate PCI bus id 0000:0a:00.0 (first at line 3)");
  CHECK(import_error("b.xml", system("    <pci class=\"0x030200\"/>\n")) == "b.xml:3: <pci> without busid");
  CHECK(import_error("b.xml", system("    <pci busid=\"1:2:3\" class=\"0x030200\"/>\n")) ==
        "b.xml:3: busid \"1:2:3\" is not a PCI address (DDDD:BB:DD.F, device 00-1f, function 0-7)");
  // Device and function are 5 and 3 bits: the JSON importer refuses more,
  // so the topology this importer accepts always prints as JSON it reads back.
  CHECK(import_error("f.xml", system("    <pci busid=\"0005:00:00.9\" class=\"0x030200\"/>\n")) ==
        "f.xml:3: busid \"0005:00:00.9\" is not a PCI address (DDDD:BB:DD.F, device 00-1f, function 0-7)");
  CHECK(import_error("f.xml", system("    <pci busid=\"0005:00:20.0\" class=\"0x030200\"/>\n")) ==
        "f.xml:3: busid \"0005:00:20.0\" is not a PCI address (DDDD:BB:DD.F, device 00-1f, function 0-7)");
  CHECK(import_error("c.xml", system("    <pci busid=\"0000:01:00.0\" class=\"GPU\"/>\n")) ==
        "c.xml:3: <pci class=\"GPU\">: not a 24-bit hexadecimal number");
  CHECK(import_error("w.xml", system("    <pci busid=\"0000:01:00.0\" class=\"0x030200\" link_width=\"x16\"/>\n")) ==
        "w.xml:3: <pci link_width=\"x16\">: not an integer");
  CHECK(import_error("g.xml", system("    <pci busid=\"0000:01:00.0\" class=\"0x030200\">\n"
                                     "      <pci busid=\"0000:02:00.0\" class=\"0x030200\"/>\n"
                                     "    </pci>\n")) ==
        "g.xml:3: 0000:01:00.0 has PCI devices below it, but only bridges can");
  CHECK(import_error("n.xml", "<system version=\"1\">\n  <cpu>\n  </cpu>\n</system>\n") ==
        "n.xml:2: <cpu> without numaid");
  CHECK(import_error("n.xml", "<system version=\"1\">\n  <cpu numaid=\"0\"/>\n  <cpu numaid=\"0\"/>\n</system>\n") ==
        "n.xml:3: duplicate <cpu numaid=\"0\"> (first at line 2)");
}

TEST_CASE("nccl: devices that are neither GPU, NIC nor a bridge above one are skipped with a warning") {
  vp::test::TempDir dir;
  std::string path = dir.write("nvme.xml",
                               "<system version=\"1\">\n"
                               "  <cpu numaid=\"0\" vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"207\">\n"
                               "    <pci busid=\"0000:17:00.0\" class=\"0x060400\" link_speed=\"32.0 GT/s PCIe\" "
                               "link_width=\"16\">\n"
                               "      <pci busid=\"0000:18:00.0\" class=\"0x030200\" link_speed=\"32.0 GT/s PCIe\" "
                               "link_width=\"16\"/>\n"
                               "      <pci busid=\"0000:19:00.0\" class=\"0x010802\"/>\n"
                               "    </pci>\n"
                               "    <pci busid=\"0000:20:00.0\" class=\"0x060400\"/>\n"
                               "  </cpu>\n"
                               "</system>\n");
  Topology t = vp::import_nccl_xml(path, vp::read_input_file(path), {});
  CHECK(counts(t) == Counts{1, 0, 1, 1, 1});
  CHECK(t.components[t.sockets[0]].cpu_family == "intel_emerald_rapids");
  CHECK(t.warnings == std::vector<std::string>{
                          "line 5: ignored PCI device 0000:19:00.0 (class 0x010802): no GPU or NIC",
                          "line 7: ignored PCI device 0000:20:00.0 (class 0x060400): no GPU or NIC",
                      });
}

TEST_CASE("nccl: unstated GPUDirect RDMA of an RDMA NIC follows nic.assume_gpudirect; a stated gdr wins") {
  // Azure NDv5: no <net> elements, InfiniBand-class NICs without PCI ids.
  vp::ImportOptions off;
  off.defaults.set("nic.assume_gpudirect", 0, "--set");
  Topology t = load("azure-ndv5-topo.xml", off);
  REQUIRE(!t.nics.empty());
  for (ComponentId n : t.nics) CHECK(!t.components[n].gpudirect);
  CHECK(t.warnings.back() ==
        "GPUDirect RDMA of 8 RDMA NICs (InfiniBand class or Mellanox ids, no known model) not stated by the input: "
        "taken as absent (nic.assume_gpudirect=0; --set nic.assume_gpudirect=1 if not)");
  Topology on = load("azure-ndv5-topo.xml");
  for (ComponentId n : on.nics) CHECK(on.components[n].gpudirect);

  // A <net gdr="0"> is a statement: no guess, no warning about it.
  const std::string doc = R"(<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="1">
    <pci busid="0000:03:00.0" class="0x030200" vendor="0x10de" device="0x26b9" link_speed="16.0 GT/s PCIe" link_width="16"/>
    <pci busid="0000:05:00.0" class="0x020700" link_speed="16.0 GT/s PCIe" link_width="16">
      <nic><net name="ib0" dev="0" speed="200000" port="1" GDR_ATTR/></nic>
    </pci>
  </cpu>
</system>
)";
  auto import = [&](const std::string& gdr) {
    std::string text = doc;
    text.replace(text.find("GDR_ATTR"), 8, gdr);
    return vp::import_nccl_xml("mini.xml", text, {});
  };
  Topology stated = import("gdr=\"0\"");
  CHECK(!stated.components[stated.nics[0]].gpudirect);
  CHECK(stated.warnings.empty());
  Topology unstated = import("");
  CHECK(unstated.components[unstated.nics[0]].gpudirect);
  CHECK(unstated.warnings.size() == 1);
}

TEST_CASE("nccl: a warning quoting bytes that are not UTF-8 escapes them, so the topology still prints as JSON") {
  // Found by tests/fuzz/nccl_fuzz.cpp: vp-analyze topology --json ended in
  // nlohmann's type_error 316 (exit 4) on link_speed="\xbe GT/s".
  const std::string doc = "<system version=\"1\">\n"
                          "  <cpu numaid=\"0\" arch=\"x86_64\" vendor=\"AuthenticAMD\" familyid=\"25\" modelid=\"1\">\n"
                          "    <pci busid=\"0000:03:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x26b9\" "
                          "link_speed=\"\xbe GT/s\" link_width=\"16\"/>\n"
                          "  </cpu>\n</system>\n";
  Topology t = vp::import_nccl_xml("mini.xml", doc, {});
  REQUIRE(!t.warnings.empty());
  CHECK(t.warnings.front() == "line 3: link_speed \"\\xbe GT/s\" not understood: PCIe generation unknown");
  CHECK_NOTHROW((void)vp::topology_to_json(t).dump());
}
