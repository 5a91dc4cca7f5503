// The C API (vpcat.h) over the header-only C++ runtime. Built with
// -fno-exceptions -fno-rtti: nothing here can throw, so nothing crosses the
// C boundary but return codes. Every precondition of the C++ views (an index
// below its count, a non-null pointer) is checked here and becomes a status;
// past these checks the calls are the C++ ones, unchanged.
#include "vpcat.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <new>

#include "vpcat/catalog_view.hpp"
#include "vpcat/detail/message.hpp"
#include "vpcat/mapped_file.hpp"
#include "vpcat/planner.hpp"
#include "vpcat/status.hpp"
#include "vpcat/verify.hpp"
#include "vpcat/version.hpp"

#if defined(__cpp_exceptions) || defined(__GXX_RTTI)
#error "vpcat_c.cpp is built with -fno-exceptions -fno-rtti (runtime_loader/CMakeLists.txt)"
#endif

// ---- the C codes are the C++ codes ------------------------------------------------------
// Every code of the error catalogue (vpcat/status_codes.def) has its C
// constant in vpcat.h, with the same value: a code added to the catalogue
// fails this build until vpcat.h lists it. (The ctest `status_catalogue`
// checks the other direction, and the docs' tables.)
#define VPCAT_READER_STATUS(name, c_constant, code, message)                                        \
  static_assert(static_cast<int>(c_constant) == code && static_cast<int>(vpcat::Error::name) == code, \
                #c_constant " differs from the error catalogue");
#define VPCAT_PLAN_STATUS(name, c_constant, code, message)                                              \
  static_assert(static_cast<int>(c_constant) == code && static_cast<int>(vpcat::PlanError::name) == code, \
                #c_constant " differs from the error catalogue");
#define VPCAT_C_STATUS(name, c_constant, code, message) \
  static_assert(static_cast<int>(c_constant) == code, #c_constant " differs from the error catalogue");
#include "vpcat/status_codes.def"

static_assert(VPCAT_VERSION_MAJOR == vpcat::kLibraryVersionMajor && VPCAT_VERSION_MINOR == vpcat::kLibraryVersionMinor &&
                  VPCAT_VERSION_PATCH == vpcat::kLibraryVersionPatch,
              "vpcat.h and vpcat/version.hpp disagree on the library version");
static_assert(VPCAT_FORMAT_MAJOR == vpcat::kFormatMajor && VPCAT_FORMAT_MINOR == vpcat::kFormatMinor,
              "vpcat.h and vpcat/format.hpp disagree on the format version");
static_assert(VPCAT_NONE == vpcat::kNone && VPCAT_ROLE_IDLE == vpcat::kIdle && VPCAT_ROLE_NIC_BASE == vpcat::kNicBase &&
                  VPCAT_NO_NIC == vpcat::kNoNic && VPCAT_NO_OFFSET == vpcat::kNoOffset,
              "vpcat.h constants differ from the C++ ones");
static_assert(static_cast<int>(VPCAT_COMPONENT_NET_SWITCH) == static_cast<int>(vpcat::ComponentKind::net_switch) &&
                  static_cast<int>(VPCAT_LINK_NETWORK) == static_cast<int>(vpcat::LinkKind::network) &&
                  static_cast<int>(VPCAT_FABRIC_LEAF_SPINE) == static_cast<int>(vpcat::FabricKind::leaf_spine),
              "vpcat.h enumerations differ from the C++ ones");

// ---- handles --------------------------------------------------------------------------------

struct vpcat_catalog {
  vpcat::MappedFile file;          // open_file: the mapping
  unsigned char* copy = nullptr;   // open_buffer with VPCAT_OPEN_COPY: the owned bytes
  vpcat::CatalogView view;         // points into file, copy or the caller's buffer
  ~vpcat_catalog() { ::operator delete(copy); }
};

struct vpcat_planner {
  vpcat::Planner planner;
  vpcat::detail::PodBuffer<vpcat::DemandEntry> entries;  // the sparse demand, copied
};

struct vpcat_plan {
  vpcat::Plan plan;
};

namespace {

// Every status code, its name and base message (vpcat/status_codes.def).
struct StatusInfo {
  int code;
  const char* name;
  const char* message;
};
constexpr StatusInfo kStatus[] = {
#define VPCAT_READER_STATUS(name, c_constant, code, message) {code, #name, message},
#define VPCAT_PLAN_STATUS(name, c_constant, code, message) {code, #name, message},
#define VPCAT_C_STATUS(name, c_constant, code, message) {code, #name, message},
#include "vpcat/status_codes.def"
};

const StatusInfo* status_info(vpcat_status code) noexcept {
  for (const StatusInfo& i : kStatus)
    if (i.code == static_cast<int>(code)) return &i;
  return nullptr;
}

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

// A failure of the C layer: "where: base message (detail)".
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
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

// ---- small helpers ----------------------------------------------------------------------------

const char* cstr(std::string_view s) noexcept { return s.data(); }  // catalog strings are NUL-terminated (verified)

bool type_ok(const vpcat_catalog* cat, std::uint32_t type) noexcept { return type < cat->view.node_type_count(); }

bool is_endpoint(const vpcat::NodeTypeView& t, std::uint32_t c) noexcept {
  return c >= t.first_gpu() && c < t.component_count();
}

void fill_gpu(const vpcat::CatalogView& v, std::uint64_t gpu, vpcat_gpu* out) noexcept {
  std::uint32_t node = 0, local = 0;
  v.locate_gpu(gpu, &node, &local);
  const vpcat::NodeRef n = v.node(node);
  const vpcat::NodeTypeView t = v.node_type(n.node_type);
  const vpcat::ComponentView c = t.component(t.gpu(local));
  vpcat_gpu g{};
  g.gpu = gpu;
  g.node = node;
  g.node_type = n.node_type;
  g.local_index = local;
  g.component = c.id();
  g.orbit = c.orbit();
  g.global_component = n.first_component + c.id();
  g.name = cstr(c.name());
  g.model = cstr(c.model());
  g.pci_bus_id = cstr(c.pci_bus_id());
  g.device_name = cstr(c.device_name());
  *out = g;
}

// "[domain:]bus:device.function" in hexadecimal, any case and width.
bool parse_bus_id(const char* s, std::uint64_t fields[4]) noexcept {
  std::uint64_t parts[4] = {0, 0, 0, 0};
  int n = 0;
  bool dot = false;
  while (true) {
    std::uint64_t v = 0;
    int digits = 0;
    for (;; ++s, ++digits) {
      const char ch = *s;
      int d;
      if (ch >= '0' && ch <= '9') d = ch - '0';
      else if (ch >= 'a' && ch <= 'f') d = ch - 'a' + 10;
      else if (ch >= 'A' && ch <= 'F') d = ch - 'A' + 10;
      else break;
      if (digits >= 12) return false;
      v = v * 16 + static_cast<std::uint64_t>(d);
    }
    if (digits == 0 || n == 4) return false;
    parts[n++] = v;
    if (*s == '\0') break;
    if (dot) return false;  // nothing may follow the function
    if (*s == '.') dot = true;
    else if (*s != ':') return false;
    ++s;
  }
  if (!dot || n < 3) return false;  // bus:device.function at least
  // Right-align: a missing domain is 0.
  for (int i = 0; i < 4; ++i) fields[i] = 0;
  for (int i = 0; i < n; ++i) fields[4 - n + i] = parts[i];
  return true;
}

bool same_bus_id(const char* a, const char* b) noexcept {
  std::uint64_t x[4], y[4];
  if (parse_bus_id(a, x) && parse_bus_id(b, y))
    return x[0] == y[0] && x[1] == y[1] && x[2] == y[2] && x[3] == y[3];
  return std::strcmp(a, b) == 0;
}

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

// The definitions below take their C linkage from the declarations in
// vpcat.h; -Wmissing-declarations catches one whose signature drifted.

// ---- versions and statuses ----------------------------------------------------------------

unsigned vpcat_version_number(void) { return VPCAT_VERSION_NUMBER; }

const char* vpcat_version_string(void) {
#define VPCAT_STR2(x) #x
#define VPCAT_STR(x) VPCAT_STR2(x)
  return VPCAT_STR(VPCAT_VERSION_MAJOR) "." VPCAT_STR(VPCAT_VERSION_MINOR) "." VPCAT_STR(VPCAT_VERSION_PATCH);
#undef VPCAT_STR
#undef VPCAT_STR2
}

unsigned vpcat_format_major(void) { return vpcat::kFormatMajor; }
unsigned vpcat_format_minor(void) { return vpcat::kFormatMinor; }

const char* vpcat_status_name(vpcat_status code) {
  const StatusInfo* i = status_info(code);
  return i != nullptr ? i->name : "unknown";
}

const char* vpcat_status_message(vpcat_status code) {
  const StatusInfo* i = status_info(code);
  return i != nullptr ? i->message : "unknown status code";
}

// ---- opening --------------------------------------------------------------------------------

vpcat_verify_options vpcat_verify_options_default(void) {
  const vpcat::VerifyOptions d;
  vpcat_verify_options o{};
  o.struct_size = sizeof o;
  o.max_sections = d.max_sections;
  o.max_file_size = d.max_file_size;
  o.max_nodes = d.max_nodes;
  o.max_tree_depth = d.max_tree_depth;
  return o;
}

vpcat_status vpcat_catalog_open_file(const char* path, const vpcat_verify_options* options, vpcat_catalog** out,
                                     vpcat_error* err) {
  static const char where[] = "vpcat_catalog_open_file";
  if (path == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "path is NULL");
  if (out == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "out is NULL");
  vpcat::VerifyOptions o;
  vpcat_status s = VPCAT_OK;
  if (!to_cpp(options, &o, err, where, &s)) return s;
  auto* cat = new (std::nothrow) vpcat_catalog;
  if (cat == nullptr) return fail(err, VPCAT_E_OUT_OF_MEMORY, where, "the catalog handle");
  vpcat::Status st = vpcat::MappedFile::open(path, &cat->file, o.max_file_size);
  if (st.ok()) st = vpcat::CatalogView::open(cat->file.data(), cat->file.size(), &cat->view, o);
  if (!st.ok()) {
    delete cat;
    return from(st, err);
  }
  *out = cat;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_open_buffer(const void* data, std::size_t size, unsigned flags,
                                       const vpcat_verify_options* options, vpcat_catalog** out, vpcat_error* err) {
  static const char where[] = "vpcat_catalog_open_buffer";
  if (out == nullptr) return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "out is NULL");
  if ((flags & ~VPCAT_OPEN_COPY) != 0)
    return fail(err, VPCAT_E_INVALID_ARGUMENT, where, "unknown flag bits 0x%x", flags & ~VPCAT_OPEN_COPY);
  vpcat::VerifyOptions o;
  vpcat_status s = VPCAT_OK;
  if (!to_cpp(options, &o, err, where, &s)) return s;
  if (size > o.max_file_size)  // before copying anything
    return from(vpcat::Status::at(vpcat::Error::file_too_large, "buffer", vpcat::kNoOffset,
                                  "%llu bytes, limit max_file_size %llu", static_cast<unsigned long long>(size),
                                  static_cast<unsigned long long>(o.max_file_size)),
                err);
  auto* cat = new (std::nothrow) vpcat_catalog;
  if (cat == nullptr) return fail(err, VPCAT_E_OUT_OF_MEMORY, where, "the catalog handle");
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  if ((flags & VPCAT_OPEN_COPY) != 0 && data != nullptr && size != 0) {
    cat->copy = static_cast<unsigned char*>(::operator new(size, std::nothrow));
    if (cat->copy == nullptr) {
      delete cat;
      return fail(err, VPCAT_E_OUT_OF_MEMORY, where, "copying %llu bytes", static_cast<unsigned long long>(size));
    }
    std::memcpy(cat->copy, data, size);
    bytes = cat->copy;
  }
  const vpcat::Status st = vpcat::CatalogView::open(bytes, size, &cat->view, o);
  if (!st.ok()) {
    delete cat;
    return from(st, err);
  }
  *out = cat;
  return VPCAT_OK;
}

vpcat_status vpcat_verify_buffer(const void* data, std::size_t size, const vpcat_verify_options* options,
                                 vpcat_error* err) {
  vpcat::VerifyOptions o;
  vpcat_status s = VPCAT_OK;
  if (!to_cpp(options, &o, err, "vpcat_verify_buffer", &s)) return s;
  return from(vpcat::verify(static_cast<const std::uint8_t*>(data), size, nullptr, o), err);
}

void vpcat_catalog_destroy(vpcat_catalog* cat) { delete cat; }

// ---- catalog: file and cluster ----------------------------------------------------------------

vpcat_status vpcat_catalog_get_info(const vpcat_catalog* cat, vpcat_catalog_info* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  const vpcat::CatalogView& v = cat->view;
  const vpcat::Layout& l = v.layout();
  const vpcat::ProvenanceView p = v.provenance();
  vpcat_catalog_info i{};
  i.format_major = l.format_major, i.format_minor = l.format_minor, i.min_reader_minor = l.min_reader_minor;
  i.writer_major = l.writer_major, i.writer_minor = l.writer_minor, i.writer_patch = l.writer_patch;
  i.file_size = v.file_size();
  i.section_count = v.section_count();
  i.node_type_count = v.node_type_count();
  i.node_group_count = v.node_group_count();
  i.node_count = v.node_count();
  i.gpu_count = v.gpu_count();
  i.nic_count = v.nic_count();
  i.global_component_count = v.global_component_count();
  i.global_link_count = v.global_link_count();
  i.default_count = v.default_count();
  i.cluster_group_order = cstr(v.cluster_group_order());
  i.tool = cstr(p.tool), i.tool_version = cstr(p.tool_version);
  i.input_digest = cstr(p.input_digest), i.tool_options = cstr(p.options);
  *out = i;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_gpu_count(const vpcat_catalog* cat, std::uint64_t* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  *out = cat->view.gpu_count();
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_node_count(const vpcat_catalog* cat, std::uint32_t* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  *out = cat->view.node_count();
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_node_type_count(const vpcat_catalog* cat, std::uint32_t* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  *out = cat->view.node_type_count();
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_section(const vpcat_catalog* cat, std::uint32_t i, vpcat_section* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (i >= cat->view.section_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::SectionEntry e = cat->view.section(i);
  vpcat_section s{};
  s.type = e.type, s.flags = e.flags, s.name = e.name, s.offset = e.offset, s.size = e.size, s.checksum = e.checksum;
  *out = s;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_default(const vpcat_catalog* cat, std::uint32_t i, const char** key, double* value) {
  if (cat == nullptr || key == nullptr || value == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (i >= cat->view.default_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::DefaultEntry e = cat->view.default_at(i);
  *key = cstr(e.key);
  *value = e.value;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_fabric(const vpcat_catalog* cat, vpcat_fabric* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  const vpcat::FabricView f = cat->view.fabric();
  vpcat_fabric r{};
  r.kind = static_cast<vpcat_fabric_kind>(f.kind);
  r.leaf_size = f.leaf_size;
  r.oversubscription = f.oversubscription;
  r.switches = f.switches;
  r.spine = f.spine ? 1u : 0u;
  r.group_description = cstr(f.group_description);
  r.group_order = cstr(f.group_order);
  *out = r;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_nic_switch(const vpcat_catalog* cat, std::uint32_t node, std::uint32_t nic,
                                      std::uint32_t* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  const vpcat::CatalogView& v = cat->view;
  if (node >= v.node_count()) return VPCAT_E_OUT_OF_RANGE;
  if (nic >= v.node_type(v.node(node).node_type).nic_count()) return VPCAT_E_OUT_OF_RANGE;
  if (v.fabric().kind == vpcat::FabricKind::none) return VPCAT_E_NOT_FOUND;
  *out = v.switch_of_nic(node, nic);
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_spine_uplink_gbps(const vpcat_catalog* cat, std::uint32_t k, double* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  const vpcat::FabricView f = cat->view.fabric();
  if (k >= f.switches) return VPCAT_E_OUT_OF_RANGE;
  if (!f.spine) return VPCAT_E_NOT_FOUND;
  *out = cat->view.spine_uplink_gbps(k);
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_node_group(const vpcat_catalog* cat, std::uint32_t group, vpcat_node_group* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (group >= cat->view.node_group_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeGroupView g = cat->view.node_group(group);
  vpcat_node_group r{};
  r.node_type = g.node_type, r.count = g.count, r.names = cstr(g.names), r.first_node = g.first_node;
  r.first_component = g.first_component, r.first_link = g.first_link;
  r.first_gpu = g.first_gpu, r.first_nic = g.first_nic;
  *out = r;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_node(const vpcat_catalog* cat, std::uint32_t node, vpcat_node* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (node >= cat->view.node_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeRef n = cat->view.node(node);
  const vpcat::NodeTypeView t = cat->view.node_type(n.node_type);
  vpcat_node r{};
  r.node = n.node, r.node_type = n.node_type, r.group = n.group;
  r.gpu_count = t.gpu_count(), r.nic_count = t.nic_count();
  r.first_component = n.first_component, r.first_link = n.first_link;
  r.first_gpu = n.first_gpu, r.first_nic = n.first_nic;
  *out = r;
  return VPCAT_OK;
}

// ---- GPUs ---------------------------------------------------------------------------------------

vpcat_status vpcat_catalog_gpu(const vpcat_catalog* cat, std::uint64_t gpu, vpcat_gpu* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (gpu >= cat->view.gpu_count()) return VPCAT_E_OUT_OF_RANGE;
  fill_gpu(cat->view, gpu, out);
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_node_of_gpu(const vpcat_catalog* cat, std::uint64_t gpu, std::uint32_t* node) {
  if (cat == nullptr || node == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (gpu >= cat->view.gpu_count()) return VPCAT_E_OUT_OF_RANGE;
  std::uint32_t local = 0;
  cat->view.locate_gpu(gpu, node, &local);
  return VPCAT_OK;
}

namespace {
template <class Match>
vpcat_status find_gpu(const vpcat_catalog* cat, std::uint32_t node, const char* key, std::uint64_t* gpu,
                      Match match) noexcept {
  if (cat == nullptr || key == nullptr || gpu == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (node >= cat->view.node_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeRef n = cat->view.node(node);
  const vpcat::NodeTypeView t = cat->view.node_type(n.node_type);
  for (std::uint32_t g = 0; g < t.gpu_count(); ++g)
    if (match(t.component(t.gpu(g)), key)) {
      *gpu = n.first_gpu + g;
      return VPCAT_OK;
    }
  return VPCAT_E_NOT_FOUND;
}
}  // namespace

vpcat_status vpcat_catalog_gpu_by_bus_id(const vpcat_catalog* cat, std::uint32_t node, const char* bus_id,
                                         std::uint64_t* gpu) {
  return find_gpu(cat, node, bus_id, gpu, [](const vpcat::ComponentView& c, const char* key) {
    return !c.pci_bus_id().empty() && same_bus_id(cstr(c.pci_bus_id()), key);
  });
}

vpcat_status vpcat_catalog_gpu_by_device_name(const vpcat_catalog* cat, std::uint32_t node, const char* device_name,
                                              std::uint64_t* gpu) {
  return find_gpu(cat, node, device_name, gpu, [](const vpcat::ComponentView& c, const char* key) {
    return !c.device_name().empty() && c.device_name() == std::string_view(key);
  });
}

// ---- node types ---------------------------------------------------------------------------------

vpcat_status vpcat_catalog_node_type(const vpcat_catalog* cat, std::uint32_t type, vpcat_node_type* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (!type_ok(cat, type)) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeTypeView t = cat->view.node_type(type);
  vpcat_node_type r{};
  r.name = cstr(t.name()), r.group_order = cstr(t.group_order());
  r.patterns_represented = cstr(t.patterns_represented());
  r.component_count = t.component_count(), r.gpu_count = t.gpu_count(), r.nic_count = t.nic_count();
  r.first_gpu = t.first_gpu(), r.first_nic = t.component_count() - t.nic_count();
  r.link_count = t.link_count(), r.route_count = t.route_count();
  r.generator_count = t.generator_count(), r.pattern_count = t.pattern_count();
  *out = r;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_component(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t component,
                                     vpcat_component* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (!type_ok(cat, type)) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeTypeView t = cat->view.node_type(type);
  if (component >= t.component_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::ComponentView c = t.component(component);
  vpcat_component r{};
  r.id = c.id();
  r.kind = static_cast<vpcat_component_kind>(c.kind());
  r.parent = c.parent(), r.local_index = c.local_index(), r.orbit = c.orbit();
  r.gpudirect = c.gpudirect() ? 1u : 0u;
  r.forward_gbps = c.forward_gbps(), r.nic_gbps = c.nic_gbps();
  r.name = cstr(c.name()), r.model = cstr(c.model());
  r.pci_bus_id = cstr(c.pci_bus_id()), r.device_name = cstr(c.device_name());
  *out = r;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_link(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t link, vpcat_link* out) {
  if (cat == nullptr || out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (!type_ok(cat, type)) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeTypeView t = cat->view.node_type(type);
  if (link >= t.link_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::LinkView l = t.link(link);
  vpcat_link r{};
  r.id = l.id(), r.src = l.src(), r.dst = l.dst(), r.reverse = l.reverse(), r.orbit = l.orbit();
  r.kind = static_cast<vpcat_link_kind>(l.kind());
  r.capacity_gbps = l.capacity_gbps();
  *out = r;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_find_link(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t src,
                                     std::uint32_t dst, std::uint32_t* link) {
  if (cat == nullptr || link == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (!type_ok(cat, type)) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeTypeView t = cat->view.node_type(type);
  if (src >= t.component_count() || dst >= t.component_count()) return VPCAT_E_OUT_OF_RANGE;
  const std::uint32_t l = t.find_link(src, dst);
  if (l == vpcat::kNone) return VPCAT_E_NOT_FOUND;
  *link = l;
  return VPCAT_OK;
}

namespace {
// VPCAT_OK when `from` -> `to` names a stored route of node type `type`.
vpcat_status check_route(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t from, std::uint32_t to) noexcept {
  if (cat == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (!type_ok(cat, type)) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeTypeView t = cat->view.node_type(type);
  if (!is_endpoint(t, from) || !is_endpoint(t, to) || from == to) return VPCAT_E_OUT_OF_RANGE;
  return VPCAT_OK;
}
}  // namespace

vpcat_status vpcat_catalog_route(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t from, std::uint32_t to,
                                 vpcat_route* out) {
  if (out == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (const vpcat_status s = check_route(cat, type, from, to); s != VPCAT_OK) return s;
  const vpcat::RouteView r = cat->view.node_type(type).route(from, to);
  vpcat_route o{};
  o.from = r.from(), o.to = r.to(), o.link_count = r.link_count(), o.forwarder_count = r.forwarder_count();
  o.solo_gbps = r.solo_gbps();
  *out = o;
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_route_links(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t from,
                                       std::uint32_t to, std::uint32_t* links, std::size_t capacity,
                                       std::size_t* count) {
  if (count == nullptr || (links == nullptr && capacity != 0)) return VPCAT_E_INVALID_ARGUMENT;
  if (const vpcat_status s = check_route(cat, type, from, to); s != VPCAT_OK) return s;
  const vpcat::RouteView r = cat->view.node_type(type).route(from, to);
  const std::uint32_t n = r.link_count();
  for (std::uint32_t k = 0; k < n && k < capacity; ++k) links[k] = r.link(k);
  *count = n;
  return n <= capacity ? VPCAT_OK : VPCAT_E_BUFFER_TOO_SMALL;
}

vpcat_status vpcat_catalog_route_forwarders(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t from,
                                            std::uint32_t to, std::uint32_t* components, std::size_t capacity,
                                            std::size_t* count) {
  if (count == nullptr || (components == nullptr && capacity != 0)) return VPCAT_E_INVALID_ARGUMENT;
  if (const vpcat_status s = check_route(cat, type, from, to); s != VPCAT_OK) return s;
  const vpcat::RouteView r = cat->view.node_type(type).route(from, to);
  const std::uint32_t n = r.forwarder_count();
  for (std::uint32_t k = 0; k < n && k < capacity; ++k) components[k] = r.forwarder(k);
  *count = n;
  return n <= capacity ? VPCAT_OK : VPCAT_E_BUFFER_TOO_SMALL;
}

vpcat_status vpcat_catalog_generator(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t generator,
                                     std::uint32_t* images, std::size_t capacity, std::size_t* count) {
  if (cat == nullptr || count == nullptr || (images == nullptr && capacity != 0)) return VPCAT_E_INVALID_ARGUMENT;
  if (!type_ok(cat, type)) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeTypeView t = cat->view.node_type(type);
  if (generator >= t.generator_count()) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::GeneratorView g = t.generator(generator);
  for (std::uint32_t c = 0; c < g.size() && c < capacity; ++c) images[c] = g.image(c);
  *count = g.size();
  return g.size() <= capacity ? VPCAT_OK : VPCAT_E_BUFFER_TOO_SMALL;
}

vpcat_status vpcat_catalog_pattern_orbit_size(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t pattern,
                                              std::uint64_t* orbit_size) {
  if (cat == nullptr || orbit_size == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (!type_ok(cat, type)) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeTypeView t = cat->view.node_type(type);
  if (pattern >= t.pattern_count()) return VPCAT_E_OUT_OF_RANGE;
  *orbit_size = t.pattern(pattern).orbit_size();
  return VPCAT_OK;
}

vpcat_status vpcat_catalog_pattern_roles(const vpcat_catalog* cat, std::uint32_t type, std::uint32_t pattern,
                                         const std::uint32_t* word, std::size_t word_len, std::int32_t* send,
                                         std::int32_t* recv, std::size_t capacity, std::size_t* count) {
  if (cat == nullptr || count == nullptr) return VPCAT_E_INVALID_ARGUMENT;
  if (word == nullptr) word_len = 0;
  if (!type_ok(cat, type)) return VPCAT_E_OUT_OF_RANGE;
  const vpcat::NodeTypeView t = cat->view.node_type(type);
  if (pattern >= t.pattern_count()) return VPCAT_E_OUT_OF_RANGE;
  for (std::size_t i = 0; i < word_len; ++i)
    if (word[i] >= t.generator_count()) return VPCAT_E_OUT_OF_RANGE;
  const std::uint32_t gpus = t.gpu_count();
  if (capacity != 0 && (send == nullptr || recv == nullptr)) return VPCAT_E_INVALID_ARGUMENT;
  *count = gpus;
  if (capacity < gpus) return VPCAT_E_BUFFER_TOO_SMALL;  // all or nothing: a partial image means nothing

  // The group element sigma = word[len-1] o ... o word[0] on local component
  // ids; generators preserve kinds, so GPUs map to GPUs and NICs to NICs.
  const std::uint32_t first_nic = t.component_count() - t.nic_count();
  const auto apply = [&](std::uint32_t c) {
    for (std::size_t i = 0; i < word_len; ++i) c = t.generator(word[i]).image(c);
    return c;
  };
  const auto map_role = [&](std::int32_t role) -> std::int32_t {
    if (role == vpcat::kIdle) return role;
    if (role >= vpcat::kNicBase)
      return vpcat::kNicBase + static_cast<std::int32_t>(apply(first_nic + static_cast<std::uint32_t>(role - vpcat::kNicBase)) - first_nic);
    return static_cast<std::int32_t>(apply(t.gpu(static_cast<std::uint32_t>(role))) - t.first_gpu());
  };
  const vpcat::PatternView p = t.pattern(pattern);
  for (std::uint32_t g = 0; g < gpus; ++g) {
    const std::uint32_t image = apply(t.gpu(g)) - t.first_gpu();  // sigma(g), a local GPU index
    send[image] = map_role(p.send(g));
    recv[image] = map_role(p.recv(g));
  }
  return VPCAT_OK;
}

// ---- the planner ------------------------------------------------------------------------------

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
  const vpcat::PlanStatus s = p->planner.init(cat->view);
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
  const vpcat::PlanStatus s = p->planner.init(cat->view, subset);
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
