// Subsets (docs/subsets.md): the Subset rules, the derived patterns of a
// partial node against an independent derivation, and plans over random
// subsets of every platform checked by the analyzer's contention checker.
//
// The derived patterns of held GPUs S are checked three ways:
// * against the definition, computed here without the runtime's algebra:
//   every image of every stored orbit (a breadth-first walk under the
//   type's generators), restricted to S, the maximal ones kept;
// * against the analyzer: each derived pattern, its other GPUs idle, is
//   contention-free in the node (vp::check_contention) and no role of a
//   held GPU can be added (maximal on the sub-machine: a fresh analysis of
//   the node without the other GPUs sees the same links and forwarders);
// * the derived group's order against the elements of Aut (listed by
//   closure) that map S onto itself, counted by their action on S and the NICs.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "planner_support.hpp"
#include "vp/analysis/contention.hpp"
#include "vp/analysis/local_patterns.hpp"
#include "vpcat/derived_patterns.hpp"
#include "vpcat/planner/detail/stored_patterns.hpp"
#include "vpcat/subset.hpp"

using namespace vp::plantest;
using vp::catalog::LocalPattern;

namespace {

using Roles = std::vector<std::int16_t>;  // compact roles: 2 x gpus

struct Compact {
  std::uint32_t gpus = 0, nics = 0;
  std::vector<Roles> reps;
  std::vector<std::uint64_t> orbits;
  std::vector<std::vector<std::uint16_t>> gens;
  std::uint64_t group_order = 0;
  bool truncated = false;
};

Compact compact_of(const vpcat::detail::StoredPatterns& sp, std::uint32_t type) {
  const auto& t = sp.type(type);
  Compact c;
  c.gpus = t.gpus, c.nics = t.nics, c.group_order = t.group_order, c.truncated = t.truncated;
  for (std::uint32_t r = 0; r < t.reps; ++r) {
    c.reps.emplace_back(sp.rep(t, r), sp.rep(t, r) + 2 * t.gpus);
    c.orbits.push_back(sp.orbit_size(t, r));
  }
  for (std::uint32_t p = 0; p < t.generators; ++p)
    c.gens.emplace_back(sp.generator(t, p), sp.generator(t, p) + t.gpus + t.nics);
  return c;
}

Roles apply(const Compact& c, const std::vector<std::uint16_t>& g, const Roles& x) {
  const std::uint32_t G = c.gpus;
  Roles y(2 * G, -1);
  auto map = [&](std::int16_t r) -> std::int16_t {
    if (r < 0) return r;
    if (static_cast<std::uint32_t>(r) < G) return static_cast<std::int16_t>(g[static_cast<std::size_t>(r)]);
    return static_cast<std::int16_t>(G + g[static_cast<std::size_t>(r)]);
  };
  for (std::uint32_t a = 0; a < G; ++a) {
    y[g[a]] = map(x[a]);
    y[G + g[a]] = map(x[G + a]);
  }
  return y;
}

std::set<Roles> orbit(const Compact& c, const Roles& x) {
  std::set<Roles> seen{x};
  std::vector<Roles> todo{x};
  while (!todo.empty()) {
    const Roles y = todo.back();
    todo.pop_back();
    for (const auto& g : c.gens) {
      Roles z = apply(c, g, y);
      if (seen.insert(z).second) todo.push_back(std::move(z));
    }
  }
  return seen;
}

std::set<Roles> all_images(const Compact& c) {
  std::set<Roles> out;
  for (const Roles& r : c.reps) {
    const std::set<Roles> o = orbit(c, r);
    out.insert(o.begin(), o.end());
  }
  return out;
}

bool within(const Roles& a, const Roles& b) {  // every active role of a is one of b
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] >= 0 && a[i] != b[i]) return false;
  return true;
}

