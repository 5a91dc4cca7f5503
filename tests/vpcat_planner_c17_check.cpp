// The planner as an embedder builds it: -std=c++17 -fno-exceptions -fno-rtti,
// the project's warnings, nothing but the standard library. Run by ctest on a
// catalog: it maps and verifies the file, plans a uniform demand twice into
// one Plan, and prints a one-line summary.
#include <cstdio>
#include <vector>

#include "vpcat/mapped_file.hpp"
#include "vpcat/planner.hpp"

#if defined(__cpp_exceptions) || defined(__GXX_RTTI)
#error "this check must be built with -fno-exceptions -fno-rtti"
#endif

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: vpcat_planner_c17_check FILE.vpcat\n");
    return 2;
  }
  vpcat::CatalogFile file;
  if (const vpcat::Status s = vpcat::CatalogFile::open(argv[1], &file); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.message());
    return 1;
  }
  vpcat::Planner planner;
  if (const vpcat::PlanStatus s = planner.init(file.view()); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.message());
    return 1;
  }
  const std::uint32_t n = planner.gpu_count();
  std::vector<std::uint64_t> demand(std::size_t{n} * n, 1u << 20);
  vpcat::Plan plan;
  for (int round = 0; round < 2; ++round) {
    if (const vpcat::PlanStatus s = planner.plan(vpcat::Demand::dense(demand.data(), n), {}, plan); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.message());
      return 1;
    }
  }
  std::uint64_t links[64];
  const std::uint32_t hops = plan.transfer_count() ? planner.route_links(plan.transfers()[0], links, 64) : 0;
  std::printf("%u GPUs, %zu steps, %zu transfers, %llu bytes, first route %u links, expected %.1f us\n", n,
              plan.step_count(), plan.transfer_count(), static_cast<unsigned long long>(plan.total_bytes()), hops,
              plan.expected_us());
  return plan.total_bytes() == std::uint64_t{n} * (n - 1) * (1u << 20) ? 0 : 1;
}
