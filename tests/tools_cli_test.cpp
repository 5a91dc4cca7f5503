// What the four tools share through vp_cli (tools/common): --version, one
// exit code per kind of error (an invalid catalog is 3 from every tool), the
// "tool: error: ..." form of every message, CLI11's usage errors included,
// and located JSON errors (file:line:col, the line, a caret).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "tools_support.hpp"
#include "vp/base/errors.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/cli/near_miss.hpp"
#include "vp/cli/run_main.hpp"
#include "vpcat/format.hpp"
#include "vpcat/version.hpp"

using vp::test::check;
using vp::test::kAnalyze;
using vp::test::kCatalog;
using vp::test::kPlan;
using vp::test::kSim;
using vp::test::RunResult;
using vp::test::shell_quote;
using vp::test::tool;

namespace {


std::string version_of(const std::string& name, bool writes) {
  const std::string format = fmt::format("{}.{}", vpcat::kFormatMajor, vpcat::kFormatMinor);
  return fmt::format("{} {}.{}.{}\ncatalog format: {}reads {}.x files that need at most a {} reader (SPEC.md "
                     "\"Compatibility\")\n",
                     name, vpcat::kLibraryVersionMajor, vpcat::kLibraryVersionMinor, vpcat::kLibraryVersionPatch,
                     writes ? "writes " + format + "; " : "", vpcat::kFormatMajor, format);
}

}  // namespace

TEST_CASE("every tool: --version prints the tool's version and the catalog format versions") {
  for (const auto& [bin, name, writes] :
       {std::tuple{kAnalyze, "vp-analyze", true}, std::tuple{kCatalog, "vp-catalog", true},
        std::tuple{kPlan, "vp-plan", false}, std::tuple{kSim, "vp-sim", false}}) {
    INFO(name);
    const RunResult r = tool(bin, "--version");
    CHECK(r.exit_code == 0);
    CHECK(r.out == version_of(name, writes));
    CHECK(r.err.empty());
  }
}

TEST_CASE("every tool: an invalid catalog exits 3, an unreadable one 2") {
  const std::string bad = vp::test::fixture("corrupt/bad-header-checksum.vpcat");
  const std::string why = "header at offset 0x3c: header checksum mismatch (stored 0x158fea26, computed 0xa66cc60e)";
  vp::test::TempDir dir;
  const std::string demand = dir.write("D.json", "{\"gpus\": 16, \"entries\": []}");
  check(tool(kPlan, "--catalog " + shell_quote(bad) + " --demand " + shell_quote(demand)), 3,
        "vp-plan: error: " + bad + ": " + why + "\n");
  check(tool(kSim, "--catalog " + shell_quote(bad) + " --workload uniform"), 3,
        "vp-sim: error: " + bad + ": " + why + "\n");
  check(tool(kCatalog, "inspect " + shell_quote(bad)), 3, "vp-catalog: error: " + bad + ": " + why + "\n");
  const std::string missing = dir.path() + "/none.vpcat";
  check(tool(kPlan, "--catalog " + shell_quote(missing) + " --demand " + shell_quote(demand)), 2,
        "vp-plan: error: " + missing + ": cannot read the file (open: No such file or directory)\n");
  check(tool(kSim, "--catalog " + shell_quote(missing) + " --workload uniform"), 2,
        "vp-sim: error: " + missing + ": cannot read the file (open: No such file or directory)\n");
}

TEST_CASE("run_main: one exit code per kind of error, for every tool") {
  CLI::App app{"t", "vp-test"};
  const vp::cli::Tool t{"vp-test", vp::cli::Catalogs::read};
  char name[] = "vp-test";
  char* argv[] = {name, nullptr};
  auto code = [&](const std::function<int()>& body) { return vp::cli::run_main(t, app, 1, argv, body); };
  using Kind = vp::catalog::CatalogError::Kind;
  CHECK(code([] { return 0; }) == 0);
  CHECK(code([]() -> int { throw vp::UsageError("--x: bad"); }) == 1);
  CHECK(code([]() -> int { throw vp::InputError("f", 2, "bad"); }) == 2);
  CHECK(code([]() -> int { throw vp::catalog::CatalogError(Kind::unreadable, "f: cannot read"); }) == 2);
  // Also when vp-analyze's writer refuses what it computed: an invalid catalog.
  CHECK(code([]() -> int { throw vp::catalog::CatalogError(Kind::invalid, "f: bad"); }) == 3);
  CHECK(code([]() -> int { throw std::logic_error("a bug"); }) == 4);
}

TEST_CASE("every tool: CLI11's usage errors read \"tool: error: what\" and exit 1") {
  check(tool(kPlan, "--demand D.json"), 1,
        "vp-plan: error: --catalog is required (run 'vp-plan --help' for the options)\n");
  check(tool(kSim, "--catalog x --bogus"), 1,
        "vp-sim: error: --bogus: not an option (run 'vp-sim --help' for the options)\n");
  check(tool(kCatalog, ""), 1,
        "vp-catalog: error: A subcommand is required (run 'vp-catalog --help' for the options)\n");
  check(tool(kAnalyze, "--nodes 0"), 1,
        "vp-analyze: error: --nodes: Value 0 not in range 1 to 1000000 (run 'vp-analyze --help' for the options)\n");
}

