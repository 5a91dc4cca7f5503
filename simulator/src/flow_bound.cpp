#include "vp/sim/flow_bound.hpp"

#include <coin/Clp_C_Interface.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "idle_nics.hpp"
#include "vp/base/errors.hpp"

namespace vp::sim {

namespace {

constexpr int kNoRow = -1;
// No bound, as CLP reads it (its COIN_DBL_MAX).
constexpr double kUnbounded = std::numeric_limits<double>::max();

// The program in CLP's column-major form (docs in flow_bound.hpp). Column 0
// is the scaled time tau; then, per source, one column per usable link.
// Rows: per source, one conservation row per component it does not start
// at; one capacity row per usable link; one per forwarder.
struct Program {
  std::vector<CoinBigIndex> start{0};
  std::vector<int> index;
  std::vector<double> value;
  std::vector<double> row_lower, row_upper;

  int add_row(double lower, double upper) {
    row_lower.push_back(lower);
    row_upper.push_back(upper);
    return static_cast<int>(row_lower.size()) - 1;
  }
  void entry(int row, double v) {
    if (row == kNoRow) return;
    index.push_back(row);
    value.push_back(v);
  }
  void end_column() { start.push_back(static_cast<CoinBigIndex>(index.size())); }
  int columns() const { return static_cast<int>(start.size()) - 1; }
  int rows() const { return static_cast<int>(row_lower.size()); }
};

// Whether some pair with bytes has no path over the usable links.
bool unreachable_pair(const Topology& t, const Demand& demand, const std::vector<LinkId>& links) {
  std::vector<std::vector<ComponentId>> out(t.components.size());
  for (LinkId l : links) out[t.links[l].src].push_back(t.links[l].dst);
  const std::size_t n = t.gpus.size();
  for (std::size_t s = 0; s < n; ++s) {
    if (!(demand.row_sum(s) > 0)) continue;
    std::vector<char> seen(t.components.size(), 0);
    std::vector<ComponentId> stack{t.gpus[s]};
    seen[t.gpus[s]] = 1;
    while (!stack.empty()) {
      const ComponentId v = stack.back();
      stack.pop_back();
      for (ComponentId w : out[v])
        if (!seen[w]) seen[w] = 1, stack.push_back(w);
    }
    for (std::size_t d = 0; d < n; ++d)
      if (d != s && demand.at(s, d) > 0 && !seen[t.gpus[d]]) return true;
  }
  return false;
}

struct ClpDeleter {
  void operator()(Clp_Simplex* m) const { Clp_deleteModel(m); }
};

}  // namespace

FlowBound flow_bound(const Topology& t, const Demand& demand, const BoundOptions& opts) {
  demand.check_fits(t, "demand");
  if (!std::isfinite(opts.latency_us) || opts.latency_us < 0)
    throw UsageError(fmt::format("flow_bound: latency_us must be finite and >= 0, got {}", opts.latency_us));
  const std::size_t n = t.gpus.size();
  if (n > kFlowBoundMaxGpus)
    throw UsageError(
        fmt::format("flow_bound: {} GPUs, more than the {} this linear program is offered for", n, kFlowBoundMaxGpus));

  // Byte and rate scales, so that the program's coefficients are near 1.
  double unit = 0.0;
  std::vector<std::size_t> sources;
  for (std::size_t s = 0; s < n; ++s) {
    if (demand.row_sum(s) > 0) sources.push_back(s);
    for (std::size_t d = 0; d < n; ++d)
      if (d != s) unit = std::max(unit, demand.at(s, d));
  }
  FlowBound out;
  if (sources.empty()) return out;

  const std::vector<char> idle = detail::idle_nics(t);
  std::vector<LinkId> links;  // the usable links
  double rate = 0.0;          // largest capacity, GB/s
  for (LinkId l = 0; l < t.links.size(); ++l) {
    if (idle[t.links[l].src] || idle[t.links[l].dst]) continue;
    links.push_back(l);
    rate = std::max(rate, t.links[l].capacity.gbps);
  }
  std::vector<ComponentId> forwarders;
  for (const Component& c : t.components)
    if (detail::bounded_forwarder(c) && !idle[c.id])
      forwarders.push_back(c.id), rate = std::max(rate, c.forward->gbps);
  if (!(rate > 0)) {  // nothing can carry a byte
    out.time_us = std::numeric_limits<double>::infinity();
    return out;
  }
  std::vector<int> gpu_of(t.components.size(), -1);
  for (std::size_t g = 0; g < n; ++g) gpu_of[t.gpus[g]] = static_cast<int>(g);

  Program p;
  // Conservation rows: row[k][c] for source k at component c.
  std::vector<std::vector<int>> conservation(sources.size(), std::vector<int>(t.components.size(), kNoRow));
  for (std::size_t k = 0; k < sources.size(); ++k) {
    for (const Component& c : t.components) {
      if (idle[c.id] || c.id == t.gpus[sources[k]]) continue;
      const double absorbed = gpu_of[c.id] >= 0 ? demand.at(sources[k], static_cast<std::size_t>(gpu_of[c.id])) / unit : 0.0;
      conservation[k][c.id] = p.add_row(absorbed, absorbed);
    }
  }
  std::vector<int> capacity_row(t.links.size(), kNoRow), forward_row(t.components.size(), kNoRow);
  for (LinkId l : links) capacity_row[l] = p.add_row(-kUnbounded, 0.0);
  for (ComponentId x : forwarders) forward_row[x] = p.add_row(-kUnbounded, 0.0);  // all it receives is transit

  // Column 0, tau: T = tau x unit / (rate x 1e3) microseconds.
  for (LinkId l : links) p.entry(capacity_row[l], -t.links[l].capacity.gbps / rate);
  for (ComponentId x : forwarders) p.entry(forward_row[x], -t.components[x].forward->gbps / rate);
  p.end_column();
  for (std::size_t k = 0; k < sources.size(); ++k) {
    for (LinkId l : links) {
      p.entry(conservation[k][t.links[l].src], -1.0);  // leaves its source end
      p.entry(conservation[k][t.links[l].dst], 1.0);   // enters its far end
      p.entry(capacity_row[l], 1.0);
      p.entry(forward_row[t.links[l].dst], 1.0);
      p.end_column();
    }
  }
  out.variables = static_cast<std::size_t>(p.columns());
  out.constraints = static_cast<std::size_t>(p.rows());

  std::vector<double> col_lower(out.variables, 0.0), col_upper(out.variables, kUnbounded),
      objective(out.variables, 0.0);
  objective[0] = 1.0;
  std::unique_ptr<Clp_Simplex, ClpDeleter> model(Clp_newModel());
  if (!model) throw InternalError("flow_bound: the LP solver could not create a model");
  Clp_setLogLevel(model.get(), 0);
  Clp_loadProblem(model.get(), p.columns(), p.rows(), p.start.data(), p.index.data(), p.value.data(),
                  col_lower.data(), col_upper.data(), objective.data(), p.row_lower.data(), p.row_upper.data());
  Clp_setOptimizationDirection(model.get(), 1.0);  // minimise
  Clp_initialSolve(model.get());
  const int status = Clp_status(model.get());
  if (status == 1) {  // primal infeasible: some bytes must have no path
    if (!unreachable_pair(t, demand, links))
      throw InternalError(fmt::format(
          "flow_bound: the LP solver reports the program infeasible on {} columns x {} rows, but every pair "
          "with bytes has a path",
          p.columns(), p.rows()));
    out.time_us = std::numeric_limits<double>::infinity();
    return out;
  }
  if (status != 0)
    throw InternalError(fmt::format("flow_bound: the LP solver stopped with status {} on {} columns x {} rows",
                                         status, p.columns(), p.rows()));
  const double tau = Clp_getColSolution(model.get())[0];
  out.time_us = tau * unit / (rate * 1e3) + opts.latency_us;

  // The fractional cut: dual price x capacity per resource, in the units
  // of tau's column. Their sum is tau's objective coefficient, 1, by
  // duality (not renormalised: tests/sim_flow_bound_test.cpp checks it).
  const double* dual = Clp_dualRowSolution(model.get());
  std::vector<FlowBoundShare> shares;
  auto share = [&](int row, double gbps, auto name) {
    const double w = std::abs(dual[row]) * gbps / rate;
    if (!(w > 1e-9)) return;
    shares.push_back({name(), w});
  };
  for (LinkId l : links)
    share(capacity_row[l], t.links[l].capacity.gbps,
          [&] { return t.display_name(t.links[l].src) + " -> " + t.display_name(t.links[l].dst) + " link"; });
  for (ComponentId x : forwarders)
    share(forward_row[x], t.components[x].forward->gbps, [&] { return t.display_name(x) + " forwarding"; });
  std::stable_sort(shares.begin(), shares.end(),
                   [](const FlowBoundShare& a, const FlowBoundShare& b) { return a.share > b.share; });
  if (shares.size() > 8) shares.resize(8);
  out.binding = std::move(shares);
  return out;
}

}  // namespace vp::sim
