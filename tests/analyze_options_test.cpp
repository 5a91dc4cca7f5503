// vp-analyze's options as a new user meets them: --set keys,
// --cluster without --input, shortcut options that do not apply, GPUDirect
// RDMA that the input does not state, the probe of a machine without GPUs.
// Whole messages and exit codes of the real binary.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "support.hpp"

using vp::test::fixture;
using vp::test::RunResult;
using vp::test::shell_quote;
using vp::test::TempDir;

namespace {

const std::string kBin = VP_ANALYZE_BIN;
const std::string kPlatform = fixture("platforms/pcie-gen4-2s4sw8g.json");
const std::string kNdv4 = fixture("real/nccl-topo/azure-ndv4-topo.xml");

RunResult analyze(const std::string& args) { return vp::test::run(shell_quote(kBin) + " " + args); }

void check_usage_error(const RunResult& r, const std::string& message) {
  CHECK(r.exit_code == 1);
  CHECK(r.err == message);
  CHECK(r.out.empty());
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

const std::string kKeys =
    "inter_socket.amd, inter_socket.arm, inter_socket.intel, inter_socket.intel_broadwell, "
    "inter_socket.intel_emerald_rapids, inter_socket.intel_sapphire_rapids, inter_socket.intel_skylake, "
    "inter_socket.power9, inter_socket.unknown, inter_socket.zhaoxin, nic.assume_gpudirect, nic_efficiency, "
    "pcie.gen1, pcie.gen2, pcie.gen3, pcie.gen4, pcie.gen5, pcie.gen6, pcie.unknown_gen, pcie.unknown_width, "
    "root_complex_p2p_factor";

}  // namespace

TEST_CASE("--set: a key that is not in the default table is a usage error that lists the keys") {
  const std::string in = "topology --input " + shell_quote(kPlatform);
  for (const char* key : {"inter_socket.amdd", "inter_socket.Amd", "pcie.gen7", "pcie.gen9", "bogus"}) {
    CAPTURE(key);
    check_usage_error(analyze(in + " --set " + key + "=3"),
                      std::string("vp-analyze: error: --set ") + key + ": unknown key (the keys are " + kKeys + ")\n");
  }
  // The same in a --defaults file.
  TempDir dir;
  std::string file = dir.write("d.json", R"({"inter_socket.amdd": 3})");
  RunResult r = analyze(in + " --defaults " + shell_quote(file));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "vp-analyze: error: " + file + ":1:23: inter_socket.amdd: unknown key (the keys are " + kKeys +
                     ")\n{\"inter_socket.amdd\": 3}\n                      ^\n");
  // A key of the table still works and shows as overridden.
  r = analyze(in + " --set inter_socket.amd=30");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("inter_socket.amd                         30  (overridden)") != std::string::npos);
}

TEST_CASE("--cluster whose node types all name their files needs no --input and probes nothing") {
  TempDir dir;
  dir.write("gen4.json", slurp(kPlatform));
  std::string spec = dir.write("c.json", R"({"format": "vp-cluster", "version": 1,
    "node_types": [{"name": "gen4", "input": "gen4.json"}],
    "nodes": [{"type": "gen4", "count": 2}], "fabric": {"kind": "single_switch"}})");
  RunResult r = analyze("topology --cluster " + shell_quote(spec));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.rfind("Topology of " + spec + ": 2 nodes, 16 GPUs", 0) == 0);
  // An --input that no node type reads is refused: it was silently ignored, so
  // that `validate --against` said a catalog matched a file it never read.
  r = analyze("topology --input " + shell_quote(kNdv4) + " --cluster " + shell_quote(spec));
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err == "vp-analyze: error: " + kNdv4 + ": not read: every node type of the cluster description " + spec +
                     " names its own input and this file is none of them (give the description alone, or one whose "
                     "node type takes this file)\n");
  // The same file as a node type's is fine (the golden catalogs are made so).
  r = analyze("topology --input " + shell_quote(dir.path() + "/gen4.json") + " --cluster " + shell_quote(spec));
  CHECK(r.exit_code == 0);
  // One that a node type uses is named beside the description.
  std::string uses = dir.write("u.json", R"({"format": "vp-cluster", "version": 1,
    "node_types": [{"name": "gen4"}], "nodes": [{"type": "gen4", "count": 2}], "fabric": {"kind": "single_switch"}})");
  r = analyze("topology --input " + shell_quote(kPlatform) + " --cluster " + shell_quote(uses));
  CHECK(r.exit_code == 0);
  CHECK(r.out.rfind("Topology of " + uses + " with " + kPlatform + ": 2 nodes, 16 GPUs", 0) == 0);
}

