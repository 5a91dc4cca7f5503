// What a hostile user's afternoon with the tools found, each now a refusal
// with its exit code and message: an output that would replace an input, a
// catalog on standard input, figures outside the tools' range, files that
// state no size, names that are not one line.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "tools_support.hpp"

using vp::test::check;
using vp::test::file_bytes;
using vp::test::kAnalyze;
using vp::test::kCatalog;
using vp::test::kPlan;
using vp::test::RunResult;
using vp::test::shell_quote;
using vp::test::tool;

namespace {

// `bin args` with `file` on standard input (in a shell of its own: run()
// gives the command /dev/null as its standard input).
RunResult tool_reading(const std::string& bin, const std::string& args, const std::string& file) {
  return vp::test::run("sh -c " + shell_quote(shell_quote(bin) + " " + args + " <" + shell_quote(file)));
}

const std::string kGolden = vp::test::fixture("catalogs/format-1.0/quad-rail4.vpcat");
const std::string kPlatform = vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json");

}  // namespace

TEST_CASE("an output that is an input of the same run is refused before anything is written") {
  vp::test::TempDir dir;
  const std::string input = dir.path() + "/x.json";
  std::filesystem::copy_file(kPlatform, input);
  check(tool(kAnalyze, "--input " + shell_quote(input) + " --out " + shell_quote(input)), 1,
        "vp-analyze: error: " + input +
            ": is an input of this run: the output would replace it (write to another file)\n");
  CHECK(file_bytes(input) == file_bytes(kPlatform));
  // The same file under another name: a link.
  const std::string catalog = dir.path() + "/c.vpcat";
  std::filesystem::copy_file(kGolden, catalog);
  const std::string link = dir.path() + "/link.vpcat";
  std::filesystem::create_symlink(catalog, link);
  check(tool(kCatalog, "convert " + shell_quote(catalog) + " --to json --out " + shell_quote(link)), 1,
        "vp-catalog: error: " + link + ": is the same file as " + catalog +
            ", an input of this run: the output would replace it (write to another file)\n");
  CHECK(file_bytes(catalog) == file_bytes(kGolden));
}

TEST_CASE("an output to standard output that fails leaves the files as they were") {
  vp::test::TempDir dir;
  const std::string out = dir.path() + "/x.vpcat";
  const RunResult r = vp::test::run("sh -c " + shell_quote(shell_quote(kAnalyze) + " --input " + shell_quote(kPlatform) +
                                                           " --out " + shell_quote(out) + " --json-out - >/dev/full"));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "vp-analyze: error: standard output: cannot write (No space left on device)\n");
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("a catalog on standard input: \"-\", as every input") {
  vp::test::TempDir dir;
  const RunResult valid = tool_reading(kCatalog, "validate -", kGolden);
  CHECK(valid.exit_code == 0);
  CHECK(valid.out.rfind("standard input: valid catalog (", 0) == 0);
  const std::string demand = dir.write("D.json", "{\"gpus\": 16, \"entries\": [[0, 1, 4096]]}");
  const RunResult plan = tool_reading(kPlan, "--catalog - --demand " + shell_quote(demand), kGolden);
  CHECK(plan.exit_code == 0);
  CHECK(plan.out.find(" steps (") != std::string::npos);
  const RunResult inspect = tool_reading(kCatalog, "inspect -", kGolden);
  CHECK(inspect.exit_code == 0);
  CHECK(inspect.out.rfind("standard input: ", 0) == 0);
  const std::string bad = vp::test::fixture("corrupt/bad-header-checksum.vpcat");
  check(tool_reading(kPlan, "--catalog - --demand " + shell_quote(demand), bad), 3,
        "vp-plan: error: standard input: header at offset 0x3c: header checksum mismatch (stored 0x158fea26, "
        "computed 0xa66cc60e)\n");
}

TEST_CASE("--set: a figure outside the tools' range is a usage error that says the range") {
  const std::string topology = "topology --input " + shell_quote(kPlatform);
  check(tool(kAnalyze, topology + " --set pcie.gen4=1e308"), 1,
        "vp-analyze: error: --set pcie.gen4: must be a capacity from 0.001 to 1e+06 GB/s, got 1e+308\n");
  check(tool(kAnalyze, topology + " --set pcie.gen4=1e-310"), 1,
        "vp-analyze: error: --set pcie.gen4: must be a capacity from 0.001 to 1e+06 GB/s, got 1e-310\n");
  check(tool(kAnalyze, topology + " --set pcie.gen4=1e999"), 1,
        "vp-analyze: error: --set pcie.gen4=1e999: '1e999' is out of range\n");
  check(tool(kAnalyze, topology + " --set root_complex_p2p_factor=1e-300"), 1,
        "vp-analyze: error: --set root_complex_p2p_factor: must be at least 0.001 and at most 1000, got 1e-300\n");
}

TEST_CASE("a capacity of 1e-300 GB/s in a topology is refused where it stands") {
  vp::test::TempDir dir;
  std::string text = file_bytes(kPlatform);
  const std::string from = "\"capacity_gbps\": ";
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  const std::size_t end = text.find_first_of(",}", at);
  text.replace(at + from.size(), end - at - from.size(), "1e-300");
  const std::string input = dir.write("t.json", text);
  const RunResult r = tool(kAnalyze, "topology --input " + shell_quote(input));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("capacity_gbps: must be a capacity from 0.001 to 1e+06 GB/s, got 1e-300\n") != std::string::npos);
  CHECK(r.out.empty());
}

TEST_CASE("a catalog that cannot be read is exit 2, also when it states no size") {
  vp::test::TempDir dir;
  const std::string demand = dir.write("D.json", "{\"gpus\": 16, \"entries\": []}");
  check(tool(kPlan, "--catalog /proc/self/mem --demand " + shell_quote(demand)), 2,
        "vp-plan: error: /proc/self/mem: cannot read the file (read: Input/output error)\n");
  check(tool(kCatalog, "validate /proc/self/mem"), 2,
        "vp-catalog: error: /proc/self/mem: cannot read the file (read: Input/output error)\n");
  // A file that reads but has no size (procfs) is no catalog file either.
  check(tool(kCatalog, "validate /proc/self/status"), 2,
        "vp-catalog: error: /proc/self/status: cannot read the file (not a regular file (no size))\n");
}

TEST_CASE("a file name with a newline stays on its line in a message") {
  vp::test::TempDir dir;
  const std::string name = dir.path() + "/a\nb.vpcat";
  const RunResult r = tool(kCatalog, "validate " + shell_quote(name));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "vp-catalog: error: " + dir.path() + "/a\\x0ab.vpcat: cannot read the file (open: No such file or "
                 "directory)\n");
}
