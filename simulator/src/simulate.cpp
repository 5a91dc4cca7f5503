#include "vp/sim/simulate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

#include "fluid.hpp"
#include "step_problem.hpp"
#include "vp/base/errors.hpp"

namespace vp::sim {

namespace {

// Components whose egress ports arbitrate among ingress ports (port
// arbitration of the contention model).
bool arbitrates(ComponentKind k) {
  return k == ComponentKind::pcie_switch || k == ComponentKind::host_bridge || k == ComponentKind::cpu;
}

[[noreturn]] void bad_flow(std::size_t step, std::size_t flow, const std::string& why) {
  throw InternalError(fmt::format("simulate: step {} flow {}: {}", step, flow, why));
}

// Global GPU index per component id, -1 for other components.
std::vector<int> gpu_indexes(const Topology& t) {
  std::vector<int> index(t.components.size(), -1);
  for (std::size_t i = 0; i < t.gpus.size(); ++i) index[t.gpus[i]] = static_cast<int>(i);
  return index;
}

void check_flow(const Topology& t, const std::vector<int>& gpu, const Flow& f, std::size_t s, std::size_t i) {
  auto is_gpu = [&](ComponentId c) { return c < gpu.size() && gpu[c] >= 0; };
  if (!is_gpu(f.src) || !is_gpu(f.dst) || !is_gpu(f.origin) || !is_gpu(f.final))
    bad_flow(s, i, "src, dst, origin and final must be GPUs of the topology");
  if (!std::isfinite(f.bytes) || f.bytes < 0) bad_flow(s, i, fmt::format("bytes must be finite and >= 0, got {}", f.bytes));
  if (f.route.links.empty()) bad_flow(s, i, "the route has no link");
  ComponentId at = f.src;
  for (LinkId l : f.route.links) {
    if (l >= t.links.size() || t.links[l].src != at)
      bad_flow(s, i, fmt::format("the route does not lead from {} to {}", t.display_name(f.src), t.display_name(f.dst)));
    at = t.links[l].dst;
  }
  if (at != f.dst)
    bad_flow(s, i, fmt::format("the route does not lead from {} to {}", t.display_name(f.src), t.display_name(f.dst)));
  for (auto l = f.route.links.begin(); l != f.route.links.end(); ++l)
    if (std::find(f.route.links.begin(), l, *l) != l) bad_flow(s, i, "the route crosses a link twice");
  for (ComponentId c : f.route.forwarders) {
    if (c >= t.components.size() || !t.components[c].forward)
      bad_flow(s, i, "a listed forwarder has no forwarding capacity");
  }
}

// A step's transfers: flows merged by (src, dst, route), resources
// numbered compactly (links first seen first, forwarders likewise). One
// problem holds one step (build) or several (append each, then finish).
class StepBuilder {
 public:
  StepBuilder(const Topology& t, const ContentionModel& m)
      : t_(t), model_(m), resource_of_(t.links.size() + t.components.size(), kNone) {}

  // Per transfer of the problem last built or appended to: the GPU index
  // of its dst when one of its flows delivers there (dst is the flow's
  // final), else -1; the GPU indexes of its src and dst.
  const std::vector<int>& delivers_to() const { return delivers_to_; }
  const std::vector<std::uint32_t>& src() const { return src_; }
  const std::vector<std::uint32_t>& dst() const { return dst_; }

  detail::FluidProblem build(const Step& step, const std::vector<int>& gpu) {
    detail::FluidProblem p;
    delivers_to_.clear();
    src_.clear();
    dst_.clear();
    append(p, step, gpu);
    finish(p);
    return p;
  }

