// The online planner (docs/design.md §6): for each AlltoAllv call, an ordered
// list of steps that delivers every byte of the demand; by default the plan
// expected fastest under the machine model among a few candidates (plan.hpp,
// docs/planner.md "Plan shapes").
//
//   vpcat::CatalogFile file;                          // mapped + verified once
//   if (vpcat::Status s = vpcat::CatalogFile::open("cluster.vpcat", &file); !s.ok()) ...
//   vpcat::Planner planner;
//   if (vpcat::PlanStatus s = planner.init(file.view()); !s.ok()) ...   // allocates here
//   vpcat::Plan plan;                                 // reuse it call after call
//   vpcat::PlanStatus s = planner.plan(vpcat::Demand::dense(bytes, n), {}, plan);
//   for (std::size_t i = 0; i < plan.step_count(); ++i)
//     for (const vpcat::PlanTransfer* t = plan.step_transfers(i); ...; ++t)
//       launch(t->src, t->dst, t->bytes);             // planner.route_links(*t, ...) for its links
//
// Contracts:
// * init() reads the catalog once and keeps its own tables: the CatalogView
//   and its buffer may go away afterwards. It allocates, sizes the per-call
//   scratch (proportional to GPUs^2) and builds every table a plan reads,
//   the replay cycle included (from the pattern table: every image of the
//   stored patterns, tens of milliseconds whatever the GPU count; taken in
//   microseconds from a DerivedPatterns that holds it, so a job's next
//   membership does not pay it again: docs/planner.md "Replay"). It fails
//   with unsupported_catalog beyond the limits of docs/planner.md, or
//   out_of_memory.
// * plan() is noexcept and never throws nor aborts on bad input: every
//   problem with the demand or the options is a PlanStatus naming it (see
//   demand.hpp, plan.hpp). On failure `out` is left empty. It allocates
//   nothing unless `out` needs more room than it already has.
// * Memory comes from ::operator new(nothrow); a shortage is out_of_memory.
// * Thread safety: plan() uses the Planner's scratch, so one thread at a time
//   per Planner; the const queries may run concurrently with each other.
//   Use one Planner per thread to plan in parallel.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "vpcat/catalog_view.hpp"
#include "vpcat/derived_patterns.hpp"
#include "vpcat/planner/detail/buffer.hpp"
#include "vpcat/planner/detail/cluster_model.hpp"
#include "vpcat/planner/demand.hpp"
#include "vpcat/planner/demand_check.hpp"
#include "vpcat/planner/detail/greedy.hpp"
#include "vpcat/planner/plan.hpp"
#include "vpcat/planner/detail/shared_step.hpp"
#include "vpcat/planner/detail/shifted_steps.hpp"
#include "vpcat/planner/detail/estimator.hpp"
#include "vpcat/planner/catalog_machine.hpp"
#include "vpcat/planner/machine_model.hpp"
#include "vpcat/planner/status.hpp"
#include "vpcat/subset.hpp"