// The definition: restrictions of every image to `held`, maximal ones.
std::set<Roles> reference(const Compact& full, const std::vector<std::uint16_t>& held) {
  const std::uint32_t G = full.gpus, m = static_cast<std::uint32_t>(held.size());
  std::vector<int> pos(G, -1);
  for (std::uint32_t i = 0; i < m; ++i) pos[held[i]] = static_cast<int>(i);
  std::set<Roles> restricted;
  for (const Roles& q : all_images(full)) {
    Roles r(2 * m, -1);
    bool any = false;
    for (std::uint32_t i = 0; i < m; ++i)
      for (std::uint32_t side = 0; side < 2; ++side) {
        const std::int16_t role = q[side * G + held[i]];
        if (role < 0) continue;
        if (static_cast<std::uint32_t>(role) < G) {
          if (pos[static_cast<std::size_t>(role)] < 0) continue;
          r[side * m + i] = static_cast<std::int16_t>(pos[static_cast<std::size_t>(role)]);
        } else {
          r[side * m + i] = static_cast<std::int16_t>(m + static_cast<std::uint32_t>(role) - G);
        }
        any = true;
      }
    if (any) restricted.insert(r);
  }
  std::vector<Roles> v(restricted.begin(), restricted.end());
  std::set<Roles> out;
  for (const Roles& a : v) {
    bool max = true;
    for (const Roles& b : v)
      if (a != b && within(a, b)) {
        max = false;
        break;
      }
    if (max) out.insert(a);
  }
  return out;
}

// |{ g in Aut : g(S) = S }| counted by the action on S and the NICs.
std::uint64_t stabilizer_order(const Compact& full, const std::vector<std::uint16_t>& held) {
  const std::uint32_t n = full.gpus + full.nics;
  std::vector<std::uint16_t> id(n);
  std::iota(id.begin(), id.end(), 0);
  std::set<std::vector<std::uint16_t>> group{id};
  std::vector<std::vector<std::uint16_t>> todo{id};
  while (!todo.empty()) {
    const auto x = todo.back();
    todo.pop_back();
    for (const auto& g : full.gens) {  // NIC images are NIC indexes: point gpus + k
      auto point = [&](std::uint16_t i) {
        return static_cast<std::uint16_t>(i < full.gpus ? g[i] : full.gpus + g[i]);
      };
      std::vector<std::uint16_t> y(n);
      for (std::uint32_t i = 0; i < n; ++i) y[i] = point(x[i]);
      if (group.insert(y).second) todo.push_back(std::move(y));
    }
  }
  std::set<std::uint16_t> s(held.begin(), held.end());
  std::set<std::vector<std::uint16_t>> actions;
  for (const auto& g : group) {
    bool keeps = true;
    for (std::uint16_t x : held) keeps = keeps && s.count(g[x]);
    if (!keeps) continue;
    std::vector<std::uint16_t> a;
    for (std::uint16_t x : held) a.push_back(g[x]);
    for (std::uint32_t k = 0; k < full.nics; ++k) a.push_back(g[full.gpus + k]);
    actions.insert(a);
  }
  return actions.size();
}

