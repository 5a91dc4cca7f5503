// The planner's plans, checked independently on every platform of the suite
// and many demands (random, sparse, Zipf MoE, hot spot, skewed nodes): every
// byte delivered exactly once per (origin, final), every step contention-free
// by vp::check_contention on the Topology vp::load_input builds, every route
// equal to the analyzer's, the step count bounded by the payload count.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "planner_support.hpp"
#include "vp/sim/simulate.hpp"

using namespace vp::plantest;

namespace {

// plan() is not const (scratch): the suite's platforms are shared, so tests
// plan through a mutable reference.
Platform& mut(const Platform& p) { return const_cast<Platform&>(p); }

// Every way: channel steps only (channels_only), with allow_shared too
// (balanced demands then get the shared step, last), and the default (the
// candidate expected fastest: sharing steps anywhere, each flagged); each
// with the replay (the default) and with every step searched (small runs:
// channel plans only). `o` gives the other options.
void expect_correct(Platform& p, const Matrix& d, const vpcat::PlanOptions& o, const std::string& what,
                    const CheckOptions& c = {}) {
  enum class Mode { channels, channels_shared, fastest };
  for (const bool replay : {true, false}) {
    for (const Mode mode : {Mode::channels, Mode::channels_shared, Mode::fastest}) {
      // VP_PROPERTY_RUN=small (the sanitize phase): every step searched only
      // for channel plans; the unit phase runs every combination.
      if (!replay && mode != Mode::channels && small_property_run()) continue;
      vpcat::PlanOptions with = o;
      with.channels_only = mode != Mode::fastest;
      with.allow_shared = mode == Mode::channels_shared;
      with.replay = replay;
      CheckOptions co = c;
      co.allow_shared = mode != Mode::channels;
      co.shared_last_only = mode == Mode::channels_shared;
      vpcat::Plan plan;
      const vpcat::PlanStatus s = p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), with, plan);
      INFO(p.name << ": " << what
                  << (mode == Mode::channels ? "" : mode == Mode::channels_shared ? ", allow_shared" : ", default")
                  << (replay ? "" : ", no replay"));
      REQUIRE_MESSAGE(s.ok(), s.message());
      CHECK(check_plan(p, d, plan, co) == "");
      if (mode == Mode::channels)
        for (std::size_t i = 0; i < plan.step_count(); ++i)
          CHECK((plan.step(i).ports == 1 && plan.step(i).shared == 0));
    }
  }
}

}  // namespace

TEST_CASE("uniform demands on every platform") {
  for (const char* name : {"1n", "4n-switch", "16n-rail", "3n-rail-tight", "5n-leafspine-tight", "mixed-4n", "g6-3n"}) {
    const Platform& p = platform(name);
    for (std::uint64_t bytes : {std::uint64_t{1}, std::uint64_t{4096}, std::uint64_t{1} << 20, std::uint64_t{3} << 27})
      expect_correct(mut(p), uniform(p.gpus, bytes), channels_only(), "uniform " + std::to_string(bytes));
  }
}

TEST_CASE("the 256-GPU leaf/spine platform") {
  if (small_property_run()) {
    MESSAGE("VP_PROPERTY_RUN=small: the 256-GPU platform runs in the unit phase only");
    return;
  }
  const Platform& p = platform("32n-leafspine");
  CheckOptions c;
  c.max_route_checks = 3000;
  expect_correct(mut(p), uniform(p.gpus, 1 << 20), channels_only(), "uniform", c);
  expect_correct(mut(p), zipf_moe(p.gpus, 1.2, 3, 256), channels_only(), "zipf 1.2", c);
}

TEST_CASE("random dense demands, with zeros") {
  for (const char* name : {"1n", "4n-switch", "3n-rail-tight", "5n-leafspine-tight", "mixed-4n"}) {
    const Platform& p = platform(name);
    for (std::uint64_t seed = 1; seed <= property_seeds(12); ++seed) {
      const double zeros = static_cast<double>(seed % 4) * 0.3;
      const std::uint64_t max = seed % 3 == 0 ? 100 : seed % 3 == 1 ? (1 << 20) : (std::uint64_t{1} << 30);
      expect_correct(mut(p), random_dense(p.gpus, max, zeros, seed), channels_only(), "random seed " + std::to_string(seed));
    }
  }
}

