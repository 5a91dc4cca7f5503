#include "vp/sim/check_schedule.hpp"

#include <fmt/format.h>

#include <cmath>
#include <unordered_map>

namespace vp::sim {

namespace {

class Ledger {
 public:
  Ledger(const Topology& t, const Demand& d, double rel_tol) : t_(t), d_(d), tol_(rel_tol), gpu_(t.components.size(), -1) {
    for (std::size_t i = 0; i < t.gpus.size(); ++i) gpu_[t.gpus[i]] = static_cast<std::int64_t>(i);
    const std::size_t n = d.size();
    for (std::size_t o = 0; o < n; ++o)
      for (std::size_t f = 0; f < n; ++f)
        if (o != f && d.at(o, f) > 0) held_[key(o, o, f)] = d.at(o, f);
  }

  std::string apply(const Step& step, std::size_t s) {
    std::unordered_map<std::uint64_t, double> arriving;
    for (const Flow& fl : step.flows) {
      auto src = index(fl.src), dst = index(fl.dst), o = index(fl.origin), f = index(fl.final);
      if (src < 0 || dst < 0 || o < 0 || f < 0) return fmt::format("step {}: a flow has an endpoint that is not a GPU", s);
      if (o == f) return fmt::format("step {}: a flow carries {}'s bytes for itself", s, t_.display_name(fl.origin));
      double& have = held_[key(src, o, f)];
      if (fl.bytes > have + slack(o, f))
        return fmt::format("step {}: {} sends {:g} bytes of {} -> {} it does not hold (holds {:g})", s,
                           t_.display_name(fl.src), fl.bytes, t_.display_name(fl.origin), t_.display_name(fl.final), have);
      have -= fl.bytes;
      arriving[key(dst, o, f)] += fl.bytes;
    }
    for (const auto& [k, bytes] : arriving) held_[k] += bytes;
    return {};
  }

  std::string final_state() const {
    const std::size_t n = d_.size();
    for (const auto& [k, bytes] : held_) {
      std::size_t holder = k / (n * n), o = (k / n) % n, f = k % n;
      double want = holder == f ? d_.at(o, f) : 0.0;
      if (std::abs(bytes - want) > slack(static_cast<std::int64_t>(o), static_cast<std::int64_t>(f)))
        return fmt::format("at the end {} holds {:g} bytes of {} -> {}, expected {:g}", t_.display_name(t_.gpus[holder]),
                           bytes, t_.display_name(t_.gpus[o]), t_.display_name(t_.gpus[f]), want);
    }
    for (std::size_t o = 0; o < n; ++o)
      for (std::size_t f = 0; f < n; ++f)
        if (o != f && d_.at(o, f) > 0 && !held_.count(key(f, o, f)))
          return fmt::format("at the end {} -> {} was never delivered ({:g} bytes)", t_.display_name(t_.gpus[o]),
                             t_.display_name(t_.gpus[f]), d_.at(o, f));
    return {};
  }

 private:
  std::int64_t index(ComponentId c) const { return c < gpu_.size() ? gpu_[c] : -1; }
  std::uint64_t key(std::uint64_t holder, std::uint64_t o, std::uint64_t f) const {
    const std::uint64_t n = d_.size();
    return (holder * n + o) * n + f;
  }
  double slack(std::int64_t o, std::int64_t f) const {
    return tol_ * std::max(1.0, d_.at(static_cast<std::size_t>(o), static_cast<std::size_t>(f)));
  }

  const Topology& t_;
  const Demand& d_;
  double tol_;
  std::vector<std::int64_t> gpu_;
  std::unordered_map<std::uint64_t, double> held_;  // (holder, origin, final) -> bytes
};

}  // namespace

ScheduleCheck check_schedule(const Topology& t, const Demand& demand, const Schedule& schedule, double rel_tol) {
  demand.check_fits(t, "demand");
  Ledger ledger(t, demand, rel_tol);
  for (std::size_t s = 0; s < schedule.steps.size(); ++s) {
    if (std::string why = ledger.apply(schedule.steps[s], s); !why.empty()) return {false, why};
  }
  if (std::string why = ledger.final_state(); !why.empty()) return {false, why};
  return {};
}

}  // namespace vp::sim
