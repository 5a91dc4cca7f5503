// The pictures through the real binaries, as a user makes them
// (docs/pictures.md): vp-analyze topology --svg/--dot, vp-plan --svg, vp-sim
// --svg are well-formed XML with the expected number of GPU boxes / steps /
// bars for a fixture (against the tools' --json), escape hostile names, and
// the DOT graph has one node per component and one edge per physical link.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "support.hpp"
#include "svg_support.hpp"
#include "vp/render/svg.hpp"

using vp::test::RunResult;
using vp::test::shell_quote;
using vp::test::TempDir;

using vp::test::all_text;
using vp::test::count;
using vp::test::parse;

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string tool(const char* bin) { return shell_quote(bin) + " "; }

// A dense demand of `n` GPUs, `bytes` between every pair.
std::string uniform_demand(std::size_t n, std::uint64_t bytes) {
  std::string s = "{\"gpus\": " + std::to_string(n) + ", \"bytes\": [";
  for (std::size_t i = 0; i < n; ++i) {
    s += i ? ",[" : "[";
    for (std::size_t j = 0; j < n; ++j) s += (j ? "," : "") + std::to_string(i == j ? 0 : bytes);
    s += "]";
  }
  return s + "]}";
}

const std::string kNode = vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json");
const std::string kCluster = vp::test::fixture("platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json");
const std::string kCatalog4n = vp::test::fixture("catalogs/golden/pcie-gen4-2s4sw8g-4n-switch.vpcat");

}  // namespace

TEST_CASE("render cli: vp-analyze topology --svg draws every component of the node, coloured by orbit") {
  const RunResult r = vp::test::run(tool(VP_ANALYZE_BIN) + "topology --input " + shell_quote(kNode) + " --svg -");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  pugi::xml_document doc;
  parse(doc, r.out);
  vp::test::check_evaluation_node_boxes(doc);
  std::set<std::string> gpu_fills;
  for (const pugi::xpath_node& n : doc.select_nodes("//rect[@class='component gpu']"))
    gpu_fills.insert(n.node().attribute("fill").value());
  CHECK(gpu_fills.size() == 1);
  // 18 PCIe links (one above each component but the sockets) and the
  // inter-socket link, each drawn once.
  CHECK(doc.select_nodes("//*[@class='link']").size() == 19);
  CHECK(all_text(doc).find("|Aut| = 128") != std::string::npos);
}

TEST_CASE("render cli: vp-analyze topology --svg of a cluster draws one node and names the cluster") {
  const RunResult r = vp::test::run(tool(VP_ANALYZE_BIN) + "topology --input " + shell_quote(kNode) + " --cluster " +
                                    shell_quote(kCluster) + " --svg -");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  pugi::xml_document doc;
  parse(doc, r.out);
  CHECK(count(doc, "rect", "component gpu") == 8);
  CHECK(all_text(doc).find("cluster of 4 nodes (32 GPUs), fabric single_switch") != std::string::npos);
}

TEST_CASE("render cli: vp-analyze topology --dot has one node per component and one edge per physical link") {
  TempDir dir;
  const std::string dot = dir.path() + "/t.dot", svg = dir.path() + "/t.svg";
  const RunResult r = vp::test::run(tool(VP_ANALYZE_BIN) + "topology --input " + shell_quote(kNode) + " --svg " +
                                    shell_quote(svg) + " --dot " + shell_quote(dot));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "");  // the pictures replace the text report
  const std::string text = read(dot);
  CHECK(text.rfind("graph topology {", 0) == 0);
  CHECK(vp::test::dot_nodes_and_edges(text) == std::pair<std::size_t, std::size_t>(20, 19));
  pugi::xml_document doc;
  parse(doc, read(svg));
}

TEST_CASE("render cli: hostile names in a topology are escaped in the SVG and the DOT") {
  std::string input = read(kNode);
  const std::string model = "Broadcom PEX88096";
  REQUIRE(input.find(model) != std::string::npos);
  // As JSON text: quotes and the backslash escaped, the bytes themselves raw.
  const std::string hostile_json = "<script>alert(\\\"x\\\")</script> & 'y'";
  for (std::size_t at; (at = input.find(model)) != std::string::npos;) input.replace(at, model.size(), hostile_json);
  TempDir dir;
  const std::string path = dir.write("hostile.json", input);
  const RunResult r = vp::test::run(tool(VP_ANALYZE_BIN) + "topology --input " + shell_quote(path) + " --svg - ");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  pugi::xml_document doc;
  parse(doc, r.out);
  CHECK(r.out.find("<script>") == std::string::npos);
  CHECK(all_text(doc).find("<script>") != std::string::npos);  // the name, as text
  const RunResult d = vp::test::run(tool(VP_ANALYZE_BIN) + "topology --input " + shell_quote(path) + " --dot -");
  REQUIRE(d.exit_code == 0);
  CHECK(d.out.find("alert(\\\"x\\\")") != std::string::npos);
  CHECK(d.out.find("alert(\"x\")") == std::string::npos);
}

