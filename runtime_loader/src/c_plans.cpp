// The C API, plans (vpcat.h, section of the same name).
#include <new>

#include "c_api.hpp"

using namespace vpcat_c;

// ---- plans --------------------------------------------------------------------------------------

vpcat_status vpcat_plan_create(vpcat_plan** out) {
  if (out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  auto* p = new (std::nothrow) vpcat_plan;
  if (p == nullptr) return VPCAT_E_OUT_OF_MEMORY;
  *out = p;
  return VPCAT_OK;
}

void vpcat_plan_destroy(vpcat_plan* plan) { delete plan; }

vpcat_status vpcat_plan_reserve(vpcat_plan* plan, std::size_t steps, std::size_t transfers) {
  if (plan == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  return plan->plan.reserve(steps, transfers) ? VPCAT_OK : VPCAT_E_OUT_OF_MEMORY;
}

vpcat_status vpcat_plan_get_summary(const vpcat_plan* plan, vpcat_plan_summary* out) {
  if (plan == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  vpcat_plan_summary s{};
  s.gpus = plan->plan.gpus();
  s.step_count = plan->plan.step_count();
  s.transfer_count = plan->plan.transfer_count();
  s.total_bytes = plan->plan.total_bytes();
  s.expected_us = plan->plan.expected_us();
  *out = s;
  return VPCAT_OK;
}

vpcat_status vpcat_plan_bound_us(const vpcat_plan* plan, double* out) {
  if (plan == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  *out = plan->plan.bound_us();
  return VPCAT_OK;
}

vpcat_status vpcat_score_placement(const vpcat_catalog* cat, const std::uint64_t* gpus, std::size_t count,
                                   const std::uint64_t* bytes, const vpcat_plan_options* options,
                                   vpcat_placement_score* out, vpcat_error* err) {
  static const char where[] = "vpcat_score_placement";
  if (out == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "out is NULL");
  if (out->struct_size != sizeof(vpcat_placement_score))
    return fail(err, VPCAT_E_INVALID_ARGUMENT, where,
                "out->struct_size is %u, this library's vpcat_placement_score has %u bytes: set it to "
                "sizeof(vpcat_placement_score)",
                static_cast<unsigned>(out->struct_size), static_cast<unsigned>(sizeof(vpcat_placement_score)));
  if (bytes == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "bytes is NULL");
  vpcat_planner* planner = nullptr;
  if (const vpcat_status s = vpcat_planner_create_subset(cat, gpus, count, &planner, err); s != VPCAT_OK) return s;
  auto* plan = new (std::nothrow) vpcat_plan;
  if (plan == nullptr) {
    vpcat_planner_destroy(planner);
    return fail(err, VPCAT_E_OUT_OF_MEMORY, where, "the plan handle");
  }
  const vpcat_status s = vpcat_planner_plan_dense_u64(planner, bytes, count, options, plan, err);
  if (s == VPCAT_OK) {
    out->planned_us = plan->plan.expected_us();
    out->bound_us = plan->plan.bound_us();
    out->steps = plan->plan.step_count();
    out->total_bytes = plan->plan.total_bytes();
  }
  delete plan;
  vpcat_planner_destroy(planner);
  return s;
}

vpcat_status vpcat_plan_step_count(const vpcat_plan* plan, std::size_t* out) {
  if (plan == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  *out = plan->plan.step_count();
  return VPCAT_OK;
}

vpcat_status vpcat_plan_step(const vpcat_plan* plan, std::size_t step, vpcat_step* out) {
  if (plan == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (step >= plan->plan.step_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::PlanStep& s = plan->plan.step(step);
  vpcat_step r{};
  r.first = s.first, r.count = s.count, r.ports = s.ports, r.expected_us = s.expected_us, r.shared = s.shared;
  *out = r;
  return VPCAT_OK;
}

vpcat_status vpcat_plan_transfer(const vpcat_plan* plan, std::size_t index, vpcat_transfer* out) {
  if (plan == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (index >= plan->plan.transfer_count()) return VPCAT_E_OUT_OF_RANGE;
  *out = to_c(plan->plan.transfers()[index]);
  return VPCAT_OK;
}

vpcat_status vpcat_plan_step_transfers(const vpcat_plan* plan, std::size_t step, vpcat_transfer* out,
                                       std::size_t capacity, std::size_t* count) {
  if (plan == nullptr || count == nullptr || (out == nullptr && capacity != 0)) return VPCAT_E_INVALID_ARGUMENT;
  if (step >= plan->plan.step_count()) return VPCAT_E_OUT_OF_RANGE;
  const std::uint32_t n = plan->plan.step(step).count;
  const vpcat::PlanTransfer* t = plan->plan.step_transfers(step);
  for (std::uint32_t k = 0; k < n && k < capacity; ++k) out[k] = to_c(t[k]);
  *count = n;
  return n <= capacity ? VPCAT_OK : VPCAT_E_BUFFER_TOO_SMALL;
}

