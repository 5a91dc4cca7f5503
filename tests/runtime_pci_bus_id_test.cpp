// vpcat/pci_bus_id.hpp, the one PCI bus-id parser. The cases are those where
// the five parsers it replaced disagreed: the C API's (any width, optional
// domain, no range check), the importers' (exact widths, any case), the
// verifier's (exact widths, lower case, no range check), the measured-
// capacity reader's (istream hex, function optional and ignored) and
// vp-plan's --gpus (a ':' or '.' made a bus id, compared as text).
#include <doctest/doctest.h>

#include <string>

#include "vpcat/pci_bus_id.hpp"

namespace {

bool exact(const char* s) {
  vpcat::PciBusId id;
  return vpcat::parse_pci_bus_id(s, id, vpcat::PciBusIdForm::exact);
}
bool loose(const char* s) {
  vpcat::PciBusId id;
  return vpcat::parse_pci_bus_id(s, id, vpcat::PciBusIdForm::loose);
}
vpcat::PciBusId parsed(const char* s, vpcat::PciBusIdForm form) {
  vpcat::PciBusId id;
  REQUIRE(vpcat::parse_pci_bus_id(s, id, form));
  return id;
}
std::string formatted(const vpcat::PciBusId& id) {
  char buf[vpcat::kPciBusIdBufferSize];
  const std::size_t n = vpcat::format_pci_bus_id(id, buf);
  CHECK(n == std::string(buf).size());
  return buf;
}

}  // namespace

TEST_CASE("pci bus id: the exact form is DOMAIN:BB:DD.F with a 4- to 8-digit domain, either case") {
  const vpcat::PciBusId id = parsed("0000:17:00.0", vpcat::PciBusIdForm::exact);
  CHECK(id.domain == 0);
  CHECK(id.bus == 0x17);
  CHECK(id.device == 0);
  CHECK(id.function == 0);
  CHECK(parsed("00000001:AB:1f.7", vpcat::PciBusIdForm::exact) == vpcat::PciBusId{1, 0xab, 0x1f, 7});
  CHECK(exact("0000:ab:00.0"));
  CHECK(exact("0000:AB:00.0"));  // the importers took it (and wrote it in lower case)
  CHECK(exact("ffffffff:ff:1f.7"));
  // Widths are exact: the C API took all of these.
  CHECK_FALSE(exact("17:00.0"));       // no domain
  CHECK_FALSE(exact("000:17:00.0"));   // a 3-digit domain
  CHECK_FALSE(exact("000000000:17:00.0"));
  CHECK_FALSE(exact("0000:017:00.0"));
  CHECK_FALSE(exact("0000:17:0.0"));
  CHECK_FALSE(exact("0000:17:00.00"));
  CHECK_FALSE(exact("0000:17:00"));    // the measured-capacity reader took it
  CHECK_FALSE(exact(""));
  CHECK_FALSE(exact("0000:17:00.0 "));
  CHECK_FALSE(exact("0000:17:00.0x"));
  CHECK_FALSE(exact("0000-17-00.0"));
}

TEST_CASE("pci bus id: a device above 1f or a function above 7 is no PCI address, in either form") {
  // The C API and the verifier took these; the importers did not.
  CHECK_FALSE(exact("0000:17:20.0"));
  CHECK_FALSE(exact("0000:17:00.8"));
  CHECK_FALSE(loose("17:20.0"));
  CHECK_FALSE(loose("0000:17:00.8"));
  CHECK(exact("0000:17:1f.7"));
}

TEST_CASE("pci bus id: the loose form takes any width, a missing domain or function as 0") {
  const vpcat::PciBusId want{0, 0x17, 0, 0};
  CHECK(parsed("17:0.0", vpcat::PciBusIdForm::loose) == want);
  CHECK(parsed("0000:17:00.0", vpcat::PciBusIdForm::loose) == want);
  CHECK(parsed("00000000:17:00.0", vpcat::PciBusIdForm::loose) == want);  // NVML's 8-digit domain
  CHECK(parsed("0000:17:00", vpcat::PciBusIdForm::loose) == want);        // nvbandwidth's, no function
  CHECK(parsed("17:00", vpcat::PciBusIdForm::loose) == want);             // two fields: bus and device
  CHECK(parsed("1:2:3.4", vpcat::PciBusIdForm::loose) == vpcat::PciBusId{1, 2, 3, 4});
  CHECK_FALSE(loose("17"));
  CHECK_FALSE(loose("1:2:3:4.0"));          // four fields
  CHECK_FALSE(loose("000000000:17:00.0"));  // a 9-digit domain (the C API took up to 12)
  CHECK_FALSE(loose("0:117:00.0"));         // a 3-digit bus
  CHECK_FALSE(loose("17:00.0.1"));
  CHECK_FALSE(loose("17:.0"));
  CHECK_FALSE(loose(":17:00.0"));
  CHECK_FALSE(loose("0-3;b:*"));            // what vp-plan once read as a bus id
  CHECK_FALSE(loose("0-3"));
  CHECK_FALSE(loose("*"));
}

TEST_CASE("pci bus id: canonical is the exact form in lower case, as catalogs store it") {
  CHECK(vpcat::is_canonical_pci_bus_id("0000:17:00.0"));
  CHECK(vpcat::is_canonical_pci_bus_id("00000000:ab:1f.7"));
  CHECK_FALSE(vpcat::is_canonical_pci_bus_id("0000:AB:00.0"));
  CHECK_FALSE(vpcat::is_canonical_pci_bus_id("0000:17:20.0"));
  CHECK_FALSE(vpcat::is_canonical_pci_bus_id("17:00.0"));
  CHECK_FALSE(vpcat::is_canonical_pci_bus_id(""));
}

TEST_CASE("pci bus id: formatting writes the canonical form, which parses back") {
  CHECK(formatted({0, 0x17, 0, 0}) == "0000:17:00.0");
  CHECK(formatted({0xffff, 0xab, 0x1f, 7}) == "ffff:ab:1f.7");
  CHECK(formatted({0x10000, 1, 2, 3}) == "00010000:01:02.3");
  CHECK(formatted({0xffffffffu, 0xff, 0x1f, 7}) == "ffffffff:ff:1f.7");
  for (const vpcat::PciBusId id : {vpcat::PciBusId{0, 0, 0, 0}, vpcat::PciBusId{0x12345, 0x80, 0x10, 5}}) {
    const std::string s = formatted(id);
    CHECK(vpcat::is_canonical_pci_bus_id(s));
    CHECK(parsed(s.c_str(), vpcat::PciBusIdForm::exact) == id);
  }
}

TEST_CASE("pci bus id: the same function whatever the spelling, else the same text") {
  CHECK(vpcat::same_pci_bus_id("0000:17:00.0", "00000000:17:00.0"));
  CHECK(vpcat::same_pci_bus_id("0000:17:00.0", "17:0.0"));
  CHECK(vpcat::same_pci_bus_id("0000:AB:00.0", "0000:ab:00.0"));
  CHECK_FALSE(vpcat::same_pci_bus_id("0000:17:00.0", "0000:17:00.1"));
  CHECK_FALSE(vpcat::same_pci_bus_id("0001:17:00.0", "0000:17:00.0"));
  CHECK(vpcat::same_pci_bus_id("gpu-a", "gpu-a"));  // neither parses: text
  CHECK_FALSE(vpcat::same_pci_bus_id("gpu-a", "0000:17:00.0"));
}
