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
  CHECK(out.rfind("vp-analyze: node type pcie-gen4 (1 of 2, 8 GPUs): local-pattern search: 1,000,000 search nodes, "
                  "1,000 pattern orbits found, 5% of the budget (20,000,000 nodes)\n",
                  0) == 0);
  // The rate, smoothed over the samples of a second or more (1,155,739/s from
  // 0.5 s to 2.4 s, then a third of the way to 857,142/s), and the share of
  // the budget used: the search's length is not known, so no time left.
  CHECK(out.find("10,000,000 search nodes (1,056,206/s), 10,000 pattern orbits found, 50% of the budget (20,000,000 "
                 "nodes)\n") != std::string::npos);
  CHECK(out.find("left") == std::string::npos);
}

TEST_CASE("progress: --verbose adds the group order and the GPU orbits") {
  AnalysisProgress p = searching(1000);
  CHECK(ProgressReporter::describe(p, {}, true) ==
        "node type pcie-gen4 (1 of 2, 8 GPUs): |Aut| = 128, 1 GPU orbits; local-pattern search: 1,000 search nodes, 1 "
        "pattern orbits found, <1% of the budget (20,000,000 nodes)");
  CHECK(ProgressReporter::describe(p, {}).find("|Aut|") == std::string::npos);
  p.group_order = std::string(13020, '7');
  CHECK(ProgressReporter::describe(p, {}, true).find("|Aut| = 7.77e13019 (13020 digits)") != std::string::npos);
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
  CHECK(out.find("vp-analyze: node type pcie-gen4 (1 of 2) done: 8 GPUs, 511 contention-free patterns\n") !=
        std::string::npos);
  CHECK(out.find("511 contention-free patterns (search stopped at its budget)\n") != std::string::npos);
  CHECK(ProgressReporter::describe(done, {}, true) ==
        "node type pcie-gen4 (1 of 2) done: 8 GPUs, |Aut| = 128, 1 GPU orbits, 102 local pattern orbits representing "
        "511 patterns (search stopped at its budget)");
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
  int columns = 40;
  ProgressReporter narrow(f.file, "vp-analyze: ", [&] {
    ProgressReporter::Options o = f.options(ProgressReporter::Mode::bar, milliseconds(10000));
    o.columns = [&] { return columns; };
    return o;
  }());
  f.at(1.0);
  narrow.report(searching(1));
  const std::string out = f.text();
  REQUIRE(out.rfind("\r\x1b[K", 0) == 0);
  CHECK(out.substr(4) == "search 1 nodes, <1% of budget");
  CHECK(out.substr(4).size() < 40);
  // Lines (a log) are never cut.
  Fixture lines(ProgressReporter::Mode::lines);
  lines.at(1.0);
  lines.reporter.report(searching(1));
  CHECK(lines.text().size() > 100);
}

TEST_CASE("progress: the bar's formatter at 100 and at 40 columns") {
  const std::string prefix = "vp-analyze: ";
  AnalysisProgress p = searching(12345678);
  ProgressPace pace;
  pace.rate = 857142;
  const std::string wide = ProgressReporter::bar_text(prefix, p, pace, 100);
  CHECK(wide == "vp-analyze: pcie-gen4 1/2: search 12,345,678 nodes, 857,142/s, 62% of budget, 12,345 orbits found");
  CHECK(wide.size() < 100);
  // At 40: the orbits found, the rate, the prefix and the node type go; the
  // stage and the budget used stay.
  const std::string narrow = ProgressReporter::bar_text(prefix, p, pace, 40);
  CHECK(narrow == "search 12,345,678 nodes, 62% of budget");
  CHECK(narrow.size() < 40);
  p.stage = Stage::contention;
  p.checked = 1200, p.to_check = 4000;
  pace.rate = 64, pace.seconds_left = 43.75;
  CHECK(ProgressReporter::bar_text(prefix, p, pace, 100) ==
        "vp-analyze: pcie-gen4 1/2: contention 1,200/4,000 (30%), 64/s, about 44 s left");
  CHECK(ProgressReporter::bar_text(prefix, p, pace, 61) == "pcie-gen4 1/2: contention 1,200/4,000 (30%), about 44 s left");
  CHECK(ProgressReporter::bar_text(prefix, p, pace, 40) == "contention 1,200/4,000 (30%)");
  // A name too long for any part but the stage: the stage alone, cut.
  p.node_type = std::string(60, 'n');
  const std::string cut = ProgressReporter::bar_text(prefix, p, pace, 20);
  CHECK(cut == "contention 1,200...");
  CHECK(cut.size() == 19);
}

