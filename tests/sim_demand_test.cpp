// The demand matrix: validation and sums.
#include <doctest/doctest.h>

#include <limits>
#include <stdexcept>

#include "vp/sim/demand.hpp"
#include "vp/topology/errors.hpp"
#include "vp/topology/synthetic.hpp"
#include "vp/base/errors.hpp"

using namespace vp;
using namespace vp::sim;

TEST_CASE("a demand's entries are finite and non-negative; its sums leave the diagonal out") {
  Demand d(3);
  const double rows[3][3] = {{0, 1, 2}, {3, 0, 4}, {5, 6, 7}};
  for (std::size_t s = 0; s < 3; ++s)
    for (std::size_t t = 0; t < 3; ++t) d.set(s, t, rows[s][t]);
  CHECK(d.size() == 3);
  CHECK(d.at(1, 2) == 4);
  CHECK(d.row_sum(2) == 11);    // the diagonal does not move
  CHECK(d.column_sum(0) == 8);
  CHECK(d.total() == 21);
  CHECK_THROWS_AS(d.set(0, 1, -1), vp::UsageError);
  CHECK_THROWS_AS(d.set(0, 1, std::numeric_limits<double>::infinity()), vp::UsageError);
  CHECK(d.at(0, 1) == 1);  // a refused value leaves the entry as it was
  CHECK_THROWS_AS(d.set(0, 1, std::numeric_limits<double>::quiet_NaN()), vp::UsageError);
  CHECK_THROWS_AS(d.add(0, 1, -2), vp::UsageError);
  CHECK_THROWS_AS(d.set(3, 0, 1), vp::InternalError);
}

TEST_CASE("a demand must have one row per GPU of the topology") {
  Topology t = make_node_from_shape("[g2,n1],[g2,n1]", {});
  Demand(4).check_fits(t, "d.json");
  CHECK_THROWS_WITH_AS(Demand(3).check_fits(t, "d.json"), "d.json: the demand is 3 x 3 but the topology has 4 GPUs",
                       InputError);
}
