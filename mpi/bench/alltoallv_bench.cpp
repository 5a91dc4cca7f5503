// OSU-style AlltoAllv benchmark: MPI_Alltoallv against VarioPath
// (vpcat_mpi_alltoallv), per message size, with percentiles of the call
// time and what VarioPath adds per call (counts exchange, planning)
// separately from the transfer.
//
//   mpirun -n N vpcat_mpi_bench CATALOG [--min-size B] [--max-size B]
//          [--iterations K] [--warmup W] [--pattern uniform|skewed]
//          [--plan every|root|both]
//   mpirun -n N vpcat_mpi_bench CATALOG --first-call [--warm-up] [--min-size B] [--iterations K]
//
// --first-call: nothing else before it, so MPI's own first messages are in
// it; the catalog's opening, vpcat_mpi_init and (--warm-up) vpcat_mpi_warm_up
// timed, then VarioPath's first call (--min-size bytes per pair, skewed or
// not) against the median of the K calls after it.
//
// Sizes are the mean bytes per (sender, receiver) pair; "skewed" sends 8x
// the mean to one hot rank (rotating per call) and less to the others.
// A call's time is the slowest rank's (MPI_MAX over ranks, each iteration
// started by a barrier). Times in microseconds.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "vpcat_mpi.h"

namespace {

struct Args {
  const char* catalog = nullptr;
  long min_size = 64, max_size = 1 << 18;
  int iterations = 50, warmup = 5;
  bool skewed = false;
  std::string plan = "both";
  bool first_call = false, warm_up = false;
};

double pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t k = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(k, v.size() - 1)];
}

void counts_for(int rank, int size, long mean, bool skewed, int call, std::vector<int>* sc, std::vector<int>* rc) {
  auto bytes = [&](int s, int d) -> int {
    if (s == d) return 0;
    if (!skewed) return static_cast<int>(mean);
    const int hot = call % size;
    const long others = size > 2 ? (mean * (size - 1) - 8 * mean) / (size - 2) : mean;
    return static_cast<int>(d == hot ? 8 * mean : std::max(0L, others));
  };
  for (int j = 0; j < size; ++j) (*sc)[j] = bytes(rank, j), (*rc)[j] = bytes(j, rank);
}