TEST_CASE("shortcut options that would change nothing are refused") {
  const std::string in = "topology --input " + shell_quote(kPlatform);
  check_usage_error(analyze(in + " --nodes 16 --fabric single_switch --oversubscription 2"),
                    "vp-analyze: error: --oversubscription 2: a single_switch fabric is non-blocking (the option "
                    "applies to rail and leaf_spine)\n");
  check_usage_error(analyze(in + " --nodes 16 --oversubscription 2"),
                    "vp-analyze: error: --oversubscription 2: a single_switch fabric is non-blocking (the option "
                    "applies to rail and leaf_spine)\n");
  check_usage_error(analyze(in + " --nodes 16 --fabric rail --leaf-size 4"),
                    "vp-analyze: error: --leaf-size 4: applies to --fabric leaf_spine only (the fabric is rail)\n");
  check_usage_error(analyze(in + " --nodes 1 --fabric rail"),
                    "vp-analyze: error: --nodes 1 is one node, without a fabric: --fabric, --leaf-size and "
                    "--oversubscription do not apply\n");
  // What applies is accepted.
  CHECK(analyze(in + " --nodes 2 --fabric rail --oversubscription 2").exit_code == 0);
  CHECK(analyze(in + " --nodes 2 --fabric leaf_spine --leaf-size 1 --oversubscription 2").exit_code == 0);
}

TEST_CASE("Azure NDv4 (no <net>): GPUDirect RDMA assumed with a warning, overridable; a catalog whose nodes cannot "
          "reach the network is refused") {
  RunResult r = analyze("topology --input " + shell_quote(kNdv4));
  REQUIRE(r.exit_code == 0);
  const std::string warning =
      "vp-analyze: warning: GPUDirect RDMA of 8 RDMA NICs (InfiniBand class or Mellanox ids, no known model) not "
      "stated by the input: assumed capable (nic.assume_gpudirect=1; --set nic.assume_gpudirect=0 if not)\n";
  // Warnings go to standard error, in the one form every tool uses; the report stays on standard output.
  CHECK(r.err.find(warning) != std::string::npos);
  CHECK(r.out.find("warning:") == std::string::npos);
  CHECK(r.out.find("  nic.assume_gpudirect                      1\n") != std::string::npos);

  TempDir dir;
  const std::string out = dir.path() + "/x.vpcat";
  r = analyze("--input " + shell_quote(kNdv4) + " --nodes 2 --fabric rail --set nic.assume_gpudirect=0 --out " +
              shell_quote(out));
  CHECK(r.exit_code == 2);
  // The import's warnings first (what was assumed), then the refusal.
  CHECK(r.err.rfind("vp-analyze: warning: node type azure-ndv4-topo: line rate of 8 NICs assumed", 0) == 0);
  CHECK(r.err.find("taken as absent (nic.assume_gpudirect=0; --set nic.assume_gpudirect=1 if not)\n") !=
        std::string::npos);
  const std::string refusal = "vp-analyze: error: " + kNdv4 +
                     ": node node0 (node type azure-ndv4-topo) has no NIC that carries GPU traffic (none of its 8 "
                     "NICs has GPUDirect RDMA): a catalog of 2 nodes could not move a byte between nodes (state "
                     "GPUDirect RDMA in the input or with --set nic.assume_gpudirect=1, or analyse one node)\n";
  CHECK(r.err.size() > refusal.size());
  CHECK(r.err.substr(r.err.size() - refusal.size()) == refusal);
  CHECK(slurp(out).empty());
  // One node needs no network.
  CHECK(analyze("--input " + shell_quote(kNdv4) + " --set nic.assume_gpudirect=0 -q --out " + shell_quote(out))
            .exit_code == 0);
  check_usage_error(analyze("topology --input " + shell_quote(kNdv4) + " --set nic.assume_gpudirect=2"),
                    "vp-analyze: error: --set nic.assume_gpudirect: must be 1 (capable) or 0 (not), got 2\n");
}

