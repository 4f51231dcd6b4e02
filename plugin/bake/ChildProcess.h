#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace bdt::detail
{

/// What the child of `RunInChildProcess` may use, beyond what it inherits.
struct ChildLimits
{
    /// Address space (bytes) the child may add to what it has at the fork (`RLIMIT_AS`); 0: no limit. An
    /// allocation beyond it fails (std::bad_alloc), which is reported as running out of the limit. In sanitizer
    /// builds, whose runtimes map shadow memory the limit would refuse, the sanitizer's allocator hooks count the
    /// heap bytes the child holds instead, and past the limit (or when the sanitizer's allocator itself runs out)
    /// the child reports the same error.
    std::uint64_t memoryBytes = 0;
    /// CPU seconds (`RLIMIT_CPU`; 0: no limit), besides the wall-clock timeout.
    double cpuSeconds = 0.0;
};

/// Runs `inWork` in a forked child process and returns the bytes it returned. What the child does cannot
/// harm the caller: a `bdt::Error` thrown there is rethrown here with the same message; a crash, an abort or
/// any other exception becomes a `bdt::Error` saying how the child ended ("crashed (SIGSEGV)"); a child still
/// running after `inTimeoutSeconds` is killed and reported, as is one that runs out of `inLimits`. For
/// third-party parsers that are not safe on
/// hostile input (Assimp, see `ImportSettings::isolateReader`). POSIX; the child runs only `inWork` and then
/// `_exit`s (no atexit handlers, no leak checks), with the default action for fatal signals so that a
/// crash ends it rather than the caller's crash handler. Cost: a fork (about a millisecond) plus the bytes'
/// copy through a pipe. Serial: the calling thread blocks until the child has ended.
std::vector<std::uint8_t> RunInChildProcess(const std::function<std::vector<std::uint8_t>()>& inWork,
                                            double inTimeoutSeconds, const ChildLimits& inLimits = {});

} // namespace bdt::detail
