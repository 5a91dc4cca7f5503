// Fuzz target: the planner on every catalog the verifier accepts. Whatever
// the verified bytes say (odd trees, routes, patterns, fabrics), init() must
// succeed or refuse with a status, and a plan of a small demand must deliver
// every byte through routes of the catalog's global links. Built like
// verify_fuzz.cpp: a corpus replay under ctest, a libFuzzer binary with clang.
// Inputs are taken as they are and with their checksums recomputed, so that
// mutations reach the planner.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "vpcat/bytes.hpp"
#include "vpcat/catalog_view.hpp"
#include "vpcat/crc32c.hpp"
#include "vpcat/planner.hpp"

namespace {

namespace b = vpcat::bytes;

void expect(bool ok) {
  if (!ok) __builtin_trap();
}

void reseal(std::vector<std::uint8_t>& d) {
  const std::size_t hs = b::load_u16(&d[vpcat::header::header_size]);
  const std::size_t es = b::load_u16(&d[vpcat::header::entry_size]);
  const std::size_t n = b::load_u16(&d[vpcat::header::section_count]);
  if (es < vpcat::entry::entry_size || hs < vpcat::header::size) return;
  for (std::size_t i = 0; i < n && hs + i * es + es <= d.size(); ++i) {
    std::uint8_t* e = &d[hs + i * es];
    const std::uint64_t off = b::load_u64(e + vpcat::entry::offset), size = b::load_u64(e + vpcat::entry::size);
    if (size <= d.size() && off <= d.size() - size) b::store_u32(e + vpcat::entry::checksum, vpcat::crc32c(&d[off], size));
  }
  const std::size_t end = hs + n * es;
  if (end > d.size()) return;
  std::uint32_t crc = vpcat::crc32c(d.data(), vpcat::header::checksum);
  crc = vpcat::crc32c_extend(crc, d.data() + vpcat::header::size, end - vpcat::header::size);
  b::store_u32(&d[vpcat::header::checksum], crc);
}

void plan(const std::uint8_t* data, std::size_t size) {
  vpcat::CatalogView view;
  if (!vpcat::CatalogView::open(data, size, &view).ok()) return;
  vpcat::Planner planner;
  if (!planner.init(view).ok()) return;
  const std::uint32_t n = planner.gpu_count();
  if (n == 0 || n > 64) return;
  std::vector<std::uint64_t> demand(std::size_t{n} * n);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < demand.size(); ++i) {
    demand[i] = (i * 2654435761u) % 5 == 0 ? 0 : 1 + (i * 40503u) % 100000;
    if (i % (n + 1) != 0) total += demand[i];
  }
  vpcat::PlanOptions o;
  o.max_steps = 100000;
  o.nic_loopback = size % 2 == 1;  // half the inputs may loop intra-node payloads through their NICs
  vpcat::Plan p;
  const vpcat::PlanStatus s = planner.plan(vpcat::Demand::dense(demand.data(), n), o, p);
  if (!s.ok()) {  // only an unroutable demand (a node without a usable NIC) may be refused
    expect(s.code() == vpcat::PlanError::unroutable);
    expect(p.step_count() == 0);
    return;
  }
  std::uint64_t delivered = 0;
  std::vector<std::uint64_t> links(planner.max_route_links());
  const std::uint64_t link_count = view.global_link_count();
  for (std::size_t i = 0; i < p.transfer_count(); ++i) {
    const vpcat::PlanTransfer& t = p.transfers()[i];
    delivered += t.bytes;
    expect(t.src < n && t.dst < n && t.src != t.dst && t.bytes > 0 && t.solo_gbps > 0);
    const std::uint32_t k = planner.route_links(t, links.data(), static_cast<std::uint32_t>(links.size()));
    expect(k >= 1 && k <= links.size());
    for (std::uint32_t l = 0; l < k; ++l) expect(links[l] < link_count);
  }
  expect(delivered == total && p.total_bytes() == total);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  plan(data, size);
  if (size >= vpcat::header::size && size <= (std::size_t{1} << 22)) {
    std::vector<std::uint8_t> copy(data, data + size);
    reseal(copy);
    plan(copy.data(), copy.size());
  }
  return 0;
}
