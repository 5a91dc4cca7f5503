// vp-catalog: whole outputs and exit codes of the real binary.
#include <doctest/doctest.h>

#include "catalog_support.hpp"
#include "support.hpp"
#include "vp/catalog/json_mirror.hpp"
#include "vp/catalog/writer.hpp"

namespace {

using vp::test::run;

const std::string kTool = VP_CATALOG_BIN;
std::string sample() { return vp::test::fixture("catalogs/format-1.0/quad-rail4.vpcat"); }
std::string corrupt(const std::string& name) { return vp::test::fixture("corrupt/" + name + ".vpcat"); }

}  // namespace

TEST_CASE("vp-catalog inspect: the summary keys of vp-analyze, then the file's layout") {
  const vp::test::RunResult r = run(kTool + " inspect --json " + sample());
  REQUIRE(r.exit_code == 0);
  const vp::catalog::Json j = vp::catalog::Json::parse(r.out);
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"gpus", "nodes", "node_types", "cluster_automorphism_group_order",
                                         "channel_orbits", "channels_represented", "catalog_bytes", "file",
                                         "format_version", "min_reader_version", "writer_version", "node_groups",
                                         "sections", "warnings", "machine_model"});
  CHECK(j["machine_model"].is_null());  // a 1.0 file
  CHECK(j["gpus"] == 16);
  CHECK(j["node_types"][0] == vp::catalog::Json::parse(R"({"name": "quad", "gpus": 4,
      "automorphism_group_order": "8", "gpu_orbits": 1, "local_pattern_orbits": 3, "local_patterns": "7"})"));
  CHECK(j["sections"].size() == 14);
  CHECK(j["sections"][7]["name"] == "patterns");
  CHECK(j["node_groups"] == vp::catalog::Json::parse(
                                R"([{"node_type": "quad", "count": 4, "names": "gpu[001-004]", "first_gpu": 0}])"));
  const vp::test::RunResult text = run(kTool + " inspect " + sample());
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("\nnodes gpu[001-004] (4 of type quad, GPUs 0-15)\n") != std::string::npos);
  CHECK(text.out.rfind(sample() + ": 4632 bytes, format 1.0 (readers of 1.0 or later), written by version ", 0) == 0);
  // In operators' words by default: GB/s; the group theory with --verbose.
  CHECK(text.out.find("\nnode type quad: 4 GPUs, GPU links 24 GB/s, network 50 GB/s (2 NICs, 12.5 GB/s per GPU)\n") !=
        std::string::npos);
  CHECK(text.out.find("group order") == std::string::npos);
  CHECK(text.out.find("orbits") == std::string::npos);
  const vp::test::RunResult verbose = run(kTool + " inspect --verbose " + sample());
  CHECK(verbose.exit_code == 0);
  CHECK(verbose.out.find("\ncluster group order 98304\nnode type quad: group order 8, 1 GPU orbits, 3 local pattern "
                         "orbits representing 7\n3 channel orbits stored, representing 7\n") != std::string::npos);
}

TEST_CASE("vp-catalog validate: exit 0 valid, 3 invalid, 2 unreadable, 1 usage") {
  vp::test::RunResult r = run(kTool + " validate " + sample());
  CHECK(r.exit_code == 0);
  CHECK(r.out == sample() + ": valid catalog (1 node types, 4 nodes, 16 GPUs)\n");
  r = run(kTool + " validate " + corrupt("bad-route"));
  CHECK(r.exit_code == 3);
  CHECK(r.err == "vp-catalog: error: " + corrupt("bad-route") +
                     ": section 'route_hops' at offset 0xd88: malformed route (route 0: link 0 starts at component 0, "
                     "the route stands at 4)\n");
  r = run(kTool + " validate /no/such.vpcat");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "vp-catalog: error: /no/such.vpcat: cannot read the file (open: No such file or directory)\n");
}

