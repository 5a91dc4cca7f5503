// Planning speed in one table (issue 34 item 4; docs/planner.md
// "Measurements"): per cluster size and workload, the VarioPath planner's
// CPU time per call (warm: one Planner and one Plan reused, the median of
// --calls calls; first: the first plan of a fresh Planner into a fresh
// Plan), Planner::init (building the replay cycle, kept in a
// DerivedPatterns) and a second planner's init taking the kept cycle, the plan's size and the peak memory the case adds;
// the same plan made compact (PlanOptions::compact: warm time, size, peak,
// and the CPU time one GPU takes to expand its own part of every step with
// Planner::gpu_transfers, as a rank of an executor would),
// and FAST's own scheduler (MangoBoost/FAST) on the same matrices in the
// same run, called as its flash.cpp calls it: one scheduler kept, each call
// update_global_scheduler + run_scheduler (reused), the first call
// init_global_scheduler + run_scheduler (first).
//
//   cmake --preset release -B build-release -DVP_BUILD_BENCHMARKS=ON
//   cmake --build build-release --target speed_bench
//   scripts/build_fast_shim.sh FAST_SOURCE_DIR build-release/fast   # optional
//   build-release/bench/speed_bench --fast build-release/fast
//
// Without --fast (or without a library for a size's server count) FAST is
// skipped and the table says so. Clusters: N nodes of the evaluation node
// type (fixtures/platforms/pcie-gen4-2s4sw8g.json, 8 GPUs, 4 NICs) on one
// switch, built in process by the analyzer (vp-analyze --nodes N); the time
// that takes is printed, not counted. Demands: uniform 1 MiB per pair, the
// MoE dispatch at Zipf 1.2 (vp::sim::MoeOptions: 128 experts, top-8, 4096
// tokens per GPU, hidden 2048 bf16) and FAST's random workload (entries
// uniform integers in 0..10,000 MB). FAST gets each matrix in its own unit
// (its permutation weights are 32-bit): tokens of 4,096 bytes (hidden 2048
// in bf16; flash.cpp passes tokens) for uniform and MoE, MB for random (its
// generator's unit), rounded up.
//
// Each case runs in a child process (fork), so that its peak memory is its
// own: the peak resident set (VmHWM, reset through /proc/self/clear_refs)
// over the resident set at the case's start; the catalog and the demand are
// the parent's and not counted. CPU time: CLOCK_PROCESS_CPUTIME_ID.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "vp/analysis/build_catalog.hpp"
#include "vp/analysis/request.hpp"
#include "vp/catalog/writer.hpp"
#include "vp/sim/workloads.hpp"
#include "vpcat/planner.hpp"

namespace {

const std::string kFixtures = VP_FIXTURES_DIR;
constexpr std::uint32_t kGpusPerNode = 8;

struct Args {
  std::vector<std::uint32_t> gpus = {32, 256, 512, 1024, 4096};
  std::vector<std::string> workloads = {"uniform", "zipf1.2", "random"};
  std::string fast;         // folder of libvp_fast_N.so (scripts/build_fast_shim.sh); empty: skip FAST
  std::uint32_t calls = 21;  // warm calls of ours (median)
  std::uint32_t fast_calls = 5;
  double budget_s = 20.0;   // CPU seconds of warm calls per case, at least one call
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "speed_bench: %s\n"
               "usage: speed_bench [--gpus 32,256,...] [--workloads uniform,zipf1.2,random] [--fast DIR]\n"
               "                   [--calls N] [--fast-calls N] [--budget-s S]\n"
               "  --gpus: cluster sizes, multiples of 8 from 16 (nodes of 8 GPUs on one switch)\n"
               "  --fast: the folder scripts/build_fast_shim.sh wrote (libvp_fast_<servers>.so); without it FAST is skipped\n"
               "  --calls / --fast-calls: warm calls timed per case (median); --budget-s: stop a case's warm calls\n"
               "    once they took this much CPU (after at least one)\n",
               why.c_str());
  std::exit(2);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string x; std::getline(in, x, ',');) out.push_back(x);
  return out;
}

