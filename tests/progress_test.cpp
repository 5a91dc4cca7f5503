// Progress reports of the analysis (vp/analysis/progress.hpp): what
// build_catalog() reports, and how ProgressReporter shows it.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "support.hpp"
#include "vp/analysis/build_catalog.hpp"
#include "vp/analysis/progress.hpp"
#include "vp/catalog/writer.hpp"

using namespace vp;
using Stage = AnalysisProgress::Stage;
using std::chrono::milliseconds;

namespace {

// A reporter writing into a temporary file, on a clock the test moves.
struct Fixture {
  std::FILE* file = std::tmpfile();
  ProgressReporter::Clock::time_point t{};
  ProgressReporter reporter;

  explicit Fixture(ProgressReporter::Mode mode, milliseconds interval = milliseconds(10000))
      : reporter(file, "vp-analyze: ", options(mode, interval)) {}
  ~Fixture() { std::fclose(file); }

  ProgressReporter::Options options(ProgressReporter::Mode mode, milliseconds interval) {
    ProgressReporter::Options o;
    o.mode = mode;
    o.interval = interval;
    o.now = [this] { return t; };
    return o;
  }
  void at(double seconds) { t = ProgressReporter::Clock::time_point{} + milliseconds(static_cast<long long>(seconds * 1000)); }
  std::string text() {
    std::fflush(file);
    std::string s;
    std::rewind(file);
    for (int c; (c = std::fgetc(file)) != EOF;) s += static_cast<char>(c);
    return s;
  }
};

AnalysisProgress searching(std::uint64_t nodes) {
  AnalysisProgress p;
  p.stage = Stage::patterns;
  p.node_type = "pcie-gen4";
  p.node_types = 2;
  p.gpus = 8;
  p.group_order = "128";
  p.gpu_orbits = 1;
  p.search_nodes = nodes;
  p.search_budget = 20000000;
  p.orbits_found = nodes / 1000;
  return p;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("progress: nothing in the first second, then one line an interval") {
  Fixture f(ProgressReporter::Mode::lines);
  f.at(0.5);
  f.reporter.report(searching(4096));
  CHECK(f.text().empty());
  f.at(1.2);
  f.reporter.report(searching(1000000));
  f.at(2.4);
  f.reporter.report(searching(2200000));  // within the interval: not shown
  f.at(11.5);
  f.reporter.report(searching(10000000));
  std::string out = f.text();
  CHECK(count(out, "\n") == 2);
  CHECK(out.find("\r") == std::string::npos);  // plain lines for a log
  CHECK(out.rfind("vp-analyze: node type pcie-gen4 (1 of 2, 8 GPUs): |Aut| = 128, 1 GPU orbits; local-pattern search: "
                  "1,000,000 search nodes, 1,000 pattern orbits found\n",
                  0) == 0);
  // The rate, sampled over the last second or more, and what the budget leaves.
  CHECK(out.find("10,000,000 search nodes (857,142/s), 10,000 pattern orbits found; at most 12 s left (budget "
                 "20,000,000 nodes)\n") != std::string::npos);
}

TEST_CASE("progress: a node type's summary is shown at once, never before the first second") {
  AnalysisProgress done = searching(5000);
  done.stage = Stage::done;
  done.orbits_found = 102;
  done.patterns_represented = "511";
  {
    Fixture f(ProgressReporter::Mode::lines);
    f.at(0.3);
    f.reporter.report(done);
    CHECK(f.text().empty());
  }
  Fixture f(ProgressReporter::Mode::lines);
  f.at(1.5);
  f.reporter.report(searching(100000));
  f.at(1.6);
  f.reporter.report(done);
  done.complete = false;
  f.reporter.report(done);
  std::string out = f.text();
  CHECK(count(out, "\n") == 3);
  CHECK(out.find("vp-analyze: node type pcie-gen4 (1 of 2) done: 8 GPUs, |Aut| = 128, 1 GPU orbits, 102 local pattern "
                 "orbits representing 511 patterns\n") != std::string::npos);
  CHECK(out.find("representing 511 patterns (search stopped at its budget)\n") != std::string::npos);
}

TEST_CASE("progress: a bar is redrawn in place and cleared, five times a second at most") {
  Fixture f(ProgressReporter::Mode::bar);
  f.at(1.0);
  f.reporter.report(searching(1));
  f.at(1.1);
  f.reporter.report(searching(2));  // too soon
  f.at(1.3);
  f.reporter.report(searching(3));
  CHECK(f.text().find('\n') == std::string::npos);
  CHECK(count(f.text(), "\r\x1b[K") == 2);
  f.reporter.note("a line of its own");  // clears the bar first
  const std::string line = "\r\x1b[Kvp-analyze: a line of its own\n";
  CHECK(f.text().substr(f.text().size() - line.size()) == line);
  f.at(1.6);
  f.reporter.report(searching(4));
  f.reporter.finish();
  std::string out = f.text();
  CHECK(out.substr(out.size() - 4) == "\r\x1b[K");
  f.reporter.finish();  // idempotent
  CHECK(f.text() == out);
}

TEST_CASE("progress: a bar fits the terminal's width, so that a redraw leaves no stale copy") {
  Fixture f(ProgressReporter::Mode::bar);
  ProgressReporter narrow(f.file, "vp-analyze: ", [&] {
    ProgressReporter::Options o = f.options(ProgressReporter::Mode::bar, milliseconds(10000));
    o.columns = [] { return 40; };
    return o;
  }());
  f.at(1.0);
  narrow.report(searching(1));
  const std::string out = f.text();
  REQUIRE(out.rfind("\r\x1b[K", 0) == 0);
  const std::string bar = out.substr(4);
  CHECK(bar.size() == 39);
  CHECK(bar == "vp-analyze: node type pcie-gen4 (1 o...");
  // Lines (a log) are never cut.
  Fixture lines(ProgressReporter::Mode::lines);
  lines.at(1.0);
  lines.reporter.report(searching(1));
  CHECK(lines.text().size() > 100);
}

TEST_CASE("progress: none shows nothing") {
  Fixture f(ProgressReporter::Mode::none);
  for (double t : {0.0, 2.0, 20.0}) {
    f.at(t);
    f.reporter.report(searching(1000));
    f.reporter.note("x");
  }
  CHECK(f.text().empty());
}

TEST_CASE("progress: the contention check says what is left") {
  AnalysisProgress p = searching(0);
  p.stage = Stage::contention;
  p.to_check = 400;
  p.checked = 100;
  CHECK(ProgressReporter::describe(p, 0) ==
        "node type pcie-gen4 (1 of 2, 8 GPUs): contention check of the patterns: 100 of 400 (25%)");
  CHECK(ProgressReporter::describe(p, 10) ==
        "node type pcie-gen4 (1 of 2, 8 GPUs): contention check of the patterns: 100 of 400 (25%), about 30 s left");
  p.stage = Stage::symmetry;
  CHECK(ProgressReporter::describe(p, 0) == "node type pcie-gen4 (1 of 2, 8 GPUs): computing its automorphism group");
  p = searching(0);
  p.group_order = std::string(13020, '7');
  CHECK(ProgressReporter::describe(p, 0).find("|Aut| = 7.77e13019 (13020 digits)") != std::string::npos);
  p = searching(19000000);
  CHECK(ProgressReporter::describe(p, 200).find("; at most 1 h 23 min left (budget 20,000,000 nodes)") !=
        std::string::npos);
}

TEST_CASE("progress: the mode from --progress, --quiet, VP_PROGRESS and the terminal") {
  using M = ProgressReporter::Mode;
  CHECK(ProgressReporter::choose_mode("", false, nullptr, true) == M::bar);
  CHECK(ProgressReporter::choose_mode("", false, nullptr, false) == M::lines);
  CHECK(ProgressReporter::choose_mode("auto", false, "none", false) == M::lines);  // the option wins
  CHECK(ProgressReporter::choose_mode("", false, "none", true) == M::none);
  CHECK(ProgressReporter::choose_mode("", false, "bar", false) == M::bar);
  CHECK(ProgressReporter::choose_mode("lines", true, nullptr, true) == M::none);  // --quiet wins
  CHECK_FALSE(ProgressReporter::choose_mode("", false, "loud", true).has_value());
}

TEST_CASE("progress: build_catalog reports every stage of every node type, and the catalog does not change") {
  AnalysisRequest r;
  r.input = test::fixture("platforms/pcie-gen4-2s4sw8g.json");
  r.nodes = 2;
  LoadedInput in = load_input(r);
  std::vector<AnalysisProgress> seen;
  PatternSearchOptions search = r.search;
  const catalog::Catalog with = build_catalog(in, search, canonical_options(r),
                                              [&](const AnalysisProgress& p) { seen.push_back(p); });
  const catalog::Catalog without = build_catalog(in, search, canonical_options(r));
  CHECK(catalog::write_catalog(with) == catalog::write_catalog(without));

  REQUIRE(seen.size() >= 4);
  CHECK(seen.front().stage == Stage::symmetry);
  CHECK(seen.front().node_types == 1);
  CHECK(seen.front().gpus == 8);
  CHECK(seen.back().stage == Stage::done);
  CHECK(seen.back().orbits_found == with.node_types[0].patterns.size());
  CHECK(seen.back().patterns_represented == with.node_types[0].patterns_represented);
  CHECK(seen.back().group_order == with.node_types[0].group_order);
  CHECK(seen.back().complete);
  // Stages in order, the search's counts never going back.
  std::uint64_t nodes = 0;
  for (std::size_t i = 1; i < seen.size(); ++i) {
    CHECK(static_cast<int>(seen[i].stage) >= static_cast<int>(seen[i - 1].stage));
    if (seen[i].stage == Stage::patterns) {
      CHECK(seen[i].search_nodes >= nodes);
      nodes = seen[i].search_nodes;
      CHECK(seen[i].search_budget == search.max_search_nodes);
    }
  }
  bool checked = false;
  for (const AnalysisProgress& p : seen) checked = checked || p.stage == Stage::contention;
  CHECK(checked);
}