TEST_CASE("Zipf MoE dispatch demands") {
  for (const char* name : {"4n-switch", "16n-rail", "5n-leafspine-tight", "mixed-4n"}) {
    const Platform& p = platform(name);
    for (double exponent : {0.5, 0.8, 1.0, 1.2})
      for (std::uint64_t seed = 1; seed <= property_seeds(2); ++seed)
        expect_correct(mut(p), zipf_moe(p.gpus, exponent, seed), {},
                       "zipf " + std::to_string(exponent) + " seed " + std::to_string(seed));
  }
}

TEST_CASE("hot spots and skewed nodes") {
  for (const char* name : {"1n", "4n-switch", "16n-rail", "3n-rail-tight", "5n-leafspine-tight", "mixed-4n", "g6-3n"}) {
    const Platform& p = platform(name);
    for (std::uint32_t hot : {0u, p.gpus / 2 + 1, p.gpus - 1})
      expect_correct(mut(p), hot_spot(p.gpus, 1 << 18, hot, 10.0), channels_only(), "hot spot " + std::to_string(hot));
    for (std::uint64_t seed = 1; seed <= property_seeds(4); ++seed)
      expect_correct(mut(p), skewed_nodes(p.gpus, 8, seed), channels_only(), "skewed nodes seed " + std::to_string(seed));
  }
}

TEST_CASE("sparse demands with repeated pairs and diagonal entries") {
  const Platform& p = platform("4n-switch");
  std::mt19937_64 rng(5);
  for (int round = 0; round < 20; ++round) {
    std::vector<vpcat::DemandEntry> entries;
    Matrix dense(std::size_t{p.gpus} * p.gpus, 0);
    const int count = 1 + static_cast<int>(rng() % 200);
    for (int k = 0; k < count; ++k) {
      vpcat::DemandEntry e;
      e.src = static_cast<std::uint32_t>(rng() % p.gpus);
      e.dst = round % 2 == 0 ? static_cast<std::uint32_t>(rng() % p.gpus) : e.src;  // odd rounds: diagonal ones too
      if (k % 3 == 0) e.dst = static_cast<std::uint32_t>(rng() % p.gpus);
      e.bytes = rng() % (1 << 22);
      entries.push_back(e);
      if (e.src != e.dst) dense[std::size_t{e.src} * p.gpus + e.dst] += e.bytes;
    }
    vpcat::Plan plan;
    const vpcat::PlanStatus s =
        mut(p).planner.plan(vpcat::Demand::sparse(entries.data(), entries.size(), p.gpus), channels_only(), plan);
    INFO("round " << round);
    REQUIRE_MESSAGE(s.ok(), s.message());
    CHECK(check_plan(p, dense, plan) == "");
  }
}

TEST_CASE("the double API gives the same plan as the integer one") {
  Platform& p = mut(platform("4n-switch"));
  const Matrix d = zipf_moe(p.gpus, 1.0, 9);
  std::vector<double> f(d.begin(), d.end());
  vpcat::Plan a, b;
  REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), channels_only(), a).ok());
  REQUIRE(p.planner.plan(vpcat::Demand::dense(f.data(), p.gpus), channels_only(), b).ok());
  REQUIRE(a.transfer_count() == b.transfer_count());
  for (std::size_t i = 0; i < a.transfer_count(); ++i) {
    CHECK(a.transfers()[i].src == b.transfers()[i].src);
    CHECK(a.transfers()[i].dst == b.transfers()[i].dst);
    CHECK(a.transfers()[i].bytes == b.transfers()[i].bytes);
  }
}

