#include "SurfaceAttachment.h"

#include "SolverConvergence.h"
#include "bullet/ShapeSolver.h"

#include <BulletDynamics/ConstraintSolver/btSolverBody.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/queries/TreeQueries.h>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>

namespace bdt::detail
{
namespace
{

// The frame's velocity at `inLever` from the centre of mass as the solver holds it now: Bullet's velocity, the
// external forces' impulse of this step (gravity), and what this solve has added so far.
Vec3d FrameVelocity(const btSolverBody& inBody, const Vec3d& inLever)
{
    if (inBody.m_originalBody == nullptr)
        return Vec3d::Zero();
    btVector3 linear, angular;
    inBody.internalGetVelocityInLocalPointObsolete(btVector3(0, 0, 0), linear);
    inBody.internalGetAngularVelocity(angular);
    linear += inBody.m_externalForceImpulse;
    angular += inBody.m_externalTorqueImpulse;
    return ToVec3d(linear) + ToVec3d(angular).cross(inLever);
}

} // namespace

SurfaceAttachment::SurfaceAttachment(const AttachmentSide& inA, const AttachmentSide& inB,
                                     const AttachmentSettings& inSettings, SolverConvergence* ioConvergence)
    : btTypedConstraint(MAX_CONSTRAINT_TYPE, *inA.body, *inB.body), mSides{inA, inB}, mSettings(inSettings),
      mConvergence(ioConvergence)
{
}

Vec3d DeformedSurfacePoint(const DeformableShape& inShape, const btTransform& inWorldFromLocal,
                           std::uint32_t inTriangle, const Vec3d& inWeights)
{
    const DeformedBody view = inShape.QueryView(inWorldFromLocal);
    Vec3d corners[3];
    DeformedTriangle(inShape.State(), inTriangle, corners);
    const Vec3d rest = inWeights[0] * corners[0] + inWeights[1] * corners[1] + inWeights[2] * corners[2];
    return view.pose.Apply(view.scale * rest);
}

btVector3 SurfaceAttachment::WorldPoint(int inSide) const
{
    const AttachmentSide& side = mSides[inSide];
    const btTransform& transform = side.body->getWorldTransform();
    if (side.shape == nullptr)
        return transform * side.local;
    return ToBtVector(DeformedSurfacePoint(*side.shape, transform, side.triangle, side.weights));
}

void SurfaceAttachment::Prepare(int inSide, Prepared& outPrepared)
{
    const AttachmentSide& side = mSides[inSide];
    outPrepared.point = ToVec3d(WorldPoint(inSide));
    outPrepared.lever = outPrepared.point - ToVec3d(side.body->getCenterOfMassPosition());
    outPrepared.motion.setZero();
    outPrepared.compliance.setZero();
    outPrepared.predicting = mModesTakePart && side.shape != nullptr && side.body->getInvMass() > 0 &&
                             ShapeSolver::Of(*side.shape).Predicting();
    if (!outPrepared.predicting)
        return;
    const DeformableShape& shape = *side.shape;
    const ShapeSolver& solver = ShapeSolver::Of(shape);
    outPrepared.feature.node = 0;
    outPrepared.feature.triangle = side.triangle;
    outPrepared.feature.barycentric = side.weights;
    outPrepared.restToWorld = shape.RestToWorld(side.body->getWorldTransform());
    const std::size_t modes = shape.Dynamics().ModeCount();
    const Mat3d inverseInertia = ToMat3d(side.body->getInvInertiaTensorWorld());
    for (int a = 0; a < 3; ++a)
    {
        // The frame's spin per unit impulse along axis a at the point: the inertial share of the rows.
        const Vec3d spin = inverseInertia * outPrepared.lever.cross(Vec3d::Unit(a));
        std::vector<double>& u = outPrepared.rows[a];
        std::vector<double>& w = outPrepared.rows[3 + a];
        u.resize(modes);
        w.resize(modes);
        if (!solver.ResponseRows(outPrepared.feature, Vec3d::Unit(a), outPrepared.restToWorld, &spin, u, w))
        {
            outPrepared.predicting = false;
            outPrepared.motion.setZero();
            return;
        }
        outPrepared.motion[a] =
            solver.Response(outPrepared.feature, Vec3d::Unit(a), outPrepared.restToWorld, &spin).displacement;
    }
    const std::span<const double> change = solver.StepChangeCompliance();
    const std::span<const double> held = solver.StepHeldCompliance();
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
        {
            const std::vector<double>& u = outPrepared.rows[b];
            const std::vector<double>& w = outPrepared.rows[3 + b];
            double sum = 0.0;
            for (std::size_t j = 0; j < modes; ++j)
                sum += outPrepared.rows[a][j] * (change[j] * u[j] + held[j] * (w[j] - u[j]));
            outPrepared.compliance(a, b) = sum;
        }
}

Vec3d SurfaceAttachment::SummedModalMotion(int inSide) const
{
    const Prepared& prepared = mPrepared[inSide];
    Vec3d motion = Vec3d::Zero();
    if (!prepared.predicting)
        return motion;
    const ShapeSolver& solver = ShapeSolver::Of(*mSides[inSide].shape);
    const AttachmentModes& sum = *mSides[inSide].modes;
    const std::span<const double> change = solver.StepChangeCompliance();
    const std::span<const double> held = solver.StepHeldCompliance();
    for (std::size_t j = 0; j < sum.contact.size(); ++j)
    {
        const double moved = change[j] * sum.contact[j] + held[j] * (sum.inertial[j] - sum.contact[j]);
        for (int a = 0; a < 3; ++a)
            motion[a] += prepared.rows[a][j] * moved;
    }
    return motion;
}

void SurfaceAttachment::AddToSum(int inSide, const Vec3d& inChange)
{
    const Prepared& prepared = mPrepared[inSide];
    if (!prepared.predicting)
        return;
    AttachmentModes& sum = *mSides[inSide].modes;
    const Vec3d change = inSide == 0 ? inChange : Vec3d(-inChange);
    for (std::size_t j = 0; j < sum.contact.size(); ++j)
        for (int a = 0; a < 3; ++a)
        {
            sum.contact[j] += prepared.rows[a][j] * change[a];
            sum.inertial[j] += prepared.rows[3 + a][j] * change[a];
        }
}

void SurfaceAttachment::PrepareBlock(double inTimeStep)
{
    mTimeStep = inTimeStep;
    mImpulse.setZero();
    Mat3d frames = Mat3d::Zero();
    Mat3d compliance = Mat3d::Zero();
    Vec3d motion = Vec3d::Zero();
    for (int side = 0; side < 2; ++side)
    {
        Prepared& prepared = mPrepared[side];
        Prepare(side, prepared);
        const btRigidBody& body = *mSides[side].body;
        const Mat3d lever = Skew(prepared.lever);
        frames += double(body.getInvMass()) * Mat3d::Identity() -
                  lever * ToMat3d(body.getInvInertiaTensorWorld()) * lever;
        compliance += prepared.compliance;
        motion += side == 0 ? prepared.motion : Vec3d(-prepared.motion);
    }
    const double h = inTimeStep;
    double beta = mSettings.erp, softness = 0.0;
    if (std::isfinite(mSettings.stiffness))
    {
        const double hk = h * mSettings.stiffness;
        softness = 1.0 / (h * (hk + mSettings.damping));
        beta = hk / (hk + mSettings.damping);
    }
    mSoftness = softness;
    mBeta = beta;
    mBias = -(beta * (mPrepared[0].point - mPrepared[1].point) + motion) / h;
    bool invertible = false;
    double determinant = 0.0;
    (frames + compliance / h + softness * Mat3d::Identity())
        .computeInverseAndDetWithCheck(mInverseMass, determinant, invertible);
    if (!invertible || !mInverseMass.allFinite() || !mBias.allFinite() || !std::isfinite(mSoftness))
    {
        // Both sides immovable, or a state the guard will repair: this solve applies nothing.
        mInverseMass.setZero();
        mBias.setZero();
        mSoftness = 0.0;
        mBeta = 1.0;
        mPrepared[0].predicting = mPrepared[1].predicting = false;
        return;
    }
    // This solve starts from no impulse: the held one's change, −λ°, is in the bodies' sums from now on.
    AddToSum(0, -mHeld);
    AddToSum(1, -mHeld);
}

void SurfaceAttachment::buildJacobian()
{
    // Called once per solve, before the iterations; the step's length comes with the first iteration.
    mTimeStep = 0.0;
    mIteration = 0;
    if (mConvergence != nullptr)
        mGroup = mConvergence->SetUpGroup();
}

void SurfaceAttachment::getInfo1(btConstraintInfo1* outInfo)
{
    outInfo->m_numConstraintRows = 0;
    outInfo->nub = 0;
}

void SurfaceAttachment::getInfo2(btConstraintInfo2*) {}

void SurfaceAttachment::solveConstraintObsolete(btSolverBody& ioBodyA, btSolverBody& ioBodyB, btScalar inTimeStep)
{
    if (mTimeStep == 0.0)
    {
        PrepareBlock(double(inTimeStep));
        mPending = true;
    }
    const Vec3d velocity = FrameVelocity(ioBodyA, mPrepared[0].lever) - FrameVelocity(ioBodyB, mPrepared[1].lever) +
                           (SummedModalMotion(0) - SummedModalMotion(1)) / mTimeStep;
    const Vec3d error = mBias - velocity - mSoftness * mImpulse; // m/s: the equation above over h
    const Vec3d delta = mInverseMass * error;
    const bool solvable = delta.allFinite() && !delta.isZero(0.0);
    if (mConvergence != nullptr)
        mConvergence->Report(mGroup, mIteration++, !solvable || error.norm() <= SolverConvergence::cConvergedSpeed);
    if (!solvable)
        return;
    mImpulse += delta;
    AddToSum(0, delta);
    AddToSum(1, delta);
    mLastImpulse = ToBtVector(mImpulse);
    for (int side = 0; side < 2; ++side)
    {
        const Vec3d impulse = side == 0 ? delta : Vec3d(-delta);
        const btRigidBody& body = *mSides[side].body;
        const btVector3 linear = ToBtVector(impulse) * body.getInvMass();
        const btVector3 angular = body.getInvInertiaTensorWorld() * ToBtVector(mPrepared[side].lever.cross(impulse));
        (side == 0 ? ioBodyA : ioBodyB).internalApplyImpulse(linear, angular, 1);
    }
}

SurfaceAttachment::SolveSide SurfaceAttachment::Side(int inSide) const
{
    const Prepared& prepared = mPrepared[inSide];
    SolveSide side;
    side.body = mSides[inSide].body;
    side.point = prepared.point;
    side.lever = prepared.lever;
    if (prepared.predicting)
    {
        side.shape = mSides[inSide].shape;
        for (int a = 0; a < 3; ++a)
        {
            side.motion[a] = prepared.rows[a];
            side.impulse[a] = prepared.rows[3 + a];
        }
    }
    return side;
}

void SurfaceAttachment::SetImpulse(const Vec3d& inImpulse)
{
    mImpulse = inImpulse;
    mLastImpulse = ToBtVector(inImpulse);
}

void SurfaceAttachment::AddPendingImpulse()
{
    if (!mPending)
        return;
    mPending = false;
    mHeld = mImpulse;
    for (int side = 0; side < 2; ++side)
        if (mPrepared[side].predicting)
            ShapeSolver::Of(*mSides[side].shape)
                .AccumulateImpulse(mPrepared[side].feature,
                                   ToBtVector(side == 0 ? mImpulse : Vec3d(-mImpulse)),
                                   mPrepared[side].restToWorld);
}

void SurfaceAttachment::setParam(int, btScalar, int) {}

btScalar SurfaceAttachment::getParam(int, int) const
{
    return 0;
}

} // namespace bdt::detail
