// Hostile inputs the importers must refuse as bad input, never crash on or
// pass on to the catalog writer: deep nesting,
// out-of-range enum values, numbers beyond a double, bytes that are not text,
// trees deeper than a catalog holds, clusters too large to allocate.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "input_error.hpp"
#include "support.hpp"
#include "vp/import/import.hpp"
#include "vp/import/cluster_spec.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/errors.hpp"

namespace {

using vp::test::fixture;
using vp::test::TempDir;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

using vp::test::message_of;

// An NCCL dump with `bridges` nested bridges and a GPU at the bottom.
std::string nested_nccl(int bridges) {
  std::string text = "<system version=\"1\">\n<cpu numaid=\"0\" arch=\"x86_64\" vendor=\"AuthenticAMD\">\n";
  for (int i = 0; i < bridges; ++i) {
    char id[16];
    std::snprintf(id, sizeof id, "%04x:%02x:00.0", i / 256, i % 256);
    text += std::string("<pci busid=\"") + id + "\" class=\"0x060400\">\n";
  }
  text += "<pci busid=\"ffff:00:00.0\" class=\"0x030200\" link_speed=\"16 GT/s\" link_width=\"16\"/>\n";
  for (int i = 0; i < bridges; ++i) text += "</pci>\n";
  return text + "</cpu>\n</system>\n";
}

// The small vp JSON document of cli_test.cpp: one socket, a host bridge, two GPUs.
const std::string kMini = R"({
  "format": "vp-topology",
  "version": 1,
  "nodes": [{"name": "node0", "type": "mini"}],
  "components": [
    {"id": 0, "kind": "cpu", "cpu_family": "amd"},
    {"id": 1, "kind": "host_bridge", "parent": 0},
    {"id": 2, "kind": "gpu", "parent": 1, "pci_bus_id": "0000:03:00.0", "model": "MODEL"},
    {"id": 3, "kind": "gpu", "parent": 1, "pci_bus_id": "0000:04:00.0"}
  ],
  "links": [
    {"id": 0, "src": 1, "dst": 0, "kind": "pcie", "capacity_gbps": 48},
    {"id": 1, "src": 2, "dst": 1, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16},
    {"id": 2, "src": 3, "dst": 1, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16}
  ]
}
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("nccl: 22,000 nested <pci> levels are refused at the depth a catalog holds, without recursing") {
  CHECK(message_of([] { vp::import_nccl_xml("deep.xml", nested_nccl(22000), {}); }) ==
        "deep.xml:34: <pci> nested 32 levels deep: a catalog holds PCIe trees of at most 32 levels below the socket "
        "(the root complex is one)");
  // 31 bridges and a GPU: the GPU is 33 steps below its socket, one too many
  // (the writer used to refuse it after the import had accepted it).
  CHECK(message_of([] { vp::import_nccl_xml("deep.xml", nested_nccl(31), {}); }).rfind("deep.xml:34: <pci> nested 32", 0) ==
        0);
  // 30 bridges: 32 steps, the most a catalog holds.
  CHECK(vp::import_nccl_xml("ok.xml", nested_nccl(30), {}).gpus.size() == 1);
}

TEST_CASE("vp JSON: a 5,000-deep switch chain is refused by the importer, not by the writer") {
  std::string components = R"({"id": 0, "kind": "cpu"}, {"id": 1, "kind": "host_bridge", "parent": 0})";
  std::string links = R"({"id": 0, "src": 1, "dst": 0, "kind": "pcie", "capacity_gbps": 48})";
  const int depth = 5000;
  for (int i = 0; i < depth; ++i) {
    components += ", {\"id\": " + std::to_string(2 + i) + ", \"kind\": \"pcie_switch\", \"parent\": " + std::to_string(1 + i) + "}";
    links += ", {\"id\": " + std::to_string(1 + i) + ", \"src\": " + std::to_string(2 + i) + ", \"dst\": " +
             std::to_string(1 + i) + ", \"kind\": \"pcie\", \"capacity_gbps\": 48}";
  }
  components += ", {\"id\": " + std::to_string(2 + depth) + ", \"kind\": \"gpu\", \"parent\": " + std::to_string(1 + depth) + "}";
  links += ", {\"id\": " + std::to_string(1 + depth) + ", \"src\": " + std::to_string(2 + depth) + ", \"dst\": " +
           std::to_string(1 + depth) + ", \"kind\": \"pcie\", \"capacity_gbps\": 48}";
  std::string doc = R"({"format": "vp-topology", "version": 1, "nodes": [{"name": "node0", "type": "chain"}], "components": [)" + components + R"(], "links": [)" +
                    links + "]}";
  std::string message = message_of([&] { vp::import_json("chain.json", doc, {}); });
  CHECK(message == "chain.json: component 33 (pcie_switch): 33 PCIe levels below its socket, more than the 32 a "
                   "catalog holds");
}

