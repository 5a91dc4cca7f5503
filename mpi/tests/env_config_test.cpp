// The interposer's settings from the environment, without MPI: defaults,
// every variable, and the message that names a bad one.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "../src/env_config.hpp"
#include "../src/plan_mode.hpp"

using namespace vpcat_mpi;

namespace {
struct Env {
  std::map<std::string, std::string> vars;
  GetEnv get() const {
    return [this](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

std::string error_of(const std::string& var, const std::string& value) {
  Env e;
  e.vars[var] = value;
  EnvConfig c;
  std::string error;
  CHECK_FALSE(read_env_config(e.get(), &c, &error));
  return error;
}
}  // namespace

TEST_CASE("defaults: WARN on rank 0, not strict, eager, every rank plans, the planner's defaults") {
  Env e;
  EnvConfig c;
  std::string error;
  REQUIRE(read_env_config(e.get(), &c, &error));
  CHECK(c.debug == DebugLevel::warn);
  CHECK_FALSE(c.debug_all_ranks);
  CHECK_FALSE(c.strict);
  CHECK(c.eager);
  CHECK(c.plan_mode == 1);
  CHECK(describe_plan_options(c.plan) == describe_plan_options(vpcat_plan_options_default()));
  CHECK(c.plan_set.empty());
  e.vars["VPCAT_DEBUG"] = "";  // empty is unset
  REQUIRE(read_env_config(e.get(), &c, &error));
  CHECK(c.debug == DebugLevel::warn);
}

TEST_CASE("every variable") {
  Env e;
  e.vars = {{"VPCAT_DEBUG", "info"},          {"VPCAT_DEBUG_RANKS", "all"},     {"VPCAT_STRICT", "1"},
            {"VPCAT_INIT", "lazy"},           {"VPCAT_MPI_PLAN", "root"},       {"VPCAT_MAX_STEPS", "64"},
            {"VPCAT_LATENCY_US", "2.5"},      {"VPCAT_MIN_STEP_LATENCIES", "0"}, {"VPCAT_MIN_CHUNK_BYTES", "4096"},
            {"VPCAT_CHUNK_ALIGN_BYTES", "256"}, {"VPCAT_CHANNELS_ONLY", "1"},   {"VPCAT_ALLOW_SHARED", "1"},
            {"VPCAT_REPLAY", "0"}};
  EnvConfig c;
  std::string error;
  REQUIRE(read_env_config(e.get(), &c, &error));
  CHECK(c.debug == DebugLevel::info);
  CHECK(c.debug_all_ranks);
  CHECK(c.strict);
  CHECK_FALSE(c.eager);
  CHECK(c.plan_mode == 2);
  CHECK(describe_plan_options(c.plan) ==
        "max_steps=64 latency_us=2.5 min_step_latencies=0 min_chunk_bytes=4096 chunk_align_bytes=256 "
        "channels_only=1 allow_shared=1 replay=0");
  CHECK(c.plan_set ==
        "VPCAT_MAX_STEPS=64 VPCAT_LATENCY_US=2.5 VPCAT_MIN_STEP_LATENCIES=0 VPCAT_MIN_CHUNK_BYTES=4096 "
        "VPCAT_CHUNK_ALIGN_BYTES=256 VPCAT_CHANNELS_ONLY=1 VPCAT_ALLOW_SHARED=1 VPCAT_REPLAY=0");
  e.vars = {{"VPCAT_DEBUG", "NONE"}};
  REQUIRE(read_env_config(e.get(), &c, &error));
  CHECK(c.debug == DebugLevel::none);
}

TEST_CASE("a bad value names its variable and what it wants") {
  CHECK(error_of("VPCAT_DEBUG", "TRACE") == "VPCAT_DEBUG=\"TRACE\": not a level (NONE, WARN or INFO)");
  CHECK(error_of("VPCAT_STRICT", "yes") == "VPCAT_STRICT=\"yes\": want 0 or 1");
  CHECK(error_of("VPCAT_MPI_PLAN", "rooot") ==
        "VPCAT_MPI_PLAN=\"rooot\": want every (every rank plans) or root (rank 0 plans and broadcasts)");
  CHECK(error_of("VPCAT_MAX_STEPS", "0") == "VPCAT_MAX_STEPS=\"0\": want a whole number from 1 to 4294967295");
  CHECK(error_of("VPCAT_MAX_STEPS", "99999999999") ==
        "VPCAT_MAX_STEPS=\"99999999999\": want a whole number from 1 to 4294967295");
  CHECK(error_of("VPCAT_LATENCY_US", "abc") == "VPCAT_LATENCY_US=\"abc\": not a number >= 0 (microseconds)");
  CHECK(error_of("VPCAT_LATENCY_US", "-1") == "VPCAT_LATENCY_US=\"-1\": not a number >= 0 (microseconds)");
  CHECK(error_of("VPCAT_LATENCY_US", "inf") == "VPCAT_LATENCY_US=\"inf\": not a number >= 0 (microseconds)");
  CHECK(error_of("VPCAT_MIN_CHUNK_BYTES", "-5") == "VPCAT_MIN_CHUNK_BYTES=\"-5\": want a whole number of bytes");
  CHECK(error_of("VPCAT_CHUNK_ALIGN_BYTES", "0") ==
        "VPCAT_CHUNK_ALIGN_BYTES=\"0\": want a whole number of bytes, at least 1");
  CHECK(error_of("VPCAT_ALLOW_SHARED", "2") ==
        "VPCAT_ALLOW_SHARED=\"2\": want 0 (channel steps only) or 1 (a last shared step allowed; with "
        "VPCAT_CHANNELS_ONLY=1)");
  CHECK(error_of("VPCAT_CHANNELS_ONLY", "yes") ==
        "VPCAT_CHANNELS_ONLY=\"yes\": want 0 (the plan expected fastest) or 1 (channel steps only, each "
        "contention-free)");
  CHECK(error_of("VPCAT_REPLAY", "on") == "VPCAT_REPLAY=\"on\": want 0 (search every step) or 1 (replay stored patterns)");
  CHECK(error_of("VPCAT_INIT", "now") == "VPCAT_INIT=\"now\": want eager (at MPI_Init) or lazy (at the first call)");
  CHECK(error_of("VPCAT_DEBUG_RANKS", "1") == "VPCAT_DEBUG_RANKS=\"1\": want 0 (rank 0 speaks) or all (every rank)");
}

// VPCAT_MPI_PLAN has one parser (plan_mode.hpp) for the interposer and the
// library's vpcat_mpi_init; the library's copy was case-sensitive.
TEST_CASE("VPCAT_MPI_PLAN: every or root in any case, unset or empty is every") {
  CHECK(parse_plan_mode(nullptr) == kPlanEveryRank);
  CHECK(parse_plan_mode("") == kPlanEveryRank);
  CHECK(parse_plan_mode("every") == kPlanEveryRank);
  CHECK(parse_plan_mode("Every") == kPlanEveryRank);
  CHECK(parse_plan_mode("root") == kPlanRoot);
  CHECK(parse_plan_mode("ROOT") == kPlanRoot);
  CHECK(parse_plan_mode("roo") == 0);
  CHECK(parse_plan_mode("rooot") == 0);
  CHECK(parse_plan_mode("root ") == 0);
  CHECK(parse_plan_mode("every_rank") == 0);
  EnvConfig c;
  std::string error;
  Env e;
  e.vars = {{"VPCAT_MPI_PLAN", "Root"}};
  REQUIRE(read_env_config(e.get(), &c, &error));
  CHECK(c.plan_mode == kPlanRoot);
}
