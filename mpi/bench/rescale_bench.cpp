// Rescaling without restart: the time from a new membership to its first
// plan (docs/mpi.md "Rescaling without restart").
//
//   vpcat_rescale_bench CATALOG [--repetitions K] [--seed S]
//       in process, no MPI: for each subset of the catalog's GPUs (all, one
//       node removed, half the nodes, every other GPU, a random 3/4), the
//       subset planner (vpcat_planner_create_subset) on a catalog handle
//       opened for the repetition (so it has kept no derivation), a plan
//       object and the first plan of an MoE-skewed demand, timed
//       separately, the total's CPU time too (on a loaded machine); then a
//       second subset planner on the same handle ("again": the partial
//       nodes' derivations kept) and the first plan of a sparse demand
//       (each GPU to 8 others, as a decode step) on it; medians and maxima
//       over K repetitions.
//   mpirun -n N vpcat_rescale_bench CATALOG --mpi [--repetitions K] [--seed S]
//       the executor's whole path on communicators of the world's ranks (the
//       world mapped by VPCAT_RANK_MAP or by host): for each subset of ranks
//       (all, one node removed, half, a random 3/4), MPI_Comm_split, one
//       MPI_Barrier on it (what one collective costs there), then
//       vpcat_mpi_init (the all-gather of hosts and GPUs, the rank map, the
//       subset planner) and the first vpcat_mpi_alltoallv's counts exchange
//       and plan; the slowest rank's time, medians and maxima over K.
//
// Times in milliseconds. The skewed demand: 4 KiB per pair, 8x to one hot GPU.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <ctime>
#include <string>
#include <vector>

#include "vpcat_mpi.h"

