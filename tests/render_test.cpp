// The pictures' library (render/, docs/pictures.md), without the tools: the
// primitives (XML and DOT escaping), the Gantt layout, and the three
// pictures on fixtures, each well-formed XML with the expected number of
// GPU boxes / steps / bars, hostile names escaped, the DOT graph with one
// node per component and one edge per physical link. render_cli_test.cpp
// makes the same pictures through the binaries.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>

#include <pugixml.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"
#include "svg_support.hpp"
#include "vp/import/import.hpp"
#include "vp/render/gantt.hpp"
#include "vp/render/plan_picture.hpp"
#include "vp/render/svg.hpp"
#include "vp/render/timeline_picture.hpp"
#include "vp/render/topology_picture.hpp"
#include "vpcat/mapped_file.hpp"
#include "vpcat/planner.hpp"

using vp::test::all_text;
using vp::test::count;
using vp::test::parse;

namespace {

// Markup, quotes, a control byte and invalid UTF-8: what a host name or a
// model string from an untrusted input may hold.
const std::string kHostile = "<script>alert(\"x\")</script> & 'y' \x01\xff\xc3";
const std::string kHostileText = "<script>alert(\"x\")</script> & 'y' ";  // what survives, as text

// The evaluation platform: 2 sockets, 2 host bridges, 4 PCIe switches, 8
// GPUs, 4 NICs: 18 PCIe links (one above each component but the sockets) and
// one inter-socket link.
vp::Topology platform() {
  return vp::import_topology(vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json"), vp::InputFormat::json, {});
}

// Orbits by kind (what compute_node_symmetry finds on this platform): each
// component's orbit is the first component of its kind.
std::vector<std::uint32_t> orbits_by_kind(const vp::Topology& t) {
  std::vector<std::uint32_t> orbit(t.components.size());
  for (std::size_t c = 0; c < t.components.size(); ++c) {
    orbit[c] = static_cast<std::uint32_t>(c);
    for (std::size_t d = 0; d < c; ++d)
      if (t.components[d].kind == t.components[c].kind) {
        orbit[c] = static_cast<std::uint32_t>(d);
        break;
      }
  }
  return orbit;
}

}  // namespace

TEST_CASE("render: escape_dot escapes quotes and drops what DOT cannot hold; fit_text cuts with an ellipsis") {
  CHECK(vp::render::escape_dot("a\"b\\c\nd\x02") == "a\\\"b\\\\c\\nd");
  CHECK(vp::render::escape_dot("x\xff\xED\xA0\x80y") == "xy");  // invalid UTF-8 dropped (vpcat/utf8.hpp)
  CHECK(vp::render::fit_text("abcdefghij", 10, 40) == "abcde\xE2\x80\xA6");
}

TEST_CASE("render: a Gantt chart with hostile labels is well-formed, one box per GPU, one rect per step and bar") {
  vp::render::GanttChart c;
  c.title = kHostile;
  c.notes = {kHostile};
  c.gpu_labels = {kHostile, "GPU1", "GPU2"};
  c.steps.push_back({10.0, false, {{0, 10.0, vp::render::RouteClass::network, kHostile},
                                   {1, 4.0, vp::render::RouteClass::socket, ""}}});
  c.steps.push_back({5.0, true, {{2, 5.0, vp::render::RouteClass::intra_switch, ""}}});
  c.marker_us = 12.0;
  c.marker_label = kHostile;
  pugi::xml_document doc;
  parse(doc, vp::render::gantt_svg(c));
  CHECK(count(doc, "rect", "gpu") == 3);
  CHECK(count(doc, "rect", "step") == 2);
  CHECK(count(doc, "rect", "bar") == 3);
  CHECK(count(doc, "rect", "shared") == 1);
  CHECK(count(doc, "line", "marker") == 1);
  CHECK(all_text(doc).find(kHostileText) != std::string::npos);
}

TEST_CASE("render: the topology picture has a box per component, a line per physical link, a legend per orbit") {
  vp::Topology t = platform();
  // Hostile texts where the input puts them: models, a node type name.
  t.components[t.switches[0]].model = kHostile;
  t.components[t.gpus[3]].device_name = kHostile;
  vp::render::TopologyPicture p;
  p.node = &t;
  p.component_orbit = orbits_by_kind(t);
  p.title = kHostile;
  p.notes = {"a note"};
  pugi::xml_document doc;
  const std::string svg = vp::render::topology_svg(p);
  parse(doc, svg);
  CHECK(svg.find("<script>") == std::string::npos);
  CHECK(all_text(doc).find(kHostileText) != std::string::npos);
  vp::test::check_evaluation_node_boxes(doc);
  CHECK(doc.select_nodes("//*[@class='link']").size() == 19);
  // One fill per orbit: the 8 GPUs share one.
  std::set<std::string> gpu_fills;
  for (const pugi::xpath_node& n : doc.select_nodes("//rect[@class='component gpu']"))
    gpu_fills.insert(n.node().attribute("fill").value());
  CHECK(gpu_fills.size() == 1);
  // Without orbits every component is its own.
  p.component_orbit.clear();
  pugi::xml_document own;
  parse(own, vp::render::topology_svg(p));
  CHECK(count(own, "rect", "orbit") == t.components.size());
}

TEST_CASE("render: the topology DOT has one node per component and one edge per physical link, escaped") {
  vp::Topology t = platform();
  t.components[t.switches[0]].model = kHostile;
  vp::render::TopologyPicture p;
  p.node = &t;
  p.component_orbit = orbits_by_kind(t);
  p.title = kHostile;
  const std::string dot = vp::render::topology_dot(p);
  CHECK(dot.rfind("graph topology {", 0) == 0);
  CHECK(vp::test::dot_nodes_and_edges(dot) == std::pair<std::size_t, std::size_t>(20, 19));
  CHECK(dot.find("alert(\\\"x\\\")") != std::string::npos);
  CHECK(dot.find("alert(\"x\")") == std::string::npos);
  CHECK(dot.find('\x01') == std::string::npos);
}

TEST_CASE("render: the plan picture has one step column per step and one bar per sending GPU and step") {
  vpcat::CatalogFile file;
  const std::string path = vp::test::fixture("catalogs/golden/pcie-gen4-2s4sw8g-4n-switch.vpcat");
  REQUIRE(vpcat::CatalogFile::open(path.c_str(), &file).ok());
  vpcat::Planner planner;
  REQUIRE(planner.init(file.view()).ok());
  const std::uint64_t n = 32;
  std::vector<std::uint64_t> bytes(n * n);
  for (std::uint64_t s = 0; s < n; ++s)
    for (std::uint64_t d = 0; d < n; ++d) bytes[s * n + d] = s == d ? 0 : (std::uint64_t{1} << 20) * (1 + (s * 7 + d) % 5);
  for (const bool shared : {false, true}) {
    CAPTURE(shared);
    vpcat::PlanOptions o;
    o.allow_shared = shared;
    vpcat::Plan plan;
    REQUIRE(planner.plan(vpcat::Demand::dense(bytes.data(), n), o, plan).ok());
    std::size_t senders = 0, shared_steps = 0;
    for (std::size_t i = 0; i < plan.step_count(); ++i) {
      std::set<std::uint32_t> src;
      for (std::uint32_t k = 0; k < plan.step(i).count; ++k) src.insert(plan.step_transfers(i)[k].src);
      senders += src.size();
      shared_steps += plan.step(i).shared != 0;
    }
    std::vector<std::string> labels(n);
    labels[0] = kHostile;
    auto route_of = [](const vpcat::PlanTransfer& x) {
      return x.src_nic != vpcat::kNoNic ? vp::render::RouteClass::network : vp::render::RouteClass::intra_switch;
    };
    pugi::xml_document doc;
    parse(doc, vp::render::plan_svg(plan, o.latency_us, labels, route_of, "plan"));
    CHECK(count(doc, "rect", "gpu") == n);
    CHECK(count(doc, "rect", "step") == plan.step_count());
    CHECK(count(doc, "rect", "bar") == senders);
    CHECK(count(doc, "rect", "shared") == shared_steps);
    CHECK(all_text(doc).find(kHostileText) != std::string::npos);
    // Bars within their steps: a bar's width never exceeds its step's.
    const vp::render::GanttChart c = vp::render::plan_chart(plan, o.latency_us, labels, route_of, "plan");
    for (const vp::render::GanttStep& s : c.steps)
      for (const vp::render::GanttBar& b : s.bars) CHECK(b.us <= s.us * (1 + 1e-9));
  }
}

TEST_CASE("render: the timeline has the schedule's steps, a bar per sending GPU and step, the bound's cut") {
  const vp::Topology t = platform();
  vp::sim::Schedule schedule;
  auto flow = [&](std::size_t s, std::size_t d) {
    vp::sim::Flow f;
    f.src = f.origin = t.gpus[s];
    f.dst = f.final = t.gpus[d];
    f.bytes = 1e6;
    f.route = vp::default_route(t, f.src, f.dst);
    // As VarioPath's schedule (simulator/src/variopath.cpp) leaves it: the
    // links are right, the type says LOC for every intra-node route.
    f.route.type = vp::PathType::LOC;
    return f;
  };
  schedule.steps.push_back({{flow(0, 1), flow(0, 4), flow(2, 3)}});  // gpu0 sends twice: one bar
  schedule.steps.push_back({{flow(5, 6)}});
  schedule.steps.push_back({});                                     // an empty step: a column, no bar
  vp::sim::SimResult result;
  result.step_us = {60.0, 45.0, 0.0};
  result.time_us = 105.0;
  vp::sim::LowerBound bound;
  bound.time_us = 80.0;
  bound.cut = {kHostile, 2e6, 24.0, 75.0};
  pugi::xml_document doc;
  parse(doc, vp::render::timeline_svg(t, schedule, result, bound, "timeline"));
  CHECK(count(doc, "rect", "gpu") == 8);
  CHECK(count(doc, "rect", "step") == 3);
  CHECK(count(doc, "rect", "bar") == 3);
  CHECK(count(doc, "line", "marker") == 1);
  CHECK(all_text(doc).find("binding cut: " + kHostileText) != std::string::npos);
  // gpu0's bar takes the most remote class of its flows (gpu0 -> gpu4 crosses
  // the sockets), found from the route's links and endpoints, not its type.
  const vp::render::GanttChart c = vp::render::timeline_chart(t, schedule, result, bound, "timeline");
  REQUIRE(c.steps[0].bars.size() == 2);
  CHECK(c.steps[0].bars[0].gpu == 0);
  CHECK(c.steps[0].bars[0].route == vp::render::RouteClass::socket);
  CHECK(c.steps[0].bars[1].route == vp::render::RouteClass::intra_switch);
  auto says_overlap = [](const vp::render::GanttChart& chart) {
    return std::any_of(chart.notes.begin(), chart.notes.end(),
                       [](const std::string& n) { return n.find("steps overlap") != std::string::npos; });
  };
  CHECK_FALSE(says_overlap(c));  // end to end: the spans add up to the time
  result.time_us = 80.0;         // rank synchronisation: the steps' spans overlap
  CHECK(says_overlap(vp::render::timeline_chart(t, schedule, result, bound, "timeline")));
}

namespace {

// The boxes of `doc` with class `cls` prefix ("component"): x, y, width, height.
struct Box {
  double x, y, w, h;
};
std::vector<Box> boxes(const pugi::xml_document& doc, const std::string& cls_prefix) {
  std::vector<Box> out;
  for (const pugi::xpath_node& n : doc.select_nodes(("//rect[starts-with(@class,'" + cls_prefix + "')]").c_str()))
    out.push_back({n.node().attribute("x").as_double(), n.node().attribute("y").as_double(),
                   n.node().attribute("width").as_double(), n.node().attribute("height").as_double()});
  return out;
}

}  // namespace

TEST_CASE("render: a wide level wraps into rows (the p5 node, 32 NICs), no box on another, a link per child") {
  const vp::Topology t =
      vp::import_topology(vp::test::fixture("real/nccl-topo/aws-p5.48xl-topo.xml"), vp::InputFormat::nccl_xml, {});
  vp::render::TopologyPicture p;
  p.node = &t;
  p.title = "p5";
  pugi::xml_document doc;
  parse(doc, vp::render::topology_svg(p));
  const pugi::xml_node svg = doc.document_element();
  // All on one row, it was 4,660 px wide and 516 high.
  CHECK(svg.attribute("width").as_double() <= 1300);
  CHECK(svg.attribute("height").as_double() <= 1400);
  const std::vector<Box> b = boxes(doc, "component");
  REQUIRE(b.size() == 50);  // 8 GPUs, 32 NICs, 8 switches, a host bridge, a socket
  for (std::size_t i = 0; i < b.size(); ++i)
    for (std::size_t j = i + 1; j < b.size(); ++j) {
      const bool apart = b[i].x + b[i].w <= b[j].x || b[j].x + b[j].w <= b[i].x || b[i].y + b[i].h <= b[j].y ||
                         b[j].y + b[j].h <= b[i].y;
      CHECK(apart);
    }
  // One line per physical link: 49 PCIe links, no inter-socket link; the bus
  // of the wrapped host bridge is drawn apart.
  CHECK(count(doc, "line", "link") == 49);
  CHECK(count(doc, "line", "bus") >= 2);
  // The evaluation node (720 px a socket) still fits on one row per depth.
  const vp::Topology small = platform();
  p.node = &small;
  pugi::xml_document one;
  parse(one, vp::render::topology_svg(p));
  CHECK(count(one, "line", "bus") == 0);
  CHECK(one.document_element().attribute("width").as_double() == 1440);
}

TEST_CASE("render: orbit colours are distinct for any count, not only the palette's 12") {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < vp::render::kDistinctOrbitColours; ++i) {
    const std::string c = vp::render::orbit_colour(i);
    REQUIRE(std::regex_match(c, std::regex("#[0-9a-f]{6}")));
    seen.insert(c);
  }
  CHECK(seen.size() == vp::render::kDistinctOrbitColours);
  CHECK(vp::render::orbit_colour(0) == "#8dd3c7");  // the palette first, as before
  // In a picture: the p5 node without orbits has 50 components, each its own
  // orbit, each its own fill, matching its legend entry.
  const vp::Topology t =
      vp::import_topology(vp::test::fixture("real/nccl-topo/aws-p5.48xl-topo.xml"), vp::InputFormat::nccl_xml, {});
  vp::render::TopologyPicture p;
  p.node = &t;
  pugi::xml_document doc;
  parse(doc, vp::render::topology_svg(p));
  std::set<std::string> legend, boxes_fill;
  for (const pugi::xpath_node& n : doc.select_nodes("//rect[@class='orbit']")) legend.insert(n.node().attribute("fill").value());
  for (const pugi::xpath_node& n : doc.select_nodes("//rect[starts-with(@class,'component')]"))
    boxes_fill.insert(n.node().attribute("fill").value());
  CHECK(legend.size() == 50);
  CHECK(boxes_fill == legend);
}

