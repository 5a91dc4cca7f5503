// vp-sim --contention FILE: the contention model's table
// (schemas/contention.schema.json; the committed one is
// simulator/contention.json) read into a sim::ContentionModel.
#pragma once

#include <string>

#include "vp/sim/contention.hpp"

namespace vp::sim_cli {

// The model of the table at `path`, enabled. Throws vp::InputError when the
// file cannot be read, is not JSON, or a field is missing, of the wrong type
// or out of range: at the value's line and column, naming the field
// ("C.json:7:16: forwarder.slope.value: must be a finite number >= 0, got
// -1"), through vp/base/json_field.hpp.
sim::ContentionModel read_contention_file(const std::string& path);

// The table --model contention reads without --contention: the installed
// one, <prefix>/share/vpcat/contention.json beside <prefix>/bin/vp-sim (the
// running executable), else -- a vp-sim in a build tree -- the source tree's
// simulator/contention.json. Throws vp::UsageError naming the paths tried
// when neither is a file.
std::string default_contention_file();

}  // namespace vp::sim_cli
