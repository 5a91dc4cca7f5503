// The replay (docs/planner.md "Replay") and the pattern-image test of the
// planner's steps: every node's part of every channel step, replayed or
// searched, is contained in the image of a stored orbit representative of
// its node type. Checked through the analyzer, not the planner: the part is
// contention-free in the node's own Topology (vp::check_contention), any
// maximal extension of it (roles added while contention-free) is then a
// maximal local pattern, and its canonical form (vp::canonical_pattern,
// bliss) must be the canonical form of one of the catalog's
// representatives. The catalogs of these platforms hold every orbit
// (patterns_complete), so a part outside them would be a channel the
// catalog does not know, or no channel at all.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "planner_support.hpp"
#include "vp/analysis/contention.hpp"
#include "vp/analysis/local_patterns.hpp"
#include "vp/catalog/reader.hpp"

using namespace vp::plantest;
using vp::catalog::LocalPattern;

namespace {

Platform& mut(const Platform& p) { return const_cast<Platform&>(p); }

// One node type as the analyzer sees it: the node with its network ports,
// and the canonical forms of the catalog's representatives.
struct TypeCheck {
  vp::Topology ported;
  std::vector<double> ports;  // per local NIC: fabric port GB/s (0: no GPU traffic)
  std::set<std::string> certificates;
  std::size_t reps = 0;
  bool complete = false;
};

TypeCheck type_check(const Platform& p, std::uint32_t type) {
  const vp::catalog::NodeType nt = vp::catalog::read_catalog(p.bytes).node_types.at(type);
  TypeCheck t;
  PortedNodeType node = ported_node_type(p, type);
  t.ported = std::move(node.ported);
  t.ports = std::move(node.ports);
  for (const LocalPattern& rep : nt.patterns) t.certificates.insert(vp::canonical_pattern(t.ported, rep).certificate);
  t.reps = nt.patterns.size();
  t.complete = nt.patterns_complete;
  return t;
}

bool contention_free(const TypeCheck& t, const LocalPattern& x) {
  const std::vector<vp::Transfer> transfers = vp::pattern_transfers(t.ported, x);
  return vp::check_contention(t.ported, transfers).ok();
}

// A maximal extension: every idle role, in a fixed order, made active where
// the pattern stays contention-free (one pass suffices: adding a flow never
// makes room for another).
LocalPattern extend(const TypeCheck& t, LocalPattern x) {
  const std::size_t G = x.send.size();
  auto try_role = [&](auto&& set, auto&& unset) {
    set();
    if (!contention_free(t, x)) unset();
  };
  for (std::size_t g = 0; g < G; ++g) {
    for (std::size_t h = 0; h < G && x.send[g] == vp::catalog::kIdle; ++h)
      if (h != g && x.recv[h] == vp::catalog::kIdle)
        try_role([&] { x.send[g] = static_cast<std::int32_t>(h), x.recv[h] = static_cast<std::int32_t>(g); },
                 [&] { x.send[g] = x.recv[h] = vp::catalog::kIdle; });
    for (std::size_t k = 0; k < t.ports.size() && x.send[g] == vp::catalog::kIdle; ++k)
      if (t.ports[k] > 0)
        try_role([&] { x.send[g] = vp::catalog::kNicBase + static_cast<std::int32_t>(k); },
                 [&] { x.send[g] = vp::catalog::kIdle; });
  }
  for (std::size_t g = 0; g < G; ++g)
    for (std::size_t k = 0; k < t.ports.size() && x.recv[g] == vp::catalog::kIdle; ++k)
      if (t.ports[k] > 0)
        try_role([&] { x.recv[g] = vp::catalog::kNicBase + static_cast<std::int32_t>(k); },
                 [&] { x.recv[g] = vp::catalog::kIdle; });
  return x;
}

// Every node's part of every channel step of `plan`, deduplicated.
std::set<std::pair<std::uint32_t, std::pair<std::vector<std::int32_t>, std::vector<std::int32_t>>>> node_parts(
    const Platform& p, const vpcat::Plan& plan) {
  std::set<std::pair<std::uint32_t, std::pair<std::vector<std::int32_t>, std::vector<std::int32_t>>>> out;
  const std::uint32_t N = p.view.node_count();
  for (std::size_t i = 0; i < plan.step_count(); ++i) {
    if (plan.step(i).shared) continue;
    std::vector<LocalPattern> parts(N);
    for (std::uint32_t a = 0; a < N; ++a) {
      const std::uint32_t G = p.view.node_type(p.view.node(a).node_type).gpu_count();
      parts[a].send.assign(G, vp::catalog::kIdle);
      parts[a].recv.assign(G, vp::catalog::kIdle);
    }
    const vpcat::PlanTransfer* t = plan.step_transfers(i);
    for (std::uint32_t k = 0; k < plan.step(i).count; ++k) {
      const std::uint32_t a = p.planner.node_of_gpu(t[k].src), b = p.planner.node_of_gpu(t[k].dst);
      const std::uint32_t g = t[k].src - static_cast<std::uint32_t>(p.view.node(a).first_gpu);
      const std::uint32_t h = t[k].dst - static_cast<std::uint32_t>(p.view.node(b).first_gpu);
      if (t[k].src_nic == vpcat::kNoNic) {
        parts[a].send[g] = static_cast<std::int32_t>(h);
        parts[a].recv[h] = static_cast<std::int32_t>(g);
      } else {
        parts[a].send[g] = vp::catalog::kNicBase + t[k].src_nic;
        parts[b].recv[h] = vp::catalog::kNicBase + t[k].dst_nic;
      }
    }
    for (std::uint32_t a = 0; a < N; ++a)
      out.insert({p.view.node(a).node_type, {parts[a].send, parts[a].recv}});
  }
  return out;
}

// "" when every node part of the plan is in the image of a stored
// representative; else the first that is not.
std::string check_images(const Platform& p, const vpcat::Plan& plan) {
  std::vector<TypeCheck> types;
  for (std::uint32_t t = 0; t < p.view.node_type_count(); ++t) types.push_back(type_check(p, t));
  for (const auto& [type, roles] : node_parts(p, plan)) {
    const TypeCheck& t = types[type];
    if (!t.complete) return "node type " + std::to_string(type) + ": the catalog's patterns are incomplete";
    LocalPattern x;
    x.send = roles.first;
    x.recv = roles.second;
    if (!contention_free(t, x)) return "a node part is not contention-free";
    const LocalPattern full = extend(t, x);
    if (!t.certificates.count(vp::canonical_pattern(t.ported, full).certificate))
      return "a node part's maximal extension is not in any stored orbit";
  }
  return "";
}

vpcat::Plan plan_of(const Platform& p, const Matrix& d, bool replay, bool loopback = false) {
  vpcat::PlanOptions o = channels_only();
  o.replay = replay;
  o.nic_loopback = loopback;
  vpcat::Plan plan;
  const vpcat::PlanStatus s = mut(p).planner.plan(vpcat::Demand::dense(d.data(), p.gpus), o, plan);
  REQUIRE_MESSAGE(s.ok(), s.message());
  return plan;
}

}  // namespace