TEST_CASE("render cli: vp-analyze topology --svg and --dot cannot share a file") {
  const RunResult r =
      vp::test::run(tool(VP_ANALYZE_BIN) + "topology --input " + shell_quote(kNode) + " --svg - --dot -");
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("--svg and --dot both name -") != std::string::npos);
}

TEST_CASE("render cli: vp-plan --svg has one step column per step and one bar per sending GPU and step") {
  TempDir dir;
  const std::string demand = dir.write("D.json", uniform_demand(32, 1 << 20));
  const std::string svg = dir.path() + "/plan.svg";
  const RunResult r = vp::test::run(tool(VP_PLAN_BIN) + "--catalog " + shell_quote(kCatalog4n) + " --demand " +
                                    shell_quote(demand) + " --channels-only --json --svg " + shell_quote(svg));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json plan = nlohmann::json::parse(r.out);
  std::size_t senders = 0;
  for (const auto& step : plan["steps"]) {
    std::set<std::uint64_t> src;
    for (const auto& t : step["transfers"]) src.insert(t["src"].get<std::uint64_t>());
    senders += src.size();
  }
  pugi::xml_document doc;
  parse(doc, read(svg));
  CHECK(count(doc, "rect", "gpu") == 32);
  CHECK(count(doc, "rect", "step") == plan["steps"].size());
  CHECK(count(doc, "rect", "bar") == senders);
  // Both network and intra-node bars (colours of the legend's classes).
  std::set<std::string> fills;
  for (const pugi::xpath_node& n : doc.select_nodes("//rect[@class='bar']")) fills.insert(n.node().attribute("fill").value());
  CHECK(fills.count(std::string(vp::render::route_colour(vp::render::RouteClass::network))) == 1);
  CHECK(fills.size() >= 2);
}

TEST_CASE("render cli: vp-plan --svg marks the shared step") {
  TempDir dir;
  const std::string demand = dir.write("D.json", uniform_demand(32, 4096));
  const RunResult r = vp::test::run(tool(VP_PLAN_BIN) + "--catalog " + shell_quote(kCatalog4n) + " --demand " +
                                    shell_quote(demand) + " --allow-shared --svg -");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // The summary goes to standard error when the picture takes standard output.
  const std::regex shared_count(R"(steps \((\d+) shared\))");
  std::smatch m;
  REQUIRE(std::regex_search(r.err, m, shared_count));
  pugi::xml_document doc;
  parse(doc, r.out);
  CHECK(count(doc, "rect", "shared") == std::stoul(m[1].str()));
}

TEST_CASE("render cli: vp-sim --svg draws the chosen schedule's steps and the bound's cut") {
  TempDir dir;
  const std::string svg = dir.path() + "/sim.svg";
  const RunResult r = vp::test::run(tool(VP_SIM_BIN) + "--catalog " + shell_quote(kCatalog4n) +
                                    " --workload uniform --schedulers variopath,spreadout --svg-scheduler spreadout "
                                    "--json --svg " + shell_quote(svg));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& c = j.contains("calls") && j["calls"].is_array() ? j["calls"][0] : j;  // one call: at the top
  pugi::xml_document doc;
  parse(doc, read(svg));
  // SpreadOut: n - 1 steps, every GPU sending in each.
  CHECK(c["results"]["spreadout"]["steps"] == 31);
  CHECK(count(doc, "rect", "step") == 31);
  CHECK(count(doc, "rect", "bar") == 31 * 32);
  CHECK(count(doc, "rect", "gpu") == 32);
  CHECK(count(doc, "line", "marker") == 1);
  const std::string cut = c["bound_cut"]["name"].get<std::string>();
  REQUIRE(!cut.empty());
  CHECK(all_text(doc).find("binding cut: " + cut) != std::string::npos);
}

TEST_CASE("render cli: vp-sim --svg defaults to VarioPath's plan and refuses a scheduler it does not run") {
  const RunResult r = vp::test::run(tool(VP_SIM_BIN) + "--catalog " + shell_quote(kCatalog4n) +
                                    " --workload uniform --schedulers variopath --svg -");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  pugi::xml_document doc;
  parse(doc, r.out);
  CHECK(all_text(doc).find("vp-sim: variopath on") != std::string::npos);
  CHECK(r.err.find("variopath") != std::string::npos);  // the report, on standard error
  const RunResult bad = vp::test::run(tool(VP_SIM_BIN) + "--catalog " + shell_quote(kCatalog4n) +
                                      " --workload uniform --schedulers variopath --svg - --svg-scheduler fast");
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("--svg-scheduler fast: not among the schedulers run") != std::string::npos);
}