TEST_CASE("hwloc: a bridge_type outside hwloc's enum is bad input (it was loaded as the enum: undefined behaviour)") {
  TempDir dir;
  std::string xml = replaced(slurp(fixture("real/hwloc-xml/nixl-g6.48xl-topo.xml")), "bridge_type=\"1-1\"",
                             "bridge_type=\"5-1\"");
  std::string path = dir.write("bad-bridge.xml", xml);
  CHECK(message_of([&] { vp::import_hwloc_xml(path, {}); }) ==
        path + ": bridge (gp_index 707): bridge_type \"5-1\" is not a hwloc bridge type (0 host, 1 PCI)");
}

TEST_CASE("1e999 in a JSON topology, a cluster description or a --defaults file is bad input at its place") {
  CHECK(message_of([] { vp::import_json("t.json", replaced(kMini, "\"capacity_gbps\": 48", "\"capacity_gbps\": 1e999"), {}); }) ==
        "t.json:12:68: number 1e999 is out of range (beyond a double)\n"
        "    {\"id\": 0, \"src\": 1, \"dst\": 0, \"kind\": \"pcie\", \"capacity_gbps\": 1e999},\n"
        "                                                                   ^");
  TempDir dir;
  std::string d = dir.write("d.json", "{\n  \"pcie.gen4\": -1e999\n}\n");
  vp::CapacityDefaults defaults;
  CHECK(message_of([&] { defaults.load_file(d); }) == d +
                                                     ":2:16: number -1e999 is out of range (beyond a double)\n"
                                                     "  \"pcie.gen4\": -1e999\n"
                                                     "               ^");
  dir.write("mini.json", kMini);
  std::string c = dir.write("c.json", R"({"format": "vp-cluster", "version": 1,
  "node_types": [{"name": "mini", "input": "mini.json"}],
  "nodes": [{"type": "mini", "count": 2}],
  "fabric": {"kind": "single_switch", "nic_gbitps": 1e999}})");
  CHECK(message_of([&] { vp::load_cluster_spec(c, nullptr, {}); }) ==
        c + ":4:53: number 1e999 is out of range (beyond a double)\n"
            "  \"fabric\": {\"kind\": \"single_switch\", \"nic_gbitps\": 1e999}}\n"
            "                                                    ^");
}

TEST_CASE("strings that are not text: non-UTF-8 bytes and control characters are refused, and never echoed raw") {
  // \u0000 in a model name (vp JSON).
  CHECK(message_of([] { vp::import_json("t.json", replaced(kMini, "MODEL", "A10\\u0000x"), {}); }) ==
        "t.json: component 2 (gpu): model is not text: byte 0x00 at offset 3 is a control character");
  // A non-UTF-8 NIC device name in NCCL XML.
  std::string nccl = R"(<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="AuthenticAMD">
    <pci busid="0000:03:00.0" class="0x030200" link_speed="16 GT/s" link_width="16"/>
    <pci busid="0000:05:00.0" class="0x020700" link_speed="16 GT/s" link_width="16">
      <nic><net name="mlx5_)" "\xff" R"(" speed="200000" gdr="1"/></nic>
    </pci>
  </cpu>
</system>
)";
  CHECK(message_of([&] { vp::import_nccl_xml("n.xml", nccl, {}); }) ==
        "n.xml: component 3 (nic): device_name is not text: byte 0xff at offset 5 is not valid UTF-8");
  // A non-UTF-8 NIC name in nvidia-smi's legend.
  std::string smi = slurp(fixture("nvidia-smi/nvlink-bridges-2s4g2n.txt"));
  smi = replaced(smi, "NIC1: mlx5_1", "NIC1: mlx5_\xc3");
  std::string message = message_of([&] { vp::import_nvidia_smi("s.txt", smi, {}); });
  CHECK(message.find("device_name is not text: byte 0xc3 at offset 5 is not valid UTF-8") != std::string::npos);
  // An attribute echoed in a message: the invalid byte is escaped.
  std::string bad_bus = replaced(nccl, "0000:03:00.0", "0000:03:00.\xfe");
  CHECK(message_of([&] { vp::import_nccl_xml("n.xml", bad_bus, {}); }) ==
        "n.xml:3: busid \"0000:03:00.\\xfe\" is not a PCI address (DDDD:BB:DD.F, device 00-1f, function 0-7)");
}

