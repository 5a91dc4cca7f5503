// vp-plan as an operator meets it: the real binary, its JSON (routes checked
// as paths of `vp-analyze topology --json` for the same cluster), its whole
// error messages ("file:line:col: what (why)", the line and a caret) and exit
// codes (0 ok, 1 usage, 2 bad input, 3 invalid catalog).
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <tuple>

#include "planner_support.hpp"
#include "support.hpp"
#include "vp/base/errors.hpp"
#include "vp/cli/demand_file.hpp"

using vp::test::RunResult;
using vp::test::TempDir;
using namespace vp::plantest;

namespace {

const std::string kBin = VP_PLAN_BIN;
const std::string kAnalyze = VP_ANALYZE_BIN;
const std::string kCatalogBin = VP_CATALOG_BIN;

// The 4-node catalog (built in process) in a temporary folder.
struct Files {
  TempDir dir;
  std::string catalog;
  Files() {
    const Platform& p = platform("4n-switch");
    catalog = dir.path() + "/4n.vpcat";
    std::ofstream(catalog, std::ios::binary)
        .write(reinterpret_cast<const char*>(p.bytes.data()), static_cast<std::streamsize>(p.bytes.size()));
  }
  RunResult plan(const std::string& demand_text, const std::string& more = "--json") const {
    const std::string demand = dir.write("D.json", demand_text);
    return vp::test::run(vp::test::shell_quote(kBin) + " --catalog " + vp::test::shell_quote(catalog) + " --demand " + vp::test::shell_quote(demand) + " " + more);
  }
  std::string demand_path() const { return dir.path() + "/D.json"; }
};

std::string dense_json(const Matrix& m, std::uint32_t n) {
  std::string s = "{\"gpus\": " + std::to_string(n) + ",\n \"bytes\": [";
  for (std::uint32_t i = 0; i < n; ++i) {
    s += i ? ",\n  [" : "\n  [";
    for (std::uint32_t j = 0; j < n; ++j) s += (j ? ", " : "") + std::to_string(m[std::size_t{i} * n + j]);
    s += "]";
  }
  return s + "]}\n";
}

void check_bad_input(const RunResult& r, const std::string& message) {
  CHECK(r.exit_code == 2);
  CHECK(r.err == message);
  CHECK(r.out.empty());
}

}  // namespace

TEST_CASE("vp-plan --json: the plan delivers the demand along paths of the topology JSON") {
  Files f;
  const std::uint32_t n = 32;
  const Matrix d = zipf_moe(n, 1.0, 3, 128);
  const RunResult r = f.plan(dense_json(d, n));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json plan = nlohmann::json::parse(r.out);
  CHECK(plan["format"] == "vp-plan");
  CHECK(plan["gpus"] == n);
  CHECK(plan["planning_us"].get<double>() > 0);
  REQUIRE(plan["steps"].size() > 0);

  const RunResult topo = vp::test::run(vp::test::shell_quote(kAnalyze) + " topology --input " +
                                       vp::test::shell_quote(vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json")) + " --cluster " +
                                       vp::test::shell_quote(vp::test::fixture("platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json")) +
                                       " --json");
  REQUIRE_MESSAGE(topo.exit_code == 0, topo.err);
  const nlohmann::json t = nlohmann::json::parse(topo.out);
  const nlohmann::json& links = t["links"];
  std::vector<std::uint64_t> gpus;
  for (const nlohmann::json& g : t["gpus"]) gpus.push_back(g.is_object() ? g["component"].get<std::uint64_t>() : g.get<std::uint64_t>());
  REQUIRE(gpus.size() == n);

  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> delivered;
  for (const nlohmann::json& step : plan["steps"]) {
    for (const nlohmann::json& x : step["transfers"]) {
      const auto src = x["src"].get<std::uint32_t>(), dst = x["dst"].get<std::uint32_t>();
      CHECK(x["origin"] == src);
      CHECK(x["final"] == dst);
      delivered[{src, dst}] += x["bytes"].get<std::uint64_t>();
      std::uint64_t at = gpus[src];
      for (const nlohmann::json& l : x["route"]) {
        const nlohmann::json& link = links.at(l.get<std::size_t>());
        REQUIRE(link["src"] == at);
        at = link["dst"].get<std::uint64_t>();
      }
      CHECK(at == gpus[dst]);
    }
  }
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint32_t e = 0; e < n; ++e) {
      const std::uint64_t want = s == e ? 0 : d[std::size_t{s} * n + e];
      const auto it = delivered.find({s, e});
      CHECK((it == delivered.end() ? 0 : it->second) == want);
    }
}

