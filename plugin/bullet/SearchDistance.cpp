#include "SearchDistance.h"

#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <cmath>
#include <limits>

namespace bdt
{

double SurfaceSpeedBound(const btCollisionObject& inObject, double inTimeStep)
{
    constexpr double cUnknown = std::numeric_limits<double>::infinity();
    if (inObject.isStaticObject() && !inObject.isKinematicObject())
        return 0.0;
    const btRigidBody* body = btRigidBody::upcast(&inObject);
    if (body == nullptr || inObject.isKinematicObject() || !(body->getInvMass() > 0))
        return cUnknown;
    const double linear = ToVec3d(body->getLinearVelocity()).norm() +
                          ToVec3d(body->getTotalForce()).norm() * double(body->getInvMass()) * inTimeStep;
    const double angular =
        ToVec3d(body->getAngularVelocity()).norm() +
        (ToMat3d(body->getInvInertiaTensorWorld()) * ToVec3d(body->getTotalTorque())).norm() * inTimeStep;
    const btCollisionShape* shape = inObject.getCollisionShape();
    double speed = linear;
    if (const DeformableShape* deformable = AsDeformable(shape))
        speed += angular * deformable->SurfaceReach() + deformable->ModalSurfaceSpeed();
    else if (angular > 0.0)
        speed += angular * double(shape->getAngularMotionDisc());
    return std::isfinite(speed) ? speed : cUnknown;
}

double ContactSearchDistance(double inThreshold, double inTimeStep, const btCollisionObject& inA,
                             const btCollisionObject& inB)
{
    if (!(inTimeStep > 0.0) || !std::isfinite(inTimeStep))
        return inThreshold;
    const double closing = SurfaceSpeedBound(inA, inTimeStep) + SurfaceSpeedBound(inB, inTimeStep);
    if (!(closing < std::numeric_limits<double>::infinity()))
        return inThreshold;
    return std::min(inThreshold, std::max(cSearchFloor * inThreshold, 2.0 * inTimeStep * closing));
}

} // namespace bdt
