// vp-sim as a user meets it: the real binary on a catalog, its results
// (every scheduler at or above the bound), its whole error messages
// ("where: what (why)") and exit codes (0 ok, 1 usage, 2 bad input), and
// its --help against docs/simulator.md.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "planner_support.hpp"
#include "vp/analysis/resize.hpp"
#include "vp/catalog/reader.hpp"
#include "vp/catalog/writer.hpp"
#include "support.hpp"

using vp::test::RunResult;
using vp::test::TempDir;

namespace {

const std::string kBin = VP_SIM_BIN;

// The 4-node catalog (built in process) in a temporary folder.
struct Files {
  TempDir dir;
  std::string catalog;
  Files() {
    const auto& p = vp::plantest::platform("4n-switch");
    catalog = dir.write("4n.vpcat", std::string(p.bytes.begin(), p.bytes.end()));
  }
  RunResult sim(const std::string& args) const { return vp::test::run(vp::test::shell_quote(kBin) + " --catalog " + vp::test::shell_quote(catalog) + " " + args); }
  RunResult with_demand(const std::string& text, const std::string& more = "--json") const {
    return sim("--demand " + vp::test::shell_quote(dir.write("D.json", text)) + " " + more);
  }
};

void check_error(const RunResult& r, int code, const std::string& message) {
  CHECK(r.exit_code == code);
  CHECK(r.out == "");
  CHECK(r.err == "vp-sim: error: " + message + "\n");
}

}  // namespace