  // Add the transfers of `step` to p (resources shared with the steps
  // appended before).
  void append(detail::FluidProblem& p, const Step& step, const std::vector<int>& gpu) {
    std::unordered_map<std::uint64_t, std::vector<std::size_t>> by_pair;  // -> transfer indexes
    std::vector<const Route*> route_of(p.transfers(), nullptr);
    std::vector<std::uint32_t> res, ports;
    for (const Flow& f : step.flows) {
      if (f.bytes <= 0) continue;
      const int delivers = f.dst == f.final && f.origin != f.final ? gpu[f.dst] : -1;
      auto& same = by_pair[(std::uint64_t{f.src} << 32) | f.dst];
      bool merged = false;
      for (std::size_t k : same) {
        if (route_of[k]->links == f.route.links && route_of[k]->forwarders == f.route.forwarders) {
          p.bytes[k] += f.bytes;
          if (delivers >= 0) delivers_to_[k] = delivers;
          merged = true;
          break;
        }
      }
      if (merged) continue;
      same.push_back(p.transfers());
      route_of.push_back(&f.route);
      delivers_to_.push_back(delivers);
      src_.push_back(static_cast<std::uint32_t>(gpu[f.src]));
      dst_.push_back(static_cast<std::uint32_t>(gpu[f.dst]));
      res.clear();
      for (LinkId l : f.route.links) res.push_back(resource(p, l, t_.links[l].capacity.gbps));
      auto forwarder = [&](ComponentId c) {
        auto r = resource(p, static_cast<std::uint32_t>(t_.links.size() + c), t_.components[c].forward->gbps);
        if (std::find(res.begin(), res.end(), r) == res.end()) res.push_back(r);
      };
      for (ComponentId c : f.route.forwarders) forwarder(c);
      // Every transited component with a forwarding capacity is charged,
      // listed or not (the bound counts them all): a route that forgets one
      // gains nothing.
      for (std::size_t i = 0; i + 1 < f.route.links.size(); ++i) {
        const ComponentId mid = t_.links[f.route.links[i]].dst;
        if (t_.components[mid].forward) forwarder(mid);
      }
      if (model_.enabled && model_.port_arbitration) {
        // A link leaving a PCIe switch, host bridge or socket is an egress
        // port arbitrated among the ingress ports: its ports are the links
        // the transfers arrive on (res holds the route's links first, in order).
        ports.assign(res.size(), detail::kNoPort);
        for (std::size_t i = 1; i < f.route.links.size(); ++i)
          if (arbitrates(t_.components[t_.links[f.route.links[i]].src].kind)) ports[i] = res[i - 1];
        p.add_transfer(f.bytes, res, ports);
      } else {
        p.add_transfer(f.bytes, res);
      }
    }
  }

  // Close p: its resources' contention curves; the numbering starts afresh.
  void finish(detail::FluidProblem& p) {
    for (std::uint32_t key : used_) resource_of_[key] = kNone;
    if (model_.enabled) {
      p.degradation.resize(p.capacity.size());
      for (std::size_t r = 0; r < used_.size(); ++r) p.degradation[r] = degradation(used_[r], p.capacity[r]);
    }
    used_.clear();
  }

 private:
  std::uint32_t resource(detail::FluidProblem& p, std::uint32_t key, double gbps) {
    if (resource_of_[key] == kNone) {
      resource_of_[key] = static_cast<std::uint32_t>(p.capacity.size());
      p.capacity.push_back(gbps * 1e3);  // GB/s -> bytes per microsecond
      used_.push_back(key);
    }
    return resource_of_[key];
  }

  // The contention model's curve for resource `key` (a link id, or links +
  // a component id) of `capacity` bytes per microsecond.
  detail::Degradation degradation(std::uint32_t key, double capacity) const {
    detail::Degradation g;
    const EfficiencyCurve curve = key >= t_.links.size()
                                      ? forwarder_curve(t_, model_, static_cast<ComponentId>(key - t_.links.size()))
                                      : link_curve(t_, model_, static_cast<LinkId>(key));
    if (curve.on) g.slope = curve.slope, g.floor = curve.floor;
    g.chunk_factor = chunk_factor(model_, capacity);
    return g;
  }

