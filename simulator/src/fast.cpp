// FAST-like baseline, after the public FAST scheduler (Lei et al., "FAST: An
// Efficient Scheduler for All-to-All GPU Communication"; code at
// github.com/MangoBoost/FAST: simulation/scheduler/local.cpp
// server2server_balance / server2server_dispatch, simulation/scheduler/
// global.cpp GlobalScheduler::pipeline2, and the runtime's
// amd/src/fast_alltoall/alltoall_global_scheduler.cc run_scheduler):
//
//  1. server-level demand: for servers A != B, the bytes A's GPUs hold for
//     B, balanced: every GPU of A is to send the same amount avg(A, B);
//  2. intra-server balancing: GPUs above avg hand bytes (taken in order of
//     destination GPU) to GPUs below it, over PCIe, first;
//  3. the server matrix of ceil(avg) bytes is padded to equal row and
//     column sums and decomposed (Birkhoff-von Neumann) into server
//     permutations, run heaviest first (as the runtime does);
//  4. in the stage of permutation P with weight w, GPU i of A sends up to w
//     bytes to GPU i of P(A) (same-index scale-out, default route), taking
//     its bytes in order of destination GPU; the last stage of a server
//     pair sends whatever is left;
//  5. the receiving GPU forwards what is not its own to the final GPU over
//     PCIe together with the next stage's scale-out (pipelined as
//     pipeline2); the intra-server all-to-all of the demand runs with the
//     first stage; the last forwarding runs on its own.
//
// Every intra-server transfer set -- the balancing toward each destination
// server, the intrinsic all-to-all, each stage's forwarding -- runs as FAST's
// model runs it (simulation/scheduler/config.cpp spread_out, called for all
// three in global.cpp pipeline2): shifts k = 1..g-1, in shift k local GPU j
// sends to local GPU (j + k) mod g, one shift after another (empty shifts
// skipped), so g-1 permutation steps. The balancing of A toward its
// destination servers is summed in pipeline2 (one server after another);
// here the m-th balancing round pairs every A with server A+1+m, all servers
// at once, as pipeline2 takes the slowest server's sum. Where pipeline2
// overlaps a stage's scale-out with the previous stage's forwarding
// (t += max(inter, sum of the shifts)), the barrier steps here split each
// scale-out transfer over the forwarding's shifts in proportion to each
// shift's largest transfer (FAST's beta cost of that shift): with no
// contention, sum over shifts of max(shift, its share of the scale-out) is
// max(sum of the shifts, scale-out), FAST's figure. (FAST's RCCL runtime,
// amd/flash.cpp, issues each intra-server stage as one grouped send/recv
// instead; this baseline follows the model that produced FAST's published
// comparisons.)
//
// Where FAST computes stage times with an alpha-beta model of an NVLink
// server, every byte here is a flow on the real links: balancing and
// forwarding compete with scale-out on the PCIe tree.
//
// FAST skips the balancing of a server pair when it is cheap to do without
// (simulation/scheduler/local.cpp check_balance_dispatch, used by
// GlobalScheduler's constructor): with its alpha-beta model of the intra-
// server link, if (beta cost of balancing + of the g dispatch diagonals) /
// (alpha cost of the same) < 2, the pair is sent unbalanced and its server
// matrix entry is the largest row (server2server_approx). The same test runs
// here (FastOptions: alpha = the start-up latency, beta = 1 / the GPUs' PCIe
// link rate; skip_cheap_balancing = false balances always).
#include <algorithm>
#include <cmath>
#include <limits>

#include "baseline_common.hpp"
#include "vp/sim/baselines.hpp"
#include "vp/sim/birkhoff.hpp"

namespace vp::sim {

namespace {

struct Piece {
  std::size_t origin, final;
  double bytes;
};
using Pile = std::vector<Piece>;  // what one GPU holds for one server, by destination GPU

class FastBuilder {
 public:
  FastBuilder(const Topology& t, const Demand& d, const FastOptions& o)
      : d_(d), opts_(o), srv_(t, "fast_schedule"), make_(t), servers_(srv_.count()), g_(srv_.gpus_per_server()),
        piles_(servers_ * servers_ * g_), local_(t.components.size(), 0) {
    for (std::size_t i = 0; i < t.gpus.size(); ++i) local_[t.gpus[i]] = srv_.local_of(i);
    intra_gbps_ = o.intra_gbps;
    if (!(intra_gbps_ > 0))
      for (LinkId l : t.out_links[t.gpus.front()]) intra_gbps_ = std::max(intra_gbps_, t.links[l].capacity.gbps);
  }

