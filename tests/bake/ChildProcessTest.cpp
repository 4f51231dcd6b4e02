// detail::RunInChildProcess: a child's result, error, crash and CPU-time limit each come back as documented.
#include "../../plugin/bake/ChildProcess.h"

#include <bdt/core/Error.h>
#include <chrono>
#include <csignal>
#include <gtest/gtest.h>
#include <string>

namespace bdt
{
namespace
{

std::string ErrorOf(const std::function<std::vector<std::uint8_t>()>& inWork, const detail::ChildLimits& inLimits = {})
{
    try
    {
        detail::RunInChildProcess(inWork, 60.0, inLimits);
    }
    catch (const Error& error)
    {
        return error.what();
    }
    return "";
}

TEST(ChildProcess, ResultsErrorsAndCrashesComeBack)
{
    EXPECT_EQ(detail::RunInChildProcess([] { return std::vector<std::uint8_t>{1, 2, 3}; }, 60.0),
              (std::vector<std::uint8_t>{1, 2, 3}));
    EXPECT_EQ(ErrorOf([]() -> std::vector<std::uint8_t> { throw Error("bad header"); }), "bad header");
    EXPECT_EQ(ErrorOf([]() -> std::vector<std::uint8_t> { std::raise(SIGSEGV); return {}; }),
              "the reader crashed (SIGSEGV)");
}

// A child busy for longer than its CPU limit is ended by it, and reported, within about the limit.
TEST(ChildProcess, TheCpuTimeLimitEndsABusyChild)
{
    detail::ChildLimits limits;
    limits.cpuSeconds = 1.0;
    const auto start = std::chrono::steady_clock::now();
    const std::string error = ErrorOf(
        []
        {
            volatile double sink = 0.0;
            const auto begin = std::chrono::steady_clock::now();
            while (std::chrono::steady_clock::now() - begin < std::chrono::seconds(30))
                sink = sink + 1.0;
            return std::vector<std::uint8_t>{};
        },
        limits);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(error, "the reader ran out of its CPU time limit (1 s)");
    EXPECT_LT(seconds, 10.0);
}

} // namespace
} // namespace bdt
