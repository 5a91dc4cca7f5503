// mpirun -n N vpcat_mpi_check CATALOG [--expect-mismatch] [--relay]
//
// Every case runs vpcat_mpi_alltoallv and MPI_Alltoallv (the MPI library's,
// this program is not interposed) on the same input and compares every byte
// of the receive buffers, gaps between blocks included. Cases: random and
// skewed counts with zeros, arbitrary (permuted, gapped) displacements,
// contiguous and derived datatypes, different send and receive types with
// one signature, MPI_IN_PLACE. A served call must have run a plan (no
// fallback). --expect-mismatch: the catalog does not fit; init must fail
// with a message naming the problem, and with allow_fallback every call
// must still be right and counted as a fallback. --relay: the executor
// runs hand-made plans with relays (exec.hpp) instead.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../src/exec.hpp"
#include "vpcat_mpi.h"

namespace {

int rank_ = 0, size_ = 0;
int failures = 0;

#define CHECK(cond, ...)                                                 \
  do {                                                                   \
    if (!(cond)) {                                                       \
      std::fprintf(stderr, "rank %d: %s:%d: ", rank_, __FILE__, __LINE__); \
      std::fprintf(stderr, __VA_ARGS__);                                 \
      std::fprintf(stderr, "\n");                                        \
      ++failures;                                                        \
    }                                                                    \
  } while (0)

struct TypePair {
  const char* name;
  MPI_Datatype send, recv;
  int send_per_recv;  // send elements per receive element (same signature)
};

enum class Shape { random, skewed, zeros };

// counts[i * n + j]: elements (of the receive type) rank i sends rank j,
// the same on every rank.
std::vector<int> make_counts(Shape shape, unsigned seed, bool symmetric, int max_count) {
  const int n = size_;
  std::vector<int> c(n * n, 0);
  std::mt19937 rng(seed);
  const int hot = static_cast<int>(seed % static_cast<unsigned>(n));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      int v = 0;
      switch (shape) {
        case Shape::random: v = rng() % 5 == 0 ? 0 : static_cast<int>(rng() % static_cast<unsigned>(max_count)); break;
        case Shape::skewed: v = j == hot ? max_count + static_cast<int>(rng() % 7) : (rng() % 3 == 0 ? 0 : static_cast<int>(rng() % 4)); break;
        case Shape::zeros: v = (i + j) % 3 == 0 ? static_cast<int>(rng() % static_cast<unsigned>(max_count)) : 0; break;
      }
      c[i * n + j] = v;
    }
  }
  if (symmetric)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < i; ++j) c[i * n + j] = c[j * n + i];
  return c;
}

// Displacements of `counts` blocks (in elements), in a rank-dependent
// permuted order with gaps; returns the buffer length in elements.
int make_displs(const int* counts, unsigned seed, std::vector<int>* displs) {
  const int n = size_;
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  std::mt19937 rng(seed);
  for (int i = n - 1; i > 0; --i) std::swap(order[i], order[rng() % static_cast<unsigned>(i + 1)]);
  displs->assign(n, 0);
  int at = 0;
  for (int k = 0; k < n; ++k) {
    at += static_cast<int>(rng() % 3);  // a gap
    (*displs)[order[k]] = at;
    at += counts[order[k]];
  }
  return at + 1;
}

void fill(std::vector<unsigned char>& buf, unsigned seed) {
  std::mt19937 rng(seed);
  for (unsigned char& b : buf) b = static_cast<unsigned char>(rng());
}

