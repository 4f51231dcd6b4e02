#pragma once

// How far the narrowphase looks for a pair's contacts in a step: Bullet's contact breaking threshold τ, or
// less when the pair's surfaces cannot close that much over the step. Private to plugin/bullet.

class btCollisionObject;

namespace bdt
{

/// An upper bound, m/s, on how fast any point of `inObject`'s collision surface (margin included) can move
/// in world over the coming step of `inTimeStep` seconds: 0 for a static object (Bullet's
/// CF_STATIC_OBJECT, which bodies of zero mass and plain collision objects have by default); for a dynamic
/// `btRigidBody`, |v| + |F|·h/m + (|ω| + |I⁻¹τ|·h)·r, with v, ω its velocities, F, τ the force and torque
/// it has accumulated for the step (gravity included), r the surface's reach from its centre of mass
/// (`DeformableShape::SurfaceReach`, else Bullet's angular motion disc), plus the modes' own surface speed
/// for a deformable (`DeformableShape::ModalSurfaceSpeed`); +∞ for anything whose motion is not known ahead
/// (kinematic bodies, plain collision objects that are not static, non-finite values). The contacts of the
/// step change velocities too: `ContactSearchDistance` leaves room for that. Serial (it calls into Bullet).
double SurfaceSpeedBound(const btCollisionObject& inObject, double inTimeStep);

/// The distance within which a pair's contacts are searched this step: min(τ, max(f·τ, 2·h·(s_A + s_B))),
/// τ = `inThreshold` (the pair's contact breaking threshold), h = `inTimeStep`, s the bodies'
/// `SurfaceSpeedBound`, f = `cSearchFloor`. A contact farther apart than the surfaces can close over two
/// steps at their current speeds gets no impulse from the solver (a speculative contact only stops an
/// approach that would pass it within the step), yet costs sphere tests, contact reduction and solver rows:
/// in a settling pile most of τ is such distance. The factor 2 leaves room for the speed the step's contacts
/// add; the floor f·τ finds the contacts a body falls onto from rest a step ahead. The narrowphase searches
/// at least as far as the points a pair already holds (`DeformableCollisionAlgorithm`), so a resting
/// body's supports are kept, not dropped and found again. τ itself when h is not positive and finite
/// (collision detection without a dynamics step).
double ContactSearchDistance(double inThreshold, double inTimeStep, const btCollisionObject& inA,
                             const btCollisionObject& inB);

/// The floor of `ContactSearchDistance`, a fraction of τ.
inline constexpr double cSearchFloor = 0.1;

} // namespace bdt
