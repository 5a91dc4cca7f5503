// vpcat.PlanOptions, vpcat.Planner and vpcat.Plan.
//
// A Plan owns its vpcat::Plan; the per-transfer and per-step arrays it hands
// out view the plan's own buffers (strided, read-only, the Plan as their
// NumPy base), so they cost no copy and keep the Plan alive. A Plan is never
// refilled: every Planner.plan() call makes a new one, so a view can never
// see its buffer reallocated.
#include "planner.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "catalog.hpp"
#include "demand.hpp"
#include "errors.hpp"
#include "vpcat/planner.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace vpcat_python {

namespace {

struct Plan {
  vpcat::Plan plan;
  py::object planner;  // the Planner that made it (route queries check it)
  bool demand_copied = false;
  std::optional<py::array> steps;  // per-transfer step index, built on first use
};

struct Planner {
  py::object catalog;
  vpcat::PlanOptions options;
  vpcat::Planner planner;
  std::mutex busy;  // vpcat::Planner::plan() is one thread at a time per planner
};

template <class T>
py::array view(const py::object& owner, const void* first, std::size_t count, std::size_t stride, std::size_t offset) {
  const char* p = first ? static_cast<const char*>(first) + offset : nullptr;
  py::array a(py::dtype::of<T>(), {static_cast<py::ssize_t>(count)}, {static_cast<py::ssize_t>(stride)}, p, owner);
  a.attr("setflags")("write"_a = false);
  return a;
}

// The shared flag of every step as a bool array on the plan's bytes: a
// PlanStep's `shared` is a u32 that is 0 or 1, so its least significant
// byte is the flag and a bool view of that byte is exact.
py::array shared_view(const py::object& owner, const vpcat::Plan& p) {
  constexpr std::uint32_t one = 1;
  std::size_t low = 0;
  while (reinterpret_cast<const unsigned char*>(&one)[low] == 0) ++low;
  return view<bool>(owner, p.step_count() ? &p.step(0) : nullptr, p.step_count(), sizeof(vpcat::PlanStep),
                    offsetof(vpcat::PlanStep, shared) + low);
}

py::dtype transfer_dtype() {
  using T = vpcat::PlanTransfer;
  py::list names, formats, offsets;
  auto field = [&](const char* name, const char* format, std::size_t offset) {
    names.append(name), formats.append(format), offsets.append(offset);
  };
  field("src", "u4", offsetof(T, src));
  field("dst", "u4", offsetof(T, dst));
  field("origin", "u4", offsetof(T, origin));
  field("final", "u4", offsetof(T, final));
  field("bytes", "u8", offsetof(T, bytes));
  field("solo_gbps", "f8", offsetof(T, solo_gbps));
  field("src_nic", "u2", offsetof(T, src_nic));
  field("dst_nic", "u2", offsetof(T, dst_nic));
  return py::dtype::from_args(
      py::dict("names"_a = names, "formats"_a = formats, "offsets"_a = offsets, "itemsize"_a = sizeof(T)));
}

Plan& plan_of(const py::object& self) { return self.cast<Plan&>(); }

template <class T, class Field>
py::array transfer_field(const py::object& self, Field offset) {
  const vpcat::Plan& p = plan_of(self).plan;
  return view<T>(self, p.transfers(), p.transfer_count(), sizeof(vpcat::PlanTransfer), offset);
}
template <class T>
py::array step_field(const py::object& self, std::size_t offset) {
  const vpcat::Plan& p = plan_of(self).plan;
  return view<T>(self, p.step_count() ? &p.step(0) : nullptr, p.step_count(), sizeof(vpcat::PlanStep), offset);
}

std::size_t index_in(std::int64_t i, std::size_t count, const char* what) {
  if (i < 0) i += static_cast<std::int64_t>(count);
  if (i < 0 || static_cast<std::size_t>(i) >= count) throw py::index_error(std::string(what) + " index out of range");
  return static_cast<std::size_t>(i);
}

template <class Query>
py::array_t<std::uint64_t> route_ids(const py::object& self, const py::object& plan, std::int64_t i, Query query) {
  Planner& pl = self.cast<Planner&>();
  Plan& p = plan.cast<Plan&>();
  if (!p.planner.is(self)) throw py::value_error("Planner: the plan was made by another planner");
  const vpcat::PlanTransfer& t = p.plan.transfers()[index_in(i, p.plan.transfer_count(), "transfer")];
  const std::uint32_t count = query(pl.planner, t, nullptr, 0);
  py::array_t<std::uint64_t> out(count);
  query(pl.planner, t, out.mutable_data(), count);
  return out;
}

// PlanOptions.machine_model: "catalog" (the catalog's model, the default),
// "default" (the runtime's class defaults) or "ideal" (no loss).
std::string machine_name(const vpcat::PlanOptions& o) {
  if (!o.machine.given()) return "catalog";
  const vpcat::MachineModel& m = o.machine.model();
  const bool ideal = !m.forwarder.on && !m.nic.on && !m.chunk_on && m.family_count == 0;
  return ideal ? "ideal" : "default";
}

void set_machine(vpcat::PlanOptions& o, const std::string& name) {
  if (name == "catalog") o.machine = vpcat::MachineChoice::from_catalog();
  else if (name == "default") o.machine = vpcat::MachineModel();
  else if (name == "ideal") o.machine = vpcat::MachineModel::ideal();
  else throw py::value_error("machine_model must be \"catalog\", \"default\" or \"ideal\", got \"" + name + "\"");
}

}  // namespace