TEST_CASE("the test's certificates tell orbits apart, and a non-maximal pattern from a maximal one") {
  const Platform& p = platform("1n");
  const TypeCheck t = type_check(p, 0);
  REQUIRE(t.complete);
  CHECK(t.certificates.size() == t.reps);  // one orbit per representative
  const vp::catalog::Catalog cat = vp::catalog::read_catalog(p.bytes);
  std::size_t checked = 0;
  for (const LocalPattern& rep : cat.node_types[0].patterns) {
    CHECK(contention_free(t, rep));
    CHECK(extend(t, rep) == rep);  // maximal: nothing can be added
    // Without one of its roles a representative is no longer maximal: its
    // certificate is no stored one, and its extension finds the orbit again.
    LocalPattern less = rep;
    std::size_t g = 0;
    while (g < less.send.size() && less.send[g] == vp::catalog::kIdle) ++g;
    if (g == less.send.size()) continue;
    if (less.send[g] < vp::catalog::kNicBase) less.recv[static_cast<std::size_t>(less.send[g])] = vp::catalog::kIdle;
    less.send[g] = vp::catalog::kIdle;
    CHECK(t.certificates.count(vp::canonical_pattern(t.ported, less).certificate) == 0);
    CHECK(t.certificates.count(vp::canonical_pattern(t.ported, extend(t, less)).certificate) == 1);
    ++checked;
  }
  CHECK(checked > 0);
  // A part that overloads a forwarder is caught: every GPU of one socket
  // sending across it at once.
  LocalPattern over;
  over.send.assign(8, vp::catalog::kIdle);
  over.recv.assign(8, vp::catalog::kIdle);
  for (std::int32_t g = 0; g < 4; ++g) over.send[g] = g + 4, over.recv[g + 4] = g;
  CHECK_FALSE(contention_free(t, over));
}

