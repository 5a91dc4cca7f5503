// vp-analyze as an operator meets it: the real binary, its whole messages and
// its exit codes (0 ok, 1 usage, 2 bad input). Every bad-input case a user met
// is here, each with the complete text of standard error.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"

using vp::test::fixture;
using vp::test::RunResult;
using vp::test::shell_quote;
using vp::test::TempDir;

namespace {

const std::string kBin = VP_ANALYZE_BIN;
const std::string kPlatform = fixture("platforms/pcie-gen4-2s4sw8g.json");

RunResult analyze(const std::string& args) { return vp::test::run(shell_quote(kBin) + " " + args); }
RunResult topology_of(const std::string& path, const std::string& more = "") {
  return analyze("topology --input " + shell_quote(path) + (more.empty() ? "" : " " + more));
}

// A bad input: nothing on standard output, exactly `message` on standard error, exit 2.
void check_bad_input(const RunResult& r, const std::string& message) {
  CHECK(r.exit_code == 2);
  CHECK(r.err == message);
  CHECK(r.out.empty());
}

void check_usage_error(const RunResult& r, const std::string& message) {
  CHECK(r.exit_code == 1);
  CHECK(r.err == message);
  CHECK(r.out.empty());
}

// A small valid vp-topology document: one socket, one host bridge, two GPUs.
// The bad-input cases below each change one thing in it.
const std::string kMiniTopology = R"({
  "format": "vp-topology",
  "version": 1,
  "nodes": [{"name": "node0", "type": "mini"}],
  "components": [
    {"id": 0, "kind": "cpu", "cpu_family": "amd"},
    {"id": 1, "kind": "host_bridge", "parent": 0},
    {"id": 2, "kind": "gpu", "parent": 1, "pci_bus_id": "0000:03:00.0"},
    {"id": 3, "kind": "gpu", "parent": 1, "pci_bus_id": "0000:04:00.0"}
  ],
  "links": [
    {"id": 0, "src": 1, "dst": 0, "kind": "pcie", "capacity_gbps": 48},
    {"id": 1, "src": 2, "dst": 1, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16},
    {"id": 2, "src": 3, "dst": 1, "kind": "pcie", "pcie_gen": 4, "pcie_width": 16}
  ]
}
)";

// A small valid NCCL topology dump: one socket, a switch with two GPUs and a NIC.
const std::string kMiniNccl = R"(<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="1">
    <pci busid="0000:01:00.0" class="0x060400" link_speed="16.0 GT/s PCIe" link_width="16">
      <pci busid="0000:03:00.0" class="0x030200" vendor="0x10de" device="0x26b9" link_speed="16.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="89" rank="0" gdr="1"/>
      </pci>
      <pci busid="0000:04:00.0" class="0x030200" vendor="0x10de" device="0x26b9" link_speed="16.0 GT/s PCIe" link_width="16">
        <gpu dev="1" sm="89" rank="1" gdr="1"/>
      </pci>
      <pci busid="0000:05:00.0" class="0x020000" vendor="0x15b3" device="0x101b" link_speed="16.0 GT/s PCIe" link_width="16">
        <nic>
          <net name="mlx5_0" dev="0" speed="200000" port="1" gdr="1"/>
        </nic>
      </pci>
    </pci>
  </cpu>
</system>
)";

