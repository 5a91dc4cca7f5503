// libvpcat_pmpi.so: MPI_Alltoallv and MPI_Alltoall of an unmodified MPI
// program through VarioPath (LD_PRELOAD=libvpcat_pmpi.so), everything else
// through the MPI library itself (the PMPI profiling interface).
//
//   VPCAT_CATALOG=cluster.vpcat   the catalog (unset: every call passes through)
//   VPCAT_RANK_MAP=...            the rank -> GPU map (vpcat_mpi.h), else by host
//   VPCAT_MPI_STATS=1             rank 0 prints one line at MPI_Finalize
//   VPCAT_DEBUG, VPCAT_STRICT, VPCAT_INIT, the planner's options: env_config.hpp
//
// Settings are rank 0's (read once, broadcast). The world's context is made
// at MPI_Init (VPCAT_INIT=eager, the default, when VPCAT_CATALOG is set),
// with one warm-up exchange, so that the program's first call costs what
// a later one does; another communicator gets its context at its first
// MPI_Alltoall(v) (a collective call, so every rank creates it together),
// kept as an MPI attribute and freed with the communicator. VPCAT_CATALOG
// and VPCAT_RANK_MAP are read again for each new context (rank 0's), and
// the catalog file opened again when its name or identity changed, so a
// shrunk or grown communicator, or a grown catalog installed while the job
// runs, is taken without a restart (refresh_catalog). A catalog that
// does not fit a communicator makes its calls pass through to
// PMPI_Alltoallv, said once on stderr by rank 0 and counted in the
// statistics; with VPCAT_STRICT=1 those calls fail instead (MPI_ERR_OTHER
// through the communicator's error handler).
#include <mpi.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "env_config.hpp"
#include "pmpi_log.hpp"
#include "rank_map.hpp"
#include "vpcat/hostlist.hpp"
#include "vpcat_mpi.h"

using vpcat_mpi::DebugLevel;
using vpcat_mpi::log_line;

namespace {

struct State {
  int keyval = MPI_KEYVAL_INVALID;
  // Settings: rank 0's environment, agreed at MPI_Init or the first context.
  bool configured = false;
  vpcat_mpi::EnvConfig cfg;
  std::string cfg_error;     // a bad VPCAT_* value: every call falls back (or fails)
  bool catalog_named = false;  // rank 0 has VPCAT_CATALOG
  bool catalog_tried = false;
  vpcat_catalog* catalog = nullptr;
  std::string catalog_key;  // what `catalog` was opened from: "path\nfile identity" (refresh_catalog)
  std::string catalog_path, catalog_error;
  double catalog_open_ms = 0;
  // Statistics of this rank over every communicator.
  unsigned long long served = 0, fallbacks = 0, failed = 0;
  std::string fallback_reason;
  bool strict_said = false;
  std::vector<double> plan_us;
  std::vector<double> call_us;  // wall time of each MPI_Alltoall(v) on this rank, context creation included
};

State& state() {
  static State s;
  return s;
}

// The attribute of a communicator whose calls pass through (no catalog).
char pass_through_marker;

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// Rank 0's settings on every rank of `comm` (collective).
void agree_config(MPI_Comm comm) {
  State& s = state();
  if (s.configured) return;
  s.configured = true;
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  struct Wire {
    int ok, debug, all_ranks, strict, eager, plan_mode, catalog_named;
    vpcat_plan_options plan;
  } w{};
  std::string text;  // error, then '\n', then the planner variables set
  if (rank == 0) {
    vpcat_mpi::EnvConfig c;
    std::string error;
    w.ok = vpcat_mpi::read_env_config([](const char* n) { return std::getenv(n); }, &c, &error) ? 1 : 0;
    w.debug = static_cast<int>(c.debug), w.all_ranks = c.debug_all_ranks, w.strict = c.strict, w.eager = c.eager;
    w.plan_mode = c.plan_mode, w.plan = c.plan, w.catalog_named = env("VPCAT_CATALOG") != nullptr;
    text = error + "\n" + c.plan_set;
  }
  PMPI_Bcast(&w, static_cast<int>(sizeof w), MPI_BYTE, 0, comm);
  unsigned long long n = text.size();
  PMPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  text.resize(n);
  if (n) PMPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, 0, comm);
  s.cfg.debug = static_cast<DebugLevel>(w.debug), s.cfg.debug_all_ranks = w.all_ranks != 0;
  s.cfg.strict = w.strict != 0, s.cfg.eager = w.eager != 0, s.cfg.plan_mode = w.plan_mode, s.cfg.plan = w.plan;
  s.catalog_named = w.catalog_named != 0;
  const std::size_t nl = text.find('\n');
  if (!w.ok) s.cfg_error = text.substr(0, nl);
  s.cfg.plan_set = nl == std::string::npos ? std::string() : text.substr(nl + 1);
  if (s.cfg_error.empty())
    log_line(s.cfg, DebugLevel::info, rank, "settings: strict %d, init %s, plan mode %s; plan options %s%s%s%s",
             s.cfg.strict ? 1 : 0, s.cfg.eager ? "eager (at MPI_Init)" : "lazy (at the first call)",
             s.cfg.plan_mode == VPCAT_MPI_PLAN_ROOT ? "root (rank 0 plans, broadcasts)" : "every (every rank plans)",
             vpcat_mpi::describe_plan_options(s.cfg.plan).c_str(), s.cfg.plan_set.empty() ? "" : " (from ",
             s.cfg.plan_set.c_str(), s.cfg.plan_set.empty() ? "" : ")");
}

