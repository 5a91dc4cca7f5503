// The result of the planner's operations: a numbered error code and a
// message that reads "where: what (why)", as vpcat::Status does for the
// reader:
//
//   demand [2][5]: demand entry is not a byte count (-1: bytes must be a
//     finite whole number >= 0)
//
// Planner codes live in their own enum, numbered from 100 so that they never
// collide with the reader's vpcat::Error codes (0-99) and a C API can report
// both through one integer. Codes are never renumbered; each has a stable
// name and a stable base message (the part before the parenthesis); the
// details may improve between releases.
//
// A PlanStatus is a small value (no allocation, trivially copyable).
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v1 {

enum class PlanError : std::uint16_t {
  ok = 0,
  not_ready = 100,            // plan() or a query before a successful init()
  unsupported_catalog = 101,  // the catalog exceeds a planner limit (docs/planner.md "Limits")
  out_of_memory = 102,        // a buffer could not be allocated
  bad_options = 103,          // a PlanOptions field is out of range
  empty_demand = 104,         // no GPUs, or no matrix
  demand_size = 105,          // the demand's GPU count is not the catalog's
  bad_demand_value = 106,     // negative, NaN, infinite or fractional bytes (double API)
  bad_demand_entry = 107,     // a sparse entry names a GPU that does not exist
  demand_overflow = 108,      // an entry or the off-diagonal total exceeds 2^63 bytes
  unroutable = 109,           // inter-node bytes at a node without a NIC that carries GPU traffic
  step_limit = 110,           // the plan needs more steps than PlanOptions::max_steps
};

struct PlanErrorInfo {
  PlanError code;
  const char* name;     // stable identifier: "demand_size"
  const char* message;  // stable base message
};

inline constexpr PlanErrorInfo kPlanErrors[] = {
    {PlanError::ok, "ok", "ok"},
    {PlanError::not_ready, "not_ready", "planner is not initialized"},
    {PlanError::unsupported_catalog, "unsupported_catalog", "catalog exceeds a planner limit"},
    {PlanError::out_of_memory, "out_of_memory", "out of memory"},
    {PlanError::bad_options, "bad_options", "invalid plan option"},
    {PlanError::empty_demand, "empty_demand", "demand is empty"},
    {PlanError::demand_size, "demand_size", "demand size does not match the catalog"},
    {PlanError::bad_demand_value, "bad_demand_value", "demand entry is not a byte count"},
    {PlanError::bad_demand_entry, "bad_demand_entry", "demand entry names no GPU of the catalog"},
    {PlanError::demand_overflow, "demand_overflow", "byte counts overflow"},
    {PlanError::unroutable, "unroutable", "demand cannot be routed"},
    {PlanError::step_limit, "step_limit", "step limit exceeded"},
};

inline const PlanErrorInfo& plan_error_info(PlanError e) noexcept {
  for (const PlanErrorInfo& i : kPlanErrors)
    if (i.code == e) return i;
  return kPlanErrors[0];
}

class PlanStatus {
 public:
  // Success.
  PlanStatus() noexcept = default;

  // A failure at `where` ("demand", "demand [2][5]", "options.latency_us",
  // "catalog"); `detail` is a printf format for the "(why)" part, or nullptr.
  static PlanStatus at(PlanError code, const char* where, const char* detail, ...) noexcept
#if defined(__GNUC__)
      __attribute__((format(printf, 3, 4)))
#endif
  {
    PlanStatus s;
    s.code_ = code;
    int n = std::snprintf(s.message_, sizeof s.message_, "%s: %s", where, plan_error_info(code).message);
    if (detail == nullptr || n < 0 || static_cast<std::size_t>(n) + 4 >= sizeof s.message_) return s;
    auto used = static_cast<std::size_t>(n);
    s.message_[used++] = ' ';
    s.message_[used++] = '(';
    std::va_list args;
    va_start(args, detail);
    int d = std::vsnprintf(s.message_ + used, sizeof s.message_ - used - 1, detail, args);
    va_end(args);
    if (d < 0) d = 0;
    used += static_cast<std::size_t>(d);
    if (used > sizeof s.message_ - 2) used = sizeof s.message_ - 2;  // the detail was truncated
    s.message_[used++] = ')';
    s.message_[used] = '\0';
    return s;
  }

  // The demand entry a failure names, as fields, so that a tool can point
  // at it (a file's line) without parsing the message: the dense cell
  // [entry_src][entry_dst], and for a sparse demand also the entry's index.
  // kNoEntry where the status names none (e.g. demand_size, bad_options).
  static constexpr std::uint64_t kNoEntry = ~std::uint64_t{0};
  std::uint64_t entry_src() const noexcept { return src_; }
  std::uint64_t entry_dst() const noexcept { return dst_; }
  std::uint64_t entry_index() const noexcept { return index_; }
  bool names_cell() const noexcept { return src_ != kNoEntry; }
  PlanStatus& with_cell(std::uint64_t src, std::uint64_t dst) noexcept {
    src_ = src, dst_ = dst;
    return *this;
  }
  PlanStatus& with_entry(std::uint64_t index) noexcept {
    index_ = index;
    return *this;
  }

  bool ok() const noexcept { return code_ == PlanError::ok; }
  PlanError code() const noexcept { return code_; }
  const char* name() const noexcept { return plan_error_info(code_).name; }
  // The whole message, NUL-terminated; "ok" on success.
  const char* message() const noexcept { return code_ == PlanError::ok ? "ok" : message_; }

 private:
  PlanError code_ = PlanError::ok;
  std::uint64_t src_ = kNoEntry, dst_ = kNoEntry, index_ = kNoEntry;
  char message_[256] = {};
};

}  // namespace v1
}  // namespace vpcat
