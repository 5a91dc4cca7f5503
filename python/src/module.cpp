// The vpcat Python module: the runtime loader and the online planner
// (docs/python.md).
#include <pybind11/pybind11.h>

#include "catalog.hpp"
#include "errors.hpp"
#include "placement.hpp"
#include "planner.hpp"
#include "ranks.hpp"
#include "settings.hpp"
#include "vpcat/format.hpp"
#include "vpcat/version.hpp"

PYBIND11_MODULE(vpcat, m) {
  namespace py = pybind11;
  m.doc() = "VarioPath catalogs and the AlltoAllv planner: Catalog.open(path), Planner(catalog), planner.plan(demand).";
  m.attr("__version__") = std::to_string(VPCAT_VERSION_MAJOR) + "." + std::to_string(VPCAT_VERSION_MINOR) + "." +
                          std::to_string(VPCAT_VERSION_PATCH);
  m.attr("FORMAT_VERSION") = py::make_tuple(vpcat::kFormatMajor, vpcat::kFormatMinor);
  vpcat_python::register_errors(m);
  vpcat_python::register_catalog(m);
  vpcat_python::register_planner(m);
  vpcat_python::register_placement(m);
  vpcat_python::register_ranks(m);
  vpcat_python::register_settings(m);
  // vpcat.torch: the pure-Python executor (vpcat_torch.py, installed beside
  // this module), imported on first use only, so that `import vpcat` never
  // imports torch.
  m.def(
      "__getattr__",
      [](const std::string& name) -> py::object {
        if (name == "torch") return py::module_::import("vpcat_torch");
        throw py::attribute_error("module 'vpcat' has no attribute '" + name + "'");
      },
      py::arg("name"));
}
