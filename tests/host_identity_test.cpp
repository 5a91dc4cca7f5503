// Host identity: node names are host names where vp-analyze can
// know them (hwloc's HostName, --hostname, --hosts), replayed by validate
// --against, shown by vp-catalog inspect; bad names are usage errors.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "support.hpp"

using vp::test::fixture;
using vp::test::run;
using vp::test::RunResult;
using vp::test::shell_quote;
using vp::test::TempDir;

namespace {

const std::string kAnalyze = VP_ANALYZE_BIN, kCatalog = VP_CATALOG_BIN;

std::string platform() { return fixture("platforms/pcie-gen4-2s4sw8g.json"); }

// Analyse with `args` into dir/c.vpcat; the node groups inspect --json shows.
nlohmann::json node_groups(const TempDir& dir, const std::string& args) {
  const std::string out = dir.path() + "/c.vpcat";
  RunResult a = run(kAnalyze + " " + args + " --out " + shell_quote(out));
  INFO(a.err);
  REQUIRE(a.exit_code == 0);
  RunResult i = run(kCatalog + " inspect --json " + shell_quote(out));
  INFO(i.err);
  REQUIRE(i.exit_code == 0);
  return nlohmann::json::parse(i.out)["node_groups"];
}

}  // namespace

TEST_CASE("an hwloc XML's HostName names the node; --hostname overrides it") {
  TempDir dir;
  const std::string xml = fixture("real/hwloc-xml/hwloc-24em64t-2n6c2t-pci.xml");  // HostName mirage004
  nlohmann::json g = node_groups(dir, "--input " + xml);
  REQUIRE(g.size() == 1);
  CHECK(g[0]["names"] == "mirage004");
  CHECK(g[0]["count"] == 1);
  RunResult text = run(kCatalog + " inspect " + shell_quote(dir.path() + "/c.vpcat"));
  CHECK(text.out.find("\nnodes mirage004 (1 of type hwloc-24em64t-2n6c2t-pci, GPUs 0-2)\n") != std::string::npos);
  CHECK(text.out.find("node names: generated") == std::string::npos);
  CHECK(node_groups(dir, "--input " + xml + " --hostname gpu17.example.org")[0]["names"] == "gpu17.example.org");
}

TEST_CASE("an input without a host name gives node0, which inspect calls generated") {
  TempDir dir;
  CHECK(node_groups(dir, "--input " + platform())[0]["names"] == "node0");
  RunResult text = run(kCatalog + " inspect " + shell_quote(dir.path() + "/c.vpcat"));
  CHECK(text.out.find("\nnodes node0 (1 of type pcie-gen4-2s4sw8g, GPUs 0-7)\n") != std::string::npos);
  CHECK(text.out.find("\nnode names: generated (node0, ...), not host names: the runtime maps ranks by host name, so "
                      "set VPCAT_RANK_MAP, or rebuild with vp-analyze --hostname NAME / --hosts LIST (docs/mpi.md)\n") !=
        std::string::npos);
}

TEST_CASE("--hosts names the nodes of the shortcut, with or without --nodes; validate --against replays it") {
  TempDir dir;
  nlohmann::json g = node_groups(dir, "--input " + platform() + " --hosts 'gpu[01-04]'");
  REQUIRE(g.size() == 1);
  CHECK(g[0]["names"] == "gpu01,gpu02,gpu03,gpu04");
  CHECK(g[0]["count"] == 4);
  RunResult v = run(kCatalog + " validate " + shell_quote(dir.path() + "/c.vpcat") + " --against " + platform());
  INFO(v.err);
  CHECK(v.exit_code == 0);
  CHECK(v.out.find("(options hosts=gpu[01-04];pattern_budget=") != std::string::npos);
  g = node_groups(dir, "--input " + platform() + " --nodes 2 --fabric rail --hosts a7,b9");
  CHECK(g[0]["names"] == "a7,b9");
  CHECK(node_groups(dir, "--input " + platform() + " --hosts solo1")[0]["names"] == "solo1");
}

TEST_CASE("bad host names and conflicting options are usage errors (exit 1) that say why") {
  TempDir dir;
  const std::string out = " --out " + shell_quote(dir.path() + "/x.vpcat");
  struct Case {
    std::string args, message;
  };
  for (const Case& c : {
           Case{"--hosts 'gpu[01-04]' --nodes 3",
                "vp-analyze: error: --hosts gpu[01-04] names 4 hosts, --nodes 3 nodes (one name per node)"},
           Case{"--hosts 'a[1-2],a1'", "vp-analyze: error: --hosts a[1-2],a1: host a1 twice"},
           Case{"--hosts 'gpu[1-'", "vp-analyze: error: --hosts gpu[1-: host list \"gpu[1-\": "},
           Case{"--hostname 'bad name'",
                "vp-analyze: error: --hostname: not a host name (letters, digits, '-', '.' and '_'): bad name"},
           Case{"--hostname a --hosts b", "vp-analyze: error: --hostname excludes --hosts"},
           Case{"--hosts a --cluster " + fixture("platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json"),
                "vp-analyze: error: --cluster excludes --hosts"},
       }) {
    CAPTURE(c.args);
    RunResult r = run(kAnalyze + " --input " + platform() + " " + c.args + out);
    CHECK(r.exit_code == 1);
    CHECK(r.err.rfind(c.message, 0) == 0);
  }
  // A vp JSON cluster already names its nodes.
  RunResult two = run(kAnalyze + " topology --json --input " + platform() + " --nodes 2 --hosts x1,x2");
  REQUIRE(two.exit_code == 0);
  const std::string cluster = dir.path() + "/two.json";
  {
    std::FILE* f = std::fopen(cluster.c_str(), "w");
    REQUIRE(f);
    std::fputs(two.out.c_str(), f);
    std::fclose(f);
  }
  RunResult r = run(kAnalyze + " --input " + shell_quote(cluster) + " --hosts y1,y2" + out);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("already names its 2 nodes; drop --hostname/--hosts") != std::string::npos);
}
