// Planning time per call: Google Benchmark over the evaluation platforms,
// with uniform, Zipf-skewed MoE and random (uniform integer entries, as
// FAST's generator) demands, plus the cost of opening (mapping + verifying)
// a catalog and of Planner::init.
//
//   cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DVP_BUILD_BENCHMARKS=ON
//   cmake --build build-bench --target plan_bench
//   build-bench/bench/plan_bench --benchmark_min_time=0.5
//
// Catalogs are built in process by the analyzer (as vp-analyze would) from
// fixtures/platforms; building them is not timed. Each Plan benchmark reuses
// one Planner and one Plan, as an embedder does call after call, and reports
// the plan's steps and transfers as counters, steps_per_bound: the steps
// over the least any one-port plan needs (the most distinct partners of one
// GPU, or 1), expected_ms: the plan's expected time, plan_MB: the memory
// its steps and transfers take, and replay_rounds: the replay's cycle (0:
// every step searched). Search/ plans the same demands with the replay off.
// Subset/ times Planner::init(view, subset) on the 256-GPU platform
// (docs/subsets.md: the restriction of the catalog to a job's GPUs, its
// derived types' patterns and symmetry included) and SubsetPlan/ a uniform
// plan over that subset.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <memory>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "vp/analysis/build_catalog.hpp"
#include "vp/analysis/request.hpp"
#include "vp/catalog/writer.hpp"
#include "vp/sim/workloads.hpp"
#include "vpcat/mapped_file.hpp"
#include "vpcat/planner.hpp"

namespace {

struct Platform {
  std::vector<std::uint8_t> bytes;
  vpcat::CatalogView view;
  vpcat::Planner planner;
  std::uint32_t gpus = 0;
};

const std::string kFixtures = VP_FIXTURES_DIR;

// The channel plans these benchmarks have timed since before the default
// weighed other candidates (Default/ times those).
vpcat::PlanOptions channels_only() {
  vpcat::PlanOptions o;
  o.channels_only = true;
  return o;
}

vp::AnalysisRequest request(const std::string& name) {
  vp::AnalysisRequest r;
  r.input = kFixtures + "/platforms/pcie-gen4-2s4sw8g.json";
  if (name == "32gpu-4n-switch") r.cluster = kFixtures + "/platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json";
  else if (name == "128gpu-16n-rail") r.cluster = kFixtures + "/platforms/pcie-gen4-2s4sw8g-16n-rail.cluster.json";
  else if (name == "256gpu-32n-leafspine")
    r.cluster = kFixtures + "/platforms/pcie-gen4-2s4sw8g-32n-leafspine2to1.cluster.json";
  else if (name == "1024gpu-128n-leafspine") r.nodes = 128, r.fabric = "leaf_spine", r.leaf_size = 16, r.oversubscription = 2;
  else if (name == "4096gpu-512n-leafspine") r.nodes = 512, r.fabric = "leaf_spine", r.leaf_size = 16, r.oversubscription = 2;
  else if (name == "8gpu-1n") {
  } else throw std::invalid_argument(name);
  return r;
}

Platform& platform(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Platform>> cache;
  auto& p = cache[name];
  if (p) return *p;
  p = std::make_unique<Platform>();
  const vp::AnalysisRequest r = request(name);
  vp::LoadedInput in = vp::load_input(r);
  const vp::catalog::Catalog c = vp::build_catalog(in, r.search, vp::canonical_options(r));
  p->bytes = vp::catalog::write_catalog(c);
  if (!vpcat::CatalogView::open(p->bytes.data(), p->bytes.size(), &p->view).ok()) throw std::runtime_error(name);
  if (!p->planner.init(p->view).ok()) throw std::runtime_error(name);
  p->gpus = p->planner.gpu_count();
  return *p;
}

std::vector<std::uint64_t> demand(std::uint32_t n, const std::string& workload) {
  std::vector<std::uint64_t> d(std::size_t{n} * n, 0);
  if (workload == "uniform") {
    for (std::size_t i = 0; i < d.size(); ++i) d[i] = i % (n + 1) == 0 ? 0 : 1 << 20;
    return d;
  }
  if (workload == "random") {  // FAST's workload: entries uniform in 0..10,000 MB
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<std::uint64_t> mb(0, 10000);
    for (std::size_t i = 0; i < d.size(); ++i) d[i] = i % (n + 1) == 0 ? 0 : mb(rng) * 1000000;
    return d;
  }
  vp::sim::MoeOptions o;  // 128 experts, top-8, 4096 tokens per GPU, hidden 2048 in bf16
  o.zipf_exponent = workload == "zipf1.2" ? 1.2 : workload == "zipf0.8" ? 0.8 : 1.0;
  const vp::sim::Demand m = vp::sim::moe_dispatch_demand(n, o);
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint32_t t = 0; t < n; ++t) d[std::size_t{s} * n + t] = s == t ? 0 : static_cast<std::uint64_t>(m.at(s, t));
  return d;
}

