// The C API, choosing a placement (vpcat.h, section of the same name): the
// C face of vpcat::place() (vpcat/placement.hpp).
#include <cstring>
#include <new>

#include "c_api.hpp"
#include "vpcat/placement.hpp"

using namespace vpcat_c;

namespace {

static_assert(VPCAT_PLACE_FEWEST_NODES == static_cast<unsigned>(vpcat::PlacementStrategy::fewest_nodes), "");
static_assert(VPCAT_PLACE_PARTIAL_NODES_FIRST == static_cast<unsigned>(vpcat::PlacementStrategy::partial_nodes_first),
              "");
static_assert(VPCAT_PLACE_ONE_LEAF == static_cast<unsigned>(vpcat::PlacementStrategy::one_leaf), "");
static_assert(VPCAT_PLACE_BALANCED_BEST_FIT == static_cast<unsigned>(vpcat::PlacementStrategy::balanced_best_fit), "");
static_assert(VPCAT_PLACE_BALANCED_FREEST == static_cast<unsigned>(vpcat::PlacementStrategy::balanced_freest), "");
static_assert(VPCAT_PICK_WHOLE == static_cast<unsigned>(vpcat::PlacementPick::whole), "");
static_assert(VPCAT_PICK_SPREAD == static_cast<unsigned>(vpcat::PlacementPick::spread), "");
static_assert(VPCAT_PICK_PACKED == static_cast<unsigned>(vpcat::PlacementPick::packed), "");

// n x n bytes of `each` off the diagonal; nullptr when memory is short or n * n overflows.
std::uint64_t* uniform_demand(std::uint32_t n, std::uint64_t each) noexcept {
  const std::size_t cells = std::size_t{n} * n;
  if (n != 0 && cells / n != n) return nullptr;
  auto* d = new (std::nothrow) std::uint64_t[cells];
  if (d == nullptr) return nullptr;
  for (std::size_t i = 0; i < cells; ++i) d[i] = i / n == i % n ? 0 : each;
  return d;
}

}  // namespace

vpcat_place_options vpcat_place_options_default(void) {
  const vpcat::PlaceOptions d;
  vpcat_place_options o{};
  o.struct_size = sizeof o;
  o.slack = d.slack;
  o.uniform_bytes = std::uint64_t{1} << 20;
  o.plan = vpcat_plan_options_default();
  return o;
}

vpcat_status vpcat_place(const vpcat_catalog* cat, const std::uint64_t* free_gpus, std::size_t free_count,
                         std::uint32_t n, const std::uint64_t* bytes, const vpcat_place_options* options,
                         vpcat_placement* out, vpcat_error* err) {
  static const char where[] = "vpcat_place";
  if (cat == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "cat is NULL");
  if (out == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "out is NULL");
  if (out->struct_size != sizeof(vpcat_placement))
    return fail(err, VPCAT_E_INVALID_ARGUMENT, where,
                "out->struct_size is %u, this library's vpcat_placement has %u bytes: set it to "
                "sizeof(vpcat_placement)",
                static_cast<unsigned>(out->struct_size), static_cast<unsigned>(sizeof(vpcat_placement)));
  if (free_gpus == nullptr && free_count != 0)
    return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "free_gpus is NULL, free_count %zu", free_count);
  const vpcat_place_options o = options == nullptr ? vpcat_place_options_default() : *options;
  if (o.struct_size != sizeof(vpcat_place_options))
    return fail(err, VPCAT_E_INVALID_ARGUMENT, where,
                "options->struct_size is %u, this library's vpcat_place_options has %u bytes: start from "
                "vpcat_place_options_default()",
                static_cast<unsigned>(o.struct_size), static_cast<unsigned>(sizeof(vpcat_place_options)));
  if (o.reserved != 0)
    return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "options->reserved is %u: must be 0",
                static_cast<unsigned>(o.reserved));
  if (bytes == nullptr && o.uniform_bytes == 0)
    return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "bytes is NULL and options->uniform_bytes is 0: no demand");
  vpcat::PlaceOptions po;
  po.slack = o.slack;
  vpcat_status status = VPCAT_OK;
  if (!to_cpp(&o.plan, &po.plan, err, where, &status)) return status;
  if (out->gpus == nullptr && out->capacity != 0)
    return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "out->gpus is NULL, out->capacity %zu", out->capacity);

  // No uniform matrix for a job larger than the free list: place() refuses
  // it before it reads the demand (and n * n could be out of reach).
  std::uint64_t* uniform = nullptr;
  if (bytes == nullptr && n != 0 && n <= free_count) {
    uniform = uniform_demand(n, o.uniform_bytes);
    if (uniform == nullptr) return fail(err, VPCAT_E_OUT_OF_MEMORY, where, "a uniform demand of %u GPUs", n);
  }
  auto* placement = new (std::nothrow) vpcat::Placement;
  if (placement == nullptr) {
    delete[] uniform;
    return fail(err, VPCAT_E_OUT_OF_MEMORY, where, "the placement");
  }
  const vpcat::PlanStatus s = vpcat::place(cat->view, free_gpus, free_count, n,
                                           vpcat::Demand::dense(bytes != nullptr ? bytes : uniform, n), po, *placement,
                                           &cat->derived);
  delete[] uniform;
  if (!s.ok()) {
    delete placement;
    return from(s, err);
  }
  if (out->capacity < n) {
    delete placement;
    return fail(err, VPCAT_E_BUFFER_TOO_SMALL, where, "out->capacity is %zu, the job has %u GPUs", out->capacity, n);
  }
  const vpcat::PlacementCandidate& c = placement->chosen();
  std::memcpy(out->gpus, placement->chosen_gpus(), sizeof(std::uint64_t) * n);
  out->expected_us = c.expected_us;
  out->bound_us = c.bound_us;
  out->strategy = static_cast<std::uint32_t>(c.strategy);
  out->strategy_detail = c.detail;
  out->pick = static_cast<std::uint32_t>(c.pick);
  out->node_count = c.node_count;
  out->partial_nodes_before = placement->partial_nodes_before();
  out->partial_nodes_after = c.partial_nodes_after;
  out->candidates = static_cast<std::uint32_t>(placement->candidate_count());
  out->choice_rank = static_cast<std::uint32_t>(placement->choice() + 1);
  delete placement;
  return VPCAT_OK;
}