// "a,b,c" of the catalog's node names, cut at about 120 characters.
std::string node_names(const vpcat_catalog* cat) {
  std::string out;
  vpcat_node_group g;
  for (std::uint32_t i = 0; vpcat_catalog_node_group(cat, i, &g) == VPCAT_OK; ++i)
    out += (out.empty() ? "" : ",") + std::string(g.names ? g.names : "");
  if (out.size() > 120) out = out.substr(0, 120) + "...";
  return out;
}

// "device:inode:size:mtime" of a file, or why it cannot be read.
std::string file_identity(const char* path) {
  struct stat st;
  if (::stat(path, &st) != 0) return std::string("stat: ") + std::strerror(errno);
  char buf[128];
  std::snprintf(buf, sizeof buf, "%llu:%llu:%lld:%lld.%09ld", static_cast<unsigned long long>(st.st_dev),
                static_cast<unsigned long long>(st.st_ino), static_cast<long long>(st.st_size),
                static_cast<long long>(st.st_mtim.tv_sec), static_cast<long>(st.st_mtim.tv_nsec));
  return buf;
}

// Collective over `comm`, at each new context: the catalog its rank 0
// names now (VPCAT_CATALOG) is the one every rank plans with. Opened again
// when the name or the file (device, inode, size, modification time)
// changed since this process last opened it: a catalog grown by
// `vp-catalog resize` is taken by the next communicator without a restart.
// The contexts made before keep their planners (vpcat_mpi_init copies what
// it needs), so the previous catalog is closed.
void refresh_catalog(MPI_Comm comm, int rank) {
  State& s = state();
  std::string key;  // empty: VPCAT_CATALOG unset on rank 0
  if (rank == 0) {
    if (const char* path = env("VPCAT_CATALOG")) key = std::string(path) + '\n' + file_identity(path);
  }
  unsigned long long n = key.size();
  PMPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  key.resize(n);
  if (n) PMPI_Bcast(key.data(), static_cast<int>(n), MPI_CHAR, 0, comm);
  if (s.catalog_tried && key == s.catalog_key) return;
  const bool replacing = s.catalog_tried;
  s.catalog_tried = true;
  s.catalog_key = key;
  if (s.catalog) vpcat_catalog_destroy(s.catalog), s.catalog = nullptr;
  s.catalog_path.clear(), s.catalog_error.clear();
  const std::string path = key.substr(0, key.find('\n'));
  vpcat_error err;
  const double t0 = PMPI_Wtime();
  if (key.empty()) {
    s.catalog_error = "VPCAT_CATALOG is not set";
  } else if (vpcat_catalog_open_file(path.c_str(), nullptr, &s.catalog, &err) != VPCAT_OK) {
    s.catalog_error = err.message, s.catalog = nullptr;
  } else {
    s.catalog_path = path;
  }
  s.catalog_open_ms = (PMPI_Wtime() - t0) * 1e3;
  vpcat_catalog_info info;
  if (s.catalog && vpcat_catalog_get_info(s.catalog, &info) == VPCAT_OK)
    log_line(s.cfg, DebugLevel::info, rank,
             "%scatalog %s: format %u.%u, written by vpcat %u.%u.%u, %llu GPUs on %u nodes (%s), opened and verified in "
             "%.1f ms",
             replacing ? "new " : "", path.c_str(), info.format_major, info.format_minor, info.writer_major,
             info.writer_minor, info.writer_patch, static_cast<unsigned long long>(info.gpu_count), info.node_count,
             node_names(s.catalog).c_str(), s.catalog_open_ms);
}