// `text` with its one occurrence of `from` replaced by `to`.
std::string with(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find(from, at + 1) == std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("the bundled inputs are valid (the bad cases below differ from them in one thing)") {
  TempDir dir;
  RunResult json = topology_of(dir.write("mini.json", kMiniTopology));
  CHECK(json.exit_code == 0);
  CHECK(json.err == "");
  RunResult nccl = topology_of(dir.write("mini.xml", kMiniNccl));
  CHECK(nccl.exit_code == 0);
  CHECK(nccl.err == "");
}

// ---- bad input: exit code 2, one message "where: what (why)" -----------------------

TEST_CASE("truncated NCCL XML: the line where the parser stopped") {
  TempDir dir;
  std::string path = dir.write("truncated.xml", kMiniNccl.substr(0, kMiniNccl.find("<gpu dev=\"1\"") + 12));
  check_bad_input(topology_of(path), "vp-analyze: error: " + path + ":8: malformed XML (Error parsing start element tag)\n");
}

// hwloc's verdicts on a bad file are its libxml2 backend's (libhwloc-plugins,
// installed by scripts/install-deps.sh); its minimalistic parser fails on valid
// files too. Tests of those verdicts need the backend and say so.
void require_libxml2_backend() {
  RunResult r = topology_of(fixture("real/hwloc-xml/nixl-g5.48xl-topo.xml"));
  REQUIRE_MESSAGE(r.exit_code == 0, "this test needs hwloc's libxml2 XML backend (Debian package libhwloc-plugins, "
                                    "installed by scripts/install-deps.sh); vp-analyze said: "
                                        << r.err);
}

TEST_CASE("without hwloc's libxml2 backend, a valid file is not called invalid: the message names the backend") {
  const std::string g5 = fixture("real/hwloc-xml/nixl-g5.48xl-topo.xml");
  const std::string tail =
      "; the file may be valid; HWLOC_XML_VERBOSE=1 prints hwloc's diagnostics)\n";
  // Disabled: hwloc's own switch forces its minimalistic parser.
  for (const char* var : {"HWLOC_LIBXML_IMPORT", "HWLOC_LIBXML"}) {
    CAPTURE(var);
    RunResult r = vp::test::run(std::string(var) + "=0 " + shell_quote(kBin) + " topology --input " + shell_quote(g5));
    check_bad_input(r, "vp-analyze: error: " + g5 +
                           ": hwloc cannot load the XML (hwloc's minimalistic XML parser failed: hwloc's libxml2 "
                           "backend is disabled by " +
                           var + "=0" + tail);
  }
  // Not installed: no plugin where hwloc looks for it.
  TempDir empty;
  RunResult r = vp::test::run("HWLOC_PLUGINS_PATH=" + shell_quote(empty.path()) + " " + shell_quote(kBin) +
                              " topology --input " + shell_quote(g5));
  check_bad_input(r, "vp-analyze: error: " + g5 +
                         ": hwloc cannot load the XML (hwloc's minimalistic XML parser failed: hwloc's libxml2 "
                         "backend is not installed (no hwloc_xml_libxml.so in " +
                         empty.path() + ": Debian package libhwloc-plugins)" + tail);
  // With it, every NIXL dump loads.
  for (const char* name : {"nixl-g5.48xl-topo.xml", "nixl-g6.48xl-topo.xml", "nixl-p4d.24xl-topo.xml",
                           "nixl-p5.48xl-topo.xml"}) {
    CAPTURE(name);
    RunResult ok = topology_of(fixture(std::string("real/hwloc-xml/") + name));
    CHECK_MESSAGE(ok.exit_code == 0, "needs libhwloc-plugins (scripts/install-deps.sh): " << ok.err);
  }
}

TEST_CASE("truncated hwloc XML: libhwloc gives no line, the message says how to get its diagnostics") {
  require_libxml2_backend();
  TempDir dir;
  std::string path = dir.write("truncated.xml", R"(<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="0x000000ff" complete_cpuset="0x000000ff")");
  check_bad_input(topology_of(path), "vp-analyze: error: " + path +
                                         ": hwloc cannot load the XML (malformed XML; HWLOC_XML_VERBOSE=1 prints "
                                         "hwloc's diagnostics)\n");
}

TEST_CASE("truncated JSON: the line where the input ended") {
  TempDir dir;
  std::string path = dir.write("truncated.json", kMiniTopology.substr(0, kMiniTopology.find("{\"id\": 1")));
  check_bad_input(topology_of(path),
                  "vp-analyze: error: " + path +
                      ":6:51: malformed JSON (syntax error while parsing value - unexpected end of input; expected "
                      "'[', '{', or a literal)\n"
                      "    {\"id\": 0, \"kind\": \"cpu\", \"cpu_family\": \"amd\"},\n"
                      "                                                  ^\n");
}

TEST_CASE("malformed JSON: the line and the parser's reason") {
  TempDir dir;
  std::string path = dir.write("malformed.json", with(kMiniTopology, R"("version": 1,)", R"("version": 1,,)"));
  check_bad_input(topology_of(path),
                  "vp-analyze: error: " + path +
                      ":3:16: malformed JSON (syntax error while parsing object key - unexpected ','; expected string "
                      "literal)\n"
                      "  \"version\": 1,,\n"
                      "               ^\n");
}

TEST_CASE("a PCIe tree with a cycle") {
  TempDir dir;
  std::string path = dir.write("cycle.json", with(kMiniTopology, R"("kind": "host_bridge", "parent": 0)",
                                                  R"("kind": "host_bridge", "parent": 2)"));
  check_bad_input(topology_of(path),
                  "vp-analyze: error: " + path + ":7:48: components[1].parent: the parents form a cycle: 1 -> 2 -> 1\n"
                  "    {\"id\": 1, \"kind\": \"host_bridge\", \"parent\": 2},\n"
                  "                                               ^\n");
}

TEST_CASE("duplicate bus ids, in vp JSON and in NCCL XML") {
  TempDir dir;
  std::string json = dir.write("dup.json", with(kMiniTopology, "0000:04:00.0", "0000:03:00.0"));
  check_bad_input(topology_of(json), "vp-analyze: error: " + json +
                                         ":9:57: components[3].pci_bus_id: \"0000:03:00.0\" is already the bus id of "
                                         "component 2 in the same node\n"
                                         "    {\"id\": 3, \"kind\": \"gpu\", \"parent\": 1, \"pci_bus_id\": \"0000:03:00.0\"}\n"
                                         "                                                        ^\n");
  std::string xml = dir.write("dup.xml", with(kMiniNccl, "0000:04:00.0", "0000:03:00.0"));
  check_bad_input(topology_of(xml),
                  "vp-analyze: error: " + xml + ":7: duplicate PCI bus id 0000:03:00.0 (first at line 4)\n");
}

TEST_CASE("zero and negative bandwidths") {
  TempDir dir;
  std::string zero = dir.write("zero.json", with(kMiniTopology, R"("capacity_gbps": 48)", R"("capacity_gbps": 0)"));
  check_bad_input(topology_of(zero),
                  "vp-analyze: error: " + zero + ":12:68: links[0].capacity_gbps: must be a capacity from 0.001 to 1e+06 GB/s, got 0\n"
                  "    {\"id\": 0, \"src\": 1, \"dst\": 0, \"kind\": \"pcie\", \"capacity_gbps\": 0},\n"
                  "                                                                   ^\n");
  std::string negative =
      dir.write("negative.json", with(kMiniTopology, R"("capacity_gbps": 48)", R"("capacity_gbps": -24.5)"));
  check_bad_input(topology_of(negative), "vp-analyze: error: " + negative +
                                             ":12:68: links[0].capacity_gbps: must be a capacity from 0.001 to 1e+06 GB/s, got -24.5\n"
                                             "    {\"id\": 0, \"src\": 1, \"dst\": 0, \"kind\": \"pcie\", \"capacity_gbps\": -24.5},\n"
                                             "                                                                   ^\n");
  std::string width = dir.write("width.xml", with(kMiniNccl, R"(link_width="16">
      <pci busid="0000:03:00.0")",
                                                 R"(link_width="-16">
      <pci busid="0000:03:00.0")"));
  check_bad_input(topology_of(width),
                  "vp-analyze: error: " + width + ":3: link_width -16 is not a PCIe lane count\n");
}

TEST_CASE("zero and negative NIC rates in a cluster description") {
  TempDir dir;
  for (const char* rate : {"0", "-100"}) {
    CAPTURE(rate);
    std::string cluster = dir.write("bad-rate.cluster.json", std::string(R"({
  "format": "vp-cluster",
  "version": 1,
  "node_types": [{"name": "mini"}],
  "nodes": [{"type": "mini", "count": 2}],
  "fabric": {"kind": "single_switch", "nic_gbitps": )") + rate + "}\n}\n");
    check_bad_input(topology_of(kPlatform, "--cluster " + shell_quote(cluster)),
                    "vp-analyze: error: " + cluster + ":6:53: fabric.nic_gbitps: must be a positive number, got " + rate +
                        "\n  \"fabric\": {\"kind\": \"single_switch\", \"nic_gbitps\": " + rate + "}\n" +
                        std::string(52, ' ') + "^\n");
  }
}

TEST_CASE("a topology without GPUs") {
  TempDir dir;
  std::string json = dir.write("no-gpu.json", with(with(kMiniTopology, R"("id": 2, "kind": "gpu")",
                                                        R"("id": 2, "kind": "nic")"),
                                                   R"("id": 3, "kind": "gpu")", R"("id": 3, "kind": "nic")"));
  check_bad_input(topology_of(json), "vp-analyze: error: " + json + ": no GPU in the topology\n");
  std::string hwloc = fixture("real/hwloc-xml/local-gpuless-lstopo-2.9.0.xml");
  check_bad_input(topology_of(hwloc),
                  "vp-analyze: error: " + hwloc + ": no GPU found (2 PCI devices, none of a GPU class)\n");
}

TEST_CASE("an NCCL hint file names no GPUs: the message says what it is and what to give instead") {
  for (const char* name : {"aws-g5.48xl-topo.xml", "aws-p5.48xl-topo-2023.xml"}) {
    CAPTURE(name);
    std::string path = fixture(std::string("real/nccl-topo/") + name);
    check_bad_input(topology_of(path),
                    "vp-analyze: error: " + path +
                        ": names no GPUs: this is an NCCL topology hint file (bus ids to merge with NCCL's live "
                        "detection), not a full topology; run vp-analyze on the machine itself (--probe) or give a "
                        "full dump (NCCL_TOPO_DUMP_FILE)\n");
  }
}

TEST_CASE("an unknown format") {
  TempDir dir;
  std::string path = dir.write("notes.txt", "GPU topology notes\nsee the wiki\n");
  check_bad_input(topology_of(path),
                  "vp-analyze: error: " + path +
                      ": unknown format (not hwloc XML, NCCL topology XML, nvidia-smi topo -m output or vp JSON; "
                      "name it with --format)\n");
  std::string empty = dir.write("empty.xml", " \n");
  check_bad_input(topology_of(empty), "vp-analyze: error: " + empty + ": empty file\n");
}

TEST_CASE("an NCCL graph file is not a topology") {
  std::string path = fixture("real/nccl-topo/azure-ncv4-graph.xml");
  check_bad_input(topology_of(path, "--format nccl"),
                  "vp-analyze: error: " + path +
                      ":1: root element <graphs>, expected <system> (an NCCL topology: NCCL_TOPO_DUMP_FILE output or "
                      "an NCCL_TOPO_FILE)\n");
}

TEST_CASE("a file given in the wrong --format") {
  check_bad_input(topology_of(kPlatform, "--format nvidia-smi"),
                  "vp-analyze: error: " + kPlatform +
                      ":1: names no GPUs: the header row has no GPU0 column (expected `nvidia-smi topo -m` output)\n");
}

TEST_CASE("an unreadable file: missing, or a directory") {
  TempDir dir;
  std::string missing = dir.path() + "/missing.xml";
  check_bad_input(topology_of(missing),
                  "vp-analyze: error: " + missing + ": cannot read the file (No such file or directory)\n");
  check_bad_input(topology_of(missing, "--format hwloc"),
                  "vp-analyze: error: " + missing + ": cannot read the file (No such file or directory)\n");
  check_bad_input(topology_of(dir.path()),
                  "vp-analyze: error: " + dir.path() + ": cannot read the file (Is a directory)\n");
}

// ---- usage errors: exit code 1 -------------------------------------------------------

TEST_CASE("usage errors exit 1 with their message") {
  const std::string E = "vp-analyze: error: ";
  const std::string more = " (run 'vp-analyze --help' for the options)\n";
  check_usage_error(analyze("topology --input " + shell_quote(kPlatform) + " --bogus"),
                    E + "--bogus: not an option" + more);
  check_usage_error(analyze("topology --input " + shell_quote(kPlatform) + " --probe"),
                    E + "--input excludes --probe" + more);
  check_usage_error(analyze("topology --input " + shell_quote(kPlatform) + " --fabric rail"),
                    E + "--fabric requires --nodes" + more);
  check_usage_error(analyze("topology --input " + shell_quote(kPlatform) + " --format xml"),
                    E + "--format: xml not in {auto,hwloc,nccl,nvidia-smi,json}" + more);
  check_usage_error(analyze("topology --input " + shell_quote(kPlatform) + " --nodes 0"),
                    E + "--nodes: Value 0 not in range 1 to 1000000" + more);
}

TEST_CASE("a bad --set exits 1 and names the override") {
  const std::string in = "topology --input " + shell_quote(kPlatform);
  check_usage_error(analyze(in + " --set pcie.gen4"), "vp-analyze: error: --set pcie.gen4: expected KEY=VALUE\n");
  check_usage_error(analyze(in + " --set pcie.gen4=fast"),
                    "vp-analyze: error: --set pcie.gen4=fast: 'fast' is not a number\n");
  check_usage_error(analyze(in + " --set pcie.gen4=-1"),
                    "vp-analyze: error: --set pcie.gen4: must be a positive number, got -1\n");
  check_usage_error(analyze(in + " --set pcie.gen4=0"),
                    "vp-analyze: error: --set pcie.gen4: must be a positive number, got 0\n");
  // Unknown keys: analyze_options_test.cpp.
}

// ---- what a good run prints ----------------------------------------------------------

TEST_CASE("the text output shows the path-type matrix") {
  RunResult r = topology_of(kPlatform);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == "");
  CHECK(r.out.find("Topology of " + kPlatform +
                   ": 1 node, 8 GPUs, 4 NICs, 4 PCIe switches, 2 host bridges, 2 sockets\n") == 0);
  const char* rows[] = {
      "          GPU0  GPU1  GPU2  GPU3  GPU4  GPU5  GPU6  GPU7\n",
      "    GPU0     X   PIX   PHB   PHB   SYS   SYS   SYS   SYS\n",
      "    GPU1   PIX     X   PHB   PHB   SYS   SYS   SYS   SYS\n",
      "    GPU2   PHB   PHB     X   PIX   SYS   SYS   SYS   SYS\n",
      "    GPU3   PHB   PHB   PIX     X   SYS   SYS   SYS   SYS\n",
      "    GPU4   SYS   SYS   SYS   SYS     X   PIX   PHB   PHB\n",
      "    GPU5   SYS   SYS   SYS   SYS   PIX     X   PHB   PHB\n",
      "    GPU6   SYS   SYS   SYS   SYS   PHB   PHB     X   PIX\n",
      "    GPU7   SYS   SYS   SYS   SYS   PHB   PHB   PIX     X\n",
  };
  std::string matrix;
  for (const char* row : rows) matrix += row;
  CHECK(r.out.find("Path types\n" + matrix) != std::string::npos);
  // Every capacity with its source; the default table with its override keys.
  CHECK(r.out.find("  pcie_switch0           <-> gpu0                      24.00  default  PCIe Gen4 x16\n") !=
        std::string::npos);
  CHECK(r.out.find("  cpu0                   <-> cpu1                      16.00  default  inter-socket amd\n") !=
        std::string::npos);
  CHECK(r.out.find("Default table (override with --set KEY=VALUE or --defaults FILE)\n") != std::string::npos);
}

