#pragma once

// The hidden OpenGL context of the GL tests. Without a display the tests are skipped with the reason, unless
// BDT_REQUIRE_GL is set (as ctest sets it: CI must have a context, Xvfb with Mesa's llvmpipe).

#include "render/GlContext.h"

#include <gtest/gtest.h>
#include <memory>
#include <string>

namespace bdt::demo::test
{

/// The process's context, made on first use (64 × 64, hidden); null with `outReason` when none can be made.
GlContext* SharedGlContext(std::string& outReason);

/// True when a context is required rather than optional (BDT_REQUIRE_GL set and not "0").
bool GlRequired();

} // namespace bdt::demo::test

/// In a test body: the shared context, or skip (fail when required) with the reason.
#define BDT_REQUIRE_GL_CONTEXT()                                                                             \
    do                                                                                                       \
    {                                                                                                        \
        std::string glReason;                                                                                \
        if (::bdt::demo::test::SharedGlContext(glReason) == nullptr)                                         \
        {                                                                                                    \
            if (::bdt::demo::test::GlRequired())                                                             \
                FAIL() << "no OpenGL context though BDT_REQUIRE_GL is set: " << glReason;                    \
            GTEST_SKIP() << "no OpenGL context (" << glReason << "); run under xvfb-run";                    \
        }                                                                                                    \
    } while (false)
