#include "fluid.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <stdexcept>
#include "vp/base/errors.hpp"

namespace vp::sim::detail {

namespace {

constexpr double kTol = kRateTolerance;
constexpr std::uint32_t kNoResource = 0xFFFFFFFFu;

struct Event {
  double time;
  std::uint32_t flow, version;
  bool operator>(const Event& o) const { return time > o.time; }
};

struct KeyedResource {
  double key;
  std::uint32_t res;
  bool operator>(const KeyedResource& o) const { return key > o.key; }
};

class Fluid {
 public:
  // starts: nullptr, every transfer starts at 0; else they start as it says.
  Fluid(const FluidProblem& p, Starts* starts);
  FluidOutcome run(double epsilon);

 private:
  std::uint32_t route_size(std::uint32_t f) const { return p_.first[f + 1] - p_.first[f]; }
  const std::uint32_t* route(std::uint32_t f) const { return p_.resources.data() + p_.first[f]; }
  bool in_region(std::uint32_t f) const { return fl_[f].region_mark == epoch_; }
  bool finishing(std::uint32_t f) const { return fl_[f].done_mark == epoch_; }
  bool outside(std::uint32_t f) const { return fl_[f].active && !in_region(f) && !finishing(f); }

  void add_resource(std::uint32_t r);
  void add_flow(std::uint32_t f);
  void expand();
  bool fill();
  bool verify(std::uint32_t r);
  void compact(std::uint32_t r);
  void set_bottleneck(std::uint32_t f, std::uint32_t r);
  void commit(double now);
  void solve(const std::vector<std::uint32_t>& done, const std::vector<std::uint32_t>& started, double now);
  void admit(const std::vector<std::uint32_t>& started, double now);
  FluidOutcome run_staged(double epsilon);
  void rebuild_events();
  // Contention model: the capacity of r for its active transfers.
  double effective_capacity(std::uint32_t r) const;
  void release(const std::vector<std::uint32_t>& done);

  const FluidProblem& p_;
  Starts* starts_;
  std::vector<double> start_;  // per transfer: when it started (0 without starts_)
  std::vector<double> cap_;  // current capacity per resource (p_.capacity in the ideal model)
  // Contention model only: per resource, active transfers and the sum of
  // their solo rates; per transfer, its solo rate.
  std::vector<std::uint32_t> count_;
  std::vector<double> solo_sum_, solo_;
  // Per resource: every transfer using it, in rflows_[rbegin_[r], rend_[r]);
  // finished ones are dropped lazily (rdead_ counts them).
  std::vector<std::uint32_t> rbegin_, rend_, rdead_, rflows_;
  // Per resource: the transfers whose recorded bottleneck it is (the
  // resource that froze them in the last fill that included them).
  std::vector<std::vector<std::uint32_t>> bottlenecked_;
  std::vector<double> load_;  // sum of the rates of the active transfers using it
  // >= the rate of every active transfer using it that is bottlenecked elsewhere.
  std::vector<double> others_ceiling_;

  // Per transfer, in one cache line.
  struct Transfer {
    double rate = 0.0, rem = 0.0, updated = 0.0;  // rem: bytes left at time updated
    double new_rate = 0.0;                        // set by fill()
    std::uint32_t version = 0;
    std::uint32_t bottleneck = kNoResource, bottleneck_pos = 0;  // recorded bottleneck, index in its list
    std::uint32_t new_bottleneck = kNoResource;                  // set by fill()
    std::uint32_t region_mark = 0, done_mark = 0, frozen_mark = 0;
    bool active = true;
  };
  std::vector<Transfer> fl_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::size_t running_ = 0;                  // active transfers
  std::vector<std::uint32_t> running_list_;  // the active ones, and finished ones until compacted

