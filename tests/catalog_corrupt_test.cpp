// Every damaged file of fixtures/corrupt/ is rejected with exactly its
// expected message, by the verifier, the reader and the mapped-file loader.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>
#include <vector>

#include "catalog_support.hpp"
#include "corrupt_cases.hpp"
#include "support.hpp"
#include "vp/catalog/errors.hpp"
#include "vp/catalog/reader.hpp"
#include "vpcat/mapped_file.hpp"

namespace {

namespace fs = std::filesystem;

std::string corrupt_dir() { return vp::test::fixture("corrupt"); }

std::string expected_message(const fs::path& file) {
  std::string text = vp::test::read_text(fs::path(file).replace_extension(".expected").string());
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

std::vector<fs::path> fixtures() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(corrupt_dir()))
    if (e.path().extension() == ".vpcat") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("corrupt: every fixture is rejected with its expected message") {
  const auto files = fixtures();
  CHECK(files.size() >= 30);
  for (const fs::path& file : files) {
    CAPTURE(file.filename().string());
    const std::vector<std::uint8_t> bytes = vp::test::read_binary(file.string());
    const vpcat::Status s = vpcat::verify(bytes.data(), bytes.size(), nullptr);
    CHECK_FALSE(s.ok());
    CHECK(std::string(s.message()) == expected_message(file));
  }
}

TEST_CASE("corrupt: the reader and the mapped-file loader give the same messages") {
  for (const fs::path& file : fixtures()) {
    CAPTURE(file.filename().string());
    const std::string expected = expected_message(file);
    vpcat::CatalogFile mapped;
    CHECK(std::string(vpcat::CatalogFile::open(file.c_str(), &mapped).message()) == expected);
    try {
      vp::catalog::read_catalog_file(file.string());
      FAIL("read without error");
    } catch (const vp::catalog::CatalogError& e) {
      CHECK(std::string(e.what()) == file.string() + ": " + expected);
      CHECK(e.kind() == vp::catalog::CatalogError::Kind::invalid);
    }
  }
}

TEST_CASE("corrupt: every generated case is committed, and gives its committed message") {
  std::set<std::string> committed;
  for (const fs::path& file : fixtures()) committed.insert(file.stem().string());
  for (const vp::test::CorruptCase& c : vp::test::corrupt_cases()) {
    CAPTURE(c.name);
    CHECK(committed.count(c.name) == 1);
    const vpcat::Status s = vpcat::verify(c.bytes.data(), c.bytes.size(), nullptr);
    CHECK(std::string(s.message()) == expected_message(fs::path(corrupt_dir()) / (c.name + ".vpcat")));
  }
}

TEST_CASE("corrupt: what readers rely on beyond the structure is refused with its own code") {
  // Each of these but unpaired-peer-roles passed an earlier verifier (and
  // then failed a reader, or stated what no analysis gives).
  const std::pair<const char*, vpcat::Error> cases[] = {
      {"zero-forward-capacity", vpcat::Error::bad_forwarder},
      {"wrong-forwarder", vpcat::Error::bad_forwarder},
      {"denormal-capacity", vpcat::Error::bad_number},
      {"inconsistent-solo-rate", vpcat::Error::bad_solo_rate},
      {"nic-gbps-on-gpu", vpcat::Error::bad_number},
      {"bad-bus-id", vpcat::Error::bad_bus_id},
      {"orbit-size-not-dividing", vpcat::Error::bad_orbit_size},
      {"bad-patterns-represented", vpcat::Error::bad_orbit_size},
      {"bad-host-list", vpcat::Error::bad_host_list},
      {"route-revisits", vpcat::Error::bad_route},
      {"nic-port-overloaded", vpcat::Error::bad_pattern},
      {"nic-role-without-port", vpcat::Error::bad_pattern},
      {"unpaired-peer-roles", vpcat::Error::bad_pattern},
      {"denormal-default", vpcat::Error::bad_number},
      {"zero-default", vpcat::Error::bad_number},
  };
  for (const auto& [name, code] : cases) {
    CAPTURE(name);
    const std::vector<std::uint8_t> bytes = vp::test::read_binary(corrupt_dir() + "/" + name + ".vpcat");
    const vpcat::Status s = vpcat::verify(bytes.data(), bytes.size(), nullptr);
    CHECK(s.code() == code);
  }
}
