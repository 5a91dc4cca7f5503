#include <doctest/doctest.h>

#include <set>

#include "vp/analysis/contention.hpp"
#include "vp/analysis/local_patterns.hpp"
#include "vp/analysis/symmetry.hpp"
#include "vp/topology/synthetic.hpp"

using namespace vp;
using catalog::LocalPattern;

namespace {

Topology ported(const Topology& node) {
  std::vector<double> rates;
  for (ComponentId n : node.nics) {
    const Component& c = node.components[n];
    rates.push_back(node.defaults.nic(c.line_rate_gbitps, static_cast<int>(c.ports)).gbps);
  }
  return with_network_ports(node, rates);
}

using Key = std::pair<std::vector<std::int32_t>, std::vector<std::int32_t>>;

// Expand every representative with the whole group; compare with brute force.
void check_against_brute_force(const std::string& shape) {
  CAPTURE(shape);
  Topology node = make_node_from_shape(shape, {});
  Topology t = ported(node);
  NodeSymmetry sym = compute_node_symmetry(node);
  LocalPatternSet found = find_local_patterns(t, sym);
  REQUIRE(found.complete);

  std::set<Key> expanded;
  std::uint64_t orbit_sum = 0;
  PermGroup group(node.components.size(), sym.generators);
  for (const LocalPattern& rep : found.representatives) {
    std::set<Key> orbit;
    group.for_each_element([&](const Permutation& p) {
      LocalPattern image = apply_to_pattern(t, p, rep);
      orbit.insert({image.send, image.recv});
    });
    CHECK(orbit.size() == rep.orbit_size);
    // The representative is the least member of its orbit.
    CHECK(*orbit.begin() == Key{rep.send, rep.recv});
    orbit_sum += rep.orbit_size;
    for (const Key& k : orbit) CHECK_MESSAGE(expanded.insert(k).second, "two representatives share an orbit");
    std::vector<Transfer> transfers = pattern_transfers(t, rep);
    ContentionReport report = check_contention(t, transfers);
    CHECK_MESSAGE(report.ok(), report.message);
  }
  std::set<Key> brute;
  for (const LocalPattern& p : all_maximal_local_patterns(t)) brute.insert({p.send, p.recv});
  CHECK(expanded == brute);
  CHECK(found.represented.to_string() == std::to_string(orbit_sum));
}

}  // namespace

TEST_CASE("orbit representatives expand to exactly the maximal local patterns") {
  check_against_brute_force("[g2,n1]|[g2]");
  check_against_brute_force("[g3,n1],[g1]");         // a switch with 3 GPUs beside one with 1
  check_against_brute_force("g1,[g2,n1]");           // a GPU directly off a root port
  check_against_brute_force("[g2,n1],[g2]|[g2,n1]"); // one socket's switch without NIC
  check_against_brute_force("[g2,n1],[g2,n1]|[g2],[g2]");  // one socket without NIC
  check_against_brute_force("[[g1,n1],[g1]],g1");    // nested switches
}

TEST_CASE("the 8-GPU evaluation server's patterns expand to the brute-force set") {
  check_against_brute_force("[g2,n1],[g2,n1]|[g2,n1],[g2,n1]");
}

TEST_CASE("a pattern with a stolen NIC port is not contention-free") {
  Topology node = make_node_from_shape("[g2,n1]", {});
  Topology t = ported(node);
  LocalPattern both_out;
  both_out.send = {catalog::kNicBase, catalog::kNicBase};
  both_out.recv = {catalog::kIdle, catalog::kIdle};
  ContentionReport r = check_contention(t, pattern_transfers(t, both_out));
  CHECK_FALSE(r.ok());
  CHECK(r.kind == ContentionReport::Kind::link);
}
