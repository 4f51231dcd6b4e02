#pragma once

namespace bdt
{

/// Options of `World`, which throws `bdt::Error` on one out of range. Tuning: docs/TUNING.md#worldsettings.
struct WorldSettings
{
    /// Drive the modes by the frame's acceleration and gravity (`InertialForce`), besides contact impulses.
    bool inertialForcing = true;
    /// A body stays awake while its modes' kinetic energy per kg is above this (J/kg, finite, ≥ 0). The
    /// default, ½·(0.1 m/s)², is a surface vibrating at 10 cm/s rms. A sleeping body's modes still ring down.
    double wakeEnergyPerKg = 5e-3;
    /// The contact's restitution also stops the normal part of the modes' surface velocity at each contact that
    /// pushed (post-tick, after the coupled solve): a model choice, off by default.
    bool modalContactConstraint = false;
    /// Gauss-Seidel sweeps (≥ 0; 0 turns it off) re-solving the normal impulses of vibrating bodies' contacts
    /// and attachments with their coupling through shared modes, after Bullet's solve; stops early once no gap
    /// changes by more than `coupledTolerance` (m, ≥ 0). About (M + 20) flops per point and sweep.
    int coupledSweeps = 16;
    double coupledTolerance = 1e-6;
    /// With a `ParallelDispatcher` of two threads or more, the read-back walks the manifolds on two threads
    /// from this many manifolds on (the same results, bit for bit). Sensible values are 512 to 4096.
    int parallelReadBackManifolds = 1024;
    /// Continuous collision detection: a body whose centre of mass moved farther in a step than
    /// `sweepTravelFraction` of its bounding radius has its bounding sphere swept along the step, is put back
    /// where it first hit, and gets the skipped impact's impulse. One sphere sweep per fast body and step.
    bool sweepFastBodies = true;
    /// How far (a fraction of the body's bounding radius) its centre must move in a step to be swept, > 0.
    double sweepTravelFraction = 0.25;
    /// The state guard's speed limits (m/s, rad/s; finite, > 0), Jolt's defaults: faster velocities, and forces
    /// or torques that would exceed them within a step, are scaled down before the solve.
    double maxLinearSpeed = 500.0;
    double maxAngularSpeed = 0.25 * 3.14159265358979323846 * 60.0;
};

} // namespace bdt