TEST_CASE("replayed and searched plans: every node part is an image of a stored pattern") {
  struct Case {
    const char* platform;
    bool replay;
    bool loopback = false;  // PlanOptions::nic_loopback: a node part may hold both ends of a flow through its NICs
  };
  for (const Case c : {Case{"1n", true}, Case{"4n-switch", true}, Case{"4n-switch", false}, Case{"16n-rail", true},
                       Case{"g6-3n", true}, Case{"2n-half-gpudirect", true}, Case{"5n-leafspine-tight", true},
                       Case{"h20-2n", true, true}, Case{"4n-switch", false, true}}) {
    const Platform& p = platform(c.platform);
    for (const auto& [what, d] : std::vector<std::pair<std::string, Matrix>>{
             {"uniform", uniform(p.gpus, 1 << 20)},
             {"zipf 1.2", zipf_moe(p.gpus, 1.2, 5, 256)},
             {"random", random_dense(p.gpus, 1 << 22, 0.1, 11)}}) {
      INFO(c.platform << (c.replay ? " (replay)" : " (search)") << (c.loopback ? ", NIC loopback" : "") << ", "
                      << what);
      const vpcat::Plan plan = plan_of(p, d, c.replay, c.loopback);
      CHECK(check_plan(p, d, plan) == "");
      CHECK(check_images(p, plan) == "");
    }
  }
}

namespace {

// The uniform plan of `p` replayed (a 16-round cycle: a node pair's 64 GPU
// pairs over 4 NICs) and within 2 % of the searched plan's expected time.
vpcat::Plan replayed_uniform(const Platform& p, const char* name) {
  const Matrix u = uniform(p.gpus, 1 << 20);
  vpcat::Plan replayed = plan_of(p, u, true);
  CHECK(p.planner.replay_rounds() == 16);
  const vpcat::Plan searched = plan_of(p, u, false);
  MESSAGE(std::string(name) << " uniform: replay " << replayed.expected_us() << " us in " << replayed.step_count()
               << " steps, search " << searched.expected_us() << " us in " << searched.step_count());
  CHECK(replayed.expected_us() <= 1.02 * searched.expected_us());
  return replayed;
}

}  // namespace

TEST_CASE("the replay: where its cycle pays, and what it costs against the search") {
  // The evaluation node (8 GPUs, 4 NICs, one per PCIe switch): a node pair's
  // 64 GPU pairs need at least 64 / 4 = 16 rounds, and the cover finds them.
  const Platform& sw = platform("4n-switch");
  const Matrix u = uniform(sw.gpus, 1 << 20);
  const vpcat::Plan replayed = replayed_uniform(sw, "4n-switch");
  // On rails the replay keeps NIC k to NIC k, so GPUs on other switches need
  // PCIe detours and the cover is far longer than 16 rounds: not replayed.
  const Platform& rail = platform("16n-rail");
  (void)plan_of(rail, uniform(rail.gpus, 1 << 20), true);
  CHECK(rail.planner.replay_rounds() == 0);
  // Two node types: the cycle is per type, not built.
  const Platform& mixed = platform("mixed-4n");
  (void)plan_of(mixed, uniform(mixed.gpus, 1 << 20), true);
  CHECK(mixed.planner.replay_rounds() == 0);
  // A replayed plan and a searched one deliver the same bytes, and both are
  // channels (check_plan); the replay is deterministic.
  CHECK(check_plan(sw, u, replayed) == "");
  const vpcat::Plan again = plan_of(sw, u, true);
  CHECK(plan_difference(again, replayed) == "");
}

TEST_CASE("the replay on the 256-GPU leaf/spine platform") {
  if (small_property_run()) {
    MESSAGE("VP_PROPERTY_RUN=small: the 256-GPU platform runs in the unit phase only");
    return;
  }
  const Platform& p = platform("32n-leafspine");
  const Matrix u = uniform(p.gpus, 1 << 20);
  const vpcat::Plan replayed = replayed_uniform(p, "32n-leafspine");
  CheckOptions c;
  c.max_route_checks = 3000;
  CHECK(check_plan(p, u, replayed, c) == "");
  CHECK(check_images(p, replayed) == "");
}

