// Bounded inputs and "-": every input file is read
// within --max-input-bytes and --max-input-wait (vp::read_input_file), the
// analyzer refuses clusters and node types beyond its --max-* limits before
// the work they would cost, and "-" is standard output for vp-analyze's
// catalog and mirror as for vp-catalog convert.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "input_error.hpp"
#include "tools_support.hpp"
#include "vp/base/errors.hpp"
#include "vp/base/input_file.hpp"

using vp::test::kAnalyze;
using vp::test::kCatalog;
using vp::test::kPlan;
using vp::test::RunResult;
using vp::test::shell_quote;
using vp::test::TempDir;
using vp::test::tool;

namespace {

std::string error_of(const std::string& path) {
  return vp::test::message_of([&] { vp::read_input_file(path); });
}

// Restores the process-wide limits a test changes.
struct LimitsGuard {
  vp::InputLimits saved = vp::input_limits();
  ~LimitsGuard() { vp::input_limits() = saved; }
};

// An nvidia-smi topo -m matrix of `gpus` GPUs on one socket, two to a switch.
std::string nvidia_smi_matrix(int gpus) {
  std::string text;
  for (int i = 0; i < gpus; ++i) text += "\tGPU" + std::to_string(i);
  text += "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n";
  for (int i = 0; i < gpus; ++i) {
    text += "GPU" + std::to_string(i);
    for (int j = 0; j < gpus; ++j) text += i == j ? "\t X " : (i / 2 == j / 2 ? "\tPIX" : "\tNODE");
    text += "\t0-31\t0\t\tN/A\n";
  }
  return text + "\nLegend:\n\n  X    = Self\n";
}

}  // namespace

TEST_CASE("read_input_file: a regular file above --max-input-bytes is refused before it is read") {
  LimitsGuard guard;
  TempDir dir;
  const std::string path = dir.write("big.json", std::string(5000, ' '));
  vp::input_limits().max_bytes = 4096;
  CHECK(error_of(path) == path + ": cannot read the file (5000 bytes is more than the limit of 4096 bytes for an input file; "
                                 "--max-input-bytes raises it)");
  vp::input_limits().max_bytes = 5000;
  CHECK(vp::read_input_file(path).size() == 5000);
}

TEST_CASE("read_input_file: a device is read up to the limit, never until memory runs out") {
  LimitsGuard guard;
  vp::input_limits().max_bytes = std::uint64_t{1} << 20;
  CHECK(error_of("/dev/zero") ==
        "/dev/zero: cannot read the file (its content is more than the limit of 1 MiB for an input file; --max-input-bytes "
        "raises it)");
}

TEST_CASE("read_input_file: a FIFO is never waited on for ever") {
  LimitsGuard guard;
  vp::input_limits().max_wait = std::chrono::milliseconds(200);
  TempDir dir;
  const std::string fifo = dir.path() + "/fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // No writer yet (opened without blocking), or a writer that never writes:
  // refused after max_wait.
  const auto start = std::chrono::steady_clock::now();
  const std::string refused = fifo + ": cannot read the file (no data for 200 ms: a pipe or FIFO that nothing writes "
                                     "to? --max-input-wait raises the wait)";
  CHECK(error_of(fifo) == refused);
  const int writer = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  REQUIRE(writer >= 0);
  CHECK(error_of(fifo) == refused);
  ::close(writer);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
  // A writer that comes later and writes is read to its end.
  vp::input_limits().max_wait = std::chrono::seconds(20);
  REQUIRE(vp::test::run("(sleep 0.3; printf '{}' > " + shell_quote(fifo) + ") >/dev/null 2>&1 &").exit_code == 0);
  CHECK(vp::read_input_file(fifo) == "{}");
}

TEST_CASE("read_input_file: a folder and a missing file name the path and the reason") {
  TempDir dir;
  CHECK(error_of(dir.path()) == dir.path() + ": cannot read the file (Is a directory)");
  CHECK(error_of(dir.path() + "/none") == dir.path() + "/none: cannot read the file (No such file or directory)");
}