std::uint64_t number(const std::string& flag, const std::string& s, std::uint64_t lo, std::uint64_t hi) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno != 0 || v < lo || v > hi || s[0] == '-')
    usage(flag + " " + s + ": not an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string f = argv[i];
    if (f == "-h" || f == "--help") usage("planning time, plan size and peak memory, ours beside FAST's scheduler");
    if (i + 1 >= argc) usage(f + ": needs a value");
    const std::string v = argv[++i];
    if (f == "--gpus") {
      a.gpus.clear();
      for (const std::string& x : split(v)) {
        const std::uint64_t n = number(f, x, 16, 16384);
        if (n % kGpusPerNode) usage(f + " " + x + ": not a multiple of 8");
        a.gpus.push_back(static_cast<std::uint32_t>(n));
      }
    } else if (f == "--workloads") {
      a.workloads = split(v);
      for (const std::string& w : a.workloads)
        if (w != "uniform" && w != "zipf1.2" && w != "random") usage(f + " " + w + ": not uniform, zipf1.2 or random");
    } else if (f == "--fast") {
      a.fast = v;
    } else if (f == "--calls") {
      a.calls = static_cast<std::uint32_t>(number(f, v, 1, 100000));
    } else if (f == "--fast-calls") {
      a.fast_calls = static_cast<std::uint32_t>(number(f, v, 1, 100000));
    } else if (f == "--budget-s") {
      a.budget_s = static_cast<double>(number(f, v, 1, 86400));
    } else {
      usage(f + ": unknown option");
    }
  }
  if (a.gpus.empty() || a.workloads.empty()) usage("nothing to run");
  return a;
}

double cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
double wall_s() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// A field of /proc/self/status, in kB (0 when absent).
double status_kb(const char* field) {
  std::ifstream in("/proc/self/status");
  const std::size_t len = std::strlen(field);
  for (std::string line; std::getline(in, line);)
    if (line.compare(0, len, field) == 0 && line.size() > len && line[len] == ':')
      return std::strtod(line.c_str() + len + 1, nullptr);
  return 0.0;
}
std::string loadavg() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

