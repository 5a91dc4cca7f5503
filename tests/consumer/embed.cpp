// The README's C++ embedding example, compiled and run by the consumer tests
// (tests/consumer/) against the installed package, add_subdirectory and
// pkg-config; the readme_examples test checks that README.md shows the
// lines between the markers verbatim.
//
// Usage: embed_cpp CATALOG.vpcat. Plans a uniform AlltoAllv (1 MiB per
// pair), checks that every byte is delivered exactly once per (origin,
// final) and prints one summary line (the C example prints the same one).
#include <cstdint>
#include <cstdio>
#include <vector>

#include "vpcat/mapped_file.hpp"
#include "vpcat/planner.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return std::fprintf(stderr, "usage: %s CATALOG.vpcat\n", argv[0]), 2;
  // [readme-cpp]
  vpcat::CatalogFile file;  // mmap + verify, once
  if (vpcat::Status s = vpcat::CatalogFile::open(argv[1], &file); !s.ok()) return std::puts(s.message()), 1;
  vpcat::Planner planner;  // derives its tables from the catalog, once
  if (vpcat::PlanStatus s = planner.init(file.view()); !s.ok()) return std::puts(s.message()), 1;
  const std::size_t n = planner.gpu_count();
  std::vector<std::uint64_t> bytes(n * n, 1 << 20), got(n * n, 0);  // row = source GPU
  vpcat::Plan plan;  // reuse it: later calls allocate nothing
  if (vpcat::PlanStatus s = planner.plan(vpcat::Demand::dense(bytes.data(), n), {}, plan); !s.ok())
    return std::puts(s.message()), 1;
  for (std::size_t i = 0; i < plan.step_count(); ++i) {  // steps run one after another
    const vpcat::PlanTransfer* t = plan.step_transfers(i);
    for (std::uint32_t k = 0; k < plan.step(i).count; ++k)  // a step's transfers run at once:
      got[t[k].origin * n + t[k].final] += t[k].bytes;     // post(t[k].src, t[k].dst, t[k].bytes)
  }
  // [readme-cpp]
  std::uint64_t delivered = 0;
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      if (s != d && got[s * n + d] != bytes[s * n + d])
        return std::fprintf(stderr, "GPU %zu -> %zu: %llu bytes delivered, %llu demanded\n", s, d,
                            static_cast<unsigned long long>(got[s * n + d]),
                            static_cast<unsigned long long>(bytes[s * n + d])),
               1;
      delivered += got[s * n + d];
    }
  if (delivered != plan.total_bytes() || delivered == 0) return std::fprintf(stderr, "bad total\n"), 1;
  std::printf("%zu GPUs, %zu steps, %zu transfers, %llu bytes delivered\n", n, plan.step_count(),
              plan.transfer_count(), static_cast<unsigned long long>(delivered));
  return 0;
}