bool contention_free(const PortedNodeType& a, const LocalPattern& x) {
  return vp::check_contention(a.ported, vp::pattern_transfers(a.ported, x)).ok();
}
// A derived pattern as a pattern of the whole node (other GPUs idle).
LocalPattern lift(const Roles& r, std::uint32_t G, const std::vector<std::uint16_t>& held) {
  const std::uint32_t m = static_cast<std::uint32_t>(held.size());
  LocalPattern x;
  x.send.assign(G, vp::catalog::kIdle);
  x.recv.assign(G, vp::catalog::kIdle);
  for (std::uint32_t i = 0; i < m; ++i)
    for (std::uint32_t side = 0; side < 2; ++side) {
      const std::int16_t role = r[side * m + i];
      if (role < 0) continue;
      const std::int32_t v = static_cast<std::uint32_t>(role) < m
                                 ? static_cast<std::int32_t>(held[static_cast<std::size_t>(role)])
                                 : vp::catalog::kNicBase + (role - static_cast<std::int32_t>(m));
      (side == 0 ? x.send : x.recv)[held[i]] = v;
    }
  return x;
}
// Can a role of a held GPU be added with the pattern still contention-free?
bool extensible(const PortedNodeType& a, LocalPattern x, const std::vector<std::uint16_t>& held) {
  for (std::uint16_t g : held) {
    if (x.send[g] == vp::catalog::kIdle) {
      for (std::uint16_t h : held)
        if (h != g && x.recv[h] == vp::catalog::kIdle) {
          LocalPattern y = x;
          y.send[g] = h, y.recv[h] = g;
          if (contention_free(a, y)) return true;
        }
      for (std::size_t k = 0; k < a.ports.size(); ++k)
        if (a.ports[k] > 0) {
          LocalPattern y = x;
          y.send[g] = vp::catalog::kNicBase + static_cast<std::int32_t>(k);
          if (contention_free(a, y)) return true;
        }
    }
    if (x.recv[g] == vp::catalog::kIdle)
      for (std::size_t k = 0; k < a.ports.size(); ++k)
        if (a.ports[k] > 0) {
          LocalPattern y = x;
          y.recv[g] = vp::catalog::kNicBase + static_cast<std::int32_t>(k);
          if (contention_free(a, y)) return true;
        }
  }
  return false;
}

struct Derived {
  Compact full, sub;
};
Derived derive(const Platform& p, std::uint32_t node, const std::vector<std::uint16_t>& held) {
  vpcat::Subset s;
  std::vector<std::uint32_t> local(held.begin(), held.end());
  REQUIRE(s.add_node(p.view, node, local.data(), static_cast<std::uint32_t>(local.size())).ok());
  vpcat::detail::SubsetLayout layout;
  REQUIRE(layout.build(p.view, s).ok());
  vpcat::detail::StoredPatterns sp;
  REQUIRE(sp.copy(p.view, layout));
  return {compact_of(sp, p.view.node(node).node_type), compact_of(sp, layout.node(0).type)};
}

void check_derivation(const Platform& p, std::uint32_t node, const std::vector<std::uint16_t>& held) {
  std::string name;
  for (std::uint16_t g : held) name += std::to_string(g) + " ";
  INFO(p.name << ", node " << node << ", GPUs " << name);
  const Derived d = derive(p, node, held);
  REQUIRE_FALSE(d.sub.truncated);
  const std::set<Roles> want = reference(d.full, held);
  const std::set<Roles> got = all_images(d.sub);
  CHECK(got == want);
  std::uint64_t total = 0;
  for (std::size_t r = 0; r < d.sub.reps.size(); ++r) {
    CHECK(orbit(d.sub, d.sub.reps[r]).size() == d.sub.orbits[r]);
    total += d.sub.orbits[r];
  }
  CHECK(total == got.size());  // the representatives' orbits are disjoint
  if (held.size() < d.full.gpus) {
    CHECK(d.sub.group_order == stabilizer_order(d.full, held));
  } else {  // every GPU, reordered: the catalog type's own group (0)
    CHECK(d.sub.group_order == 0);
    CHECK(std::string(p.view.node_type(p.view.node(node).node_type).group_order()) ==
          std::to_string(stabilizer_order(d.full, held)));
  }
  const PortedNodeType a = ported_node_type(p, p.view.node(node).node_type);
  std::size_t checked = 0;
  const std::size_t analyzer_checks = small_property_run() ? 40 : 400;
  for (const Roles& r : got) {
    if (checked++ == analyzer_checks) break;  // the analyzer's checks, on the first images
    const LocalPattern x = lift(r, d.full.gpus, held);
    CHECK(contention_free(a, x));
    CHECK_FALSE(extensible(a, x, held));
  }
}

// ---- plans over subsets --------------------------------------------------------------

