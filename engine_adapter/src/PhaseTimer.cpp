#include "PhaseTimer.h"

#include <LinearMath/btQuickprof.h>
#include <chrono>
#include <cstring>

namespace bdt::detail
{

namespace
{

using Clock = std::chrono::steady_clock;

// Profile zones nest; only the outermost instances of the two phases are timed. Bullet passes string
// literals, so a zone is recognised by its name's text.
struct TimerState
{
    int users = 0;
    btEnterProfileZoneFunc* previousEnter = nullptr;
    btLeaveProfileZoneFunc* previousLeave = nullptr;
    static constexpr int cMaxDepth = 64;
    const char* names[cMaxDepth] = {};
    Clock::time_point starts[cMaxDepth];
    int depth = 0;
    PhaseTimes times;
};

TimerState sTimer;

double* Accumulator(const char* inName)
{
    if (std::strcmp(inName, "performDiscreteCollisionDetection") == 0)
        return &sTimer.times.collision;
    if (std::strcmp(inName, "solveConstraints") == 0)
        return &sTimer.times.solver;
    if (std::strcmp(inName, "dispatchAllCollisionPairs") == 0)
        return &sTimer.times.narrowphase;
    return nullptr;
}

void Enter(const char* inName)
{
    if (sTimer.depth < TimerState::cMaxDepth)
    {
        sTimer.names[sTimer.depth] = inName;
        if (inName != nullptr && Accumulator(inName) != nullptr)
            sTimer.starts[sTimer.depth] = Clock::now();
    }
    ++sTimer.depth;
    if (sTimer.previousEnter != nullptr)
        sTimer.previousEnter(inName);
}

void Leave()
{
    if (sTimer.depth > 0)
    {
        --sTimer.depth;
        if (sTimer.depth < TimerState::cMaxDepth)
        {
            const char* name = sTimer.names[sTimer.depth];
            if (double* accumulator = name != nullptr ? Accumulator(name) : nullptr)
                *accumulator +=
                    std::chrono::duration<double, std::milli>(Clock::now() - sTimer.starts[sTimer.depth])
                        .count();
        }
    }
    if (sTimer.previousLeave != nullptr)
        sTimer.previousLeave();
}

} // namespace

void AcquirePhaseTimer()
{
    if (sTimer.users++ > 0)
        return;
    sTimer.previousEnter = btGetCurrentEnterProfileZoneFunc();
    sTimer.previousLeave = btGetCurrentLeaveProfileZoneFunc();
    btSetCustomEnterProfileZoneFunc(&Enter);
    btSetCustomLeaveProfileZoneFunc(&Leave);
}

void ReleasePhaseTimer()
{
    if (sTimer.users == 0 || --sTimer.users > 0)
        return;
    btSetCustomEnterProfileZoneFunc(sTimer.previousEnter);
    btSetCustomLeaveProfileZoneFunc(sTimer.previousLeave);
    sTimer.depth = 0;
}

PhaseTimes TakePhaseTimes()
{
    const PhaseTimes times = sTimer.times;
    sTimer.times = {};
    return times;
}

} // namespace bdt::detail
