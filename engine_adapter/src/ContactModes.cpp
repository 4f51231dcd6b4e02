// The modes' side of the contacts after Bullet's solve: sliding friction, and the contact constraint on the
// normal component of the modes' part of the surface velocity.

#include "ContactModes.h"

#include "bullet/ShapeSolver.h"

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/ConstraintSolver/btContactSolverInfo.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <cmath>
#include <vector>

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

// The impulse along the normal on side 0's modes (side 1's get its opposite) that applies the contact to the
// modes' relative surface velocity along the normal, `inApproach`, through their mobility along it,
// `inMobility` (see ConstrainManifoldModes).
double ContactImpulse(const btManifoldPoint& inPoint, const btContactSolverInfo& inInfo, double inApproach,
                      double inMobility)
{
    if (!(inMobility > 0.0) || !std::isfinite(inMobility))
        return 0.0;
    // Inelastic, or Bullet's restitution above its threshold; never pulling more than the solver pushed.
    const double target = inApproach < -double(inInfo.m_restitutionVelocityThreshold)
                              ? -double(inPoint.m_combinedRestitution) * inApproach
                              : 0.0;
    return std::max((target - inApproach) / inMobility, -double(inPoint.m_appliedImpulse));
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

void ConstrainPointModes(const btManifoldPoint& inPoint, DeformableShape* const (&inShapes)[2],
                         const std::span<const double> (&inCouplings)[2], const btContactSolverInfo& inInfo)
{
    if (!(inPoint.m_appliedImpulse > 0) || (inCouplings[0].empty() && inCouplings[1].empty()))
        return;
    double approach = 0.0; // side 0's modal surface velocity relative to side 1's, along the normal
    double mobility = 0.0;
    for (int side = 0; side < 2; ++side)
    {
        if (inCouplings[side].empty())
            continue;
        approach +=
            (side == 0 ? 1.0 : -1.0) * ShapeSolver::Of(*inShapes[side]).ModalVelocityAlong(inCouplings[side]);
        mobility += ShapeSolver::Of(*inShapes[side]).ModalMobilityAlong(inCouplings[side]);
    }
    const double impulse = ContactImpulse(inPoint, inInfo, approach, mobility);
    if (!std::isfinite(impulse) || impulse == 0.0)
        return;
    for (int side = 0; side < 2; ++side)
        if (!inCouplings[side].empty())
            ShapeSolver::Of(*inShapes[side]).ApplyImpulse(inCouplings[side], side == 0 ? impulse : -impulse);
}

void ConstrainManifoldModes(const btPersistentManifold& inManifold, DeformableShape* const (&inShapes)[2],
                            const Mat3d (&inRestToWorld)[2], const btContactSolverInfo& inInfo)
{
    if (inShapes[0] == nullptr && inShapes[1] == nullptr)
        return;
    // Only the normal direction matters: per side the coupling u_j = s·(Rᵀn)·U_j (the point's row, or the
    // proxy's Ū) gives the modal velocity
    // along n (u·q̇), the mobility along n (Σ u_j²/μ_j) and the impulse's generalised impulse (p·u).
    thread_local std::vector<double> coupling[2];
    for (int side = 0; side < 2; ++side)
        if (inShapes[side] != nullptr)
            coupling[side].resize(inShapes[side]->Dynamics().ModeCount());
    for (int p = 0; p < inManifold.getNumContacts(); ++p)
    {
        const btManifoldPoint& point = inManifold.getContactPoint(p);
        if (!(point.m_appliedImpulse > 0))
            continue;
        const Vec3d normal = ToVec3d(point.m_normalWorldOnB);
        std::span<const double> couplings[2];
        for (int side = 0; side < 2; ++side)
            if (inShapes[side] != nullptr && ShapeSolver::Of(*inShapes[side])
                                                 .Coupling(FeatureOf(point, side, *inShapes[side]), normal,
                                                           inRestToWorld[side], coupling[side]))
                couplings[side] = coupling[side];
        ConstrainPointModes(point, inShapes, couplings, inInfo);
    }
}

} // namespace bdt::detail