int delete_ctx(MPI_Comm, int, void* value, void*) {
  if (value == &pass_through_marker) return MPI_SUCCESS;
  auto* ctx = static_cast<vpcat_mpi_ctx*>(value);
  vpcat_mpi_stats st;
  if (vpcat_mpi_get_stats(ctx, &st) == VPCAT_MPI_OK && st.fallback_reason && state().fallback_reason.empty())
    state().fallback_reason = st.fallback_reason;
  vpcat_mpi_finalize(&ctx);
  return MPI_SUCCESS;
}

// Say (INFO) how the ranks of a new context map to GPUs.
void describe_context(const vpcat_mpi_ctx* ctx, int rank, int size, double ms) {
  const State& s = state();
  std::vector<std::int64_t> gpus(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) gpus[static_cast<std::size_t>(r)] = vpcat_mpi_rank_gpu(ctx, r);
  const bool explicit_map = env("VPCAT_RANK_MAP") != nullptr;
  log_line(s.cfg, DebugLevel::info, rank, "communicator of %d ranks: ranks -> GPUs %s (%s), ready in %.1f ms", size,
           vpcat_mpi::format_rank_map(gpus).c_str(), explicit_map ? "VPCAT_RANK_MAP" : "by host name", ms);
  if (s.cfg.debug_all_ranks && s.catalog) {
    vpcat_gpu g;
    vpcat_node_group group;
    const std::int64_t mine = gpus[static_cast<std::size_t>(rank)];
    if (vpcat_catalog_gpu(s.catalog, static_cast<std::uint64_t>(mine), &g) == VPCAT_OK) {
      std::string node = std::to_string(g.node);
      for (std::uint32_t i = 0; vpcat_catalog_node_group(s.catalog, i, &group) == VPCAT_OK; ++i) {
        if (g.node < group.first_node || g.node >= group.first_node + group.count) continue;
        std::vector<std::string> names;
        if (vpcat::expand_hostlist(group.names ? group.names : "", &names, nullptr) &&
            g.node - group.first_node < names.size())
          node = names[g.node - group.first_node];
      }
      log_line(s.cfg, DebugLevel::info, rank, "rank %d -> GPU %lld: node %s, local GPU %u%s%s", rank,
               static_cast<long long>(mine), node.c_str(), g.local_index, g.device_name && *g.device_name ? ", " : "",
               g.device_name ? g.device_name : "");
    }
  }
}

