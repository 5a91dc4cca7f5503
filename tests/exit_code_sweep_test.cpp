// The exit-code sweep: every damaged catalog of
// fixtures/corrupt/, every known-bad input of fixtures/bad-input/ and every
// fuzz finding kept in tests/fuzz/corpus/ goes through every tool that reads
// it, and each run must end with the documented code (README "Exit codes"):
// 3 for an invalid catalog, 2 for bad input, never 4 (a bug), never a signal;
// and --workload parameters out of range exit 1 (a usage error).
//
// All runs go through one /bin/sh script (one line of output per run, in
// four parallel shells), so the sweep costs a process per tool run and
// nothing more: it stays fast enough for the unit phase and the sanitizer
// phase.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"

using vp::test::shell_quote;

namespace {

namespace fs = std::filesystem;

const std::string kAnalyze = VP_ANALYZE_BIN;
const std::string kCatalog = VP_CATALOG_BIN;
const std::string kPlan = VP_PLAN_BIN;
const std::string kSim = VP_SIM_BIN;

// One tool run and the codes it may end with.
struct Run {
  std::string tool;     // "vp-catalog" ...: the prefix every message must carry
  std::string command;  // a /bin/sh command line
  std::vector<int> codes;
  std::string input;  // the file under test, for the report
  bool silent = false;  // may fail without a message (diff of two valid catalogs that differ: exit 3)
  bool located = false;  // its error names the input's line and column ("tool: error: FILE:L:C: ...")
};

std::vector<fs::path> files_in(const fs::path& dir, const std::string& extension = "") {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && (extension.empty() || e.path().extension() == extension) &&
        e.path().filename() != "README.md")
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// "TOOL: error: FILE:LINE:COL: " at the start of a message.
std::regex located_at(const std::string& tool, const std::string& file) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex("^" + tool + ": error: " + std::regex_replace(file, special, R"(\$&)") + ":[0-9]+:[0-9]+: ");
}

class Sweep {
 public:
  Sweep() {
    good_catalog_ = vp::test::fixture("catalogs/format-1.0/quad-rail4.vpcat");  // 16 GPUs
    good_demand_ = dir_.write("good-demand.json", "{\"gpus\": 16, \"entries\": [[0, 5, 4096], [7, 2, 1024]]}");
    platform_ = vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json");
  }

  // Every tool that reads a catalog, on `catalog`: `codes` from vp-catalog
  // (binary or JSON mirror), `binary_codes` from inspect, vp-plan and vp-sim
  // (which read the binary only), `dump_codes` from `dump`, which dumps whatever it
  // could read.
  void catalog(const fs::path& catalog, const std::vector<int>& codes, const std::vector<int>& binary_codes,
               const std::vector<int>& dump_codes) {
    const std::string f = shell_quote(catalog.string()), g = shell_quote(good_catalog_);
    const std::string in = catalog.string();
    add("vp-catalog", kCatalog, "validate " + f, codes, in);
    add("vp-catalog", kCatalog, "validate " + f + " --against " + shell_quote(platform_), codes, in);
    add("vp-catalog", kCatalog, "inspect " + f, binary_codes, in);  // the binary only
    add("vp-catalog", kCatalog, "convert " + f + " --to json --out -", codes, in);
    add("vp-catalog", kCatalog, "convert " + f + " --to binary --out " + shell_quote(output("vpcat")), codes,
        in);
    add("vp-catalog", kCatalog, "diff " + f + " " + g, codes, in);
    add("vp-catalog", kCatalog, "diff " + g + " " + f, codes, in);
    // A file that may be a valid catalog differs from the good one: exit 3
    // with the differences on standard output.
    if (std::find(codes.begin(), codes.end(), 0) != codes.end()) runs_.end()[-1].silent = runs_.end()[-2].silent = true;
    add("vp-catalog", kCatalog, "export " + f + " --format slurm-gres", codes, in);
    add("vp-catalog", kCatalog, "export " + f + " --format volcano", codes, in);
    add("vp-catalog", kCatalog, "dump " + f, dump_codes, in);
    add("vp-catalog", kCatalog, "dump --annotate " + f, dump_codes, in);
    add("vp-plan", kPlan, "--catalog " + f + " --demand " + shell_quote(good_demand_), binary_codes, in);
    add("vp-sim", kSim, "--catalog " + f + " --workload uniform", binary_codes, in);
    add("vp-sim", kSim, "--catalog " + f + " --demand " + shell_quote(good_demand_), binary_codes, in);
  }

  // A demand file through the tools that read one, with a valid catalog.
  void demand(const fs::path& demand, const std::vector<int>& codes) {
    const std::string d = shell_quote(demand.string()), g = shell_quote(good_catalog_);
    add("vp-plan", kPlan, "--catalog " + g + " --demand " + d, codes, demand.string());
    add("vp-sim", kSim, "--catalog " + g + " --demand " + d + " --schedulers variopath", codes, demand.string());
  }