TEST_CASE("vp-sim --json: the bound, its cut, and every scheduler checked and at or above it") {
  Files f;
  const RunResult r = f.sim("--workload moe:zipf=1.2,tokens=256 --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["workload"] == "moe:elem=2,experts=128,hidden=2048,seed=1,tokens=256,topk=8,zipf=1.2");
  CHECK(j["gpus"] == 32);
  CHECK(j["calls"] == 1);
  const double bound = j["lower_bound_us"];
  CHECK(bound > 5.0);
  CHECK(j["bound_cut"]["name"].get<std::string>() != "");
  std::set<std::string> names;
  for (const auto& [name, res] : j["results"].items()) {
    names.insert(name);
    CHECK(res["time_us"].get<double>() >= bound);
    CHECK(res["ratio_to_bound"].get<double>() == doctest::Approx(res["time_us"].get<double>() / bound));
    CHECK(res["steps"].get<int>() >= 1);
  }
  CHECK(names == std::set<std::string>{"variopath", "fanout", "nccl", "spreadout", "fast", "deepep_nvlink_style",
                                       "deepep_pcie"});
}

TEST_CASE("vp-sim marks the baselines DeepEP would not run here hypothetical, in JSON and in text") {
  Files f;  // 4 nodes of 8 GPUs, one ConnectX NIC per two GPUs
  const RunResult r = f.sim("--workload uniform --schedulers fanout,deepep_pcie,deepep_nvlink_style --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK_FALSE(j["results"]["fanout"].contains("hypothetical"));
  CHECK(j["results"]["deepep_pcie"]["hypothetical"].get<std::string>().find("one NIC per GPU") != std::string::npos);
  CHECK(j["results"]["deepep_nvlink_style"]["hypothetical"].get<std::string>().find("NVLink") != std::string::npos);
  CHECK(j["results"]["deepep_pcie"]["time_us"].get<double>() > 0);  // computed all the same
  const RunResult text = f.sim("--workload uniform --schedulers fanout,deepep_pcie");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("\ndeepep_pcie* ") != std::string::npos);
  CHECK(text.out.find("\n* deepep_pcie is hypothetical here: ") != std::string::npos);
  CHECK(text.out.find("fanout*") == std::string::npos);
}

TEST_CASE("vp-sim --json: the route bound beside the graph bound, and the direct-route schedulers over it") {
  Files f;
  const RunResult r = f.sim("--workload hotspot --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const double bound = j["lower_bound_us"], route = j["route_bound_us"];
  CHECK(route >= bound);
  const std::string resource = j["route_bound_resource"]["name"];
  CHECK(std::regex_match(resource, std::regex(".+/.+ (link|forwarding)")));
  CHECK(j["route_bound_resource"]["time_us"].get<double>() + 5.0 == doctest::Approx(route));
  for (const auto& [name, res] : j["results"].items()) {
    CAPTURE(name);
    const bool direct = name == "fanout" || name == "nccl" || name == "spreadout";
    CHECK(res.contains("ratio_to_route_bound") == direct);
    if (!direct) continue;
    CHECK(res["time_us"].get<double>() >= route * (1 - 1e-9));
    CHECK(res["ratio_to_route_bound"].get<double>() == doctest::Approx(res["time_us"].get<double>() / route));
  }
  // The table shows it too, a "/route" column for the same three.
  const RunResult text = f.sim("--workload hotspot --schedulers fanout,fast");
  REQUIRE_MESSAGE(text.exit_code == 0, text.err);
  CHECK(text.out.find("\nroute bound ") != std::string::npos);
  CHECK(text.out.find(resource) != std::string::npos);
  CHECK(text.out.find("/route") != std::string::npos);
}

TEST_CASE("vp-sim names the workload with its parameters exactly") {
  Files f;
  const RunResult r = f.sim("--workload hotspot:bytes=1048577,factor=2.5 --schedulers fanout --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(nlohmann::json::parse(r.out)["workload"] == "hotspot:bytes=1048577,factor=2.5,hot=0");
}

TEST_CASE("vp-sim runs p2pmark's traffic and reports its aggregate and per-receiver sums") {
  Files f;
  const RunResult r = f.sim("--workload shift:k=3,bytes=4096 --schedulers fanout --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["workload"] == "shift:bytes=4096,k=3");
  CHECK(j["total_bytes"] == 32 * 4096.0);
  const nlohmann::json& fanout = j["results"]["fanout"];
  CHECK(fanout["aggregate_gbps"].get<double>() == doctest::Approx(32 * 4096.0 / fanout["time_us"].get<double>() / 1e3));
  CHECK(fanout["receiver_sum_gbps"].get<double>() >= fanout["aggregate_gbps"].get<double>() * (1 - 1e-12));
  const RunResult dense = f.sim("--workload p2pmark:bytes=4096 --schedulers fanout --json");
  REQUIRE_MESSAGE(dense.exit_code == 0, dense.err);
  CHECK(nlohmann::json::parse(dense.out)["total_bytes"] == 32 * 31 * 4096.0);
  const RunResult incast = f.sim("--workload incast:reader=5 --schedulers fanout --json");
  REQUIRE_MESSAGE(incast.exit_code == 0, incast.err);
  CHECK(nlohmann::json::parse(incast.out)["total_bytes"] == 31 * 67108864.0);
  check_error(f.sim("--workload shift:k=32"), 1,
              "--workload shift: k=32 is a multiple of the 32 GPUs (every GPU would read from itself)");
  check_error(f.sim("--workload incast:reader=32"), 1, "--workload incast: reader=32 is not a GPU (the catalog has 32)");
}

TEST_CASE("vp-sim reads vp-plan's demand files and prints a table by default") {
  Files f;
  std::string dense = "{\"gpus\": 32, \"entries\": [[0, 31, 1048576], [31, 0, 4096], [3, 4, 65536]]}";
  const RunResult r = f.with_demand(dense, "--schedulers fanout,variopath");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("lower bound") != std::string::npos);
  // Only the chosen schedulers, in the fixed order.
  CHECK(r.out.find("variopath") < r.out.find("fanout"));
  CHECK(r.out.find("spreadout") == std::string::npos);
}

TEST_CASE("vp-sim on a sequence: totals, mean and worst per scheduler, and every call") {
  Files f;
  const RunResult r = f.sim("--workload drift:calls=3,tokens=128 --schedulers variopath,fanout,deepep_pcie --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["calls"] == 3);
  REQUIRE(j["per_call"].size() == 3);
  double bound = 0;
  for (const auto& c : j["per_call"]) bound += c["lower_bound_us"].get<double>();
  CHECK(j["lower_bound_us"].get<double>() == doctest::Approx(bound));
  double route = 0;
  for (const auto& c : j["per_call"]) route += c["route_bound_us"].get<double>();
  CHECK(j["route_bound_us"].get<double>() == doctest::Approx(route));
  CHECK(j["per_call"][j["route_bound_resource"]["call"].get<int>()]["route_bound_resource"]["name"] ==
        j["route_bound_resource"]["name"]);
  for (const auto& [name, res] : j["results"].items()) {
    CHECK(res["worst_ratio_to_bound"].get<double>() >= res["mean_ratio_to_bound"].get<double>());
    CHECK(res["mean_ratio_to_bound"].get<double>() >= 1.0);
    CHECK(res.contains("ratio_to_route_bound") == (name == "fanout"));
  }
}

TEST_CASE("vp-sim --calls: a slice of a sequence, numbered as the sequence") {
  Files f;
  const std::string drift = "--workload drift:calls=5,tokens=128 --schedulers variopath,fanout --json";
  const RunResult all = f.sim(drift);
  REQUIRE_MESSAGE(all.exit_code == 0, all.err);
  const RunResult part = f.sim(drift + " --calls 2:4");
  REQUIRE_MESSAGE(part.exit_code == 0, part.err);
  const nlohmann::json a = nlohmann::json::parse(all.out), p = nlohmann::json::parse(part.out);
  CHECK(!a.contains("first_call"));
  CHECK(p["calls"] == 2);
  CHECK(p["first_call"] == 2);
  REQUIRE(p["per_call"].size() == 2);
  for (int i = 0; i < 2; ++i) {
    CHECK(p["per_call"][i]["lower_bound_us"] == a["per_call"][2 + i]["lower_bound_us"]);
    CHECK(p["per_call"][i]["results"]["fanout"]["time_us"] == a["per_call"][2 + i]["results"]["fanout"]["time_us"]);
  }
  const int worst = p["results"]["fanout"]["worst_call"];
  CHECK((worst == 2 || worst == 3));
  const int bound_call = p["bound_cut"]["call"];
  CHECK((bound_call == 2 || bound_call == 3));
  // One call: a single demand's report, with its number.
  const RunResult one = f.sim(drift + " --calls 4");
  REQUIRE_MESSAGE(one.exit_code == 0, one.err);
  const nlohmann::json o = nlohmann::json::parse(one.out);
  CHECK(o["calls"] == 1);
  CHECK(o["first_call"] == 4);
  CHECK(o["lower_bound_us"] == a["per_call"][4]["lower_bound_us"]);
  check_error(f.sim(drift + " --calls 3:9"), 1, "--calls 3:9: the workload has calls 0 to 4");
  check_error(f.sim(drift + " --calls 3:3"), 1, "--calls 3:3: FIRST must be below END");
  check_error(f.sim(drift + " --calls x"), 1, "--calls x: not FIRST:END or FIRST (call numbers from 0)");
  check_error(f.sim("--workload uniform --calls 1"), 1, "--calls 1: the workload has one call, 0");
}

TEST_CASE("vp-sim --nodes: a job on whole nodes of a switch is the cluster of those nodes, for every scheduler") {
  Files f;
  // The 2-node cluster of the same switch, by vp-catalog resize's composition.
  const auto& p = vp::plantest::platform("4n-switch");
  vp::ResizeRequest two;
  two.nodes = {vp::NodeInfo{"gpu02", "pcie-gen4-2s4sw8g"}, vp::NodeInfo{"gpu03", "pcie-gen4-2s4sw8g"}};
  const std::vector<std::uint8_t> bytes =
      vp::catalog::write_catalog(vp::resize_catalog(vp::catalog::read_catalog(p.bytes), two));
  const std::string small = f.dir.write("2n.vpcat", std::string(bytes.begin(), bytes.end()));
  // A planning budget: the measured planning time of the job and of the cluster differ.
  const std::string workload = " --workload moe:zipf=1.2,tokens=256 --json --epsilon 0 --planning-us 100";
  const RunResult job = f.sim("--nodes 'gpu[02-03]'" + workload);
  REQUIRE_MESSAGE(job.exit_code == 0, job.err);
  const RunResult alone =
      vp::test::run(vp::test::shell_quote(kBin) + " --catalog " + vp::test::shell_quote(small) + workload);
  REQUIRE_MESSAGE(alone.exit_code == 0, alone.err);
  const nlohmann::json a = nlohmann::json::parse(job.out), b = nlohmann::json::parse(alone.out);
  CHECK(a["gpus"] == 16);
  CHECK(a["nodes"] == 2);
  std::vector<int> map;
  for (int g = 8; g < 24; ++g) map.push_back(g);
  CHECK(a["gpu_map"] == map);
  CHECK(!b.contains("gpu_map"));
  CHECK(a["lower_bound_us"].get<double>() == doctest::Approx(b["lower_bound_us"].get<double>()).epsilon(1e-12));
  CHECK(a["route_bound_us"].get<double>() == doctest::Approx(b["route_bound_us"].get<double>()).epsilon(1e-12));
  REQUIRE(a["results"].size() == 7);
  for (const auto& [name, res] : b["results"].items()) {
    INFO(name);
    CHECK(a["results"][name]["time_us"].get<double>() ==
          doctest::Approx(res["time_us"].get<double>()).epsilon(1e-9));
    CHECK(a["results"][name]["steps"] == res["steps"]);
  }
}

TEST_CASE("vp-sim on a machine without NICs: DeepEP's PCIe mode skipped, or refused when asked for") {
  // One node, no NIC: every intra-node payload of DeepEP's PCIe mode needs one.
  const std::string catalog = vp::test::fixture("catalogs/golden/hwloc-power8gpudistances.vpcat");
  const std::string run = vp::test::shell_quote(kBin) + " --catalog " + vp::test::shell_quote(catalog);
  const RunResult r = vp::test::run(run + " --workload uniform --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.rfind("vp-sim: deepep_pcie skipped on this machine: deepep_pcie_schedule: ", 0) == 0);
  CHECK(r.err.find(" has no NIC to send through\n") != std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["results"].contains("fanout"));
  CHECK_FALSE(j["results"].contains("deepep_pcie"));
  CHECK(j["skipped"].contains("deepep_pcie"));
  const RunResult asked = vp::test::run(run + " --workload uniform --schedulers fanout,deepep_pcie");
  CHECK(asked.exit_code == 1);
  CHECK(asked.err.rfind("vp-sim: error: --schedulers deepep_pcie: not on this machine: deepep_pcie_schedule: ", 0) == 0);
}

TEST_CASE("vp-sim --gpus: partial nodes, the baselines that need even nodes skipped or refused") {
  Files f;
  const RunResult r = f.sim("--gpus 'gpu01:0-2,gpu03:*' --workload uniform --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err ==
        "vp-sim: fast skipped on this subset: fast_schedule: every node needs the same number of GPUs (gpu03 has 8, "
        "gpu01 has 3)\n"
        "vp-sim: deepep_nvlink_style skipped on this subset: deepep_nvlink_style_schedule: every node needs the same "
        "number of GPUs (gpu03 has 8, gpu01 has 3)\n");
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["gpus"] == 11);
  CHECK(j["gpu_map"] == std::vector<int>{0, 1, 2, 16, 17, 18, 19, 20, 21, 22, 23});
  const double bound = j["lower_bound_us"];
  std::set<std::string> names;
  for (const auto& [name, res] : j["results"].items()) {
    names.insert(name);
    CHECK(res["time_us"].get<double>() >= bound);
  }
  CHECK(names == std::set<std::string>{"variopath", "fanout", "nccl", "spreadout", "deepep_pcie"});
  CHECK(j["skipped"].size() == 2);
  CHECK(j["skipped"]["fast"].get<std::string>().find("every node needs the same number of GPUs") != std::string::npos);
  check_error(f.sim("--gpus 'gpu01:0-2,gpu03:*' --workload uniform --svg x.svg --svg-scheduler fast"), 1,
              "--svg-scheduler fast: skipped on this subset (fast_schedule: every node needs the same number of GPUs "
              "(gpu03 has 8, gpu01 has 3))");
  check_error(f.sim("--gpus 'gpu01:0-2,gpu03:*' --workload uniform --schedulers fanout,fast"), 1,
              "--schedulers fast: not on this subset: fast_schedule: every node needs the same number of GPUs "
              "(gpu03 has 8, gpu01 has 3)");
  check_error(f.with_demand("{\"gpus\": 32,\n \"entries\": []}", "--gpus 0-7"), 2,
              f.dir.path() + "/D.json:1:10: \"gpus\" is 32, the subset has 8 GPUs\n"
              "{\"gpus\": 32,\n"
              "         ^");
  check_error(f.sim("--gpus 0-7 --nodes gpu01 --workload uniform"), 1, "--gpus excludes --nodes (run 'vp-sim --help' for the options)");
  check_error(f.sim("--gpus 0-40 --workload uniform"), 1, "--gpus '0-40': GPU 40, the catalog has 32");
}

TEST_CASE("vp-sim errors: where, what, why, and the exit code") {
  Files f;
  check_error(f.with_demand("{\"gpus\": 8,\n \"entries\": []}"), 2,
              f.dir.path() + "/D.json:1:10: \"gpus\" is 8, the catalog has 32 GPUs\n"
              "{\"gpus\": 8,\n"
              "         ^");
  check_error(f.with_demand("{\"gpus\": 32,\n \"entries\": [[0, 1, -3]]}"), 2,
              f.dir.path() + "/D.json:2:21: entries[0][2]: demand entry is not a byte count (-3: bytes must be a finite whole number >= 0)\n"
              " \"entries\": [[0, 1, -3]]}\n"
              "                    ^");
  check_error(f.sim("--workload zipf"), 1,
              "--workload \"zipf\": unknown workload (expected uniform, p2pmark, shift, incast, hotspot, moe, seqpar or drift)");
  check_error(f.sim("--workload moe:zipff=1"), 1,
              "--workload moe: unknown key \"zipff\" (expected zipf, hidden, experts, topk, tokens, elem, seed)");
  check_error(f.sim("--workload moe:zipf=x"), 1, "--workload moe: zipf=x is not a number");
  check_error(f.sim("--workload hotspot:hot=32"), 1, "--workload hotspot: hot=32 is not a GPU (the catalog has 32)");
  // Parameters that set a generator's work are capped: a slip is a usage
  // error, not a run of days with no output.
  check_error(f.sim("--workload drift:calls=100000000"), 1,
              "--workload drift: calls=100000000 is above the limit of 1000 (a cap that keeps a run within minutes)");
  check_error(f.sim("--workload moe:tokens=1e8,hidden=1e8"), 1,
              "--workload moe: tokens=1e8 is above the limit of 1048576 (a cap that keeps a run within minutes)");
  check_error(f.sim("--workload moe:hidden=1e8"), 1,
              "--workload moe: hidden=1e8 is above the limit of 1048576 (a cap that keeps a run within minutes)");
  check_error(f.sim("--workload uniform --schedulers fanout,deepep"), 1,
              "--schedulers: unknown scheduler \"deepep\" (expected all, or a comma list of variopath, fanout, "
              "nccl, spreadout, fast, deepep_nvlink_style, deepep_pcie)");
  const RunResult missing = vp::test::run(vp::test::shell_quote(kBin) + " --catalog /nonexistent/c.vpcat --workload uniform");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.rfind("vp-sim: error: /nonexistent/c.vpcat", 0) == 0);
  const std::string not_catalog = f.dir.write("x.vpcat", "hello");
  const RunResult bad = vp::test::run(vp::test::shell_quote(kBin) + " --catalog " + vp::test::shell_quote(not_catalog) + " --workload uniform");
  CHECK(bad.exit_code == 3);  // an invalid catalog, as from every tool
  CHECK(bad.err.rfind("vp-sim: error: " + not_catalog + ": ", 0) == 0);
  CHECK(f.sim("").exit_code == 1);  // neither --demand nor --workload
  CHECK(f.sim("--workload uniform --demand x.json").exit_code == 1);
  CHECK(f.sim("--workload uniform --epsilon 0.5").exit_code == 1);
}

TEST_CASE("vp-sim refuses a pair above 2^53 bytes at its entry instead of rounding it") {
  Files f;
  // 2^53 is exact in a double: simulated, every scheduler on the same bytes.
  const RunResult exact = f.with_demand("{\"gpus\": 32, \"entries\": [[0, 1, 9007199254740992]]}");
  REQUIRE_MESSAGE(exact.exit_code == 0, exact.err);
  CHECK(nlohmann::json::parse(exact.out)["total_bytes"].get<double>() == 9007199254740992.0);
  // 2^53 + 1 is not: refused at the entry, exit 2.
  check_error(f.with_demand("{\"gpus\": 32,\n \"entries\": [[0, 1, 9007199254740993]]}"), 2,
              f.dir.path() + "/D.json:2:14: more than 2^53 bytes from GPU 0 to GPU 1: vp-sim simulates at "
              "most 2^53 bytes per pair (its byte counts are doubles)\n"
              " \"entries\": [[0, 1, 9007199254740993]]}\n"
              "             ^");
  // Two entries of one pair that add up past it: refused at the first.
  const RunResult sum = f.with_demand("{\"gpus\": 32, \"entries\": [[0, 1, 9007199254740992], [2, 3, 5], [0, 1, 1]]}");
  CHECK(sum.exit_code == 2);
  CHECK(sum.err.find("/D.json:1:26: more than 2^53 bytes from GPU 0 to GPU 1") != std::string::npos);
}

namespace {

// vp-sim on the committed 16-GPU fixture catalog (quad-rail4: 4 nodes, 4
// rails).
RunResult sim_quad(const std::string& args) {
  return vp::test::run(vp::test::shell_quote(kBin) + " --catalog " +
                       vp::test::shell_quote(std::string(VP_SOURCE_DIR) + "/fixtures/catalogs/format-1.0/quad-rail4.vpcat") +
                       " " + args);
}

}  // namespace

TEST_CASE("vp-sim --sizes: nccl-tests' sizes, counts, algbw and busbw, the time growing with the size") {
  const RunResult r = sim_quad("--workload uniform --schedulers fanout,nccl --sizes 1K:64K:4 --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["sizes"] == nlohmann::json{{"min", 1024}, {"max", 65536}, {"factor", 4}});
  CHECK_FALSE(j.contains("results"));
  REQUIRE(j["per_size"].size() == 4);
  const double n = 16;
  std::map<std::string, double> previous;
  for (std::size_t k = 0; k < 4; ++k) {
    const nlohmann::json& row = j["per_size"][k];
    const std::uint64_t size = std::uint64_t{1024} << (2 * k);
    CAPTURE(size);
    CHECK(row["size"] == size);
    CHECK(row["count"] == size / 4 / 16);               // floats per peer, as nccl-tests prints it
    CHECK(row["total_bytes"] == double(size) * (n - 1));  // size / n to every other rank
    for (const std::string name : {"fanout", "nccl"}) {
      const nlohmann::json& res = row["results"][name];
      const double time = res["time_us"], algbw = res["algbw_gbps"], busbw = res["busbw_gbps"];
      CHECK(algbw == doctest::Approx(double(size) / time / 1e3));
      CHECK(busbw == doctest::Approx(algbw * (n - 1) / n));
      CHECK(time > previous[name]);
      previous[name] = time;
    }
  }
  // A size off nccl-tests' grid: each peer's share rounded down to 16-byte
  // floats (1000 / 4 / 16 = 15 floats, 12 aligned), the size reported with it.
  const RunResult odd = sim_quad("--workload uniform --schedulers fanout --sizes 1000:1000 --json");
  REQUIRE_MESSAGE(odd.exit_code == 0, odd.err);
  const nlohmann::json o = nlohmann::json::parse(odd.out)["per_size"][0];
  CHECK(o["count"] == 12);
  CHECK(o["size"] == 12 * 4 * 16);
  // MAX off the grid: the sweep stops below it, as nccl-tests' loop does.
  const RunResult grid = sim_quad("--workload uniform --schedulers fanout --sizes 1K:60K:4 --json");
  REQUIRE_MESSAGE(grid.exit_code == 0, grid.err);
  CHECK(nlohmann::json::parse(grid.out)["per_size"].size() == 3);
}

TEST_CASE("vp-sim --sizes: a skewed workload keeps its shape, scaled to the size exactly") {
  const RunResult one = sim_quad("--workload hotspot --schedulers fanout --json");
  const RunResult swept = sim_quad("--workload hotspot --schedulers fanout --sizes 4K:4K --json");
  REQUIRE_MESSAGE(one.exit_code == 0, one.err);
  REQUIRE_MESSAGE(swept.exit_code == 0, swept.err);
  const nlohmann::json row = nlohmann::json::parse(swept.out)["per_size"][0];
  // Every rank's mean is the size: the off-diagonal bytes are size x (n - 1).
  CHECK(row["total_bytes"] == 4096.0 * 15);
  // The shape kept: hot spot's bytes are a fixed multiple of the uniform
  // workload's, so the cut binds at the same place and time scales.
  CHECK(row["bound_cut"]["name"] == nlohmann::json::parse(one.out)["bound_cut"]["name"]);
}

TEST_CASE("vp-sim --sizes: nccl-tests' table in text") {
  const RunResult r = sim_quad("--workload uniform --schedulers fanout --sizes 1K:2K");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("workload uniform:bytes=1048576, its shape scaled to sizes 1024 to 2048 (x2)") !=
        std::string::npos);
  CHECK(r.out.find("\n#       size        count      bound       time    algbw    busbw  /bound\n") !=
        std::string::npos);
  CHECK(std::regex_search(r.out, std::regex("\n        1024           16 +[0-9.]+ +[0-9.]+ +0\\.20 +0\\.19 +1\\.000\n")));
  CHECK(std::regex_search(r.out, std::regex("\n        2048           32 ")));
}

TEST_CASE("vp-sim --sizes: sizes with no meaning refused, exit 1") {
  const std::string head = "--sizes ";
  const std::string form = ": not MIN:MAX or MIN:MAX:FACTOR (sizes in bytes, each a whole number with an optional K, "
                           "M or G for 2^10, 2^20, 2^30, as nccl-tests' -b and -e; FACTOR as its -f)";
  for (const std::string bad : {"1K", "1K:2K:2:2", "1K:64X", "1.5K:2K", ":2K", "1K:", "-1:2K"})
    check_error(sim_quad("--workload uniform --sizes " + vp::test::shell_quote(bad)), 1, head + bad + form);
  check_error(sim_quad("--workload uniform --sizes 64M:1K"), 1, head + "64M:1K: MIN is above MAX");
  check_error(sim_quad("--workload uniform --sizes 0:1K"), 1,
                  head + "0:1K: 0 is not a size from 1 byte to 1024G");
  check_error(sim_quad("--workload uniform --sizes 1K:2048G"), 1,
                  head + "1K:2048G: 2048G is not a size from 1 byte to 1024G");
  check_error(sim_quad("--workload uniform --sizes 1K:1M:1"), 1,
                  head + "1K:1M:1: FACTOR 1 is not a whole number from 2 to 1024 (nccl-tests' -f)");
  check_error(sim_quad("--workload uniform --sizes 128:1K"), 1,
                  head + "128:1K: 128 bytes is less than 16 bytes per rank on 16 ranks (nccl-tests sends "
                         "16-byte-aligned shares of floats); the smallest size is 256");
  check_error(sim_quad("--workload moe:tokens=0 --sizes 1K:2K"), 1,
                  "--sizes: the workload moe:elem=2,experts=128,hidden=2048,seed=1,tokens=0,topk=8,"
                  "zipf=1 moves no bytes between ranks: it has no shape to scale");
  check_error(sim_quad("--workload drift:calls=2,tokens=64 --sizes 1K:2K"), 1,
                  "--sizes: the workload drift:calls=2,elem=2,experts=128,hidden=2048,seed=1,"
                  "tokens=64,topk=8 is a sequence of 2 calls; sweep one of them (--calls FIRST)");
  TempDir dir;
  const std::string demand = dir.write("D.json", "{\"gpus\": 16, \"entries\": [[0, 1, 4096]]}");
  check_error(sim_quad("--demand " + vp::test::shell_quote(demand) + " --sizes 1K:2K"), 1,
                  "--sizes scales a --workload; a demand file's bytes are its own sizes");
  check_error(sim_quad("--workload uniform --sizes 1K:2K --svg x.svg"), 1,
                  "--svg draws one run: not with --sizes");
  // One call of a sequence is a shape.
  const RunResult call = sim_quad("--workload drift:calls=2,tokens=64 --calls 1 --schedulers fanout --sizes 1K:2K");
  CHECK_MESSAGE(call.exit_code == 0, call.err);
}

TEST_CASE("vp-sim --model contention: the default table, installed beside the binary or the source tree's") {
  const std::string committed = std::string(VP_SOURCE_DIR) + "/simulator/contention.json";
  // A build tree's vp-sim: the source tree's table.
  const RunResult built = sim_quad("--workload uniform --schedulers fanout --model contention --json");
  REQUIRE_MESSAGE(built.exit_code == 0, built.err);
  CHECK(nlohmann::json::parse(built.out)["contention"]["file"] == committed);
  const RunResult text = sim_quad("--workload uniform --schedulers fanout --model contention");
  CHECK(text.out.find("; model contention (" + committed + "); sync rank\n") != std::string::npos);
  // An installed one: <prefix>/share/vpcat/contention.json beside <prefix>/bin.
  TempDir prefix;
  std::ifstream in(committed);
  std::stringstream table;
  table << in.rdbuf();
  std::string installed = table.str();
  const std::string nic_slope = "\"value\": 0.004,";  // the table's nic.slope
  REQUIRE(installed.find(nic_slope) != std::string::npos);
  installed.replace(installed.find(nic_slope), nic_slope.size(), "\"value\": 0.25,");
  const std::string bin = prefix.path() + "/bin/vp-sim";
  REQUIRE(vp::test::run("mkdir -p " + vp::test::shell_quote(prefix.path() + "/bin") + " " +
                        vp::test::shell_quote(prefix.path() + "/share/vpcat") + " && cp " +
                        vp::test::shell_quote(kBin) + " " + vp::test::shell_quote(bin)).exit_code == 0);
  const std::string path = prefix.write("share/vpcat/contention.json", installed);
  const std::string catalog =
      vp::test::shell_quote(std::string(VP_SOURCE_DIR) + "/fixtures/catalogs/format-1.0/quad-rail4.vpcat");
  const RunResult r = vp::test::run(vp::test::shell_quote(bin) + " --catalog " + catalog +
                                    " --workload uniform --schedulers fanout --model contention --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["contention"]["file"] == path);
  CHECK(j["contention"]["nic"]["slope"] == 0.25);
  // --contention FILE overrides it.
  const RunResult given = vp::test::run(vp::test::shell_quote(bin) + " --catalog " + catalog +
                                        " --workload uniform --schedulers fanout --model contention --contention " +
                                        vp::test::shell_quote(committed) + " --json");
  REQUIRE_MESSAGE(given.exit_code == 0, given.err);
  CHECK(nlohmann::json::parse(given.out)["contention"]["file"] == committed);
  check_error(sim_quad("--workload uniform --contention " + vp::test::shell_quote(committed)), 1,
                  "--contention FILE goes with --model contention");
}

TEST_CASE("vp-sim --help and docs/simulator.md name the same options") {
  const RunResult r = vp::test::run(vp::test::shell_quote(kBin) + " --help");
  REQUIRE(r.exit_code == 0);
  std::set<std::string> help;
  const std::regex option("--[a-z][a-z-]+");
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), option); it != std::sregex_iterator(); ++it)
    help.insert(it->str());
  std::ifstream in(std::string(VP_SOURCE_DIR) + "/docs/simulator.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string readme = ss.str();
  const std::string::size_type start = readme.find("## Simulating schedules: vp-sim");
  REQUIRE(start != std::string::npos);
  const std::string section = readme.substr(start, readme.find("\n## ", start + 1) - start);
  for (const std::string& o : help) {
    CAPTURE(o);
    CHECK(section.find(o) != std::string::npos);
  }
}

TEST_CASE("vp-sim: each scheduler's time is its counts exchange + planning + transfer, every ratio of the total") {
  Files f;  // 32 GPUs: a 5-step allgather
  const RunResult r = f.sim("--workload moe:zipf=1.2,tokens=256 --json --planning-us 250 --latency-us 20");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["planning"] == "250");
  const double bound = j["lower_bound_us"], bytes = j["total_bytes"];
  for (const auto& [name, res] : j["results"].items()) {
    CAPTURE(name);
    const double total = res["time_us"], exchange = res["exchange_us"], planning = res["planning_us"],
                 transfer = res["transfer_us"];
    CHECK(total == doctest::Approx(exchange + planning + transfer).epsilon(1e-12));
    CHECK(res["ratio_to_bound"].get<double>() == doctest::Approx(total / bound));
    CHECK(res["aggregate_gbps"].get<double>() == doctest::Approx(bytes / total / 1e3));
    CHECK(res["planning_measured_us"].get<double>() >= 0);
    if (name == "variopath" || name == "fast") {
      CHECK(planning == 250.0);
      CHECK(exchange >= 5 * 20.0);  // ceil(log2 32) start-ups
      CHECK(total >= transfer + 5 * 20.0 + 250.0);
    } else if (name == "deepep_nvlink_style" || name == "deepep_pcie") {
      CHECK(planning == 0.0);
      CHECK(exchange >= 20.0);
      CHECK(exchange < 5 * 20.0);
    } else {
      CHECK(planning == 0.0);
      CHECK(exchange == 0.0);
      CHECK(total == transfer);
      CHECK(res["ratio_to_route_bound"].get<double>() == doctest::Approx(total / j["route_bound_us"].get<double>()));
    }
  }
  // The same run is the same output: a budget makes it reproducible but for
  // the measured wall clock, recorded apart.
  const RunResult again = f.sim("--workload moe:zipf=1.2,tokens=256 --json --planning-us 250 --latency-us 20");
  nlohmann::json k = nlohmann::json::parse(again.out), l = j;
  for (nlohmann::json* doc : {&k, &l})
    for (auto& [name, res] : doc->at("results").items()) res.erase("planning_measured_us");
  CHECK(k == l);
}

TEST_CASE("vp-sim --planning-us measured charges the measured planning time; the text shows every part") {
  Files f;
  const RunResult r = f.sim("--workload uniform --schedulers variopath,fanout --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["planning"] == "measured");
  const nlohmann::json& v = j["results"]["variopath"];
  CHECK(v["planning_us"] == v["planning_measured_us"]);
  CHECK(v["planning_us"].get<double>() > 0);
  CHECK(j["results"]["fanout"]["planning_us"] == 0.0);

  const RunResult t = f.sim("--workload uniform --schedulers variopath,fanout --planning-us 100");
  REQUIRE_MESSAGE(t.exit_code == 0, t.err);
  CHECK(t.out.find("planning budget 100 us") != std::string::npos);
  CHECK(t.out.find("total_us") != std::string::npos);
  CHECK(t.out.find("exchange_us") != std::string::npos);
  CHECK(t.out.find("transfer_us") != std::string::npos);
  CHECK(t.out.find("total = counts exchange + planning + transfer") != std::string::npos);
  const std::string row = t.out.substr(t.out.find("\nvariopath"));
  CHECK(row.find(" 100.0 ") != std::string::npos);
}

TEST_CASE("vp-sim: a sequence sums each part over its calls") {
  Files f;
  const RunResult r = f.sim("--workload drift:calls=3,tokens=128 --schedulers variopath,nccl --planning-us 40 --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  for (const char* name : {"variopath", "nccl"}) {
    CAPTURE(name);
    const nlohmann::json& s = j["results"][name];
    double total = 0, exchange = 0, planning = 0, transfer = 0;
    for (const auto& c : j["per_call"]) {
      const nlohmann::json& one = c["results"][name];
      total += one["time_us"].get<double>(), exchange += one["exchange_us"].get<double>();
      planning += one["planning_us"].get<double>(), transfer += one["transfer_us"].get<double>();
    }
    CHECK(s["time_us"].get<double>() == doctest::Approx(total));
    CHECK(s["exchange_us"].get<double>() == doctest::Approx(exchange));
    CHECK(s["planning_us"].get<double>() == doctest::Approx(planning));
    CHECK(s["transfer_us"].get<double>() == doctest::Approx(transfer));
    CHECK(s["time_us"].get<double>() == doctest::Approx(exchange + planning + transfer));
  }
  CHECK(j["results"]["variopath"]["planning_us"].get<double>() == doctest::Approx(3 * 40.0));
  CHECK(j["results"]["nccl"]["exchange_us"] == 0.0);
}

TEST_CASE("vp-sim --planning-us: anything but measured or a budget is a usage error") {
  Files f;
  check_error(f.sim("--workload uniform --planning-us soon"), 1,
              "--planning-us soon: expected measured or a budget in microseconds, 0 to 1e9");
  check_error(f.sim("--workload uniform --planning-us -3"), 1,
              "--planning-us -3: expected measured or a budget in microseconds, 0 to 1e9");
}

TEST_CASE("vp-sim --eager: stated in the report and its JSON, only with --sync rank; fan-out unchanged") {
  Files f;
  const RunResult off = f.sim("--workload uniform --schedulers fanout,spreadout --planning-us 0 --json");
  const RunResult on = f.sim("--workload uniform --schedulers fanout,spreadout --planning-us 0 --eager eager --eager-bytes 1e9 --json");
  REQUIRE(off.exit_code == 0);
  REQUIRE(on.exit_code == 0);
  const auto a = nlohmann::json::parse(off.out), b = nlohmann::json::parse(on.out);
  CHECK(!a.contains("eager"));
  CHECK(b["eager"] == "eager");
  CHECK(b["eager_bytes"] == 1e9);
  // Fan-out is one step: nothing to overlap. SpreadOut's senders run ahead
  // of their receivers (every message eager here), which changes its time
  // (here it crowds the receivers: slower, 4892.9 against 3912.4 us).
  CHECK(b["results"]["fanout"]["time_us"] == a["results"]["fanout"]["time_us"]);
  CHECK(b["results"]["spreadout"]["time_us"].get<double>() != a["results"]["spreadout"]["time_us"].get<double>());
  const RunResult text = f.sim("--workload uniform --schedulers fanout --eager detached");
  CHECK(text.out.find("; sync rank, eager sends detached below 65536 bytes\n") != std::string::npos);
  check_error(f.sim("--workload uniform --sync barrier --eager detached"), 1, "--eager detached goes with --sync rank");
  CHECK(f.sim("--workload uniform --eager soon").exit_code == 1);
  CHECK(f.sim("--workload uniform --eager eager --eager-bytes -1").exit_code == 1);
}

TEST_CASE("vp-sim --simgrid-platform writes the machine's SimGrid platform, ideal or calibrated, and nothing else") {
  Files f;
  const RunResult ideal = f.sim("--simgrid-platform - --latency-us 2");
  REQUIRE_MESSAGE(ideal.exit_code == 0, ideal.err);
  CHECK(ideal.out.rfind("<?xml version='1.0'?>", 0) == 0);
  CHECK(ideal.out.find("<platform version=\"4.1\">") != std::string::npos);
  CHECK(ideal.out.find("<host id=\"gpu04.gpu7\"") != std::string::npos);
  CHECK(ideal.out.find("latency=\"2us\" sharing_policy=\"FATPIPE\"") != std::string::npos);
  CHECK(ideal.out.find("vp_slope") == std::string::npos);
  const RunResult calibrated = f.sim("--model contention --simgrid-platform -");
  REQUIRE_MESSAGE(calibrated.exit_code == 0, calibrated.err);
  CHECK(calibrated.out.find("<prop id=\"vp_slope\" value=\"0.036\"/>") != std::string::npos);  // the EPYC forwarder
  check_error(f.sim("--simgrid-platform - --workload uniform"), 1,
              "--simgrid-platform writes the whole catalog's platform and simulates nothing: not with --demand, "
              "--workload, --gpus, --nodes, --sizes, --svg or --json");
}