TEST_CASE("vp-plan: sparse entries, text summary, options") {
  Files f;
  const RunResult r = f.plan(R"({"entries": [[0, 9, 1048576], [0, 9, 1024], [3, 3, 77], [31, 0, 5]], "gpus": 32})",
                             "--latency-us 2 --chunk-align-bytes 4096");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.rfind("32 GPUs, ", 0) == 0);
  CHECK(r.out.find(" transfers, 1049605 bytes; expected ") != std::string::npos);
  // The rate in GB/s, in all and per GPU: the bytes over the expected time.
  const std::regex rate(R"(expected ([0-9.]+) us \(([0-9.]+) GB/s, ([0-9.]+) GB/s per GPU\); planned in )");
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, rate));
  const double us = std::stod(m[1]), gbps = std::stod(m[2]), per_gpu = std::stod(m[3]);
  CHECK(gbps == doctest::Approx(1049605 / (us * 1e3)).epsilon(0.01));
  CHECK(per_gpu == doctest::Approx(gbps / 32).epsilon(0.01));
  const RunResult j = f.plan(R"({"gpus": 32, "entries": []})");
  REQUIRE(j.exit_code == 0);
  const nlohmann::json plan = nlohmann::json::parse(j.out);
  CHECK(plan["steps"].empty());
  CHECK(plan["total_bytes"] == 0);
}

TEST_CASE("vp-plan: the fastest candidate by default, channel steps with --channels-only, --allow-shared with it") {
  Files f;
  const std::string d = dense_json(uniform(32, 1 << 20), 32);
  struct Case {
    const char* flags;
    bool channels_only, allow_shared;
    const char* model;
  };
  for (const Case c : {Case{"--json", false, false, "catalog"}, Case{"--json --channels-only", true, false, "catalog"},
                       Case{"--json --one-port", true, false, "catalog"},
                       Case{"--json --machine-model default", false, false, "default"},
                       Case{"--json --channels-only --allow-shared --machine-model ideal", true, true, "ideal"},
                       Case{"--json --machine-model ideal", false, false, "ideal"}}) {
    const RunResult r = f.plan(d, c.flags);
    INFO(c.flags);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const nlohmann::json plan = nlohmann::json::parse(r.out);
    CHECK(plan["options"]["channels_only"] == c.channels_only);
    CHECK(plan["options"]["allow_shared"] == c.allow_shared);
    CHECK(plan["options"]["machine_model"] == c.model);
    std::size_t shared = 0;
    for (const auto& step : plan["steps"]) {
      shared += step["shared"].get<bool>();
      if (!step["shared"].get<bool>()) CHECK(step["ports"] == 1);
    }
    // A uniform demand on one switch: lossless fan-out is expected shorter
    // than channel steps (docs/planner.md "Plan shapes").
    if (c.channels_only) CHECK(shared == (c.allow_shared ? 1u : 0u));
    if (std::string(c.model) == "ideal") CHECK(shared > 0);
  }
  const RunResult both = f.plan(d, "--one-port --allow-shared");
  CHECK(both.exit_code == 1);
  const RunResult missing = f.plan(d, "--machine-model /nonexistent/table.json");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("/nonexistent/table.json") != std::string::npos);
}