TEST_CASE("the text output shows the GPU x NIC matrix under the GPU x GPU one, with the NIC legend") {
  RunResult r = topology_of(kPlatform);
  REQUIRE(r.exit_code == 0);
  const std::string table =
      "\nGPU x NIC path types\n"
      "          NIC0  NIC1  NIC2  NIC3\n"
      "    GPU0   PIX   PHB   SYS   SYS\n"
      "    GPU1   PIX   PHB   SYS   SYS\n"
      "    GPU2   PHB   PIX   SYS   SYS\n"
      "    GPU3   PHB   PIX   SYS   SYS\n"
      "    GPU4   SYS   SYS   PIX   PHB\n"
      "    GPU5   SYS   SYS   PIX   PHB\n"
      "    GPU6   SYS   SYS   PHB   PIX\n"
      "    GPU7   SYS   SYS   PHB   PIX\n"
      "NIC Legend:\n"
      "  NIC0: mlx5_0     0000:05:00.0  nic0\n"
      "  NIC1: mlx5_1     0000:45:00.0  nic1\n"
      "  NIC2: mlx5_2     0000:85:00.0  nic2\n"
      "  NIC3: mlx5_3     0000:c5:00.0  nic3\n";
  auto at = r.out.find(table);
  CHECK(at != std::string::npos);
  CHECK(r.out.find("\nPath types\n") < at);         // under the GPU x GPU matrix
  CHECK(at + table.size() == r.out.size());          // and last
}