// The slowest rank's value.
double slowest(double mine) {
  double all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

// --first-call: what a program's first VarioPath call costs against later ones.
int first_call(const Args& a, vpcat_catalog* cat, double open_us, int rank, int size) {
  vpcat_mpi_options opt = vpcat_mpi_options_default();
  if (a.plan == "root") opt.plan_mode = VPCAT_MPI_PLAN_ROOT;
  vpcat_mpi_ctx* ctx = nullptr;
  vpcat_mpi_error err;
  double t0 = MPI_Wtime();
  if (vpcat_mpi_init(cat, MPI_COMM_WORLD, &opt, &ctx, &err) != VPCAT_MPI_OK) {
    if (rank == 0) std::fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  const double init_us = slowest((MPI_Wtime() - t0) * 1e6);
  double warm_us = 0;
  if (a.warm_up) {
    t0 = MPI_Wtime();
    vpcat_mpi_warm_up(ctx);
    warm_us = slowest((MPI_Wtime() - t0) * 1e6);
  }
  std::vector<int> sc(size), rc(size), sd(size), rd(size);
  std::vector<double> t;
  for (int it = 0; it <= a.iterations; ++it) {
    counts_for(rank, size, a.min_size, a.skewed, it, &sc, &rc);
    int stotal = 0, rtotal = 0;
    for (int j = 0; j < size; ++j) sd[j] = stotal, stotal += sc[j], rd[j] = rtotal, rtotal += rc[j];
    std::vector<char> sbuf(static_cast<std::size_t>(stotal) + 1, 1), rbuf(static_cast<std::size_t>(rtotal) + 1);
    PMPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    vpcat_mpi_alltoallv(sbuf.data(), sc.data(), sd.data(), MPI_BYTE, rbuf.data(), rc.data(), rd.data(), MPI_BYTE, ctx);
    t.push_back(slowest((MPI_Wtime() - t0) * 1e6));
  }
  if (rank == 0) {
    const double later = pct(std::vector<double>(t.begin() + 1, t.end()), .5);
    std::printf("# vpcat_mpi_bench --first-call: %d ranks, catalog %s, %ld bytes per pair (%s), times in us (slowest "
                "rank)\n",
                size, a.catalog, a.min_size, a.skewed ? "skewed" : "uniform");
    char warm[32] = "none";
    if (a.warm_up) std::snprintf(warm, sizeof warm, "%.1f", warm_us);
    std::printf("catalog open %.1f (rank 0), vpcat_mpi_init %.1f, warm-up %s\n", open_us, init_us, warm);
    std::printf("first call %.1f, later calls p50 %.1f (%d calls), first / later %.2f\n", t[0], later, a.iterations,
                later > 0 ? t[0] / later : 0.0);
  }
  vpcat_mpi_finalize(&ctx);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
    if (s == "--min-size") a.min_size = std::atol(next());
    else if (s == "--max-size") a.max_size = std::atol(next());
    else if (s == "--iterations") a.iterations = std::atoi(next());
    else if (s == "--warmup") a.warmup = std::atoi(next());
    else if (s == "--pattern") a.skewed = std::strcmp(next(), "skewed") == 0;
    else if (s == "--plan") a.plan = next();
    else if (s == "--first-call") a.first_call = true;
    else if (s == "--warm-up") a.warm_up = true;
    else a.catalog = argv[i];
  }
  if (!a.catalog || a.iterations < 1 || a.min_size < 1 || a.max_size < a.min_size) {
    if (rank == 0) std::fprintf(stderr, "usage: vpcat_mpi_bench CATALOG [--min-size B] [--max-size B] [--iterations K] "
                                        "[--warmup W] [--pattern uniform|skewed] [--plan every|root|both] [--first-call [--warm-up]]\n");
    MPI_Finalize();
    return 1;
  }
  vpcat_catalog* cat = nullptr;
  vpcat_error cerr;
  const double open_t0 = MPI_Wtime();
  if (vpcat_catalog_open_file(a.catalog, nullptr, &cat, &cerr) != VPCAT_OK) {
    if (rank == 0) std::fprintf(stderr, "%s\n", cerr.message);
    MPI_Finalize();
    return 2;
  }
  if (a.first_call) {
    const int rc = first_call(a, cat, (MPI_Wtime() - open_t0) * 1e6, rank, size);
    vpcat_catalog_destroy(cat);
    MPI_Finalize();
    return rc;
  }
  std::vector<int> modes;
  if (a.plan != "root") modes.push_back(VPCAT_MPI_PLAN_EVERY_RANK);
  if (a.plan != "every") modes.push_back(VPCAT_MPI_PLAN_ROOT);
  std::vector<vpcat_mpi_ctx*> ctxs;
  for (int mode : modes) {
    vpcat_mpi_options opt = vpcat_mpi_options_default();
    opt.plan_mode = static_cast<std::uint32_t>(mode);
    vpcat_mpi_ctx* ctx = nullptr;
    vpcat_mpi_error err;
    if (vpcat_mpi_init(cat, MPI_COMM_WORLD, &opt, &ctx, &err) != VPCAT_MPI_OK) {
      if (rank == 0) std::fprintf(stderr, "%s\n", err.message);
      MPI_Finalize();
      return 1;
    }
    ctxs.push_back(ctx);
  }
  if (rank == 0) {
    std::printf("# vpcat_mpi_bench: %d ranks, catalog %s, %s counts, %d iterations (+%d warm-up), times in us "
                "(slowest rank per call)\n",
                size, a.catalog, a.skewed ? "skewed" : "uniform", a.iterations, a.warmup);
    std::printf("# %-9s %-14s %9s %9s %9s %9s | %9s %9s %9s %6s\n", "bytes", "method", "p50", "p90", "p99", "max",
                "exchange", "plan", "transfer", "steps");
  }
  std::vector<int> sc(size), rc(size), sd(size), rd(size);
  for (long mean = a.min_size; mean <= a.max_size; mean *= 4) {
    counts_for(rank, size, mean, a.skewed, 0, &sc, &rc);
    long smax = 0, rmax = 0;
    for (int c = 0; c < size; ++c) {  // the largest call over the rotating hot rank
      counts_for(rank, size, mean, a.skewed, c, &sc, &rc);
      long st = 0, rt = 0;
      for (int j = 0; j < size; ++j) st += sc[j], rt += rc[j];
      smax = std::max(smax, st), rmax = std::max(rmax, rt);
    }
    std::vector<char> sbuf(static_cast<std::size_t>(smax) + 1, 1), rbuf(static_cast<std::size_t>(rmax) + 1);
    for (int method = -1; method < static_cast<int>(ctxs.size()); ++method) {
      std::vector<double> t, ex, pl, tr, steps;
      for (int it = 0; it < a.warmup + a.iterations; ++it) {
        counts_for(rank, size, mean, a.skewed, it, &sc, &rc);
        for (int j = 0, s = 0, r = 0; j < size; ++j) sd[j] = s, s += sc[j], rd[j] = r, r += rc[j];
        vpcat_mpi_stats before{}, after{};
        if (method >= 0) vpcat_mpi_get_stats(ctxs[method], &before);
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        if (method < 0)
          MPI_Alltoallv(sbuf.data(), sc.data(), sd.data(), MPI_BYTE, rbuf.data(), rc.data(), rd.data(), MPI_BYTE,
                        MPI_COMM_WORLD);
        else
          vpcat_mpi_alltoallv(sbuf.data(), sc.data(), sd.data(), MPI_BYTE, rbuf.data(), rc.data(), rd.data(), MPI_BYTE,
                              ctxs[method]);
        double local[5] = {(MPI_Wtime() - t0) * 1e6, 0, 0, 0, 0}, global[5];
        if (method >= 0) {
          vpcat_mpi_get_stats(ctxs[method], &after);
          local[1] = after.last_exchange_us, local[2] = after.last_plan_us, local[3] = after.last_transfer_us;
          local[4] = static_cast<double>(after.steps - before.steps);
        }
        MPI_Reduce(local, global, 5, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (it < a.warmup) continue;
        t.push_back(global[0]), ex.push_back(global[1]), pl.push_back(global[2]), tr.push_back(global[3]);
        steps.push_back(global[4]);
      }
      if (rank == 0) {
        const char* name = method < 0 ? "MPI_Alltoallv"
                           : vpcat_mpi_plan_mode(ctxs[method]) == VPCAT_MPI_PLAN_ROOT ? "vpcat(root)" : "vpcat(every)";
        if (method < 0)
          std::printf("  %-9ld %-14s %9.1f %9.1f %9.1f %9.1f |\n", mean, name, pct(t, .5), pct(t, .9), pct(t, .99),
                      pct(t, 1));
        else
          std::printf("  %-9ld %-14s %9.1f %9.1f %9.1f %9.1f | %9.1f %9.1f %9.1f %6.0f\n", mean, name, pct(t, .5),
                      pct(t, .9), pct(t, .99), pct(t, 1), pct(ex, .5), pct(pl, .5), pct(tr, .5), pct(steps, .5));
      }
    }
  }
  if (rank == 0)
    std::printf("# exchange, plan, transfer: medians of the slowest rank's phase; plan includes the plan's broadcast "
                "in root mode; steps: plan steps per call\n");
  for (vpcat_mpi_ctx*& c : ctxs) vpcat_mpi_finalize(&c);
  vpcat_catalog_destroy(cat);
  MPI_Finalize();
  return 0;
}