  // A topology file (any importer's format) through vp-analyze.
  void topology(const fs::path& topology, const std::vector<int>& codes) {
    const std::string t = shell_quote(topology.string());
    add("vp-analyze", kAnalyze, "topology --input " + t, codes, topology.string());
    add("vp-analyze", kAnalyze, "--input " + t + " --out " + shell_quote(output("vpcat")), codes,
        topology.string());
    // A node checked against a catalog (validate --input): a file that
    // imports is compared, so a match exits 0 and a mismatch 3.
    std::vector<int> check = codes;
    if (std::find(codes.begin(), codes.end(), 0) != codes.end()) check.push_back(3);
    add("vp-catalog", kCatalog,
        "validate " + shell_quote(vp::test::fixture("catalogs/golden/pcie-gen4-2s4sw8g.vpcat")) + " --input " + t,
        check, topology.string());
  }

  // A cluster description through vp-analyze.
  void cluster(const fs::path& cluster, const std::vector<int>& codes) {
    add("vp-analyze", kAnalyze,
        "--cluster " + shell_quote(cluster.string()) + " --out " + shell_quote(output("vpcat")), codes,
        cluster.string());
  }

  // A contention table through vp-sim --model contention: its error names
  // the value's line and column (a syntax error's too).
  void contention(const fs::path& table, const std::vector<int>& codes) {
    add("vp-sim", kSim,
        "--catalog " + shell_quote(good_catalog_) + " --workload uniform --schedulers nccl --model contention "
        "--contention " + shell_quote(table.string()),
        codes, table.string());
    runs_.back().located = true;
  }

  // A --workload SPEC through the two tools that generate one, on the good
  // catalog: a parameter out of range is a usage error, found when the spec
  // is read, never a demand the planner refuses (2).
  void workload(const std::string& spec, const std::vector<int>& codes) {
    const std::string g = shell_quote(good_catalog_), w = shell_quote(spec);
    add("vp-plan", kPlan, "--catalog " + g + " --workload " + w, codes, spec);
    add("vp-sim", kSim, "--catalog " + g + " --workload " + w + " --schedulers variopath", codes, spec);
  }

  // A --defaults file through vp-analyze.
  void defaults(const fs::path& defaults, const std::vector<int>& codes) {
    add("vp-analyze", kAnalyze,
        "topology --input " + shell_quote(platform_) + " --defaults " + shell_quote(defaults.string()), codes,
        defaults.string());
  }

  // Run everything, in kShards parallel shells (the runs are independent);
  // one CHECK per run that ended otherwise.
  void check() {
    constexpr std::size_t kShards = 4;
    if (runs_.empty()) return;
    std::string script = "cd " + shell_quote(dir_.path()) + " || exit 99\n";
    for (std::size_t shard = 0; shard < kShards && shard < runs_.size(); ++shard) {
      script += "(\n";
      for (std::size_t k = shard; k < runs_.size(); k += kShards)
        script += fmt::format("{} >/dev/null 2>err{}; echo \"{} $? $(head -c 400 err{} | head -n 1)\"\n",
                              runs_[k].command, shard, k, shard);
      script += fmt::format(") >shard{}.txt &\n", shard);
    }
    script += "wait\nsort -n shard*.txt\n";
    const std::string path = dir_.write("sweep.sh", script);
    const vp::test::RunResult r = vp::test::run("/bin/sh " + shell_quote(path));
    REQUIRE(r.exit_code == 0);
    std::istringstream lines(r.out);
    std::string line;
    std::size_t seen = 0;
    while (std::getline(lines, line)) {
      std::istringstream words(line);
      std::size_t k = 0;
      int code = -1;
      words >> k >> code;
      std::string message;
      std::getline(words, message);
      if (!message.empty() && message[0] == ' ') message.erase(0, 1);
      REQUIRE(k == seen);
      ++seen;
      const Run& run = runs_[k];
      CAPTURE(run.command);
      CAPTURE(message);
      const bool expected = std::find(run.codes.begin(), run.codes.end(), code) != run.codes.end();
      if (!expected) FAIL_CHECK(fmt::format("exit {} for {}", code, run.input));
      // Every failure is a message in the "tool: error: ..." form.
      if (code != 0 && !run.silent && message.rfind(run.tool + ": error: ", 0) != 0)
        FAIL_CHECK(fmt::format("exit {} for {} without a \"{}: error:\" message", code, run.input, run.tool));
      if (code != 0 && run.located && !std::regex_search(message, located_at(run.tool, run.input)))
        FAIL_CHECK(fmt::format("exit {} for {} without its line and column", code, run.input));
    }
    CHECK(seen == runs_.size());
    MESSAGE(fmt::format("{} tool runs", runs_.size()));
  }

  std::size_t size() const { return runs_.size(); }

 private:
  // A path of its own for the output of the run about to be added (the
  // shards run in parallel).
  std::string output(const std::string& extension) const {
    return fmt::format("{}/out{}.{}", dir_.path(), runs_.size(), extension);
  }

