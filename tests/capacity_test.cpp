#include <doctest/doctest.h>

#include "vp/topology/capacity.hpp"
#include "vp/topology/errors.hpp"

using vp::CapacityDefaults;
using vp::CapacitySource;

TEST_CASE("pcie capacities come from the default table, scaled by width") {
  CapacityDefaults d;
  auto c = d.pcie(4, 16);
  CHECK(c.gbps == 24.0);
  CHECK(c.source == CapacitySource::default_table);
  CHECK(c.basis == "PCIe Gen4 x16");
  CHECK(d.pcie(5, 8).gbps == 24.0);
  CHECK(d.pcie(3, 4).gbps == 3.0);
}

TEST_CASE("unknown generation and width fall back to the table's assumption, and say so") {
  CapacityDefaults d;
  auto c = d.pcie(0, 0);
  CHECK(c.gbps == 12.0);
  CHECK(c.basis == "unknown generation, assumed PCIe Gen3 x16");
}

TEST_CASE("an override changes the figure and marks its source") {
  CapacityDefaults d;
  d.set("pcie.gen4", 22.5, "--set");
  auto c = d.pcie(4, 16);
  CHECK(c.gbps == 22.5);
  CHECK(c.source == CapacitySource::user_override);
  CHECK(d.pcie(5, 16).source == CapacitySource::default_table);
  CHECK(d.entries().at("pcie.gen4") == 22.5);
}

TEST_CASE("bad overrides are rejected with the key and the reason") {
  CapacityDefaults d;
  CHECK_THROWS_WITH(d.set("pcie.gen4", -1, "--set"), "--set: pcie.gen4: must be a positive number, got -1");
  CHECK_THROWS_WITH(d.set("bogus", 1, "f.json"),
                    "f.json: bogus: unknown key (the keys are inter_socket.amd, inter_socket.arm, inter_socket.intel, "
                    "inter_socket.intel_broadwell, inter_socket.intel_emerald_rapids, inter_socket.intel_sapphire_rapids, "
                    "inter_socket.intel_skylake, inter_socket.power9, inter_socket.unknown, inter_socket.zhaoxin, "
                    "nic.assume_gpudirect, nic_efficiency, pcie.gen1, pcie.gen2, pcie.gen3, pcie.gen4, pcie.gen5, "
                    "pcie.gen6, pcie.unknown_gen, pcie.unknown_width, root_complex_p2p_factor)");
  CHECK_THROWS_WITH(d.set("nic_efficiency", 2, "--set"), "--set: nic_efficiency: must be at most 1, got 2");
  // The catalog records the table: a denormal there is a catalog the verifier refuses,
  // and a capacity beyond the tools' range overflows the times they print.
  CHECK_THROWS_WITH(d.set("pcie.gen6", 1e-310, "--set"),
                    "--set: pcie.gen6: must be a capacity from 0.001 to 1e+06 GB/s, got 1e-310");
  CHECK_THROWS_WITH(d.set("inter_socket.amd", 1e308, "--set"),
                    "--set: inter_socket.amd: must be a capacity from 0.001 to 1e+06 GB/s, got 1e+308");
  CHECK_THROWS_WITH(d.set("root_complex_p2p_factor", 1e-310, "--set"),
                    "--set: root_complex_p2p_factor: must be at least 0.001 and at most 1000, got 1e-310");
}

TEST_CASE("NIC and inter-socket capacities") {
  CapacityDefaults d;
  CHECK(d.nic(200, 1).gbps == 25.0);
  CHECK(d.nic(100, 2).gbps == 25.0);
  CHECK(d.nic(100, 1).basis == "100 Gb/s NIC");
  CHECK(d.inter_socket("amd").gbps == 16.0);
  CHECK(d.inter_socket("intel_sapphire_rapids").gbps == 22.0);
  CHECK(d.inter_socket("vax").basis == "inter-socket unknown");
}