// Ranks of a subset planner mapped to catalog GPUs, and its demand embedded
// in the whole cluster's.
std::vector<StepCopy> mapped_steps(const vpcat::Planner& sub, const vpcat::Plan& plan) {
  std::vector<StepCopy> steps = copy_steps(plan);
  for (StepCopy& s : steps)
    for (vpcat::PlanTransfer& t : s.transfers) {
      t.src = static_cast<std::uint32_t>(sub.catalog_gpu(t.src));
      t.dst = static_cast<std::uint32_t>(sub.catalog_gpu(t.dst));
      t.origin = static_cast<std::uint32_t>(sub.catalog_gpu(t.origin));
      t.final = static_cast<std::uint32_t>(sub.catalog_gpu(t.final));
    }
  return steps;
}
Matrix embedded(const vpcat::Planner& sub, const Matrix& d, std::uint32_t whole) {
  const std::uint32_t n = sub.gpu_count();
  Matrix out(std::size_t{whole} * whole, 0);
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint32_t t = 0; t < n; ++t) out[sub.catalog_gpu(s) * whole + sub.catalog_gpu(t)] = d[std::size_t{s} * n + t];
  return out;
}
// The subset planner's routes are the whole cluster's for the same GPUs.
std::string check_routes(const Platform& p, const vpcat::Planner& sub, const vpcat::Plan& plan) {
  std::vector<std::uint64_t> a(sub.max_route_links()), b(p.planner.max_route_links());
  for (std::size_t i = 0; i < plan.step_count(); ++i) {
    const vpcat::PlanTransfer* t = plan.step_transfers(i);
    for (std::uint32_t k = 0; k < plan.step(i).count; ++k) {
      vpcat::PlanTransfer m = t[k];
      m.src = static_cast<std::uint32_t>(sub.catalog_gpu(m.src));
      m.dst = static_cast<std::uint32_t>(sub.catalog_gpu(m.dst));
      const std::uint32_t na = sub.route_links(t[k], a.data(), static_cast<std::uint32_t>(a.size()));
      const std::uint32_t nb = p.planner.route_links(m, b.data(), static_cast<std::uint32_t>(b.size()));
      if (na == 0 || na != nb || !std::equal(a.begin(), a.begin() + na, b.begin()))
        return "step " + std::to_string(i) + ": a route differs from the whole cluster's";
    }
  }
  return "";
}

enum class Kind { whole_nodes, partial_nodes, single_gpus, one_node };

vpcat::Subset random_subset(const Platform& p, Kind kind, std::mt19937_64& rng) {
  const std::uint32_t N = p.view.node_count();
  std::vector<std::uint32_t> nodes(N);
  std::iota(nodes.begin(), nodes.end(), 0u);
  std::shuffle(nodes.begin(), nodes.end(), rng);
  std::uint32_t take = kind == Kind::one_node ? 1u : 1u + static_cast<std::uint32_t>(rng() % N);
  if (kind == Kind::single_gpus && take < 2 && N > 1) take = 2;
  nodes.resize(take);
  if (rng() % 2) std::sort(nodes.begin(), nodes.end());  // catalog order, or not
  vpcat::Subset s;
  for (std::uint32_t n : nodes) {
    const std::uint32_t G = p.view.node_type(p.view.node(n).node_type).gpu_count();
    std::vector<std::uint32_t> gpus(G);
    std::iota(gpus.begin(), gpus.end(), 0u);
    if (kind == Kind::whole_nodes) {
      REQUIRE(s.add_node(p.view, n, nullptr, 0).ok());
      continue;
    }
    std::shuffle(gpus.begin(), gpus.end(), rng);
    std::uint32_t k = kind == Kind::single_gpus ? 1u : 1u + static_cast<std::uint32_t>(rng() % G);
    if (kind == Kind::one_node && k < 2 && G > 1) k = 2;
    gpus.resize(k);
    if (rng() % 2) std::sort(gpus.begin(), gpus.end());
    REQUIRE(s.add_node(p.view, n, gpus.data(), k).ok());
  }
  return s;
}

}  // namespace