  const Topology& t_;
  const ContentionModel& model_;
  std::vector<std::uint32_t> resource_of_;  // link id, or links + component id -> resource
  std::vector<std::uint32_t> used_;         // the keys numbered, in resource order
  std::vector<int> delivers_to_;
  std::vector<std::uint32_t> src_, dst_;
};

// When the transfers of a whole schedule start, as the executor runs them
// (mpi/src/exec.cpp): each rank goes through the steps it takes part in, in
// order, posting a step's sends and receives once all its transfers of its
// earlier steps have finished (it waits for both). A transfer starts, after
// the latency, once both its ranks have reached its step. A small message
// (SimOptions::eager) is not waited for by its sender, and with
// EagerMode::eager starts once its sender has reached its step.
class RankStarts : public detail::Starts {
 public:
  // Per transfer: its step, its ranks (GPU indexes of src and dst) and
  // whether it is a small message.
  RankStarts(std::size_t ranks, const std::vector<std::uint32_t>& step, const std::vector<std::uint32_t>& src,
             const std::vector<std::uint32_t>& dst, const std::vector<char>& small, EagerMode eager, double latency_us)
      : step_(step), src_(src), dst_(dst), small_(small), eager_(eager), latency_(latency_us), slots_(ranks),
        cursor_(ranks, 0), finish_(ranks, 0.0), start_(step.size(), 0.0), posted_(step.size(), 0),
        slot_of_(step.size(), {kNoSlot, kNoSlot}) {
    // Transfers are numbered in step order, so each rank's slots are too.
    for (std::uint32_t k = 0; k < step.size(); ++k) {
      for (int end = 0; end < 2; ++end) {
        const std::uint32_t r = end == 0 ? src[k] : dst[k];
        if (end == 1 && r == src[k]) continue;  // src == dst: one slot entry
        auto& v = slots_[r];
        if (v.empty() || v.back().step != step[k]) v.push_back({step[k], 0, {}});
        v.back().transfers.push_back(k);
        if (end == 0 && waits_sender_not(k)) continue;  // the sender does not wait for a small message
        ++v.back().remaining;
        slot_of_[k][end] = static_cast<std::uint32_t>(v.size() - 1);
      }
    }
  }

  // Per rank: when its last transfer finished (0 for a rank without any).
  const std::vector<double>& rank_finish() const { return finish_; }

  // When transfer k started (the latency included); 0 if it has not.
  double started_at(std::uint32_t k) const { return start_[k]; }

  void first(std::vector<detail::Start>& out) override {
    const std::size_t from = out.size();
    for (std::uint32_t r = 0; r < slots_.size(); ++r) enter(r, 0.0, out);
    // In transfer order, as the engine has always been given them.
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(from), out.end(),
              [](const detail::Start& a, const detail::Start& b) { return a.transfer < b.transfer; });
  }

  void finished(const std::vector<std::uint32_t>& done, double now, std::vector<detail::Start>& out) override {
    for (std::uint32_t k : done) {
      for (int end = 0; end < 2; ++end) {
        const std::uint32_t r = end == 0 ? src_[k] : dst_[k];
        finish_[r] = std::max(finish_[r], now);
        const std::uint32_t slot = slot_of_[k][end];
        if (slot == kNoSlot) continue;  // not waited for at this end
        // With early starts a receive can finish before its rank reaches
        // the step: its slot is then passed through on arrival.
        if (--slots_[r][slot].remaining == 0 && slot == cursor_[r]) {
          ++cursor_[r];
          enter(r, now, out);
        }
      }
    }
  }

 private:
  struct Slot {
    std::uint32_t step, remaining;
    std::vector<std::uint32_t> transfers;
  };
  static constexpr std::uint32_t kDone = 0xFFFFFFFFu;
  static constexpr std::uint32_t kNoSlot = 0xFFFFFFFFu;

