#pragma once

#include <LinearMath/btScalar.h>
#include <LinearMath/btVector3.h>

class btCollisionObject;
class btCollisionWorld;
class btRigidBody;

namespace bdt::detail
{

/// Where a swept sphere first hit something (`SweepSphere`).
struct SweepHit
{
    btScalar fraction = 1;                      ///< Of the way from the start, in [0, 1]; 1: no hit.
    btVector3 normal{0, 0, 0};                  ///< World, out of the object hit, towards the sphere.
    const btCollisionObject* object = nullptr; ///< The object hit; null if none.
};

/// Continuous collision detection for a body that moved far in one step (`WorldSettings::sweepFastBodies`):
/// a sphere of `inRadius` (m, about the body's centre of mass) is swept through `ioWorld` from `inFrom` to `inTo` (world
/// positions of its centre of mass at the step's start and end). Returns the first hit on another object
/// that responds to contacts, while the sphere moves into it: relative to it, the other body's velocity times
/// `inTimeStep` (s) counting as its motion. Bullet casts the sphere at every object but deformable bodies;
/// those the sweep meets in the broadphase are cast against at their contact proxies (§3.4: balls that hold
/// their surface, found by a tree descent in the swept box; Bullet would cast at each of their triangles there,
/// thousands in a pile), a ball-against-ball time of impact each. Hits on `inBody`
/// itself, on objects without contact response or that the body's collision filter excludes, on surfaces the
/// sphere is leaving, and on objects it already touches at the start unless it moves into them by more than
/// `inStartApproach` (m) in the step are ignored. Bullet's own CCD (`btRigidBody::setCcdMotionThreshold`)
/// clamps convex bodies only; a deformable body's shape is concave to Bullet. Serial: calls into Bullet and
/// updates the other deformables' spheres.
SweepHit SweepSphere(btCollisionWorld& ioWorld, const btRigidBody& inBody, const btVector3& inFrom, const btVector3& inTo,
                  btScalar inRadius, btScalar inTimeStep, btScalar inStartApproach);

} // namespace bdt::detail