bool run_case(vpcat_mpi_ctx* ctx, const TypePair& t, Shape shape, bool in_place, unsigned seed, bool expect_fallback) {
  const int n = size_;
  const std::vector<int> counts = make_counts(shape, seed, in_place, in_place ? 9 : 40);
  std::vector<int> rcounts(n), scounts(n), rdispls, sdispls;
  for (int i = 0; i < n; ++i) rcounts[i] = counts[i * n + rank_], scounts[i] = counts[rank_ * n + i] * t.send_per_recv;
  MPI_Aint lb, sext, rext;
  MPI_Type_get_extent(t.send, &lb, &sext);
  MPI_Type_get_extent(t.recv, &lb, &rext);
  const int rlen = make_displs(rcounts.data(), seed * 31u + static_cast<unsigned>(rank_), &rdispls);
  const int slen = make_displs(scounts.data(), seed * 17u + static_cast<unsigned>(rank_), &sdispls);
  std::vector<unsigned char> send(static_cast<std::size_t>(slen * sext)), a(static_cast<std::size_t>(rlen * rext)), b;
  fill(send, seed ^ static_cast<unsigned>(rank_ * 7919));
  fill(a, seed + 99u + static_cast<unsigned>(rank_));
  if (in_place) {  // the receive buffer holds the data to send
    if (t.send != t.recv) return true;
  }
  b = a;
  vpcat_mpi_stats before, after;
  vpcat_mpi_get_stats(ctx, &before);
  int rc1 = vpcat_mpi_alltoallv(in_place ? MPI_IN_PLACE : send.data(), scounts.data(), sdispls.data(), t.send, a.data(),
                                rcounts.data(), rdispls.data(), t.recv, ctx);
  int rc2 = MPI_Alltoallv(in_place ? MPI_IN_PLACE : send.data(), scounts.data(), sdispls.data(), t.send, b.data(),
                          rcounts.data(), rdispls.data(), t.recv, MPI_COMM_WORLD);
  vpcat_mpi_get_stats(ctx, &after);
  const char* label[] = {"random", "skewed", "zeros"};
  CHECK(rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS, "%s %s%s: rc %d / %d", t.name, label[int(shape)],
        in_place ? " in place" : "", rc1, rc2);
  std::size_t diff = a.size();
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k] != b[k]) {
      diff = k;
      break;
    }
  CHECK(diff == a.size(), "%s %s%s seed %u: received byte %zu of %zu differs from MPI_Alltoallv (%d vs %d)", t.name,
        label[int(shape)], in_place ? " in place" : "", seed, diff, a.size(), diff < a.size() ? a[diff] : 0,
        diff < b.size() ? b[diff] : 0);
  if (expect_fallback) {
    CHECK(after.fallbacks == before.fallbacks + 1, "%s: the call did not fall back", t.name);
  } else {
    CHECK(after.served == before.served + 1, "%s %s: the call was not served by a plan (%s)", t.name,
          label[int(shape)], after.fallback_reason ? after.fallback_reason : "?");
  }
  return diff == a.size();
}

