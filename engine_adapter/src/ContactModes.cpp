// The modes' side of the contacts after Bullet's solve: sliding friction, and the contact constraint on the
// normal component of the modes' part of the surface velocity.

#include "ContactModes.h"

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/ConstraintSolver/btContactSolverInfo.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <cmath>

namespace bdt::detail
{

namespace
{

btVector3 VelocityAt(const btCollisionObject& inObject, const btVector3& inPoint)
{
    const btRigidBody* body = btRigidBody::upcast(&inObject);
    return body != nullptr ? body->getVelocityInLocalPoint(inPoint - body->getCenterOfMassPosition())
                           : btVector3(0, 0, 0);
}

// The impulse on side 0's modes (side 1's get its opposite) that applies the contact to the normal component
// of the modes' relative surface velocity `inVelocity` through their mobility `inMobility` (see
// ConstrainContactModes).
Vec3d ContactImpulse(const btManifoldPoint& inPoint, const btContactSolverInfo& inInfo,
                     const Vec3d& inVelocity, const Mat3d& inMobility)
{
    const Vec3d normal = ToVec3d(inPoint.m_normalWorldOnB);
    const double normalMobility = normal.dot(inMobility * normal);
    if (!(normalMobility > 0.0) || !std::isfinite(normalMobility))
        return Vec3d::Zero();
    // Inelastic, or Bullet's restitution above its threshold; never pulling more than the solver pushed.
    const double approach = normal.dot(inVelocity);
    const double target = approach < -double(inInfo.m_restitutionVelocityThreshold)
                              ? -double(inPoint.m_combinedRestitution) * approach
                              : 0.0;
    const double push = std::max((target - approach) / normalMobility, -double(inPoint.m_appliedImpulse));
    return push * normal;
}

} // namespace

bool Slides(const btManifoldPoint& inPoint, const btCollisionObject& inObject0,
            const btCollisionObject& inObject1, const btContactSolverInfo& inInfo)
{
    if (!(inPoint.m_appliedImpulse > 0))
        return false;
    const btVector3 friction = inPoint.m_lateralFrictionDir1 * inPoint.m_appliedImpulseLateral1 +
                               inPoint.m_lateralFrictionDir2 * inPoint.m_appliedImpulseLateral2;
    if (friction.length() < btScalar(0.999) * inPoint.m_combinedFriction * inPoint.m_appliedImpulse)
        return false;
    btVector3 slip = VelocityAt(inObject0, inPoint.getPositionWorldOnA()) -
                     VelocityAt(inObject1, inPoint.getPositionWorldOnB());
    slip -= inPoint.m_normalWorldOnB * inPoint.m_normalWorldOnB.dot(slip);
    return slip.length() > inInfo.m_restitutionVelocityThreshold;
}

void ConstrainManifoldModes(const btPersistentManifold& inManifold, DeformableShape* const (&inShapes)[2],
                            const Mat3d (&inRestToWorld)[2], const btContactSolverInfo& inInfo)
{
    if (inShapes[0] == nullptr && inShapes[1] == nullptr)
        return;
    for (int p = 0; p < inManifold.getNumContacts(); ++p)
    {
        const btManifoldPoint& point = inManifold.getContactPoint(p);
        if (!(point.m_appliedImpulse > 0))
            continue;
        const int nodes[2] = {point.m_index0, point.m_index1};
        Vec3d velocity = Vec3d::Zero(); // side 0's modal surface velocity relative to side 1's
        Mat3d mobility = Mat3d::Zero();
        for (int side = 0; side < 2; ++side)
        {
            if (inShapes[side] == nullptr || nodes[side] < 0)
                continue;
            const std::uint32_t node = std::uint32_t(nodes[side]);
            velocity += (side == 0 ? 1.0 : -1.0) * inShapes[side]->ProxyModalVelocity(node, inRestToWorld[side]);
            mobility += inShapes[side]->ProxyModalMobility(node, inRestToWorld[side]);
        }
        const Vec3d impulse = ContactImpulse(point, inInfo, velocity, mobility);
        if (!impulse.allFinite() || impulse.isZero(0.0))
            continue;
        for (int side = 0; side < 2; ++side)
            if (inShapes[side] != nullptr && nodes[side] >= 0)
                inShapes[side]->ApplyProxyImpulse(std::uint32_t(nodes[side]), side == 0 ? impulse : Vec3d(-impulse),
                                                  inRestToWorld[side]);
    }
}

} // namespace bdt::detail
