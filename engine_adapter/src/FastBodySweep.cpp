#include "FastBodySweep.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseProxy.h>
#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/bullet/DeformableShape.h>

namespace bdt::detail
{

namespace
{

/// The closest hit of the swept core on something it moves into.
class CoreSweepCallback : public btCollisionWorld::ClosestConvexResultCallback
{
public:
    CoreSweepCallback(const btRigidBody& inBody, const btVector3& inFrom, const btVector3& inTo, btScalar inTimeStep,
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
        // Not other deformable bodies: Bullet would cast the sphere at each of their triangles in the swept box
        // (thousands; 10x the step's cost in a pile hit at 40 m/s), and between them the contacts do.
        if (dynamic_cast<const DeformableShape*>(object->getCollisionShape()) != nullptr)
            return false;
        // The body's own filter may exclude the other (constraints with disabled collisions do so through
        // checkCollideWith).
        return mBody.checkCollideWith(object) && object->checkCollideWith(&mBody);
    }

    btScalar addSingleResult(btCollisionWorld::LocalConvexResult& ioResult, bool inNormalInWorldSpace) override
    {
        // The hit normal points out of the other object, towards the core: a real hit is one the core moves
        // into, against the normal (relative to the other object's own motion, when it is a body).
        const btVector3 normal = inNormalInWorldSpace
                                     ? ioResult.m_hitNormalLocal
                                     : ioResult.m_hitCollisionObject->getWorldTransform().getBasis() *
                                           ioResult.m_hitNormalLocal;
        btVector3 relativeMotion = mMotion;
        if (const btRigidBody* other = btRigidBody::upcast(ioResult.m_hitCollisionObject))
            relativeMotion -= other->getLinearVelocity() * mTimeStep;
        const btScalar approach = -normal.dot(relativeMotion);
        if (approach <= btScalar(0))
            return btScalar(1);
        // A sphere already touching the object at the step's start (a body resting or sliding on the floor):
        // the contacts handle a slow approach; only one deeper than `mStartApproach` in the step counts (a
        // resting body struck from above at speed, pushed into the floor).
        if (ioResult.m_hitFraction <= btScalar(0) && approach <= mStartApproach)
            return btScalar(1);
        return ClosestConvexResultCallback::addSingleResult(ioResult, inNormalInWorldSpace);
    }

private:
    const btRigidBody& mBody;
    btVector3 mMotion;
    btScalar mTimeStep;
    btScalar mStartApproach;
};

} // namespace

CoreHit SweepCore(btCollisionWorld& ioWorld, const btRigidBody& inBody, const btVector3& inFrom, const btVector3& inTo,
                  btScalar inRadius, btScalar inTimeStep, btScalar inStartApproach)
{
    btSphereShape core(inRadius);
    btTransform from = btTransform::getIdentity();
    btTransform to = btTransform::getIdentity();
    from.setOrigin(inFrom);
    to.setOrigin(inTo);
    CoreSweepCallback callback(inBody, inFrom, inTo, inTimeStep, inStartApproach);
    ioWorld.convexSweepTest(&core, from, to, callback);
    CoreHit hit;
    if (callback.hasHit())
    {
        hit.fraction = callback.m_closestHitFraction;
        hit.normal = callback.m_hitNormalWorld;
        hit.object = callback.m_hitCollisionObject;
    }
    return hit;
}

} // namespace bdt::detail
