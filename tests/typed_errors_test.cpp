// The libraries' errors are typed (vp/base/errors.hpp), so that each reaches
// the exit code its cause documents through run_main's report_error(): a
// bad value a caller passed on is a usage error (1), a failed invariant of
// ours an internal error (4, "TOOL: internal error: ..."), never a bare
// std:: exception that only reads as a bug.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>

#include "sim_platforms.hpp"
#include "vp/base/errors.hpp"
#include "vp/cli/run_main.hpp"
#include "vp/sim/baselines.hpp"
#include "vp/sim/birkhoff.hpp"
#include "vp/sim/job_view.hpp"
#include "vp/sim/simulate.hpp"
#include "vp/sim/workloads.hpp"

namespace {

const vp::cli::Tool kTool{"vp-test", vp::cli::Catalogs::read};

struct Reported {
  int code;
  std::string message;  // what report_error wrote to standard error
};

// report_error() on the exception `f` throws, its standard error captured.
template <typename F>
Reported report(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    std::fflush(stderr);
    std::FILE* capture = std::tmpfile();
    REQUIRE(capture != nullptr);
    const int saved = dup(fileno(stderr));
    dup2(fileno(capture), fileno(stderr));
    const int code = vp::cli::report_error(kTool, e);
    std::fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
    std::string text;
    std::rewind(capture);
    for (int c; (c = std::fgetc(capture)) != EOF;) text += static_cast<char>(c);
    std::fclose(capture);
    return {code, text};
  }
  FAIL("nothing was thrown");
  return {-1, ""};
}

}  // namespace

TEST_CASE("typed errors: each type reaches its exit code and its form") {
  CHECK(report([] { throw vp::UsageError("--x: bad"); }).code == 1);
  CHECK(report([] { throw vp::InputError("f.json", 3, "bad"); }).code == 2);
  const Reported internal = report([] { throw vp::InternalError("a check failed"); });
  CHECK(internal.code == 4);
  CHECK(internal.message == "vp-test: internal error: a check failed\n");
  // Anything else is a bug too, and says so.
  const Reported bare = report([] { throw std::runtime_error("bare"); });
  CHECK(bare.code == 4);
  CHECK(bare.message == "vp-test: internal error: bare\n");
}

TEST_CASE("typed errors: a library's refusal of a caller's value is a usage error, its invariants internal") {
  const vp::Topology& t = vp::sim::test::fixture_platforms().at("pcie-gen4-2s4sw8g");
  vp::sim::SimOptions bad;
  bad.latency_us = -1;
  const Reported latency = report([&] { vp::sim::simulate(t, vp::sim::Schedule{}, bad); });
  CHECK(latency.code == 1);
  CHECK(latency.message == "vp-test: error: simulate: latency_us must be finite and >= 0, got -1\n");
  CHECK(report([&] { vp::sim::job_view(t, std::vector<std::size_t>{}); }).code == 1);
  CHECK(report([] { vp::sim::shift_demand(8, 16, 1.0); }).code == 1);
  // A matrix the caller should have padded: the caller's bug.
  const Reported birkhoff = report([] { vp::sim::birkhoff_decompose({{1, 0}, {0, 2}}); });
  CHECK(birkhoff.code == 4);
  CHECK(birkhoff.message.rfind("vp-test: internal error: birkhoff: ", 0) == 0);
  // A baseline that does not run on a machine, asked for alone.
  const Reported inapplicable = report([] { throw vp::sim::UnevenNodes("fast: uneven"); });
  CHECK(inapplicable.code == 1);
}