// Reset the peak resident set to the current one; the case's baseline.
double start_peak() {
  std::ofstream("/proc/self/clear_refs") << "5";
  return status_kb("VmRSS");
}
double peak_mb(double base_kb) { return (status_kb("VmHWM") - base_kb) / 1024.0; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// What a case reports to the parent through a pipe (plain data).
struct Result {
  bool ok = false;
  char error[160] = {};
  double warm_s = 0, first_s = 0, init_s = 0, init_kept_s = 0, peak_mb = 0, plan_mb = 0, expected_ms = 0;
  double part_s = 0;  // compact: GPU 0 expanding its part of every step
  std::uint64_t steps = 0, transfers = 0, generated = 0;
  std::uint32_t calls = 0;
};

// Run `body` in a child; its Result, or the reason it has none.
template <class Body>
Result in_child(Body body) {
  int fd[2];
  Result r;
  if (pipe(fd) != 0) {
    std::snprintf(r.error, sizeof r.error, "pipe: %s", std::strerror(errno));
    return r;
  }
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    Result c;
    try {
      c = body();
    } catch (const std::exception& e) {
      std::snprintf(c.error, sizeof c.error, "%s", e.what());
    }
    const ssize_t w = write(fd[1], &c, sizeof c);
    _exit(w == static_cast<ssize_t>(sizeof c) ? 0 : 1);
  }
  close(fd[1]);
  const ssize_t got = pid > 0 ? read(fd[0], &r, sizeof r) : -1;
  close(fd[0]);
  int status = 0;
  if (pid > 0) waitpid(pid, &status, 0);
  if (got != static_cast<ssize_t>(sizeof r)) {
    r = Result{};
    if (pid < 0)
      std::snprintf(r.error, sizeof r.error, "fork: %s", std::strerror(errno));
    else if (WIFSIGNALED(status))
      std::snprintf(r.error, sizeof r.error, "died of signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
      std::snprintf(r.error, sizeof r.error, "exited with %d and no result", WEXITSTATUS(status));
  }
  return r;
}

std::vector<std::uint64_t> demand(std::uint32_t n, const std::string& workload) {
  std::vector<std::uint64_t> d(std::size_t{n} * n, 0);
  if (workload == "uniform") {
    for (std::size_t i = 0; i < d.size(); ++i) d[i] = i % (n + 1) == 0 ? 0 : 1 << 20;
  } else if (workload == "random") {  // FAST's generator: entries uniform in 0..10,000 MB
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<std::uint64_t> mb(0, 10000);
    for (std::size_t i = 0; i < d.size(); ++i) d[i] = i % (n + 1) == 0 ? 0 : mb(rng) * 1000000;
  } else {
    vp::sim::MoeOptions o;
    o.zipf_exponent = 1.2;
    const vp::sim::Demand m = vp::sim::moe_dispatch_demand(n, o);
    for (std::uint32_t s = 0; s < n; ++s)
      for (std::uint32_t t = 0; t < n; ++t)
        d[std::size_t{s} * n + t] = s == t ? 0 : static_cast<std::uint64_t>(m.at(s, t));
  }
  return d;
}

Result ours(const vpcat::CatalogView& view, const std::vector<std::uint64_t>& d, std::uint32_t n, const Args& a,
            bool compact) {
  Result r;
  const double base = start_peak();
  vpcat::PlanOptions o;  // the default plan
  o.compact = compact;
  const vpcat::Demand dem = vpcat::Demand::dense(d.data(), n);
  // init with a DerivedPatterns, which keeps the replay cycle it builds;
  // then a second planner's init, which takes it (a job's next membership,
  // the next planner of a catalog handle).
  vpcat::DerivedPatterns kept;
  double t = cpu_s();
  vpcat::Planner planner;
  if (vpcat::PlanStatus s = planner.init(view, &kept); !s.ok())
    throw std::runtime_error(std::string("init: ") + s.message());
  r.init_s = cpu_s() - t;
  {
    t = cpu_s();
    vpcat::Planner next;
    if (vpcat::PlanStatus s = next.init(view, &kept); !s.ok())
      throw std::runtime_error(std::string("init: ") + s.message());
    r.init_kept_s = cpu_s() - t;
  }
  vpcat::Plan plan;
  t = cpu_s();
  if (vpcat::PlanStatus s = planner.plan(dem, o, plan); !s.ok()) throw std::runtime_error(std::string("plan: ") + s.message());
  r.first_s = cpu_s() - t;
  std::vector<double> warm;
  double spent = 0;
  for (std::uint32_t k = 0; k < a.calls && (k == 0 || spent < a.budget_s); ++k) {
    t = cpu_s();
    if (vpcat::PlanStatus s = planner.plan(dem, o, plan); !s.ok()) throw std::runtime_error(s.message());
    warm.push_back(cpu_s() - t);
    spent += warm.back();
  }
  r.warm_s = median(warm);
  r.calls = static_cast<std::uint32_t>(warm.size());
  r.steps = plan.step_count();
  r.generated = plan.generated_steps();
  r.transfers = plan.transfer_count();
  r.plan_mb = static_cast<double>(plan.transfer_count() * sizeof(vpcat::PlanTransfer) +
                                  plan.step_count() * sizeof(vpcat::PlanStep)) / 1e6;
  r.expected_ms = plan.expected_us() / 1e3;
  if (compact) {  // GPU 0's part of every step, from its own row and column
    std::vector<std::uint64_t> sends(d.begin(), d.begin() + n), receives(n);
    for (std::uint32_t g = 0; g < n; ++g) receives[g] = d[std::size_t{g} * n];
    std::vector<vpcat::PlanTransfer> part(2 * std::size_t{n});
    std::uint64_t got = 0;
    t = cpu_s();
    for (std::size_t i = 0; i < plan.step_count(); ++i)
      got += planner.gpu_transfers(plan, i, 0, sends.data(), receives.data(), part.data(), part.size());
    r.part_s = cpu_s() - t;
    if (got == 0 && plan.step_count() > 0) throw std::runtime_error("GPU 0 has no transfer in the plan");
  }
  r.peak_mb = peak_mb(base);
  r.ok = true;
  return r;
}

// FAST's entry points in libvp_fast_<servers>.so (bench/fast_shim.cpp).
struct FastLib {
  unsigned (*max_servers)() = nullptr;
  void* (*create)(unsigned, unsigned, std::uint64_t*) = nullptr;
  unsigned (*schedule)(void*, std::uint64_t*) = nullptr;
  unsigned (*steps)(void*) = nullptr;
  void (*destroy)(void*) = nullptr;
};

std::string fast_library(const Args& a, std::uint32_t servers) {
  return a.fast + "/libvp_fast_" + std::to_string(servers) + ".so";
}

Result fast(const std::string& path, const std::vector<std::uint64_t>& d, std::uint32_t n, const std::string& workload,
            const Args& a) {
  Result r;
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) throw std::runtime_error(std::string("dlopen: ") + dlerror());
  FastLib f;
  f.max_servers = reinterpret_cast<unsigned (*)()>(dlsym(h, "vp_fast_max_servers"));
  f.create = reinterpret_cast<void* (*)(unsigned, unsigned, std::uint64_t*)>(dlsym(h, "vp_fast_create"));
  f.schedule = reinterpret_cast<unsigned (*)(void*, std::uint64_t*)>(dlsym(h, "vp_fast_schedule"));
  f.steps = reinterpret_cast<unsigned (*)(void*)>(dlsym(h, "vp_fast_steps"));
  f.destroy = reinterpret_cast<void (*)(void*)>(dlsym(h, "vp_fast_destroy"));
  if (!f.max_servers || !f.create || !f.schedule || !f.steps || !f.destroy)
    throw std::runtime_error(path + ": not built by scripts/build_fast_shim.sh (entry points missing)");
  // FAST's unit: tokens of 4,096 bytes, or MB for the random workload.
  const std::uint64_t unit = workload == "random" ? 1000000 : 4096;
  std::vector<std::uint64_t> m(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) m[i] = (d[i] + unit - 1) / unit;
  const double base = start_peak();
  double t = cpu_s();
  void* s = f.create(n / kGpusPerNode, kGpusPerNode, m.data());
  r.first_s = cpu_s() - t;
  if (s == nullptr) throw std::runtime_error(path + ": built for another size");
  std::vector<double> warm;
  double spent = 0;
  for (std::uint32_t k = 0; k < a.fast_calls && (k == 0 || spent < a.budget_s); ++k) {
    t = cpu_s();
    f.schedule(s, m.data());
    warm.push_back(cpu_s() - t);
    spent += warm.back();
  }
  r.warm_s = median(warm);
  r.calls = static_cast<std::uint32_t>(warm.size());
  r.steps = f.steps(s);
  r.peak_mb = peak_mb(base);
  f.destroy(s);
  r.ok = true;
  return r;
}

