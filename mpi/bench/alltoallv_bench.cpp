// OSU-style AlltoAllv benchmark: MPI_Alltoallv against VarioPath
// (vpcat_mpi_alltoallv), per message size, with percentiles of the call
// time and what VarioPath adds per call (counts exchange, planning)
// separately from the transfer.
//
//   mpirun -n N vpcat_mpi_bench CATALOG [--min-size B] [--max-size B]
//          [--iterations K] [--warmup W] [--pattern uniform|skewed]
//          [--plan every|root|both]
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
    else a.catalog = argv[i];
  }
  if (!a.catalog || a.iterations < 1 || a.min_size < 1 || a.max_size < a.min_size) {
    if (rank == 0) std::fprintf(stderr, "usage: vpcat_mpi_bench CATALOG [--min-size B] [--max-size B] [--iterations K] "
                                        "[--warmup W] [--pattern uniform|skewed] [--plan every|root|both]\n");
    MPI_Finalize();
    return 1;
  }
  vpcat_catalog* cat = nullptr;
  vpcat_error cerr;
  if (vpcat_catalog_open_file(a.catalog, nullptr, &cat, &cerr) != VPCAT_OK) {
    if (rank == 0) std::fprintf(stderr, "%s\n", cerr.message);
    MPI_Finalize();
    return 2;
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
