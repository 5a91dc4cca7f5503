// `vp-catalog diff` and `validate --against` compare catalogs by what the
// topology is, not by positions or file names:
// components are matched by name, node types by name and else by content.
#include <doctest/doctest.h>

#include <string>

#include "support.hpp"

using vp::test::run;
using vp::test::RunResult;
using vp::test::shell_quote;
using vp::test::TempDir;

namespace {

const std::string kCatalogBin = VP_CATALOG_BIN;
const std::string kAnalyzeBin = VP_ANALYZE_BIN;

// One socket, one host bridge, `gpus` GPUs then one NIC (so that the NIC's
// component id follows the last GPU's).
std::string mini_topology(int gpus) {
  std::string components = R"({"id": 0, "kind": "cpu", "cpu_family": "amd"},
    {"id": 1, "kind": "host_bridge", "parent": 0})";
  std::string links = R"({"id": 0, "src": 1, "dst": 0, "kind": "pcie", "capacity_gbps": 48})";
  int id = 2;
  for (int g = 0; g < gpus; ++g, ++id) {
    components += ",\n    {\"id\": " + std::to_string(id) + ", \"kind\": \"gpu\", \"parent\": 1, \"pci_bus_id\": \"0000:0" +
                  std::to_string(g + 1) + ":00.0\"}";
    links += ",\n    {\"id\": " + std::to_string(id - 1) + ", \"src\": " + std::to_string(id) +
             ", \"dst\": 1, \"kind\": \"pcie\", \"pcie_gen\": 4, \"pcie_width\": 16}";
  }
  components += ",\n    {\"id\": " + std::to_string(id) +
                R"(, "kind": "nic", "parent": 1, "pci_bus_id": "0000:0a:00.0", "line_rate_gbitps": 100, "ports": 1, "gpudirect": true})";
  links += ",\n    {\"id\": " + std::to_string(id - 1) + ", \"src\": " + std::to_string(id) +
           ", \"dst\": 1, \"kind\": \"pcie\", \"pcie_gen\": 4, \"pcie_width\": 16}";
  return R"({"format": "vp-topology", "version": 1, "nodes": [{"name": "node0", "type": "mini"}],
  "components": [)" +
         components + "],\n  \"links\": [" + links + "]}\n";
}

// A small NCCL dump: the node type is named after the file.
const std::string kNccl = R"(<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="1">
    <pci busid="0000:01:00.0" class="0x060400" link_speed="16.0 GT/s PCIe" link_width="16">
      <pci busid="0000:03:00.0" class="0x030200" vendor="0x10de" device="0x26b9" link_speed="16.0 GT/s PCIe" link_width="16"/>
      <pci busid="0000:04:00.0" class="0x030200" vendor="0x10de" device="0x26b9" link_speed="16.0 GT/s PCIe" link_width="16"/>
      <pci busid="0000:05:00.0" class="0x020000" vendor="0x15b3" device="0x101b" link_speed="16.0 GT/s PCIe" link_width="16">
        <nic><net name="mlx5_0" dev="0" speed="200000" port="1" gdr="1"/></nic>
      </pci>
    </pci>
  </cpu>
</system>
)";

void analyze(const std::string& args) {
  RunResult r = run(shell_quote(kAnalyzeBin) + " -q " + args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
}

}  // namespace

TEST_CASE("diff matches components by name: a missing GPU reads as missing") {
  TempDir dir;
  const std::string a = dir.path() + "/a.vpcat", b = dir.path() + "/b.vpcat";
  analyze("--input " + shell_quote(dir.write("a.json", mini_topology(3))) + " --out " + shell_quote(a));
  analyze("--input " + shell_quote(dir.write("b.json", mini_topology(2))) + " --out " + shell_quote(b));
  RunResult r = run(shell_quote(kCatalogBin) + " diff " + shell_quote(a) + " " + shell_quote(b));
  CHECK(r.exit_code == 3);
  INFO(r.out);
  CHECK(r.out.find("node type \"mini\": component gpu2 (gpu): only in A\n") != std::string::npos);
  CHECK(r.out.find("node type \"mini\": link gpu2 -> host_bridge0: only in A\n") != std::string::npos);
  CHECK(r.out.find("route gpu2 -> nic0: only in A\n") != std::string::npos);
  // nic0 is component 5 in A and 4 in B: the same component, not a kind change.
  CHECK(r.out.find("kind") == std::string::npos);
  CHECK(r.out.find("component 5 (nic0") == std::string::npos);
  // Equal catalogs: no line, exit 0.
  RunResult same = run(shell_quote(kCatalogBin) + " diff " + shell_quote(a) + " " + shell_quote(a));
  CHECK(same.exit_code == 0);
  CHECK(same.out.empty());
}