TEST_CASE("hwloc raw link speeds decode to generation and width") {
  using P = std::pair<int, int>;
  CHECK(CapacityDefaults::decode_raw_pcie_gbps(15.753846) == P{3, 16});  // also Gen4 x8: widest wins
  CHECK(CapacityDefaults::decode_raw_pcie_gbps(31.507692) == P{4, 16});
  CHECK(CapacityDefaults::decode_raw_pcie_gbps(63.015384) == P{5, 16});
  CHECK(CapacityDefaults::decode_raw_pcie_gbps(2.0) == P{1, 8});
  CHECK_FALSE(CapacityDefaults::decode_raw_pcie_gbps(0.0).has_value());
  CHECK_FALSE(CapacityDefaults::decode_raw_pcie_gbps(7.3).has_value());
}

TEST_CASE("transfer rates name PCIe generations") {
  CHECK(CapacityDefaults::pcie_gen_from_transfer_rate("16 GT/s") == 4);
  CHECK(CapacityDefaults::pcie_gen_from_transfer_rate("32.0 GT/s PCIe") == 5);
  CHECK(CapacityDefaults::pcie_gen_from_transfer_rate("8 GT/s") == 3);
  CHECK(CapacityDefaults::pcie_gen_from_transfer_rate("2.5 GT/s") == 1);
  CHECK(CapacityDefaults::pcie_gen_from_transfer_rate("fast") == 0);
}

TEST_CASE("CPU families map to inter-socket keys") {
  CHECK(vp::cpu_family_key("AuthenticAMD", "", 23, 49) == "amd");
  CHECK(vp::cpu_family_key("GenuineIntel", "", 6, 0x8F) == "intel_sapphire_rapids");
  CHECK(vp::cpu_family_key("GenuineIntel", "", 6, 0x55) == "intel_skylake");
  CHECK(vp::cpu_family_key("GenuineIntel", "Intel(R) Xeon(R) Platinum 8480+", -1, -1) == "intel_sapphire_rapids");
  CHECK(vp::cpu_family_key("", "POWER9", -1, -1) == "power9");
  CHECK(vp::cpu_family_key("", "", -1, -1) == "unknown");
}

TEST_CASE("NCCL's arch words map to families: arm64/aarch64 -> arm, ppc64/ppc64le -> power9") {
  CHECK(vp::cpu_family_key("", "arm64", -1, -1) == "arm");
  CHECK(vp::cpu_family_key("", "aarch64", -1, -1) == "arm");
  CHECK(vp::cpu_family_key("", "AARCH64", -1, -1) == "arm");
  CHECK(vp::cpu_family_key("ARM", "arm64", -1, -1) == "arm");
  CHECK(vp::cpu_family_key("", "ppc64", -1, -1) == "power9");  // NCCL: P9_BW for every POWER CPU
  CHECK(vp::cpu_family_key("", "ppc64le", -1, -1) == "power9");
  CHECK(vp::cpu_family_key("IBM", "ppc64", -1, -1) == "power9");
}

TEST_CASE("x86 arch words defer to the vendor and ids") {
  CHECK(vp::cpu_family_key("GenuineIntel", "x86_64", 6, 0xCF) == "intel_emerald_rapids");
  CHECK(vp::cpu_family_key("GenuineIntel", "x86_64", 6, 0x4F) == "intel_broadwell");
  CHECK(vp::cpu_family_key("GenuineIntel", "x86_64", -1, -1) == "intel");
  CHECK(vp::cpu_family_key("AuthenticAMD", "x86_64", 25, 17) == "amd");
  CHECK(vp::cpu_family_key("GenuineIntel", "amd64", 6, 0x55) == "intel_skylake");  // "amd64" is not AMD
  CHECK(vp::cpu_family_key("", "x86_64", -1, -1) == "unknown");
}

TEST_CASE("model names of hwloc's CPUModel") {
  CHECK(vp::cpu_family_key("", "POWER9, altivec supported", -1, -1) == "power9");
  CHECK(vp::cpu_family_key("", "POWER8E (raw), altivec supported", -1, -1) == "unknown");
  CHECK(vp::cpu_family_key("", "Neoverse-V2", -1, -1) == "arm");
  CHECK(vp::cpu_family_key("AuthenticAMD", "AMD EPYC 9654 96-Core Processor", 25, 17) == "amd");
  CHECK(vp::cpu_family_key("GenuineIntel", "Intel(R) Xeon(R) Platinum 8592+", -1, -1) == "intel_emerald_rapids");
  CHECK(vp::cpu_family_key("GenuineIntel", "Intel(R) Xeon(R) Gold 6248", -1, -1) == "intel_skylake");
}