// `replay`: PlanOptions::replay (Plan/ on, the default; Search/ off, every
// step searched), to compare the two in one run; both channel plans
// (PlanOptions::channels_only). `fastest` (Default/): the default plan, the
// candidate expected fastest under the calibrated machine model.
void BM_Plan(benchmark::State& state, const std::string& name, const std::string& workload, bool replay,
             bool fastest) {
  Platform& p = platform(name);
  const std::vector<std::uint64_t> d = demand(p.gpus, workload);
  vpcat::PlanOptions o;
  o.channels_only = !fastest;
  o.replay = replay;
  vpcat::Plan plan;
  if (!p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), o, plan).ok()) state.SkipWithError("plan failed");
  for (auto _ : state) {
    vpcat::PlanStatus s = p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), o, plan);
    benchmark::DoNotOptimize(s);
  }
  state.counters["gpus"] = p.gpus;
  state.counters["replay_rounds"] = p.planner.replay_rounds();
  state.counters["steps"] = static_cast<double>(plan.step_count());
  state.counters["transfers"] = static_cast<double>(plan.transfer_count());
  // The plan's quality: its expected time (channel steps: latency plus the
  // longest transfer at its solo rate, per step), in ms.
  state.counters["expected_ms"] = plan.expected_us() / 1e3;
  // ... over the bound the planner states (Plan::bound_us: the busiest GPU
  // link, node NIC set or leaf uplink), 1 at best.
  state.counters["per_bound"] = plan.bound_us() > 0 ? plan.expected_us() / plan.bound_us() : 1.0;
  // The plan's own memory (steps and transfers), in MB.
  state.counters["plan_MB"] = static_cast<double>(plan.transfer_count() * sizeof(vpcat::PlanTransfer) +
                                                  plan.step_count() * sizeof(vpcat::PlanStep)) / 1e6;
  std::uint32_t partners = 1;
  for (std::uint32_t g = 0; g < p.gpus; ++g) {
    std::uint32_t out = 0, in = 0;
    for (std::uint32_t h = 0; h < p.gpus; ++h) out += d[std::size_t{g} * p.gpus + h] != 0, in += d[std::size_t{h} * p.gpus + g] != 0;
    partners = std::max(partners, std::max(out, in));
  }
  state.counters["steps_per_bound"] = static_cast<double>(plan.step_count()) / partners;
  state.counters["ns_per_transfer"] = benchmark::Counter(static_cast<double>(plan.transfer_count()),
                                                         benchmark::Counter::kIsIterationInvariantRate |
                                                             benchmark::Counter::kInvert);
}

// Verify a catalog already in memory (the zero-copy view over a buffer).
void BM_OpenVerify(benchmark::State& state, const std::string& name) {
  Platform& p = platform(name);
  for (auto _ : state) {
    vpcat::CatalogView v;
    vpcat::Status s = vpcat::CatalogView::open(p.bytes.data(), p.bytes.size(), &v);
    benchmark::DoNotOptimize(s);
  }
  state.counters["bytes"] = static_cast<double>(p.bytes.size());
}