  // The region of the current event (marks equal to epoch_).
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> res_mark_;
  std::vector<std::uint32_t> region_flows_, region_res_, queue_;
  std::vector<double> sub_;  // per region resource: old rates of its region and finishing transfers
  std::vector<std::vector<std::uint32_t>> members_;  // per region resource: its region transfers
  // Progressive filling.
  std::uint32_t fill_epoch_ = 0;
  std::vector<double> residual_, froze_at_;
  std::vector<std::uint32_t> left_;
  std::vector<std::pair<std::uint32_t, double>> new_ceilings_;
};

Fluid::Fluid(const FluidProblem& p, Starts* starts) : p_(p), starts_(starts), cap_(p.capacity) {
  const std::size_t nf = p.transfers(), nr = p.capacity.size();
  start_.assign(nf, 0.0);
  if (!p.degradation.empty()) {
    if (p.degradation.size() != nr) throw InternalError("fluid: one degradation per resource expected");
    count_.assign(nr, 0);
    solo_sum_.assign(nr, 0.0);
    solo_.assign(nf, 0.0);
    for (std::uint32_t f = 0; f < nf; ++f) {
      double solo = std::numeric_limits<double>::infinity();
      for (std::uint32_t i = p.first[f]; i < p.first[f + 1]; ++i) solo = std::min(solo, p.capacity[p.resources[i]]);
      solo_[f] = solo;
      if (starts_) continue;  // counted when it starts
      for (std::uint32_t i = p.first[f]; i < p.first[f + 1]; ++i) ++count_[p.resources[i]], solo_sum_[p.resources[i]] += solo;
    }
    for (std::uint32_t r = 0; r < nr; ++r) cap_[r] = effective_capacity(r);
  }
  rbegin_.assign(nr + 1, 0);
  for (std::uint32_t r : p.resources) ++rbegin_[r + 1];
  for (std::size_t r = 0; r < nr; ++r) rbegin_[r + 1] += rbegin_[r];
  rend_.assign(rbegin_.begin(), rbegin_.end() - 1);
  rflows_.resize(p.resources.size());
  // With starts_, a resource's list fills as its transfers start (each has
  // its slot: the list never outgrows its range).
  if (!starts_)
    for (std::uint32_t f = 0; f < nf; ++f)
      for (std::uint32_t i = p.first[f]; i < p.first[f + 1]; ++i) rflows_[rend_[p.resources[i]]++] = f;
  rdead_.assign(nr, 0);
  bottlenecked_.resize(nr);
  load_.assign(nr, 0.0);
  others_ceiling_.assign(nr, 0.0);
  fl_.resize(nf);
  for (std::size_t f = 0; f < nf; ++f) fl_[f].rem = p.bytes[f], fl_[f].active = !starts_;
  res_mark_.assign(nr, 0);
  sub_.assign(nr, 0.0);
  members_.resize(nr);
  residual_.assign(nr, 0.0);
  froze_at_.assign(nr, -1.0);
  left_.assign(nr, 0);
}

void Fluid::add_resource(std::uint32_t r) {
  if (res_mark_[r] == epoch_) return;
  res_mark_[r] = epoch_;
  region_res_.push_back(r);
  sub_[r] = 0.0;
  members_[r].clear();
  queue_.push_back(r);
}

void Fluid::add_flow(std::uint32_t f) {
  fl_[f].region_mark = epoch_;
  region_flows_.push_back(f);
  for (std::uint32_t i = 0; i < route_size(f); ++i) {
    std::uint32_t r = route(f)[i];
    if (res_mark_[r] != epoch_) add_resource(r);
    sub_[r] += fl_[f].rate;
    members_[r].push_back(f);
  }
}

// Close the region: the transfers bottlenecked at a region resource join it.
void Fluid::expand() {
  while (!queue_.empty()) {
    if (2 * region_flows_.size() > running_) {  // most of them anyway: take all, skip the walk
      for (std::uint32_t f : running_list_)
        if (outside(f)) add_flow(f);
      queue_.clear();
      return;
    }
    std::uint32_t r = queue_.back();
    queue_.pop_back();
    for (std::uint32_t f : bottlenecked_[r])
      if (outside(f)) add_flow(f);
  }
}

// Progressive filling of the region, the outside loads fixed. Returns false
// when an outside transfer turned out faster than the region transfers
// frozen at one of its resources: it has joined the region; fill again.
bool Fluid::fill() {
  ++fill_epoch_;
  // Keys (the level at which a resource would saturate) only grow as
  // transfers freeze, so they are refreshed lazily: a popped key that has
  // grown goes back into the heap.
  std::priority_queue<KeyedResource, std::vector<KeyedResource>, std::greater<>> heap;
  for (std::uint32_t r : region_res_) {
    residual_[r] = std::max(0.0, cap_[r] - (load_[r] - sub_[r]));
    left_[r] = static_cast<std::uint32_t>(members_[r].size());
    froze_at_[r] = -1.0;
    if (left_[r] > 0) heap.push({residual_[r] / left_[r], r});
  }
  double level = 0.0;
  while (!heap.empty()) {
    auto [key, r] = heap.top();
    heap.pop();
    if (left_[r] == 0) continue;
    const double current = residual_[r] / left_[r];
    if (current > key) {
      heap.push({current, r});
      continue;
    }
    level = std::max(level, current);
    froze_at_[r] = level;
    for (std::uint32_t f : members_[r]) {
      if (fl_[f].frozen_mark == fill_epoch_) continue;
      fl_[f].frozen_mark = fill_epoch_;
      fl_[f].new_rate = level;
      fl_[f].new_bottleneck = r;
      for (std::uint32_t j = 0; j < route_size(f); ++j) {
        std::uint32_t q = route(f)[j];
        residual_[q] = std::max(0.0, residual_[q] - level);
        --left_[q];
      }
    }
  }
  bool consistent = true;
  new_ceilings_.clear();
  const std::size_t examined = region_res_.size();  // verify() may add resources
  for (std::size_t k = 0; k < examined; ++k) consistent &= verify(region_res_[k]);
  return consistent;
}

// A resource that froze region transfers at level L is their bottleneck only
// if no outside transfer on it is faster than L; such a transfer joins the
// region (returns false). Outside transfers are bottlenecked elsewhere (the
// region holds those bottlenecked here), so the resource's others_ceiling_
// usually proves there is none without a look at its transfers.
bool Fluid::verify(std::uint32_t r) {
  const double level = froze_at_[r];
  if (level < 0.0 || others_ceiling_[r] <= level * (1.0 + kTol)) return true;
  if (2 * rdead_[r] > rend_[r] - rbegin_[r]) compact(r);
  bool ok = true;
  double fastest = 0.0;
  for (std::uint32_t i = rbegin_[r]; i < rend_[r]; ++i) {
    std::uint32_t f = rflows_[i];
    if (!outside(f)) continue;
    if (fl_[f].rate > level * (1.0 + kTol)) {
      add_flow(f);
      ok = false;
    } else {
      fastest = std::max(fastest, fl_[f].rate);
    }
  }
  new_ceilings_.emplace_back(r, fastest);
  return ok;
}

void Fluid::compact(std::uint32_t r) {
  std::uint32_t out = rbegin_[r];
  for (std::uint32_t i = rbegin_[r]; i < rend_[r]; ++i)
    if (fl_[rflows_[i]].active) rflows_[out++] = rflows_[i];
  rend_[r] = out;
  rdead_[r] = 0;
}

// Move transfer f to the bottleneck list of r (kNoResource: none).
void Fluid::set_bottleneck(std::uint32_t f, std::uint32_t r) {
  if (fl_[f].bottleneck == r) return;
  if (fl_[f].bottleneck != kNoResource) {
    auto& list = bottlenecked_[fl_[f].bottleneck];
    std::uint32_t moved = list.back();
    list[fl_[f].bottleneck_pos] = moved;
    fl_[moved].bottleneck_pos = fl_[f].bottleneck_pos;
    list.pop_back();
  }
  fl_[f].bottleneck = r;
  if (r != kNoResource) {
    fl_[f].bottleneck_pos = static_cast<std::uint32_t>(bottlenecked_[r].size());
    bottlenecked_[r].push_back(f);
  }
}

void Fluid::commit(double now) {
  for (auto [r, fastest] : new_ceilings_) others_ceiling_[r] = fastest;  // exact for the outside transfers
  for (std::uint32_t f : region_flows_) {
    set_bottleneck(f, fl_[f].new_bottleneck);
    for (std::uint32_t j = 0; j < route_size(f); ++j) {
      std::uint32_t q = route(f)[j];
      if (q != fl_[f].new_bottleneck) others_ceiling_[q] = std::max(others_ceiling_[q], fl_[f].new_rate);
    }
    if (fl_[f].new_rate == fl_[f].rate) continue;
    if (!(fl_[f].new_rate > 0.0)) throw InternalError("fluid: a transfer was left without bandwidth");
    fl_[f].rem = std::max(0.0, fl_[f].rem - fl_[f].rate * (now - fl_[f].updated));
    fl_[f].updated = now;
    fl_[f].rate = fl_[f].new_rate;
    ++fl_[f].version;
    events_.push({now + fl_[f].rem / fl_[f].rate, f, fl_[f].version});
  }
  for (std::uint32_t r : region_res_) load_[r] = std::max(0.0, cap_[r] - residual_[r]);
}

// Transfers `done` finish at `now` (done_mark_ set for this epoch) and
// transfers `started` (admitted) start: give the bandwidth of the first to
// the region that can use it, and their share to the second.
void Fluid::solve(const std::vector<std::uint32_t>& done, const std::vector<std::uint32_t>& started, double now) {
  if (!count_.empty()) release(done);
  region_flows_.clear();
  region_res_.clear();
  queue_.clear();
  for (std::uint32_t c : done) {
    for (std::uint32_t i = 0; i < route_size(c); ++i) {
      std::uint32_t r = route(c)[i];
      add_resource(r);
      sub_[r] += fl_[c].rate;
    }
  }
  for (std::uint32_t f : started) add_flow(f);  // at rate 0: adds nothing to sub_
  do {
    expand();
  } while (!fill());
  for (std::uint32_t c : done) {
    fl_[c].active = 0;
    set_bottleneck(c, kNoResource);
    for (std::uint32_t i = 0; i < route_size(c); ++i) ++rdead_[route(c)[i]];
  }
  commit(now);
}

FluidOutcome Fluid::run(double epsilon) {
  if (starts_) return run_staged(epsilon);
  FluidOutcome out;
  const auto nf = static_cast<std::uint32_t>(p_.transfers());
  out.finish_us.assign(nf, 0.0);
  if (nf == 0) return out;
  running_ = nf;
  running_list_.resize(nf);
  std::iota(running_list_.begin(), running_list_.end(), 0u);
  // Initial allocation: everything is the region.
  ++epoch_;
  for (std::uint32_t f = 0; f < nf; ++f) add_flow(f);
  queue_.clear();
  fill();
  commit(0.0);
  out.events = 1;

  std::vector<std::uint32_t> done;
  double now = 0.0;
  auto valid = [&](const Event& e) { return fl_[e.flow].active && fl_[e.flow].version == e.version; };
  while (running_ > 0) {
    while (!valid(events_.top())) events_.pop();
    // Batch: every transfer predicted to end within epsilon (relative to the
    // elapsed time) of the first completion ends with the last of them;
    // rates hold until then.
    const double horizon = events_.top().time * (1.0 + epsilon);
    double end = now;
    ++epoch_;
    done.clear();
    while (!events_.empty() && events_.top().time <= horizon) {
      Event e = events_.top();
      events_.pop();
      if (!valid(e) || fl_[e.flow].done_mark == epoch_) continue;
      fl_[e.flow].done_mark = epoch_;
      done.push_back(e.flow);
      end = std::max(end, e.time);
    }
    now = end;
    for (std::uint32_t f : done) out.finish_us[f] = now;
    solve(done, {}, now);
    running_ -= done.size();
    ++out.events;
    if (events_.size() > 4 * running_ + 1024 || running_list_.size() > 2 * running_ + 64) {
      std::erase_if(running_list_, [&](std::uint32_t f) { return !fl_[f].active; });
      rebuild_events();
    }
  }
  out.makespan_us = now;
  return out;
}

// Transfers `started` start at `now`: they join their resources (whose
// capacities, under the contention model, can only shrink).
void Fluid::admit(const std::vector<std::uint32_t>& started, double now) {
  for (std::uint32_t f : started) {
    if (fl_[f].active || fl_[f].updated != 0.0 || fl_[f].rem != p_.bytes[f] || fl_[f].version != 0)
      throw InternalError("fluid: a transfer started twice");
    fl_[f].active = true;
    fl_[f].updated = now;
    start_[f] = now;
    running_list_.push_back(f);
    for (std::uint32_t i = 0; i < route_size(f); ++i) rflows_[rend_[route(f)[i]]++] = f;
    if (count_.empty()) continue;
    for (std::uint32_t i = 0; i < route_size(f); ++i) ++count_[route(f)[i]], solo_sum_[route(f)[i]] += solo_[f];
  }
  if (!count_.empty())
    for (std::uint32_t f : started)
      for (std::uint32_t i = 0; i < route_size(f); ++i) cap_[route(f)[i]] = effective_capacity(route(f)[i]);
  running_ += started.size();
}

// The run with starts: an event is either the starts due at one time or a
// batch of completions, whichever comes first.
FluidOutcome Fluid::run_staged(double epsilon) {
  FluidOutcome out;
  const auto nf = static_cast<std::uint32_t>(p_.transfers());
  out.finish_us.assign(nf, 0.0);
  auto later = [](const Start& a, const Start& b) { return a.at > b.at; };
  std::priority_queue<Start, std::vector<Start>, decltype(later)> pending(later);
  std::vector<Start> fresh;
  starts_->first(fresh);
  for (const Start& s : fresh) pending.push(s);
  std::vector<std::uint32_t> done, started;
  double now = 0.0;
  auto valid = [&](const Event& e) { return fl_[e.flow].active && fl_[e.flow].version == e.version; };
  constexpr double kNever = std::numeric_limits<double>::infinity();
  while (running_ > 0 || !pending.empty()) {
    if (running_ > 0)
      while (!valid(events_.top())) events_.pop();
    const double next_start = pending.empty() ? kNever : pending.top().at;
    const double first_end = running_ > 0 ? events_.top().time : kNever;
    ++epoch_;
    done.clear();
    started.clear();
    if (next_start < first_end) {
      now = std::max(now, next_start);
      while (!pending.empty() && pending.top().at <= now) {
        started.push_back(pending.top().transfer);
        pending.pop();
      }
      admit(started, now);
      solve(done, started, now);
      ++out.events;
      continue;
    }
    // Batch, relative to the time the first finishing transfer has run,
    // and never past the next start.
    const double t0 = start_[events_.top().flow];
    // (at least first_end: t0 + (first_end - t0) may round below it)
    const double horizon = std::max(first_end, std::min(t0 + (first_end - t0) * (1.0 + epsilon), next_start));
    double end = now;
    while (!events_.empty() && events_.top().time <= horizon) {
      Event e = events_.top();
      events_.pop();
      if (!valid(e) || fl_[e.flow].done_mark == epoch_) continue;
      fl_[e.flow].done_mark = epoch_;
      done.push_back(e.flow);
      end = std::max(end, e.time);
    }
    now = end;
    for (std::uint32_t f : done) out.finish_us[f] = now;
    solve(done, started, now);
    running_ -= done.size();
    ++out.events;
    fresh.clear();
    starts_->finished(done, now, fresh);
    for (const Start& s : fresh) {
      if (!(s.at >= now)) throw InternalError("fluid: a transfer starts in the past");
      pending.push(s);
    }
    if (events_.size() > 4 * running_ + 1024 || running_list_.size() > 2 * running_ + 64) {
      std::erase_if(running_list_, [&](std::uint32_t f) { return !fl_[f].active; });
      rebuild_events();
    }
  }
  out.makespan_us = now;
  return out;
}

double Fluid::effective_capacity(std::uint32_t r) const {
  return degraded_capacity(p_.capacity[r], p_.degradation[r], count_[r], solo_sum_[r]);
}

// Transfers `done` leave their resources: their capacities can only grow.
void Fluid::release(const std::vector<std::uint32_t>& done) {
  for (std::uint32_t c : done)
    for (std::uint32_t i = 0; i < route_size(c); ++i) {
      const std::uint32_t r = route(c)[i];
      --count_[r];
      solo_sum_[r] = std::max(0.0, solo_sum_[r] - solo_[c]);
    }
  for (std::uint32_t c : done)
    for (std::uint32_t i = 0; i < route_size(c); ++i) cap_[route(c)[i]] = effective_capacity(route(c)[i]);
}

// Drop the stale entries of the event heap (running_list_ is compact).
void Fluid::rebuild_events() {
  std::vector<Event> live;
  live.reserve(running_list_.size());
  for (std::uint32_t f : running_list_) live.push_back({fl_[f].updated + fl_[f].rem / fl_[f].rate, f, fl_[f].version});
  events_ = std::priority_queue<Event, std::vector<Event>, std::greater<>>(std::greater<>(), std::move(live));
}

}  // namespace

FluidOutcome run_fluid(const FluidProblem& p, double epsilon) {
  if (!p.port.empty()) throw InternalError("fluid: ports need run_fluid_arbitrated()");
  return Fluid(p, nullptr).run(epsilon);
}

FluidOutcome run_fluid(const FluidProblem& p, double epsilon, Starts& starts) {
  if (!p.port.empty()) throw InternalError("fluid: ports need run_fluid_arbitrated()");
  return Fluid(p, &starts).run(epsilon);
}

}  // namespace vp::sim::detail