  bool waits_sender_not(std::uint32_t k) const { return small_[k] && eager_ != EagerMode::off && src_[k] != dst_[k]; }

  std::uint32_t current(std::uint32_t r) const { return cursor_[r] < slots_[r].size() ? slots_[r][cursor_[r]].step : kDone; }
  // Rank r is at step s or past it (ranks take their steps in order).
  bool reached(std::uint32_t r, std::uint32_t s) const { return current(r) >= s; }

  // Rank r is at its current slot from `now`: post its transfers whose
  // ranks are ready, and pass through the slot while it waits for nothing.
  void enter(std::uint32_t r, double now, std::vector<detail::Start>& out) {
    while (cursor_[r] < slots_[r].size()) {
      const Slot& slot = slots_[r][cursor_[r]];
      for (std::uint32_t k : slot.transfers) {
        if (posted_[k]) continue;
        const bool early = waits_sender_not(k) && eager_ == EagerMode::eager;
        if (reached(src_[k], step_[k]) && (early || reached(dst_[k], step_[k]))) post(k, now, out);
      }
      if (slot.remaining > 0) return;
      ++cursor_[r];
    }
  }

  void post(std::uint32_t k, double now, std::vector<detail::Start>& out) {
    posted_[k] = 1;
    start_[k] = now + latency_;
    out.push_back({start_[k], k});
  }

  const std::vector<std::uint32_t>&step_, &src_, &dst_;
  const std::vector<char>& small_;
  EagerMode eager_;
  double latency_;
  std::vector<std::vector<Slot>> slots_;
  std::vector<std::size_t> cursor_;
  std::vector<double> finish_, start_;
  std::vector<char> posted_;
  std::vector<std::array<std::uint32_t, 2>> slot_of_;  // per transfer: its slot at src, at dst (kNoSlot: not waited for)
};

// Per transfer: whether its pair's bytes in its step (summed over routes:
// the executor sends one message per peer and step) are below `limit`.
std::vector<char> small_messages(const detail::FluidProblem& p, const std::vector<std::uint32_t>& step,
                                 const std::vector<std::uint32_t>& src, const std::vector<std::uint32_t>& dst,
                                 double limit) {
  std::unordered_map<std::uint64_t, double> pair_bytes;  // (src, dst) of the current step
  std::vector<char> small(p.transfers(), 0);
  for (std::size_t a = 0; a < p.transfers();) {
    std::size_t end = a;
    while (end < p.transfers() && step[end] == step[a]) ++end;
    pair_bytes.clear();
    for (std::size_t k = a; k < end; ++k) pair_bytes[(std::uint64_t{src[k]} << 32) | dst[k]] += p.bytes[k];
    for (std::size_t k = a; k < end; ++k) small[k] = pair_bytes[(std::uint64_t{src[k]} << 32) | dst[k]] < limit;
    a = end;
  }
  return small;
}

}  // namespace

namespace detail {
FluidProblem step_problem(const Topology& t, const Step& step, const ContentionModel& m) {
  return StepBuilder(t, m).build(step, gpu_indexes(t));
}
}  // namespace detail

EfficiencyCurve link_curve(const Topology& t, const ContentionModel& m, LinkId link) {
  const Link& l = t.links.at(link);
  const bool nic_end = t.components[l.src].kind == ComponentKind::nic || t.components[l.dst].kind == ComponentKind::nic;
  if (l.kind == LinkKind::network && nic_end) return m.nic;
  if (m.reads && t.components[l.src].kind == ComponentKind::gpu) return m.endpoint;
  return EfficiencyCurve{};
}

