#include "catalog.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "errors.hpp"
#include "vpcat/hostlist.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace vpcat_python {

std::unique_ptr<Catalog> Catalog::open(const std::string& path, const vpcat::VerifyOptions& options) {
  std::unique_ptr<Catalog> c(new Catalog());
  vpcat::Status s;
  {
    py::gil_scoped_release nogil;
    s = vpcat::CatalogFile::open(path.c_str(), &c->file_, options);
  }
  if (!s.ok()) throw StatusError(s);
  c->path_ = path;
  c->view_ = &c->file_.view();
  return c;
}

std::unique_ptr<Catalog> Catalog::from_bytes(const std::uint8_t* data, std::size_t size,
                                             const vpcat::VerifyOptions& options) {
  std::unique_ptr<Catalog> c(new Catalog());
  if (size > options.max_file_size)
    throw StatusError(vpcat::Status::at(vpcat::Error::file_too_large, "buffer", vpcat::kNoOffset,
                                        "%llu bytes, limit max_file_size %llu", static_cast<unsigned long long>(size),
                                        static_cast<unsigned long long>(options.max_file_size)));
  c->bytes_.assign(data, data + size);
  vpcat::Status s;
  {
    py::gil_scoped_release nogil;
    s = vpcat::CatalogView::open(c->bytes_.data(), c->bytes_.size(), &c->copied_view_, options);
  }
  if (!s.ok()) throw StatusError(s);
  c->view_ = &c->copied_view_;
  return c;
}

namespace {

// The limits given as keywords (None: the default).
vpcat::VerifyOptions verify_options(const py::object& max_file_size, const py::object& max_sections,
                                    const py::object& max_nodes, const py::object& max_tree_depth) {
  vpcat::VerifyOptions o;
  if (!max_file_size.is_none()) o.max_file_size = max_file_size.cast<std::uint64_t>();
  if (!max_sections.is_none()) o.max_sections = max_sections.cast<std::uint32_t>();
  if (!max_nodes.is_none()) o.max_nodes = max_nodes.cast<std::uint32_t>();
  if (!max_tree_depth.is_none()) o.max_tree_depth = max_tree_depth.cast<std::uint32_t>();
  return o;
}

std::string str(std::string_view v) { return std::string(v); }

}  // namespace