namespace {

struct Args {
  const char* catalog = nullptr;
  int repetitions = 20;
  unsigned seed = 1;
  bool mpi = false;
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// This thread's CPU time: what the work cost on a shared, loaded machine.
double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double maximum(const std::vector<double>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

// The node of every catalog GPU.
std::vector<std::uint32_t> node_of_gpus(const vpcat_catalog* cat) {
  std::uint64_t gpus = 0;
  std::uint32_t nodes = 0;
  vpcat_catalog_gpu_count(cat, &gpus);
  vpcat_catalog_node_count(cat, &nodes);
  std::vector<std::uint32_t> out(gpus, 0);
  for (std::uint32_t n = 0; n < nodes; ++n) {
    vpcat_node node;
    if (vpcat_catalog_node(cat, n, &node) != VPCAT_OK) continue;
    for (std::uint32_t g = 0; g < node.gpu_count && node.first_gpu + g < gpus; ++g) out[node.first_gpu + g] = n;
  }
  return out;
}

struct Subset {
  std::string name;
  std::vector<std::size_t> members;  // indexes into the whole (GPUs, or world ranks)
};

// Subsets of `count` items whose nodes are `node` (item -> node).
std::vector<Subset> subsets(const std::vector<std::uint32_t>& node, unsigned seed, bool every_other) {
  const std::size_t count = node.size();
  std::vector<Subset> out;
  Subset all{"all", {}};
  for (std::size_t i = 0; i < count; ++i) all.members.push_back(i);
  out.push_back(all);
  const std::uint32_t nodes = count ? node.back() + 1 : 0, removed = nodes / 2;
  Subset one{"one node removed", {}};
  for (std::size_t i = 0; i < count; ++i)
    if (node[i] != removed) one.members.push_back(i);
  if (nodes > 1) out.push_back(one);
  Subset half{"half the nodes", {}};
  for (std::size_t i = 0; i < count; ++i)
    if (node[i] < (nodes + 1) / 2) half.members.push_back(i);
  if (nodes > 1) out.push_back(half);
  if (every_other) {
    Subset other{"every other GPU", {}};
    for (std::size_t i = 0; i < count; i += 2) other.members.push_back(i);
    out.push_back(other);
  }
  Subset random{"random 3/4", all.members};
  std::mt19937 rng(seed);
  std::shuffle(random.members.begin(), random.members.end(), rng);
  random.members.resize(count * 3 / 4);
  std::sort(random.members.begin(), random.members.end());
  out.push_back(random);
  return out;
}

std::uint64_t pair_bytes(std::size_t s, std::size_t d, std::size_t n) {
  if (s == d) return 0;
  return d == n / 3 ? 8 * 4096 : 4096;
}

int run_in_process(const Args& a) {
  vpcat_catalog* cat = nullptr;
  vpcat_error err;
  if (vpcat_catalog_open_file(a.catalog, nullptr, &cat, &err) != VPCAT_OK) {
    std::fprintf(stderr, "vpcat_rescale_bench: %s\n", err.message);
    return 2;
  }
  const std::vector<std::uint32_t> node = node_of_gpus(cat);
  std::printf("# %s: %zu GPUs; %d repetitions; ms, median (max)\n", a.catalog, node.size(), a.repetitions);
  std::printf("# %-18s %5s %22s %22s %18s %22s %22s %12s %22s\n", "subset", "GPUs", "create_subset",
              "create_subset again", "plan_create", "first plan", "total", "total CPU", "first plan, 8 peers");
  const vpcat_plan_options opt = vpcat_plan_options_default();
  for (const Subset& s : subsets(node, a.seed, true)) {
    std::vector<std::uint64_t> gpus(s.members.begin(), s.members.end());
    const std::size_t n = gpus.size();
    std::vector<vpcat_demand_entry> entries;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        if (i != j) entries.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), pair_bytes(i, j, n)});
    // A sparse demand too (a decode step: each GPU sends to 8 others).
    std::vector<vpcat_demand_entry> sparse;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 1; k <= 8 && k < n; ++k)
        sparse.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>((i + k * (n / 9 + 1)) % n), 4096});
    sparse.erase(std::remove_if(sparse.begin(), sparse.end(), [](const vpcat_demand_entry& e) { return e.src == e.dst; }),
                 sparse.end());
    std::sort(sparse.begin(), sparse.end(), [](const vpcat_demand_entry& x, const vpcat_demand_entry& y) {
      return x.src != y.src ? x.src < y.src : x.dst < y.dst;
    });
    sparse.erase(std::unique(sparse.begin(), sparse.end(),
                             [](const vpcat_demand_entry& x, const vpcat_demand_entry& y) {
                               return x.src == y.src && x.dst == y.dst;
                             }),
                 sparse.end());
    std::vector<double> create, again, plan_obj, first, total, cpu, first_sparse;
    for (int k = 0; k < a.repetitions; ++k) {
      // A catalog handle opened for this repetition (not timed): it keeps
      // the partial nodes' derivations (docs/subsets.md), so the first
      // planner of a membership on it pays for them, as a job's first
      // membership of a kind does; "again" is the next planner on it.
      vpcat_catalog* fresh = nullptr;
      if (vpcat_catalog_open_file(a.catalog, nullptr, &fresh, &err) != VPCAT_OK) {
        std::fprintf(stderr, "vpcat_rescale_bench: %s\n", err.message);
        return 2;
      }
      vpcat_planner* planner = nullptr;
      vpcat_plan* plan = nullptr;
      const double c0 = cpu_ms();
      const double t0 = now_ms();
      if (vpcat_planner_create_subset(fresh, gpus.data(), n, &planner, &err) != VPCAT_OK) {
        std::fprintf(stderr, "vpcat_rescale_bench: %s: %s\n", s.name.c_str(), err.message);
        return 1;
      }
      const double t1 = now_ms();
      vpcat_plan_create(&plan);
      const double t2 = now_ms();
      if (vpcat_planner_plan_sparse(planner, entries.data(), entries.size(), n, &opt, plan, &err) != VPCAT_OK) {
        std::fprintf(stderr, "vpcat_rescale_bench: %s: planning: %s\n", s.name.c_str(), err.message);
        return 1;
      }
      const double t3 = now_ms(), c3 = cpu_ms();
      create.push_back(t1 - t0), plan_obj.push_back(t2 - t1), first.push_back(t3 - t2), total.push_back(t3 - t0);
      cpu.push_back(c3 - c0);
      vpcat_plan_destroy(plan);
      vpcat_planner_destroy(planner);
      // The sparse demand's first plan, on a new planner of the same subset
      // and catalog handle (timed: "again").
      const double t5 = now_ms();
      vpcat_planner_create_subset(fresh, gpus.data(), n, &planner, &err);
      again.push_back(now_ms() - t5);
      vpcat_plan_create(&plan);
      const double t4 = now_ms();
      if (vpcat_planner_plan_sparse(planner, sparse.data(), sparse.size(), n, &opt, plan, &err) != VPCAT_OK) {
        std::fprintf(stderr, "vpcat_rescale_bench: %s: planning: %s\n", s.name.c_str(), err.message);
        return 1;
      }
      first_sparse.push_back(now_ms() - t4);
      vpcat_plan_destroy(plan);
      vpcat_planner_destroy(planner);
      vpcat_catalog_destroy(fresh);
    }
    std::printf(
        "  %-18s %5zu %12.3f (%7.3f) %12.3f (%7.3f) %9.3f (%6.3f) %12.3f (%7.3f) %12.3f (%7.3f) %12.3f %12.3f (%7.3f)\n",
        s.name.c_str(), n, median(create), maximum(create), median(again), maximum(again), median(plan_obj),
        maximum(plan_obj), median(first), maximum(first), median(total), maximum(total), median(cpu),
        median(first_sparse), maximum(first_sparse));
  }
  vpcat_catalog_destroy(cat);
  return 0;
}

