#include "sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "vp/base/errors.hpp"

namespace vp::sim_cli {

namespace {

// Exact products of byte counts up to 2^53 by targets up to 2^58.
__extension__ typedef unsigned __int128 Wide;

[[noreturn]] void fail(const std::string& spec, const std::string& why) {
  throw UsageError(fmt::format("--sizes {}: {}", spec, why));
}

// "1048576", "64M", "1k": a whole number of bytes or of 2^10, 2^20, 2^30
// bytes (nccl-tests' parsesize, without its fractions); nullopt when it is
// not one (or absurdly long).
std::optional<std::uint64_t> parse_size(const std::string& text) {
  std::string digits = text;
  std::uint64_t unit = 1;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K': case 'k': unit = std::uint64_t{1} << 10; break;
      case 'M': case 'm': unit = std::uint64_t{1} << 20; break;
      case 'G': case 'g': unit = std::uint64_t{1} << 30; break;
      default: break;
    }
    if (unit != 1) digits.pop_back();
  }
  if (digits.empty() || digits.size() > 15 || digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const std::uint64_t n = std::stoull(digits);
  if (n > kMaxSweepSize / unit) return kMaxSweepSize + 1;  // out of range, not malformed
  return n * unit;
}

void check_size(const std::string& spec, const std::string& text, std::uint64_t bytes) {
  if (bytes == 0 || bytes > kMaxSweepSize)
    fail(spec, fmt::format("{} is not a size from 1 byte to 1024G", text));
}

}  // namespace

std::vector<std::uint64_t> SizeSweep::sizes() const {
  std::vector<std::uint64_t> out;
  for (std::uint64_t s = min; s <= max; s *= factor) {
    out.push_back(s);
    if (s > max / factor) break;  // the next one is past max (and past any overflow)
  }
  return out;
}

SizeSweep parse_sizes(const std::string& spec) {
  const std::string form =
      "not MIN:MAX or MIN:MAX:FACTOR (sizes in bytes, each a whole number with an optional K, M or G for 2^10, "
      "2^20, 2^30, as nccl-tests' -b and -e; FACTOR as its -f)";
  std::vector<std::string> parts;
  std::string::size_type at = 0;
  for (std::string::size_type colon; (colon = spec.find(':', at)) != std::string::npos; at = colon + 1)
    parts.push_back(spec.substr(at, colon - at));
  parts.push_back(spec.substr(at));
  if (parts.size() < 2 || parts.size() > 3) fail(spec, form);
  const std::optional<std::uint64_t> min = parse_size(parts[0]), max = parse_size(parts[1]);
  if (!min || !max) fail(spec, form);
  SizeSweep s;
  s.text = spec;
  s.min = *min;
  s.max = *max;
  check_size(spec, parts[0], s.min);
  check_size(spec, parts[1], s.max);
  if (s.min > s.max) fail(spec, "MIN is above MAX");
  if (parts.size() == 3) {
    const std::string& f = parts[2];
    if (f.empty() || f.size() > 4 || f.find_first_not_of("0123456789") != std::string::npos ||
        std::stoull(f) < 2 || std::stoull(f) > kMaxSweepFactor)
      fail(spec, fmt::format("FACTOR {} is not a whole number from 2 to {} (nccl-tests' -f)", f, kMaxSweepFactor));
    s.factor = std::stoull(f);
  }
  return s;
}

NcclAlltoallSize nccl_alltoall_size(std::uint64_t size, std::size_t ranks) {
  // setupArgs: count = size / wordSize; AlltoAllGetCollByteCount: per peer
  // (count / nranks) & ~(16 / eltSize - 1), sent nranks times.
  constexpr std::uint64_t align = 16 / kNcclTypeBytes;
  NcclAlltoallSize out;
  out.count = size / kNcclTypeBytes / ranks / align * align;
  out.size = out.count * kNcclTypeBytes * ranks;
  return out;
}

NcclBandwidth nccl_alltoall_bw(std::uint64_t size, double time_us, std::size_t ranks) {
  // AlltoAllGetBw: baseBw = count * nranks * typesize / 1e9 / sec (count
  // per peer), algBw = baseBw, busBw = baseBw * (nranks - 1) / nranks.
  NcclBandwidth out;
  out.algbw_gbps = static_cast<double>(size) / 1e3 / time_us;  // bytes/us / 1e3 = GB/s
  out.busbw_gbps = out.algbw_gbps * static_cast<double>(ranks - 1) / static_cast<double>(ranks);
  return out;
}

sim::Demand demand_at_size(const sim::Demand& shape, std::uint64_t size) {
  const std::size_t n = shape.size();
  std::vector<std::uint64_t> bytes(n * n, 0);
  std::uint64_t total = 0;
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t t = 0; t < n; ++t)
      if (s != t) total += bytes[s * n + t] = static_cast<std::uint64_t>(shape.at(s, t));
  if (total == 0) throw UsageError("the demand moves no bytes between ranks: it has no shape to scale");
  const std::uint64_t target = size * (n - 1);
  std::vector<std::uint64_t> rest(n * n, 0);  // (bytes * target) mod total: the fractions, exactly
  std::uint64_t placed = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const Wide scaled = Wide{bytes[i]} * target;
    rest[i] = static_cast<std::uint64_t>(scaled % total);
    bytes[i] = static_cast<std::uint64_t>(scaled / total);
    placed += bytes[i];
  }
  // The fractions sum to target - placed, each below 1: that many pairs
  // with the largest ones get a byte more.
  std::vector<std::size_t> order(bytes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rest[a] > rest[b]; });
  for (std::uint64_t k = 0; k < target - placed; ++k) ++bytes[order[k]];
  sim::Demand out(n);
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t t = 0; t < n; ++t)
      if (s != t) out.set(s, t, static_cast<double>(bytes[s * n + t]));
  return out;
}

}  // namespace vp::sim_cli