TEST_CASE("vp-plan: the catalog's machine model by default (vp-catalog set-model), the source in --json") {
  Files f;
  const std::string d = dense_json(uniform(32, 1 << 20), 32);
  const std::string ideal = f.dir.path() + "/ideal.vpcat";
  RunResult r = vp::test::run(vp::test::shell_quote(kCatalogBin) + " set-model " + vp::test::shell_quote(f.catalog) +
                              " --ideal --out " + vp::test::shell_quote(ideal));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // Steps and expected time without the planning time.
  auto shape = [](const RunResult& run) {
    REQUIRE_MESSAGE(run.exit_code == 0, run.err);
    nlohmann::json j = nlohmann::json::parse(run.out);
    const std::string source = j["options"]["machine_model"];
    return std::make_tuple(source, j["steps"].dump(), j["expected_us"].get<double>());
  };
  const auto told_ideal = shape(f.plan(d, "--json --machine-model ideal"));
  const auto calibrated = shape(f.plan(d, "--json"));
  const auto from_catalog = shape(vp::test::run(vp::test::shell_quote(kBin) + " --catalog " + vp::test::shell_quote(ideal) +
                                                " --demand " + vp::test::shell_quote(f.demand_path()) + " --json"));
  CHECK(std::get<0>(calibrated) == "catalog");
  CHECK(std::get<0>(from_catalog) == "catalog");
  CHECK(std::get<0>(told_ideal) == "ideal");
  CHECK(std::get<1>(from_catalog) == std::get<1>(told_ideal));  // the same plan as told "ideal"
  CHECK(std::get<2>(from_catalog) == std::get<2>(told_ideal));
  CHECK(std::get<1>(from_catalog) != std::get<1>(calibrated));  // and not the calibrated one
  // A 1.1 catalog has no model: the class defaults, said "default".
  const auto old = shape(vp::test::run(vp::test::shell_quote(kBin) + " --catalog " +
                                       vp::test::shell_quote(vp::test::fixture("catalogs/format-1.1/quad-rail4.vpcat")) +
                                       " --workload uniform --json"));
  CHECK(std::get<0>(old) == "default");
}