EfficiencyCurve forwarder_curve(const Topology& t, const ContentionModel& m, ComponentId forwarder) {
  // The CPU family curve: by the model of the forwarder's socket (itself, or
  // the cpu its parents lead to).
  if (!m.forwarder_families.empty()) {
    ComponentId c = forwarder;
    for (std::size_t steps = 0; c != kNone && t.components[c].kind != ComponentKind::cpu && steps < t.components.size(); ++steps)
      c = t.components[c].parent;
    if (c != kNone && t.components[c].kind == ComponentKind::cpu)
      for (const FamilyCurve& f : m.forwarder_families)
        if (t.components[c].model.find(f.match) != std::string::npos) return EfficiencyCurve{m.forwarder.on, f.slope, f.floor};
  }
  return m.forwarder;
}

double chunk_factor(const ContentionModel& m, double capacity_bytes_per_us) {
  return m.chunk_on ? m.chunk_bytes / (m.chunk_bytes + m.chunk_overhead_us * capacity_bytes_per_us) : 1.0;
}

void check_contention_model(const ContentionModel& m) {
  auto curve = [](const EfficiencyCurve& c, const char* name) {
    if (!(c.slope >= 0) || !std::isfinite(c.slope))
      throw UsageError(fmt::format("contention: {}.slope must be finite and >= 0, got {}", name, c.slope));
    if (!(c.floor > 0 && c.floor <= 1))
      throw UsageError(fmt::format("contention: {}.floor must be in (0, 1], got {}", name, c.floor));
  };
  curve(m.forwarder, "forwarder");
  for (const FamilyCurve& f : m.forwarder_families) {
    if (f.match.empty()) throw UsageError("contention: forwarder.families: a family needs a non-empty match");
    curve(EfficiencyCurve{true, f.slope, f.floor}, ("forwarder.families[" + f.match + "]").c_str());
  }
  curve(m.nic, "nic");
  curve(m.endpoint, "endpoint");
  if (!(m.chunk_bytes > 0) || !std::isfinite(m.chunk_bytes))
    throw UsageError(fmt::format("contention: chunk.bytes must be finite and > 0, got {}", m.chunk_bytes));
  if (!(m.chunk_overhead_us >= 0) || !std::isfinite(m.chunk_overhead_us))
    throw UsageError(
        fmt::format("contention: chunk.overhead_us must be finite and >= 0, got {}", m.chunk_overhead_us));
}

