// Times the simulator on its hardest case: fan-out of 256 GPUs (32 nodes x
// 8 GPUs, "[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", one switch), i.e. 65,280
// concurrent flows, on a uniform demand and on a Zipf-skewed MoE dispatch
// (exponent 1.0, 256 experts so that every pair carries bytes, nearly all
// sizes distinct), exact (epsilon 0), with the default completion epsilon
// and with a coarser one, to show what batching buys and costs. Prints one
// line per case, then the cost of the two bounds (the cut bound and the
// route bound of the direct-route schedulers) on the same demands. Build with -DVP_BUILD_BENCHMARKS=ON; run
// <build>/simulator/sim_bench.
#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <string>

#include "vp/sim/baselines.hpp"
#include "vp/sim/lower_bound.hpp"
#include "vp/sim/route_bound.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/sim/workloads.hpp"
#include "vp/topology/cluster.hpp"
#include "vp/topology/synthetic.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void run(const vp::Topology& t, const std::string& name, const vp::sim::Demand& d, double epsilon) {
  auto start = Clock::now();
  vp::sim::Schedule s = vp::sim::fanout_schedule(t, d);
  double build_s = seconds_since(start);
  vp::sim::SimOptions o;
  o.completion_epsilon = epsilon;
  start = Clock::now();
  std::clock_t cpu_start = std::clock();
  vp::sim::SimResult r = vp::sim::simulate(t, s, o);
  double sim_cpu_s = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  double sim_s = seconds_since(start);
  double bound = vp::sim::lower_bound(t, d).time_us;
  fmt::print("{:<14} eps {:<6g} flows {:>6}  events {:>6}  simulated {:>10.1f} us (bound {:.1f} us, x{:.5f})  "
             "schedule {:.2f} s  simulation {:.2f} s ({:.2f} s CPU)\n",
             name, epsilon, r.transfers, r.events, r.time_us, bound, r.time_us / bound, build_s, sim_s, sim_cpu_s);
}

double cpu_seconds_since(std::clock_t start) { return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC; }

void bounds(const vp::Topology& t, const std::string& name, const vp::sim::Demand& d) {
  std::clock_t start = std::clock();
  const vp::sim::LowerBound graph = vp::sim::lower_bound(t, d);
  const double graph_s = cpu_seconds_since(start);
  start = std::clock();
  const vp::sim::LowerBound route = vp::sim::direct_route_bound(t, d);
  const double route_s = cpu_seconds_since(start);
  fmt::print("{:<14} bound {:.1f} us ({}) in {:.3f} s CPU; route bound {:.1f} us ({}) in {:.3f} s CPU\n", name,
             graph.time_us, graph.cut.name, graph_s, route.time_us, route.cut.name, route_s);
}

}  // namespace

int main() {
  vp::Topology node = vp::make_node_from_shape("[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", {});
  vp::Topology t = vp::expand_cluster(vp::cluster_from_shortcut(node, 32, vp::FabricKind::single_switch, 0, 1.0));
  fmt::print("fan-out on {} GPUs in {} nodes\n", t.gpus.size(), t.nodes.size());
  vp::sim::MoeOptions moe;
  moe.experts = t.gpus.size();
  moe.zipf_exponent = 1.0;
  vp::sim::Demand zipf = vp::sim::moe_dispatch_demand(t.gpus.size(), moe);
  vp::sim::Demand uniform = vp::sim::uniform_demand(t.gpus.size(), 1 << 20);
  for (double eps : {0.0, vp::sim::SimOptions{}.completion_epsilon, 1e-3}) {
    run(t, "uniform 1 MiB", uniform, eps);
    run(t, "MoE Zipf 1.0", zipf, eps);
  }
  bounds(t, "uniform 1 MiB", uniform);
  bounds(t, "MoE Zipf 1.0", zipf);
  return 0;
}
