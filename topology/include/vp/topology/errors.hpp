// The analyzer's errors are the shared ones (base/include/vp/base/errors.hpp):
// vp::InputError, vp::UsageError and vp::ExitCode, kept under this name for
// the analyzer's sources.
#pragma once

#include "vp/base/errors.hpp"
