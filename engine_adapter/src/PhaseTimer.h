#pragma once

// Times Bullet's own simulation phases through its profile-zone hooks (btSetCustomEnterProfileZoneFunc /
// btSetCustomLeaveProfileZoneFunc, LinearMath/btQuickprof.h), private to the engine adapter.

namespace bdt::detail
{

/// Milliseconds spent in Bullet's phases since the last `TakePhaseTimes`.
struct PhaseTimes
{
    double collision = 0.0; ///< performDiscreteCollisionDetection: AABB update, broadphase, narrowphase.
    double solver = 0.0;    ///< solveConstraints.
    double narrowphase = 0.0; ///< dispatchAllCollisionPairs: the narrowphase, inside `collision`.
};

/// Installs the hooks (once per process; they chain to the hooks that were there) and keeps them while at
/// least one World is alive. Single-threaded, as Bullet is.
void AcquirePhaseTimer();
void ReleasePhaseTimer();
/// The times accumulated since the last call, then resets them.
PhaseTimes TakePhaseTimes();

} // namespace bdt::detail
