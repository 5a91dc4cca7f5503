// The C API, versions and status codes (vpcat.h, section of the same name).
#include "c_api.hpp"

using namespace vpcat_c;

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

}  // namespace

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