TEST_CASE("options: latency, step floor, chunk alignment and minimum") {
  const Platform& p = platform("4n-switch");
  const Matrix d = zipf_moe(p.gpus, 1.2, 4);
  for (double latency : {0.0, 1.0, 25.0}) {
    for (double floor : {0.0, 10.0}) {
      for (std::uint64_t align : {std::uint64_t{1}, std::uint64_t{4096}}) {
        for (std::uint64_t min_chunk : {std::uint64_t{0}, std::uint64_t{1} << 20}) {
          vpcat::PlanOptions o = channels_only();
          o.latency_us = latency;
          o.min_step_latencies = floor;
          o.chunk_align_bytes = align;
          o.min_chunk_bytes = min_chunk;
          vpcat::Plan plan;
          REQUIRE(mut(p).planner.plan(vpcat::Demand::dense(d.data(), p.gpus), o, plan).ok());
          INFO("latency " << latency << " floor " << floor << " align " << align << " min " << min_chunk);
          CHECK(check_plan(p, d, plan) == "");
          // Pieces other than a payload's last respect alignment and minimum.
          Matrix left = d;
          for (std::size_t k = 0; k < plan.transfer_count(); ++k) {
            const vpcat::PlanTransfer& t = plan.transfers()[k];
            std::uint64_t& rem = left[std::size_t{t.origin} * p.gpus + t.final];
            rem -= t.bytes;
            if (rem != 0) {
              CHECK(t.bytes % align == 0);
              CHECK(t.bytes >= min_chunk);
              CHECK(rem >= min_chunk);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("a longer step floor gives fewer steps") {
  Platform& p = mut(platform("4n-switch"));
  const Matrix d = zipf_moe(p.gpus, 1.2, 4);
  vpcat::PlanOptions fine = channels_only(), coarse = channels_only();
  fine.min_step_latencies = 0;
  coarse.min_step_latencies = 100;
  vpcat::Plan a, b;
  REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), fine, a).ok());
  REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), coarse, b).ok());
  CHECK(b.step_count() < a.step_count());
}

// Steps do not grow with the number of distinct remainders: every channel
// step finishes at least an eighth of its transfers' payloads (rounded up),
// so random byte counts (FAST's workload: entries uniform integers) give
// a plan a small multiple of the step bound long, at any byte scale.
TEST_CASE("every step finishes an eighth of its payloads: random byte counts stay near the step bound") {
  for (const char* name : {"4n-switch", "16n-rail"}) {
    const Platform& p = platform(name);
    for (std::uint64_t unit : {std::uint64_t{1}, std::uint64_t{1000000}, std::uint64_t{1000000000}}) {
      Matrix d(std::size_t{p.gpus} * p.gpus, 0);
      std::mt19937_64 rng(7);
      std::uniform_int_distribution<std::uint64_t> pick(1, 10000);
      for (std::size_t i = 0; i < d.size(); ++i) d[i] = i % (p.gpus + 1) == 0 ? 0 : pick(rng) * unit;
      vpcat::Plan plan;
      REQUIRE(mut(p).planner.plan(vpcat::Demand::dense(d.data(), p.gpus), channels_only(), plan).ok());
      INFO(p.name << ", entries 1..10000 x " << unit << " bytes");
      CHECK(check_plan(p, d, plan) == "");
      Matrix left = d;
      std::size_t short_steps = 0;
      for (std::size_t i = 0; i < plan.step_count(); ++i) {
        const vpcat::PlanTransfer* t = plan.step_transfers(i);
        std::size_t finished = 0;
        for (std::uint32_t k = 0; k < plan.step(i).count; ++k)
          finished += (left[std::size_t{t[k].origin} * p.gpus + t[k].final] -= t[k].bytes) == 0;
        short_steps += finished * 8 < plan.step(i).count;
      }
      CHECK(short_steps == 0);
      // Every GPU has gpus - 1 partners: one-port plans need that many steps.
      CHECK(plan.step_count() <= 24 * std::size_t{p.gpus - 1});
    }
  }
}

TEST_CASE("an all-zero demand is an empty plan") {
  Platform& p = mut(platform("4n-switch"));
  Matrix d(std::size_t{p.gpus} * p.gpus, 0);
  for (std::uint32_t g = 0; g < p.gpus; ++g) d[std::size_t{g} * p.gpus + g] = 12345;  // diagonal only
  vpcat::Plan plan;
  REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), channels_only(), plan).ok());
  CHECK(plan.step_count() == 0);
  CHECK(plan.transfer_count() == 0);
  CHECK(plan.total_bytes() == 0);
  CHECK(plan.gpus() == p.gpus);
}