TEST_CASE("the GPU x NIC matrix: one line for a node without NICs, the first node of a cluster") {
  TempDir dir;
  RunResult none = topology_of(dir.write("mini.json", kMiniTopology));
  REQUIRE(none.exit_code == 0);
  CHECK(none.out.find("\nGPU x NIC path types: none, node0 has no NIC\n") != std::string::npos);
  CHECK(none.out.find("NIC Legend") == std::string::npos);
  RunResult nccl = topology_of(dir.write("mini.xml", kMiniNccl));
  REQUIRE(nccl.exit_code == 0);
  CHECK(nccl.out.find("\nGPU x NIC path types\n"
                      "          NIC0\n"
                      "    GPU0   PIX\n"
                      "    GPU1   PIX\n"
                      "NIC Legend:\n"
                      "  NIC0: mlx5_0     0000:05:00.0  nic0\n") != std::string::npos);
  std::string cluster = fixture("platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json");
  RunResult four = topology_of(kPlatform, "--cluster " + shell_quote(cluster));
  REQUIRE(four.exit_code == 0);
  auto at = four.out.find("\nGPU x NIC path types (gpu01; to the NICs of other nodes NET)\n"
                          "          NIC0  NIC1  NIC2  NIC3\n"
                          "    GPU0   PIX   PHB   SYS   SYS\n");
  CHECK(at != std::string::npos);
  CHECK(four.out.find("GPU8", at) == std::string::npos);
  CHECK(four.out.find("NIC4", at) == std::string::npos);
}