std::string ms(double s) {
  char b[32];
  const double v = s * 1e3;
  std::snprintf(b, sizeof b, v >= 100 ? "%.0f ms" : v >= 10 ? "%.1f ms" : v >= 1 ? "%.2f ms" : "%.3f ms", v);
  return b;
}
std::string fixed(double v, int digits) {
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

const char* workload_name(const std::string& w) {
  return w == "uniform" ? "uniform 1 MiB" : w == "zipf1.2" ? "MoE Zipf 1.2" : "FAST random";
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  std::printf("# speed_bench: CPU time per call, median of up to %u warm calls (FAST: %u); load average at start %s\n",
              a.calls, a.fast_calls, loadavg().c_str());
  if (a.fast.empty()) std::printf("# FAST: skipped (no --fast folder; scripts/build_fast_shim.sh builds one)\n");
  std::printf(
      "\n| GPUs | workload | ours warm | ours first | first / warm | init | init kept | steps | transfers | plan MB | ours peak MB "
      "| compact warm | compact steps | compact plan MB | compact peak MB | GPU 0's part "
      "| FAST reused | FAST first | FAST steps | FAST peak MB | FAST reused / ours |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const std::uint32_t n : a.gpus) {
    vp::AnalysisRequest req;
    req.input = kFixtures + "/platforms/pcie-gen4-2s4sw8g.json";
    req.nodes = n / kGpusPerNode;
    req.fabric = "single_switch";
    double t = wall_s();
    std::vector<std::uint8_t> bytes;
    try {
      vp::LoadedInput in = vp::load_input(req);
      bytes = vp::catalog::write_catalog(vp::build_catalog(in, req.search, vp::canonical_options(req)));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "speed_bench: building the %u-GPU catalog: %s\n", n, e.what());
      return 1;
    }
    const double build_s = wall_s() - t;
    vpcat::CatalogView view;
    if (vpcat::Status s = vpcat::CatalogView::open(bytes.data(), bytes.size(), &view); !s.ok()) {
      std::fprintf(stderr, "speed_bench: the %u-GPU catalog: %s\n", n, s.message());
      return 1;
    }
    std::fprintf(stderr, "# %u GPUs: catalog built in %.2f s wall (%zu bytes; not counted)\n", n, build_s, bytes.size());
    const std::uint32_t servers = n / kGpusPerNode;
    const std::string lib = a.fast.empty() ? std::string() : fast_library(a, servers);
    const bool have_fast = !lib.empty() && access(lib.c_str(), R_OK) == 0;
    for (const std::string& w : a.workloads) {
      const std::vector<std::uint64_t> d = demand(n, w);
      const Result o = in_child([&] { return ours(view, d, n, a, false); });
      const Result c = in_child([&] { return ours(view, d, n, a, true); });
      std::string row = "| " + std::to_string(n) + " | " + workload_name(w) + " | ";
      if (!o.ok) {
        row += std::string("failed: ") + o.error + " | | | | | | | | |";
      } else {
        row += ms(o.warm_s) + " | " + ms(o.first_s) + " | " + fixed(o.first_s / o.warm_s, 2) + " | " + ms(o.init_s) +
               " | " + ms(o.init_kept_s) + " | " + std::to_string(o.steps) + " | " + std::to_string(o.transfers) + " | " + fixed(o.plan_mb, 1) +
               " | " + fixed(o.peak_mb, 1) + " | ";
      }
      if (!c.ok)
        row += std::string("failed: ") + c.error + " | | | | | ";
      else
        row += ms(c.warm_s) + " | " + std::to_string(c.steps - c.generated) + " listed, " +
               std::to_string(c.generated) + " generated | " + fixed(c.plan_mb, 1) + " | " + fixed(c.peak_mb, 1) +
               " | " + ms(c.part_s) + " | ";
      if (a.fast.empty()) {
        row += "skipped | | | | |";
      } else if (!have_fast) {
        row += "skipped: no " + lib + " | | | | |";
      } else {
        const Result f = in_child([&] { return fast(lib, d, n, w, a); });
        if (!f.ok)
          row += std::string("failed: ") + f.error + " | | | | |";
        else
          row += ms(f.warm_s) + " | " + ms(f.first_s) + " | " + std::to_string(f.steps) + " | " + fixed(f.peak_mb, 1) +
                 " | " + (o.ok ? fixed(f.warm_s / o.warm_s, 2) + "x" : std::string("-")) + " |";
      }
      std::printf("%s\n", row.c_str());
      std::fflush(stdout);
    }
  }
  std::printf("\n# load average at end %s\n", loadavg().c_str());
  return 0;
}