TEST_CASE("plans are deterministic and a Plan can be reused") {
  Platform& p = mut(platform("16n-rail"));
  const Matrix d1 = zipf_moe(p.gpus, 0.8, 1), d2 = uniform(p.gpus, 1 << 16);
  vpcat::Plan a, b;
  REQUIRE(p.planner.plan(vpcat::Demand::dense(d1.data(), p.gpus), channels_only(), a).ok());
  REQUIRE(p.planner.plan(vpcat::Demand::dense(d2.data(), p.gpus), channels_only(), b).ok());
  REQUIRE(p.planner.plan(vpcat::Demand::dense(d1.data(), p.gpus), channels_only(), b).ok());  // reuse b for d1
  REQUIRE(a.transfer_count() == b.transfer_count());
  REQUIRE(a.step_count() == b.step_count());
  for (std::size_t i = 0; i < a.transfer_count(); ++i) {
    CHECK(a.transfers()[i].src == b.transfers()[i].src);
    CHECK(a.transfers()[i].dst == b.transfers()[i].dst);
    CHECK(a.transfers()[i].bytes == b.transfers()[i].bytes);
    CHECK(a.transfers()[i].src_nic == b.transfers()[i].src_nic);
  }
  CHECK(a.expected_us() == b.expected_us());
}

TEST_CASE("the checker catches what a wrong plan would do") {
  // The property tests above are only as strong as check_plan: alter a good
  // plan in every way a bug could, and see each caught.
  Platform& p = mut(platform("4n-switch"));
  const Matrix d = uniform(p.gpus, 1 << 20);
  vpcat::Plan plan;
  REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), channels_only(), plan).ok());
  const std::vector<StepCopy> good = copy_steps(plan);
  REQUIRE(check_steps(p, d, good) == "");
  auto contains = [](const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; };
  {  // a byte too many
    auto bad = good;
    bad[0].transfers[0].bytes += 1;
    CHECK(contains(check_steps(p, d, bad), "delivered 1048577 bytes"));
  }
  {  // two steps run as one: ports and NICs overloaded
    auto bad = good;
    bad[0].transfers.insert(bad[0].transfers.end(), bad[1].transfers.begin(), bad[1].transfers.end());
    bad.erase(bad.begin() + 1);
    const std::string why = check_steps(p, d, bad);
    CHECK((contains(why, "carries") || contains(why, "transfers over its")));
  }
  {  // a transfer through a farther NIC that another transfer of the step already uses
    auto bad = good;
    std::size_t k = 0;
    while (bad[0].transfers[k].src_nic == vpcat::kNoNic) ++k;
    std::size_t other = k + 1;
    while (bad[0].transfers[other].src_nic == vpcat::kNoNic ||
           p.planner.node_of_gpu(bad[0].transfers[other].src) != p.planner.node_of_gpu(bad[0].transfers[k].src))
      ++other;
    bad[0].transfers[k].src_nic = bad[0].transfers[other].src_nic;
    bad[0].transfers[k].solo_gbps = analyzer_route(p, bad[0].transfers[k]).solo_gbps;
    CHECK(contains(check_steps(p, d, bad), "carries"));
  }
  {  // a wrong rate
    auto bad = good;
    bad[0].transfers[0].solo_gbps *= 2.0;
    CHECK(contains(check_steps(p, d, bad), "solo rate of"));
  }
  {  // a shared step where none was asked for
    auto bad = good;
    bad.back().shared = true;
    CHECK(contains(check_steps(p, d, bad), "the plan was not to share"));
  }
  {  // a relay this planner does not make
    auto bad = good;
    bad[0].transfers[0].final = (bad[0].transfers[0].dst + 1) % p.gpus;
    CHECK(contains(check_steps(p, d, bad), "relays"));
  }
  {  // an impossible route
    auto bad = good;
    bad[0].transfers[0].src_nic = 77;
    CHECK(contains(check_steps(p, d, bad), "has no route"));
  }
}