TEST_CASE("vp-plan --channels-only reproduces the channel plans of the version before, bit for bit") {
  // fixtures/plans/channels-only: plans printed by vp-plan --json at 2d5e53c,
  // when channel steps were the default.
  std::ifstream cases(vp::test::fixture("plans/channels-only/cases.txt"));
  REQUIRE(cases.good());
  std::string line;
  int checked = 0;
  while (std::getline(cases, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string catalog, demand, golden;
    REQUIRE(static_cast<bool>(in >> catalog >> demand >> golden));
    INFO(line);
    const std::string dir = vp::test::fixture("plans/channels-only/");
    const RunResult r = vp::test::run(vp::test::shell_quote(kBin) + " --catalog " +
                                      vp::test::shell_quote(vp::test::fixture("catalogs/" + catalog)) + " --demand " +
                                      vp::test::shell_quote(dir + demand) + " --channels-only --json");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    std::ifstream g(dir + golden);
    const nlohmann::json want = nlohmann::json::parse(g);
    const nlohmann::json got = nlohmann::json::parse(r.out);
    CHECK(got["steps"] == want["steps"]);
    CHECK(got["expected_us"] == want["expected_us"]);
    CHECK(got["total_bytes"] == want["total_bytes"]);
    ++checked;
  }
  CHECK(checked >= 5);
}

TEST_CASE("vp-plan --gpus / --nodes: a subset's plan, with gpu_map, delivering the demand in ranks") {
  Files f;
  // gpu02's GPUs 4-7, then gpu04's 0, 2 and GPU 1 by its bus id without the domain (the
  // loose form of vpcat/pci_bus_id.hpp: "17:00.0" names 0000:17:00.0)
  const std::uint32_t n = 7;
  const Matrix d = random_dense(n, 1 << 20, 0.1, 5);
  const Platform& p = platform("4n-switch");
  const std::string bus(p.view.node_type(0).component(p.view.node_type(0).gpu(1)).pci_bus_id());
  RunResult r = f.plan(dense_json(d, n), "--json --gpus 'gpu02:4-7,gpu04:0,gpu04:2,gpu04:" + bus.substr(5) + "'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json plan = nlohmann::json::parse(r.out);
  CHECK(plan["gpus"] == n);
  CHECK(plan["gpu_map"] == nlohmann::json::array({12, 13, 14, 15, 24, 26, 25}));
  Matrix got(d.size(), 0);
  for (const auto& step : plan["steps"])
    for (const auto& t : step["transfers"])
      got[t["origin"].get<std::size_t>() * n + t["final"].get<std::size_t>()] += t["bytes"].get<std::uint64_t>();
  for (std::uint32_t i = 0; i < n; ++i) got[std::size_t{i} * n + i] = d[std::size_t{i} * n + i];
  CHECK(got == d);

  r = f.plan(dense_json(uniform(16, 1024), 16), "--nodes 'gpu[03-04]'");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("16 GPUs (catalog GPUs 16-31), ") == 0);

  r = f.plan(dense_json(uniform(16, 1024), 16), "--gpus 0-3");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("demand size does not match the catalog (16 GPUs, the planner's subset has 4)") != std::string::npos);
  for (const auto& [more, message] : std::vector<std::pair<std::string, std::string>>{
           {"--gpus 0-3,9,2", "vp-plan: error: --gpus '0-3,9,2': subset: subset does not fit the catalog (node 0 is "
                              "listed twice (give its GPUs together))\n"},
           {"--gpus 40", "vp-plan: error: --gpus '40': GPU 40, the catalog has 32\n"},
           {"--gpus gpu09:0", "vp-plan: error: --gpus 'gpu09:0': the catalog has no node named 'gpu09'\n"},
           {"--gpus gpu01:8", "vp-plan: error: --gpus 'gpu01:8': local GPU 8, the node has 8\n"},
           {"--gpus gpu01:x", "vp-plan: error: --gpus 'gpu01:x': not NODE:A, NODE:A-B, NODE:* or NODE:BUS-ID\n"},
           {"--gpus 3-1", "vp-plan: error: --gpus '3-1': not a GPU index or range (A or A-B)\n"},
           // One item, not two: once read as node gpu01's bus id "0-3;gpu02:*".
           {"--gpus 'gpu01:0-3;gpu02:*'", "vp-plan: error: --gpus 'gpu01:0-3;gpu02:*': not NODE:A, NODE:A-B, NODE:* or "
                                          "NODE:BUS-ID (items are separated by ',')\n"},
           {"--gpus gpu01:00:1f.8", "vp-plan: error: --gpus 'gpu01:00:1f.8': not NODE:A, NODE:A-B, NODE:* or NODE:BUS-ID\n"},
           {"--gpus gpu01:ff:1f.7", "vp-plan: error: --gpus 'gpu01:ff:1f.7': node type " +
                                       std::string(p.view.node_type(0).name()) + " has no GPU at bus id ff:1f.7\n"},
           {"--nodes 'gpu[01-02' ", ""}}) {
    INFO(more);
    r = f.plan(dense_json(uniform(4, 1024), 4), more);
    CHECK(r.exit_code == 1);
    if (!message.empty()) CHECK(r.err == message);
    CHECK(r.out.empty());
  }
}

TEST_CASE("vp-catalog score: a placement's bound and planned time; candidates ranked, the bound below every plan") {
  Files f;
  auto score = [&](const std::string& args) {
    return vp::test::run(vp::test::shell_quote(kCatalogBin) + " score " + vp::test::shell_quote(f.catalog) + " " + args);
  };
  RunResult r = score("--gpus gpu02:0-3 --workload uniform");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out.find("   1  ") != std::string::npos);
  CHECK(r.out.find("gpu02:0-3 (") != std::string::npos);

  const std::string cand = f.dir.write("C.txt",
                                       "# three placements of 8 GPUs\n"
                                       "gpu01:*\n"
                                       "gpu01:0-3,gpu02:0-3   # two half nodes\n"
                                       "0-1,8-9,16-17,24-25\n");
  r = score("--candidates " + vp::test::shell_quote(cand) + " --workload moe:zipf=1.2 --json");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["format"] == "vp-catalog-score");
  REQUIRE(j["placements"].size() == 3);
  double last = 0;
  for (const auto& p : j["placements"]) {
    CHECK(p["gpus"] == 8);
    CHECK(p["bound_us"].get<double>() > 0);
    CHECK(p["bound_us"].get<double>() <= p["planned_us"].get<double>() * (1 + 1e-9));  // a true bound
    CHECK(p["planned_us"].get<double>() >= last);
    last = p["planned_us"].get<double>();
  }
  // The scattered placement (one or two GPUs per node) is not the whole node's.
  CHECK(j["placements"][0]["catalog_gpus"] != j["placements"][1]["catalog_gpus"]);

  const std::string d = f.dir.write("D4.json", dense_json(uniform(4, 1 << 20), 4));
  r = score("--gpus 0-3 --demand " + vp::test::shell_quote(d));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  r = score("--gpus 0-4 --demand " + vp::test::shell_quote(d));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("the demand has 4 GPUs, the placement 5") != std::string::npos);
  r = score("--gpus 0-3");
  CHECK(r.exit_code == 1);
  CHECK(r.err == "vp-catalog: error: give the demand as --demand FILE or --workload SPEC\n");
  r = score("--workload uniform");
  CHECK(r.exit_code == 1);
}

