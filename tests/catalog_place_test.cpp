// vp-catalog place: the choice of a job's placement among free GPUs, through
// the real binary, on the 4-node switch and the 32-node leaf/spine catalogs.
#include <doctest/doctest.h>

#include "support.hpp"
#include "vp/catalog/json_mirror.hpp"

namespace {

using vp::catalog::Json;
using vp::test::run;

const std::string kTool = VP_CATALOG_BIN;
std::string four_nodes() { return vp::test::fixture("catalogs/golden/pcie-gen4-2s4sw8g-4n-switch.vpcat"); }

vp::test::RunResult place(const std::string& catalog, const std::string& free, const std::string& args) {
  return run(kTool + " place " + catalog + " --free " + vp::test::shell_quote(free) + " " + args);
}

const Json& chosen(const Json& j) { return j["candidates"][j["choice"].get<std::size_t>() - 1]; }

}  // namespace

TEST_CASE("vp-catalog place: every free GPU asked for is the only placement, and no node is left partial") {
  vp::test::TempDir dir;
  const std::string free = dir.write("free.txt", "# two nodes' worth\ngpu01:0-3\n\ngpu03:*   # all of it\n");
  const vp::test::RunResult r = place(four_nodes(), free, "--gpus 12 --json");
  REQUIRE(r.exit_code == 0);
  const Json j = Json::parse(r.out);
  CHECK(j["format"] == "vp-catalog-place");
  CHECK(j["candidates"].size() == 1);
  CHECK(chosen(j)["placement"] == "gpu01:0-3,gpu03:*");
  CHECK(j["partial_nodes_before"] == 1);
  CHECK(j["partial_nodes_after"] == 0);
  CHECK(j["free_gpus_before"] == 12);
  CHECK(j["free_gpus_after"] == 0);
}

TEST_CASE("vp-catalog place: the fastest the planner expects, fragmentation breaking what --slack calls a tie") {
  vp::test::TempDir dir;
  // gpu01 wholly free; gpu02 already runs a job on its odd GPUs.
  const std::string free = dir.write("free.txt", "gpu01:*\ngpu02:0,2,4,6\n");
  vp::test::RunResult r = place(four_nodes(), free, "--gpus 4 --json --slack 0");
  REQUIRE(r.exit_code == 0);
  Json j = Json::parse(r.out);
  CHECK(j["choice"] == 1);
  for (const Json& c : j["candidates"]) CHECK(c["expected_us"].get<double>() >= chosen(j)["expected_us"].get<double>());
  // The judge's time beside it is the one `vp-catalog score` gives the same placement.
  const std::string placement = chosen(j)["placement"];
  const vp::test::RunResult s =
      run(kTool + " score " + four_nodes() + " --gpus " + placement + " --workload uniform --json");
  REQUIRE(s.exit_code == 0);
  CHECK(Json::parse(s.out)["placements"][0]["planned_us"] == chosen(j)["planned_us"]);
  // gpu01:0,2,4,6 and gpu02:0,2,4,6 are one placement up to the node's
  // symmetry: the same time. Only the second closes a partial node, and with a
  // slack wide enough to take in every candidate, the fewest partial nodes win.
  r = place(four_nodes(), free, "--gpus 4 --json --slack 10");
  REQUIRE(r.exit_code == 0);
  j = Json::parse(r.out);
  CHECK(chosen(j)["placement"] == "gpu02:0,gpu02:2,gpu02:4,gpu02:6");
  CHECK(j["partial_nodes_before"] == 1);
  CHECK(j["partial_nodes_after"] == 0);
}