  Schedule build() {
    Step intrinsic;
    // balance[m]: the balancing of every server A toward server A+1+m
    std::vector<Step> balance(servers_ > 1 ? servers_ - 1 : 0);
    IntMatrix per_gpu(servers_, std::vector<std::int64_t>(servers_, 0));
    for (std::size_t a = 0; a < servers_; ++a) {
      for (std::size_t b = 0; b < servers_; ++b) {
        if (a == b) {
          add_intrinsic(a, intrinsic);
          continue;
        }
        fill_piles(a, b);
        Step& round = balance[(b + servers_ - a - 1) % servers_];
        per_gpu[a][b] = static_cast<std::int64_t>(std::ceil(balance_or_not(a, b, round)));
      }
    }
    std::vector<Permutation> stages = servers_ > 1 ? birkhoff_decompose(pad_to_equal_sums(per_gpu))
                                                   : std::vector<Permutation>{};
    std::vector<std::vector<std::size_t>> last(servers_, std::vector<std::size_t>(servers_, 0));
    for (std::size_t k = 0; k < stages.size(); ++k)
      for (std::size_t a = 0; a < servers_; ++a) last[a][stages[k].to[a]] = k;

    Schedule out;
    for (const Step& round : balance) overlap(out, Step{}, round);
    Step forward = std::move(intrinsic);  // what runs beside the next scale-out
    for (std::size_t k = 0; k < stages.size(); ++k) {
      Step step, next;
      for (std::size_t a = 0; a < servers_; ++a) {
        std::size_t b = stages[k].to[a];
        if (b != a) scale_out(a, b, last[a][b] == k ? kAll : static_cast<double>(stages[k].weight), step, next);
      }
      overlap(out, std::move(step), forward);
      forward = std::move(next);
    }
    overlap(out, Step{}, forward);
    return out;
  }

 private:
  static constexpr double kAll = std::numeric_limits<double>::infinity();
  Pile& pile(std::size_t a, std::size_t b, std::size_t i) { return piles_[(a * servers_ + b) * g_ + i]; }
  static void push(Schedule& s, Step&& step) {
    if (!step.flows.empty()) s.steps.push_back(std::move(step));
  }

  // The intra-server transfers `intra` as spread_out runs them, shift by
  // shift, with the scale-out `beside` split over the shifts in proportion
  // to each shift's largest transfer (see the header).
  void overlap(Schedule& s, Step&& beside, const Step& intra) const {
    std::vector<Step> shifts(g_);
    std::vector<double> largest(g_, 0.0);
    for (const Flow& f : intra.flows) {
      std::size_t k = (local_[f.dst] + g_ - local_[f.src]) % g_;
      shifts[k].flows.push_back(f);
      largest[k] = std::max(largest[k], f.bytes);
    }
    double total = 0.0;
    for (double w : largest) total += w;
    if (!(total > 0)) return push(s, std::move(beside));
    for (std::size_t k = 0; k < g_; ++k) {
      if (shifts[k].flows.empty()) continue;
      for (const Flow& f : beside.flows) {
        Flow part = f;
        part.bytes = f.bytes * (largest[k] / total);
        if (part.bytes > 0) shifts[k].flows.push_back(std::move(part));
      }
      push(s, std::move(shifts[k]));
    }
  }

  void add_intrinsic(std::size_t a, Step& step) {
    for (std::size_t i = 0; i < g_; ++i)
      for (std::size_t j = 0; j < g_; ++j) {
        std::size_t s = srv_.gpu_of(a, i), d = srv_.gpu_of(a, j);
        if (i != j && d_.at(s, d) > 0) step.flows.push_back(make_.direct(s, d, d_.at(s, d)));
      }
  }

  void fill_piles(std::size_t a, std::size_t b) {
    for (std::size_t i = 0; i < g_; ++i)
      for (std::size_t j = 0; j < g_; ++j) {
        std::size_t s = srv_.gpu_of(a, i), d = srv_.gpu_of(b, j);
        if (d_.at(s, d) > 0) pile(a, b, i).push_back({s, d, d_.at(s, d)});
      }
  }

  // Even out what A's GPUs hold for B; returns the per-GPU amount.
  double balance_piles(std::size_t a, std::size_t b, Step& step) {
    std::vector<double> rows(g_, 0.0);
    double total = 0.0;
    for (std::size_t i = 0; i < g_; ++i) {
      for (const Piece& p : pile(a, b, i)) rows[i] += p.bytes;
      total += rows[i];
    }
    const double avg = total / static_cast<double>(g_), slack = 1e-12 * avg;
    for (std::size_t big = 0; big < g_; ++big) {
      for (std::size_t small = 0; small < g_ && rows[big] > avg + slack; ++small) {
        double move = std::min(rows[big] - avg, avg - rows[small]);
        if (move <= slack) continue;
        hand_over(a, b, big, small, move, step);
        rows[big] -= move, rows[small] += move;
      }
    }
    for (std::size_t i = 0; i < g_; ++i)
      std::stable_sort(pile(a, b, i).begin(), pile(a, b, i).end(),
                       [](const Piece& x, const Piece& y) { return x.final < y.final; });
    return avg;
  }

