#pragma once

#include <bdt/core/geometry/Contact.h>
#include <cstdint>

namespace bdt
{

/// What the last simulation step did, summed over the attached bodies.
struct StepStats
{
    std::uint64_t steps = 0;          ///< Internal steps since attaching.
    std::uint64_t spheresUpdated = 0; ///< BD-Tree sphere updates (8M flops each) in the last step.
    std::uint64_t overlapTests = 0;   ///< Sphere overlap tests of the narrowphase in the last step.
    std::uint64_t contacts = 0;       ///< Contact points in manifolds of deformable bodies after the solve.
    std::uint64_t manifolds = 0;      ///< Those manifolds.
    double vibrationEnergy = 0.0;     ///< Σ modal energy (J) after the step.
    /// Modal guards, totals since attaching (`ModalGuardStats`): clamps, rejected impulses, resets.
    std::uint64_t clamped = 0, rejected = 0, modalResets = 0;
    /// The state guard, totals since attaching (docs/ROBUSTNESS.md): bodies put back at their last good
    /// transform, and bodies left in place with a value brought back in range.
    std::uint64_t transformResets = 0, stateRepairs = 0;
    /// Times the plugin put back a tick callback that the host had replaced, now chaining the host's.
    std::uint64_t callbackRepairs = 0;
    /// Fast bodies swept in the last step (`WorldSettings::sweepFastBodies`); total of them put back on a hit.
    std::uint64_t sweeps = 0, sweepStops = 0;
    /// Milliseconds in the last step: the pre-tick (guard, predictions), Bullet's collision detection, its
    /// solver, the post-solve (coupled solve, read-back, modal step).
    /// Bullet's phases read 0 if another profiler replaced its profile-zone hooks.
    double preTickMs = 0.0, collisionMs = 0.0, solverMs = 0.0, postSolveMs = 0.0;
    /// Of `collisionMs`, the narrowphase (threads included); the rest is the broadphase and bounding boxes.
    double narrowphaseMs = 0.0;
    /// The deformable bodies' last narrowphase, stage by stage (processor time summed over its threads).
    NarrowphaseStats narrowphase;
};

} // namespace bdt
