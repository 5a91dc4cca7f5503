// libvpcat_pmpi.so: MPI_Alltoallv and MPI_Alltoall of an unmodified MPI
// program through VarioPath (LD_PRELOAD=libvpcat_pmpi.so), everything else
// through the MPI library itself (the PMPI profiling interface).
//
//   VPCAT_CATALOG=cluster.vpcat   the catalog (unset: every call passes through)
//   VPCAT_RANK_MAP=...            the rank -> GPU map (vpcat_mpi.h), else by host
//   VPCAT_MPI_STATS=1             rank 0 prints one line at MPI_Finalize
//
// A communicator gets its context at its first MPI_Alltoall(v) (a
// collective call, so every rank creates it together), kept as an MPI
// attribute and freed with the communicator. A catalog that does not fit a
// communicator makes its calls pass through to PMPI_Alltoallv, said once
// on stderr by rank 0 and counted in the statistics.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "vpcat_mpi.h"

namespace {

struct State {
  int keyval = MPI_KEYVAL_INVALID;
  bool catalog_tried = false;
  vpcat_catalog* catalog = nullptr;
  std::string catalog_error;
  // Statistics of this rank over every communicator.
  unsigned long long served = 0, fallbacks = 0, passthrough = 0;
  std::string fallback_reason;
  std::vector<double> plan_us;
  std::vector<int> counts, displs, rcounts, rdispls;
};

State& state() {
  static State s;
  return s;
}

// The attribute of a communicator whose calls pass through (no catalog).
char pass_through_marker;

int delete_ctx(MPI_Comm, int, void* value, void*) {
  if (value == &pass_through_marker) return MPI_SUCCESS;
  auto* ctx = static_cast<vpcat_mpi_ctx*>(value);
  vpcat_mpi_stats st;
  if (vpcat_mpi_get_stats(ctx, &st) == VPCAT_MPI_OK && st.fallback_reason && state().fallback_reason.empty())
    state().fallback_reason = st.fallback_reason;
  vpcat_mpi_finalize(&ctx);
  return MPI_SUCCESS;
}

// The context of `comm`, created at its first call; nullptr: pass through.
vpcat_mpi_ctx* context(MPI_Comm comm) {
  State& s = state();
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return nullptr;
  if (s.keyval == MPI_KEYVAL_INVALID) PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_ctx, &s.keyval, nullptr);
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, s.keyval, &value, &found);
  if (found) return value == &pass_through_marker ? nullptr : static_cast<vpcat_mpi_ctx*>(value);
  if (!s.catalog_tried) {
    s.catalog_tried = true;
    const char* path = std::getenv("VPCAT_CATALOG");
    vpcat_error err;
    if (!path || !*path) s.catalog_error = "VPCAT_CATALOG is not set";
    else if (vpcat_catalog_open_file(path, nullptr, &s.catalog, &err) != VPCAT_OK) s.catalog_error = err.message, s.catalog = nullptr;
  }
  // Every rank must agree on whether the catalog opened.
  int opened = s.catalog ? 1 : 0, all_opened = 0;
  PMPI_Allreduce(&opened, &all_opened, 1, MPI_INT, MPI_MIN, comm);
  vpcat_mpi_ctx* ctx = nullptr;
  vpcat_mpi_error err;
  vpcat_mpi_options opt = vpcat_mpi_options_default();
  opt.allow_fallback = 1;
  // VPCAT_CHANNELS_ONLY=1: plans of channel steps only (PlanOptions::channels_only).
  if (const char* v = std::getenv("VPCAT_CHANNELS_ONLY"); v && std::strcmp(v, "1") == 0) opt.plan.channels_only = 1;
  if (all_opened) {
    if (vpcat_mpi_init(s.catalog, comm, &opt, &ctx, &err) != VPCAT_MPI_OK) ctx = nullptr;
  }
  if (!ctx) {
    // No catalog: a context would have nothing to plan with; count the
    // calls as fallbacks with the reason, once reported.
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    const std::string why = !all_opened ? (s.catalog_error.empty() ? "the catalog did not open on every rank"
                                                                   : s.catalog_error)
                                        : std::string(err.message);
    if (s.fallback_reason.empty()) {
      s.fallback_reason = why;
      if (rank == 0) std::fprintf(stderr, "vpcat_pmpi: every MPI_Alltoall(v) falls back to MPI: %s\n", why.c_str());
    }
    PMPI_Comm_set_attr(comm, s.keyval, &pass_through_marker);
    return nullptr;
  }
  PMPI_Comm_set_attr(comm, s.keyval, ctx);
  return ctx;
}

int serve(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
          const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  vpcat_mpi_ctx* ctx = context(comm);
  State& s = state();
  if (!ctx) {
    ++s.fallbacks;
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  }
  vpcat_mpi_stats before, after;
  vpcat_mpi_get_stats(ctx, &before);
  const int rc = vpcat_mpi_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, ctx);
  vpcat_mpi_get_stats(ctx, &after);
  if (after.served > before.served) {
    ++s.served;
    s.plan_us.push_back(after.last_plan_us + after.last_exchange_us);
  } else {
    ++s.fallbacks;
    if (s.fallback_reason.empty() && after.fallback_reason) s.fallback_reason = after.fallback_reason;
  }
  return rc;
}

}  // namespace

extern "C" {

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
                 "planning per call (counts exchange + plan) median %.1f us, max %.1f us\n",
                 s.served, s.fallbacks, s.fallbacks ? " (" : "", s.fallbacks ? s.fallback_reason.c_str() : "",
                 s.fallbacks ? ")" : "", median, max);
  }
  if (s.catalog) vpcat_catalog_destroy(s.catalog), s.catalog = nullptr;
  return PMPI_Finalize();
}

}  // extern "C"