TEST_CASE("every tool: --max-input-bytes bounds the files it reads; - reads standard input") {
  TempDir dir;
  const std::string platform = vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json");
  RunResult r = tool(kAnalyze, "topology --input " + shell_quote(platform) + " --max-input-bytes 1KiB");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("is more than the limit of 1024 bytes for an input file; --max-input-bytes raises it)") !=
        std::string::npos);
  // In a shell of its own: run() gives the command /dev/null as standard input.
  r = vp::test::run("sh -c " + shell_quote(shell_quote(kAnalyze) + " topology --input - < " + shell_quote(platform)));
  CHECK(r.exit_code == 0);
  CHECK(r.out.rfind("Topology of standard input: 1 node, 8 GPUs", 0) == 0);
  // hwloc XML too: libhwloc is given the bytes read, not the path.
  const std::string hwloc = vp::test::fixture("real/hwloc-xml/hwloc-nvidiaDGX2.xml");
  r = vp::test::run("sh -c " + shell_quote(shell_quote(kAnalyze) + " topology --input - < " + shell_quote(hwloc)));
  CHECK(r.exit_code == 0);
  CHECK(r.out.rfind("Topology of standard input: 1 node, 16 GPUs", 0) == 0);
  r = vp::test::run("sh -c " + shell_quote("cat " + shell_quote(hwloc) + " | " + shell_quote(kAnalyze) +
                                           " topology --input - --max-input-bytes 4KiB"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("standard input: cannot read the file (") != std::string::npos);

  const std::string golden = vp::test::fixture("catalogs/format-1.0/quad-rail4.vpcat");
  const std::string demand = dir.write("D.json", "{\"gpus\": 16, \"entries\": [[0, 1, 4096]]}");
  r = tool(kPlan, "--catalog " + shell_quote(golden) + " --demand " + shell_quote(demand) + " --max-input-bytes 8");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "vp-plan: error: " + demand +
                     ": cannot read the file (39 bytes is more than the limit of 8 bytes for an input file; --max-input-bytes "
                     "raises it)\n");
  r = tool(kPlan, "--catalog " + shell_quote(golden) + " --demand /dev/zero --max-input-bytes 1MiB");
  CHECK(r.exit_code == 2);
  // A FIFO nobody writes to: the catalog opener refuses it at once.
  const std::string fifo = dir.path() + "/fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  r = tool(kCatalog, "validate " + shell_quote(fifo));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("not a regular file") != std::string::npos);
}

TEST_CASE("read_input_file: a FIFO that trickles is refused at --max-input-wait, not read for as long as it trickles") {
  LimitsGuard guard;
  vp::input_limits().max_wait = std::chrono::milliseconds(1000);
  TempDir dir;
  const std::string fifo = dir.path() + "/fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // A byte every 0.2 s for 30 s: each wait is short, the whole is not.
  REQUIRE(vp::test::run("(exec 3>" + shell_quote(fifo) +
                        "; for i in $(seq 150); do printf ' ' >&3 || exit 0; sleep 0.2; done) >/dev/null 2>&1 &")
              .exit_code == 0);
  CHECK(error_of(fifo) == fifo + ": cannot read the file (no end after 1000 ms: a pipe or FIFO still being written, "
                                 "or trickling? --max-input-wait raises the wait)");
}

TEST_CASE("JSON inputs: a tree beyond --max-json-memory is refused at its place before it is built") {
  TempDir dir;
  // 64 rows of 64 zeros: 4,096 numbers, an estimated tree of about 200 KB.
  std::string row = "[0";
  for (int j = 1; j < 64; ++j) row += ",0";
  row += "]";
  std::string demand = "{\"gpus\": 64, \"bytes\": [\n" + row;
  for (int i = 1; i < 64; ++i) demand += ",\n" + row;
  demand += "]}\n";
  const std::string path = dir.write("D.json", demand);
  const std::string catalog = vp::test::fixture("catalogs/format-1.0/quad-rail4.vpcat");
  RunResult r = tool(kPlan, "--catalog " + shell_quote(catalog) + " --demand " + shell_quote(path) +
                                " --max-json-memory 64KiB");
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("vp-plan: error: " + path + ":", 0) == 0);
  CHECK(r.err.find(": too large to parse (by this value its tree would take more than the limit of 65536 bytes for a "
                   "JSON input; --max-json-memory raises it)\n") != std::string::npos);
  // Within the budget the same file is read (and refused for its size against the catalog, a later check).
  r = tool(kPlan, "--catalog " + shell_quote(catalog) + " --demand " + shell_quote(path) + " --max-json-memory 1MiB");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("does not match the catalog") != std::string::npos);
}

TEST_CASE("JSON inputs: shapes no input has are refused by the scan, before a parse of quadratic time") {
  TempDir dir;
  const std::string platform = vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json");
  // An object of 4,097 keys: nlohmann's ordered map parses it in quadratic
  // time (100,000 keys took 21 s, 7 million did not end).
  std::string defaults = "{";
  for (int i = 0; i <= 4096; ++i) defaults += (i ? ",\"k" : "\"k") + std::to_string(i) + "\": 1";
  defaults += "}";
  const std::string keys = dir.write("keys.json", defaults);
  RunResult r = tool(kAnalyze, "topology --input " + shell_quote(platform) + " --defaults " + shell_quote(keys));
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("vp-analyze: error: " + keys + ":1:", 0) == 0);
  CHECK(r.err.find(": an object of more than 4096 keys (no input of ours has one; parsing it would take quadratic "
                   "time)\n") != std::string::npos);
  const std::string deep = dir.write("deep.json", std::string(513, '[') + std::string(513, ']'));
  r = tool(kAnalyze, "topology --input " + shell_quote(platform) + " --defaults " + shell_quote(deep));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find(":1:513: nested more than 512 deep (no input of ours is)\n") != std::string::npos);
}