TEST_CASE("a subset names each node and GPU once, and only ones the catalog has") {
  const Platform& p = platform("4n-switch");
  vpcat::Subset s;
  const std::uint32_t two[] = {1, 6};
  CHECK(s.add_node(p.view, 2, two, 2).ok());
  vpcat::PlanStatus st = s.add_node(p.view, 2, nullptr, 0);
  CHECK(st.code() == vpcat::PlanError::bad_subset);
  CHECK(std::string(st.message()) == "subset: subset does not fit the catalog (node 2 is listed twice (give its GPUs together))");
  CHECK(s.add_node(p.view, 4, nullptr, 0).code() == vpcat::PlanError::bad_subset);
  const std::uint32_t out_of_range[] = {8};
  CHECK(s.add_node(p.view, 0, out_of_range, 1).code() == vpcat::PlanError::bad_subset);
  const std::uint32_t twice[] = {3, 3};
  st = s.add_node(p.view, 0, twice, 2);
  CHECK(std::string(st.message()) == "subset: subset does not fit the catalog (node 0: local GPU 3 is listed twice)");
  CHECK(s.add_node(p.view, 0, two, 0).code() == vpcat::PlanError::bad_subset);
  CHECK(s.gpu_count() == 2);  // the rejected calls changed nothing
  CHECK(s.catalog_gpu(0) == 17);
  CHECK(s.catalog_gpu(1) == 22);

  const std::uint64_t gpus[] = {9, 8, 30, 31};
  REQUIRE(s.assign_gpus(p.view, gpus, 4).ok());
  CHECK(s.node_count() == 2);
  CHECK(s.local_gpu(0) == 1);
  CHECK(s.catalog_gpu(2) == 30);
  const std::uint64_t split[] = {9, 30, 8};
  st = s.assign_gpus(p.view, split, 3);
  CHECK(std::string(st.message()) == "subset: subset does not fit the catalog (node 1 is listed twice (give its GPUs together))");
  CHECK(s.empty());
  const std::uint64_t beyond[] = {32};
  CHECK(s.assign_gpus(p.view, beyond, 1).code() == vpcat::PlanError::bad_subset);

  vpcat::Planner planner;
  vpcat::Subset none;
  CHECK(planner.init(p.view, none).code() == vpcat::PlanError::bad_subset);
  CHECK_FALSE(planner.ready());
}

TEST_CASE("the whole cluster as a subset plans exactly as the catalog's planner") {
  for (const char* name : {"4n-switch", "mixed-4n", "5n-leafspine-tight"}) {
    const Platform& p = platform(name);
    vpcat::Subset all;
    REQUIRE(all.assign_all(p.view).ok());
    CHECK(all.is_whole(p.view));
    vpcat::Planner sub;
    REQUIRE(sub.init(p.view, all).ok());
    for (const Matrix& d : {uniform(p.gpus, 1 << 20), zipf_moe(p.gpus, 1.2, 3, 256)}) {
      vpcat::Plan a, b;
      REQUIRE(sub.plan(vpcat::Demand::dense(d.data(), p.gpus), channels_only(), a).ok());
      REQUIRE(const_cast<vpcat::Planner&>(p.planner).plan(vpcat::Demand::dense(d.data(), p.gpus), channels_only(), b).ok());
      CHECK(plan_difference(a, b) == "");
    }
  }
}

