// The typed field reads of base/ (vp/base/json_field.hpp) that every JSON
// reader uses: each wrong type, missing key and unknown key is an
// InputError at the value's line and column, naming its path; whole
// messages.
#include <doctest/doctest.h>

#include <string>

#include "vp/base/errors.hpp"
#include "vp/base/json_document.hpp"
#include "vp/base/json_field.hpp"

#include "input_error.hpp"

using vp::test::message_of;
using vp::json::Document;
using vp::json::Field;

namespace {

const char* const kText = "{\"name\": \"a\",\n \"size\": 4,\n \"rates\": [1.5, \"x\", -2],\n \"on\": true}\n";

}  // namespace

TEST_CASE("json field: typed reads of valid values") {
  const Document doc("f.json", kText);
  const Field root(doc);
  CHECK(root.name() == "document");
  CHECK(root.at("name").text() == "a");
  CHECK(root.at("size").u32() == 4);
  CHECK(root.at("size").integer(1, 4) == 4);
  CHECK(root.at("on").boolean());
  CHECK(root.at("rates").size() == 3);
  CHECK(root.at("rates").at(0).number() == 1.5);
  CHECK(root.at("rates").at(0).name() == "rates[0]");
  CHECK(root.at("rates").at(2).number_in(-2, 0) == -2);
  CHECK_FALSE(root.find("absent").has_value());
  CHECK(root.has("size"));
  CHECK(root.members().size() == 4);
  CHECK(root.members()[2].second.name() == "rates");
  root.allow_keys({"name", "size", "rates", "on"});
  root.require_keys({"name", "size", "rates", "on"});
}

TEST_CASE("json field: a wrong type names the path and the value, at its line and column") {
  const Document doc("f.json", kText);
  const Field root(doc);
  CHECK(message_of([&] { root.at("rates").at(1).number(); }) ==
        "f.json:3:17: rates[1]: must be a number, got \"x\"\n"
        " \"rates\": [1.5, \"x\", -2],\n"
        "                ^");
  CHECK(message_of([&] { root.at("name").u64(); }) ==
        "f.json:1:10: name: must be a non-negative integer, got \"a\"\n"
        "{\"name\": \"a\",\n"
        "         ^");
  CHECK(message_of([&] { root.at("size").integer(5, 9); }).rfind("f.json:2:10: size: must be an integer from 5 to 9, got 4\n", 0) == 0);
  CHECK(message_of([&] { root.at("rates").at(2).number_in(0); }).rfind(
            "f.json:3:22: rates[2]: must be a finite number >= 0, got -2\n", 0) == 0);
  CHECK(message_of([&] { root.at("rates").at(0).number_in(0, 1, true); }).rfind(
            "f.json:3:12: rates[0]: must be a finite number > 0 and <= 1, got 1.5\n", 0) == 0);
  CHECK(message_of([&] { root.at("on").text(); }).rfind("f.json:4:8: on: must be a string, got true\n", 0) == 0);
  CHECK(message_of([&] { root.at("size").boolean(); }).rfind("f.json:2:10: size: must be true or false, got 4\n", 0) == 0);
  CHECK(message_of([&] { root.at("size").at("x"); }).rfind("f.json:2:10: size: must be an object, got 4\n", 0) == 0);
  CHECK(message_of([&] { root.at("name").size(); }).rfind("f.json:1:10: name: must be an array, got \"a\"\n", 0) == 0);
  CHECK(message_of([&] { root.at("rates").items(2, "two rates"); })
            .rfind("f.json:3:11: rates: has 3 entries, more than the limit of 2 (two rates)\n", 0) == 0);
}

TEST_CASE("json field: a missing key is shown at its object, an unknown key at its value") {
  const Document doc("f.json", kText);
  const Field root(doc);
  CHECK(message_of([&] { root.at("colour"); }) ==
        "f.json:1:1: document: missing key \"colour\"\n"
        "{\"name\": \"a\",\n"
        "^");
  CHECK(message_of([&] { root.require_keys({"name", "size", "rates", "on", "colour"}); })
            .rfind("f.json:1:1: document: missing key \"colour\"\n", 0) == 0);
  CHECK(message_of([&] { root.allow_keys({"name", "size", "on"}); }) ==
        "f.json:3:11: document: unknown key \"rates\" (expected \"name\", \"size\" or \"on\")\n"
        " \"rates\": [1.5, \"x\", -2],\n"
        "          ^");
}

TEST_CASE("json field: a tree without text names its origin, no line") {
  const vp::json::Json j = vp::json::Json::parse(R"({"a": [1, "b"]})");
  const std::string origin = "mirror";
  const Field root(j, origin);
  CHECK(message_of([&] { root.at("a").at(1).u32(); }) == "mirror: a[1]: must be a non-negative integer, got \"b\"");
  CHECK(message_of([&] { root.at("a").at(0).u32(); }) == vp::test::kNoError);
  CHECK(message_of([&] { root.at("a").at(2); }) == "mirror: a: has no element 2 (2 elements)");
}

TEST_CASE("json field: long values are cut in messages; invalid UTF-8 in a tree is no crash") {
  const vp::json::Json j = {{"s", std::string(100, 'x')}, {"bad", std::string("\xff")}};
  const std::string origin = "t";
  const Field root(j, origin);
  CHECK(message_of([&] { root.at("s").number(); }) ==
        "t: s: must be a number, got \"" + std::string(35, 'x') + "...\"");
  CHECK(message_of([&] { root.at("bad").number(); }) != vp::test::kNoError);
}