// Map a catalog file and verify it (open(2) + mmap + verify + munmap).
void BM_OpenFile(benchmark::State& state, const std::string& name) {
  Platform& p = platform(name);
  char path[] = "/tmp/vp-plan-bench-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0 || write(fd, p.bytes.data(), p.bytes.size()) != static_cast<ssize_t>(p.bytes.size())) {
    state.SkipWithError("cannot write the catalog file");
    return;
  }
  close(fd);
  for (auto _ : state) {
    vpcat::CatalogFile f;
    vpcat::Status s = vpcat::CatalogFile::open(path, &f);
    benchmark::DoNotOptimize(s);
  }
  unlink(path);
}

void BM_Init(benchmark::State& state, const std::string& name) {
  Platform& p = platform(name);
  for (auto _ : state) {
    vpcat::Planner planner;
    vpcat::PlanStatus s = planner.init(p.view);
    benchmark::DoNotOptimize(s);
  }
}

// init and the first plan of a fresh Planner (uniform demand): the first
// replayed plan expands the pattern tables and builds the cycle, once.
void BM_InitFirstPlan(benchmark::State& state, const std::string& name) {
  Platform& p = platform(name);
  const std::vector<std::uint64_t> d = demand(p.gpus, "uniform");
  vpcat::Plan plan;
  for (auto _ : state) {
    vpcat::Planner planner;
    vpcat::PlanStatus s = planner.init(p.view);
    if (s.ok()) s = planner.plan(vpcat::Demand::dense(d.data(), p.gpus), channels_only(), plan);
    benchmark::DoNotOptimize(s);
  }
}

// Subsets of a platform: "half-nodes" (every other node, whole), "half-gpus"
// (GPUs 0, 2, 4, 6 of every node: one derived type), "mixed" (every node a
// different random set of 1-8 GPUs, in random order: a derived type per
// node, the most restriction work), "one-gpu" (one random GPU per node),
// "fragmented" (a random 3 or 5 GPUs of a random half of the nodes),
// "large-sets" (all GPUs but one, then all but two: a different large held
// set on every node).
vpcat::Subset subset_of(const Platform& p, const std::string& kind) {
  std::mt19937_64 rng(7);
  vpcat::Subset s;
  const std::uint32_t N = p.view.node_count();
  for (std::uint32_t n = 0; n < N; ++n) {
    const std::uint32_t G = p.view.node_type(p.view.node(n).node_type).gpu_count();
    std::vector<std::uint32_t> g(G);
    for (std::uint32_t i = 0; i < G; ++i) g[i] = i;
    std::shuffle(g.begin(), g.end(), rng);
    std::uint32_t k = G;
    if (kind == "half-nodes") {
      if (n % 2) continue;
      std::sort(g.begin(), g.end());
    } else if (kind == "half-gpus") {
      k = 0;
      for (std::uint32_t i = 0; i < G; i += 2) g[k++] = i;
    } else if (kind == "mixed") {
      k = 1 + static_cast<std::uint32_t>(rng() % G);
    } else if (kind == "one-gpu") {
      k = 1;
    } else if (kind == "fragmented") {
      if (rng() % 2) continue;
      k = rng() % 2 ? 3 : 5;
      std::sort(g.begin(), g.begin() + k);
    } else if (kind == "large-sets") {
      // All but one GPU (each of the G on its own node), then all but two
      // (each pair once): the largest held sets, the most restricted patterns.
      std::vector<std::uint32_t> drop;
      if (n < G) {
        drop = {n};
      } else {
        std::uint32_t pair = n - G;
        for (std::uint32_t a = 0; a < G && drop.empty(); ++a)
          for (std::uint32_t b = a + 1; b < G && drop.empty(); ++b)
            if (pair-- == 0) drop = {a, b};
        if (drop.empty()) continue;
      }
      k = 0;
      for (std::uint32_t i = 0; i < G; ++i)
        if (std::find(drop.begin(), drop.end(), i) == drop.end()) g[k++] = i;
    }
    if (!s.add_node(p.view, n, g.data(), k).ok()) throw std::runtime_error("subset " + kind);
  }
  return s;
}