TEST_CASE("a partial node's patterns and symmetry are derived exactly from its type's") {
  // Under the sanitizers (small_property_run) a third of the cases: the
  // reference enumerates every one of the 40,177 patterns per held set.
  const Platform& one = platform("1n");
  const std::vector<std::vector<std::uint16_t>> held_sets{
      {0}, {0, 1}, {0, 2}, {0, 4}, {0, 1, 2}, {1, 2, 5}, {0, 1, 2, 3}, {0, 2, 4, 6}, {7, 5, 3, 1}, {0, 1, 2, 3, 4, 6},
      {7, 6, 5, 4, 3, 2, 1, 0}};
  for (std::size_t i = 0; i < held_sets.size(); i += small_property_run() ? 3 : 1) check_derivation(one, 0, held_sets[i]);
  // AWS g6: one NIC for eight GPUs; every seventh subset.
  const Platform& g6 = platform("g6-3n");
  for (std::uint32_t mask = 1; mask < 256; mask += small_property_run() ? 21 : 7) {
    std::vector<std::uint16_t> held;
    for (std::uint16_t g = 0; g < 8; ++g)
      if (mask >> g & 1u) held.push_back(g);
    check_derivation(g6, 1, held);
  }
}

TEST_CASE("plans over random subsets deliver every byte in contention-free channel steps") {
  const std::uint64_t seeds = property_seeds(12);
  for (const char* name : {"1n", "4n-switch", "16n-rail", "32n-leafspine", "mixed-4n", "g6-3n", "3n-rail-tight",
                           "5n-leafspine-tight", "2n-half-gpudirect", "h20-2n"}) {
    // The sanitizer phase leaves out the 256-GPU platform (its subsets are
    // the largest; the unit phase runs them).
    if (small_property_run() && std::string(name) == "32n-leafspine") continue;
    const Platform& p = platform(name);
    std::size_t partial_loops = 0;  // loopback transfers on partial-node subsets, channel steps only
    for (std::uint64_t seed = 0; seed < seeds; ++seed) {
      std::mt19937_64 rng(seed * 7919 + std::hash<std::string>{}(name));
      const Kind kind = static_cast<Kind>(seed % 4);
      const vpcat::Subset s = random_subset(p, kind, rng);
      vpcat::Planner sub;
      const vpcat::PlanStatus init = sub.init(p.view, s);
      REQUIRE_MESSAGE(init.ok(), init.message());
      REQUIRE(sub.gpu_count() == s.gpu_count());
      const std::uint32_t n = sub.gpu_count();
      for (const auto& [what, d] : std::vector<std::pair<std::string, Matrix>>{
               {"uniform", uniform(n, 1 << 20)},
               {"zipf 1.2", zipf_moe(n, 1.2, seed + 1, 256)},
               {"random", random_dense(n, 1 << 22, 0.2, seed + 2)}}) {
        INFO(std::string(name) << ", seed " << seed << ", kind " << static_cast<int>(kind) << ", " << n << " GPUs on "
                  << s.node_count() << " nodes, " << what);
        // Channel steps and the shared step, each without and with NIC
        // loopbacks: a partial node loops through the NICs it keeps.
        for (const bool shared : {false, true}) {
          for (const bool loopback : {false, true}) {
            vpcat::PlanOptions o = channels_only();
            o.allow_shared = shared;
            o.nic_loopback = loopback;
            INFO((shared ? "shared allowed" : "channels only") << (loopback ? ", NIC loopback" : ""));
            vpcat::Plan plan;
            const vpcat::PlanStatus st = sub.plan(vpcat::Demand::dense(d.data(), n), o, plan);
            REQUIRE_MESSAGE(st.ok(), st.message());
            CheckOptions c;
            c.allow_shared = shared;
            c.shared_last_only = true;
            CHECK(check_steps(p, embedded(sub, d, p.gpus), mapped_steps(sub, plan), c) == "");
            CHECK(check_routes(p, sub, plan) == "");
            if (loopback && !shared && kind == Kind::partial_nodes) partial_loops += loopbacks(sub, plan);
          }
        }
      }
    }
    // On H20 (one NIC per GPU, the host bridges binding) partial nodes do
    // loop in channel steps; where nothing can loop (one node, rails, one
    // NIC per node) nothing does.
    const std::string nm = name;
    if (nm == "h20-2n") CHECK(partial_loops > 0);
    if (nm == "1n" || nm == "16n-rail" || nm == "3n-rail-tight" || nm == "g6-3n") CHECK(partial_loops == 0);
  }
}

