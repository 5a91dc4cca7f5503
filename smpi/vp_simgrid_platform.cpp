// vp_simgrid_platform.so: the calibrated SimGrid platform of a catalog
// (docs/smpi.md). SimGrid's XML cannot give a link a non-linear sharing
// policy, so smpirun loads this library instead of the XML
// (`smpirun -platform vp_simgrid_platform.so`); it reads the XML that
// `vp-sim --model contention --simgrid-platform FILE` wrote, named by the
// environment variable VP_SIMGRID_PLATFORM, and gives every link carrying
// the vp_slope, vp_floor, vp_chunk_factor and vp_solo_max_Bps properties
// SimGrid's NONLINEAR sharing with the judge's curve: with k flows on it,
//
//   capacity                                     if k < 2 or k x solo_max <= capacity
//   capacity x max(floor, 1 / (1 + slope (k - 1))) x chunk_factor   otherwise
//
// which is the simulator's degraded_capacity (simulator/src/fluid.hpp) with
// the flows' solo rates bounded by the largest of the routes through the
// link (SimGrid's callback sees k, not the flows). Links without the
// properties keep the XML's linear sharing. Bad input ends the run with
// exit code 2 and a message naming the file and the link.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace sg4 = simgrid::s4u;

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  std::fprintf(stderr, "vp_simgrid_platform: %s: %s\n", where.c_str(), what.c_str());
  std::exit(2);
}

double number(const std::string& file, const sg4::Link* link, const char* name, double lo, double hi) {
  const char* text = link->get_property(name);
  const std::string where = file + ": link " + link->get_name();
  if (text == nullptr) fail(where, std::string("property ") + name + " missing (a vp_* curve needs all four)");
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || errno != 0 || !std::isfinite(v) || v < lo || v > hi)
    fail(where, std::string("property ") + name + " is \"" + text + "\" (a number from " + std::to_string(lo) + " to " +
                    std::to_string(hi) + " expected)");
  return v;
}

}  // namespace

extern "C" void load_platform(const sg4::Engine& e) {
  const char* file = std::getenv("VP_SIMGRID_PLATFORM");
  if (file == nullptr || *file == '\0')
    fail("VP_SIMGRID_PLATFORM", "not set: name the XML of `vp-sim --model contention --simgrid-platform FILE`");
  if (std::FILE* f = std::fopen(file, "rb")) {
    std::fclose(f);
  } else {
    fail(file, "cannot be read");
  }
  e.load_platform(file);
  int curves = 0;
  for (sg4::Link* link : e.get_all_links()) {
    if (link->get_property("vp_slope") == nullptr) continue;
    const double slope = number(file, link, "vp_slope", 0.0, 1e9);
    const double floor = number(file, link, "vp_floor", 1e-9, 1.0);
    const double chunk = number(file, link, "vp_chunk_factor", 1e-9, 1.0);
    const double solo_max = number(file, link, "vp_solo_max_Bps", 0.0, 1e30);
    link->set_sharing_policy(sg4::Link::SharingPolicy::NONLINEAR, [=](double capacity, int k) {
      if (k < 2 || static_cast<double>(k) * solo_max <= capacity * (1.0 + 1e-9)) return capacity;
      const double eta = 1.0 / (1.0 + slope * static_cast<double>(k - 1));
      return capacity * std::max(floor, eta) * chunk;
    });
    ++curves;
  }
  if (const char* say = std::getenv("VP_SIMGRID_PLATFORM_VERBOSE"); say != nullptr && *say == '1')
    std::fprintf(stderr, "vp_simgrid_platform: %s: %d links with a non-linear curve\n", file, curves);
}
