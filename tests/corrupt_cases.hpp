// The damaged .vpcat files of fixtures/corrupt/, made from a valid catalog
// by one controlled change each. tests/make_catalog_fixtures.cpp writes them
// (with the verifier's message as <name>.expected); catalog_corrupt_test.cpp
// checks the committed files and that every case here is committed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vp::test {

struct CorruptCase {
  std::string name;         // file stem: "huge-count"
  std::string description;  // one line for fixtures/corrupt/README.md
  std::vector<std::uint8_t> bytes;
};

std::vector<CorruptCase> corrupt_cases();

}  // namespace vp::test