TEST_CASE("a duplicate bus id found before components are named says which components") {
  vp::Topology t;
  t.nodes.push_back({"node0", "x"});
  vp::ComponentId cpu = t.add_component(vp::ComponentKind::cpu, 0);
  vp::ComponentId hb = t.add_component(vp::ComponentKind::host_bridge, 0);
  t.components[hb].parent = cpu;
  vp::Capacity cap{24.0, vp::CapacitySource::input, "test"};
  t.add_duplex_link(hb, cpu, vp::LinkKind::pcie, cap);
  for (int i = 0; i < 2; ++i) {
    vp::ComponentId g = t.add_component(vp::ComponentKind::gpu, 0);
    t.components[g].parent = hb;
    t.components[g].pci_bus_id = "0000:03:00.0";
    t.add_duplex_link(g, hb, vp::LinkKind::pcie, cap);
  }
  CHECK(message_of([&] { vp::finalize(t, "f"); }) ==
        "f: duplicate PCI bus id 0000:03:00.0 (gpu component 2 and gpu component 3)");
}

TEST_CASE("format detection skips a DOCTYPE with an internal subset") {
  CHECK(vp::detect_format("d.xml", "<?xml version=\"1.0\"?>\n<!DOCTYPE topology [\n  <!ENTITY x \"y\">\n]>\n"
                                   "<topology version=\"2.0\"/>\n") == vp::InputFormat::hwloc_xml);
  CHECK(vp::detect_format("d.xml", "<!DOCTYPE system [<!ELEMENT system ANY>]><system version=\"1\"/>") ==
        vp::InputFormat::nccl_xml);
}

TEST_CASE("nvidia-smi: GPU99999999999999999999 in the header is a GPU column out of order, not a NIC") {
  std::string smi = slurp(fixture("nvidia-smi/nvlink-bridges-2s4g2n.txt"));
  smi = replaced(smi, "\tGPU3\t", "\tGPU99999999999999999999\t");
  CHECK(message_of([&] { vp::import_nvidia_smi("s.txt", smi, {}); }) ==
        "s.txt:1: header: expected GPU3, got GPU99999999999999999999");
}

TEST_CASE("a cluster too large to hold is refused before it is allocated") {
  TempDir dir;
  dir.write("mini.json", kMini);
  std::string c = dir.write("c.json", R"({"format": "vp-cluster", "version": 1,
  "node_types": [{"name": "mini", "input": "mini.json"}],
  "nodes": [{"type": "mini", "count": 1000000}], "fabric": {"kind": "single_switch"}})");
  CHECK(message_of([&] { vp::load_cluster_spec(c, nullptr, {}); }) ==
        c + ": 1000000 nodes: above the limit of 32768 nodes of an analysed cluster (--max-nodes)");
  // With more nodes allowed, the components bound the cluster.
  const vp::AnalysisLimits saved = vp::analysis_limits();
  vp::analysis_limits().max_nodes = 2000000;
  CHECK(message_of([&] { vp::load_cluster_spec(c, nullptr, {}); }) ==
        c + ": 1000000 nodes of 4000000 components in all: above the limit of 2097152 components of an analysed "
            "cluster (--max-components)");
  vp::analysis_limits() = saved;
}
