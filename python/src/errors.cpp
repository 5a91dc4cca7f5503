#include "errors.hpp"

#include <pybind11/eval.h>

#include "vpcat/format.hpp"

namespace py = pybind11;

namespace vpcat_python {

StatusError::StatusError(const vpcat::Status& s)
    : code_(static_cast<int>(s.code())), name_(vpcat::error_info(s.code()).name), message_(s.message()) {
  if (s.section() != 0) section_ = vpcat::section_name(s.section());
  if (s.offset() != vpcat::kNoOffset) offset_ = s.offset();
}

StatusError::StatusError(const vpcat::PlanStatus& s)
    : code_(static_cast<int>(s.code())), name_(s.name()), message_(s.message()) {
  if (s.names_cell()) cell_ = std::make_pair(s.entry_src(), s.entry_dst());
}

namespace {

// The classes are Python code: attributes, __str__ and pickling come for free.
constexpr const char* kClasses = R"py(
class Error(Exception):
    """A vpcat failure.

    code: the status code (int) of runtime_loader/include/vpcat/status_codes.def
    name: its stable name ("bad_section_checksum", "demand_size", ...)
    message: "where: what (why)", as the C++ and C APIs give it
    section, offset: the catalog section and absolute byte offset (CatalogError), or None
    cell: (src, dst) of the demand entry at fault (DemandError), or None
    """

    def __init__(self, message, code=0, name="", section=None, offset=None, cell=None):
        super().__init__(message, code, name, section, offset, cell)
        self.message = message
        self.code = code
        self.name = name
        self.section = section
        self.offset = offset
        self.cell = cell

    def __str__(self):
        return self.message


class CatalogError(Error):
    """The file cannot be read or is not a valid catalog (codes 0-99)."""


class PlanError(Error):
    """The planner failed (codes 100-199)."""


class DemandError(PlanError, ValueError):
    """The demand is not a byte matrix of the catalog's GPUs (codes 104-108)."""


class OptionsError(PlanError, ValueError):
    """A plan option is out of range (code 103, bad_options)."""


class SubsetError(PlanError, ValueError):
    """A subset names a GPU the catalog lacks, or one twice (code 111, bad_subset)."""
)py";

// The module, for the translator (a plain function); set once at import.
py::handle g_module;

py::object class_for(int code) {
  const py::handle m = g_module;
  if (code < 100) return m.attr("CatalogError");
  using vpcat::PlanError;
  switch (static_cast<PlanError>(code)) {
    case PlanError::bad_options: return m.attr("OptionsError");
    case PlanError::bad_subset: return m.attr("SubsetError");
    case PlanError::empty_demand:
    case PlanError::demand_size:
    case PlanError::bad_demand_value:
    case PlanError::bad_demand_entry:
    case PlanError::demand_overflow: return m.attr("DemandError");
    default: return m.attr("PlanError");
  }
}

}  // namespace

void register_errors(py::module_& m) {
  py::dict scope = m.attr("__dict__");
  py::exec(kClasses, scope);

  // Every code, by name: vpcat.STATUS["bad_magic"] == 4.
  py::dict codes;
#define VPCAT_READER_STATUS(name, c_constant, code, message) codes[#name] = code;
#define VPCAT_PLAN_STATUS(name, c_constant, code, message) codes[#name] = code;
#define VPCAT_C_STATUS(name, c_constant, code, message) codes[#name] = code;
#include "vpcat/status_codes.def"
  m.attr("STATUS") = codes;

  g_module = m.ptr();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      py::object cls = class_for(e.code());
      py::object section = e.section() ? py::object(py::str(*e.section())) : py::object(py::none());
      py::object offset = e.offset() ? py::object(py::int_(*e.offset())) : py::object(py::none());
      py::object cell = e.cell() ? py::object(py::make_tuple(e.cell()->first, e.cell()->second)) : py::object(py::none());
      py::object error = cls(e.message(), e.code(), e.name(), section, offset, cell);
      PyErr_SetObject(cls.ptr(), error.ptr());
    }
  });
}

}  // namespace vpcat_python
