// Port arbitration (contention.hpp): a resource with ports shares its
// capacity max-min among its ingress ports first, then each port's share
// max-min among that port's transfers, as a PCIe switch or root port
// arbitrates an egress port among its ingress ports (round robin by default)
// before the packets of one ingress port, which leave in their arrival order.
//
// Two-level max-min has no progressive filling of its own (a transfer's
// share at a port depends on how many transfers use that port, which differs
// from resource to resource), so it is computed as a fixed point. Each port
// of an arbitrating resource r gets a virtual resource that its transfers
// use besides their real ones; all ports of r are capped at one level L_r.
// A round: progressive filling (per-transfer max-min) under the caps; then
// each r computes the level it should have: the equal share of its limited
// ports (those with a transfer frozen at r or at the port's cap and held by
// no other saturated resource) once the other ports have what they carry.
// L_r moves towards it; when the target turns back (it jumps where a port
// turns limited or not) the step halves, so L_r closes in on such a point
// as a bisection does, and grows again while the target keeps its side. A
// round whose targets all agree with the caps (to kSettled of r's capacity)
// is the answer: each port limited at r gets L_r, at least what any other
// port carries, and inside a port the filling is per-transfer max-min --
// the two-level allocation. Convergence is not proven: an event still
// moving after kMaxRounds keeps its last rates, which are feasible (caps
// only restrict the filling) but not exactly port-fair, and
// FluidOutcome::unsettled counts it. A resource whose transfers' solo rates
// fit its capacity arbitrates nothing (its ports are uncapped), so a step
// contention-free at solo rates is the per-transfer filling.
//
// Cost per event: rounds x one filling of all active transfers (no
// incremental region as in fluid.cpp): sized for the contention model's
// sweeps, not for the ideal model's largest cases.
#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <stdexcept>
#include <unordered_map>

#include "fluid.hpp"
#include "vp/base/errors.hpp"

namespace vp::sim::detail {

namespace {

constexpr double kTol = kRateTolerance;
constexpr int kMaxRounds = 40;
// A round whose target levels all lie within this fraction of their
// resource's capacity of the caps has settled.
constexpr double kSettled = 1e-4;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint32_t kNone = 0xFFFFFFFFu;

struct Keyed {
  double key;
  bool virtual_resource;  // at equal keys a real resource freezes first
  std::uint32_t res;
  bool operator>(const Keyed& o) const {
    if (key != o.key) return key > o.key;
    return virtual_resource > o.virtual_resource;
  }
};

class Arbitrated {
 public:
  // starts: nullptr, every transfer starts at 0; else they start as it says.
  Arbitrated(const FluidProblem& p, Starts* starts);
  FluidOutcome run(double epsilon);
  // The rates of the first event.
  ArbitratedRates first_rates() {
    FluidOutcome out;
    settle(out);
    return {rate_, out.unsettled == 0};
  }

 private:
  // One resource with two or more ports; its ports are the virtual
  // resources nr_ + first .. nr_ + last - 1.
  struct Arbiter {
    std::uint32_t resource, first, last;
    double cap = 0.0;       // of each of its ports
    double step = 1.0;      // fraction of the way to its new level a round moves the cap
    int direction = 0;      // of the last move: +1 up, -1 down
  };
  // Oversubscribed at solo rates: only then does it arbitrate.
  bool arbitrating(const Arbiter& a) const { return solo_sum_[a.resource] > p_.capacity[a.resource] * (1.0 + kTol); }

  void fill();
  bool split();  // true when some share moved
  bool held_elsewhere(std::uint32_t f, std::uint32_t r, std::uint32_t port) const;
  void settle(FluidOutcome& out);
  void refresh_capacities();
  void admit(const std::vector<std::uint32_t>& started, double now);
  void open_arbiters();
  std::uint32_t entries(std::uint32_t f) const { return first_[f + 1] - first_[f]; }
  const std::uint32_t* route(std::uint32_t f) const { return res_.data() + first_[f]; }

