// The message of the vp::InputError a call throws, for tests that compare
// whole messages (the JSON front end and its typed fields).
#pragma once

#include <string>

#include "vp/base/errors.hpp"

namespace vp::test {

// The message of the InputError that `f` throws ("" when none).
template <typename F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace vp::test