namespace {

// Every step after the previous one has finished everywhere.
void run_barrier(const Topology& t, const Schedule& schedule, const SimOptions& opts, const std::vector<int>& gpu,
                 SimResult& result) {
  StepBuilder builder(t, opts.contention);
  for (std::size_t s = 0; s < schedule.steps.size(); ++s) {
    const Step& step = schedule.steps[s];
    detail::FluidProblem p = builder.build(step, gpu);
    const detail::FluidOutcome o = p.port.empty() ? detail::run_fluid(p, opts.completion_epsilon)
                                                  : detail::run_fluid_arbitrated(p, opts.completion_epsilon);
    for (std::size_t k = 0; k < p.transfers(); ++k) {
      const double end = result.time_us + opts.latency_us + o.finish_us[k];
      if (const int g = builder.delivers_to()[k]; g >= 0) result.arrival_us[g] = std::max(result.arrival_us[g], end);
      for (std::uint32_t r : {builder.src()[k], builder.dst()[k]})
        result.rank_finish_us[r] = std::max(result.rank_finish_us[r], end);
    }
    double step_us = step.flows.empty() ? 0.0 : opts.latency_us + o.makespan_us;
    result.step_us.push_back(step_us);
    result.time_us += step_us;
    result.transfers += p.transfers();
    result.events += o.events;
    result.unsettled_events += o.unsettled;
  }
}

// The whole schedule as one problem, each transfer starting when its two
// ranks have finished their earlier steps (RankStarts).
void run_rank(const Topology& t, const Schedule& schedule, const SimOptions& opts, const std::vector<int>& gpu,
              SimResult& result) {
  StepBuilder builder(t, opts.contention);
  detail::FluidProblem p;
  std::vector<std::uint32_t> step_of;
  for (std::size_t s = 0; s < schedule.steps.size(); ++s) {
    builder.append(p, schedule.steps[s], gpu);
    step_of.resize(p.transfers(), static_cast<std::uint32_t>(s));
  }
  builder.finish(p);
  const std::vector<char> small = small_messages(p, step_of, builder.src(), builder.dst(), opts.eager_bytes);
  RankStarts starts(t.gpus.size(), step_of, builder.src(), builder.dst(), small, opts.eager, opts.latency_us);
  const detail::FluidOutcome o = p.port.empty() ? detail::run_fluid(p, opts.completion_epsilon, starts)
                                                : detail::run_fluid_arbitrated(p, opts.completion_epsilon, starts);
  // A step spans from its first post (its first start less the latency) to
  // its last completion.
  constexpr double kNever = std::numeric_limits<double>::infinity();
  std::vector<double> first(schedule.steps.size(), kNever), last(schedule.steps.size(), 0.0);
  for (std::uint32_t k = 0; k < p.transfers(); ++k) {
    const std::uint32_t s = step_of[k];
    first[s] = std::min(first[s], starts.started_at(k) - opts.latency_us);
    last[s] = std::max(last[s], o.finish_us[k]);
    if (const int g = builder.delivers_to()[k]; g >= 0)
      result.arrival_us[g] = std::max(result.arrival_us[g], o.finish_us[k]);
  }
  for (std::size_t s = 0; s < schedule.steps.size(); ++s) result.step_us.push_back(first[s] < kNever ? last[s] - first[s] : 0.0);
  result.time_us = o.makespan_us;
  result.rank_finish_us = starts.rank_finish();
  result.transfers = p.transfers();
  result.events = o.events;
  result.unsettled_events = o.unsettled;
}

}  // namespace

SimResult simulate(const Topology& t, const Schedule& schedule, const SimOptions& opts) {
  if (!(opts.latency_us >= 0) || !std::isfinite(opts.latency_us))
    throw UsageError(fmt::format("simulate: latency_us must be finite and >= 0, got {}", opts.latency_us));
  if (!(opts.completion_epsilon >= 0 && opts.completion_epsilon <= 1e-2))
    throw UsageError(
        fmt::format("simulate: completion_epsilon must be in [0, 1e-2], got {}", opts.completion_epsilon));
  if (opts.sync != SyncMode::rank && opts.sync != SyncMode::barrier)
    throw UsageError("simulate: sync must be rank or barrier");
  if (opts.eager != EagerMode::off && opts.eager != EagerMode::detached && opts.eager != EagerMode::eager)
    throw UsageError("simulate: eager must be off, detached or eager");
  if (!(opts.eager_bytes >= 0) || !std::isfinite(opts.eager_bytes))
    throw UsageError(fmt::format("simulate: eager_bytes must be finite and >= 0, got {}", opts.eager_bytes));
  const std::vector<int> gpu = gpu_indexes(t);
  SimResult result;
  result.delivered = Demand(t.gpus.size());
  result.arrival_us.assign(t.gpus.size(), 0.0);
  result.rank_finish_us.assign(t.gpus.size(), 0.0);
  check_contention_model(opts.contention);
  for (std::size_t s = 0; s < schedule.steps.size(); ++s) {
    const Step& step = schedule.steps[s];
    for (std::size_t i = 0; i < step.flows.size(); ++i) {
      const Flow& f = step.flows[i];
      check_flow(t, gpu, f, s, i);
      if (f.dst == f.final && f.origin != f.final)
        result.delivered.add(static_cast<std::size_t>(gpu[f.origin]), static_cast<std::size_t>(gpu[f.final]), f.bytes);
    }
  }
  if (opts.sync == SyncMode::barrier) run_barrier(t, schedule, opts, gpu, result);
  else run_rank(t, schedule, opts, gpu, result);
  return result;
}

}  // namespace vp::sim
