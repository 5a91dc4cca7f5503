// A counting global operator new, for the tests that prove a call allocates
// nothing. Link tests/counting_new.cpp into the binary: it replaces every
// form of operator new and delete (the planner's ::operator new(size,
// nothrow) included) with malloc/free plus a counter.
#pragma once

namespace vp::test {

// Calls of any operator new so far, in this process.
long allocation_count() noexcept;

}  // namespace vp::test
