#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace bdt::detail
{

/// Runs `inWork` in a forked child process and returns the bytes it returned. What the child does cannot
/// harm the caller: a `bdt::Error` thrown there is rethrown here with the same message; a crash, an abort or
/// any other exception becomes a `bdt::Error` saying how the child ended ("crashed (SIGSEGV)"); a child still
/// running after `inTimeoutSeconds` is killed and reported. For third-party parsers that are not safe on
/// hostile input (Assimp, see `ImportSettings::isolateReader`). POSIX; the child runs only `inWork` and then
/// `_exit`s (no atexit handlers, no leak checks), with the default action for fatal signals so that a
/// crash ends it rather than the caller's crash handler. Cost: a fork (about a millisecond) plus the bytes'
/// copy through a pipe. Serial: the calling thread blocks until the child has ended.
std::vector<std::uint8_t> RunInChildProcess(const std::function<std::vector<std::uint8_t>()>& inWork,
                                            double inTimeoutSeconds);

} // namespace bdt::detail