namespace vpcat {
inline namespace v0_1 {

class Planner {
 public:
  Planner() noexcept = default;
  Planner(Planner&&) noexcept = default;
  Planner& operator=(Planner&&) noexcept = default;
  Planner(const Planner&) = delete;
  Planner& operator=(const Planner&) = delete;

  // Derive the planner's tables from a verified catalog: plans cover every
  // GPU of its cluster, in catalog order.
  // `kept` (may be null; derived_patterns.hpp): the replay cycle kept there
  // by an earlier planner of this catalog is taken, a new one kept.
  PlanStatus init(const CatalogView& catalog, DerivedPatterns* kept = nullptr) noexcept {
    ready_ = false;
    if (PlanStatus s = subset_.assign_all(catalog); !s.ok()) return s;
    return init_subset(catalog, kept);
  }
  // The same for the GPUs of `subset` only (subset.hpp, docs/subsets.md):
  // demands and plans number them 0..subset.gpu_count()-1 in subset order;
  // catalog_gpu() maps them back. No re-analysis: a partial node's patterns
  // and symmetry are derived from its type's. The subset is copied.
  // `kept` (may be null; derived_patterns.hpp): derivations and replay
  // cycles of this catalog kept by earlier planners are taken from it, new
  // ones are kept in it.
  PlanStatus init(const CatalogView& catalog, const Subset& subset, DerivedPatterns* kept = nullptr) noexcept {
    ready_ = false;
    if (!subset_.copy_from(subset)) return PlanStatus::at(PlanError::out_of_memory, "planner", "copying the subset");
    return init_subset(catalog, kept);
  }
  // Pattern restrictions the last init ran: one per orbit of held sets
  // among the partial nodes, less those taken from `kept`. For tests and
  // benchmarks.
  std::uint32_t restrictions_run() const noexcept { return greedy_.stored().restrictions_run(); }
  bool ready() const noexcept { return ready_; }

  // The catalog's machine model, read by init(): its machine_model section
  // (format 1.2), or the class defaults of MachineModel (the judge's
  // calibrated table) when it has none (catalog_has_machine() false).
  const MachineModel& catalog_machine() const noexcept { return catalog_machine_; }
  bool catalog_has_machine() const noexcept { return catalog_has_machine_; }
  // The model a plan with `options` is made under: options.machine's when
  // given, else the catalog's.
  const MachineModel& machine(const PlanOptions& options) const noexcept {
    return options.machine.given() ? options.machine.model() : catalog_machine_;
  }

  // The planner's GPUs: rank r is the catalog's GPU catalog_gpu(r).
  const Subset& subset() const noexcept { return subset_; }
  std::uint64_t catalog_gpu(std::uint32_t rank) const noexcept {
    return rank < gpu_count() ? subset_.catalog_gpu(rank) : ~std::uint64_t{0};
  }
  // The catalog node of planner node n (n < node_count()).
  std::uint32_t catalog_node(std::uint32_t n) const noexcept { return n < node_count() ? model_.node(n).catalog_node : kNone; }
  // Patterns of the node type that planner node n sees (n < node_count()):
  // representatives, their orbits' total, the order of the symmetry group
  // acting on the node's GPUs and NICs (0: the catalog type's own), and
  // whether a partial node's derivation reached its bounds. For tools and
  // tests.
  struct NodePatterns {
    std::uint32_t representatives = 0;
    std::uint64_t patterns = 0;
    std::uint64_t group_order = 0;
    bool derived = false, truncated = false;
  };
  NodePatterns node_patterns(std::uint32_t n) const noexcept {
    NodePatterns p;
    if (n >= node_count()) return p;
    const detail::StoredPatterns& sp = greedy_.stored();
    const detail::StoredPatterns::Type& t = sp.type(model_.node(n).type);
    p.representatives = t.reps;
    for (std::uint32_t r = 0; r < t.reps; ++r) p.patterns += sp.orbit_size(t, r);
    p.group_order = t.group_order;
    p.derived = t.derived;
    p.truncated = t.truncated;
    return p;
  }

  // Plan `demand` into `out` (cleared first).
  PlanStatus plan(const Demand& demand, const PlanOptions& options, Plan& out) noexcept {
    out.clear();
    if (!ready_) return PlanStatus::at(PlanError::not_ready, "planner", "call init() with a catalog first");
    if (PlanStatus s = check(options); !s.ok()) return s;
    if (!prepare_scratch())
      return PlanStatus::at(PlanError::out_of_memory, "planner", "sizing the scratch for %u GPUs", gpu_count());
    resources_.set_model(model_, machine(options));
    shared_.begin_call(resources_, options.nic_loopback);
    if (PlanStatus s = greedy_.load(model_, demand); !s.ok()) return s;
    // The cuts of the whole demand, latency excluded: the plan's bound, and
    // what the shared step is held against (build()).
    const double endpoint_us = greedy_.endpoint_bound_us(model_);
    const double bound_us = greedy_.total_bytes() == 0 ? 0.0 : options.latency_us + endpoint_us;
    if (PlanStatus s = build(demand, options, endpoint_us, out); !s.ok()) {
      out.clear();
      return s;
    }
    out.gpus_ = gpu_count();
    out.total_bytes_ = greedy_.total_bytes();
    out.bound_us_ = bound_us;
    for (std::size_t i = 0; i < out.steps_.size(); ++i) out.generated_ += out.steps_[i].shifts != 0;
    return {};
  }

  // ---- compact plans (PlanOptions::compact, plan.hpp) ---------------------------------
  // The transfers of step `step` of `plan` (made by this planner) that GPU
  // `gpu` sends or receives, into out[0 .. min(count, capacity)); returns
  // count. sends[h]: the bytes `gpu` sends to GPU h in the planned demand,
  // receives[g]: those it receives from g (n entries each; a generated step
  // reads them, a listed one does not and they may be null). A generated
  // step costs O(its shifts) (per shift: the send, then the receive), a
  // listed one O(its transfers). 0 for a step or GPU out of range.
  std::size_t gpu_transfers(const Plan& plan, std::size_t step, std::uint32_t gpu, const std::uint64_t* sends,
                            const std::uint64_t* receives, PlanTransfer* out, std::size_t capacity) const noexcept {
    const std::uint32_t n = gpu_count();
    if (!ready_ || step >= plan.step_count() || gpu >= n || plan.gpus() != n) return 0;
    const PlanStep& st = plan.step(step);
    std::size_t k = 0;
    auto put = [&](const PlanTransfer& t) {
      if (k < capacity) out[k] = t;
      ++k;
    };
    if (st.shifts == 0) {
      const PlanTransfer* t = plan.step_transfers(step);
      for (std::uint32_t i = 0; i < st.count; ++i)
        if (t[i].src == gpu || t[i].dst == gpu) put(t[i]);
      return k;
    }
    if (sends == nullptr || receives == nullptr || st.first == 0 || st.first + st.shifts > n) return 0;
    for (std::uint64_t s = st.first; s < st.first + st.shifts; ++s) {
      const std::uint32_t h = static_cast<std::uint32_t>((gpu + s) % n);
      const std::uint32_t g = static_cast<std::uint32_t>((gpu + n - s) % n);
      detail::RouteRef p;
      if (sends[h] != 0) {
        const double solo = detail::SharedStep::default_route(model_, gpu, h, false, p);
        put(detail::direct_transfer(p, sends[h], solo));
      }
      if (receives[g] != 0) {
        const double solo = detail::SharedStep::default_route(model_, g, gpu, false, p);
        put(detail::direct_transfer(p, receives[g], solo));
      }
    }
    return k;
  }

  // `plan` (made by this planner for `demand`) with every step listed, into
  // `flat` (cleared first): the same steps, a generated step's transfers
  // shift by shift (for s, GPU g = 0 .. n-1 sends to g + s mod n). Fails with
  // the demand's errors, or plan_mismatch when a generated step does not
  // hold the payloads it says of this demand (another demand, planner or
  // GPU count).
  PlanStatus expand(const Plan& plan, const Demand& demand, Plan& flat) noexcept {
    if (&flat == &plan) return PlanStatus::at(PlanError::plan_mismatch, "plan", "expanding a plan into itself");
    flat.clear();
    if (!ready_) return PlanStatus::at(PlanError::not_ready, "planner", "call init() with a catalog first");
    const std::uint32_t n = gpu_count();
    if (plan.gpus() != n && plan.step_count() > 0)
      return PlanStatus::at(PlanError::plan_mismatch, "plan", "made for %llu GPUs, this planner has %u",
                            static_cast<unsigned long long>(plan.gpus()), n);
    if (!prepare_scratch())
      return PlanStatus::at(PlanError::out_of_memory, "planner", "sizing the scratch for %u GPUs", n);
    if (PlanStatus s = greedy_.load(model_, demand); !s.ok()) return s;
    const std::uint64_t* R = greedy_.remaining();
    std::size_t listed = plan.transfer_count();
    for (std::size_t i = 0; i < plan.step_count(); ++i)
      if (plan.step(i).shifts != 0) listed += plan.step(i).count;
    if (!flat.reserve(plan.step_count(), listed))
      return PlanStatus::at(PlanError::out_of_memory, "plan", "growing the plan to %zu transfers", listed);
    for (std::size_t i = 0; i < plan.step_count(); ++i) {
      PlanStep st = plan.step(i);
      const std::size_t first = flat.transfers_.size();
      if (st.shifts == 0) {
        const PlanTransfer* t = plan.step_transfers(i);
        for (std::uint32_t k = 0; k < st.count; ++k) flat.transfers_.push_back(t[k]);  // reserved above
      } else {
        if (st.first == 0 || st.first + st.shifts > n) {
          flat.clear();
          return PlanStatus::at(PlanError::plan_mismatch, "plan", "step %zu: shifts %llu..%llu, %u GPUs", i,
                                static_cast<unsigned long long>(st.first),
                                static_cast<unsigned long long>(st.first + st.shifts - 1), n);
        }
        std::size_t got = 0;  // payloads of the step's shifts; listed while within its count (reserved)
        detail::for_each_shifts_payload(model_, R, static_cast<std::uint32_t>(st.first), st.shifts,
                                        [&](const detail::RouteRef& p, std::uint64_t bytes, double solo) {
                                          if (++got <= st.count)
                                            flat.transfers_.push_back(detail::direct_transfer(p, bytes, solo));
                                        });
        if (got != st.count) {
          flat.clear();
          return PlanStatus::at(PlanError::plan_mismatch, "plan", "step %zu holds %u payloads, the demand has %zu",
                                i, st.count, got);
        }
      }
      st.first = first;
      st.shifts = 0;
      flat.steps_.push_back(st);  // reserved above
    }
    flat.gpus_ = plan.gpus();
    flat.expected_us_ = plan.expected_us();
    flat.bound_us_ = plan.bound_us();
    flat.total_bytes_ = plan.total_bytes();
    return {};
  }

  // The estimator's expectation of `plan` (made by this planner) under
  // machine(options) and options.latency_us: the sum of its steps'
  // (estimator.hpp; docs/planner.md "Expected time"). Negative when the
  // planner is not ready, the options are invalid, memory is short or the
  // plan has generated steps (expand() it first).
  double estimate_us(const Plan& plan, const PlanOptions& options) noexcept {
    if (!ready_ || !check(options).ok() || plan.generated_steps() != 0) return -1.0;
    if (!prepare_scratch()) return -1.0;
    resources_.set_model(model_, machine(options));
    return estimator_.plan_us(model_, resources_, plan, options.latency_us);
  }

  // ---- the cluster as the planner sees it ---------------------------------------------
  std::uint32_t gpu_count() const noexcept { return model_.gpu_count(); }
  std::uint32_t node_count() const noexcept { return model_.node_count(); }
  std::uint32_t node_of_gpu(std::uint32_t gpu) const noexcept { return gpu < gpu_count() ? model_.node_of_gpu(gpu) : kNone; }

  // ---- routes in global ids (SPEC.md "Global numbering") ---------------------------------
  // The links of a transfer's route, in order: writes min(count, capacity)
  // ids to `out` and returns count (0 for a transfer this planner cannot
  // have produced). max_route_links() bounds count for every transfer.
  std::uint32_t route_links(const PlanTransfer& t, std::uint64_t* out, std::uint32_t capacity) const noexcept {
    if (!valid(t)) return 0;
    std::uint32_t k = 0;
    return model_.for_each_link(t.src, t.dst, t.src_nic, t.dst_nic, [&](std::uint64_t id) {
      if (k < capacity) out[k] = id;
      ++k;
    });
  }
  // The forwarding components (global component ids) the route transits.
  std::uint32_t route_forwarders(const PlanTransfer& t, std::uint64_t* out, std::uint32_t capacity) const noexcept {
    if (!valid(t)) return 0;
    std::uint32_t k = 0;
    return model_.for_each_forwarder(t.src, t.dst, t.src_nic, t.dst_nic, [&](std::uint64_t id) {
      if (k < capacity) out[k] = id;
      ++k;
    });
  }
  std::uint32_t max_route_links() const noexcept { return model_.max_route_links(); }

  // Rounds of the replay cycle (docs/planner.md "Replay"), built by init
  // from the catalog's patterns; 0 when this cluster is planned by search
  // alone. For tools and tests.
  std::uint32_t replay_rounds() const noexcept { return greedy_.replay().round_count(); }

  // Share of the node type's maximal local patterns in which local GPU g
  // sends to (receives from) local NIC k: the figure that orders NIC choices
  // (cluster_model.hpp). For tools and tests.
  double nic_send_share(std::uint32_t type, std::uint32_t g, std::uint32_t k) const noexcept {
    return model_.send_share(model_.type(type), g, k);
  }
  double nic_recv_share(std::uint32_t type, std::uint32_t g, std::uint32_t k) const noexcept {
    return model_.recv_share(model_.type(type), g, k);
  }

 private:
  static constexpr double kNearBound = 1.02;

  // Size the per-call scratch once (at init); false when memory is short.
  bool prepare_scratch() noexcept {
    if (scratch_ready_) return true;
    scratch_ready_ = greedy_.prepare(model_) && resources_.prepare(model_) && shared_.prepare(model_, resources_) &&
                     estimator_.prepare(resources_) && shifted_.prepare(model_, resources_) && in_partners_.resize(gpu_count());
    return scratch_ready_;
  }

  PlanStatus init_subset(const CatalogView& catalog, DerivedPatterns* kept = nullptr) noexcept {
    scratch_ready_ = false;
    catalog_machine_ = MachineModel();
    catalog_has_machine_ = catalog_machine_model(catalog, &catalog_machine_);
    if (PlanStatus s = layout_.build(catalog, subset_); !s.ok()) return s;
    if (!greedy_.store_patterns(catalog, layout_, kept))
      return PlanStatus::at(PlanError::out_of_memory, "planner", "copying the catalog's patterns");
    if (PlanStatus s = model_.build(catalog, layout_, greedy_.stored()); !s.ok()) return s;
    // Every table a plan reads is built here, never by a plan: the replay
    // cycle (pattern table, cover and node matchings, ~30 ms unless `kept`
    // holds the cycle) and the per-call scratch.
    if (!greedy_.prepare_replay(model_, catalog, layout_, kept))
      return PlanStatus::at(PlanError::out_of_memory, "planner", "expanding the catalog's patterns for the replay");
    if (!prepare_scratch())
      return PlanStatus::at(PlanError::out_of_memory, "planner", "sizing the scratch for %u GPUs", gpu_count());
    ready_ = true;
    return {};
  }

  // The plan of the loaded demand (docs/planner.md "Plan shapes"). By
  // default whichever is expected shortest under machine(options) of: the
  // shared step alone, shifted permutations, channel steps, or channel
  // steps up to a checkpoint and the shared step for the rest. With
  // channels_only: channel steps; with allow_shared too, the shortest of the
  // channel steps, the shared step and the checkpoints. `endpoint_us`: the
  // loaded demand's cut bound, latency excluded.
  PlanStatus build(const Demand& demand, const PlanOptions& options, double endpoint_us, Plan& out) noexcept {
    if (options.channels_only && !options.allow_shared) {
      std::size_t none = 0;
      bool gave_up = false;
      return greedy_.run(model_, options, std::numeric_limits<double>::infinity(), out.steps_, out.transfers_,
                         out.expected_us_, gave_up, nullptr, nullptr, none);
    }
    // The shared step's expectation; within kNearBound of a bound no plan
    // can beat, it is kept without searching further.
    const double near_us = detail::SharedStep::kMargin * kNearBound * (options.latency_us + endpoint_us);
    const double shared_us = shared_.expected_us(model_, greedy_.remaining(), options.latency_us);
    if (shared_us <= near_us)
      return shared_.emit(model_, greedy_.remaining(), options.latency_us, true, options.compact, out.steps_,
                          out.transfers_, out.expected_us_);
    // Shifted permutations (not with channels_only), 1, 4, 16, ... shifts
    // per step, all sizes in one pass, each given up once its expectation
    // passes the shared step's.
    double shifted_us = std::numeric_limits<double>::infinity();
    shift_group_ = 1;
    if (!options.channels_only)
      shifted_us = shifted_.best_us(model_, resources_, greedy_.remaining(), options.latency_us, shared_us,
                                    options.max_steps, shift_group_);
    const bool shifted = shifted_us < shared_us;
    if (shifted && shifted_us <= near_us) return shifted_rest(options, out);
    const double other_us = shifted ? shifted_us : shared_us;
    // A one-port plan needs a step per partner of its busiest GPU: when the
    // other candidate is no longer than that many start-ups, channel steps
    // (and checkpoints, most of whose bytes they carry) are not searched.
    if (other_us <= options.latency_us * most_partners(greedy_.remaining()))
      return shifted ? shifted_rest(options, out)
                     : shared_.emit(model_, greedy_.remaining(), options.latency_us, true, options.compact,
                                    out.steps_, out.transfers_, out.expected_us_);
    // Channel steps, given up once their expected times add up to more than
    // the other candidate's.
    bool gave_up = false;
    detail::Greedy::Checkpoint marks[detail::Greedy::kMaxCheckpoints];
    std::size_t mark_count = 0;
    if (PlanStatus s = greedy_.run(model_, options, other_us, out.steps_, out.transfers_, out.expected_us_,
                                   gave_up, &shared_, marks, mark_count);
        !s.ok())
      return s;
    // The best checkpoint, if one beats the channel steps to the end (or,
    // when they were given up, the other candidate).
    std::size_t best = mark_count;
    double best_us = gave_up ? other_us : out.expected_us_;
    for (std::size_t k = 0; k < mark_count; ++k) {
      if (marks[k].expected_us + marks[k].rest_us < best_us) best = k, best_us = marks[k].expected_us + marks[k].rest_us;
    }
    if (best == mark_count) {
      if (!gave_up) return {};
      if (!shifted) return shared_rest(demand, options, 0, 0, 0.0, out);
      if (PlanStatus s = greedy_.load(model_, demand); !s.ok()) return s;  // the greedy consumed it
      return shifted_rest(options, out);
    }
    return shared_rest(demand, options, marks[best].steps, marks[best].transfers, marks[best].expected_us, out);
  }

  // The most GPUs any GPU sends to or receives from in the n x n demand R,
  // in one row-major pass (the receivers' counts in in_partners_).
  std::uint32_t most_partners(const std::uint64_t* R) noexcept {
    const std::uint32_t n = gpu_count();
    std::uint32_t most = 0;
    std::uint32_t* in = in_partners_.data();
    for (std::uint32_t h = 0; h < n; ++h) in[h] = 0;
    for (std::uint32_t g = 0; g < n; ++g) {
      const std::uint64_t* row = R + std::size_t{g} * n;
      std::uint32_t out = 0;
      for (std::uint32_t h = 0; h < n; ++h) {
        const std::uint32_t x = g != h && row[h] != 0;
        out += x;
        in[h] += x;
      }
      if (out > most) most = out;
    }
    for (std::uint32_t h = 0; h < n; ++h)
      if (in[h] > most) most = in[h];
    return most;
  }

  // The loaded demand (greedy_.remaining()) as shifted permutations, alone in `out`.
  PlanStatus shifted_rest(const PlanOptions& options, Plan& out) noexcept {
    out.steps_.clear();
    out.transfers_.clear();
    out.expected_us_ = 0.0;
    std::size_t known = 0;
    const detail::StepEstimator::Result* steps = shifted_.steps(shift_group_, known);
    return detail::ShiftedSteps::emit(model_, resources_, estimator_, greedy_.remaining(), options.latency_us,
                                      shift_group_, steps, known, options.compact, out.steps_, out.transfers_,
                                      out.expected_us_);
  }

  // Keep the first `steps` steps (`transfers` transfers, expected_us) of
  // `out` and carry the rest of the demand in one shared step.
  PlanStatus shared_rest(const Demand& demand, const PlanOptions& options, std::size_t steps, std::size_t transfers,
                         double expected_us, Plan& out) noexcept {
    out.steps_.resize(steps);          // shrinking: cannot fail
    out.transfers_.resize(transfers);
    out.expected_us_ = expected_us;
    if (PlanStatus s = greedy_.load(model_, demand); !s.ok()) return s;  // the greedy consumed it
    greedy_.subtract(out.transfers_.data(), out.transfers_.size());
    return shared_.emit(model_, greedy_.remaining(), options.latency_us, false, options.compact && steps == 0,
                        out.steps_, out.transfers_, out.expected_us_);
  }

  static PlanStatus check(const PlanOptions& o) noexcept {
    if (!(o.latency_us >= 0) || !std::isfinite(o.latency_us))
      return PlanStatus::at(PlanError::bad_options, "options.latency_us", "%g: must be a finite number >= 0",
                            o.latency_us);
    if (!(o.min_step_latencies >= 0) || !std::isfinite(o.min_step_latencies))
      return PlanStatus::at(PlanError::bad_options, "options.min_step_latencies", "%g: must be a finite number >= 0",
                            o.min_step_latencies);
    if (o.chunk_align_bytes == 0)
      return PlanStatus::at(PlanError::bad_options, "options.chunk_align_bytes", "0: must be at least 1");
    if (o.max_steps == 0) return PlanStatus::at(PlanError::bad_options, "options.max_steps", "0: must be at least 1");
    if (const char* field = o.machine.model().invalid_field())
      return PlanStatus::at(PlanError::bad_options, field,
                            "out of range (slopes finite >= 0, floors in (0, 1], at most %u CPU families with "
                            "NUL-terminated matches, chunk bytes > 0, chunk overhead >= 0)",
                            MachineModel::kMaxFamilies);
    return {};
  }
  bool valid(const PlanTransfer& t) const noexcept {
    if (!ready_ || t.src >= gpu_count() || t.dst >= gpu_count() || t.src == t.dst) return false;
    const std::uint32_t a = model_.node_of_gpu(t.src), b = model_.node_of_gpu(t.dst);
    if (t.src_nic == kNoNic || t.dst_nic == kNoNic) return a == b && t.src_nic == t.dst_nic;
    if (!model_.has_fabric() || t.src_nic >= model_.type_of(a).nics || t.dst_nic >= model_.type_of(b).nics)
      return false;
    // A NIC loopback (PlanOptions::nic_loopback): two NICs of one switch.
    return a != b || model_.can_loop(a, t.src_nic, t.dst_nic);
  }

  Subset subset_;
  detail::SubsetLayout layout_;
  detail::ClusterModel model_;
  detail::Greedy greedy_;
  detail::Resources resources_;       // capacities and curves under the call's machine model
  detail::StepEstimator estimator_;  // the shifted permutations'
  detail::ShiftedGroups shifted_;    // the shifted candidate's group sizes, estimated in one pass
  detail::PodBuffer<std::uint32_t> in_partners_;  // most_partners()' per-GPU count of senders
  detail::SharedStep shared_;
  std::uint32_t shift_group_ = 1;    // shifts per step of the best shifted candidate of the call
  MachineModel catalog_machine_;      // init(): the catalog's, or the class defaults
  bool catalog_has_machine_ = false;
  bool ready_ = false;
  bool scratch_ready_ = false;
};

}  // namespace v0_1
}  // namespace vpcat
