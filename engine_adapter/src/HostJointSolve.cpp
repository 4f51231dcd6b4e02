#include "HostJointSolve.h"

#include "bullet/ShapeSolver.h"

#include <BulletDynamics/ConstraintSolver/btSolverBody.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>

namespace bdt::detail
{
namespace
{

// The solver's velocity of a frame (with this step's external impulses and this solve's changes so far) along a
// row's Jacobian.
double RowVelocity(const btSolverBody& inBody, const btVector3& inLinear, const btVector3& inAngular)
{
    if (inBody.m_originalBody == nullptr)
        return 0.0;
    btVector3 linear, angular;
    inBody.internalGetVelocityInLocalPointObsolete(btVector3(0, 0, 0), linear);
    inBody.internalGetAngularVelocity(angular);
    return double(inLinear.dot(linear + inBody.m_externalForceImpulse) +
                  inAngular.dot(angular + inBody.m_externalTorqueImpulse));
}

// The same at the solve's start, before any change (Bullet's relative velocity of a joint row).
double StartVelocity(const btSolverBody& inBody, const btVector3& inLinear, const btVector3& inAngular)
{
    if (inBody.m_originalBody == nullptr)
        return 0.0;
    return double(inLinear.dot(inBody.m_linearVelocity + inBody.m_externalForceImpulse) +
                  inAngular.dot(inBody.m_angularVelocity + inBody.m_externalTorqueImpulse));
}

} // namespace

HostJointSolve::HostJointSolve(btTypedConstraint& ioHost)
    : btTypedConstraint(MAX_CONSTRAINT_TYPE, ioHost.getRigidBodyA(), ioHost.getRigidBodyB()), mHost(ioHost)
{
}

void HostJointSolve::SetSides(const HostJointSide& inA, const HostJointSide& inB, double inErp, double inDamping,
                              double inGlobalCfm, int inIterations)
{
    mSides[0] = inA;
    mSides[1] = inB;
    mErp = inErp;
    mDamping = inDamping;
    mGlobalCfm = inGlobalCfm;
    mIterations = inIterations;
}

bool HostJointSolve::ModalRows(int inSide, Row& ioRow) const
{
    const HostJointSide& side = mSides[inSide];
    const btRigidBody& body = inSide == 0 ? getRigidBodyA() : getRigidBodyB();
    const DeformableShape& shape = *side.shape;
    const ShapeSolver& solver = ShapeSolver::Of(shape);
    const JointAnchor& anchor = *side.anchor;
    const btTransform& transform = body.getWorldTransform();
    const Mat3d restToWorld = shape.RestToWorld(transform);
    const Mat3d bodyToWorld = ToMat3d(transform.getBasis());
    const Vec3d linear = ToVec3d(ioRow.linear[inSide]);
    const Vec3d angular = ToVec3d(ioRow.angular[inSide]);
    // The row's unit impulse on this body: the force L at the anchor, and the torque about the anchor that
    // leaves (J's angular part less the anchor's lever times L) spread over the anchor's points.
    const Vec3d held = DeformedSurfacePoint(shape, transform, anchor.triangles[0], anchor.weights[0]);
    const Vec3d torque =
        bodyToWorld.transpose() * (angular - (held - ToVec3d(body.getCenterOfMassPosition())).cross(linear));
    const Vec3d spin = ToMat3d(body.getInvInertiaTensorWorld()) * angular;
    const std::size_t modes = shape.Dynamics().ModeCount();
    std::vector<double>& u = ioRow.u[inSide];
    std::vector<double>& w = ioRow.w[inSide];
    u.assign(modes, 0.0);
    w.assign(modes, 0.0);
    thread_local std::vector<double> pointMotion, pointImpulse;
    pointMotion.resize(modes);
    pointImpulse.resize(modes);
    for (int k = 0; k < anchor.points; ++k)
    {
        Vec3d force = bodyToWorld * (anchor.torqueToForce[k] * torque);
        if (k == 0)
            force += linear;
        if (k > 0 && force.isZero(0.0))
            continue;
        const ContactFeature feature{0, anchor.triangles[k], anchor.weights[k]};
        // The frame's spin per unit impulse is the row's, once: at the anchor.
        if (!solver.ResponseRows(feature, force, restToWorld, k == 0 ? &spin : nullptr, pointMotion, pointImpulse))
            return false;
        for (std::size_t j = 0; j < modes; ++j)
        {
            u[j] += pointMotion[j];
            w[j] += pointImpulse[j];
        }
    }
    // The row's motion over the step with the loads as held: Σ_j u_j times mode j's (`ShapeSolver::Response`).
    const std::span<const double> displacement = solver.StepDisplacement();
    for (std::size_t j = 0; j < modes && displacement.size() == modes; ++j)
        ioRow.motion += u[j] * displacement[j];
    return true;
}

void HostJointSolve::Prepare(btSolverBody& ioBodyA, btSolverBody& ioBodyB, double inTimeStep)
{
    mTimeStep = inTimeStep;
    mSolved = true;
    for (int side = 0; side < 2; ++side)
    {
        const btRigidBody& body = side == 0 ? getRigidBodyA() : getRigidBodyB();
        mPredicting[side] = mSides[side].shape != nullptr && mSides[side].anchor != nullptr &&
                            mSides[side].modes != nullptr && body.getInvMass() > 0 &&
                            ShapeSolver::Of(*mSides[side].shape).Predicting();
    }
    ReadHostRows(ioBodyA, ioBodyB, inTimeStep);
    BuildCoupling(inTimeStep);
    // This solve starts from no impulse: the held one's change, −λ°, is in the bodies' sums from now on.
    for (int side = 0; side < 2; ++side)
    {
        if (!mPredicting[side])
            continue;
        AttachmentModes& sum = *mSides[side].modes;
        if (mHeld[side].size() != sum.contact.size())
            continue;
        for (std::size_t j = 0; j < sum.contact.size(); ++j)
        {
            sum.contact[j] -= mHeld[side][j];
            sum.inertial[j] -= mHeldInertial[side][j];
        }
    }
}

void HostJointSolve::ReadHostRows(btSolverBody& ioBodyA, btSolverBody& ioBodyB, double inTimeStep)
{
    // The host's rows, written as Bullet's solver has it write them: into zeroed rows, the limits open.
    constexpr int cSkip = 8; // scalars a row; at least a btVector3's 4
    btScalar j1Linear[cMaxRows * cSkip] = {}, j1Angular[cMaxRows * cSkip] = {};
    btScalar j2Linear[cMaxRows * cSkip] = {}, j2Angular[cMaxRows * cSkip] = {};
    btScalar error[cMaxRows * cSkip] = {}, cfm[cMaxRows * cSkip] = {};
    btScalar lower[cMaxRows * cSkip], upper[cMaxRows * cSkip];
    btConstraintInfo1 info1;
    mHost.getInfo1(&info1);
    mRowCount = std::clamp(info1.m_numConstraintRows, 0, cMaxRows);
    for (int i = 0; i < cMaxRows * cSkip; ++i)
    {
        lower[i] = -SIMD_INFINITY;
        upper[i] = SIMD_INFINITY;
        cfm[i] = btScalar(mGlobalCfm);
    }
    btConstraintInfo2 info2;
    info2.fps = btScalar(1.0 / inTimeStep);
    info2.erp = btScalar(mErp);
    info2.m_J1linearAxis = j1Linear;
    info2.m_J1angularAxis = j1Angular;
    info2.m_J2linearAxis = j2Linear;
    info2.m_J2angularAxis = j2Angular;
    info2.rowskip = cSkip;
    info2.m_constraintError = error;
    info2.cfm = cfm;
    info2.m_lowerLimit = lower;
    info2.m_upperLimit = upper;
    info2.m_numIterations = mIterations;
    info2.m_damping = btScalar(mDamping);
    if (mRowCount > 0)
        mHost.getInfo2(&info2);
    const double threshold = double(mHost.getBreakingImpulseThreshold());
    for (int r = 0; r < mRowCount; ++r)
    {
        Row& row = mRows[r];
        const int at = r * cSkip;
        row.linear[0] = btVector3(j1Linear[at], j1Linear[at + 1], j1Linear[at + 2]);
        row.angular[0] = btVector3(j1Angular[at], j1Angular[at + 1], j1Angular[at + 2]);
        row.linear[1] = btVector3(j2Linear[at], j2Linear[at + 1], j2Linear[at + 2]);
        row.angular[1] = btVector3(j2Angular[at], j2Angular[at + 1], j2Angular[at + 2]);
        row.lower = std::max(double(lower[at]), -threshold);
        row.upper = std::min(double(upper[at]), threshold);
        row.cfm = double(cfm[at]);
        row.impulse = 0.0;
        row.motion = 0.0;
        double start = 0.0;
        for (int side = 0; side < 2; ++side)
        {
            const btRigidBody& body = side == 0 ? getRigidBodyA() : getRigidBodyB();
            row.linearStep[side] = row.linear[side] * body.getInvMass();
            row.angularStep[side] = body.getInvInertiaTensorWorld() * row.angular[side] * body.getAngularFactor();
            start += StartVelocity(side == 0 ? ioBodyA : ioBodyB, row.linear[side], row.angular[side]);
        }
        // Bullet's joint row: the velocity error e less the damped share of the velocity the step starts with.
        row.target = double(error[at]) + (1.0 - mDamping) * start;
        for (int side = 0; side < 2; ++side)
        {
            row.u[side].clear();
            row.w[side].clear();
            if (mPredicting[side] && !ModalRows(side, row))
                mPredicting[side] = false; // outside the tree: this side's modes take no part this solve
        }
    }
}

void HostJointSolve::BuildCoupling(double inTimeStep)
{
    const double h = inTimeStep;
    // The rows' coupling: J_r M⁻¹ J_sᵀ through the frames, Σ_j u_rj (K_j u_sj + c_j (w_sj − u_sj)) through the
    // modes (its symmetric part), and each row's softness.
    Eigen::Matrix<double, cMaxRows, cMaxRows> coupling = Eigen::Matrix<double, cMaxRows, cMaxRows>::Zero();
    for (int r = 0; r < mRowCount; ++r)
        for (int c = 0; c < mRowCount; ++c)
        {
            double sum = 0.0;
            for (int side = 0; side < 2; ++side)
            {
                const btRigidBody& body = side == 0 ? getRigidBodyA() : getRigidBodyB();
                sum += double(mRows[r].linear[side].dot(mRows[c].linear[side]) * body.getInvMass() +
                              mRows[r].angular[side].dot(body.getInvInertiaTensorWorld() * mRows[c].angular[side]));
                if (!mPredicting[side] || mRows[r].u[side].empty() || mRows[c].u[side].empty())
                    continue;
                const ShapeSolver& solver = ShapeSolver::Of(*mSides[side].shape);
                const std::span<const double> change = solver.StepChangeCompliance();
                const std::span<const double> held = solver.StepHeldCompliance();
                const std::vector<double>& u = mRows[r].u[side];
                const std::vector<double>& uc = mRows[c].u[side];
                const std::vector<double>& wc = mRows[c].w[side];
                double modal = 0.0;
                for (std::size_t j = 0; j < u.size(); ++j)
                    modal += u[j] * (change[j] * uc[j] + held[j] * (wc[j] - uc[j]));
                sum += modal / h;
            }
            coupling(r, c) = sum;
        }
    coupling = 0.5 * (coupling + coupling.transpose()).eval();
    for (int r = 0; r < mRowCount; ++r)
    {
        Row& row = mRows[r];
        coupling(r, r) += row.cfm;
        const double diagonal = coupling(r, r);
        row.inverseMass = diagonal > 1e-30 && std::isfinite(diagonal) ? 1.0 / diagonal : 0.0;
        if (!std::isfinite(row.target) || !std::isfinite(row.motion))
            row.inverseMass = 0.0; // a state the guard will repair: this row applies nothing
    }
    mCoupling = coupling;
}

void HostJointSolve::buildJacobian()
{
    // Called once per solve, before the iterations; the step's length comes with the first iteration.
    mTimeStep = 0.0;
}

void HostJointSolve::getInfo1(btConstraintInfo1* outInfo)
{
    outInfo->m_numConstraintRows = 0;
    outInfo->nub = 0;
}

void HostJointSolve::getInfo2(btConstraintInfo2*) {}

double HostJointSolve::Residual(const btSolverBody& inBodyA, const btSolverBody& inBodyB, const Row& inRow) const
{
    double motion = inRow.motion;
    for (int side = 0; side < 2; ++side)
    {
        if (!mPredicting[side])
            continue;
        const ShapeSolver& solver = ShapeSolver::Of(*mSides[side].shape);
        const std::span<const double> change = solver.StepChangeCompliance();
        const std::span<const double> held = solver.StepHeldCompliance();
        const AttachmentModes& sum = *mSides[side].modes;
        const std::vector<double>& u = inRow.u[side];
        for (std::size_t j = 0; j < u.size(); ++j)
            motion += u[j] * (change[j] * sum.contact[j] + held[j] * (sum.inertial[j] - sum.contact[j]));
    }
    const double velocity = RowVelocity(inBodyA, inRow.linear[0], inRow.angular[0]) +
                            RowVelocity(inBodyB, inRow.linear[1], inRow.angular[1]) + motion / mTimeStep;
    return inRow.target - velocity - inRow.cfm * inRow.impulse;
}

void HostJointSolve::ApplyChange(btSolverBody& ioBodyA, btSolverBody& ioBodyB, Row& ioRow, double inDelta)
{
    ioRow.impulse += inDelta;
    ioBodyA.internalApplyImpulse(ioRow.linearStep[0], ioRow.angularStep[0], btScalar(inDelta));
    ioBodyB.internalApplyImpulse(ioRow.linearStep[1], ioRow.angularStep[1], btScalar(inDelta));
    for (int side = 0; side < 2; ++side)
    {
        if (!mPredicting[side])
            continue;
        AttachmentModes& sum = *mSides[side].modes;
        const std::vector<double>& u = ioRow.u[side];
        const std::vector<double>& w = ioRow.w[side];
        for (std::size_t j = 0; j < u.size(); ++j)
        {
            sum.contact[j] += u[j] * inDelta;
            sum.inertial[j] += w[j] * inDelta;
        }
    }
}

void HostJointSolve::solveConstraintObsolete(btSolverBody& ioBodyA, btSolverBody& ioBodyB, btScalar inTimeStep)
{
    if (mTimeStep == 0.0)
        Prepare(ioBodyA, ioBodyB, double(inTimeStep));
    // All rows together: A·Δλ = residual, a row that would pass a limit held at it and the others solved again.
    int free[cMaxRows];
    bool direct = true;
    double residual[cMaxRows], delta[cMaxRows] = {};
    bool held[cMaxRows] = {};
    for (int r = 0; r < mRowCount; ++r)
        if (mRows[r].inverseMass > 0.0)
            residual[r] = Residual(ioBodyA, ioBodyB, mRows[r]);
    for (int pass = 0; pass <= mRowCount; ++pass)
    {
        int count = 0;
        for (int r = 0; r < mRowCount; ++r)
            if (mRows[r].inverseMass > 0.0 && !held[r])
                free[count++] = r;
        if (count == 0)
            break;
        Eigen::MatrixXd block(count, count);
        Eigen::VectorXd right(count);
        for (int k = 0; k < count; ++k)
        {
            right[k] = residual[free[k]];
            for (int r = 0; r < mRowCount; ++r)
                if (held[r])
                    right[k] -= mCoupling(free[k], r) * delta[r];
            for (int c = 0; c < count; ++c)
                block(k, c) = mCoupling(free[k], free[c]);
        }
        const Eigen::LDLT<Eigen::MatrixXd> solve(block);
        const Eigen::VectorXd change = solve.solve(right);
        if (solve.info() != Eigen::Success || !change.allFinite())
        {
            // Dependent rows: one at a time (Gauss-Seidel), each clamped to its bounds.
            for (int k = 0; k < count; ++k)
            {
                Row& row = mRows[free[k]];
                const double wanted = row.impulse + row.inverseMass * Residual(ioBodyA, ioBodyB, row);
                const double step = std::clamp(wanted, row.lower, row.upper) - row.impulse;
                if (std::isfinite(step) && step != 0.0)
                    ApplyChange(ioBodyA, ioBodyB, row, step);
            }
            direct = false;
            break;
        }
        bool clamped = false;
        for (int k = 0; k < count; ++k)
        {
            const Row& row = mRows[free[k]];
            delta[free[k]] = change[k];
            const double impulse = row.impulse + change[k];
            if (impulse < row.lower || impulse > row.upper)
            {
                held[free[k]] = true;
                delta[free[k]] = std::clamp(impulse, row.lower, row.upper) - row.impulse;
                clamped = true;
            }
        }
        if (!clamped)
            break;
    }
    for (int r = 0; r < mRowCount && direct; ++r)
        if (mRows[r].inverseMass > 0.0 && delta[r] != 0.0 && std::isfinite(delta[r]))
            ApplyChange(ioBodyA, ioBodyB, mRows[r], delta[r]);
}

void HostJointSolve::AddSolved(int inSide, std::vector<double>& ioImpulse, std::vector<double>& ioInertial) const
{
    if (!mSolved || !mPredicting[inSide])
        return;
    for (int r = 0; r < mRowCount; ++r)
    {
        const std::vector<double>& u = mRows[r].u[inSide];
        const std::vector<double>& w = mRows[r].w[inSide];
        if (u.size() != ioImpulse.size() || !std::isfinite(mRows[r].impulse))
            continue;
        for (std::size_t j = 0; j < u.size(); ++j)
        {
            ioImpulse[j] += mRows[r].impulse * u[j];
            ioInertial[j] += mRows[r].impulse * w[j];
        }
    }
}

void HostJointSolve::Finish(double inTimeStep)
{
    if (!mSolved)
        return;
    mSolved = false;
    bool finite = true;
    for (int r = 0; r < mRowCount; ++r)
        finite = finite && std::isfinite(mRows[r].impulse);
    for (int side = 0; side < 2; ++side)
    {
        mHeld[side].clear();
        mHeldInertial[side].clear();
        if (!mPredicting[side] || !finite)
            continue;
        const std::size_t modes = mSides[side].shape->Dynamics().ModeCount();
        mHeld[side].assign(modes, 0.0);
        mHeldInertial[side].assign(modes, 0.0);
        for (int r = 0; r < mRowCount; ++r)
            for (std::size_t j = 0; j < modes; ++j)
            {
                mHeld[side][j] += mRows[r].impulse * mRows[r].u[side][j];
                mHeldInertial[side][j] += mRows[r].impulse * mRows[r].w[side][j];
            }
        ShapeSolver::Of(*mSides[side].shape).AccumulateImpulse(mHeld[side], 1.0);
    }
    // What Bullet's solver tells a joint it solved: its feedback, the last row's impulse, and breaking.
    if (btJointFeedback* feedback = mHost.getJointFeedback())
    {
        *feedback = btJointFeedback();
        const btRigidBody& a = getRigidBodyA();
        const btRigidBody& b = getRigidBodyB();
        const btScalar perSecond = btScalar(1.0 / inTimeStep);
        for (int r = 0; r < mRowCount; ++r)
        {
            const btScalar impulse = btScalar(mRows[r].impulse) * perSecond;
            feedback->m_appliedForceBodyA += mRows[r].linear[0] * impulse * a.getLinearFactor();
            feedback->m_appliedTorqueBodyA += mRows[r].angular[0] * impulse * a.getAngularFactor();
            feedback->m_appliedForceBodyB += mRows[r].linear[1] * impulse * b.getLinearFactor();
            feedback->m_appliedTorqueBodyB += mRows[r].angular[1] * impulse * b.getAngularFactor();
        }
    }
    for (int r = 0; r < mRowCount; ++r)
    {
        mHost.internalSetAppliedImpulse(btScalar(mRows[r].impulse));
        if (std::abs(mRows[r].impulse) >= double(mHost.getBreakingImpulseThreshold()))
            mHost.setEnabled(false);
    }
}

void HostJointSolve::setParam(int, btScalar, int) {}

btScalar HostJointSolve::getParam(int, int) const
{
    return 0;
}

} // namespace bdt::detail
