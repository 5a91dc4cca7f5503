#include "env_config.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "plan_mode.hpp"

namespace vpcat_mpi {
namespace {

std::string lower(const char* s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string quoted(const char* name, const char* value) { return std::string(name) + "=\"" + value + "\""; }

// A whole decimal number in [lo, hi]; false otherwise.
bool parse_uint(const char* text, unsigned long long lo, unsigned long long hi, unsigned long long* out) {
  if (!std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno == ERANGE || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool parse_double(const char* text, double* out) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || std::isspace(static_cast<unsigned char>(text[0])) || !std::isfinite(v) || v < 0)
    return false;
  *out = v;
  return true;
}

// One of `choices` (case-insensitive) -> its index; -1 otherwise.
int choice(const char* text, std::initializer_list<const char*> choices) {
  const std::string v = lower(text);
  int i = 0;
  for (const char* c : choices) {
    if (v == c) return i;
    ++i;
  }
  return -1;
}

std::string format_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

bool read_env_config(const GetEnv& getenv, EnvConfig* out, std::string* error) {
  *out = EnvConfig{};
  auto value = [&](const char* name) -> const char* {
    const char* v = getenv(name);
    return v && *v ? v : nullptr;
  };
  auto bad = [&](const char* name, const char* v, const std::string& want) {
    *error = quoted(name, v) + ": " + want;
    return false;
  };
  if (const char* v = value("VPCAT_DEBUG")) {
    const int k = choice(v, {"none", "warn", "info"});
    if (k < 0) return bad("VPCAT_DEBUG", v, "not a level (NONE, WARN or INFO)");
    out->debug = static_cast<DebugLevel>(k);
  }
  if (const char* v = value("VPCAT_DEBUG_RANKS")) {
    const int k = choice(v, {"0", "all"});
    if (k < 0) return bad("VPCAT_DEBUG_RANKS", v, "want 0 (rank 0 speaks) or all (every rank)");
    out->debug_all_ranks = k == 1;
  }
  if (const char* v = value("VPCAT_STRICT")) {
    const int k = choice(v, {"0", "1"});
    if (k < 0) return bad("VPCAT_STRICT", v, "want 0 or 1");
    out->strict = k == 1;
  }
  if (const char* v = value("VPCAT_INIT")) {
    const int k = choice(v, {"lazy", "eager"});
    if (k < 0) return bad("VPCAT_INIT", v, "want eager (at MPI_Init) or lazy (at the first call)");
    out->eager = k == 1;
  }
  if (const char* v = value("VPCAT_MPI_PLAN")) {
    const int mode = parse_plan_mode(v);
    if (mode == 0) return bad("VPCAT_MPI_PLAN", v, kPlanModeValues);
    out->plan_mode = mode;
  }
  vpcat_plan_options& p = out->plan;
  auto note = [&](const char* name, const char* v) { out->plan_set += (out->plan_set.empty() ? "" : " ") + std::string(name) + "=" + v; };
  unsigned long long u = 0;
  double d = 0;
  if (const char* v = value("VPCAT_MAX_STEPS")) {
    if (!parse_uint(v, 1, 0xffffffffull, &u)) return bad("VPCAT_MAX_STEPS", v, "want a whole number from 1 to 4294967295");
    p.max_steps = static_cast<uint32_t>(u), note("VPCAT_MAX_STEPS", v);
  }
  if (const char* v = value("VPCAT_LATENCY_US")) {
    if (!parse_double(v, &d)) return bad("VPCAT_LATENCY_US", v, "not a number >= 0 (microseconds)");
    p.latency_us = d, note("VPCAT_LATENCY_US", v);
  }
  if (const char* v = value("VPCAT_MIN_STEP_LATENCIES")) {
    if (!parse_double(v, &d)) return bad("VPCAT_MIN_STEP_LATENCIES", v, "not a number >= 0");
    p.min_step_latencies = d, note("VPCAT_MIN_STEP_LATENCIES", v);
  }
  if (const char* v = value("VPCAT_MIN_CHUNK_BYTES")) {
    if (!parse_uint(v, 0, ~0ull, &u)) return bad("VPCAT_MIN_CHUNK_BYTES", v, "want a whole number of bytes");
    p.min_chunk_bytes = u, note("VPCAT_MIN_CHUNK_BYTES", v);
  }
  if (const char* v = value("VPCAT_CHUNK_ALIGN_BYTES")) {
    if (!parse_uint(v, 1, ~0ull, &u)) return bad("VPCAT_CHUNK_ALIGN_BYTES", v, "want a whole number of bytes, at least 1");
    p.chunk_align_bytes = u, note("VPCAT_CHUNK_ALIGN_BYTES", v);
  }
  if (const char* v = value("VPCAT_CHANNELS_ONLY")) {
    const int k = choice(v, {"0", "1"});
    if (k < 0)
      return bad("VPCAT_CHANNELS_ONLY", v,
                 "want 0 (the plan expected fastest) or 1 (channel steps only, each contention-free)");
    p.channels_only = static_cast<uint32_t>(k), note("VPCAT_CHANNELS_ONLY", v);
  }
  if (const char* v = value("VPCAT_ALLOW_SHARED")) {
    const int k = choice(v, {"0", "1"});
    if (k < 0) return bad("VPCAT_ALLOW_SHARED", v, "want 0 (channel steps only) or 1 (a last shared step allowed; with VPCAT_CHANNELS_ONLY=1)");
    p.allow_shared = static_cast<uint32_t>(k), note("VPCAT_ALLOW_SHARED", v);
  }
  if (const char* v = value("VPCAT_REPLAY")) {
    const int k = choice(v, {"0", "1"});
    if (k < 0) return bad("VPCAT_REPLAY", v, "want 0 (search every step) or 1 (replay stored patterns)");
    p.replay = static_cast<uint32_t>(k), note("VPCAT_REPLAY", v);
  }
  return true;
}

std::string describe_plan_options(const vpcat_plan_options& o) {
  return "max_steps=" + std::to_string(o.max_steps) + " latency_us=" + format_double(o.latency_us) +
         " min_step_latencies=" + format_double(o.min_step_latencies) +
         " min_chunk_bytes=" + std::to_string(o.min_chunk_bytes) +
         " chunk_align_bytes=" + std::to_string(o.chunk_align_bytes) + " channels_only=" + std::to_string(o.channels_only) +
         " allow_shared=" + std::to_string(o.allow_shared) +
         " replay=" + std::to_string(o.replay);
}

}  // namespace vpcat_mpi
