// vpcat.place(catalog, free, gpus, demand=None, ...) -> vpcat.Placement: the
// runtime's choice (vpcat::place()), copied out of the C++ Placement into
// plain Python values (a Placement holds no catalog memory).
#include "placement.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "catalog.hpp"
#include "demand.hpp"
#include "errors.hpp"
#include "vpcat/placement.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace vpcat_python {

namespace {

struct Candidate {
  py::array_t<std::uint64_t> gpus;
  std::string strategy;
  double expected_us = 0, bound_us = 0;
  std::uint32_t node_count = 0, partial_nodes_after = 0;
};

struct Placement {
  std::vector<Candidate> candidates;
  std::size_t choice = 0;
  std::uint32_t partial_nodes_before = 0;
  std::uint64_t free_gpus_before = 0;
  const Candidate& chosen() const { return candidates[choice]; }
};

Candidate candidate_of(const vpcat::Placement& p, std::size_t i) {
  const vpcat::PlacementCandidate& c = p.candidate(i);
  Candidate out;
  out.gpus = py::array_t<std::uint64_t>(static_cast<py::ssize_t>(p.gpu_count()));
  std::copy(p.gpus(i), p.gpus(i) + p.gpu_count(), out.gpus.mutable_data());
  out.gpus.attr("setflags")("write"_a = false);
  char text[128];
  vpcat::describe(c, text, sizeof text);
  out.strategy = text;
  out.expected_us = c.expected_us, out.bound_us = c.bound_us;
  out.node_count = c.node_count, out.partial_nodes_after = c.partial_nodes_after;
  return out;
}

}  // namespace

void register_placement(py::module_& m) {
  py::class_<Candidate>(m, "PlacementCandidate", "One placement vpcat.place() weighed (read-only).")
      .def_readonly("gpus", &Candidate::gpus, "uint64 array: its catalog GPUs, node by node: the job's ranks")
      .def_readonly("strategy", &Candidate::strategy, "How it was built: 'balanced over 16 nodes, freest, spread', ...")
      .def_readonly("expected_us", &Candidate::expected_us, "The plan's expected time of the demand on it")
      .def_readonly("bound_us", &Candidate::bound_us, "The plan's lower bound: no plan of the demand there is faster")
      .def_readonly("node_count", &Candidate::node_count)
      .def_readonly("partial_nodes_after", &Candidate::partial_nodes_after, "Partial nodes once it is taken")
      .def("__repr__", [](const Candidate& c) {
        return "<vpcat.PlacementCandidate " + c.strategy + ": " + std::to_string(c.node_count) + " node(s), expected " +
               std::to_string(c.expected_us) + " us>";
      });

  py::class_<Placement>(m, "Placement", R"(vpcat.place()'s answer (read-only).

gpus, strategy, expected_us, bound_us, node_count and partial_nodes_after are
the chosen candidate's; candidates lists every candidate, fastest expected
first, and candidates[choice] is the chosen one.)")
      .def_property_readonly("gpus", [](const Placement& p) { return p.chosen().gpus; },
                             "uint64 array: the chosen catalog GPUs, node by node: the job's ranks")
      .def_property_readonly("strategy", [](const Placement& p) { return p.chosen().strategy; })
      .def_property_readonly("expected_us", [](const Placement& p) { return p.chosen().expected_us; })
      .def_property_readonly("bound_us", [](const Placement& p) { return p.chosen().bound_us; })
      .def_property_readonly("node_count", [](const Placement& p) { return p.chosen().node_count; })
      .def_property_readonly("partial_nodes_after", [](const Placement& p) { return p.chosen().partial_nodes_after; })
      .def_readonly("partial_nodes_before", &Placement::partial_nodes_before, "Partial nodes of the free set")
      .def_readonly("free_gpus_before", &Placement::free_gpus_before)
      .def_readonly("choice", &Placement::choice, "Index of the chosen candidate in candidates")
      .def_readonly("candidates", &Placement::candidates, "Every candidate, fastest expected first")
      .def("__repr__", [](const Placement& p) {
        return "<vpcat.Placement " + p.chosen().strategy + ": " + std::to_string(p.chosen().node_count) +
               " node(s), expected " + std::to_string(p.chosen().expected_us) + " us, partial nodes " +
               std::to_string(p.partial_nodes_before) + " -> " + std::to_string(p.chosen().partial_nodes_after) + ">";
      });

  m.def(
      "place",
      [](const Catalog& catalog, const std::vector<std::uint64_t>& free, std::uint32_t gpus, const py::object& demand,
         std::uint64_t uniform_bytes, double slack, std::optional<vpcat::PlanOptions> options) {
        vpcat::PlaceOptions po;
        po.slack = slack;
        if (options) po.plan = *options;
        std::vector<std::uint64_t> uniform;
        std::optional<HeldDemand> held;
        vpcat::Demand d;
        if (demand.is_none()) {
          if (uniform_bytes == 0) throw py::value_error("place: uniform_bytes must be >= 1 when demand is None");
          // No matrix for a job larger than the free list: place() refuses it
          // before it reads the demand (and gpus squared could be out of reach).
          if (gpus <= free.size()) {
            uniform.assign(std::size_t{gpus} * gpus, uniform_bytes);
            for (std::uint32_t r = 0; r < gpus; ++r) uniform[std::size_t{r} * gpus + r] = 0;
          }
          d = vpcat::Demand::dense(uniform.data(), gpus);
        } else {
          held = to_demand(demand, gpus);
          d = held->demand;
        }
        vpcat::Placement where;
        vpcat::PlanStatus s;
        {
          py::gil_scoped_release nogil;
          s = vpcat::place(catalog.view(), free.data(), free.size(), gpus, d, po, where, &catalog.derived());
        }
        if (!s.ok()) throw StatusError(s);
        Placement out;
        for (std::size_t i = 0; i < where.candidate_count(); ++i) out.candidates.push_back(candidate_of(where, i));
        out.choice = where.choice();
        out.partial_nodes_before = where.partial_nodes_before();
        out.free_gpus_before = where.free_gpus_before();
        return out;
      },
      "catalog"_a, "free"_a, "gpus"_a, "demand"_a = py::none(), "uniform_bytes"_a = std::uint64_t{1} << 20,
      "slack"_a = 0.05, "options"_a = py::none(),
      R"(Choose where a `gpus`-GPU job goes among the free GPUs `free` (catalog GPU
indexes) of `catalog` (docs/subsets.md "Choosing a placement"): the fastest
placement the planner expects for `demand` (a gpus x gpus matrix over the
job's ranks; None: uniform_bytes between every two ranks) among a handful of
candidates and, among those within `slack` of the fastest, the one that
leaves the fewest partial nodes. Returns a vpcat.Placement. Raises
vpcat.SubsetError for a free GPU the catalog lacks or listed twice, or gpus
0 or above the free count; vpcat.DemandError for a demand of another size or
a bad entry; vpcat.OptionsError for a bad slack or option. The GIL is
released while it plans.)");
}

}  // namespace vpcat_python