TEST_CASE("a demand over the wrong number of GPUs names the subset's size") {
  const Platform& p = platform("4n-switch");
  vpcat::Subset s;
  const std::uint32_t three[] = {0, 1, 4};
  REQUIRE(s.add_node(p.view, 3, three, 3).ok());
  vpcat::Planner sub;
  REQUIRE(sub.init(p.view, s).ok());
  CHECK(sub.catalog_gpu(2) == 28);
  CHECK(sub.catalog_node(0) == 3);
  const Matrix d = uniform(p.gpus, 1024);
  vpcat::Plan plan;
  const vpcat::PlanStatus st = sub.plan(vpcat::Demand::dense(d.data(), p.gpus), channels_only(), plan);
  CHECK(st.code() == vpcat::PlanError::demand_size);
  CHECK(std::string(st.message()) ==
        "demand: demand size does not match the catalog (32 GPUs, the planner's subset has 3)");
  const vpcat::Planner::NodePatterns np = sub.node_patterns(0);
  CHECK(np.derived);
  CHECK(np.representatives > 0);
}

// ---- once per orbit of held sets, and kept across planners ---------------------------------

namespace {

// The smallest GPU mask in the orbit of `mask` under node type t's
// automorphisms (a breadth-first walk under the catalog's generators).
std::uint64_t orbit_min(const vpcat::CatalogView& view, std::uint32_t t, std::uint64_t mask) {
  const vpcat::NodeTypeView nt = view.node_type(t);
  std::set<std::uint64_t> seen{mask};
  std::vector<std::uint64_t> todo{mask};
  while (!todo.empty()) {
    const std::uint64_t m = todo.back();
    todo.pop_back();
    for (std::uint32_t p = 0; p < nt.generator_count(); ++p) {
      std::uint64_t img = 0;
      for (std::uint32_t g = 0; g < nt.gpu_count(); ++g)
        if (m >> g & 1u) img |= std::uint64_t{1} << (nt.generator(p).image(nt.gpu(g)) - nt.first_gpu());
      if (seen.insert(img).second) todo.push_back(img);
    }
  }
  return *seen.begin();
}

// Orbits of held sets among the subset's partial nodes (a node holding
// every GPU, in any order, is its catalog type relabelled).
using Orbits = std::set<std::pair<std::uint32_t, std::uint64_t>>;  // (catalog type, smallest mask)
Orbits held_set_orbits(const vpcat::CatalogView& view, const vpcat::Subset& s) {
  Orbits orbits;
  for (std::uint32_t i = 0; i < s.node_count(); ++i) {
    const vpcat::Subset::Node& n = s.node(i);
    const std::uint32_t t = view.node(n.node).node_type;
    if (n.count == view.node_type(t).gpu_count()) continue;
    std::uint64_t mask = 0;
    for (std::uint32_t g = 0; g < n.count; ++g) mask |= std::uint64_t{1} << s.local_gpu(n.first_rank + g);
    orbits.emplace(t, orbit_min(view, t, mask));
  }
  return orbits;
}

// A random 3/4 of the catalog's GPUs, in catalog order (as a job's ranks
// sorted by GPU: most nodes partial, each holding a different set).
vpcat::Subset random_three_quarters(const Platform& p, std::uint64_t seed) {
  std::vector<std::uint64_t> gpus(p.gpus);
  std::iota(gpus.begin(), gpus.end(), std::uint64_t{0});
  std::mt19937_64 rng(seed);
  std::shuffle(gpus.begin(), gpus.end(), rng);
  gpus.resize(gpus.size() * 3 / 4);
  std::sort(gpus.begin(), gpus.end());
  vpcat::Subset s;
  REQUIRE(s.assign_gpus(p.view, gpus.data(), gpus.size()).ok());
  return s;
}


}  // namespace

