// The located-JSON front end (base/, vp/base/json_document.hpp): every
// error names file:line:col and shows the line with a caret; whole messages.
#include <doctest/doctest.h>

#include <string>

#include "vp/base/errors.hpp"
#include "vp/base/json_document.hpp"

#include "input_error.hpp"

using vp::InputError;
using vp::test::message_of;
using vp::json::Document;
using vp::json::Path;

TEST_CASE("json document: a syntax error names line and column, shows the line and a caret") {
  const std::string m = message_of([] { Document("f.json", "{\n  \"a\": [1, 2,]\n}\n"); });
  CHECK(m ==
        "f.json:2:14: malformed JSON (syntax error while parsing value - unexpected ']'; expected '[', '{', or a "
        "literal)\n"
        "  \"a\": [1, 2,]\n"
        "             ^");
}

TEST_CASE("json document: the end of the input points after the last character") {
  const std::string m = message_of([] { Document("f.json", "{\"a\": [1,\n 2\n\n"); });
  CHECK(m ==
        "f.json:2:3: malformed JSON (syntax error while parsing array - unexpected end of input; expected ']')\n"
        " 2\n"
        "  ^");
}

TEST_CASE("json document: an empty file") {
  CHECK(message_of([] { Document("f.json", " \n"); }) == "f.json:1:1: malformed JSON (the file is empty)");
}

TEST_CASE("json document: errors at a value, by path") {
  const Document d("f.json", "{\"links\": [\n  {\"id\": 0},\n  {\"id\": 1, \"capacity_gbps\": -3}\n]}\n");
  const InputError e = d.error_at({std::string("links"), std::size_t{1}, std::string("capacity_gbps")},
                                  "links[1].capacity_gbps: must be a positive number, got -3");
  CHECK(std::string(e.what()) ==
        "f.json:3:30: links[1].capacity_gbps: must be a positive number, got -3\n"
        "  {\"id\": 1, \"capacity_gbps\": -3}\n"
        "                             ^");
  CHECK(e.line() == 3);
  CHECK(e.column() == 30);
  CHECK(e.reason() == "links[1].capacity_gbps: must be a positive number, got -3");
  // A path that does not exist points at the deepest value that does.
  CHECK(d.error_at({std::string("links"), std::size_t{7}}, "x").line() == 1);
  CHECK(d.error_at({std::string("links"), std::size_t{7}}, "x").column() == 11);
  CHECK(d.source_of({std::string("links"), std::size_t{1}, std::string("capacity_gbps")}) == "-3");
  CHECK(d.source_of({std::string("links"), std::size_t{0}}) == "{\"id\": 0}");
}

TEST_CASE("json document: tabs stay tabs under the caret; long lines are cut around it") {
  const Document tabs("t.json", "{\n\t\"a\":\ttrue\n}");
  CHECK(std::string(tabs.error_at({std::string("a")}, "a: must be a number").what()) ==
        "t.json:2:7: a: must be a number\n"
        "\t\"a\":\ttrue\n"
        "\t    \t^");
  std::string wide = "[";
  for (int i = 0; i < 60; ++i) wide += "1, ";
  wide += "\"x\"";
  for (int i = 0; i < 60; ++i) wide += ", 1";
  wide += "]";
  const Document d("w.json", wide);
  const std::string m = d.error_at({std::size_t{60}}, "[60]: must be a number").what();
  CHECK(m ==
        "w.json:1:182: [60]: must be a number\n"
        "..., 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, \"x\", 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ...\n"
        "                                                     ^");
}

TEST_CASE("json document: duplicate keys, when asked") {
  const std::string text = "{\"gpus\": 2,\n \"bytes\": [],\n \"gpus\": 3}";
  CHECK(Document("d.json", text).root()["gpus"] == 3);  // by default the last one wins, as in nlohmann::json
  CHECK(message_of([&] { Document("d.json", text, {true}); }) ==
        "d.json:3:2: \"gpus\" is given twice\n"
        " \"gpus\": 3}\n"
        " ^");
  // The same key in two objects is no duplicate.
  CHECK_NOTHROW(Document("d.json", "[{\"a\": 1}, {\"a\": 2, \"b\": {\"a\": 3}}]", {true}));
}

TEST_CASE("json document: paths as text") {
  const Path p = vp::json::parse_path("node_types[0].links[12].src");
  CHECK(vp::json::format_path(p) == "node_types[0].links[12].src");
  CHECK(p.size() == 5);
  CHECK(vp::json::parse_path("document").empty());
  CHECK(vp::json::format_path({}) == "document");
}

TEST_CASE("json document: an unreadable file") {
  CHECK(message_of([] { Document::read_file("/nonexistent/f.json"); }) ==
        "/nonexistent/f.json: cannot read the file (No such file or directory)");
  CHECK(message_of([] { Document::read_file("/"); }) == "/: cannot read the file (Is a directory)");
}
