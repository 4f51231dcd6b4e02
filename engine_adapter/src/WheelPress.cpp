#include "WheelPress.h"

#include "bullet/ShapeSolver.h"

#include <BulletDynamics/ConstraintSolver/btSolverBody.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/queries/TreeQueries.h>
#include <optional>

namespace bdt::detail
{

WheelPress::WheelPress(btRigidBody& ioBody, DeformableShape& ioShape, AttachmentModes& ioModes)
    : btTypedConstraint(MAX_CONSTRAINT_TYPE, ioBody), mShape(ioShape), mModes(ioModes)
{
}

void WheelPress::getInfo1(btConstraintInfo1* outInfo)
{
    outInfo->m_numConstraintRows = 0;
    outInfo->nub = 0;
}

void WheelPress::solveConstraintObsolete(btSolverBody& ioBody, btSolverBody&, btScalar)
{
    if (mApplied)
        return;
    mApplied = true;
    const btRigidBody& body = getRigidBodyA();
    const ShapeSolver& solver = ShapeSolver::Of(mShape);
    const std::size_t modes = mShape.Dynamics().ModeCount();
    mPredicting = solver.Predicting() && mModes.contact.size() == modes;
    mMotion.assign(modes, 0.0);
    mImpulse.assign(modes, 0.0);
    std::vector<double> motion(modes), impulse(modes);
    const btTransform& transform = body.getWorldTransform();
    const Mat3d restToWorld = mShape.RestToWorld(transform);
    const DeformedBody view = mShape.QueryView(transform);
    for (const auto& [point, load] : mLoads)
    {
        const btVector3 lever = point - body.getCenterOfMassPosition();
        ioBody.internalApplyImpulse(load * body.getInvMass(), body.getInvInertiaTensorWorld() * lever.cross(load), 1);
        QueryStats stats;
        const std::optional<SurfaceProjection> at = bdt::ClosestSurfacePoint(view, ToVec3d(point), stats);
        if (!at)
            continue;
        const ContactFeature feature{0, at->triangle, at->barycentric};
        const Vec3d spin = ToMat3d(body.getInvInertiaTensorWorld()) * ToVec3d(lever.cross(load));
        if (mPredicting && solver.ResponseRows(feature, ToVec3d(load), restToWorld, &spin, motion, impulse))
            for (std::size_t j = 0; j < modes; ++j)
            {
                mMotion[j] += motion[j];
                mImpulse[j] += impulse[j];
            }
        else if (solver.Coupling(feature, ToVec3d(load), restToWorld, motion))
            for (std::size_t j = 0; j < modes; ++j)
                mMotion[j] += motion[j];
    }
    // The sums hold this solve's change of the modes' held impulse: the loads less the last step's.
    if (!mPredicting)
        return;
    const bool held = mHeld.size() == modes;
    for (std::size_t j = 0; j < modes; ++j)
    {
        mModes.contact[j] += mMotion[j] - (held ? mHeld[j] : 0.0);
        mModes.inertial[j] += mImpulse[j] - (held ? mHeldInertial[j] : 0.0);
    }
}

void WheelPress::Finish()
{
    if (!mApplied)
        return;
    mApplied = false;
    ShapeSolver::Of(mShape).AccumulateImpulse(mMotion, 1.0);
    if (mPredicting)
    {
        mHeld = mMotion;
        mHeldInertial = mImpulse;
    }
    else
    {
        mHeld.clear();
        mHeldInertial.clear();
    }
}

} // namespace bdt::detail