TEST_CASE("progress: the rate is smoothed, so that the time left never jumps") {
  using Clock = RateEstimate::Clock;
  const auto at = [](double s) { return Clock::time_point{} + milliseconds(static_cast<long long>(s * 1000)); };
  RateEstimate r;
  r.sample(0, at(0));
  r.sample(500, at(0.5));  // under a second since the last sample: not counted
  CHECK(r.per_second() == 0);
  CHECK_FALSE(r.seconds_for(1000).has_value());
  r.sample(1000, at(1));
  CHECK(r.per_second() == doctest::Approx(1000));
  r.sample(2000, at(2));
  CHECK_FALSE(r.seconds_for(1000).has_value());  // two samples: no honest estimate yet
  r.sample(3000, at(3));
  REQUIRE(r.seconds_for(1000).has_value());
  CHECK(*r.seconds_for(1000) == doctest::Approx(1.0));
  // A burst of 100x, then a stall: each step moves the estimate by less than
  // a factor of 1.5, never 10x.
  double before = *r.seconds_for(100000);
  std::uint64_t work = 3000;
  for (int s = 4; s < 30; ++s) {
    work += s < 10 ? 100000 : 0;
    r.sample(work, at(s));
    const double now = *r.seconds_for(100000);
    CHECK(now / before < 1.5);
    CHECK(before / now < 1.5);
    before = now;
  }
  // It follows a lasting change: after the burst the rate had grown towards it.
  r.reset();
  r.sample(0, at(0));
  for (int s = 1; s <= 30; ++s) r.sample(static_cast<std::uint64_t>(s) * 5000, at(s));
  CHECK(r.per_second() == doctest::Approx(5000));
  // Work that goes back starts over.
  r.sample(10, at(31));
  CHECK(r.per_second() == 0);
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

TEST_CASE("progress: the contention check says what is left, once the rate is known") {
  AnalysisProgress p = searching(0);
  p.stage = Stage::contention;
  p.to_check = 400;
  p.checked = 100;
  CHECK(ProgressReporter::describe(p, {}) ==
        "node type pcie-gen4 (1 of 2, 8 GPUs): contention check of the patterns: 100 of 400 (25%)");
  ProgressPace pace;
  pace.rate = 10;
  CHECK(ProgressReporter::describe(p, pace) ==
        "node type pcie-gen4 (1 of 2, 8 GPUs): contention check of the patterns: 100 of 400 (25%), 10/s");
  pace.seconds_left = 30;
  CHECK(ProgressReporter::describe(p, pace) ==
        "node type pcie-gen4 (1 of 2, 8 GPUs): contention check of the patterns: 100 of 400 (25%), 10/s, about 30 s "
        "left");
  p.stage = Stage::symmetry;
  CHECK(ProgressReporter::describe(p, {}) == "node type pcie-gen4 (1 of 2, 8 GPUs): computing its automorphism group");
}

TEST_CASE("progress: a reporter shows a time left for the contention check after three seconds of samples") {
  Fixture f(ProgressReporter::Mode::lines, milliseconds(0));
  AnalysisProgress p = searching(0);
  p.stage = Stage::contention;
  p.to_check = 1000;
  for (int s = 0; s <= 4; ++s) {
    f.at(1 + s);
    p.checked = static_cast<std::uint64_t>(s) * 100;
    f.reporter.report(p);
  }
  const std::string out = f.text();
  CHECK(count(out, "left") == 2);
  CHECK(out.find("200 of 1,000 (20%), 100/s\n") != std::string::npos);
  CHECK(out.find("300 of 1,000 (30%), 100/s, about 7 s left\n") != std::string::npos);
  CHECK(out.find("400 of 1,000 (40%), 100/s, about 6 s left\n") != std::string::npos);
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
