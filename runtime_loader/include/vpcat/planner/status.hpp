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

#include "vpcat/detail/message.hpp"
#include "vpcat/version.hpp"

namespace vpcat {
inline namespace v0_1 {

// The codes, names and base messages: vpcat/status_codes.def, the one error
// catalogue of the runtime (and of vpcat.h).
enum class PlanError : std::uint16_t {
  ok = 0,
#define VPCAT_PLAN_STATUS(name, c_constant, code, message) name = code,
#include "vpcat/status_codes.def"
};

struct PlanErrorInfo {
  PlanError code;
  const char* name;     // stable identifier: "demand_size"
  const char* message;  // stable base message
};

inline constexpr PlanErrorInfo kPlanErrors[] = {
    {PlanError::ok, "ok", "ok"},
#define VPCAT_PLAN_STATUS(name, c_constant, code, message) {PlanError::name, #name, message},
#include "vpcat/status_codes.def"
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
    std::va_list args;
    va_start(args, detail);
    detail::format_message(s.message_, sizeof s.message_, where, false, 0, plan_error_info(code).message, detail, args);
    va_end(args);
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

}  // namespace v0_1
}  // namespace vpcat