int run_library(const char* path, bool expect_mismatch) {
  vpcat_catalog* cat = nullptr;
  vpcat_error cerr;
  if (vpcat_catalog_open_file(path, nullptr, &cat, &cerr) != VPCAT_OK) {
    std::fprintf(stderr, "%s\n", cerr.message);
    return 2;
  }
  vpcat_mpi_options opt = vpcat_mpi_options_default();
  opt.check_plans = 1;
  opt.quiet = 1;
  opt.plan.allow_shared = 1;  // the first context (default plans) may get sharing steps: many transfers per GPU at once
  vpcat_mpi_ctx* ctx = nullptr;
  vpcat_mpi_error err;
  // NIC loopbacks: a route MPI does not let this executor force.
  opt.plan.nic_loopback = 1;
  int rc = vpcat_mpi_init(cat, MPI_COMM_WORLD, &opt, &ctx, &err);
  CHECK(rc == VPCAT_MPI_E_INVALID_ARGUMENT && ctx == nullptr && std::strstr(err.message, "nic_loopback"),
        "init with nic_loopback returned %d: %s", rc, err.message);
  opt.plan.nic_loopback = 0;
  rc = vpcat_mpi_init(cat, MPI_COMM_WORLD, &opt, &ctx, &err);
  if (expect_mismatch) {
    CHECK(rc == VPCAT_MPI_E_MISMATCH && ctx == nullptr, "init returned %d, expected a mismatch", rc);
    CHECK(std::strstr(err.message, "vpcat_mpi_init: ") == err.message, "message: %s", err.message);
    if (rank_ == 0) std::printf("init without fallback: %s\n", err.message);
    opt.allow_fallback = 1;
    rc = vpcat_mpi_init(cat, MPI_COMM_WORLD, &opt, &ctx, &err);
    CHECK(rc == VPCAT_MPI_OK && ctx && vpcat_mpi_fallback_reason(ctx), "init with fallback returned %d", rc);
    if (!ctx) return 1;
  } else if (rc != VPCAT_MPI_OK) {
    std::fprintf(stderr, "rank %d: %s\n", rank_, err.message);
    return 1;
  }
  MPI_Datatype vec, vec_resized, pair, pair_resized, two_ints;
  MPI_Type_vector(2, 1, 3, MPI_INT, &vec);  // 2 ints out of 3: holes
  MPI_Type_create_resized(vec, 0, 4 * sizeof(int), &vec_resized);
  MPI_Type_commit(&vec_resized);
  int blen[2] = {1, 1};
  MPI_Aint disp[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_SHORT, MPI_DOUBLE};
  MPI_Type_create_struct(2, blen, disp, types, &pair);  // short, padding, double
  MPI_Type_create_resized(pair, 0, 16, &pair_resized);
  MPI_Type_commit(&pair_resized);
  MPI_Type_contiguous(2, MPI_INT, &two_ints);
  MPI_Type_commit(&two_ints);
  const TypePair pairs[] = {
      {"MPI_BYTE", MPI_BYTE, MPI_BYTE, 1},
      {"MPI_INT", MPI_INT, MPI_INT, 1},
      {"MPI_DOUBLE", MPI_DOUBLE, MPI_DOUBLE, 1},
      {"vector(2 of 3 ints)", vec_resized, vec_resized, 1},
      {"struct{short; double}", pair_resized, pair_resized, 1},
      {"2 x MPI_INT -> contiguous(2, MPI_INT)", MPI_INT, two_ints, 2},
  };
  // A second context with channel steps only, cut fine: plans of many
  // steps, a payload cut into pieces across them.
  vpcat_mpi_ctx* channel_ctx = nullptr;
  opt.plan.channels_only = 1;
  opt.plan.allow_shared = 0;
  opt.plan.min_step_latencies = 0;
  opt.plan.latency_us = 0.01;
  rc = vpcat_mpi_init(cat, MPI_COMM_WORLD, &opt, &channel_ctx, &err);
  CHECK(rc == VPCAT_MPI_OK, "init (channel steps): %s", err.message);
  vpcat_catalog_destroy(cat);  // the contexts keep what they need
  unsigned seed = 1;
  for (vpcat_mpi_ctx* c : {ctx, channel_ctx}) {
    for (const TypePair& t : pairs) {
      for (Shape shape : {Shape::random, Shape::skewed, Shape::zeros}) {
        for (bool in_place : {false, true}) run_case(c, t, shape, in_place, seed++, expect_mismatch);
      }
    }
    vpcat_mpi_stats st;
    vpcat_mpi_get_stats(c, &st);
    if (rank_ == 0)
      std::printf("vpcat_mpi_check: %d ranks, %s plans, %llu calls, %llu served (%llu steps), %llu fell back, plan "
                  "mode %s, planning median %.1f us\n",
                  size_, c == ctx ? "shared-allowed" : "channel-step", (unsigned long long)st.calls,
                  (unsigned long long)st.served, (unsigned long long)st.steps, (unsigned long long)st.fallbacks,
                  vpcat_mpi_plan_mode(c) == VPCAT_MPI_PLAN_ROOT ? "root" : "every rank", st.plan_us_median);
    if (!expect_mismatch) CHECK(st.steps > 0, "no plan step ran");
    if (!expect_mismatch && c == channel_ctx) CHECK(st.steps > 2 * st.served, "channel-step plans of one or two steps");
  }
  vpcat_mpi_finalize(&ctx);
  vpcat_mpi_finalize(&channel_ctx);
  MPI_Type_free(&vec);
  MPI_Type_free(&vec_resized);
  MPI_Type_free(&pair);
  MPI_Type_free(&pair_resized);
  MPI_Type_free(&two_ints);
  return 0;
}

