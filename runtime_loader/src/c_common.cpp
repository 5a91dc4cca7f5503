// The shared part of the C API (c_api.hpp): statuses and options to C, transfers.
#include <cstdarg>
#include <cstdio>

#include "c_api.hpp"
#include "vpcat/detail/message.hpp"

namespace vpcat_c {

// ---- errors ------------------------------------------------------------------------------

vpcat_status from(const vpcat::Status& s, vpcat_error* err) noexcept {
  const auto code = static_cast<vpcat_status>(s.code());
  if (err != nullptr && !s.ok()) {
    err->code = code;
    err->section = s.section();
    err->offset = s.offset();
    std::snprintf(err->message, sizeof err->message, "%s", s.message());
  }
  return code;
}

vpcat_status from(const vpcat::PlanStatus& s, vpcat_error* err) noexcept {
  const auto code = static_cast<vpcat_status>(s.code());
  if (err != nullptr && !s.ok()) {
    err->code = code;
    err->section = 0;
    err->offset = VPCAT_NO_OFFSET;
    std::snprintf(err->message, sizeof err->message, "%s", s.message());
  }
  return code;
}

vpcat_status fail(vpcat_error* err, vpcat_status code, const char* where, const char* detail, ...) noexcept {
  if (err == nullptr) return code;
  err->code = code;
  err->section = 0;
  err->offset = VPCAT_NO_OFFSET;
  std::va_list args;
  va_start(args, detail);
  vpcat::detail::format_message(err->message, sizeof err->message, where, false, 0, vpcat_status_message(code), detail,
                                args);
  va_end(args);
  return code;
}

// ---- options --------------------------------------------------------------------------------

bool to_cpp(const vpcat_verify_options* o, vpcat::VerifyOptions* out, vpcat_error* err, const char* where,
            vpcat_status* status) noexcept {
  if (o == nullptr) return true;
  if (o->struct_size != sizeof(vpcat_verify_options)) {
    *status = fail(err, VPCAT_E_INVALID_ARGUMENT, where,
                   "options->struct_size is %u, this library's vpcat_verify_options has %u bytes: start from "
                   "vpcat_verify_options_default()",
                   static_cast<unsigned>(o->struct_size), static_cast<unsigned>(sizeof(vpcat_verify_options)));
    return false;
  }
  out->max_file_size = o->max_file_size;
  out->max_sections = o->max_sections;
  out->max_nodes = o->max_nodes;
  out->max_tree_depth = o->max_tree_depth;
  return true;
}

bool to_cpp(const vpcat_plan_options* o, vpcat::PlanOptions* out, vpcat_error* err, const char* where,
            vpcat_status* status) noexcept {
  if (o == nullptr) return true;
  if (o->struct_size != sizeof(vpcat_plan_options)) {
    *status = fail(err, VPCAT_E_INVALID_ARGUMENT, where,
                   "options->struct_size is %u, this library's vpcat_plan_options has %u bytes: start from "
                   "vpcat_plan_options_default()",
                   static_cast<unsigned>(o->struct_size), static_cast<unsigned>(sizeof(vpcat_plan_options)));
    return false;
  }
  if (o->replay > 1) {
    *status = fail(err, VPCAT_E_INVALID_ARGUMENT, where, "options->replay is %u: must be 0 or 1",
                   static_cast<unsigned>(o->replay));
    return false;
  }
  if (o->channels_only > 1) {
    *status = fail(err, VPCAT_E_INVALID_ARGUMENT, where, "options->channels_only is %u: must be 0 or 1",
                   static_cast<unsigned>(o->channels_only));
    return false;
  }
  if (o->nic_loopback > 1) {
    *status = fail(err, VPCAT_E_INVALID_ARGUMENT, where, "options->nic_loopback is %u: must be 0 or 1",
                   static_cast<unsigned>(o->nic_loopback));
    return false;
  }
  out->latency_us = o->latency_us;
  out->min_step_latencies = o->min_step_latencies;
  out->min_chunk_bytes = o->min_chunk_bytes;
  out->chunk_align_bytes = o->chunk_align_bytes;
  out->max_steps = o->max_steps;
  out->allow_shared = o->allow_shared != 0;
  out->replay = o->replay != 0;
  out->nic_loopback = o->nic_loopback != 0;
  out->channels_only = o->channels_only != 0;
  return true;
}

// ---- transfers --------------------------------------------------------------------------------

vpcat::PlanTransfer to_cpp(const vpcat_transfer& t) noexcept {
  vpcat::PlanTransfer p;
  p.src = t.src, p.dst = t.dst, p.origin = t.origin, p.final = t.final;
  p.bytes = t.bytes, p.solo_gbps = t.solo_gbps, p.src_nic = t.src_nic, p.dst_nic = t.dst_nic;
  return p;
}

vpcat_transfer to_c(const vpcat::PlanTransfer& p) noexcept {
  vpcat_transfer t{};
  t.src = p.src, t.dst = p.dst, t.origin = p.origin, t.final = p.final;
  t.bytes = p.bytes, t.solo_gbps = p.solo_gbps, t.src_nic = p.src_nic, t.dst_nic = p.dst_nic;
  return t;
}

}  // namespace vpcat_c