  const FluidProblem& p_;
  Starts* starts_;
  std::uint32_t nr_ = 0;  // real resources; virtual ones follow
  std::vector<Arbiter> arbiters_;
  std::vector<std::uint32_t> arbiter_of_port_;  // per port: index in arbiters_
  // Routes with the ports' virtual resources appended.
  std::vector<std::uint32_t> first_{0}, res_;
  std::vector<double> cap_;  // real: effective capacity; virtual: the port's share x
  // Per transfer its solo rate; per real resource the sum of those of its
  // active transfers (degradation and arbitrating() read it).
  std::vector<double> solo_, solo_sum_;
  // Per resource (real and virtual): active transfers using it.
  std::vector<std::uint32_t> users_;
  // Per transfer.
  std::vector<char> active_;
  std::vector<double> rem_, rate_, start_;
  std::vector<std::uint32_t> froze_at_;
  std::vector<std::uint32_t> running_;
  // Filling scratch.
  std::vector<double> residual_, fastest_;
  std::vector<std::uint32_t> left_;
  std::vector<std::vector<std::uint32_t>> members_;
  // Split scratch, per port.
  std::vector<double> carried_;
  std::vector<char> limited_;
};

Arbitrated::Arbitrated(const FluidProblem& p, Starts* starts)
    : p_(p), starts_(starts), nr_(static_cast<std::uint32_t>(p.capacity.size())) {
  const auto nf = static_cast<std::uint32_t>(p.transfers());
  if (!p.port.empty() && p.port.size() != p.resources.size())
    throw InternalError("fluid: one port per route entry expected");
  if (!p.degradation.empty() && p.degradation.size() != nr_)
    throw InternalError("fluid: one degradation per resource expected");
  // The ports of each resource, numbered in order of first use.
  std::vector<std::unordered_map<std::uint32_t, std::uint32_t>> local(nr_);
  std::vector<std::uint32_t> entry_port(p.resources.size(), kNone);
  for (std::size_t i = 0; i < p.port.size(); ++i) {
    if (p.port[i] == kNoPort) continue;
    auto [it, fresh] = local[p.resources[i]].try_emplace(p.port[i], static_cast<std::uint32_t>(local[p.resources[i]].size()));
    entry_port[i] = it->second;
  }
  // Resources with two or more ports get arbiters.
  std::vector<std::uint32_t> arbiter_first(nr_, kNone);
  std::uint32_t ports = 0;
  for (std::uint32_t r = 0; r < nr_; ++r) {
    if (local[r].size() < 2) continue;
    arbiter_first[r] = ports;
    arbiters_.push_back({r, ports, ports + static_cast<std::uint32_t>(local[r].size())});
    for (std::size_t k = 0; k < local[r].size(); ++k) arbiter_of_port_.push_back(static_cast<std::uint32_t>(arbiters_.size() - 1));
    ports += static_cast<std::uint32_t>(local[r].size());
  }
  for (std::uint32_t f = 0; f < nf; ++f) {
    for (std::uint32_t i = p.first[f]; i < p.first[f + 1]; ++i) res_.push_back(p.resources[i]);
    for (std::uint32_t i = p.first[f]; i < p.first[f + 1]; ++i) {
      const std::uint32_t r = p.resources[i];
      if (arbiter_first[r] != kNone && entry_port[i] != kNone) res_.push_back(nr_ + arbiter_first[r] + entry_port[i]);
    }
    first_.push_back(static_cast<std::uint32_t>(res_.size()));
  }
  const std::size_t total = nr_ + ports;
  cap_.assign(total, 0.0);
  for (std::uint32_t r = 0; r < nr_; ++r) cap_[r] = p.capacity[r];
  users_.assign(total, 0);
  if (!starts_)  // with starts_, counted as they start
    for (std::uint32_t r : res_) ++users_[r];
  solo_.assign(nf, 0.0);
  for (std::uint32_t f = 0; f < nf; ++f) {
    double solo = kInf;
    for (std::uint32_t i = p.first[f]; i < p.first[f + 1]; ++i) solo = std::min(solo, p.capacity[p.resources[i]]);
    solo_[f] = solo;
  }
  solo_sum_.assign(nr_, 0.0);
  if (!starts_)
    for (std::uint32_t f = 0; f < nf; ++f)
      for (std::uint32_t i = p.first[f]; i < p.first[f + 1]; ++i) solo_sum_[p.resources[i]] += solo_[f];
  refresh_capacities();
  for (Arbiter& a : arbiters_) {
    a.cap = kInf;
    for (std::uint32_t g = a.first; g < a.last; ++g) cap_[nr_ + g] = kInf;
  }
  open_arbiters();
  active_.assign(nf, starts_ ? 0 : 1);
  rem_.assign(p.bytes.begin(), p.bytes.end());
  rate_.assign(nf, 0.0);
  start_.assign(nf, 0.0);
  froze_at_.assign(nf, kNone);
  if (!starts_) {
    running_.resize(nf);
    for (std::uint32_t f = 0; f < nf; ++f) running_[f] = f;
  }
  residual_.assign(total, 0.0);
  fastest_.assign(total, 0.0);
  left_.assign(total, 0);
  members_.resize(total);
  carried_.assign(ports, 0.0);
  limited_.assign(ports, 0);
}

void Arbitrated::refresh_capacities() {
  if (p_.degradation.empty()) return;
  for (std::uint32_t r = 0; r < nr_; ++r) cap_[r] = degraded_capacity(p_.capacity[r], p_.degradation[r], users_[r], solo_sum_[r]);
}

// First shares: each port of a resource that has begun to arbitrate (and
// had no limit) an equal part; the others' ports no limit.
void Arbitrated::open_arbiters() {
  for (Arbiter& a : arbiters_) {
    if (a.cap < kInf || !arbitrating(a)) continue;
    a.cap = cap_[a.resource] / (a.last - a.first);
    for (std::uint32_t g = a.first; g < a.last; ++g) cap_[nr_ + g] = a.cap;
  }
}

// Transfers `started` start at `now` (with their port shares).
void Arbitrated::admit(const std::vector<std::uint32_t>& started, double now) {
  for (std::uint32_t f : started) {
    if (active_[f] || rem_[f] != p_.bytes[f] || rate_[f] != 0.0) throw InternalError("fluid: a transfer started twice");
    active_[f] = 1;
    start_[f] = now;
    running_.push_back(f);
    for (std::uint32_t i = 0; i < entries(f); ++i) {
      const std::uint32_t q = route(f)[i];
      ++users_[q];
      if (q < nr_) solo_sum_[q] += solo_[f];
    }
  }
  refresh_capacities();
  open_arbiters();
}

// Progressive filling of every active transfer under the current capacities.
void Arbitrated::fill() {
  for (auto& m : members_) m.clear();
  for (std::uint32_t f : running_)
    for (std::uint32_t i = 0; i < entries(f); ++i) members_[route(f)[i]].push_back(f);
  std::priority_queue<Keyed, std::vector<Keyed>, std::greater<>> heap;
  for (std::uint32_t r = 0; r < cap_.size(); ++r) {
    left_[r] = static_cast<std::uint32_t>(members_[r].size());
    residual_[r] = cap_[r];
    if (left_[r] > 0 && cap_[r] < kInf) heap.push({residual_[r] / left_[r], r >= nr_, r});
  }
  for (std::uint32_t f : running_) froze_at_[f] = kNone;
  double level = 0.0;
  while (!heap.empty()) {
    const Keyed top = heap.top();
    heap.pop();
    const std::uint32_t r = top.res;
    if (left_[r] == 0) continue;
    const double current = residual_[r] / left_[r];
    if (current > top.key) {
      heap.push({current, top.virtual_resource, r});
      continue;
    }
    level = std::max(level, current);
    for (std::uint32_t f : members_[r]) {
      if (froze_at_[f] != kNone) continue;
      froze_at_[f] = r;
      rate_[f] = level;
      for (std::uint32_t i = 0; i < entries(f); ++i) {
        const std::uint32_t q = route(f)[i];
        residual_[q] = std::max(0.0, residual_[q] - level);
        --left_[q];
      }
    }
  }
  for (std::uint32_t f : running_)
    if (!(rate_[f] > 0.0)) throw InternalError("fluid: a transfer was left without bandwidth");
}

// Split each arbitrated resource's capacity again from the last filling.
// Whether transfer f, frozen at arbiter resource r or its port's share
// `port`, is also held by another resource: one saturated by the filling on
// which f is among the fastest. At the two-level allocation such ties are
// common (a transfer that reaches its own link's rate exactly as the
// arbiter fills up); the port is then not limited at r, and giving it more
// would change nothing but flip the split back and forth.
bool Arbitrated::held_elsewhere(std::uint32_t f, std::uint32_t r, std::uint32_t port) const {
  for (std::uint32_t i = 0; i < entries(f); ++i) {
    const std::uint32_t q = route(f)[i];
    if (q == r || q == port || !(cap_[q] < kInf)) continue;
    if (residual_[q] <= kTol * cap_[q] && rate_[f] >= fastest_[q] * (1.0 - kTol)) return true;
  }
  return false;
}

bool Arbitrated::split() {
  std::fill(carried_.begin(), carried_.end(), 0.0);
  std::fill(limited_.begin(), limited_.end(), 0);
  std::fill(fastest_.begin(), fastest_.end(), 0.0);
  for (std::uint32_t f : running_)
    for (std::uint32_t i = 0; i < entries(f); ++i) fastest_[route(f)[i]] = std::max(fastest_[route(f)[i]], rate_[f]);
  for (std::uint32_t f : running_) {
    for (std::uint32_t i = 0; i < entries(f); ++i) {
      const std::uint32_t q = route(f)[i];
      if (q < nr_) continue;
      const std::uint32_t g = q - nr_, r = arbiters_[arbiter_of_port_[g]].resource;
      carried_[g] += rate_[f];
      if ((froze_at_[f] == q || froze_at_[f] == r) && !held_elsewhere(f, r, q)) limited_[g] = 1;
    }
  }
  bool moved = false;
  std::vector<double> asks;
  for (Arbiter& a : arbiters_) {
    double level = kInf;
    if (arbitrating(a)) {
      const double capacity = cap_[a.resource];
      // Ports limited here ask for everything, the others for what they
      // carry: the level of the limited ones is the new cap of every port.
      asks.clear();
      std::size_t limited = 0;
      double carried_total = 0.0, carried_most = 0.0;
      for (std::uint32_t g = a.first; g < a.last; ++g) {
        if (users_[nr_ + g] == 0) continue;
        if (limited_[g]) {
          ++limited;
        } else {
          asks.push_back(carried_[g]);
          carried_total += carried_[g];
          carried_most = std::max(carried_most, carried_[g]);
        }
      }
      if (limited == 0) {
        // Nobody is limited here: room for any port to take all the slack.
        level = carried_most + std::max(0.0, capacity - carried_total);
      } else {
        std::sort(asks.begin(), asks.end());
        double left = capacity;
        std::size_t k = 0, open = asks.size() + limited;
        for (; k < asks.size() && asks[k] <= left / static_cast<double>(open - k); ++k) left -= asks[k];
        level = left / static_cast<double>(open - k);
      }
    }
    double next = level;
    if (level < kInf && a.cap < kInf) {
      // The new level jumps where a port turns limited or not; when the
      // cap overshoots such a point it turns back, and then its steps
      // halve, closing in on the point as a bisection does.
      const int sign = level > a.cap ? 1 : level < a.cap ? -1 : 0;
      if (sign != 0 && sign == -a.direction) a.step *= 0.5;
      else if (sign != 0 && sign == a.direction) a.step = std::min(1.0, a.step * 1.5);  // same way again: speed up
      if (sign != 0) a.direction = sign;
      next = a.cap + a.step * (level - a.cap);
    }
    // Settled when the level agrees with the cap, not when the steps have
    // merely become small.
    if (!(std::abs(level - a.cap) <= kSettled * cap_[a.resource]) && level != a.cap) moved = true;  // caps may be infinite
    a.cap = next;
    for (std::uint32_t g = a.first; g < a.last; ++g) cap_[nr_ + g] = a.cap;
  }
  return moved;
}

void Arbitrated::settle(FluidOutcome& out) {
  for (Arbiter& a : arbiters_) a.step = 1.0, a.direction = 0;
  for (int round = 0; round < kMaxRounds; ++round) {
    fill();
    ++out.fillings;
    if (!split()) return;
  }
  fill();  // rates under the last split: feasible
  ++out.fillings;
  ++out.unsettled;
}

FluidOutcome Arbitrated::run(double epsilon) {
  FluidOutcome out;
  out.finish_us.assign(rem_.size(), 0.0);
  double now = 0.0;
  std::vector<std::uint32_t> done, started;
  auto later = [](const Start& a, const Start& b) { return a.at > b.at; };
  std::priority_queue<Start, std::vector<Start>, decltype(later)> pending(later);
  std::vector<Start> fresh;
  if (starts_) starts_->first(fresh);
  for (const Start& s : fresh) pending.push(s);
  auto admit_due = [&] {
    started.clear();
    while (!pending.empty() && pending.top().at <= now) {
      started.push_back(pending.top().transfer);
      pending.pop();
    }
    admit(started, now);
  };
  while (!running_.empty() || !pending.empty()) {
    if (running_.empty()) {  // idle until the next start
      now = std::max(now, pending.top().at);
      admit_due();
      continue;
    }
    settle(out);
    ++out.events;
    double first_end = std::numeric_limits<double>::infinity(), t0 = 0.0;
    for (std::uint32_t f : running_) {
      const double t = now + rem_[f] / rate_[f];
      if (t < first_end) first_end = t, t0 = start_[f];
    }
    const double next_start = pending.empty() ? kInf : pending.top().at;
    if (next_start < first_end) {  // rates hold until then
      for (std::uint32_t f : running_) rem_[f] = std::max(0.0, rem_[f] - rate_[f] * (next_start - now));
      now = next_start;
      admit_due();
      continue;
    }
    // Relative to the time the first finishing transfer has run, never past
    // the next start.
    // (at least first_end: t0 + (first_end - t0) may round below it)
    const double horizon = std::max(first_end, std::min(t0 + (first_end - t0) * (1.0 + epsilon), next_start));
    double end = now;
    done.clear();
    for (std::uint32_t f : running_) {
      const double t = now + rem_[f] / rate_[f];
      if (t <= horizon) done.push_back(f), end = std::max(end, t);
    }
    for (std::uint32_t f : running_) rem_[f] = std::max(0.0, rem_[f] - rate_[f] * (end - now));
    now = end;
    for (std::uint32_t f : done) {
      out.finish_us[f] = now;
      active_[f] = 0;
      for (std::uint32_t i = 0; i < entries(f); ++i) {
        const std::uint32_t q = route(f)[i];
        --users_[q];
        if (q < nr_) solo_sum_[q] = std::max(0.0, solo_sum_[q] - solo_[f]);
      }
    }
    std::erase_if(running_, [&](std::uint32_t f) { return !active_[f]; });
    refresh_capacities();
    if (!starts_) continue;
    fresh.clear();
    starts_->finished(done, now, fresh);
    for (const Start& s : fresh) {
      if (!(s.at >= now)) throw InternalError("fluid: a transfer starts in the past");
      pending.push(s);
    }
  }
  out.makespan_us = now;
  return out;
}

}  // namespace

FluidOutcome run_fluid_arbitrated(const FluidProblem& p, double epsilon) { return Arbitrated(p, nullptr).run(epsilon); }

FluidOutcome run_fluid_arbitrated(const FluidProblem& p, double epsilon, Starts& starts) {
  return Arbitrated(p, &starts).run(epsilon);
}

ArbitratedRates arbitrated_rates(const FluidProblem& p) { return Arbitrated(p, nullptr).first_rates(); }

}  // namespace vp::sim::detail