namespace {

// A `nvidia-smi topo -m` table's GPU rows against its NIC columns, NICs
// named by device ("mlx5_0"), SOC read as SYS: {"GPU0 mlx5_0 PIX", ...}.
std::vector<std::string> nvsmi_gpu_nic_cells(const std::string& text) {
  std::vector<std::vector<std::string>> lines;
  std::map<std::string, std::string> legend;  // NIC0 -> mlx5_0
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    for (auto esc = line.find('\x1b'); esc != std::string::npos; esc = line.find('\x1b'))
      line.erase(esc, line.find('m', esc) - esc + 1);
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.size() >= 2 && w[0].rfind("NIC", 0) == 0 && w[0].back() == ':')
      legend[w[0].substr(0, w[0].size() - 1)] = w[1];
    lines.push_back(w);
  }
  std::vector<std::string> labels;
  for (const std::string& w : lines.at(0)) {
    if (w == "CPU") break;
    labels.push_back(w);
  }
  std::vector<std::string> cells;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty() || lines[i][0].rfind("GPU", 0) != 0) continue;
    for (std::size_t j = 0; j < labels.size(); ++j) {
      if (labels[j].rfind("GPU", 0) == 0) continue;
      std::string nic = legend.count(labels[j]) ? legend.at(labels[j]) : labels[j];
      std::string cell = lines[i].at(j + 1) == "SOC" ? "SYS" : lines[i].at(j + 1);
      cells.push_back(lines[i][0] + " " + nic + " " + cell);
    }
  }
  return cells;
}

