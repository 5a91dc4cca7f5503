// vpcat/hostlist.hpp, the one host-list parser (SPEC.md §6.8). The cases are
// those where the four parsers it replaced disagreed: the analyzer's
// (located errors, numbers of at most 18 digits), the verifier's counter
// (numbers below 2^64, counts saturated at 2^32), the MPI executor's
// (trimmed blanks, any character in a name) and the Python binding's (no
// checks at all: "" was one empty name).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "vpcat/hostlist.hpp"

namespace {

std::vector<std::string> names(const char* s) {
  std::vector<std::string> out;
  vpcat::HostlistError e;
  INFO(s);
  REQUIRE(vpcat::expand_hostlist(s, &out, &e));
  return out;
}
std::string error(const char* s, std::uint64_t limit = vpcat::kMaxHostlistNames) {
  std::vector<std::string> out{"kept"};
  vpcat::HostlistError e;
  INFO(s);
  REQUIRE_FALSE(vpcat::expand_hostlist(s, &out, &e, limit));
  CHECK(out == std::vector<std::string>{"kept"});  // untouched on failure
  // A syntax error fails counting too; too many names does not.
  std::uint64_t n = 0;
  const bool syntax = std::string(e.what).find("more than") == std::string::npos;
  CHECK(vpcat::count_hostlist(s, ~std::uint64_t{0}, &n, nullptr) == !syntax);
  return e.what;
}
std::uint64_t count(const char* s, std::uint64_t limit) {
  std::uint64_t n = 0;
  REQUIRE(vpcat::count_hostlist(s, limit, &n, nullptr));
  return n;
}

}  // namespace

TEST_CASE("hostlist: ranges padded to the first bound's width, products leftmost slowest, lists") {
  CHECK(names("gpu[001-003,010]") == std::vector<std::string>{"gpu001", "gpu002", "gpu003", "gpu010"});
  CHECK(names("a[1-2]b[1-2],c") == std::vector<std::string>{"a1b1", "a1b2", "a2b1", "a2b2", "c"});
  CHECK(names("n[8-11]") == std::vector<std::string>{"n8", "n9", "n10", "n11"});
  CHECK(names("n[09-10]") == std::vector<std::string>{"n09", "n10"});
  CHECK(names("login.cluster_a-1") == std::vector<std::string>{"login.cluster_a-1"});
  CHECK(names("[1-2]") == std::vector<std::string>{"1", "2"});
  // 19 and 20 digits below 2^64: the SPEC's rule (the analyzer refused more than 18).
  CHECK(names("n[1234567890123456789]") == std::vector<std::string>{"n1234567890123456789"});
  CHECK(names("n[18446744073709551615]") == std::vector<std::string>{"n18446744073709551615"});
}

TEST_CASE("hostlist: errors say what and where, and leave the output alone") {
  CHECK(error("gpu[1-2") == "unclosed '[' at column 4");
  CHECK(error("gpu[1-") == "unclosed '[' at column 4");
  CHECK(error("gpu]") == "unexpected ']' at column 4");
  CHECK(error("gpu[3-1]") == "decreasing range 3-1");
  CHECK(error("gpu[]") == "expected a number, got ']' at column 5");
  CHECK(error("gpu[[1]]") == "expected a number, got '[' at column 5");
  CHECK(error("gpu[1;2]") == "unexpected ';' in a range at column 6");
  CHECK(error("a,,b") == "empty host name at column 3");
  CHECK(error("a,") == "empty host name at column 3");
  // The Python binding expanded "" to one empty name; the MPI executor trimmed blanks.
  CHECK(error("") == "empty host name at column 1");
  CHECK(error("a, b") == "unexpected ' ' at column 3");
  CHECK(error("gpu 1") == "unexpected ' ' at column 4");
  // The MPI executor took any character in a name.
  CHECK(error("gpu#1") == "unexpected '#' at column 4");
  CHECK(error("n[18446744073709551616]") == "number 18446744073709551616 is 2^64 or more");
  CHECK(error("gpu[1-2000000]") == "more than 1000000 host names");
  CHECK(error("a[1-1000]b[1-1001]") == "more than 1000000 host names");
  CHECK(error("a[1-3]", 2) == "more than 2 host names");
}

TEST_CASE("hostlist: counting saturates at limit + 1 without allocating") {
  CHECK(count("gpu[001-032]", 100) == 32);
  CHECK(count("a[1-3],b", 100) == 4);
  CHECK(count("a[1-3],b", 3) == 4);  // more than 3
  const std::uint64_t cap = std::uint64_t{1} << 32;
  CHECK(count("n[0-18446744073709551615]", cap - 1) == cap);
  CHECK(count("a[1-100000]b[1-100000]c[1-100000]", cap - 1) == cap);
  CHECK(count("n[0-18446744073709551615]", ~std::uint64_t{0}) == ~std::uint64_t{0});
  std::uint64_t n = 7;
  vpcat::HostlistError e;
  CHECK_FALSE(vpcat::count_hostlist("a[", 10, &n, &e));
  CHECK(std::string(e.what) == "unclosed '[' at column 2");
  CHECK(e.column == 2);
}

TEST_CASE("hostlist: host names are letters, digits, '-', '.', '_'") {
  CHECK(vpcat::is_host_name("gpu-01.rack_a"));
  CHECK_FALSE(vpcat::is_host_name(""));
  CHECK_FALSE(vpcat::is_host_name("gpu 1"));
  CHECK_FALSE(vpcat::is_host_name("gpu[1]"));
  CHECK_FALSE(vpcat::is_host_name("g\xC3\xA9"));
}
