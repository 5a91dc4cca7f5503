// A small, portable pseudo-random generator for the workload generators.
//
// xoshiro256** (Blackman & Vigna, https://prng.di.unimi.it/xoshiro256starstar.c)
// seeded through splitmix64, with our own conversions to doubles and
// integers. Nothing here uses <random>'s distributions, whose algorithms are
// implementation-defined: the same seed yields the same numbers with every
// compiler and standard library. Not for cryptography. Not thread-safe (one
// generator per thread).
#pragma once

#include <array>
#include <cstdint>

namespace vp::sim {

class Prng {
 public:
  explicit Prng(std::uint64_t seed) {
    for (auto& word : s_) word = splitmix64(seed);
  }

  // Next 64 random bits.
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, bound), bound > 0: modulo with rejection of the
  // 2^64 mod bound lowest values (as OpenBSD's arc4random_uniform), so
  // exactly uniform.
  std::uint64_t below(std::uint64_t bound) {
    const std::uint64_t threshold = (0 - bound) % bound;
    for (;;) {
      const std::uint64_t x = next();
      if (x >= threshold) return x % bound;
    }
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  std::array<std::uint64_t, 4> s_{};
};

}  // namespace vp::sim
