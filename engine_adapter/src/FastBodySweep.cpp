#include "FastBodySweep.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/queries/TreeQueries.h>

#include <cmath>
#include <vector>

namespace bdt::detail
{

namespace
{

/// Whether a hit with normal `inNormal` (out of the object, towards the sphere) at `inFraction` of the way
/// counts: the sphere moves into the object (relative to its motion over the step), and, for an object it
/// already touches at the start, by more than `inStartApproach`.
bool CountsAsHit(const btVector3& inNormal, const btVector3& inRelativeMotion, btScalar inFraction,
                 btScalar inStartApproach)
{
    const btScalar approach = -inNormal.dot(inRelativeMotion);
    if (!(approach > btScalar(0)))
        return false;
    // Already touching at the start (a body resting or sliding on the floor): the contacts handle a slow
    // approach; only one deeper than the threshold in the step counts (a resting body struck at speed).
    return inFraction > btScalar(0) || approach > inStartApproach;
}

/// The closest hit of the swept sphere on an object that is not a deformable body (Bullet casts it against
/// the object's shape); the deformable bodies it meets in the broadphase are listed for `SweepSphere`.
class SphereSweepCallback : public btCollisionWorld::ClosestConvexResultCallback
{
public:
    SphereSweepCallback(const btRigidBody& inBody, const btVector3& inFrom, const btVector3& inTo, btScalar inTimeStep,
                        btScalar inStartApproach)
        : ClosestConvexResultCallback(inFrom, inTo), mBody(inBody), mMotion(inTo - inFrom), mTimeStep(inTimeStep),
          mStartApproach(inStartApproach)
    {
        const btBroadphaseProxy* proxy = inBody.getBroadphaseHandle();
        m_collisionFilterGroup = proxy != nullptr ? proxy->m_collisionFilterGroup : btBroadphaseProxy::DefaultFilter;
        m_collisionFilterMask = proxy != nullptr ? proxy->m_collisionFilterMask : btBroadphaseProxy::AllFilter;
    }

    bool needsCollision(btBroadphaseProxy* inProxy) const override
    {
        const auto* object = static_cast<const btCollisionObject*>(inProxy->m_clientObject);
        if (object == &mBody || !object->hasContactResponse() || !ClosestConvexResultCallback::needsCollision(inProxy))
            return false;
        // The body's own filter may exclude the other (constraints with disabled collisions do so through
        // checkCollideWith).
        if (!mBody.checkCollideWith(object) || !object->checkCollideWith(&mBody))
            return false;
        // Deformable bodies are cast against here, at their contact proxies (`SweepSphere`): Bullet would cast
        // at each of their triangles in the swept box (thousands in a pile hit by a fast body).
        if (dynamic_cast<const DeformableShape*>(object->getCollisionShape()) != nullptr)
        {
            mDeformables.push_back(object);
            return false;
        }
        return true;
    }

    btScalar addSingleResult(btCollisionWorld::LocalConvexResult& ioResult, bool inNormalInWorldSpace) override
    {
        const btVector3 normal = inNormalInWorldSpace
                                     ? ioResult.m_hitNormalLocal
                                     : ioResult.m_hitCollisionObject->getWorldTransform().getBasis() *
                                           ioResult.m_hitNormalLocal;
        if (!CountsAsHit(normal, RelativeMotion(*ioResult.m_hitCollisionObject), ioResult.m_hitFraction, mStartApproach))
            return btScalar(1);
        return ClosestConvexResultCallback::addSingleResult(ioResult, inNormalInWorldSpace);
    }

    /// The sphere's motion over the step relative to `inObject`'s (its velocity times the step, if a body).
    btVector3 RelativeMotion(const btCollisionObject& inObject) const
    {
        btVector3 motion = mMotion;
        if (const btRigidBody* other = btRigidBody::upcast(&inObject))
            motion -= other->getLinearVelocity() * mTimeStep;
        return motion;
    }

    const std::vector<const btCollisionObject*>& Deformables() const { return mDeformables; }

private:
    const btRigidBody& mBody;
    btVector3 mMotion;
    btScalar mTimeStep;
    btScalar mStartApproach;
    mutable std::vector<const btCollisionObject*> mDeformables;
};

/// First time t in [0, 1] at which a sphere of radius `inRadius` moving from `inFrom` by `inMotion` touches the
/// ball (`inCentre`, `inBallRadius`): the smaller root of |from + t·motion − centre| = r + R. 0 if they already
/// touch at the start; negative if never within the step.
double TimeOfImpact(const Vec3d& inFrom, const Vec3d& inMotion, double inRadius, const Vec3d& inCentre,
                    double inBallRadius)
{
    const Vec3d offset = inFrom - inCentre;
    const double reach = inRadius + inBallRadius;
    const double c = offset.squaredNorm() - reach * reach;
    if (c <= 0.0)
        return 0.0;
    const double a = inMotion.squaredNorm();
    const double b = offset.dot(inMotion);
    if (a == 0.0 || b >= 0.0)
        return -1.0;
    const double discriminant = b * b - a * c;
    if (discriminant < 0.0)
        return -1.0;
    const double t = (-b - std::sqrt(discriminant)) / a;
    return t <= 1.0 ? t : -1.0;
}

} // namespace

SweepHit SweepSphere(btCollisionWorld& ioWorld, const btRigidBody& inBody, const btVector3& inFrom, const btVector3& inTo,
                  btScalar inRadius, btScalar inTimeStep, btScalar inStartApproach)
{
    btSphereShape sphere(inRadius);
    btTransform from = btTransform::getIdentity();
    btTransform to = btTransform::getIdentity();
    from.setOrigin(inFrom);
    to.setOrigin(inTo);
    SphereSweepCallback callback(inBody, inFrom, inTo, inTimeStep, inStartApproach);
    ioWorld.convexSweepTest(&sphere, from, to, callback);
    SweepHit hit;
    if (callback.hasHit())
    {
        hit.fraction = callback.m_closestHitFraction;
        hit.normal = callback.m_hitNormalWorld;
        hit.object = callback.m_hitCollisionObject;
    }

    // The deformable bodies the sweep met: the sphere against their contact proxies (§3.4), each a ball that
    // holds its part of the surface, found in the swept box by a tree descent.
    const Vec3d start = ToVec3d(inFrom);
    const Vec3d motion = ToVec3d(inTo - inFrom);
    const double radius = double(inRadius);
    Aabb swept(start.cwiseMin(start + motion), start.cwiseMax(start + motion));
    swept.min().array() -= radius;
    swept.max().array() += radius;
    std::vector<ProxySphere> proxies;
    for (const btCollisionObject* object : callback.Deformables())
    {
        const auto& shape = *static_cast<const DeformableShape*>(object->getCollisionShape());
        proxies.clear();
        QueryStats stats;
        CollectProxies(shape.QueryView(object->getWorldTransform()), swept, proxies, stats);
        const btVector3 relativeMotion = callback.RelativeMotion(*object);
        for (const ProxySphere& proxy : proxies)
        {
            const double t = TimeOfImpact(start, motion, radius, proxy.center, proxy.radius);
            if (t < 0.0 || t >= double(hit.fraction))
                continue;
            const Vec3d contact = start + t * motion - proxy.center;
            const double length = contact.norm();
            if (!(length > 0.0))
                continue;
            const btVector3 normal = ToBtVector(contact / length);
            if (!CountsAsHit(normal, relativeMotion, btScalar(t), inStartApproach))
                continue;
            hit.fraction = btScalar(t);
            hit.normal = normal;
            hit.object = object;
        }
    }
    return hit;
}

} // namespace bdt::detail