// The context of `comm`, created at its first call (or at MPI_Init);
// nullptr: pass through (or fail, strict), *why set.
vpcat_mpi_ctx* context(MPI_Comm comm, std::string* why) {
  State& s = state();
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return nullptr;
  if (s.keyval == MPI_KEYVAL_INVALID) PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_ctx, &s.keyval, nullptr);
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, s.keyval, &value, &found);
  if (found) {
    if (value == &pass_through_marker) *why = s.fallback_reason;
    return value == &pass_through_marker ? nullptr : static_cast<vpcat_mpi_ctx*>(value);
  }
  const double t0 = PMPI_Wtime();
  agree_config(comm);
  int rank = 0, size = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  if (s.cfg_error.empty()) refresh_catalog(comm, rank);
  // Every rank must agree on whether the catalog opened.
  int opened = s.catalog && s.cfg_error.empty() ? 1 : 0, all_opened = 0;
  PMPI_Allreduce(&opened, &all_opened, 1, MPI_INT, MPI_MIN, comm);
  vpcat_mpi_ctx* ctx = nullptr;
  vpcat_mpi_error err;
  vpcat_mpi_options opt = vpcat_mpi_options_default();
  opt.allow_fallback = s.cfg.strict ? 0 : 1;
  opt.strict = s.cfg.strict ? 1 : 0;
  opt.quiet = 1;  // said here, in the interposer's voice
  opt.plan_mode = static_cast<uint32_t>(s.cfg.plan_mode);
  opt.plan = s.cfg.plan;
  if (all_opened) {
    if (vpcat_mpi_init(s.catalog, comm, &opt, &ctx, &err) != VPCAT_MPI_OK) ctx = nullptr;
  }
  if (ctx && vpcat_mpi_fallback_reason(ctx)) {  // the catalog does not fit: pass through, with the reason
    const std::string reason = vpcat_mpi_fallback_reason(ctx);
    vpcat_mpi_finalize(&ctx);
    err.code = VPCAT_MPI_E_MISMATCH;
    std::snprintf(err.message, sizeof err.message, "vpcat_mpi_init: %s", reason.c_str());
  }
  if (!ctx) {
    *why = !s.cfg_error.empty() ? s.cfg_error
           : !all_opened        ? (s.catalog_error.empty() ? "the catalog did not open on every rank" : s.catalog_error)
                                : std::string(err.message);
    if (s.fallback_reason.empty()) {
      s.fallback_reason = *why;
      if (!s.cfg.strict)
        log_line(s.cfg, DebugLevel::warn, rank, "every MPI_Alltoall(v) on this communicator falls back to MPI: %s",
                 why->c_str());
    }
    PMPI_Comm_set_attr(comm, s.keyval, &pass_through_marker);
    return nullptr;
  }
  PMPI_Comm_set_attr(comm, s.keyval, ctx);
  if (vpcat_mpi::log_enabled(s.cfg, DebugLevel::info, rank) || s.cfg.debug_all_ranks)
    describe_context(ctx, rank, size, (PMPI_Wtime() - t0) * 1e3);
  return ctx;
}

// A call that cannot go through VarioPath: PMPI_Alltoallv, or with
// VPCAT_STRICT=1 an error through the communicator's error handler.
int not_served(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
               const std::string& why) {
  State& s = state();
  if (!s.cfg.strict) {
    ++s.fallbacks;
    if (s.fallback_reason.empty()) s.fallback_reason = why;
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  }
  ++s.failed;
  if (!s.strict_said) {
    s.strict_said = true;
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    log_line(s.cfg, DebugLevel::warn, rank, "MPI_Alltoall(v) fails (VPCAT_STRICT=1, no fallback to MPI): %s",
             why.c_str());
  }
  PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
  return MPI_ERR_OTHER;
}

int serve(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
          const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  State& s = state();
  const double t0 = PMPI_Wtime();
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  std::string why;
  vpcat_mpi_ctx* ctx = context(comm, &why);
  int rc = MPI_SUCCESS;
  if (!ctx) {
    rc = not_served(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, why);
  } else {
    vpcat_mpi_stats before, after;
    vpcat_mpi_get_stats(ctx, &before);
    rc = vpcat_mpi_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ctx);
    vpcat_mpi_get_stats(ctx, &after);
    if (after.served > before.served) {
      ++s.served;
      s.plan_us.push_back(after.last_plan_us + after.last_exchange_us);
    } else if (after.fallbacks > before.fallbacks) {
      ++s.fallbacks;
      if (s.fallback_reason.empty() && after.fallback_reason) s.fallback_reason = after.fallback_reason;
    } else if (s.cfg.strict && rc == MPI_ERR_OTHER) {  // strict: the plan could not be made or run
      rc = not_served(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
                      after.fallback_reason ? after.fallback_reason : "the plan could not be made");
    }
  }
  s.call_us.push_back((PMPI_Wtime() - t0) * 1e6);
  return rc;
}

