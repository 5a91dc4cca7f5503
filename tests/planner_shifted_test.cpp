// White-box test of the default plan's shifted candidate
// (vpcat/planner/detail/shifted_steps.hpp): ShiftedGroups estimates every
// group size in one pass, summing a larger size's steps from the smaller
// ones'; its sums must be those of ShiftedSteps::expected_us, one pass per
// size. No public call shows the sums of a candidate that lost, hence the
// detail classes (tests/check_runtime_surface.cmake allows this file).
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "planner_support.hpp"
#include "vpcat/planner.hpp"
#include "vpcat/planner/detail/shifted_steps.hpp"
#include "vpcat/planner/detail/subset_layout.hpp"

using namespace vp::plantest;

TEST_CASE("the shifted candidate's group sizes in one pass: the sums a size-by-size pass finds") {
  // The planner's tables built as Planner::init builds them, to call the
  // candidate's two forms side by side: ShiftedGroups::best_us (one pass,
  // the larger sizes' steps summed from the smaller ones') and
  // ShiftedSteps::expected_us (one pass per size, every payload added).
  for (const char* name : {"4n-switch", "32n-leafspine", "16n-rail", "mixed-4n", "h20-2n"}) {
    const Platform& p = platform(name);
    vpcat::Subset all;
    REQUIRE(all.assign_all(p.view).ok());
    vpcat::detail::SubsetLayout layout;
    REQUIRE(layout.build(p.view, all).ok());
    vpcat::detail::Greedy greedy;
    REQUIRE(greedy.store_patterns(p.view, layout, nullptr));
    vpcat::detail::ClusterModel model;
    REQUIRE(model.build(p.view, layout, greedy.stored()).ok());
    vpcat::detail::Resources res;
    REQUIRE(res.prepare(model));
    res.set_model(model, vpcat::MachineModel{});
    vpcat::detail::StepEstimator one;
    vpcat::detail::ShiftedGroups groups;
    REQUIRE((one.prepare(res) && groups.prepare(model, res)));
    const std::uint32_t n = p.gpus;
    for (const Matrix& R : {uniform(n, 1024), zipf_moe(n, 1.2, 3),
                                      random_dense(n, 1 << 22, 0.3, 5), hot_spot(n, 1 << 16, 1, 10)}) {
      std::vector<std::uint32_t> sizes;
      std::vector<double> sums;
      for (std::uint32_t g = 1; g == 1 || g + 1 < n; g *= vpcat::detail::ShiftedSteps::kGroupFactor) {
        sizes.push_back(g);
        sums.push_back(vpcat::detail::ShiftedSteps::expected_us(model, res, one, R.data(), 5.0,
                                                                std::numeric_limits<double>::infinity(), g));
      }
      // max_steps admits the sizes from k on: the best of those, and its size.
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        const std::uint32_t max_steps = (n - 1 + sizes[k] - 1) / sizes[k];
        std::size_t best = k;
        for (std::size_t j = k; j < sizes.size(); ++j)
          if (sums[j] < sums[best]) best = j;
        std::uint32_t group = 0;
        const double us = groups.best_us(model, res, R.data(), 5.0, std::numeric_limits<double>::infinity(),
                                         max_steps, group);
        INFO(name << ": sizes from " << sizes[k]);
        CHECK(us == doctest::Approx(sums[best]).epsilon(1e-12));
        CHECK(group == sizes[best]);
        // Given up below the best: no size.
        CHECK(groups.best_us(model, res, R.data(), 5.0, 0.999 * sums[best], max_steps, group) ==
              std::numeric_limits<double>::infinity());
      }
    }
  }
}