// The same cells from our `vp-analyze topology` text (its GPU x NIC table and
// NIC legend).
std::vector<std::string> printed_gpu_nic_cells(const std::string& out) {
  auto at = out.find("\nGPU x NIC path types\n");
  REQUIRE(at != std::string::npos);
  return nvsmi_gpu_nic_cells(out.substr(at + std::string("\nGPU x NIC path types\n").size()));
}

}  // namespace

TEST_CASE("the GPU x NIC table equals the one nvidia-smi printed, for every nvidia-smi fixture") {
  // The importer infers a PCIe tree from nvidia-smi's matrix; our table is
  // computed from that tree's routes and printed with the NIC legend, which
  // names each column's device as nvidia-smi's legend (or old header) did.
  int compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(fixture("nvidia-smi"))) {
    if (entry.path().extension() != ".txt") continue;
    std::string path = entry.path().string();
    CAPTURE(path);
    RunResult r = topology_of(path);
    REQUIRE(r.exit_code == 0);
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    std::vector<std::string> expected = nvsmi_gpu_nic_cells(text.str());
    REQUIRE(!expected.empty());
    CHECK(printed_gpu_nic_cells(r.out) == expected);
    ++compared;
  }
  CHECK(compared == 4);  // pcie-2s4sw8g4n, old-driver-soc-2s4g1n, nvlink-bridges-2s4g2n, two-level-switch-1s8g2n
}