TEST_CASE("the checker catches what a wrong NIC loopback would do") {
  // A loopback plan (PlanOptions::nic_loopback) on H20, altered the ways a
  // bug in the intra-node fill could: each must be caught.
  Platform& p = mut(platform("h20-2n"));
  const Matrix d = uniform(p.gpus, 1 << 20);
  vpcat::PlanOptions lb = channels_only();
  lb.nic_loopback = true;
  vpcat::Plan plan;
  REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), lb, plan).ok());
  const std::vector<StepCopy> good = copy_steps(plan);
  REQUIRE(check_steps(p, d, good) == "");
  auto contains = [](const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; };
  // The first step with a loopback, and that loopback.
  std::size_t s = 0, k = 0;
  auto find = [&] {
    for (s = 0; s < good.size(); ++s)
      for (k = 0; k < good[s].transfers.size(); ++k)
        if (is_loopback(p.planner, good[s].transfers[k])) return true;
    return false;
  };
  REQUIRE(find());
  {  // one NIC out and back in: a route neither the planner nor the analyzer has
    auto bad = good;
    bad[s].transfers[k].dst_nic = bad[s].transfers[k].src_nic;
    CHECK(contains(check_steps(p, d, bad), "has no route"));
  }
  {  // the loopback's send lane is one another transfer of its node already sends through
    auto bad = good;
    const vpcat::PlanTransfer& x = bad[s].transfers[k];
    std::size_t other = 0;
    while (other < bad[s].transfers.size() &&
           (other == k || bad[s].transfers[other].src_nic == vpcat::kNoNic ||
            bad[s].transfers[other].src_nic == x.dst_nic ||
            p.planner.node_of_gpu(bad[s].transfers[other].src) != p.planner.node_of_gpu(x.src)))
      ++other;
    REQUIRE(other < bad[s].transfers.size());
    bad[s].transfers[k].src_nic = bad[s].transfers[other].src_nic;
    bad[s].transfers[k].solo_gbps = analyzer_route(p, bad[s].transfers[k]).solo_gbps;
    CHECK(contains(check_steps(p, d, bad), "carries"));
  }
  {  // the loopback stated at 1.5x its route's solo rate
    auto bad = good;
    bad[s].transfers[k].solo_gbps *= 1.5;
    CHECK(contains(check_steps(p, d, bad), "solo rate of"));
  }
}

// A channel step is contention-free at solo rates, so under max-min fair
// sharing every transfer runs at its solo rate: simulated on its own, each
// step lasts exactly its expected time (no planned rate below the solo rate
// could make the simulator and the plan disagree).
TEST_CASE("every channel step lasts its expected time in the simulator") {
  // h20-2n with NIC loopbacks (they load the NIC lanes and the switch as
  // inter-node flows do); the others by default.
  for (const char* name : {"1n", "4n-switch", "mixed-4n", "g6-3n", "5n-leafspine-tight", "h20-2n"}) {
    Platform& p = mut(platform(name));
    for (const Matrix& d : {uniform(p.gpus, 1 << 20), zipf_moe(p.gpus, 1.0, 3), hot_spot(p.gpus, 1 << 18, 1, 10.0)}) {
      vpcat::PlanOptions o = channels_only();
      o.latency_us = 0.0;
      o.nic_loopback = std::string(name) == "h20-2n";
      vpcat::Plan plan;
      REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), o, plan).ok());
      if (o.nic_loopback) CHECK(loopbacks(p.planner, plan) > 0);  // the loopbacks are what H20 is here for
      for (std::size_t i = 0; i < plan.step_count(); ++i) {
        vp::sim::Schedule one;
        one.steps.resize(1);
        for (std::uint32_t k = 0; k < plan.step(i).count; ++k) {
          const vpcat::PlanTransfer& t = plan.step_transfers(i)[k];
          vp::sim::Flow f;
          f.src = f.origin = p.topology.gpus[t.src];
          f.dst = f.final = p.topology.gpus[t.dst];
          f.bytes = static_cast<double>(t.bytes);
          f.route = analyzer_route(p, t);
          one.steps[0].flows.push_back(std::move(f));
        }
        vp::sim::SimOptions so;
        so.latency_us = 0.0;
        so.completion_epsilon = 0.0;
        const double simulated = vp::sim::simulate(p.topology, one, so).time_us;
        INFO(name << " step " << i);
        CHECK(simulated == doctest::Approx(plan.step(i).expected_us).epsilon(1e-9));
      }
    }
  }
}

