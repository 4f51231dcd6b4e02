// The contacts of deformable bodies solved once more after Bullet's solve, coupled through the modes they share.

#include "CoupledContacts.h"

#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <LinearMath/btTransformUtil.h>
#include <algorithm>
#include <bdt/bullet/ContactFeature.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <cmath>

namespace bdt::detail
{

namespace
{

double Dot(std::span<const double> inA, const double* inB)
{
    double sum = 0.0;
    for (std::size_t j = 0; j < inA.size(); ++j)
        sum += inA[j] * inB[j];
    return sum;
}

// Bullet's solver target for a contact's end-of-step gap (`btSequentialImpulseConstraintSolver`'s contact
// setup): apart, none beyond its linear slop (a speculative contact closes no more than the gap); a shallow
// penetration corrected by the contact's erp; a deep one, left to split impulses, not deepened.
double GapTarget(const btManifoldPoint& inPoint, double inDistance, const btContactSolverInfo& inInfo)
{
    const double penetration = inDistance + double(inInfo.m_linearSlop);
    if (penetration > 0.0)
        return -double(inInfo.m_linearSlop);
    if (inInfo.m_splitImpulse != 0 && penetration <= double(inInfo.m_splitImpulsePenetrationThreshold))
        return inDistance;
    const double erp = (inPoint.m_contactPointFlags & BT_CONTACT_FLAG_HAS_CONTACT_ERP) != 0
                           ? double(inPoint.m_contactERP)
                           : double(inInfo.m_erp2);
    return inDistance - erp * penetration;
}

} // namespace

int CoupledContactSolver::FrameOf(const btCollisionObject* inObject)
{
    const auto [it, added] = mFrameIndex.try_emplace(inObject, int(mFrames.size()));
    if (!added)
        return it->second;
    Frame frame;
    btRigidBody* body = btRigidBody::upcast(const_cast<btCollisionObject*>(inObject));
    if (body != nullptr)
    {
        frame.body = body;
        frame.dynamic = body->getInvMass() > 0;
        frame.linear = ToVec3d(body->getLinearVelocity());
        frame.angular = ToVec3d(body->getAngularVelocity());
        if (frame.dynamic)
        {
            frame.linearFactor = double(body->getInvMass()) * ToVec3d(body->getLinearFactor());
            frame.angularFactor = ToVec3d(body->getAngularFactor());
            frame.inverseInertia = ToMat3d(body->getInvInertiaTensorWorld());
        }
    }
    mFrames.push_back(frame);
    return it->second;
}

double CoupledContactSolver::Gap(const Row& inRow) const
{
    double gap = inRow.distance;
    for (int side = 0; side < 2; ++side)
    {
        const Side& s = inRow.sides[side];
        const Frame& frame = mFrames[std::size_t(s.frame)];
        const double speed = inRow.normal.dot(frame.linear + frame.angular.cross(s.lever));
        gap += (side == 0 ? 1.0 : -1.0) * speed * mTimeStep;
        if (s.modal >= 0)
        {
            const Modal& modal = mModal[std::size_t(s.modal)];
            gap += Dot(std::span<const double>(mMotion).subspan(s.rows, modal.modes), mEnd.data() + modal.offset);
        }
    }
    return gap;
}

void CoupledContactSolver::Apply(const Row& inRow, double inDelta)
{
    for (int side = 0; side < 2; ++side)
    {
        const Side& s = inRow.sides[side];
        Frame& frame = mFrames[std::size_t(s.frame)];
        const double along = side == 0 ? inDelta : -inDelta; // the impulse on this side along n
        if (frame.dynamic)
        {
            const Vec3d linear = frame.linearFactor.cwiseProduct(inRow.normal) * along;
            const Vec3d angular = s.angularPerImpulse * along;
            frame.linear += linear;
            frame.angular += angular;
            frame.deltaLinear += linear;
            frame.deltaAngular += angular;
        }
        if (s.modal >= 0)
        {
            const Modal& modal = mModal[std::size_t(s.modal)];
            const double* response = mResponse.data() + s.rows;
            double* end = mEnd.data() + modal.offset;
            for (std::uint32_t j = 0; j < modal.modes; ++j)
                end[j] += response[j] * inDelta;
        }
    }
}

void CoupledContactSolver::WriteBack(double inTimeStep)
{
    for (const Frame& frame : mFrames)
    {
        if (!frame.dynamic || (frame.deltaLinear.isZero(0.0) && frame.deltaAngular.isZero(0.0)))
            continue;
        btRigidBody& body = *frame.body;
        body.setLinearVelocity(ToBtVector(frame.linear));
        body.setAngularVelocity(ToBtVector(frame.angular));
        // Bullet has integrated the step with its velocities: the change moves the frame too.
        btTransform moved;
        btTransformUtil::integrateTransform(body.getWorldTransform(), ToBtVector(frame.deltaLinear),
                                            ToBtVector(frame.deltaAngular), btScalar(inTimeStep), moved);
        body.setWorldTransform(moved);
        body.setInterpolationWorldTransform(moved);
        body.setInterpolationLinearVelocity(body.getLinearVelocity());
        body.setInterpolationAngularVelocity(body.getAngularVelocity());
        body.updateInertiaTensor();
    }
}

CoupledStats CoupledContactSolver::Solve(btDiscreteDynamicsWorld& ioWorld, std::span<const CoupledBody> inBodies,
                                         double inTimeStep, int inMaxSweeps, double inTolerance)
{
    CoupledStats stats;
    mFrames.clear();
    mFrameIndex.clear();
    mModal.clear();
    mModalIndex.clear();
    mEnd.clear();
    mMotion.clear();
    mResponse.clear();
    mRows.clear();
    mTimeStep = inTimeStep;
    if (inBodies.empty() || !(inTimeStep > 0.0))
        return stats;

    // Each predicting body's modes over the step without its contacts' impulses: b + c⊙F (the frame's inertial
    // impulse held over the step; `DeformableShape::StepBase`); the contacts add K⊙G below.
    for (const CoupledBody& body : inBodies)
    {
        const std::span<const double> base = body.shape->StepBase();
        const std::span<const double> held = body.shape->StepHeldCompliance();
        if (base.empty() || body.baseImpulse.size() != base.size())
            continue;
        mModalIndex.emplace(body.shape, int(mModal.size()));
        mModal.push_back({body.shape, mEnd.size(), std::uint32_t(base.size())});
        for (std::size_t j = 0; j < base.size(); ++j)
            mEnd.push_back(base[j] + held[j] * body.baseImpulse[j]);
    }
    if (mModal.empty())
        return stats;

    const btContactSolverInfo& info = ioWorld.getSolverInfo();
    btDispatcher& dispatcher = *ioWorld.getDispatcher();
    for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
    {
        btPersistentManifold* manifold = dispatcher.getManifoldByIndexInternal(m);
        const btCollisionObject* objects[2] = {manifold->getBody0(), manifold->getBody1()};
        DeformableShape* shapes[2];
        int modal[2];
        for (int side = 0; side < 2; ++side)
        {
            shapes[side] = AsDeformable(const_cast<btCollisionShape*>(objects[side]->getCollisionShape()));
            const auto it = shapes[side] != nullptr ? mModalIndex.find(shapes[side]) : mModalIndex.end();
            modal[side] = it != mModalIndex.end() ? it->second : -1;
        }
        if ((modal[0] < 0 && modal[1] < 0) || manifold->getNumContacts() == 0)
            continue;
        Mat3d rotations[2];
        for (int side = 0; side < 2; ++side)
            if (modal[side] >= 0)
                rotations[side] = shapes[side]->RestToWorld(objects[side]->getWorldTransform());
        for (int p = 0; p < manifold->getNumContacts(); ++p)
        {
            btManifoldPoint& point = manifold->getContactPoint(p);
            if (!(point.getDistance() <= manifold->getContactProcessingThreshold()))
                continue; // not given to the solver
            Row row;
            row.point = &point;
            row.normal = ToVec3d(point.m_normalWorldOnB);
            const Vec3d onA = ToVec3d(point.getPositionWorldOnA());
            const Vec3d onB = ToVec3d(point.getPositionWorldOnB());
            row.distance = row.normal.dot(onA - onB);
            row.impulse = double(point.m_appliedImpulse);
            if (!std::isfinite(row.distance) || !std::isfinite(row.impulse) || !row.normal.allFinite())
                continue;
            row.target = GapTarget(point, row.distance, info);
            row.fixed = (point.m_contactPointFlags & BT_CONTACT_FLAG_HAS_CONTACT_ERP) != 0;
            for (int side = 0; side < 2; ++side)
            {
                Side& s = row.sides[side];
                s.frame = FrameOf(objects[side]);
                const Frame& frame = mFrames[std::size_t(s.frame)];
                s.lever = (side == 0 ? onA : onB) - ToVec3d(objects[side]->getWorldTransform().getOrigin());
                const Vec3d direction = side == 0 ? row.normal : Vec3d(-row.normal);
                if (frame.dynamic)
                    s.angularPerImpulse =
                        frame.inverseInertia * frame.angularFactor.cwiseProduct(s.lever.cross(row.normal));
                if (modal[side] < 0)
                    continue;
                const Modal& body = mModal[std::size_t(modal[side])];
                const std::size_t offset = mMotion.size();
                mMotion.resize(offset + body.modes);
                mResponse.resize(offset + body.modes);
                mScratch.resize(body.modes);
                const Vec3d angularPerImpulse =
                    frame.dynamic ? Vec3d(side == 0 ? s.angularPerImpulse : Vec3d(-s.angularPerImpulse))
                                  : Vec3d::Zero();
                if (!shapes[side]->ResponseRows(FeatureOf(point, side, *shapes[side]), direction,
                                                rotations[side], frame.dynamic ? &angularPerImpulse : nullptr,
                                                std::span<double>(mMotion).subspan(offset, body.modes),
                                                mScratch))
                {
                    mMotion.resize(offset);
                    mResponse.resize(offset);
                    continue;
                }
                // A change of the impulse reaches the modes through K⊙u (its kicked share and the rest held); the frame acceleration it causes loads
                // them over the step (c⊙(w − u)).
                const std::span<const double> held = body.shape->StepHeldCompliance();
                const std::span<const double> change = body.shape->StepChangeCompliance();
                double* end = mEnd.data() + body.offset;
                for (std::uint32_t j = 0; j < body.modes; ++j)
                {
                    const double u = mMotion[offset + j];
                    mResponse[offset + j] = change[j] * u + held[j] * (mScratch[j] - u);
                    // The impulse Bullet gave it is in the modes' load already (what the read-back adds).
                    end[j] += change[j] * u * row.impulse;
                }
                s.modal = modal[side];
                s.rows = offset;
            }
            // A point separating faster than the restitution threshold with restitution bounced: Bullet's.
            const double separating =
                row.normal.dot(mFrames[std::size_t(row.sides[0].frame)].linear -
                               mFrames[std::size_t(row.sides[1].frame)].linear);
            if (point.m_combinedRestitution > 0 && separating > double(info.m_restitutionVelocityThreshold))
                row.fixed = true;
            double diagonal = 0.0;
            for (int side = 0; side < 2; ++side)
            {
                const Side& s = row.sides[side];
                const Frame& frame = mFrames[std::size_t(s.frame)];
                if (frame.dynamic)
                    diagonal += mTimeStep * (row.normal.dot(frame.linearFactor.cwiseProduct(row.normal)) +
                                             s.lever.cross(row.normal).dot(s.angularPerImpulse));
                if (s.modal >= 0)
                    diagonal += Dot(std::span<const double>(mMotion).subspan(s.rows, mModal[std::size_t(s.modal)].modes),
                                    mResponse.data() + s.rows);
            }
            row.diagonal = diagonal;
            if (!(diagonal > 0.0) || !std::isfinite(diagonal))
                row.fixed = true;
            mRows.push_back(row);
        }
    }
    stats.rows = mRows.size();
    if (mRows.empty())
        return stats;

    for (int sweep = 0; sweep < inMaxSweeps; ++sweep)
    {
        double largest = 0.0;
        for (Row& row : mRows)
        {
            if (row.fixed)
                continue;
            const double wanted = row.impulse + (row.target - Gap(row)) / row.diagonal;
            const double impulse = std::max(wanted, 0.0);
            const double delta = impulse - row.impulse;
            if (delta == 0.0 || !std::isfinite(delta))
                continue;
            row.impulse = impulse;
            Apply(row, delta);
            largest = std::max(largest, std::abs(delta) * row.diagonal);
        }
        ++stats.sweeps;
        stats.residual = largest;
        if (largest <= inTolerance)
            break;
    }
    for (const Row& row : mRows)
        row.point->m_appliedImpulse = btScalar(row.impulse);
    WriteBack(inTimeStep);
    return stats;
}

} // namespace bdt::detail