TEST_CASE("an override shows as the figure's source") {
  RunResult r = topology_of(kPlatform, "--set pcie.gen4=22");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("  pcie_switch0           <-> gpu0                      22.00  override PCIe Gen4 x16\n") !=
        std::string::npos);
}

TEST_CASE("--json output reads back through the JSON importer to the same document") {
  TempDir dir;
  SUBCASE("one node") {
    RunResult first = topology_of(kPlatform, "--json");
    REQUIRE(first.exit_code == 0);
    CHECK(first.err == "");
    nlohmann::json doc = nlohmann::json::parse(first.out);
    CHECK(doc.at("gpus").size() == 8);
    CHECK(doc.at("path_types").at(0) == nlohmann::json({"LOC", "PIX", "PHB", "PHB", "SYS", "SYS", "SYS", "SYS"}));
    RunResult second = topology_of(dir.write("exported.json", first.out), "--json");
    REQUIRE(second.exit_code == 0);
    CHECK(second.err == "");
    CHECK(second.out == first.out);
  }
  SUBCASE("a cluster") {
    std::string cluster = fixture("platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json");
    RunResult first = topology_of(kPlatform, "--cluster " + shell_quote(cluster) + " --json");
    REQUIRE(first.exit_code == 0);
    CHECK(first.err == "");
    nlohmann::json doc = nlohmann::json::parse(first.out);
    CHECK(doc.at("gpus").size() == 32);
    CHECK(doc.at("nodes").size() == 4);
    RunResult second = topology_of(dir.write("exported.json", first.out), "--json");
    REQUIRE(second.exit_code == 0);
    CHECK(second.out == first.out);
  }
}