TEST_CASE("every tool: an option or subcommand it does not have is named, with the nearest it has") {
  check(tool(kCatalog, "valdate x.vpcat"), 1,
        "vp-catalog: error: valdate: not a subcommand (did you mean validate?) (run 'vp-catalog --help' for the "
        "options)\n");
  check(tool(kAnalyze, "--input x.json --ouput y.vpcat"), 1,
        "vp-analyze: error: --ouput: not an option (did you mean --out?) (run 'vp-analyze --help' for the options)\n");
  // CLI11 alone would say "--catalog is required" here.
  check(tool(kPlan, "--catalg c.vpcat --demand D.json"), 1,
        "vp-plan: error: --catalg: not an option (did you mean --catalog?) (run 'vp-plan --help' for the options)\n");
  // A subcommand's options are known after it, the value of an option is no subcommand.
  check(tool(kCatalog, "validate x.vpcat --agains y.json"), 1,
        "vp-catalog: error: --agains: not an option (did you mean --against?) (run 'vp-catalog --help' for the "
        "options)\n");
}

TEST_CASE("every tool names its catalog with --catalog; vp-catalog also takes it as the first word") {
  const std::string golden = vp::test::fixture("catalogs/format-1.0/quad-rail4.vpcat");
  for (const std::string& args : {"validate " + shell_quote(golden), "validate --catalog " + shell_quote(golden)}) {
    const RunResult r = tool(kCatalog, args);
    CHECK(r.exit_code == 0);
    CHECK(r.out == golden + ": valid catalog (1 node types, 4 nodes, 16 GPUs)\n");
  }
  check(tool(kCatalog, "inspect --catalg " + shell_quote(golden)), 1,
        "vp-catalog: error: --catalg: not an option (did you mean --catalog?) (run 'vp-catalog --help' for the "
        "options)\n");
}

TEST_CASE("near misses: the edit distance counts insertions, deletions, substitutions and swaps of neighbours") {
  CHECK(vp::cli::edit_distance("", "") == 0);
  CHECK(vp::cli::edit_distance("validate", "validate") == 0);
  CHECK(vp::cli::edit_distance("valdate", "validate") == 1);
  CHECK(vp::cli::edit_distance("vaildate", "validate") == 1);  // two neighbours swapped
  CHECK(vp::cli::edit_distance("--ouput", "--out") == 2);
  CHECK(vp::cli::edit_distance("abc", "") == 3);
}

TEST_CASE("located JSON: --defaults and a catalog mirror: file:line:col, the line and a caret") {
  vp::test::TempDir dir;
  const std::string platform = vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json");
  const std::string defaults = dir.write("d.json", "{\n  \"pcie.gen4\": 22,\n  \"pcie.gen5\": \"fast\"\n}\n");
  check(tool(kAnalyze, "topology --input " + shell_quote(platform) + " --defaults " + shell_quote(defaults)), 2,
        "vp-analyze: error: " + defaults + ":3:16: pcie.gen5: must be a number, got \"fast\"\n"
        "  \"pcie.gen5\": \"fast\"\n"
        "               ^\n");
  const std::string syntax = dir.write("s.json", "{\"pcie.gen4\": 22,}\n");
  check(tool(kAnalyze, "topology --input " + shell_quote(platform) + " --defaults " + shell_quote(syntax)), 2,
        "vp-analyze: error: " + syntax +
            ":1:18: malformed JSON (syntax error while parsing object key - unexpected '}'; expected string literal)\n"
            "{\"pcie.gen4\": 22,}\n"
            "                 ^\n");
  const std::string mirror = dir.write("m.json", "{\"format\": \"vpcat-json\",\n \"format_version\": \"9.0\"}\n");
  check(tool(kCatalog, "validate " + shell_quote(mirror)), 3,
        "vp-catalog: error: " + mirror + ":1:1: document: missing key \"node_types\"\n"
        "{\"format\": \"vpcat-json\",\n"
        "^\n");
}

TEST_CASE("every tool: output that cannot be written is an error, never a silent success") {
  // /dev/full: every write fails with ENOSPC, as on a full disk.
  const std::string platform = vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json");
  const std::string golden = vp::test::fixture("catalogs/format-1.0/quad-rail4.vpcat");
  vp::test::TempDir dir;
  const std::string demand = dir.write("D.json", "{\"gpus\": 16, \"entries\": [[0, 1, 4096]]}");
  const std::string lost = ": error: standard output: cannot write (No space left on device)\n";
  for (const auto& [bin, name, args] : {
           std::tuple{kAnalyze, "vp-analyze", "topology --input " + shell_quote(platform)},
           std::tuple{kCatalog, "vp-catalog", "inspect " + shell_quote(golden)},
           std::tuple{kCatalog, "vp-catalog", "convert " + shell_quote(golden) + " --to json --out -"},
           std::tuple{kPlan, "vp-plan", "--catalog " + shell_quote(golden) + " --demand " + shell_quote(demand)},
           std::tuple{kSim, "vp-sim", "--catalog " + shell_quote(golden) + " --workload uniform"},
       }) {
    CAPTURE(args);
    // In a shell of its own: run() redirects standard output after the command.
    const RunResult r = vp::test::run("sh -c " + shell_quote(shell_quote(bin) + " " + args + " >/dev/full"));
    CHECK(r.exit_code == 2);
    CHECK(r.err == std::string(name) + lost);
  }
}
