// The tools when standard error or standard output cannot take what they
// write: messages are best effort (a daemon with fd 2 closed, a full log disk,
// a reader that went away lose the message, nothing else), and output that is
// lost is exit 2, --help and --version included. File names that are not text
// reach JSON outputs escaped, never as an internal error.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "tools_support.hpp"

using vp::test::file_bytes;
using vp::test::kAnalyze;
using vp::test::kCatalog;
using vp::test::kPlan;
using vp::test::kSim;
using vp::test::RunResult;
using vp::test::shell_quote;

namespace {

// The three ways standard error is lost, as shell redirections of `command`;
// standard output stays the test's. The broken pipe's reader (`true`) is gone
// before the tool starts: the tool's first message raises SIGPIPE / EPIPE.
enum class Lost { full, closed, broken_pipe };
const char* name_of(Lost how) {
  return how == Lost::full ? "2>/dev/full" : how == Lost::closed ? "2>&-" : "a broken pipe";
}

// Runs `command` with standard error lost as `how`; the exit code is the
// command's own (a pipeline's would be the reader's).
RunResult run_without_stderr(const std::string& command, Lost how, const vp::test::TempDir& dir) {
  const std::string rc = dir.path() + "/rc";
  std::string script;
  switch (how) {
    case Lost::full: script = command + " 2>/dev/full; echo $? >" + shell_quote(rc); break;
    case Lost::closed: script = command + " 2>&-; echo $? >" + shell_quote(rc); break;
    case Lost::broken_pipe:
      script = "{ { sleep 0.3; " + command + " 2>&3 3>&- 4>&-; echo $? >" + shell_quote(rc) +
               "; } 3>&1 1>&4 | true; } 4>&1";
      break;
  }
  RunResult r = vp::test::run("sh -c " + shell_quote(script));
  std::ifstream in(rc);
  r.exit_code = -1;
  in >> r.exit_code;
  return r;
}

}  // namespace

TEST_CASE("every tool: an unwritable standard error changes neither the exit code nor the output") {
  vp::test::TempDir dir;
  const std::string bad_route = vp::test::fixture("corrupt/bad-route.vpcat");
  const std::string golden = vp::test::fixture("catalogs/format-1.0/quad-rail4.vpcat");
  const std::string demand = dir.write("D.json", "{\"gpus\": 16, \"entries\": [[0, 1, 4096]]}");
  for (Lost how : {Lost::full, Lost::closed, Lost::broken_pipe}) {
    CAPTURE(name_of(how));
    for (const std::string& bin : {kAnalyze, kCatalog, kPlan, kSim}) {
      CAPTURE(bin);
      CHECK(run_without_stderr(shell_quote(bin) + " --bogus", how, dir).exit_code == 1);
      const RunResult help = run_without_stderr(shell_quote(bin) + " --help", how, dir);
      CHECK(help.exit_code == 0);
      CHECK(help.out.find("--version") != std::string::npos);
    }
    CHECK(run_without_stderr(shell_quote(kCatalog) + " validate " + shell_quote(bad_route), how, dir).exit_code == 3);
    CHECK(run_without_stderr(shell_quote(kPlan) + " --catalog " + shell_quote(bad_route) + " --demand " +
                                 shell_quote(demand),
                             how, dir)
              .exit_code == 3);
    // A result on standard output, with a note on standard error (a scheduler skipped) or none.
    const RunResult plan = run_without_stderr(
        shell_quote(kPlan) + " --catalog " + shell_quote(golden) + " --demand " + shell_quote(demand), how, dir);
    CHECK(plan.exit_code == 0);
    CHECK(plan.out.find(" steps (") != std::string::npos);
  }
}

TEST_CASE("vp-analyze: a warning that cannot be printed does not stop the catalog") {
  // This input's import warns (what it assumed); the catalog is the same with
  // or without a standard error to say so.
  const std::string input = vp::test::fixture("real/hwloc-xml/hwloc-24em64t-2n6c2t-pci.xml");
  vp::test::TempDir dir;
  const std::string reference = dir.path() + "/reference.vpcat";
  const RunResult r = vp::test::run(shell_quote(kAnalyze) + " --input " + shell_quote(input) +
                                    " --nodes 1 --progress none --out " + shell_quote(reference));
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.err.find("vp-analyze: warning: ") != std::string::npos);
  for (Lost how : {Lost::full, Lost::closed, Lost::broken_pipe}) {
    CAPTURE(name_of(how));
    const std::string out = dir.path() + "/w.vpcat";
    std::filesystem::remove(out);
    const RunResult w = run_without_stderr(shell_quote(kAnalyze) + " --input " + shell_quote(input) +
                                               " --nodes 1 --progress lines --out " + shell_quote(out),
                                           how, dir);
    CHECK(w.exit_code == 0);
    CHECK(w.out.find("wrote ") == 0);
    CHECK(file_bytes(out) == file_bytes(reference));
  }
}

TEST_CASE("every tool: --help and --version to a full standard output exit 2") {
  const std::vector<std::tuple<std::string, std::string>> tools{
      {kAnalyze, "vp-analyze"}, {kCatalog, "vp-catalog"}, {kPlan, "vp-plan"}, {kSim, "vp-sim"}};
  for (const auto& [bin, name] : tools) {
    for (const char* flag : {"--help", "--version"}) {
      CAPTURE(name);
      CAPTURE(flag);
      const RunResult r = vp::test::run("sh -c " + shell_quote(shell_quote(bin) + " " + flag + " >/dev/full"));
      CHECK(r.exit_code == 2);
      CHECK(r.err == name + ": error: standard output: cannot write (No space left on device)\n");
    }
  }
}

TEST_CASE("a file name that is not UTF-8 is escaped in every JSON output") {
  vp::test::TempDir dir;
  const std::string name = dir.path() + "/\xff\xfe.vpcat";
  std::filesystem::copy_file(vp::test::fixture("catalogs/format-1.0/quad-rail4.vpcat"), name);
  const std::string escaped = dir.path() + "/\\xff\\xfe.vpcat";
  const RunResult inspect = vp::test::run(shell_quote(kCatalog) + " inspect " + shell_quote(name) + " --json");
  CHECK(inspect.exit_code == 0);
  CHECK(inspect.err.empty());
  REQUIRE(nlohmann::json::accept(inspect.out));
  CHECK(nlohmann::json::parse(inspect.out).at("file") == escaped);
  const RunResult sim =
      vp::test::run(shell_quote(kSim) + " --catalog " + shell_quote(name) + " --workload uniform --json");
  CHECK(sim.exit_code == 0);
  REQUIRE(nlohmann::json::accept(sim.out));
  CHECK(nlohmann::json::parse(sim.out).at("catalog") == escaped);
}
