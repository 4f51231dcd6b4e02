#pragma once

// A stopwatch for the narrowphase's stage times (`NarrowphaseStats`). Private to plugin/bullet.

#include <chrono>

namespace bdt
{

/// Milliseconds between laps of the steady clock: about 20 ns a lap, so it times a pair's stages, not a
/// feature test.
class StageTimer
{
public:
    StageTimer() : mStart(Clock::now()) {}

    /// Milliseconds since the timer was made or last lapped; starts the next lap.
    double Lap()
    {
        const Clock::time_point now = Clock::now();
        const double ms = std::chrono::duration<double, std::milli>(now - mStart).count();
        mStart = now;
        return ms;
    }

private:
    using Clock = std::chrono::steady_clock;
    Clock::time_point mStart;
};

} // namespace bdt