// After PMPI_Init: settings, and with VPCAT_INIT=eager (default) and a
// catalog, the world's context and one warm-up exchange.
void at_init() {
  State& s = state();
  agree_config(MPI_COMM_WORLD);
  if (!s.cfg.eager || !s.cfg_error.empty() || !s.catalog_named) return;
  const double t0 = PMPI_Wtime();
  std::string why;
  vpcat_mpi_ctx* ctx = context(MPI_COMM_WORLD, &why);
  const double t1 = PMPI_Wtime();
  if (ctx) vpcat_mpi_warm_up(ctx);
  const double t2 = PMPI_Wtime();
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (ctx)
    log_line(s.cfg, DebugLevel::info, rank,
             "ready at MPI_Init in %.1f ms: catalog %.1f ms, rank map and planner %.1f ms, warm-up exchange %.1f ms",
             (t2 - t0) * 1e3, s.catalog_open_ms, (t1 - t0) * 1e3 - s.catalog_open_ms, (t2 - t1) * 1e3);
}

std::string call_times() {
  const std::vector<double>& v = state().call_us;
  if (v.empty()) return "";
  char buf[160];
  if (v.size() == 1) {
    std::snprintf(buf, sizeof buf, "; call time (this rank) first %.1f us", v[0]);
  } else {
    std::vector<double> later(v.begin() + 1, v.end());
    std::sort(later.begin(), later.end());
    std::snprintf(buf, sizeof buf, "; call time (this rank) first %.1f us, later calls median %.1f us", v[0],
                  later[later.size() / 2]);
  }
  return buf;
}

}  // namespace

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) at_init();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) at_init();
  return rc;
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return serve(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  int size = 0;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  PMPI_Comm_size(comm, &size);
  // Copies: a nested call (another thread, a callback) must not see them change.
  std::vector<int> counts(size), displs(size), rcounts(size), rdispls(size);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  for (int i = 0; i < size; ++i) {
    counts[i] = in_place ? recvcount : sendcount, displs[i] = i * counts[i];
    rcounts[i] = recvcount, rdispls[i] = i * recvcount;
  }
  return serve(sendbuf, counts.data(), displs.data(), sendtype, recvbuf, rcounts.data(), rdispls.data(), recvtype,
               comm);
}

int MPI_Finalize(void) {
  State& s = state();
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (s.keyval != MPI_KEYVAL_INVALID) {  // world's context first: its statistics and communicator
    void* value = nullptr;
    int found = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, s.keyval, &value, &found);
    if (found) PMPI_Comm_delete_attr(MPI_COMM_WORLD, s.keyval);
  }
  const char* stats = std::getenv("VPCAT_MPI_STATS");
  if (rank == 0 && stats && std::strcmp(stats, "0") != 0 && *stats) {
    double median = 0, max = 0;
    if (!s.plan_us.empty()) {
      std::vector<double> v = s.plan_us;
      std::sort(v.begin(), v.end());
      median = v[v.size() / 2], max = v.back();
    }
    std::fprintf(stderr,
                 "vpcat_pmpi: rank 0: %llu calls served by VarioPath, %llu fell back to MPI%s%s%s; "
                 "planning per call (counts exchange + plan) median %.1f us, max %.1f us%s\n",
                 s.served, s.fallbacks, s.fallbacks ? " (" : "", s.fallbacks ? s.fallback_reason.c_str() : "",
                 s.fallbacks ? ")" : "", median, max, call_times().c_str());
  }
  if (s.catalog) vpcat_catalog_destroy(s.catalog), s.catalog = nullptr;
  return PMPI_Finalize();
}

}  // extern "C"