TEST_CASE("vp-catalog validate --cluster: the description alone, and never a file it would not read") {
  const std::string catalog = vp::test::fixture("catalogs/golden/pcie-gen4-2s4sw8g-4n-switch.vpcat");
  const std::string cluster = vp::test::fixture("platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json");
  vp::test::RunResult r = run(kTool + " validate " + catalog + " --cluster " + cluster);
  CHECK(r.exit_code == 0);
  CHECK(r.out == catalog + ": valid catalog, matches the analysis of " + cluster +
                     " (options pattern_budget=20000000)\n");
  // The health check an operator runs: the description names its node type's
  // file, so --against would not be read. It said "valid, matches the analysis
  // of azure-ndv4-topo.xml" and exited 0.
  const std::string ndv4 = vp::test::fixture("real/nccl-topo/azure-ndv4-topo.xml");
  r = run(kTool + " validate " + catalog + " --against " + ndv4 + " --cluster " + cluster);
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err == "vp-catalog: error: " + ndv4 + ": not read: every node type of the cluster description " + cluster +
                     " names its own input and this file is none of them (give the description alone, or one whose node type "
                     "takes this file)\n");
}

TEST_CASE("vp-catalog convert: binary -> JSON -> binary gives the same bytes") {
  vp::test::TempDir dir;
  const std::string json = dir.path() + "/c.json", back = dir.path() + "/c.vpcat";
  REQUIRE(run(kTool + " convert " + sample() + " --to json --out " + json).exit_code == 0);
  REQUIRE(run(kTool + " convert " + json + " --to binary --out " + back).exit_code == 0);
  CHECK(vp::test::read_binary(back) == vp::catalog::write_catalog(vp::test::rail_catalog()));
  CHECK(vp::test::read_text(json) == vp::catalog::dump_json(vp::test::rail_catalog()));
  const vp::test::RunResult r = run(kTool + " validate " + json);
  CHECK(r.exit_code == 0);
  const vp::test::RunResult bad = run(kTool + " convert " + corrupt("huge-count") + " --to json --out " + json);
  CHECK(bad.exit_code == 3);
}

TEST_CASE("vp-catalog validate: a JSON mirror is held to the format's rules") {
  vp::test::TempDir dir;
  vp::catalog::Json j = vp::catalog::to_json(vp::test::rail_catalog());
  j["node_types"][0]["links"][3]["capacity_gbps"] = 0;
  const std::string path = dir.write("bad.json", j.dump(2));
  const vp::test::RunResult r = run(kTool + " validate " + path);
  CHECK(r.exit_code == 3);
  CHECK(r.err == "vp-catalog: error: " + path +
                     ": catalog breaks a format rule: section 'links' at offset 0x780: number out of range "
                     "(link 3: capacity_gbps must be finite and > 0)\n");
}

TEST_CASE("vp-catalog diff: nothing for equal catalogs, one line per difference otherwise") {
  vp::test::TempDir dir;
  vp::catalog::Catalog c = vp::test::rail_catalog();
  c.node_types[0].components[5].pci_bus_id = "0000:13:00.0";
  c.node_types[0].patterns.pop_back();
  c.node_types[0].patterns_represented = "5";
  c.fabric.spine_uplink_gbps = {50.0, 50.0};
  const std::string other = dir.path() + "/other.vpcat";
  vp::test::write_binary(other, vp::catalog::write_catalog(c));
  vp::test::RunResult r = run(kTool + " diff " + sample() + " " + sample());
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  r = run(kTool + " diff " + sample() + " " + other);
  CHECK(r.exit_code == 3);
  CHECK(r.out ==
        "node type \"quad\": component 5 (gpu1): pci_bus_id \"0000:03:00.0\" -> \"0000:13:00.0\"\n"
        "node type \"quad\": patterns represented \"7\" -> \"5\"\n"
        "node type \"quad\": 3 pattern orbits -> 2\n"
        "node type \"quad\": pattern send [gpu2 gpu3 gpu1 gpu0] recv [gpu3 gpu2 gpu0 gpu1]: only in A (orbit of 2)\n"
        "fabric: spine_uplink_gbps [100 100] -> [50 50]\n");
}