void register_catalog(py::module_& m) {
  py::class_<Catalog>(m, "Catalog", R"(A verified .vpcat catalog, read in place.

Catalog.open(path) memory-maps the file (no copy) and verifies it once;
Catalog.from_bytes(data) copies a bytes-like object and verifies the copy.
Both raise vpcat.CatalogError for a file that cannot be read or is not a
valid catalog. Read-only afterwards: any number of threads may share one.)")
      .def_static(
          "open",
          [](const py::object& path, const py::object& max_file_size, const py::object& max_sections,
             const py::object& max_nodes, const py::object& max_tree_depth) {
            const std::string p = py::module_::import("os").attr("fsencode")(path).cast<std::string>();
            if (p.find('\0') != std::string::npos) throw py::value_error("Catalog.open: embedded null byte in the path");
            return Catalog::open(p, verify_options(max_file_size, max_sections, max_nodes, max_tree_depth));
          },
          "path"_a, py::kw_only(), "max_file_size"_a = py::none(), "max_sections"_a = py::none(),
          "max_nodes"_a = py::none(), "max_tree_depth"_a = py::none(),
          "Map and verify the catalog at `path` (str or os.PathLike); the limits are vpcat::VerifyOptions'.")
      .def_static(
          "from_bytes",
          [](const py::buffer& data, const py::object& max_file_size, const py::object& max_sections,
             const py::object& max_nodes, const py::object& max_tree_depth) {
            const py::buffer_info info = data.request();
            if (info.ndim != 1 || info.itemsize != 1 || info.strides[0] != 1)
              throw py::type_error("Catalog.from_bytes: data must be a contiguous bytes-like object");
            return Catalog::from_bytes(static_cast<const std::uint8_t*>(info.ptr), static_cast<std::size_t>(info.size),
                                       verify_options(max_file_size, max_sections, max_nodes, max_tree_depth));
          },
          "data"_a, py::kw_only(), "max_file_size"_a = py::none(), "max_sections"_a = py::none(),
          "max_nodes"_a = py::none(), "max_tree_depth"_a = py::none(),
          "Copy and verify a catalog held in a bytes-like object.")
      .def_property_readonly(
          "path",
          [](const Catalog& c) -> py::object {
            if (!c.path()) return py::none();
            return py::module_::import("os").attr("fsdecode")(py::bytes(*c.path()));
          },
          "The file it was opened from (None for from_bytes).")
      .def_property_readonly("gpu_count", [](const Catalog& c) { return c.view().gpu_count(); },
                             "GPUs of the whole cluster (the demand matrix is gpu_count x gpu_count).")
      .def_property_readonly("nic_count", [](const Catalog& c) { return c.view().nic_count(); })
      .def_property_readonly("node_count", [](const Catalog& c) { return c.view().node_count(); })
      .def_property_readonly(
          "node_names",
          [](const Catalog& c) {
            std::vector<std::string> names;
            for (std::uint32_t g = 0; g < c.view().node_group_count(); ++g) {
              const vpcat::NodeGroupView group = c.view().node_group(g);
              vpcat::HostlistError e;  // the verifier checked syntax and count (bad_host_list)
              if (!vpcat::expand_hostlist(group.names, &names, &e, group.count))
                throw py::value_error("catalog: node group " + std::to_string(g) + ": names \"" +
                                      std::string(group.names) + "\": " + e.what);
            }
            return names;
          },
          "Host names of the nodes, in node order (the node groups' host lists expanded).")
      .def_property_readonly(
          "node_types",
          [](const Catalog& c) {
            std::vector<std::string> names;
            for (std::uint32_t t = 0; t < c.view().node_type_count(); ++t)
              names.push_back(str(c.view().node_type(t).name()));
            return names;
          },
          "Names of the node types.")
      .def_property_readonly(
          "node_of_gpu",
          [](const Catalog& c) {
            const vpcat::CatalogView& v = c.view();
            py::array_t<std::uint32_t> out(static_cast<py::ssize_t>(v.gpu_count()));
            auto w = out.mutable_unchecked<1>();
            for (std::uint32_t n = 0; n < v.node_count(); ++n) {
              const vpcat::NodeRef r = v.node(n);
              const std::uint32_t gpus = v.node_type(r.node_type).gpu_count();
              for (std::uint32_t g = 0; g < gpus; ++g) w(static_cast<py::ssize_t>(r.first_gpu + g)) = n;
            }
            return out;
          },
          "NumPy uint32 array: the node of every global GPU index (a new array).")
      .def(
          "gpu",
          [](const Catalog& c, std::int64_t i) {
            const vpcat::CatalogView& v = c.view();
            const auto count = static_cast<std::int64_t>(v.gpu_count());
            if (i < 0) i += count;
            if (i < 0 || i >= count) throw py::index_error("Catalog.gpu: GPU index out of range");
            const auto gpu = static_cast<std::uint64_t>(i);
            std::uint32_t lo = 0, local = 0;
            v.locate_gpu(gpu, &lo, &local);
            const vpcat::NodeTypeView t = v.node_type(v.node(lo).node_type);
            const vpcat::ComponentView comp = t.component(t.gpu(local));
            return py::dict("node"_a = lo, "local_index"_a = local, "node_type"_a = str(t.name()),
                            "name"_a = str(comp.name()), "model"_a = str(comp.model()),
                            "pci_bus_id"_a = str(comp.pci_bus_id()), "device_name"_a = str(comp.device_name()));
          },
          "index"_a, "A dict describing global GPU `index`: node, local_index, node_type, name, model, pci_bus_id, device_name.")
      .def_property_readonly(
          "format_version",
          [](const Catalog& c) { return py::make_tuple(c.view().layout().format_major, c.view().layout().format_minor); },
          "(major, minor) of the file's format.")
      .def_property_readonly(
          "writer_version",
          [](const Catalog& c) {
            const vpcat::Layout& l = c.view().layout();
            return py::make_tuple(l.writer_major, l.writer_minor, l.writer_patch);
          },
          "(major, minor, patch) of the tool that wrote it.")
      .def_property_readonly("file_size", [](const Catalog& c) { return c.view().file_size(); })
      .def_property_readonly(
          "fabric",
          [](const Catalog& c) {
            const vpcat::FabricView f = c.view().fabric();
            return py::dict("kind"_a = str(vpcat::to_string(f.kind)), "switches"_a = f.switches, "spine"_a = f.spine,
                            "leaf_size"_a = f.leaf_size, "oversubscription"_a = f.oversubscription);
          },
          "The fabric: kind ('none', 'single_switch', 'rail', 'leaf_spine'), switches, spine, leaf_size, oversubscription.")
      .def_property_readonly(
          "provenance",
          [](const Catalog& c) {
            const vpcat::ProvenanceView p = c.view().provenance();
            return py::dict("tool"_a = str(p.tool), "tool_version"_a = str(p.tool_version),
                            "input_digest"_a = str(p.input_digest), "options"_a = str(p.options),
                            "warnings"_a = str(p.warnings));
          },
          "What wrote the catalog from which input: tool, tool_version, input_digest, options, warnings.")
      .def("__repr__", [](const Catalog& c) {
        const vpcat::CatalogView& v = c.view();
        std::string s = "<vpcat.Catalog";
        if (c.path()) s += " '" + *c.path() + "'";
        s += ": " + std::to_string(v.gpu_count()) + " GPUs on " + std::to_string(v.node_count()) + " node(s), format " +
             std::to_string(v.layout().format_major) + "." + std::to_string(v.layout().format_minor) + ">";
        return s;
      });
}

}  // namespace vpcat_python
