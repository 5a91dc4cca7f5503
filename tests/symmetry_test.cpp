#include <doctest/doctest.h>

#include "vp/analysis/perm_group.hpp"
#include "vp/analysis/symmetry.hpp"
#include "vp/topology/synthetic.hpp"

using namespace vp;

TEST_CASE("Schreier-Sims gives exact orders") {
  // S5 from a transposition and a 5-cycle.
  PermGroup s5(5, {{1, 0, 2, 3, 4}, {1, 2, 3, 4, 0}});
  CHECK(s5.order().to_string() == "120");
  CHECK(s5.contains({4, 3, 2, 1, 0}));
  // C5 does not contain a transposition.
  PermGroup c5(5, {{1, 2, 3, 4, 0}});
  CHECK(c5.order().to_string() == "5");
  CHECK_FALSE(c5.contains({1, 0, 2, 3, 4}));
  int count = 0;
  s5.for_each_element([&](const Permutation&) { ++count; });
  CHECK(count == 120);
  // Pointwise stabilizer of {0, 1} in S5 is S3.
  PermGroup s5_based(5, {{1, 0, 2, 3, 4}, {1, 2, 3, 4, 0}}, {0, 1});
  CHECK(s5_based.stabilizer_order(2).to_string() == "6");
}

TEST_CASE("big orders are exact") {
  CHECK(factorial(25).to_string() == "15511210043330985984000000");
  BigUint b = factorial(20);
  CHECK(b.fits_u64());
  CHECK(b.to_u64() == 2432902008176640000ull);
  b *= 1000;
  CHECK_FALSE(b.fits_u64());
  CHECK(b.divided_by(1000).to_string() == "2432902008176640000");
}

TEST_CASE("the 8-GPU evaluation server has group order 128") {
  // Swaps of the 2 GPUs under each switch (2^4), of the 2 switches under each
  // socket (2^2), of the 2 sockets (2): 128.
  Topology t = make_node_from_shape("[g2,n1],[g2,n1]|[g2,n1],[g2,n1]", {});
  NodeSymmetry s = compute_node_symmetry(t);
  CHECK(s.order.to_string() == "128");
  for (const Permutation& g : s.generators) {
    CHECK(automorphism_violation(t, g).empty());
    CHECK(routing_violation(t, g).empty());
  }
  // All GPUs in one orbit, all NICs in one orbit.
  for (ComponentId g : t.gpus) CHECK(s.component_orbit[g] == t.gpus[0]);
  for (ComponentId n : t.nics) CHECK(s.component_orbit[n] == t.nics[0]);
}

TEST_CASE("asymmetric node types have the orders we count by hand") {
  // A switch with 3 GPUs beside one with 1: 3! = 6.
  CHECK(compute_node_symmetry(make_node_from_shape("[g3,n1],[g1]", {})).order.to_string() == "6");
  // A GPU on a root port next to a switch with 2 GPUs and a NIC: 2.
  CHECK(compute_node_symmetry(make_node_from_shape("g1,[g2,n1]", {})).order.to_string() == "2");
  // One socket without NIC: the sockets cannot swap; 2^4 GPU swaps * 2 * 2 switch swaps = 64.
  CHECK(compute_node_symmetry(make_node_from_shape("[g2,n1],[g2,n1]|[g2],[g2]", {})).order.to_string() == "64");
}

TEST_CASE("a non-automorphism is caught with a reason") {
  Topology t = make_node_from_shape("[g2,n1],[g1]", {});
  Permutation p = identity_permutation(t.components.size());
  std::swap(p[t.gpus[0]], p[t.gpus[2]]);  // a GPU of the full switch with the lone one
  CHECK_FALSE(automorphism_violation(t, p).empty());
}