TEST_CASE("vp-catalog place: among equally fast placements, the one that leaves the fewest partial nodes") {
  // docs/subsets.md "Choosing a placement": the fragmented 32-node cluster.
  const std::string catalog = vp::test::fixture("catalogs/golden/pcie-gen4-2s4sw8g-32n-leafspine2to1.vpcat");
  const std::string free = vp::test::fixture("../docs/examples/fragmented-free.txt");
  const vp::test::RunResult r = place(catalog, free, "--gpus 16 --json");
  REQUIRE(r.exit_code == 0);
  const Json j = Json::parse(r.out);
  CHECK(j["partial_nodes_before"] == 30);
  const double fastest = j["candidates"][0]["expected_us"];
  for (const Json& c : j["candidates"]) {
    CHECK(c["expected_us"].get<double>() >= fastest);
    CHECK(c["planner_bound_us"].get<double>() <= c["expected_us"].get<double>());
    CHECK(c["planner_bound_us"].get<double>() <= c["bound_us"].get<double>() + 1e-3);  // never above the judge's
    if (c["expected_us"].get<double>() <= fastest * 1.05)
      CHECK(c["partial_nodes_after"].get<int>() >= j["partial_nodes_after"].get<int>());
  }
  // With a slack that takes in every 16-node candidate: GPU 0 of sixteen
  // nodes that have nothing else free (one GPU per NIC), and sixteen partial
  // nodes become full, whatever the planner makes of each candidate's time.
  const vp::test::RunResult wide = place(catalog, free, "--gpus 16 --json --slack 0.5");
  REQUIRE(wide.exit_code == 0);
  const Json w = Json::parse(wide.out);
  CHECK(chosen(w)["placement"] ==
        "gpu001:0,gpu002:0,gpu004:0,gpu005:0,gpu007:0,gpu008:0,gpu009:0,gpu010:0,gpu012:0,gpu013:0,gpu015:0,gpu016:0,"
        "gpu017:0,gpu018:0,gpu020:0,gpu022:0");
  CHECK(w["partial_nodes_after"] == 14);
  // The candidates are a few, never an enumeration, and distinct.
  CHECK(j["candidates"].size() <= 4 * (4 + 3));
  for (std::size_t a = 0; a < j["candidates"].size(); ++a)
    for (std::size_t b = a + 1; b < j["candidates"].size(); ++b)
      CHECK(j["candidates"][a]["placement"] != j["candidates"][b]["placement"]);
  // The text form says the same.
  const vp::test::RunResult text = place(catalog, free, "--gpus 16 --slack 0.5");
  CHECK(text.exit_code == 0);
  CHECK(text.out.rfind("place 16 GPUs on gpu001:0,gpu002:0,", 0) == 0);
  CHECK(text.out.find("  fragmentation: partial nodes 30 -> 14 of 32; free GPUs 60 -> 44\n") != std::string::npos);
}

TEST_CASE("vp-catalog place: bad free files name the file, the line and the reason, exit 2") {
  vp::test::TempDir dir;
  auto bad = [&](const std::string& content, const std::string& err) {
    const std::string free = dir.write("free.txt", content);
    const vp::test::RunResult r = place(four_nodes(), free, "--gpus 2");
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "vp-catalog: error: " + free + err + "\n");
  };
  bad("gpu01:0-3\ngpu09:0\n", ":2: 'gpu09:0': the catalog has no node named 'gpu09'");
  bad("gpu01:9\n", ":1: 'gpu01:9': local GPU 9, the node has 8");
  bad("gpu01\n", ":1: 'gpu01': not HOSTS:GPUS (gpu03:0-3, gpu[05-08]:*)");
  bad("gpu01:0-3\n# a comment\ngpu01:2\n", ":3: GPU 2 of node gpu01 is already listed on line 1");
  bad("gpu[01-02:*\n", ":1: host list \"gpu[01-02\": unclosed '[' at column 4");
  bad("gpu01:x\n", ":1: 'gpu01:x': not NODE:A, NODE:A-B, NODE:* or NODE:BUS-ID");
  bad("# nothing free\n\n", ": no free GPU listed (one HOSTS:GPUS entry per line)");
  const vp::test::RunResult r = place(four_nodes(), "/no/such/free.txt", "--gpus 2");
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("vp-catalog: error: /no/such/free.txt: cannot read the file", 0) == 0);
}

TEST_CASE("vp-catalog place: more GPUs than are free is a usage error, exit 1") {
  vp::test::TempDir dir;
  const std::string free = dir.write("free.txt", "gpu02:0-3\n");
  vp::test::RunResult r = place(four_nodes(), free, "--gpus 5");
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err == "vp-catalog: error: --gpus 5: " + free + " lists 4 free GPUs\n");
  r = place(four_nodes(), free, "--gpus 0");
  CHECK(r.exit_code == 1);
  r = place(four_nodes(), free, "--gpus 2 --workload nosuch");
  CHECK(r.exit_code == 1);
}
