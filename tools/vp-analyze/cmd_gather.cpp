// `mpirun -N 1 vp-analyze gather --out cluster.vpcat`: every rank probes its
// node (hwloc, or the file VP_PROBE_INPUT names), rank 0 gathers the
// topologies, groups the hosts into node types by content and reports the
// hosts that differ from their group (input_dir.hpp), then analyses the
// cluster and writes one catalog. Compiled only when MPI is found.
#include <fmt/format.h>
#include <hwloc.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "commands.hpp"
#include "common.hpp"
#include "vp/base/messages.hpp"
#include "vp/analysis/build_catalog.hpp"
#include "vp/base/input_file.hpp"
#include "vp/catalog/atomic_file.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/catalog/writer.hpp"
#include "vp/import/import.hpp"
#include "vp/topology/errors.hpp"

namespace vp::cli {

namespace {

struct GatherOptions {
  AnalysisRequest request;
  std::string out;
  std::string keep_dir;
  double max_analysis_seconds = 600;
  ProgressChoice progress;
};

struct Probe {
  std::string host, ext, content, error;
};

// This node's topology, as a file's bytes.
Probe probe_this_node() {
  Probe p;
  if (const char* file = std::getenv("VP_PROBE_INPUT"); file && *file) {
    const char* host = std::getenv("VP_PROBE_HOST");
    std::filesystem::path path(file);
    p.host = host && *host ? host : path.stem().string();
    try {
      p.content = read_input_file(file);
    } catch (const InputError& e) {
      p.error = e.what();
    }
    p.ext = path.extension() == ".json" || (!p.content.empty() && p.content[0] == '{') ? ".json" : ".xml";
    return p;
  }
  char name[256] = {0};
  gethostname(name, sizeof name - 1);
  p.host = name;
  p.ext = ".xml";
  hwloc_topology_t t;
  char* xml = nullptr;
  int len = 0;
  if (hwloc_topology_init(&t) != 0) return p.error = "hwloc_topology_init failed", p;
  hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(t) != 0 || hwloc_topology_export_xmlbuffer(t, &xml, &len, 0) != 0) {
    p.error = "probing with hwloc failed";
  } else {
    p.content.assign(xml, static_cast<std::size_t>(len > 0 ? len - 1 : 0));
    hwloc_free_xmlbuffer(t, xml);
  }
  hwloc_topology_destroy(t);
  return p;
}

// Rank 0's part once the probes are gathered: the exit code.
int analyse(const GatherOptions& o, const std::vector<Probe>& probes, ProgressReporter& progress) {
  for (std::size_t r = 0; r < probes.size(); ++r) {
    if (!probes[r].error.empty()) {
      vp::error("vp-analyze", fmt::format("rank {} (host {}): {}", r, printable(probes[r].host), printable(probes[r].error)));
      return static_cast<int>(ExitCode::bad_input);
    }
    for (std::size_t q = 0; q < r; ++q) {
      if (probes[q].host == probes[r].host) {
        vp::error("vp-analyze", fmt::format("ranks {} and {} both probed host {} (one rank per node: mpirun -N 1, "
                                            "srun --ntasks-per-node=1)", q, r, printable(probes[r].host)));
        return static_cast<int>(ExitCode::usage);
      }
    }
  }
  std::filesystem::path dir = o.keep_dir;
  if (dir.empty()) {
    char tmpl[] = "/tmp/vp-gather-XXXXXX";
    if (!mkdtemp(tmpl)) throw InputError("/tmp", 0, "cannot create a temporary folder");
    dir = tmpl;
  } else {
    std::filesystem::create_directories(dir);
  }
  struct RemoveTemporary {  // on every way out, errors included
    std::filesystem::path dir;
    ~RemoveTemporary() {
      std::error_code ec;
      if (!dir.empty()) std::filesystem::remove_all(dir, ec);
    }
  } cleanup{o.keep_dir.empty() ? dir : std::filesystem::path()};
  for (const Probe& p : probes) {
    std::ofstream f(dir / (p.host + p.ext), std::ios::binary);
    f << p.content;
    if (!f) throw InputError((dir / (p.host + p.ext)).string(), 0, "cannot write");
  }
  AnalysisRequest r = o.request;
  r.input_dir = dir.string();
  r.search.deadline = deadline_after(o.max_analysis_seconds);
  LoadedInput in = load_input(r);
  for (const std::string& line : in.notes) vp::note("vp-analyze", line);
  progress.note(fmt::format("gathered the probes of {} hosts: {} nodes of {} node types", probes.size(),
                             in.cluster.nodes.size(), in.cluster.node_types.size()));
  catalog::Catalog cat = build_catalog(in, r.search, canonical_options(r), progress.fn());
  progress.finish();
  std::vector<std::uint8_t> bytes = catalog::write_catalog(cat);
  catalog::write_file_atomically(o.out, bytes.data(), bytes.size());
  fmt::print("wrote {} ({} bytes): {} nodes of {} node types, {} GPUs{}\n", o.out, bytes.size(), in.cluster.nodes.size(),
             in.cluster.node_types.size(), in.topology.gpus.size(),
             o.keep_dir.empty() ? "" : fmt::format("; the hosts' files are in {}", o.keep_dir));
  return 0;
}

int run(const GatherOptions& o) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(nullptr, nullptr);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Rank 0 reports progress from the start, so that the probing and the
  // gather count towards the second before anything is shown.
  std::unique_ptr<ProgressReporter> progress;
  if (rank == 0) progress = make_progress_reporter(o.progress);
  Probe mine = probe_this_node();
  // Lengths, then the bytes: host, extension, content, error.
  long long len[4] = {(long long)mine.host.size(), (long long)mine.ext.size(), (long long)mine.content.size(),
                      (long long)mine.error.size()};
  std::vector<long long> lens(rank == 0 ? 4 * size : 0);
  MPI_Gather(len, 4, MPI_LONG_LONG, lens.data(), 4, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  std::string blob = mine.host + mine.ext + mine.content + mine.error;
  std::vector<int> counts(size), displs(size);
  std::string all;
  int code = 0;
  if (rank == 0) {
    long long total = 0;
    for (int q = 0; q < size; ++q) {
      long long n = lens[4 * q] + lens[4 * q + 1] + lens[4 * q + 2] + lens[4 * q + 3];
      if (n > (1ll << 30) || total > (1ll << 31) - 1 - n) code = static_cast<int>(ExitCode::bad_input);
      counts[q] = static_cast<int>(n), displs[q] = static_cast<int>(total), total += n;
    }
    if (code == 0) all.resize(static_cast<std::size_t>(total));
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (code != 0) {
    if (rank == 0) vp::error("vp-analyze", "the probes are larger than 2 GiB together");
  } else {
    MPI_Gatherv(blob.data(), static_cast<int>(blob.size()), MPI_CHAR, all.data(), counts.data(), displs.data(),
                MPI_CHAR, 0, MPI_COMM_WORLD);
  }
  if (rank == 0 && code == 0) {
    std::vector<Probe> probes(size);
    for (int q = 0; q < size; ++q) {
      std::size_t at = static_cast<std::size_t>(displs[q]);
      std::string* field[4] = {&probes[q].host, &probes[q].ext, &probes[q].content, &probes[q].error};
      for (int k = 0; k < 4; ++k) *field[k] = all.substr(at, lens[4 * q + k]), at += lens[4 * q + k];
    }
    try {
      code = analyse(o, probes, *progress);
    } catch (const InputError& e) {
      vp::error("vp-analyze", e.what());
      code = static_cast<int>(ExitCode::bad_input);
    } catch (const UsageError& e) {
      vp::error("vp-analyze", e.what());
      code = static_cast<int>(ExitCode::usage);
    } catch (const catalog::CatalogError& e) {
      bool io = e.kind() == catalog::CatalogError::Kind::unreadable;
      vp::write_message(stderr, fmt::format("vp-analyze: {}: {}\n", io ? "error" : "internal error", e.what()));
      code = static_cast<int>(io ? ExitCode::bad_input : ExitCode::internal);
    } catch (const std::exception& e) {
      vp::write_message(stderr, fmt::format("vp-analyze: internal error: {}\n", e.what()));
      code = static_cast<int>(ExitCode::internal);
    }
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return code;
}

}  // namespace

Runner setup_gather_command(CLI::App& app) {
  auto opts = std::make_shared<GatherOptions>();
  CLI::App* cmd = app.add_subcommand(
      "gather", "Under mpirun -N 1 (or srun --ntasks-per-node=1): probe every node, group the nodes into node types "
                "by content, report those that differ from their group, write one catalog (docs/mpi.md)");
  cmd->add_option("-o,--out", opts->out, "Write the catalog here (.vpcat), atomically")->required();
  cmd->add_option("--fabric", opts->request.fabric, "Fabric: single_switch, rail or leaf_spine (default single_switch)")
      ->check(CLI::IsMember({"single_switch", "rail", "leaf_spine"}));
  cmd->add_option("--leaf-size", opts->request.leaf_size, "leaf_spine: nodes per leaf (default 8)")
      ->check(CLI::Range(1u, 1000000u));
  cmd->add_option("--oversubscription", opts->request.oversubscription, "rail/leaf_spine: downlink/uplink ratio")
      ->check(CLI::Range(1.0, 1000.0));
  cmd->add_option("--set", opts->request.sets, "Override a default capacity: KEY=VALUE; repeatable");
  add_analysis_budget_options(*cmd, opts->request, opts->max_analysis_seconds);
  add_progress_options(*cmd, opts->progress);
  cmd->add_option("--keep-dir", opts->keep_dir, "Keep the nodes' files (HOST.xml / HOST.json) in this folder, for "
                                                "vp-analyze --input-dir");
  return [opts]() { return run(*opts); };
}

}  // namespace vp::cli