TEST_CASE("vp-plan: bad demand files") {
  Files f;
  const std::string D = "vp-plan: error: " + f.demand_path();
  check_bad_input(f.plan(""), D + ":1:1: malformed JSON (the file is empty)\n");
  check_bad_input(f.plan("{\"gpus\": 32,\n \"bytes\": [[1, 2,]]}"),
                  D + ":2:18: malformed JSON (syntax error while parsing value - unexpected ']'; expected '[', '{', "
                      "or a literal)\n"
                      " \"bytes\": [[1, 2,]]}\n"
                      "                 ^\n");
  check_bad_input(f.plan("{\"gpus\": 32, \"bytes\": [[1, 2]] } x"),
                  D + ":1:34: malformed JSON (syntax error while parsing value - invalid literal; last read: "
                      "'2]] } x'; expected end of input)\n"
                      "{\"gpus\": 32, \"bytes\": [[1, 2]] } x\n"
                      "                                 ^\n");
  check_bad_input(f.plan("{\"bytes\": []}"), D + ":1:1: document: missing key \"gpus\"\n"
                                                 "{\"bytes\": []}\n"
                                                 "^\n");
  check_bad_input(f.plan("{\"gpus\": 32}"), D + ":1:1: document: missing key \"bytes\" or \"entries\"\n"
                                                "{\"gpus\": 32}\n"
                                                "^\n");
  check_bad_input(f.plan("{\"gpus\": 32,\n\"bytes\": [],\n\"entries\": []}"),
                  D + ":3:12: entries: give \"bytes\" or \"entries\", not both\n"
                      "\"entries\": []}\n"
                      "           ^\n");
  check_bad_input(f.plan("{\"gpus\": 32, \"byte\": []}"),
                  D + ":1:22: document: unknown key \"byte\" (expected \"gpus\", \"bytes\" or \"entries\")\n"
                      "{\"gpus\": 32, \"byte\": []}\n"
                      "                     ^\n");
  check_bad_input(f.plan("{\"gpus\": -3, \"bytes\": []}"), D + ":1:10: gpus: must be an integer from 1 to 4294967295, got -3\n"
                                                             "{\"gpus\": -3, \"bytes\": []}\n"
                                                             "         ^\n");
  check_bad_input(f.plan("{\"gpus\": \"32\", \"bytes\": []}"),
                  D + ":1:10: gpus: must be an integer from 1 to 4294967295, got \"32\"\n"
                      "{\"gpus\": \"32\", \"bytes\": []}\n"
                      "         ^\n");
  check_bad_input(f.plan("{\"gpus\": 2,\n \"bytes\": [[0, 1]]}"), D + ":2:11: bytes: has 1 rows (\"gpus\" is 2)\n"
                                                                    " \"bytes\": [[0, 1]]}\n"
                                                                    "          ^\n");
  check_bad_input(f.plan("{\"gpus\": 2,\n \"bytes\": [[0, 1],\n  [1, 0, 3]]}"),
                  D + ":3:3: bytes[1]: has 3 entries (\"gpus\" is 2)\n"
                      "  [1, 0, 3]]}\n"
                      "  ^\n");
  check_bad_input(f.plan("{\"gpus\": 2,\n \"bytes\": [[0, 1],\n  [-1, 0]]}"),
                  D + ":3:4: bytes[1][0]: demand entry is not a byte count (-1: bytes must be a finite whole number >= 0)\n"
                      "  [-1, 0]]}\n"
                      "   ^\n");
  check_bad_input(f.plan("{\"gpus\": 2,\n \"bytes\": [[0, 1.5], [1, 0]]}"),
                  D + ":2:16: bytes[0][1]: demand entry is not a byte count (1.5: bytes must be a finite whole number >= 0)\n"
                      " \"bytes\": [[0, 1.5], [1, 0]]}\n"
                      "               ^\n");
  check_bad_input(f.plan("{\"gpus\": 2,\n \"bytes\": [[0, 99999999999999999999], [1, 0]]}"),
                  D + ":2:16: bytes[0][1]: byte counts overflow (1e+20 bytes, more than 2^63)\n"
                      " \"bytes\": [[0, 99999999999999999999], [1, 0]]}\n"
                      "               ^\n");
  check_bad_input(f.plan("{\"gpus\": 32,\n \"entries\": [[0, 1, 2],\n [0, 1]]}"),
                  D + ":3:2: entries[1]: must be [src, dst, bytes] (got 2 numbers)\n"
                      " [0, 1]]}\n"
                      " ^\n");
  check_bad_input(f.plan("{\"gpus\": 32,\n \"entries\": [\n [40, 1, 2]]}"),
                  D + ":3:2: entries[0]: src 40 is not a GPU (\"gpus\" is 32)\n"
                      " [40, 1, 2]]}\n"
                      " ^\n");
  check_bad_input(f.plan("{\"gpus\": 32,\n \"entries\": [[0.5, 1, 2]]}"),
                  D + ":2:15: entries[0][0]: must be an integer from 0 to 4294967295, got 0.5\n"
                      " \"entries\": [[0.5, 1, 2]]}\n"
                      "              ^\n");
  check_bad_input(f.plan("{\"gpus\": 32,\n \"gpus\": 32, \"entries\": []}"), D + ":2:2: \"gpus\" is given twice\n"
                                                                              " \"gpus\": 32, \"entries\": []}\n"
                                                                              " ^\n");
}

