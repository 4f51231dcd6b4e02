#pragma once

namespace bdt
{

/// Options of `World`.
struct WorldSettings
{
    /// Drive the modes by the frame's acceleration and gravity (`InertialForce`), besides contact impulses.
    bool inertialForcing = true;
    /// While the kinetic energy of a body's modes per kg is above this (J/kg), it is kept awake. The default,
    /// ½·(0.1 m/s)², is a surface vibrating at 10 cm/s rms, an eighth of Bullet's default linear sleeping
    /// threshold (0.8 m/s): Bullet counts frames moving that slowly as at rest, and the residual jitter it
    /// leaves a pile with rings the modes to about a fifth of this, so a much lower threshold keeps awake for
    /// good a pile Bullet would put to sleep. Sleep does not freeze a vibration (a sleeping body's modes ring
    /// down, see `World`), so this only decides when vibration is motion.
    double wakeEnergyPerKg = 5e-3;
    /// The contact's restitution also acts on the normal component of the modes' part of the surface velocity
    /// at each contact that pushed (World's post-tick, after the coupled solve): a model choice (the contact is
    /// inelastic for the whole surface, not for the frame alone). Off by default: the coupled solve
    /// (`coupledSweeps`) already holds each contact at the gap the modes really give at the step's end, frame and
    /// modes together, and a change of q̇ after it is one the prediction did not make.
    bool modalContactConstraint = false;
    /// After Bullet's solve, the normal impulses of the contacts of vibrating bodies are solved once more with
    /// the coupling of the contacts through the modes they share (`detail::CoupledContactSolver`): Bullet's
    /// solver can only see each contact's own modal give, and a body resting on many contacts that load the same
    /// modes would otherwise pump them. The attachments (`World::Attach`) are solved in the same sweeps, three
    /// rows each. At most this many Gauss-Seidel sweeps (0 turns it off), fewer once no gap
    /// changes by more than `coupledTolerance` (m) in a sweep. Costs about (M + 20) flops per point and sweep.
    int coupledSweeps = 16;
    double coupledTolerance = 1e-6;
    /// With a `ParallelDispatcher` of two threads or more, the post-solve read-back walks the manifolds on two
    /// threads at once (the same results, bit for bit) when there are at least this many; below, starting the
    /// thread costs more than it saves. Sensible values are 512 to 4096 (a 100-body pile has a few hundred
    /// manifolds, a 3600-body one tens of thousands).
    int parallelReadBackManifolds = 1024;
    /// Continuous collision detection for fast bodies: a body whose centre of mass moved farther in a step
    /// than `sweepTravelFraction` of its bounding radius has the sphere about its centre of mass that holds
    /// its whole surface (`DeformableShape::SurfaceReach`) swept along the step's path. Where that sphere first
    /// touched something it was moving into (any object that responds to contacts, other deformable bodies at
    /// their contact proxies; not what it already touched at the step's start unless it moves into it by more
    /// than the travel threshold below), the body is put back (no part of it is in what was hit), and the
    /// impact the step skipped is applied: an impulse along the hit's normal through the centres of mass with
    /// the contact's restitution, which stops (or bounces) the approach and keeps momentum; the next steps'
    /// contacts do the rest. Bullet's own CCD clamps convex bodies only. Without it a thrown body crosses a
    /// thin floor or wall in one step: at 60 Hz, a 1 m box at more than 7.5 m/s. The price is the sphere's
    /// approximation of the fast body's side: one that only grazes something may be stopped as if it hit.
    /// Costs one sphere sweep per fast body and step, none at rest.
    bool sweepFastBodies = true;
    /// How far (a fraction of the body's bounding radius) its centre must move in a step to be swept, > 0.
    double sweepTravelFraction = 0.25;
    /// The state guard's speed limits for deformable bodies (m/s, rad/s; finite, > 0), Jolt Physics' defaults:
    /// before Bullet's solver sees a body, a faster linear or angular velocity is scaled down to them, and a
    /// force or torque that would add more than them within the step is scaled down too (`World`, the state
    /// guard). They keep a huge value (1e30) from overflowing the solver's floats in the bodies it touches.
    double maxLinearSpeed = 500.0;
    double maxAngularSpeed = 0.25 * 3.14159265358979323846 * 60.0;
};

} // namespace bdt