TEST_CASE("topology JSON: a list longer than its limit is refused before its entries are made") {
  TempDir dir;
  std::string text = vp::test::file_bytes(vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json"));
  const std::size_t close = text.rfind('}');
  REQUIRE(close != std::string::npos);
  std::string warnings = ", \"warnings\": [\"\"";
  for (int i = 0; i < 10000; ++i) warnings += ", \"\"";
  text.insert(close, warnings + "]");
  const std::string path = dir.write("t.json", text);
  const RunResult r = tool(kAnalyze, "topology --input " + shell_quote(path));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("warnings: has 10001 entries, more than the limit of 10000 (warnings of a topology)") !=
        std::string::npos);
}

TEST_CASE("JSON inputs: out of memory (ulimit -v) is exit 2 naming the file, never an abort") {
  TempDir dir;
  // 3 million numbers (6 MB): an estimated tree of 96 MB (144 MB with the
  // room to free it), more than a 120 MB address space holds; the tool
  // before this check aborted there (std::terminate while freeing the tree).
  std::string demand = "{\"gpus\": 2, \"entries\": [[0";
  demand.reserve(6'000'100);
  for (int i = 1; i < 3'000'000; ++i) demand += ",0";
  demand += "]]}";
  const std::string path = dir.write("big.json", demand);
  const std::string catalog = vp::test::fixture("catalogs/format-1.0/quad-rail4.vpcat");
  const std::string plan = shell_quote(kPlan) + " --catalog " + shell_quote(catalog) + " --demand " + shell_quote(path);
  const RunResult r = vp::test::run("sh -c " + shell_quote("ulimit -v 120000; exec " + plan));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "vp-plan: error: " + path +
                     ": out of memory while reading the file (it needs more memory than this machine or its ulimit "
                     "gives; --max-input-bytes and --max-json-memory lower what an input may take)\n");
}

TEST_CASE("vp-analyze: node types and clusters beyond the --max-* limits are refused before the analysis") {
  TempDir dir;
  const std::string wide = dir.write("wide.txt", nvidia_smi_matrix(34));
  RunResult r = tool(kAnalyze, "--input " + shell_quote(wide) + " --out " + shell_quote(dir.path() + "/w.vpcat"));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "vp-analyze: error: " + wide + ":1: header: more than 32 GPUs, the limit of GPUs of a node "
                                                "(--max-node-gpus)\n");
  r = tool(kAnalyze, "topology --input " + shell_quote(wide) + " --max-node-gpus 34");
  CHECK(r.exit_code == 0);

  const std::string platform = vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json");
  r = tool(kAnalyze, "--input " + shell_quote(platform) + " --nodes 40000 --out " + shell_quote(dir.path() + "/x"));
  CHECK(r.exit_code == 1);
  CHECK(r.err == "vp-analyze: error: --nodes 40000: 40000 nodes: above the limit of 32768 nodes of an analysed "
                 "cluster (--max-nodes)\n");
  r = tool(kAnalyze, "--input " + shell_quote(platform) + " --nodes 4 --max-components 79 --out " +
                         shell_quote(dir.path() + "/x"));
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("above the limit of 79 components of an analysed cluster (--max-components)") != std::string::npos);
  const std::string cluster = vp::test::fixture("platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json");
  r = tool(kAnalyze, "--cluster " + shell_quote(cluster) + " --max-nodes 3 --out " + shell_quote(dir.path() + "/x"));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "vp-analyze: error: " + cluster + ": 4 nodes: above the limit of 3 nodes of an analysed cluster "
                                                   "(--max-nodes)\n");
}