TEST_CASE("vp-plan: demands the planner refuses name their line") {
  Files f;
  const std::string D = f.demand_path();
  check_bad_input(f.plan("{\n\"gpus\": 2,\n \"bytes\": [[0, 1], [1, 0]]}"),
                  "vp-plan: error: " + D + ":2:9: demand size does not match the catalog (2 GPUs, the catalog has 32)\n"
                  "\"gpus\": 2,\n"
                  "        ^\n");
  check_bad_input(
      f.plan("{\"gpus\": 32, \"entries\": [\n[0, 1, 9223372036854775808],\n[5, 6, 1]]}"),
      "vp-plan: error: " + D + ":3:1: byte counts overflow (the off-diagonal total exceeds 2^63 bytes)\n"
      "[5, 6, 1]]}\n"
      "^\n");
}

TEST_CASE("vp-plan --workload: vp-sim's generated demands, planned as the same demand in a file") {
  Files f;
  const std::string bin = vp::test::shell_quote(kBin) + " --catalog " + vp::test::shell_quote(f.catalog);
  // uniform:bytes=1024 is the dense file of 1024 bytes per pair: the same plan.
  RunResult generated = vp::test::run(bin + " --workload uniform:bytes=1024 --json");
  REQUIRE_MESSAGE(generated.exit_code == 0, generated.err);
  RunResult file = f.plan(dense_json(uniform(32, 1024), 32));
  REQUIRE_MESSAGE(file.exit_code == 0, file.err);
  nlohmann::json a = nlohmann::json::parse(generated.out), b = nlohmann::json::parse(file.out);
  CHECK(a["total_bytes"] == 32 * 31 * 1024);
  CHECK(a["steps"] == b["steps"]);
  // Over a subset the workload has the subset's size.
  generated = vp::test::run(bin + " --nodes 'gpu[03-04]' --workload moe:zipf=1.2,hidden=2048");
  REQUIRE_MESSAGE(generated.exit_code == 0, generated.err);
  CHECK(generated.out.find("16 GPUs (catalog GPUs 16-31), ") == 0);
  CHECK(generated.out.find(", 0 bytes;") == std::string::npos);
  for (const auto& [more, message] : std::vector<std::pair<std::string, std::string>>{
           {"--workload unifrom", "vp-plan: error: --workload \"unifrom\": unknown workload"},
           {"--workload drift:calls=3", "vp-plan: error: --workload drift: a sequence of 3 calls; vp-plan plans one "
                                        "demand (vp-sim --workload drift --calls N judges them)\n"},
           {"", "vp-plan: error: give --demand FILE or --workload SPEC\n"},
           {"--workload uniform --demand D.json", "vp-plan: error: --demand excludes --workload"}}) {
    INFO(more);
    const RunResult r = vp::test::run(bin + " " + more);
    CHECK(r.exit_code == 1);
    CHECK(r.err.rfind(message, 0) == 0);
    CHECK(r.out.empty());
  }
}