TEST_CASE("a probe that finds no GPU says what to do") {
  // hwloc reads HWLOC_XMLFILE instead of this machine: a GPU-less machine anywhere.
  const std::string xml = fixture("real/hwloc-xml/local-gpuless-lstopo-2.9.0.xml");
  RunResult r = vp::test::run("HWLOC_XMLFILE=" + shell_quote(xml) + " " + shell_quote(kBin) + " topology");
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "vp-analyze: error: local machine: no GPU found: this machine has no GPU visible to hwloc (2 PCI devices, "
        "none of a GPU class); run vp-analyze on a GPU node, or give a GPU node's topology with --input FILE (hwloc "
        "XML from `lstopo node.xml`, an NCCL_TOPO_DUMP_FILE, `nvidia-smi topo -m` output or vp JSON)\n");
}

TEST_CASE("--nodes 1000000 is refused before the cluster is allocated") {
  RunResult r = analyze("topology --input " + shell_quote(kPlatform) + " --nodes 1000000");
  CHECK(r.exit_code == 1);
  CHECK(r.err == "vp-analyze: error: --nodes 1000000: 1000000 nodes: above the limit of 32768 nodes of an analysed "
                 "cluster (--max-nodes)\n");
  r = analyze("topology --input " + shell_quote(kPlatform) + " --nodes 1000000 --max-nodes 1000000");
  CHECK(r.exit_code == 1);
  CHECK(r.err == "vp-analyze: error: --nodes 1000000: 1000000 nodes of 20000000 components in all: above the limit "
                 "of 2097152 components of an analysed cluster (--max-components)\n");
}

// Progress (docs/analysis.md "Progress"). The test harness sets VP_PROGRESS=none
// (support.cpp); these runs ask for it. --progress-interval 0 shows every
// report at once, so the output does not depend on how long the analysis took.
TEST_CASE("progress: every stage on standard error, the catalog unchanged, -q silences it") {
  TempDir d;
  const std::string quiet_out = d.path() + "/quiet.vpcat", loud_out = d.path() + "/loud.vpcat";
  RunResult quiet = analyze("--input " + shell_quote(kPlatform) + " --out " + shell_quote(quiet_out) +
                            " --progress lines -q");
  REQUIRE(quiet.exit_code == 0);
  CHECK(quiet.err.empty());
  RunResult loud = analyze("--input " + shell_quote(kPlatform) + " --out " + shell_quote(loud_out) +
                           " --progress lines --progress-interval 0");
  REQUIRE(loud.exit_code == 0);
  CHECK(slurp(quiet_out) == slurp(loud_out));
  CHECK(loud.out.rfind("wrote ", 0) == 0);  // the summary stays on standard output
  const std::string head = "vp-analyze: node type pcie-gen4-2s4sw8g (1 of 1, 8 GPUs): ";
  CHECK(loud.err.rfind(head + "computing its automorphism group\n", 0) == 0);
  CHECK(loud.err.find(head + "local-pattern search: 4,096 search nodes, ") != std::string::npos);
  CHECK(loud.err.find(head + "contention check of the patterns: 64 of 511 (13%)") != std::string::npos);
  const std::string done =
      "vp-analyze: node type pcie-gen4-2s4sw8g (1 of 1) done: 8 GPUs, 40177 contention-free patterns\n";
  CHECK(loud.err.size() > done.size());
  CHECK(loud.err.substr(loud.err.size() - done.size()) == done);
  CHECK(loud.err.find('\r') == std::string::npos);  // lines, not a bar
  CHECK(loud.err.find("|Aut|") == std::string::npos);
  // --verbose: the group order and the GPU orbits too, in the lines and the summary.
  RunResult verbose = analyze("--input " + shell_quote(kPlatform) + " --out " + shell_quote(d.path() + "/v.vpcat") +
                              " --progress lines --progress-interval 0 --verbose");
  REQUIRE(verbose.exit_code == 0);
  CHECK(verbose.err.find(head + "|Aut| = 128, 1 GPU orbits; local-pattern search: 4,096 search nodes, ") !=
        std::string::npos);
  CHECK(verbose.out.find("\n  node type pcie-gen4-2s4sw8g: |Aut| = 128, 1 GPU orbits, 511 local pattern orbits "
                         "representing 40177 patterns\n") != std::string::npos);
  CHECK(verbose.out.find("\n  cluster automorphism group order 128\n") != std::string::npos);
}

