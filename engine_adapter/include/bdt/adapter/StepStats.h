#pragma once

#include <bdt/core/Contact.h>
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
    /// Guards (totals since attaching): strain- and speed-limit clamps of the modes, ignored non-finite impulses
    /// or forces on them, and modal resets (`ModalGuardStats`, summed over the bodies).
    std::uint64_t clamped = 0, rejected = 0, modalResets = 0;
    /// The state guard (totals since attaching; see `World`): bodies put back at their last good transform
    /// (a non-finite transform, or a basis far from a rotation), and values brought back in range on a body
    /// left where it was (a velocity, force, torque, gravity or mass property not finite or beyond the speed
    /// limits, a basis slightly off a rotation).
    std::uint64_t transformResets = 0, stateRepairs = 0;
    /// Times the plugin found that the host had replaced one of its tick callbacks and put its own back, now
    /// chaining the host's (see `World`).
    std::uint64_t callbackRepairs = 0;
    /// Fast bodies swept in the last step (`WorldSettings::sweepFastBodies`), and the total since attaching put
    /// back where their core hit something.
    std::uint64_t sweeps = 0, sweepStops = 0;
    /// Milliseconds in the last step: the modal pre-tick, Bullet's collision detection (broadphase and
    /// narrowphase), its solver, and the post-solve impulse read-back. Bullet's phases are timed through
    /// its profile-zone hooks, so they read 0 if another profiler replaced the hooks.
    double preTickMs = 0.0, collisionMs = 0.0, solverMs = 0.0, postSolveMs = 0.0;
    /// Of `collisionMs`, Bullet's pass over the overlapping pairs (the narrowphase, threads included); the rest
    /// is the broadphase and the bounding boxes.
    double narrowphaseMs = 0.0;
    /// The last step's narrowphase of the deformable bodies, stage by stage (its times are processor time
    /// summed over the narrowphase's threads).
    NarrowphaseStats narrowphase;
};

} // namespace bdt