TEST_CASE("vp-analyze --out - and --json-out -: standard output, the same bytes as the files; the summary on stderr") {
  TempDir dir;
  const std::string platform = vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json");
  const std::string file = dir.path() + "/c.vpcat", mirror = dir.path() + "/c.json";
  RunResult r = tool(kAnalyze, "--input " + shell_quote(platform) + " -q --out " + shell_quote(file) +
                                   " --json-out " + shell_quote(mirror));
  REQUIRE(r.exit_code == 0);
  const std::string piped = dir.path() + "/piped.vpcat";
  // In a shell of its own: run() redirects standard output after the command.
  auto to_file = [&](const std::string& args, const std::string& out) {
    return vp::test::run("sh -c " + shell_quote(shell_quote(kAnalyze) + " " + args + " > " + shell_quote(out)));
  };
  r = to_file("--input " + shell_quote(platform) + " -q --out - --json-out " + shell_quote(dir.path() + "/m2.json"),
              piped);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("wrote standard output (") == 0);
  CHECK(vp::test::run("cmp " + shell_quote(file) + " " + shell_quote(piped)).exit_code == 0);
  CHECK(vp::test::run("cmp " + shell_quote(mirror) + " " + shell_quote(dir.path() + "/m2.json")).exit_code == 0);
  r = to_file("--input " + shell_quote(platform) + " -q --out " + shell_quote(dir.path() + "/c3.vpcat") +
                  " --json-out -",
              dir.path() + "/m3.json");
  REQUIRE(r.exit_code == 0);
  CHECK(vp::test::run("cmp " + shell_quote(mirror) + " " + shell_quote(dir.path() + "/m3.json")).exit_code == 0);
  r = tool(kAnalyze, "--input " + shell_quote(platform) + " -q --out - --json-out -");
  CHECK(r.exit_code == 1);
  CHECK(r.err == "vp-analyze: error: --out - --json-out -: only one output can go to standard output\n");
  // No file named "-" was written.
  CHECK(vp::test::run("test ! -e ./-").exit_code == 0);
}

TEST_CASE("vp-analyze topology of 20,000 GPUs: output linear in the cluster, no GPU x GPU matrix of it") {
  // Finding 8: 2,500 nodes of 8 GPUs printed 2.3 GB (the whole path-type matrix).
  const std::string platform = vp::test::fixture("platforms/pcie-gen4-2s4sw8g.json");
  for (const char* form : {"", " --json"}) {
    CAPTURE(form);
    const RunResult r = vp::test::run("sh -c " + shell_quote(shell_quote(kAnalyze) + " topology --input " +
                                                              shell_quote(platform) + " --nodes 2500" + form +
                                                              " | wc -c"));
    REQUIRE(r.exit_code == 0);
    const long bytes = std::stol(r.out);
    CHECK(bytes > 1000000);   // every GPU, NIC and link is listed
    CHECK(bytes < 64000000);  // 20 KB a node at most, not 20,000^2 cells
  }
}

TEST_CASE("vp-analyze --max-analysis-seconds bounds the symmetry check too") {
  // 320 GPUs, two to a switch, allowed by --max-node-gpus: before the deadline
  // covered it, the routing check of the group's generators alone took over a
  // minute.
  TempDir dir;
  const std::string input = dir.write("wide.txt", nvidia_smi_matrix(320));
  const auto start = std::chrono::steady_clock::now();
  const RunResult r = tool(kAnalyze, "--input " + shell_quote(input) + " -q --max-node-gpus 320 --max-analysis-seconds "
                                     "0.5 --out " + shell_quote(dir.path() + "/x.vpcat"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("vp-analyze: error: node type wide: the symmetry check (generator ") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(50));
  CHECK(vp::test::run("test ! -e " + shell_quote(dir.path() + "/x.vpcat")).exit_code == 0);
}

TEST_CASE("vp-analyze --max-analysis-seconds: an analysis within every size limit still ends, with a clear refusal") {
  // 8 GPUs and 24 NICs, six to a switch, take about a minute here (the pattern
  // search's budget counts search nodes, not the group work at each).
  std::string text;
  const int gpus = 8, nics = 24;
  auto sw = [&](int d) { return d < gpus ? d / 2 : (d - gpus) % (gpus / 2); };
  for (int i = 0; i < gpus; ++i) text += "\tGPU" + std::to_string(i);
  for (int k = 0; k < nics; ++k) text += "\tNIC" + std::to_string(k);
  text += "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n";
  for (int i = 0; i < gpus + nics; ++i) {
    text += i < gpus ? "GPU" + std::to_string(i) : "NIC" + std::to_string(i - gpus);
    for (int j = 0; j < gpus + nics; ++j) text += i == j ? "\t X " : (sw(i) == sw(j) ? "\tPIX" : "\tNODE");
    text += i < gpus ? "\t0-31\t0\t\tN/A\n" : "\t\t\t\n";
  }
  text += "\nLegend:\n\n  X    = Self\n\nNIC Legend:\n\n";
  for (int k = 0; k < nics; ++k) text += "  NIC" + std::to_string(k) + ": mlx5_" + std::to_string(k) + "\n";
  TempDir dir;
  const std::string input = dir.write("many-nics.txt", text);
  const auto start = std::chrono::steady_clock::now();
  const RunResult r = tool(kAnalyze, "--input " + shell_quote(input) + " -q --max-analysis-seconds 0.5 --out " +
                                         shell_quote(dir.path() + "/x.vpcat"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("vp-analyze: error: node type many-nics: the local-pattern search (") != std::string::npos);
  CHECK(r.err.find(" search nodes) passed --max-analysis-seconds") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(50));
  CHECK(vp::test::run("test ! -e " + shell_quote(dir.path() + "/x.vpcat")).exit_code == 0);
}