TEST_CASE("summary: GB/s and patterns by default, the group theory under --verbose") {
  TempDir d;
  RunResult r = analyze("--input " + shell_quote(kPlatform) + " --nodes 4 --out " + shell_quote(d.path() + "/c.vpcat") +
                        " -q");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("\n  GPUs 32, nodes 4, node types 1\n  node type pcie-gen4-2s4sw8g: 8 GPUs, GPU links 24 GB/s, "
                   "network 96 GB/s (4 NICs, 12 GB/s per GPU); 40177 contention-free patterns\n") != std::string::npos);
  for (const char* group_word : {"|Aut|", "automorphism", "orbit", "fabric group"}) {
    CAPTURE(group_word);
    CHECK(r.out.find(group_word) == std::string::npos);
  }
}

TEST_CASE("an NVLink machine gets a one-line warning: analysed and drawn as PCIe-only") {
  TempDir d;
  const std::string p5 = vp::test::fixture("real/nccl-topo/aws-p5.48xl-topo.xml");
  RunResult r = analyze("topology --input " + shell_quote(p5) + " --svg " + shell_quote(d.path() + "/p5.svg"));
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == "vp-analyze: warning: node type aws-p5.48xl-topo: an NVLink machine (its name says p5): analysed and "
                 "drawn as PCIe-only (the model has no NVLink); its GPU-to-GPU figures are PCIe's\n");
  RunResult pcie = analyze("topology --input " + shell_quote(kPlatform) + " --json");
  REQUIRE(pcie.exit_code == 0);
  CHECK(pcie.err.find("NVLink") == std::string::npos);
}

TEST_CASE("progress: VP_PROGRESS is the default of --progress; a value that is no mode is warned about") {
  TempDir d;
  const std::string out = d.path() + "/c.vpcat";
  RunResult env = vp::test::run("VP_PROGRESS=bar " + shell_quote(kBin) + " --input " + shell_quote(kPlatform) +
                                " --out " + shell_quote(out) + " --progress-interval 0");
  REQUIRE(env.exit_code == 0);
  CHECK(env.err.find("\r\x1b[Kvp-analyze: pcie-gen4-2s4sw8g 1/1: ") != std::string::npos);  // a bar
  RunResult option = vp::test::run("VP_PROGRESS=bar " + shell_quote(kBin) + " --input " + shell_quote(kPlatform) +
                                   " --out " + shell_quote(out) + " --progress none");
  REQUIRE(option.exit_code == 0);
  CHECK(option.err.empty());
  RunResult bogus = vp::test::run("VP_PROGRESS=loud " + shell_quote(kBin) + " --input " + shell_quote(kPlatform) +
                                  " --out " + shell_quote(out) + " --progress-interval 0");
  REQUIRE(bogus.exit_code == 0);
  CHECK(bogus.err.rfind("vp-analyze: warning: VP_PROGRESS=loud: not a progress mode (auto, bar, lines or none); "
                        "using auto\nvp-analyze: node type ",
                        0) == 0);
  check_usage_error(analyze("--input " + shell_quote(kPlatform) + " --out " + shell_quote(out) + " --progress loud"),
                    "vp-analyze: error: --progress: loud not in {auto,bar,lines,none} (run 'vp-analyze --help' for the options)\n");
}
