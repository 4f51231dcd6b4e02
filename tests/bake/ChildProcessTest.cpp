// detail::RunInChildProcess: a child's result, error, crash, memory limit and CPU-time limit each come back as
// documented (the memory limit through RLIMIT_AS, or in sanitizer builds through the allocator's hooks).
#include "../../plugin/bake/ChildProcess.h"

#include <bdt/core/base/Error.h>
#include <chrono>
#include <csignal>
#include <gtest/gtest.h>
#include <string>
#include <vector>

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

// A child that allocates past its memory limit, in many blocks or in one, or more than the machine can map, gets
// the limit's one-line error, not a crash.
TEST(ChildProcess, TheMemoryLimitEndsAnAllocatingChildWithItsError)
{
    detail::ChildLimits limits;
    limits.memoryBytes = std::uint64_t(64) << 20;
    const std::string expected = "the reader ran out of its memory limit (64 MiB)";
    EXPECT_EQ(ErrorOf(
                  []
                  {
                      std::vector<std::vector<std::uint8_t>> blocks;
                      for (int i = 0; i < 64; ++i)
                          blocks.emplace_back(std::size_t(4) << 20, std::uint8_t(i));
                      return std::vector<std::uint8_t>{blocks.back().back()};
                  },
                  limits),
              expected);
    EXPECT_EQ(ErrorOf(
                  []
                  {
                      std::vector<std::uint8_t> block(std::size_t(1) << 30, 1);
                      return std::vector<std::uint8_t>{block.back()};
                  },
                  limits),
              expected);
    // 4 TiB: more than the sanitizers' allocators serve and than any address-space limit allows.
    EXPECT_EQ(ErrorOf(
                  []
                  {
                      std::vector<std::uint8_t> block(std::size_t(1) << 42, 1);
                      return std::vector<std::uint8_t>{block.back()};
                  },
                  limits),
              expected);
    // Within the limit the work's result comes back.
    EXPECT_EQ(detail::RunInChildProcess(
                  []
                  {
                      std::vector<std::uint8_t> block(std::size_t(16) << 20, 7);
                      return std::vector<std::uint8_t>{block.back()};
                  },
                  60.0, limits),
              (std::vector<std::uint8_t>{7}));
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