void BM_Subset(benchmark::State& state, const std::string& name, const std::string& kind) {
  Platform& p = platform(name);
  const vpcat::Subset s = subset_of(p, kind);
  vpcat::Planner planner;
  for (auto _ : state) {
    vpcat::PlanStatus st = planner.init(p.view, s);
    if (!st.ok()) state.SkipWithError(st.message());
    benchmark::DoNotOptimize(st);
  }
  state.counters["gpus"] = s.gpu_count();
  state.counters["nodes"] = s.node_count();
  double derived = 0, reps = 0;
  for (std::uint32_t n = 0; n < planner.node_count(); ++n) {
    const vpcat::Planner::NodePatterns np = planner.node_patterns(n);
    derived += np.derived;
    reps += np.representatives;
  }
  state.counters["derived_nodes"] = derived;
  state.counters["reps_per_node"] = reps / planner.node_count();
}

void BM_SubsetPlan(benchmark::State& state, const std::string& name, const std::string& kind) {
  Platform& p = platform(name);
  const vpcat::Subset s = subset_of(p, kind);
  vpcat::Planner planner;
  if (!planner.init(p.view, s).ok()) {
    state.SkipWithError("init failed");
    return;
  }
  const std::vector<std::uint64_t> d = demand(s.gpu_count(), "uniform");
  vpcat::Plan plan;
  for (auto _ : state) {
    vpcat::PlanStatus st = planner.plan(vpcat::Demand::dense(d.data(), s.gpu_count()), channels_only(), plan);
    if (!st.ok()) state.SkipWithError(st.message());
    benchmark::DoNotOptimize(st);
  }
  state.counters["gpus"] = s.gpu_count();
  state.counters["steps"] = static_cast<double>(plan.step_count());
  state.counters["expected_ms"] = plan.expected_us() / 1e3;
  // ... over the bound the planner states (Plan::bound_us: the busiest GPU
  // link, node NIC set or leaf uplink), 1 at best.
  state.counters["per_bound"] = plan.bound_us() > 0 ? plan.expected_us() / plan.bound_us() : 1.0;
}

const char* const kSubsets[] = {"half-nodes", "half-gpus", "mixed", "one-gpu", "fragmented", "large-sets"};

// The 4096-GPU platform's plans are large (16.7M transfers, 670 MB for a
// uniform demand) and its searched ones slow: filter it in or out by name.
const char* const kPlatforms[] = {"32gpu-4n-switch", "128gpu-16n-rail", "256gpu-32n-leafspine",
                                  "1024gpu-128n-leafspine", "4096gpu-512n-leafspine"};
const char* const kWorkloads[] = {"uniform", "zipf1.0", "zipf1.2", "random"};

int register_all() {
  for (const char* p : kPlatforms) {
    benchmark::RegisterBenchmark((std::string("OpenVerify/") + p).c_str(), BM_OpenVerify, std::string(p))
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string("OpenFile/") + p).c_str(), BM_OpenFile, std::string(p))
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string("Init/") + p).c_str(), BM_Init, std::string(p))
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string("InitFirstPlan/") + p).c_str(), BM_InitFirstPlan, std::string(p))
        ->Unit(benchmark::kMicrosecond);
    for (const char* w : kWorkloads)
      benchmark::RegisterBenchmark((std::string("Plan/") + p + "/" + w).c_str(), BM_Plan, std::string(p),
                                   std::string(w), true, false)
          ->Unit(benchmark::kMicrosecond);
    for (const char* w : kWorkloads)
      benchmark::RegisterBenchmark((std::string("Search/") + p + "/" + w).c_str(), BM_Plan, std::string(p),
                                   std::string(w), false, false)
          ->Unit(benchmark::kMicrosecond);
    for (const char* w : kWorkloads)
      benchmark::RegisterBenchmark((std::string("Default/") + p + "/" + w).c_str(), BM_Plan, std::string(p),
                                   std::string(w), true, true)
          ->Unit(benchmark::kMicrosecond);
  }
  for (const char* k : kSubsets) {
    benchmark::RegisterBenchmark((std::string("Subset/256gpu-32n-leafspine/") + k).c_str(), BM_Subset,
                                 std::string("256gpu-32n-leafspine"), std::string(k))
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string("SubsetPlan/256gpu-32n-leafspine/") + k).c_str(), BM_SubsetPlan,
                                 std::string("256gpu-32n-leafspine"), std::string(k))
        ->Unit(benchmark::kMicrosecond);
  }
  return 0;
}
const int registered = register_all();

}  // namespace

BENCHMARK_MAIN();