double slowest(double v, MPI_Comm comm) {
  double out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, comm);
  return out;
}

int run_mpi(const Args& a) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  vpcat_catalog* cat = nullptr;
  vpcat_error cerr;
  vpcat_mpi_error err;
  if (vpcat_catalog_open_file(a.catalog, nullptr, &cat, &cerr) != VPCAT_OK) {
    if (rank == 0) std::fprintf(stderr, "vpcat_rescale_bench: %s\n", cerr.message);
    return 2;
  }
  vpcat_mpi_options opt = vpcat_mpi_options_default();
  vpcat_mpi_ctx* world = nullptr;
  if (vpcat_mpi_init(cat, MPI_COMM_WORLD, &opt, &world, &err) != VPCAT_MPI_OK) {
    if (rank == 0) std::fprintf(stderr, "vpcat_rescale_bench: %s\n", err.message);
    return 2;
  }
  // The ranks' nodes (for "one node removed", "half the nodes").
  const std::vector<std::uint32_t> gpu_node = node_of_gpus(cat);
  std::vector<std::uint32_t> node(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) node[r] = gpu_node[static_cast<std::size_t>(vpcat_mpi_rank_gpu(world, r))];
  // Renumber the nodes the world holds 0, 1, ... in rank order.
  std::vector<std::uint32_t> seen;
  for (std::uint32_t& n : node) {
    auto it = std::find(seen.begin(), seen.end(), n);
    if (it == seen.end()) seen.push_back(n), it = seen.end() - 1;
    n = static_cast<std::uint32_t>(it - seen.begin());
  }
  vpcat_mpi_warm_up(world);  // MPI's connections between every pair: not part of a rescale
  if (rank == 0)
    std::printf("# %s: %d ranks; %d repetitions; ms, the slowest rank, median (max)\n# %-18s %5s %18s %18s %22s %18s "
                "%18s\n",
                a.catalog, size, a.repetitions, "subset", "ranks", "MPI_Comm_split", "one MPI_Barrier", "vpcat_mpi_init",
                "first exch+plan", "init to plan");
  const std::vector<int> counts_template(static_cast<std::size_t>(size), 0);
  for (const Subset& s : subsets(node, a.seed, false)) {
    const bool member = std::binary_search(s.members.begin(), s.members.end(), static_cast<std::size_t>(rank));
    std::vector<double> split, barrier, init, first, total;
    for (int k = 0; k < a.repetitions; ++k) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = now_ms();
      MPI_Comm comm;
      MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, rank, &comm);
      double t1 = now_ms();
      const double split_ms = t1 - t0;
      double t2 = t1, plan_ms = 0, barrier_ms = 0;
      if (comm != MPI_COMM_NULL) {
        // One collective on the new communicator: what one costs here.
        const double b0 = now_ms();
        MPI_Barrier(comm);
        barrier_ms = now_ms() - b0;
        vpcat_mpi_ctx* ctx = nullptr;
        t1 = now_ms();
        if (vpcat_mpi_init(cat, comm, &opt, &ctx, &err) != VPCAT_MPI_OK) {
          std::fprintf(stderr, "vpcat_rescale_bench: rank %d: %s\n", rank, err.message);
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
        t2 = now_ms();
        int n = 0, me = 0;
        MPI_Comm_size(comm, &n);
        MPI_Comm_rank(comm, &me);
        std::vector<int> sc(n), rc(n), sd(n), rd(n);
        int stotal = 0, rtotal = 0;
        for (int j = 0; j < n; ++j) {
          sc[j] = static_cast<int>(pair_bytes(me, j, n)), rc[j] = static_cast<int>(pair_bytes(j, me, n));
          sd[j] = stotal, rd[j] = rtotal, stotal += sc[j], rtotal += rc[j];
        }
        std::vector<char> sbuf(stotal + 1, 1), rbuf(rtotal + 1);
        vpcat_mpi_alltoallv(sbuf.data(), sc.data(), sd.data(), MPI_BYTE, rbuf.data(), rc.data(), rd.data(), MPI_BYTE,
                            ctx);
        vpcat_mpi_stats st;
        vpcat_mpi_get_stats(ctx, &st);
        if (st.served != 1) {
          std::fprintf(stderr, "vpcat_rescale_bench: rank %d: the first call was not planned (%s)\n", rank,
                       st.fallback_reason ? st.fallback_reason : "?");
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
        plan_ms = (st.last_exchange_us + st.last_plan_us) / 1e3;
        vpcat_mpi_finalize(&ctx);
        MPI_Comm_free(&comm);
      }
      // The slowest member's figures (non-members report 0).
      split.push_back(slowest(member ? split_ms : 0, MPI_COMM_WORLD));
      barrier.push_back(slowest(barrier_ms, MPI_COMM_WORLD));
      init.push_back(slowest(member ? t2 - t1 : 0, MPI_COMM_WORLD));
      first.push_back(slowest(plan_ms, MPI_COMM_WORLD));
      total.push_back(slowest(member ? t2 - t1 + plan_ms : 0, MPI_COMM_WORLD));
    }
    if (rank == 0)
      std::printf("  %-18s %5zu %9.3f (%6.3f) %9.3f (%6.3f) %12.3f (%7.3f) %9.3f (%6.3f) %9.3f (%6.3f)\n",
                  s.name.c_str(), s.members.size(), median(split), maximum(split), median(barrier), maximum(barrier),
                  median(init), maximum(init), median(first), maximum(first), median(total), maximum(total));
  }
  vpcat_mpi_finalize(&world);
  vpcat_catalog_destroy(cat);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--mpi") {
      a.mpi = true;
    } else if (s == "--repetitions" && i + 1 < argc) {
      a.repetitions = std::max(1, std::atoi(argv[++i]));
    } else if (s == "--seed" && i + 1 < argc) {
      a.seed = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (!a.catalog && s[0] != '-') {
      a.catalog = argv[i];
    } else {
      std::fprintf(stderr, "vpcat_rescale_bench: unknown argument %s\n"
                           "usage: [mpirun -n N] vpcat_rescale_bench CATALOG [--mpi] [--repetitions K] [--seed S]\n",
                   argv[i]);
      return 1;
    }
  }
  if (!a.catalog) {
    std::fprintf(stderr, "usage: [mpirun -n N] vpcat_rescale_bench CATALOG [--mpi] [--repetitions K] [--seed S]\n");
    return 1;
  }
  if (!a.mpi) return run_in_process(a);
  MPI_Init(&argc, &argv);
  const int rc = run_mpi(a);
  MPI_Finalize();
  return rc;
}
