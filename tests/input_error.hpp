// What a call that should fail threw, for tests that compare messages: the
// one family of helpers every suite uses (the JSON front end, the typed
// fields, the importers, the cluster reader, the catalog writer and
// reader...), with one sentinel, kNoError, for a call that threw nothing, so
// a test that expects an error and gets none fails with the same words
// everywhere.
//
//   CHECK(message_of([&] { Document("f.json", " \n"); }) == "f.json:1:1: malformed JSON (the file is empty)");
//   CHECK(message_of<CatalogError>([&] { write_catalog(c); }) == "...");
//   CHECK(place_and_reason_of([&] { import_json("d.json", text, {}); }) == "d.json:3: ...");
//   const InputError e = input_error_of([&] { parse_measurement("m.txt", text); });
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "vp/base/errors.hpp"

namespace vp::test {

// What the helpers return when the call throws nothing.
inline const std::string kNoError = "(no error)";

// The message (what()) of the E that `f` throws; kNoError when none.
template <typename E = InputError, typename F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return kNoError;
}

// "FILE:LINE: REASON" of the InputError that `f` throws: the place without
// the column and the line with its caret that the JSON front end adds (those
// are json_document_test's, and whole messages cli_test's); kNoError when none.
template <typename F>
std::string place_and_reason_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return source_place(e.file(), e.line()) + ": " + e.reason();
  }
  return kNoError;
}

// The reason alone ("PATH: what"); kNoError when none.
template <typename F>
std::string reason_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.reason();
  }
  return kNoError;
}

// The InputError that `f` throws, for a test that checks its fields (file,
// line, reason); a failed check, and an error whose reason is kNoError, when
// none.
template <typename F>
InputError input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  FAIL_CHECK(kNoError);
  return InputError("", 0, kNoError);
}

}  // namespace vp::test