TEST_CASE("the replay: its cycle is built by init, and skewed demands are left to the search") {
  const Platform& p = platform("4n-switch");
  vpcat::Planner fresh;
  REQUIRE(fresh.init(p.view).ok());
  CHECK(fresh.replay_rounds() == 16);  // before any plan: no plan builds a table
  // A receiver of 10x the bytes: above 1.25x the mean, so not replayed; the
  // plan is the search's, transfer for transfer.
  const Matrix hot = hot_spot(p.gpus, 1 << 20, 1, 10);
  vpcat::PlanOptions on, off;
  off.replay = false;
  vpcat::Plan a, b;
  REQUIRE(fresh.plan(vpcat::Demand::dense(hot.data(), p.gpus), on, a).ok());
  REQUIRE(fresh.plan(vpcat::Demand::dense(hot.data(), p.gpus), off, b).ok());
  REQUIRE(a.transfer_count() == b.transfer_count());
  CHECK(a.step_count() == b.step_count());
  CHECK(a.expected_us() == b.expected_us());
}

TEST_CASE("the replay cycle kept across planners: taken, the same plans, and bad words refused") {
  const Platform& p = platform("4n-switch");
  const Matrix u = uniform(p.gpus, 1 << 20);
  vpcat::PlanOptions o;
  o.channels_only = true;  // the replay's own steps
  vpcat::Planner alone;
  REQUIRE(alone.init(p.view).ok());
  vpcat::Plan reference;
  REQUIRE(alone.plan(vpcat::Demand::dense(u.data(), p.gpus), o, reference).ok());
  // The first planner keeps its cycle; the next takes it, and plans the same.
  vpcat::DerivedPatterns kept;
  vpcat::Planner first, second;
  REQUIRE(first.init(p.view, &kept).ok());
  CHECK(kept.cycle_count() == 1);
  REQUIRE(second.init(p.view, &kept).ok());
  CHECK(kept.cycle_count() == 1);
  CHECK(second.replay_rounds() == 16);
  vpcat::Plan taken;
  REQUIRE(second.plan(vpcat::Demand::dense(u.data(), p.gpus), o, taken).ok());
  CHECK(plan_difference(reference, taken) == "");
  // A job of two of the four nodes (whole, in order) keys the same cycle:
  // it takes it, and builds only its node matchings.
  std::vector<std::uint64_t> first_half(p.gpus / 2);
  for (std::size_t g = 0; g < first_half.size(); ++g) first_half[g] = g;
  vpcat::Subset half;
  REQUIRE(half.assign_gpus(p.view, first_half.data(), first_half.size()).ok());
  vpcat::Planner part, part_alone;
  REQUIRE(part.init(p.view, half, &kept).ok());
  REQUIRE(part_alone.init(p.view, half).ok());
  CHECK(kept.cycle_count() == 1);
  CHECK(part.replay_rounds() == 16);
  const Matrix uh = uniform(p.gpus / 2, 1 << 20);
  vpcat::Plan x, y;
  REQUIRE(part.plan(vpcat::Demand::dense(uh.data(), p.gpus / 2), o, x).ok());
  REQUIRE(part_alone.plan(vpcat::Demand::dense(uh.data(), p.gpus / 2), o, y).ok());
  CHECK(plan_difference(x, y) == "");
  // Words that hold no cycle of this type (a role's GPU or NIC out of
  // range, a count that does not add up) leave the replay off: the search
  // plans, and every plan is still a channel plan delivering every byte.
  for (int bad = 0; bad < 3; ++bad) {
    // Replay::save's layout: 1 round, 0 options, 1 role; the round's one
    // network role (first 0, count 1), no option; the role GPU 99 -> 1
    // through NICs 0 and 0.
    std::vector<std::uint64_t> w = {1, 0, 1, 1, 0, std::uint64_t{99} << 48 | std::uint64_t{1} << 32};
    if (bad == 1) w[0] = 5, w[5] = std::uint64_t{1} << 32;           // a valid role, five rounds in the words of one
    if (bad == 2) w[5] = std::uint64_t{1} << 32 | std::uint64_t{77} << 16;  // GPU 0 -> 1 from NIC 77 of 4
    vpcat::DerivedPatterns planted;
    // Under every flavour (the cycle's kind: one node, switch, rails), so
    // that the planner's key for this node type (catalog type 0, its eight
    // GPUs in order) is among them.
    for (std::uint32_t flavour = 0; flavour < 8; ++flavour)
      REQUIRE(planted.insert_cycle(p.view, 0, 0xff, flavour, w.data(), w.size()));
    vpcat::Planner q;
    REQUIRE(q.init(p.view, &planted).ok());
    CHECK(q.replay_rounds() == 0);
    vpcat::Plan searched;
    REQUIRE(q.plan(vpcat::Demand::dense(u.data(), p.gpus), o, searched).ok());
    CHECK(check_plan(p, u, searched) == "");
  }
}