TEST_CASE("vp-plan: unreadable files, usage errors") {
  Files f;
  const RunResult missing = vp::test::run(vp::test::shell_quote(kBin) + " --catalog " + vp::test::shell_quote(f.catalog) + " --demand /nonexistent/D.json");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err == "vp-plan: error: /nonexistent/D.json: cannot read the file (No such file or directory)\n");
  const std::string not_catalog = f.dir.write("x.vpcat", "hello, world\n");
  const std::string demand = f.dir.write("D.json", "{\"gpus\": 32, \"entries\": []}");
  const RunResult bad = vp::test::run(vp::test::shell_quote(kBin) + " --catalog " + vp::test::shell_quote(not_catalog) + " --demand " + vp::test::shell_quote(demand));
  CHECK(bad.exit_code == 3);  // an invalid catalog, as from every tool
  CHECK(bad.err.rfind("vp-plan: error: " + not_catalog + ": header at offset 0x0: not a .vpcat file (bad signature", 0) == 0);
  const RunResult usage = vp::test::run(vp::test::shell_quote(kBin) + " --demand " + vp::test::shell_quote(demand));
  CHECK(usage.exit_code == 1);
  CHECK(usage.err.find("--catalog is required") != std::string::npos);
  const RunResult option = f.plan("{\"gpus\": 32, \"entries\": []}", "--chunk-align-bytes 0");
  CHECK(option.exit_code == 1);
  CHECK(option.err == "vp-plan: error: options.chunk_align_bytes: invalid plan option (0: must be at least 1)\n");
}

TEST_CASE("demand files: the reader itself") {
  using vp::cli::parse_demand;
  const vp::cli::DemandFile d = parse_demand("D.json", "{\"gpus\": 2, \"bytes\": [[0, 1e3], [4096.0, 0]]}");
  CHECK(d.dense);
  CHECK(d.bytes == std::vector<std::uint64_t>{0, 1000, 4096, 0});
  CHECK(d.error_at(1, 0, "x").line() == 1);
  CHECK(d.error_at(1, 0, "x").column() == 34);
  const vp::cli::DemandFile s =
      parse_demand("D.json", "{\"gpus\": 3,\n\"entries\": [[0, 2, 5],\n[2, 1, 0]]}");
  CHECK(!s.dense);
  REQUIRE(s.entries.size() == 2);
  CHECK(s.entries[1].src == 2);
  CHECK(s.error_at(2, 1, "x").line() == 3);
  CHECK(s.error_at(2, 1, "x").column() == 1);
  CHECK_THROWS_WITH_AS(parse_demand("D.json", "[1]"),
                       "D.json:1:1: document: must be an object, got an array\n[1]\n^",
                       vp::InputError);
  CHECK_THROWS_WITH_AS(parse_demand("D.json", "{\"gpus\": 01, \"bytes\": []}"),
                       "D.json:1:11: malformed JSON (syntax error while parsing object - unexpected number literal; "
                       "expected '}')\n{\"gpus\": 01, \"bytes\": []}\n          ^",
                       vp::InputError);
}
