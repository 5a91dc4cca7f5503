// A consumer of the runtime loader built the way embedders build it:
// -std=c++17 -fno-exceptions -fno-rtti, every vpcat header included, the
// project's warnings. Run by ctest on a catalog: it opens the file by
// memory mapping, walks every accessor, and prints a one-line summary.
#include <cstdio>

#include "vpcat/bytes.hpp"
#include "vpcat/catalog_view.hpp"
#include "vpcat/crc32c.hpp"
#include "vpcat/format.hpp"
#include "vpcat/layout.hpp"
#include "vpcat/mapped_file.hpp"
#include "vpcat/options.hpp"
#include "vpcat/status.hpp"
#include "vpcat/verify.hpp"
#include "vpcat/version.hpp"

#if defined(__cpp_exceptions) || defined(__GXX_RTTI)
#error "this check must be built with -fno-exceptions -fno-rtti"
#endif

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: vpcat_c17_check FILE.vpcat\n");
    return 2;
  }
  vpcat::CatalogFile file;
  const vpcat::Status s = vpcat::CatalogFile::open(argv[1], &file);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message());
    return 1;
  }
  const vpcat::CatalogView& v = file.view();
  unsigned long long hops = 0, roles = 0;
  for (std::uint32_t t = 0; t < v.node_type_count(); ++t) {
    const vpcat::NodeTypeView nt = v.node_type(t);
    for (std::uint32_t r = 0; r < nt.route_count(); ++r) hops += nt.route_at(r).link_count();
    for (std::uint32_t p = 0; p < nt.pattern_count(); ++p)
      for (std::uint32_t g = 0; g < nt.gpu_count(); ++g) roles += nt.pattern(p).send(g) != vpcat::kIdle;
  }
  std::printf("format %u.%u, %u node types, %u nodes, %llu GPUs, %llu route hops, %llu busy send roles\n",
              v.layout().format_major, v.layout().format_minor, v.node_type_count(), v.node_count(),
              static_cast<unsigned long long>(v.gpu_count()), hops, roles);
  return 0;
}