TEST_CASE("the channel plan is kept when it beats the shared step") {
  // Two payloads through GPUs under one switch: the shared step would put
  // both on that switch's NIC (nearest), channel steps spread them over
  // two NICs. The plan must be the channel one, whatever checkpoints the
  // first step crossed (a regression: skipped checkpoints once read as
  // free and replaced the plan by the shared step at twice the time).
  Platform& p = mut(platform("4n-switch"));
  Matrix d(std::size_t{p.gpus} * p.gpus, 0);
  d[0 * p.gpus + 8] = 100'000'000;
  d[1 * p.gpus + 10] = 60'000'000;
  vpcat::PlanOptions shared = channels_only();
  shared.allow_shared = true;
  vpcat::Plan channels, chosen;
  REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), channels_only(), channels).ok());
  REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), shared, chosen).ok());
  CheckOptions co;
  co.allow_shared = true;
  co.shared_last_only = true;
  CHECK(check_plan(p, d, chosen, co) == "");
  CHECK(chosen.expected_us() == doctest::Approx(channels.expected_us()));
  CHECK(chosen.step(chosen.step_count() - 1).shared == 0);
}

TEST_CASE("default plans keep to max_steps: shifted steps only in groupings that fit, else the shared step") {
  // Uniform and MoE demands at 1 KiB and 1 MiB per pair on 4 nodes (32 GPUs:
  // 31 shifts) under the calibrated table, where shifted steps are chosen.
  Platform& p = mut(platform("4n-switch"));
  CheckOptions co;
  co.allow_shared = true;
  for (const Matrix& d : {uniform(p.gpus, 1 << 10), uniform(p.gpus, 1 << 20), zipf_moe(p.gpus, 1.2, 5)}) {
    for (std::uint32_t limit : {1u, 2u, 3u, 10u, 100u}) {
      vpcat::PlanOptions o;
      o.max_steps = limit;
      vpcat::Plan plan;
      const vpcat::PlanStatus s = p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), o, plan);
      INFO("max_steps " << limit);
      REQUIRE_MESSAGE(s.ok(), s.message());
      CHECK(plan.step_count() <= limit);
      CHECK(check_plan(p, d, plan, co) == "");
    }
  }
}

TEST_CASE("at the step limit, channel steps end in the shared step instead of failing (allow_shared)") {
  Platform& p = mut(platform("4n-switch"));
  const Matrix d = zipf_moe(p.gpus, 1.0, 5);
  CheckOptions co;
  co.allow_shared = true;
  co.shared_last_only = true;
  for (std::uint32_t limit : {1u, 2u, 3u, 10u}) {
    vpcat::PlanOptions o = channels_only();
    o.max_steps = limit;
    o.allow_shared = true;
    vpcat::Plan plan;
    const vpcat::PlanStatus s = p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), o, plan);
    INFO("max_steps " << limit);
    REQUIRE_MESSAGE(s.ok(), s.message());
    CHECK(plan.step_count() <= limit);
    CHECK(check_plan(p, d, plan, co) == "");
    o.allow_shared = false;  // channel steps only: the limit is an error
    CHECK(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), o, plan).code() == vpcat::PlanError::step_limit);
  }
}

