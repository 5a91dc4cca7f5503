// The C API, the planner and scoring placements (vpcat.h, section of the same name).
#include <new>

#include "c_api.hpp"

using namespace vpcat_c;

// ---- the planner ------------------------------------------------------------------------------

namespace {

template <class Demand>
vpcat_status run_plan(vpcat_planner* planner, const Demand& demand, const vpcat_plan_options* options,
                      vpcat_plan* plan, vpcat_error* err, const char* where) noexcept {
  if (planner == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "planner is NULL");
  if (plan == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "plan is NULL");
  vpcat::PlanOptions o;
  vpcat_status s = VPCAT_OK;
  if (!to_cpp(options, &o, err, where, &s)) {
    plan->plan.clear();
    return s;
  }
  return from(planner->planner.plan(demand, o, plan->plan), err);
}

}  // namespace

vpcat_plan_options vpcat_plan_options_default(void) {
  const vpcat::PlanOptions d;
  vpcat_plan_options o{};
  o.struct_size = sizeof o;
  o.max_steps = d.max_steps;
  o.latency_us = d.latency_us;
  o.min_step_latencies = d.min_step_latencies;
  o.min_chunk_bytes = d.min_chunk_bytes;
  o.chunk_align_bytes = d.chunk_align_bytes;
  o.allow_shared = d.allow_shared ? 1u : 0u;
  o.replay = d.replay ? 1u : 0u;
  o.nic_loopback = d.nic_loopback ? 1u : 0u;
  o.channels_only = d.channels_only ? 1u : 0u;
  return o;
}

vpcat_status vpcat_planner_create(const vpcat_catalog* cat, vpcat_planner** out, vpcat_error* err) {
  static const char where[] = "vpcat_planner_create";
  if (cat == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "catalog is NULL");
  if (out == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "out is NULL");
  auto* p = new (std::nothrow) vpcat_planner;
  if (p == nullptr) return fail(err, VPCAT_E_OUT_OF_MEMORY, where, "the planner handle");
  const vpcat::PlanStatus s = p->planner.init(cat->view, &cat->derived);
  if (!s.ok()) {
    delete p;
    return from(s, err);
  }
  *out = p;
  return VPCAT_OK;
}

vpcat_status vpcat_planner_create_subset(const vpcat_catalog* cat, const std::uint64_t* gpus, std::size_t count,
                                         vpcat_planner** out, vpcat_error* err) {
  static const char where[] = "vpcat_planner_create_subset";
  if (cat == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "catalog is NULL");
  if (out == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "out is NULL");
  if (gpus == nullptr && count != 0) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "gpus is NULL");
  vpcat::Subset subset;
  if (const vpcat::PlanStatus s = subset.assign_gpus(cat->view, gpus, count); !s.ok()) return from(s, err);
  auto* p = new (std::nothrow) vpcat_planner;
  if (p == nullptr) return fail(err, VPCAT_E_OUT_OF_MEMORY, where, "the planner handle");
  const vpcat::PlanStatus s = p->planner.init(cat->view, subset, &cat->derived);
  if (!s.ok()) {
    delete p;
    return from(s, err);
  }
  *out = p;
  return VPCAT_OK;
}

vpcat_status vpcat_planner_catalog_gpu(const vpcat_planner* planner, std::uint32_t rank, std::uint64_t* out) {
  if (planner == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (rank >= planner->planner.gpu_count()) return VPCAT_E_OUT_OF_RANGE;
  *out = planner->planner.catalog_gpu(rank);
  return VPCAT_OK;
}

void vpcat_planner_destroy(vpcat_planner* planner) { delete planner; }

vpcat_status vpcat_planner_gpu_count(const vpcat_planner* planner, std::uint32_t* out) {
  if (planner == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  *out = planner->planner.gpu_count();
  return VPCAT_OK;
}

vpcat_status vpcat_planner_max_route_links(const vpcat_planner* planner, std::uint32_t* out) {
  if (planner == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  *out = planner->planner.max_route_links();
  return VPCAT_OK;
}

vpcat_status vpcat_planner_plan_dense_u64(vpcat_planner* planner, const std::uint64_t* bytes, std::uint64_t gpus,
                                          const vpcat_plan_options* options, vpcat_plan* plan, vpcat_error* err) {
  return run_plan(planner, vpcat::Demand::dense(bytes, gpus), options, plan, err, "vpcat_planner_plan_dense_u64");
}

vpcat_status vpcat_planner_plan_dense_f64(vpcat_planner* planner, const double* bytes, std::uint64_t gpus,
                                          const vpcat_plan_options* options, vpcat_plan* plan, vpcat_error* err) {
  return run_plan(planner, vpcat::Demand::dense(bytes, gpus), options, plan, err, "vpcat_planner_plan_dense_f64");
}

vpcat_status vpcat_planner_plan_sparse(vpcat_planner* planner, const vpcat_demand_entry* entries, std::size_t count,
                                       std::uint64_t gpus, const vpcat_plan_options* options, vpcat_plan* plan,
                                       vpcat_error* err) {
  static const char where[] = "vpcat_planner_plan_sparse";
  if (planner == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "planner is NULL");
  if (entries == nullptr || count == 0)  // the C++ planner's own verdict on a missing array
    return run_plan(planner, vpcat::Demand::sparse(nullptr, count, gpus), options, plan, err, where);
  // A copy, not a cast: vpcat_demand_entry and vpcat::DemandEntry are distinct types.
  if (!planner->entries.resize(count)) {
    if (plan != nullptr) plan->plan.clear();
    return fail(err, VPCAT_E_OUT_OF_MEMORY, where, "copying %llu demand entries", static_cast<unsigned long long>(count));
  }
  vpcat::DemandEntry* e = planner->entries.data();
  for (std::size_t i = 0; i < count; ++i) e[i].src = entries[i].src, e[i].dst = entries[i].dst, e[i].bytes = entries[i].bytes;
  return run_plan(planner, vpcat::Demand::sparse(e, count, gpus), options, plan, err, where);
}

vpcat_status vpcat_planner_route_links(const vpcat_planner* planner, const vpcat_transfer* transfer,
                                       std::uint64_t* links, std::size_t capacity, std::size_t* count) {
  if (planner == nullptr || transfer == nullptr || count == nullptr || (links == nullptr && capacity != 0))
    return VPCAT_E_INVALID_ARGUMENT;
  const std::uint32_t cap = capacity > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(capacity);
  const std::uint32_t n = planner->planner.route_links(to_cpp(*transfer), links, cap);
  if (n == 0) return VPCAT_E_INVALID_ARGUMENT;  // every route has a link: not a transfer of this planner
  *count = n;
  return n <= capacity ? VPCAT_OK : VPCAT_E_BUFFER_TOO_SMALL;
}

vpcat_status vpcat_planner_route_forwarders(const vpcat_planner* planner, const vpcat_transfer* transfer,
                                            std::uint64_t* components, std::size_t capacity, std::size_t* count) {
  if (planner == nullptr || transfer == nullptr || count == nullptr || (components == nullptr && capacity != 0))
    return VPCAT_E_INVALID_ARGUMENT;
  const vpcat::PlanTransfer t = to_cpp(*transfer);
  if (planner->planner.route_links(t, nullptr, 0) == 0) return VPCAT_E_INVALID_ARGUMENT;
  const std::uint32_t cap = capacity > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(capacity);
  const std::uint32_t n = planner->planner.route_forwarders(t, components, cap);
  *count = n;
  return n <= capacity ? VPCAT_OK : VPCAT_E_BUFFER_TOO_SMALL;
}