  // check_balance_dispatch: balance (a, b) unless its alpha cost dominates;
  // returns the per-GPU amount of the server matrix.
  double balance_or_not(std::size_t a, std::size_t b, Step& step) {
    if (!opts_.skip_cheap_balancing) return balance_piles(a, b, step);
    double max_row = 0.0;
    std::vector<Pile> saved(g_);
    for (std::size_t i = 0; i < g_; ++i) {
      double row = 0.0;
      for (const Piece& p : pile(a, b, i)) row += p.bytes;
      max_row = std::max(max_row, row);
      saved[i] = pile(a, b, i);
    }
    Step trial;
    const double avg = balance_piles(a, b, trial);
    const double beta_us_per_byte = 1.0 / (intra_gbps_ * 1e3);
    double alpha_cost = opts_.alpha_us, beta_cost = max_row * beta_us_per_byte;
    for (std::size_t k = 0; k < g_; ++k) {  // dispatch diagonal k: GPU j holds bytes for GPU (j + k) mod g
      double largest = 0.0;
      for (std::size_t j = 0; j < g_; ++j) {
        double bytes = 0.0;
        for (const Piece& p : pile(a, b, j))
          if (srv_.local_of(p.final) == (j + k) % g_) bytes += p.bytes;
        largest = std::max(largest, bytes);
      }
      if (largest > 0) alpha_cost += opts_.alpha_us, beta_cost += largest * beta_us_per_byte;
    }
    if (beta_cost / alpha_cost < 2) {  // NaN (no cost at all) and infinity (alpha 0) balance
      for (std::size_t i = 0; i < g_; ++i) pile(a, b, i) = std::move(saved[i]);
      return max_row;
    }
    step.flows.insert(step.flows.end(), trial.flows.begin(), trial.flows.end());
    return avg;
  }

  void hand_over(std::size_t a, std::size_t b, std::size_t from, std::size_t to, double bytes, Step& step) {
    Pile& src = pile(a, b, from);
    std::size_t taken = 0;
    for (; bytes > 0 && taken < src.size(); ++taken) {
      Piece& p = src[taken];
      double part = std::min(p.bytes, bytes);
      step.flows.push_back(make_.hop(srv_.gpu_of(a, from), srv_.gpu_of(a, to), p.origin, p.final, part));
      pile(a, b, to).push_back({p.origin, p.final, part});
      bytes -= part;
      p.bytes -= part;
      if (p.bytes > 0) break;  // partly handed over: it stays first
    }
    src.erase(src.begin(), src.begin() + static_cast<std::ptrdiff_t>(taken));
  }

  // GPU i of A sends up to `budget` bytes to GPU i of B; what is not for
  // that GPU is forwarded in the next step.
  void scale_out(std::size_t a, std::size_t b, double budget, Step& step, Step& forward) {
    for (std::size_t i = 0; i < g_; ++i) {
      Pile& src = pile(a, b, i);
      const std::size_t from = srv_.gpu_of(a, i), relay = srv_.gpu_of(b, i);
      double left = budget;
      std::size_t taken = 0;
      for (; left > 0 && taken < src.size(); ++taken) {
        Piece& p = src[taken];
        double part = std::min(p.bytes, left);
        step.flows.push_back(make_.hop(from, relay, p.origin, p.final, part));
        if (p.final != relay) forward.flows.push_back(make_.hop(relay, p.final, p.origin, p.final, part));
        left -= part;
        p.bytes -= part;
        if (p.bytes > 0) break;
      }
      src.erase(src.begin(), src.begin() + static_cast<std::ptrdiff_t>(taken));
    }
  }

  const Demand& d_;
  FastOptions opts_;
  double intra_gbps_ = 0.0;
  detail::Servers srv_;
  detail::FlowMaker make_;
  std::size_t servers_, g_;
  std::vector<Pile> piles_;  // per (A, B, local GPU of A)
  std::vector<std::size_t> local_;  // a GPU's local index, by component id
};

}  // namespace

Schedule fast_schedule(const Topology& t, const Demand& demand, const FastOptions& opts) {
  demand.check_fits(t, "demand");
  return FastBuilder(t, demand, opts).build();
}

}  // namespace vp::sim