TEST_CASE("NIC loopback: plans stay channels, the default never loops, and on H20 it pays") {
  // H20: one CX7 per GPU; the host bridges' forwarding holds peer-to-peer
  // routes, which is what a loopback spares. The 4-NIC PCIe Gen4 node: NICs
  // shared by two GPUs. One node: no fabric, so nothing to loop through.
  // Rails: NIC k only reaches NIC k, so nothing loops there either; nodes
  // with GPUDirect on half their NICs loop through those only.
  for (const char* name : {"h20-2n", "4n-switch", "5n-leafspine-tight", "1n", "3n-rail-tight", "2n-half-gpudirect"}) {
    Platform& p = mut(platform(name));
    vpcat::PlanOptions lb = channels_only();
    lb.nic_loopback = true;
    for (const auto& [what, d] : std::vector<std::pair<std::string, Matrix>>{
             {"uniform", uniform(p.gpus, 1 << 20)},
             {"zipf 1.2", zipf_moe(p.gpus, 1.2, 7, 256)},
             {"random", random_dense(p.gpus, 1 << 24, 0.2, 5)}}) {
      INFO(name << ", " << what);
      expect_correct(p, d, lb, what + ", NIC loopback");
      vpcat::Plan with, without;
      REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), lb, with).ok());
      REQUIRE(p.planner.plan(vpcat::Demand::dense(d.data(), p.gpus), channels_only(), without).ok());
      CHECK(loopbacks(p.planner, without) == 0);
      const std::string nm = name;
      if (nm == "1n" || nm == "3n-rail-tight") CHECK(loopbacks(p.planner, with) == 0);
      else if (nm != "2n-half-gpudirect") CHECK(loopbacks(p.planner, with) > 0);
    }
  }
  // Where the host bridges bind, looping pays: H20 uniform, 4.15x its bound
  // by peer-to-peer alone, 1.21x with loopbacks (docs/planner.md).
  Platform& h20 = mut(platform("h20-2n"));
  const Matrix d = uniform(h20.gpus, 1 << 20);
  vpcat::PlanOptions lb = channels_only();
  lb.nic_loopback = true;
  lb.machine = vpcat::MachineModel::ideal();  // the shared step below as lossless sharing
  vpcat::Plan with, without;
  REQUIRE(h20.planner.plan(vpcat::Demand::dense(d.data(), h20.gpus), lb, with).ok());
  REQUIRE(h20.planner.plan(vpcat::Demand::dense(d.data(), h20.gpus), channels_only(), without).ok());
  CHECK(with.expected_us() < 0.5 * without.expected_us());
  CHECK(with.expected_us() < 1.3 * with.bound_us());
  // With allow_shared too, the shared step sends the intra-node payloads
  // through the NICs, as DeepEP's PCIe mode does, and reaches the bound.
  lb.allow_shared = true;
  REQUIRE(h20.planner.plan(vpcat::Demand::dense(d.data(), h20.gpus), lb, with).ok());
  REQUIRE(with.step_count() == 1);
  CHECK(with.step(0).shared == 1);
  CHECK(loopbacks(h20.planner, with) > 0);
  CHECK(with.expected_us() < 1.05 * with.bound_us());
  CheckOptions co;
  co.allow_shared = true;
  co.shared_last_only = true;
  CHECK(check_plan(h20, d, with, co) == "");
  // ... and keeps the peer-to-peer routes where looping would crowd the NICs
  // (4 NICs for 8 GPUs): the same plan as without loopbacks.
  Platform& sw = mut(platform("4n-switch"));
  const Matrix u = uniform(sw.gpus, 1 << 20);
  vpcat::PlanOptions shared = channels_only();
  shared.allow_shared = true;
  shared.machine = vpcat::MachineModel::ideal();
  REQUIRE(sw.planner.plan(vpcat::Demand::dense(u.data(), sw.gpus), lb, with).ok());
  REQUIRE(sw.planner.plan(vpcat::Demand::dense(u.data(), sw.gpus), shared, without).ok());
  CHECK(loopbacks(sw.planner, with) == 0);
  CHECK(with.expected_us() == without.expected_us());
}

TEST_CASE("NIC loopback routes: two NICs of one switch, never one NIC twice") {
  const Platform& p = platform("h20-2n");
  vpcat::PlanTransfer t;
  t.src = t.origin = 0;
  t.dst = t.final = 5;
  t.bytes = 1;
  std::uint64_t links[64];
  t.src_nic = 0, t.dst_nic = 0;  // one NIC both ways: no such route
  CHECK(p.planner.route_links(t, links, 64) == 0);
  t.src_nic = 0, t.dst_nic = 5;
  const std::uint32_t n = p.planner.route_links(t, links, 64);
  REQUIRE(n > 0);
  const vp::Route r = analyzer_route(p, t);
  REQUIRE(r.links.size() == n);
  for (std::uint32_t k = 0; k < n; ++k) CHECK(links[k] == r.links[k]);
  // Without a fabric (one node, no switch) there is nothing to loop through
  // (NICs 0 and 1 exist on that node: the route is refused for the fabric).
  t.src_nic = 0, t.dst_nic = 1;
  CHECK(platform("h20-2n").planner.route_links(t, links, 64) > 0);
  CHECK(platform("1n").planner.route_links(t, links, 64) == 0);
}