  void add(const std::string& tool, const std::string& bin, const std::string& args, std::vector<int> codes,
           const std::string& input) {
    runs_.push_back(Run{tool, shell_quote(bin) + " " + args, std::move(codes), input});
  }

  vp::test::TempDir dir_;
  std::string good_catalog_, good_demand_, platform_;
  std::vector<Run> runs_;
};

// Fuzz findings kept as regression inputs: libFuzzer's artifact names
// (crash-, leak-, oom-, timeout-, slow-unit-) or a "regression-" prefix.
bool is_finding(const fs::path& file) {
  const std::string name = file.filename().string();
  for (const char* prefix : {"crash-", "leak-", "oom-", "timeout-", "slow-unit-", "regression-"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("exit codes: every damaged catalog, through every tool that reads one, exits 3") {
  Sweep sweep;
  const auto corrupt = files_in(vp::test::fixture("corrupt"), ".vpcat");
  CHECK(corrupt.size() >= 40);
  for (const fs::path& f : corrupt) sweep.catalog(f, {3}, {3}, {0});
  // Damaged JSON mirrors: invalid (3) for vp-catalog, which reads mirrors;
  // not a .vpcat file (3) for inspect, vp-plan and vp-sim; dump shows their bytes.
  const auto mirrors = files_in(vp::test::fixture("bad-input/catalog-json"), ".json");
  CHECK(mirrors.size() >= 6);
  for (const fs::path& f : mirrors) sweep.catalog(f, {3}, {3}, {0});
  // A mirror that is not JSON text is unreadable (2) where mirrors are read.
  for (const fs::path& f : files_in(vp::test::fixture("bad-input/catalog-json-malformed"), ".json"))
    sweep.catalog(f, {2}, {3}, {0});
  sweep.check();
}

TEST_CASE("exit codes: known-bad demand, topology, cluster, defaults and contention files exit 2") {
  Sweep sweep;
  const std::string base = vp::test::fixture("bad-input");
  const auto demands = files_in(base + "/demand"), topologies = files_in(base + "/topology");
  const auto clusters = files_in(base + "/cluster"), defaults = files_in(base + "/defaults");
  CHECK(demands.size() >= 8);
  CHECK(topologies.size() >= 8);
  CHECK(clusters.size() >= 3);
  CHECK(defaults.size() >= 3);
  for (const fs::path& f : demands) sweep.demand(f, {2});
  for (const fs::path& f : topologies) sweep.topology(f, {2});
  for (const fs::path& f : clusters) sweep.cluster(f, {2});
  for (const fs::path& f : defaults) sweep.defaults(f, {2});
  const auto contention = files_in(base + "/contention");
  CHECK(contention.size() >= 8);
  for (const fs::path& f : contention) sweep.contention(f, {2});
  sweep.check();
}

TEST_CASE("exit codes: workload parameters out of range exit 1 (usage), at the limit 0") {
  Sweep sweep;
  for (const char* spec : {"hotspot:factor=1e300", "hotspot:bytes=1e15,factor=1.5", "hotspot:bytes=1e9,factor=1e7",
                           "uniform:bytes=1e300", "uniform:bytes=-1", "moe:zipf=nan", "moe:topk=9,experts=8",
                           "shift:k=16", "incast:reader=16", "hotspot:hot=16", "drift:calls=1001"})
    sweep.workload(spec, {1});
  for (const char* spec : {"hotspot:bytes=1e9,factor=1e6", "hotspot:factor=0", "uniform:bytes=0"})
    sweep.workload(spec, {0});
  sweep.check();
}

TEST_CASE("exit codes: fuzz findings kept in the corpus exit 0 or as bad input, never 4 or a signal") {
  // tests/fuzz/corpus/ holds the catalog verifier's seeds at its top level
  // and, per reader, a folder named after the fuzz target.
  Sweep sweep;
  const fs::path corpus = fs::path(VP_FUZZ_CORPUS_DIR);
  for (const fs::path& f : files_in(corpus))
    if (is_finding(f)) sweep.catalog(f, {0, 3}, {0, 3}, {0});
  for (const char* target : {"verify", "plan"})
    for (const fs::path& f : files_in(corpus / target))
      if (is_finding(f)) sweep.catalog(f, {0, 3}, {0, 3}, {0});
  for (const fs::path& f : files_in(corpus / "demand"))
    if (is_finding(f)) sweep.demand(f, {0, 2});
  for (const char* target : {"hwloc", "nccl", "nvsmi", "json_topology"})
    for (const fs::path& f : files_in(corpus / target))
      if (is_finding(f)) sweep.topology(f, {0, 2});
  for (const fs::path& f : files_in(corpus / "cluster"))
    if (is_finding(f)) sweep.cluster(f, {0, 2});
  for (const fs::path& f : files_in(corpus / "defaults"))
    if (is_finding(f)) sweep.defaults(f, {0, 2});
  if (sweep.size() == 0) MESSAGE("no fuzz finding in the corpus yet");
  sweep.check();
}