// Hand-made plans with relays: payload o->f goes half directly (step 0),
// half through relay r = (o + f + 1) mod n (when r is neither): o->r in two
// pieces (steps 1, 2), r->f in one hop (step 3, two staged pieces at the
// relay, interleaved in its arena with other payloads'), compared with
// MPI_Alltoallv.
int run_relays() {
  using namespace vpcat_mpi;
  const std::uint32_t n = static_cast<std::uint32_t>(size_);
  const std::uint32_t me = static_cast<std::uint32_t>(rank_);
  std::vector<std::uint64_t> demand(n * n);
  std::mt19937 rng(7);
  for (auto& d : demand) d = rng() % 50;
  for (std::uint32_t i = 0; i < n; ++i) demand[i * n + i] = 0;
  RankPlan plan;
  std::vector<Hop> steps[4];
  for (std::uint32_t o = 0; o < n; ++o) {
    for (std::uint32_t f = 0; f < n; ++f) {
      const std::uint64_t d = demand[o * n + f];
      if (o == f || d == 0) continue;
      const std::uint32_t r = (o + f + 1) % n;
      if (r == o || r == f || d < 4) {
        steps[0].push_back({o, f, o, f, d});
        continue;
      }
      const std::uint64_t direct = d / 2, p1 = (d - direct) / 2, p2 = d - direct - p1;
      steps[0].push_back({o, f, o, f, direct});
      steps[1].push_back({o, r, o, f, p1});
      steps[2].push_back({o, r, o, f, p2});
      steps[3].push_back({r, f, o, f, p1 + p2});
    }
  }
  for (auto& s : steps) {
    if (s.empty()) continue;
    plan.step_first.push_back(plan.hops.size());
    plan.step_count.push_back(static_cast<std::uint32_t>(s.size()));
    plan.hops.insert(plan.hops.end(), s.begin(), s.end());
  }
  std::vector<int> sc(n), sd(n), rc(n), rd(n);
  std::vector<std::uint64_t> sl(n), rl(n);
  int sat = 0, rat = 0;
  for (std::uint32_t j = 0; j < n; ++j) {
    sc[j] = static_cast<int>(demand[me * n + j]), sd[j] = sat, sat += sc[j] + 1, sl[j] = sc[j];
    rc[j] = static_cast<int>(demand[j * n + me]), rd[j] = rat, rat += rc[j] + 2, rl[j] = rc[j];
  }
  std::vector<unsigned char> send(sat + 1), a(rat + 1, 0xEE), b(rat + 1, 0xEE);
  fill(send, 1000u + me);
  Resolved res;
  std::string why;
  CHECK(resolve(plan, n, me, sl.data(), rl.data(), demand.data(), &res, &why), "resolve: %s", why.c_str());
  std::uint64_t relayed = 0;
  for (const Action& act : res.actions) relayed += act.seg_count > 1;
  std::vector<const char*> send_at(n);
  std::vector<char*> recv_at(n);
  for (std::uint32_t j = 0; j < n; ++j)
    send_at[j] = reinterpret_cast<const char*>(send.data()) + sd[j], recv_at[j] = reinterpret_cast<char*>(a.data()) + rd[j];
  std::vector<char> arena;
  std::vector<std::vector<char>> temps;
  std::vector<MPI_Request> reqs;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  // The diagonal is zero; the executor moves everything else.
  CHECK(execute(res, comm, 7, send_at.data(), recv_at.data(), &arena, &temps, &reqs) == MPI_SUCCESS, "execute");
  MPI_Alltoallv(send.data(), sc.data(), sd.data(), MPI_BYTE, b.data(), rc.data(), rd.data(), MPI_BYTE, MPI_COMM_WORLD);
  std::size_t diff = a.size();
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k] != b[k]) {
      diff = k;
      break;
    }
  CHECK(diff == a.size(), "relay plan: received byte %zu of %zu differs from MPI_Alltoallv", diff, a.size());
  // Inconsistent plans are refused with a reason, before any message.
  RankPlan bad = plan;
  bad.hops.back().bytes += 1;  // a relay forwards a byte it never received
  CHECK(!resolve(bad, n, me, sl.data(), rl.data(), demand.data(), &res, &why) && !why.empty(), "bad plan accepted");
  if (rank_ == 0) std::printf("relay plans: %zu hops, multi-piece messages at rank 0: %llu; bad plan: %s\n",
                              plan.hops.size(), (unsigned long long)relayed, why.c_str());
  MPI_Comm_free(&comm);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  bool expect_mismatch = false, relay = false;
  const char* path = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--expect-mismatch") == 0) expect_mismatch = true;
    else if (std::strcmp(argv[i], "--relay") == 0) relay = true;
    else path = argv[i];
  }
  int rc = 0;
  if (relay) rc = run_relays();
  else if (!path) std::fprintf(stderr, "usage: vpcat_mpi_check CATALOG [--expect-mismatch] | --relay\n"), rc = 1;
  else rc = run_library(path, expect_mismatch);
  int local = rc != 0 || failures != 0, any = 0;
  MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank_ == 0) std::printf("%s\n", any ? "FAILED" : "OK");
  MPI_Finalize();
  return any ? 1 : 0;
}
