#pragma once

// The message of a bdt::Error, for the bad-input tests.

#include <bdt/core/base/Error.h>
#include <string>

namespace bdt::test
{

/// The message of the `bdt::Error` that `inCall()` throws, or "" when it throws none. Other exceptions
/// propagate (and fail the test).
template <class Call> std::string ErrorOf(const Call& inCall)
{
    try
    {
        inCall();
    }
    catch (const Error& error)
    {
        return error.what();
    }
    return "";
}

} // namespace bdt::test
