#include "demand.hpp"

#include <cstdio>
#include <string>

#include "errors.hpp"
#include "vpcat/planner/demand_check.hpp"
#include "vpcat/planner/status.hpp"

namespace py = pybind11;

namespace vpcat_python {

namespace {

bool in_place(const py::array& a) {
  const int flags = py::detail::array_proxy(a.ptr())->flags;
  return (flags & py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_) != 0 &&
         (flags & py::detail::npy_api::NPY_ARRAY_ALIGNED_) != 0 && a.dtype().attr("isnative").cast<bool>();
}

// A dtype that holds no byte count, in the runtime's words for a bad demand
// value (PlanError::bad_demand_value, "demand: demand entry is not a byte
// count (...)"), as every other demand refusal reads; raised as TypeError.
std::string dtype_refusal(const py::array& a, const char* hint) {
  const std::string dtype = py::str(a.dtype()).cast<std::string>();
  return vpcat::PlanStatus::at(vpcat::PlanError::bad_demand_value, "demand", "dtype %s: %s", dtype.c_str(), hint)
      .message();
}

// `a` as a C-contiguous, aligned, native array of T (itself when it is one).
template <class T>
py::array as(const py::array& a, bool& copied) {
  if (a.dtype().equal(py::dtype::of<T>()) && in_place(a)) return a;
  copied = true;
  py::array c = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!c) throw py::type_error(dtype_refusal(a, "cannot be converted"));
  return c;
}

std::string shape_text(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
  if (a.ndim() == 1) s += ",";
  return s + ")";
}

// kDLCPU in dlpack.h's DLDeviceType; every other kind is memory the
// planner (which runs on the host) cannot read.
constexpr int kDLCPU = 1;

[[noreturn]] void refuse(const std::string& device) {
  throw py::type_error("demand: a tensor on device " + device +
                       " (the planner runs on the host: pass the counts on the host, e.g. "
                       "counts.to('cpu', non_blocking=True) after the router, or the split sizes as a list)");
}

// A tensor whose memory is not the host's is refused, before any copy.
void refuse_device_memory(const py::handle& matrix) {
  if (py::hasattr(matrix, "device")) {  // torch: tensor.device.type
    py::object dev = matrix.attr("device");
    if (py::hasattr(dev, "type")) {
      const std::string type = py::str(dev.attr("type")).cast<std::string>();
      if (type != "cpu") refuse(py::str(dev).cast<std::string>());
    }
  }
  if (py::hasattr(matrix, "__dlpack_device__")) {
    py::tuple d = matrix.attr("__dlpack_device__")();
    if (d.size() >= 1 && d[0].cast<int>() != kDLCPU)
      refuse("of DLPack type " + std::to_string(d[0].cast<int>()));
  }
}

}  // namespace

HeldDemand to_demand(const py::handle& matrix, std::uint64_t gpus) {
  HeldDemand h;
  py::array a;
  if (py::isinstance<py::array>(matrix)) {
    a = py::reinterpret_borrow<py::array>(matrix);
  } else if (py::hasattr(matrix, "__dlpack__")) {
    refuse_device_memory(matrix);
    // A CPU tensor (torch, JAX, CuPy's host arrays...): viewed through
    // DLPack, no copy; a strided one is then converted below like any array.
    a = py::module_::import("numpy").attr("from_dlpack")(matrix);
  } else {
    a = py::module_::import("numpy").attr("asarray")(matrix);
    h.copied = true;
  }
  const char kind = a.dtype().kind();
  if (kind != 'u' && kind != 'i' && kind != 'f')
    throw py::type_error(dtype_refusal(a, "use a uint64 matrix; signed integers and floats are accepted"));
  if (kind == 'f' && a.dtype().itemsize() > 8) throw py::type_error(dtype_refusal(a, "wider than float64; convert to uint64"));
  const auto n = gpus;
  if (a.ndim() != 2 || a.shape(0) != a.shape(1) || static_cast<std::uint64_t>(a.shape(0)) != n) {
    const std::string shape = shape_text(a);
    throw StatusError(vpcat::PlanStatus::at(vpcat::PlanError::demand_size, "demand",
                                            "shape %s, the catalog has %llu GPUs: expected (%llu, %llu)", shape.c_str(),
                                            static_cast<unsigned long long>(n), static_cast<unsigned long long>(n),
                                            static_cast<unsigned long long>(n)));
  }
  if (kind == 'f') {
    h.array = as<double>(a, h.copied);
    h.demand = vpcat::Demand::dense(static_cast<const double*>(h.array.data()), n);
    return h;
  }
  if (kind == 'u') {
    h.array = as<std::uint64_t>(a, h.copied);
    h.demand = vpcat::Demand::dense(static_cast<const std::uint64_t*>(h.array.data()), n);
    return h;
  }
  // Signed: int64 in place, after checking that no entry is negative; the
  // bytes of a non-negative int64 are those of the same uint64.
  h.array = as<std::int64_t>(a, h.copied);
  const auto* v = static_cast<const std::int64_t*>(h.array.data());
  for (std::uint64_t i = 0; i < n * n; ++i) {
    if (v[i] >= 0) continue;
    // The runtime's check and wording (demand_check.hpp), as for a float entry.
    throw StatusError(vpcat::check_demand_value(static_cast<double>(v[i]), i / n, i % n));
  }
  h.demand = vpcat::Demand::dense(reinterpret_cast<const std::uint64_t*>(v), n);
  return h;
}

}  // namespace vpcat_python