TEST_CASE("render: past 64 GPUs a step picture is a heatmap of groups of GPUs, not a barcode") {
  vp::render::GanttChart c;
  c.title = "256 GPUs";
  for (int g = 0; g < 256; ++g) c.gpu_labels.push_back(fmt::format("n{}:gpu{}", g / 8, g % 8));
  // 255 shift steps: every GPU sends, the first half for the whole step.
  for (std::uint32_t k = 0; k < 255; ++k) {
    vp::render::GanttStep s{10.0, false, {}};
    for (std::uint32_t g = 0; g < 256; ++g)
      s.bars.push_back({g, g < 128 ? 10.0 : 5.0, vp::render::RouteClass::network, ""});
    c.steps.push_back(std::move(s));
  }
  c.steps[3].shared = true;
  pugi::xml_document doc;
  parse(doc, vp::render::gantt_svg(c));
  CHECK(count(doc, "rect", "bar") == 0);
  CHECK(count(doc, "rect", "gpu") == 64);  // 4 GPUs a row
  CHECK(count(doc, "rect", "step") == 255);
  CHECK(count(doc, "rect", "cell") == 64 * 255);
  CHECK(count(doc, "rect", "shared") == 1);
  CHECK(count(doc, "rect", "scale") == 5);
  // A row per GPU was 16 px each: 4,096 px of rows; the heatmap's are 12 px.
  CHECK(doc.document_element().attribute("height").as_double() < 1000);
  // Busy rows are darker than half-busy ones: two shades in all.
  std::set<std::string> shades;
  for (const pugi::xpath_node& n : doc.select_nodes("//rect[@class='cell']")) shades.insert(n.node().attribute("fill").value());
  CHECK(shades.size() == 2);
  CHECK(all_text(doc).find("step 0: 4 of 4 GPUs of n0:gpu0 \xE2\x80\x93 n0:gpu3 send, busy 100% of the step") !=
        std::string::npos);
  CHECK(all_text(doc).find("busy 50% of the step") != std::string::npos);
  // 64 GPUs keep a row each.
  c.gpu_labels.resize(64);
  for (vp::render::GanttStep& s : c.steps)
    s.bars.erase(std::remove_if(s.bars.begin(), s.bars.end(), [](const vp::render::GanttBar& b) { return b.gpu >= 64; }),
                 s.bars.end());
  pugi::xml_document gantt;
  parse(gantt, vp::render::gantt_svg(c));
  CHECK(count(gantt, "rect", "bar") == 64 * 255);
  CHECK(count(gantt, "rect", "cell") == 0);
}