TEST_CASE("validate --against a renamed copy of the topology: the same content, a name difference") {
  TempDir dir;
  const std::string cat = dir.path() + "/x.vpcat";
  analyze("--input " + shell_quote(dir.write("first.xml", kNccl)) + " --nodes 2 --out " + shell_quote(cat));
  const std::string copy = dir.write("second.xml", kNccl);
  RunResult r = run(shell_quote(kCatalogBin) + " validate " + shell_quote(cat) + " --against " + shell_quote(copy) +
                    " 2>&1");
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(r.out == cat + ": valid catalog, matches the analysis of " + copy +
                     " (options fabric=single_switch;nodes=2;pattern_budget=20000000)\n"
                     "  note: node type \"first\": named \"second\" in B (the same content)\n");
  // diff says the same, and that is the only difference.
  const std::string other = dir.path() + "/y.vpcat";
  analyze("--input " + shell_quote(copy) + " --nodes 2 --out " + shell_quote(other));
  RunResult d = run(shell_quote(kCatalogBin) + " diff " + shell_quote(cat) + " " + shell_quote(other));
  CHECK(d.exit_code == 3);
  CHECK(d.out == "node type \"first\": named \"second\" in B (the same content)\n");
}

TEST_CASE("import warnings go with the catalog: shown when analysing, kept in the provenance, shown by inspect") {
  TempDir dir;
  const std::string cat = dir.path() + "/x.vpcat", mirror = dir.path() + "/x.json";
  const std::string ndv4 = vp::test::fixture("real/nccl-topo/azure-ndv4-topo.xml");
  RunResult r = run(shell_quote(kAnalyzeBin) + " -q --input " + shell_quote(ndv4) + " --out " + shell_quote(cat) +
                    " --json-out " + shell_quote(mirror));
  REQUIRE(r.exit_code == 0);
  const std::string rate = "line rate of 8 NICs assumed: 100 Gb/s per port (no <net speed>, PCI ids of no known model)";
  const std::string gdr =
      "GPUDirect RDMA of 8 RDMA NICs (InfiniBand class or Mellanox ids, no known model) not stated by the input: "
      "assumed capable (nic.assume_gpudirect=1; --set nic.assume_gpudirect=0 if not)";
  // Then that it is an NVLink machine analysed as PCIe-only (not an import
  // warning: not in the provenance).
  const std::string nvlink = "node type azure-ndv4-topo: an NVLink machine (its name says ndv4): analysed and drawn as "
                             "PCIe-only (the model has no NVLink); its GPU-to-GPU figures are PCIe's";
  CHECK(r.err == "vp-analyze: warning: " + rate + "\nvp-analyze: warning: " + gdr + "\nvp-analyze: warning: " + nvlink +
                     "\n");
  RunResult inspect = run(shell_quote(kCatalogBin) + " inspect " + shell_quote(cat));
  CHECK(inspect.exit_code == 0);
  // On standard error, in the one form of every warning.
  CHECK(inspect.err == "vp-catalog: warning: " + cat + ": analysis: " + rate + "\nvp-catalog: warning: " + cat +
                           ": analysis: " + gdr + "\n");
  CHECK(inspect.out.find(rate) == std::string::npos);
  RunResult json = run(shell_quote(kCatalogBin) + " inspect --json " + shell_quote(cat));
  CHECK(json.out.find("\"warnings\": [\n    \"" + rate + "\",") != std::string::npos);
  // The JSON mirror carries them too, and reads back to the same catalog.
  std::string text;
  {
    RunResult cat_mirror = run("cat " + shell_quote(mirror));
    text = cat_mirror.out;
  }
  CHECK(text.find("\"warnings\": \"" + rate + "\\n") != std::string::npos);
  CHECK(run(shell_quote(kCatalogBin) + " diff " + shell_quote(cat) + " " + shell_quote(mirror)).exit_code == 0);
}