TEST_CASE("a random partial subset derives once per orbit of held sets, and kept derivations plan the same") {
  const Platform& p = platform("32n-leafspine");
  vpcat::DerivedPatterns kept;
  Orbits seen;  // the orbits kept so far
  for (std::uint64_t seed : {1u, 2u}) {
    INFO("seed " << seed);
    const vpcat::Subset s = random_three_quarters(p, seed);
    const Orbits held = held_set_orbits(p.view, s);
    const std::size_t orbits = held.size();
    std::size_t unseen = 0;
    for (const auto& o : held) unseen += seen.insert(o).second ? 1 : 0;
    // 32 nodes of 8 GPUs, a random 3/4: many more partial nodes than orbits.
    CHECK(orbits > 1);
    CHECK(orbits < s.node_count());
    vpcat::Planner fresh, keeping, taking;
    REQUIRE(fresh.init(p.view, s).ok());
    CHECK(fresh.restrictions_run() == orbits);
    REQUIRE(keeping.init(p.view, s, &kept).ok());
    CHECK(keeping.restrictions_run() == unseen);  // the second seed's orbits partly kept already
    CHECK(kept.size() == seen.size());
    REQUIRE(taking.init(p.view, s, &kept).ok());
    CHECK(taking.restrictions_run() == 0);
    CHECK(kept.size() == seen.size());
    for (std::uint32_t n = 0; n < fresh.node_count(); ++n) {
      const vpcat::Planner::NodePatterns x = fresh.node_patterns(n), y = taking.node_patterns(n);
      CHECK((x.representatives == y.representatives && x.patterns == y.patterns && x.group_order == y.group_order &&
             x.derived == y.derived && x.truncated == y.truncated));
    }
    const std::uint32_t n = fresh.gpu_count();
    for (const auto& [what, d] : std::vector<std::pair<std::string, Matrix>>{{"uniform", uniform(n, 1 << 20)},
                                                                            {"zipf 1.2", zipf_moe(n, 1.2, seed, 256)}}) {
      INFO(what);
      for (const bool shared : {false, true}) {
        vpcat::PlanOptions o = channels_only();
        o.allow_shared = shared;
        vpcat::Plan a, b, c;
        REQUIRE(fresh.plan(vpcat::Demand::dense(d.data(), n), o, a).ok());
        REQUIRE(keeping.plan(vpcat::Demand::dense(d.data(), n), o, b).ok());
        REQUIRE(taking.plan(vpcat::Demand::dense(d.data(), n), o, c).ok());
        CheckOptions chk;
        chk.allow_shared = shared;
        chk.shared_last_only = true;
        CHECK(check_steps(p, embedded(fresh, d, p.gpus), mapped_steps(fresh, a), chk) == "");
        CHECK(check_routes(p, fresh, a) == "");
        CHECK(plan_difference(a, b) == "");
        CHECK(plan_difference(a, c) == "");
      }
      // The default plan too (the machine model's choice).
      vpcat::Plan a, c;
      REQUIRE(fresh.plan(vpcat::Demand::dense(d.data(), n), vpcat::PlanOptions(), a).ok());
      REQUIRE(taking.plan(vpcat::Demand::dense(d.data(), n), vpcat::PlanOptions(), c).ok());
      CHECK(plan_difference(a, c) == "");
    }
  }
  // Given another catalog, what was kept is dropped, not used.
  const Platform& other = platform("4n-switch");
  const vpcat::Subset s = random_three_quarters(other, 3);
  vpcat::Planner q;
  REQUIRE(q.init(other.view, s, &kept).ok());
  CHECK(q.restrictions_run() == held_set_orbits(other.view, s).size());
  CHECK(kept.size() == q.restrictions_run());
}