TEST_CASE("vp-catalog dump --annotate: every field named, damaged files too") {
  vp::test::RunResult r = run(kTool + " dump --annotate " + sample());
  CHECK(r.exit_code == 0);
  CHECK(r.out.rfind("# 4632 bytes; verify: ok\nheader:\n  00000000  89 56 50 43 0d 0a 1a 0a  magic = ", 0) == 0);
  CHECK(r.out.find("  00000040  01 00 00 00              entry[0].type = 1 (strings)\n") != std::string::npos);
  CHECK(r.out.find("record[0].name = 0 (\"quad\")") != std::string::npos);
  r = run(kTool + " dump --annotate " + corrupt("truncated"));
  CHECK(r.exit_code == 0);
  CHECK(r.out.rfind("# 4540 bytes; verify: header at offset 0x18: file is truncated", 0) == 0);
  CHECK(r.out.find("section 'provenance': offset 4608 + size 32 lies outside the file") != std::string::npos);
  // A 1.1 file: the provenance field appended in 1.1 is named too.
  r = run(kTool + " dump --annotate " + vp::test::fixture("catalogs/format-1.1/quad-rail4.vpcat"));
  CHECK(r.out.find("  00001218  05 00 00 00              record[0].warnings = 5 (\"\")\n") != std::string::npos);
}

TEST_CASE("vp-catalog set-model: another machine model, everything else kept; inspect shows it; a bad table is exit 2 located") {
  const vp::test::TempDir dir;
  const std::string ideal = dir.path() + "/ideal.vpcat", back = dir.path() + "/back.vpcat";
  vp::test::RunResult r = run(kTool + " set-model " + sample() + " --ideal --out " + ideal);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == ideal + ": machine model the ideal model (every loss off)\n");
  r = run(kTool + " inspect " + ideal);
  CHECK(r.out.find("\nmachine model: forwarder off (slope 0.036, floor 0.11), nic off (slope 0.004, floor 0.5), chunk off "
                   "(131072 bytes, 0.1 us); sources: ideal\n") != std::string::npos);
  CHECK(r.out.find(", format 1.2 (readers of 1.0 or later)") != std::string::npos);
  r = run(kTool + " inspect --json " + ideal);
  const vp::catalog::Json j = vp::catalog::Json::parse(r.out);
  CHECK(j["machine_model"]["nic"]["on"] == false);
  CHECK(j["machine_model"]["chunk"]["bytes"]["source"] == "ideal: every loss off");
  // The class defaults back: the same catalog as the analyzer's, but for
  // the model; the other sections byte for byte.
  r = run(kTool + " set-model " + ideal + " --class-default --out " + back);
  REQUIRE(r.exit_code == 0);
  r = run(kTool + " inspect --verbose " + back);
  CHECK(r.out.find("sources: class default\n  forwarder.slope 0.036: class default: simulator/contention.json ") !=
        std::string::npos);
  r = run(kTool + " diff " + sample() + " " + back);
  CHECK(r.exit_code == 0);
  // A table that is not one: exit 2 at its line and column, nothing written.
  const std::string bad = dir.write("bad.json", "{\"format\": \"vp-contention\", \"version\": 2}\n");
  r = run(kTool + " set-model " + sample() + " --table " + bad + " --out " + dir.path() + "/no.vpcat");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(bad + ":1:") != std::string::npos);
  r = run(kTool + " set-model " + sample() + " --ideal --class-default --out " + dir.path() + "/no.vpcat");
  CHECK(r.exit_code == 1);
  r = run("test -e " + dir.path() + "/no.vpcat");
  CHECK(r.exit_code != 0);
}