void register_planner(py::module_& m) {
  py::class_<vpcat::PlanOptions>(m, "PlanOptions", R"(What shapes a plan (vpcat::PlanOptions, docs/planner.md).

latency_us: start-up latency of every transfer (us, finite, >= 0)
min_step_latencies: no step shorter than this many latencies (finite, >= 0)
min_chunk_bytes, chunk_align_bytes: how payloads are cut into pieces
max_steps: Planner.plan() raises PlanError step_limit beyond it (>= 1)
channels_only: channel steps only, each contention-free at solo rates
  (default False: the plan is the candidate expected fastest under the
  machine model, sharing steps flagged)
machine_model: the model a plan is made under: "catalog" (default: the
  catalog's machine_model section, or the class defaults for a catalog
  without one), "default" (the class defaults, the judge's calibrated table)
  or "ideal" (no loss when transfers share a resource)
allow_shared: with channels_only, the plan may end with one shared step
  (every payload left at once, contending) when that is expected shorter
replay: replay the balanced part of the demand from the catalog's stored
  patterns, where they pay, before searching the rest (default True)
nic_loopback: an intra-node payload may loop through two NICs of its node
  and their switch where that is as fast and spares the host bridges, or its
  peer-to-peer route has no room; only for an executor that can force that
  route (default False)
Out-of-range values raise vpcat.OptionsError when a plan is made.)")
      .def(py::init([](double latency_us, double min_step_latencies, std::uint64_t min_chunk_bytes,
                       std::uint64_t chunk_align_bytes, std::uint32_t max_steps, bool allow_shared, bool replay,
                       bool nic_loopback, bool channels_only, const std::string& machine_model) {
             vpcat::PlanOptions o;
             set_machine(o, machine_model);
             o.latency_us = latency_us, o.min_step_latencies = min_step_latencies;
             o.min_chunk_bytes = min_chunk_bytes, o.chunk_align_bytes = chunk_align_bytes;
             o.max_steps = max_steps, o.allow_shared = allow_shared, o.replay = replay;
             o.nic_loopback = nic_loopback;
             o.channels_only = channels_only;
             return o;
           }),
           py::kw_only(), "latency_us"_a = vpcat::PlanOptions().latency_us,
           "min_step_latencies"_a = vpcat::PlanOptions().min_step_latencies,
           "min_chunk_bytes"_a = vpcat::PlanOptions().min_chunk_bytes,
           "chunk_align_bytes"_a = vpcat::PlanOptions().chunk_align_bytes,
           "max_steps"_a = vpcat::PlanOptions().max_steps, "allow_shared"_a = vpcat::PlanOptions().allow_shared,
           "replay"_a = vpcat::PlanOptions().replay, "nic_loopback"_a = vpcat::PlanOptions().nic_loopback,
           "channels_only"_a = vpcat::PlanOptions().channels_only, "machine_model"_a = "catalog")
      .def_readwrite("latency_us", &vpcat::PlanOptions::latency_us)
      .def_readwrite("min_step_latencies", &vpcat::PlanOptions::min_step_latencies)
      .def_readwrite("min_chunk_bytes", &vpcat::PlanOptions::min_chunk_bytes)
      .def_readwrite("chunk_align_bytes", &vpcat::PlanOptions::chunk_align_bytes)
      .def_readwrite("max_steps", &vpcat::PlanOptions::max_steps)
      .def_readwrite("allow_shared", &vpcat::PlanOptions::allow_shared)
      .def_readwrite("replay", &vpcat::PlanOptions::replay)
      .def_readwrite("nic_loopback", &vpcat::PlanOptions::nic_loopback)
      .def_readwrite("channels_only", &vpcat::PlanOptions::channels_only)
      .def_property("machine_model", &machine_name, &set_machine)
      .def("__repr__", [](const vpcat::PlanOptions& o) {
        return "vpcat.PlanOptions(latency_us=" + py::repr(py::float_(o.latency_us)).cast<std::string>() +
               ", min_step_latencies=" + py::repr(py::float_(o.min_step_latencies)).cast<std::string>() +
               ", min_chunk_bytes=" + std::to_string(o.min_chunk_bytes) +
               ", chunk_align_bytes=" + std::to_string(o.chunk_align_bytes) +
               ", max_steps=" + std::to_string(o.max_steps) + ", allow_shared=" + (o.allow_shared ? "True" : "False") +
               ", replay=" + (o.replay ? "True" : "False") +
               ", nic_loopback=" + (o.nic_loopback ? "True" : "False") +
               ", channels_only=" + (o.channels_only ? "True" : "False") + ", machine_model=\"" +
               machine_name(o) + "\")";
      });

  py::class_<Plan>(m, "Plan", R"(The ordered steps of one AlltoAllv call (vpcat::Plan).

Step i runs once step i-1 has finished; the transfers of a step run at once.
Per transfer (length transfer_count, in step order): steps, src, dst, origin,
final, bytes, solo_gbps, src_nic, dst_nic, and all of them as the structured
array `transfers`. Per step (length step_count): step_first, step_size,
step_ports, step_expected_us, step_shared. Every array but `steps` is a
read-only view of the plan's own memory (no copy; it keeps the Plan alive);
`steps` is computed once (a copy: the plan stores step ranges, not indexes).
Over all steps every off-diagonal byte of the demand is delivered once per
(origin, final). A Plan exists only for a successful call: failures raise.)")
      .def_property_readonly("gpus", [](const Plan& p) { return p.plan.gpus(); })
      .def_property_readonly("step_count", [](const Plan& p) { return p.plan.step_count(); })
      .def_property_readonly("transfer_count", [](const Plan& p) { return p.plan.transfer_count(); })
      .def("__len__", [](const Plan& p) { return p.plan.step_count(); })
      .def_property_readonly("expected_us", [](const Plan& p) { return p.plan.expected_us(); },
                             "Expected time of the whole plan (us): the sum of the steps' expectations.")
      .def_property_readonly("bound_us", [](const Plan& p) { return p.plan.bound_us(); },
                             "A lower bound on any plan of the demand on the planner's GPUs (us): the latency plus "
                             "the busiest GPU link, node NIC set or leaf uplink.")
      .def_property_readonly("total_bytes", [](const Plan& p) { return p.plan.total_bytes(); },
                             "Off-diagonal bytes of the demand, all delivered by the plan.")
      .def_property_readonly("demand_copied", [](const Plan& p) { return p.demand_copied; },
                             "True when the demand had to be converted (a copy) instead of read in place.")
      .def_property_readonly(
          "transfers",
          [](const py::object& self) {
            const vpcat::Plan& p = plan_of(self).plan;
            py::array a(transfer_dtype(), {static_cast<py::ssize_t>(p.transfer_count())},
                        {static_cast<py::ssize_t>(sizeof(vpcat::PlanTransfer))}, p.transfers(), self);
            a.attr("setflags")("write"_a = false);
            return a;
          },
          "Every transfer as one structured array (fields src, dst, origin, final, bytes, solo_gbps, src_nic, dst_nic).")
      .def_property_readonly("src", [](const py::object& s) { return transfer_field<std::uint32_t>(s, offsetof(vpcat::PlanTransfer, src)); },
                             "uint32: the sending GPU of every transfer (global index).")
      .def_property_readonly("dst", [](const py::object& s) { return transfer_field<std::uint32_t>(s, offsetof(vpcat::PlanTransfer, dst)); },
                             "uint32: the receiving GPU of every transfer.")
      .def_property_readonly("origin", [](const py::object& s) { return transfer_field<std::uint32_t>(s, offsetof(vpcat::PlanTransfer, origin)); },
                             "uint32: the payload's first source (== src: no relays in this version).")
      .def_property_readonly("final", [](const py::object& s) { return transfer_field<std::uint32_t>(s, offsetof(vpcat::PlanTransfer, final)); },
                             "uint32: the payload's last destination (== dst).")
      .def_property_readonly("bytes", [](const py::object& s) { return transfer_field<std::uint64_t>(s, offsetof(vpcat::PlanTransfer, bytes)); },
                             "uint64: bytes of every transfer (> 0).")
      .def_property_readonly("solo_gbps", [](const py::object& s) { return transfer_field<double>(s, offsetof(vpcat::PlanTransfer, solo_gbps)); },
                             "float64: the route's solo rate (GB/s).")
      .def_property_readonly("src_nic", [](const py::object& s) { return transfer_field<std::uint16_t>(s, offsetof(vpcat::PlanTransfer, src_nic)); },
                             "uint16: local NIC index on the sending node; NO_NIC (0xFFFF), on both sides, for a PCIe peer-to-peer route.")
      .def_property_readonly("dst_nic", [](const py::object& s) { return transfer_field<std::uint16_t>(s, offsetof(vpcat::PlanTransfer, dst_nic)); },
                             "uint16: local NIC index on the receiving node (the sending node too: a NIC loopback); NO_NIC for a PCIe peer-to-peer route.")
      .def_property_readonly(
          "steps",
          [](const py::object& self) {
            Plan& p = plan_of(self);
            if (!p.steps) {
              py::array_t<std::uint32_t> out(static_cast<py::ssize_t>(p.plan.transfer_count()));
              std::uint32_t* w = out.mutable_data();
              for (std::size_t i = 0; i < p.plan.step_count(); ++i)
                for (std::uint32_t k = 0; k < p.plan.step(i).count; ++k) w[p.plan.step(i).first + k] = static_cast<std::uint32_t>(i);
              out.attr("setflags")("write"_a = false);
              p.steps = out;
            }
            return *p.steps;
          },
          "uint32: the step of every transfer (computed once: a copy).")
      .def_property_readonly("step_first", [](const py::object& s) { return step_field<std::uint64_t>(s, offsetof(vpcat::PlanStep, first)); },
                             "uint64: index of every step's first transfer.")
      .def_property_readonly("step_size", [](const py::object& s) { return step_field<std::uint32_t>(s, offsetof(vpcat::PlanStep, count)); },
                             "uint32: transfers in every step (>= 1).")
      .def_property_readonly("step_ports", [](const py::object& s) { return step_field<std::uint32_t>(s, offsetof(vpcat::PlanStep, ports)); },
                             "uint32: most transfers any GPU sends or receives in the step (1 in every channel step).")
      .def_property_readonly("step_expected_us", [](const py::object& s) { return step_field<double>(s, offsetof(vpcat::PlanStep, expected_us)); },
                             "float64: every step's expected time (us).")
      .def_property_readonly("step_shared", [](const py::object& s) { return shared_view(s, plan_of(s).plan); },
                             "bool: True for a sharing step (its transfers contend: the shared step or grouped shifted permutations).")
      .def(
          "step_slice",
          [](const Plan& p, std::int64_t i) {
            const vpcat::PlanStep& s = p.plan.step(index_in(i, p.plan.step_count(), "step"));
            return py::slice(static_cast<py::ssize_t>(s.first), static_cast<py::ssize_t>(s.first + s.count), 1);
          },
          "i"_a, "The slice of the per-transfer arrays that step i holds: plan.src[plan.step_slice(i)].")
      .def("__repr__", [](const Plan& p) {
        return "<vpcat.Plan: " + std::to_string(p.plan.step_count()) + " step(s), " +
               std::to_string(p.plan.transfer_count()) + " transfer(s), " + std::to_string(p.plan.total_bytes()) +
               " bytes, expected " + py::repr(py::float_(p.plan.expected_us())).cast<std::string>() + " us>";
      });

  py::class_<Planner>(m, "Planner", R"(The online planner of one catalog (vpcat::Planner).

Planner(catalog, options=None) derives the planner's tables once;
plan(demand, options=None) plans one AlltoAllv call. The GIL is released while
planning. Calls on one Planner from several threads are serialized (use one
Planner per thread to plan in parallel). The demand array must not change
while plan() runs.)")
      .def(py::init([](const py::object& catalog, std::optional<vpcat::PlanOptions> options,
                       std::optional<std::vector<std::uint64_t>> gpus) {
             if (!py::isinstance<Catalog>(catalog))
               throw py::type_error("Planner: catalog must be a vpcat.Catalog, not " +
                                    py::str(py::type::of(catalog).attr("__name__")).cast<std::string>());
             const Catalog& c = catalog.cast<const Catalog&>();
             auto p = std::make_unique<Planner>();
             p->catalog = catalog;
             if (options) p->options = *options;
             vpcat::PlanStatus s;
             vpcat::Subset subset;
             if (gpus) s = subset.assign_gpus(c.view(), gpus->data(), gpus->size());
             if (s.ok()) {
               py::gil_scoped_release nogil;
               s = gpus ? p->planner.init(c.view(), subset, &c.derived()) : p->planner.init(c.view(), &c.derived());
             }
             if (!s.ok()) throw StatusError(s);
             return p;
           }),
           "catalog"_a, "options"_a = py::none(), "gpus"_a = py::none(),
           "gpus: plan over these catalog GPUs only (a job's subset, docs/subsets.md), ranks in this order; "
           "a node's GPUs together")
      .def_property_readonly(
          "gpu_map",
          [](const Planner& p) {
            py::array_t<std::uint64_t> a(static_cast<py::ssize_t>(p.planner.gpu_count()));
            auto w = a.mutable_unchecked<1>();
            for (std::uint32_t r = 0; r < p.planner.gpu_count(); ++r) w(r) = p.planner.catalog_gpu(r);
            return a;
          },
          "uint64 array: the catalog GPU of each of the planner's GPUs (the identity without gpus=)")
      .def_property_readonly("catalog", [](const Planner& p) { return p.catalog; })
      .def_property(
          "options", [](const Planner& p) { return p.options; },
          [](Planner& p, const vpcat::PlanOptions& o) { p.options = o; }, "The options plan() uses by default (a copy).")
      .def_property_readonly("gpu_count", [](const Planner& p) { return p.planner.gpu_count(); })
      .def_property_readonly("node_count", [](const Planner& p) { return p.planner.node_count(); })
      .def(
          "plan",
          [](const py::object& self, const py::handle& demand, std::optional<vpcat::PlanOptions> options) {
            Planner& pl = self.cast<Planner&>();
            HeldDemand d = to_demand(demand, pl.planner.gpu_count());
            const vpcat::PlanOptions o = options ? *options : pl.options;
            auto result = std::make_unique<Plan>();
            result->planner = self;
            result->demand_copied = d.copied;
            vpcat::PlanStatus s;
            {
              py::gil_scoped_release nogil;
              std::lock_guard<std::mutex> lock(pl.busy);
              s = pl.planner.plan(d.demand, o, result->plan);
            }
            if (!s.ok()) throw StatusError(s);
            return result;
          },
          "demand"_a, "options"_a = py::none(),
          R"(Plan an n x n demand (bytes from GPU row to GPU column, n = gpu_count).

A C-contiguous uint64, int64 or float64 array is read in place; other integer
and float dtypes and other layouts are converted (a copy; Plan.demand_copied).
Raises TypeError for other dtypes, vpcat.DemandError for a wrong shape or a
value that is no byte count, vpcat.OptionsError, or vpcat.PlanError.)")
      .def(
          "route_links",
          [](const py::object& self, const py::object& plan, std::int64_t i) {
            return route_ids(self, plan, i, [](const vpcat::Planner& p, const vpcat::PlanTransfer& t, std::uint64_t* out,
                                               std::uint32_t cap) { return p.route_links(t, out, cap); });
          },
          "plan"_a, "transfer"_a, "uint64: the global link ids of transfer `transfer`'s route (vp-analyze topology --json).")
      .def(
          "route_forwarders",
          [](const py::object& self, const py::object& plan, std::int64_t i) {
            return route_ids(self, plan, i, [](const vpcat::Planner& p, const vpcat::PlanTransfer& t, std::uint64_t* out,
                                               std::uint32_t cap) { return p.route_forwarders(t, out, cap); });
          },
          "plan"_a, "transfer"_a, "uint64: the global ids of the forwarding components the route transits.");

  m.attr("NO_NIC") = vpcat::kNoNic;
}

}  // namespace vpcat_python
