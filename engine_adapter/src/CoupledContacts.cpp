// The contacts of deformable bodies solved once more after Bullet's solve, coupled through the modes they share.

#include "CoupledContacts.h"

#include "SurfaceAttachment.h"
#include "bullet/ShapeSolver.h"

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

void CoupledContactSolver::SetUpFrame(Row& ioRow, int inSide, const btCollisionObject* inObject, const Vec3d& inLever)
{
    Side& side = ioRow.sides[inSide];
    side.frame = FrameOf(inObject);
    side.lever = inLever;
    const Frame& frame = mFrames[std::size_t(side.frame)];
    if (frame.dynamic)
        side.angularPerImpulse = frame.inverseInertia * frame.angularFactor.cwiseProduct(inLever.cross(ioRow.normal));
}

const Vec3d* CoupledContactSolver::SideSpin(const Row& inRow, int inSide, Vec3d& outSpin) const
{
    const Side& side = inRow.sides[inSide];
    if (!mFrames[std::size_t(side.frame)].dynamic)
        return nullptr;
    outSpin = inSide == 0 ? side.angularPerImpulse : Vec3d(-side.angularPerImpulse);
    return &outSpin;
}

void CoupledContactSolver::SetUpModes(Row& ioRow, int inSide, int inModal, std::size_t inOffset)
{
    const Modal& body = mModal[std::size_t(inModal)];
    // A change of the impulse reaches the modes through K⊙u (its kicked share and the rest held); the frame
    // acceleration it causes loads them over the step (c⊙(w − u)).
    const std::span<const double> held = ShapeSolver::Of(*body.shape).StepHeldCompliance();
    const std::span<const double> change = ShapeSolver::Of(*body.shape).StepChangeCompliance();
    double* end = mEnd.data() + body.offset;
    for (std::uint32_t j = 0; j < body.modes; ++j)
    {
        const double u = mMotion[inOffset + j];
        mResponse[inOffset + j] = change[j] * u + held[j] * (mScratch[j] - u);
        // The impulse Bullet gave it is in the modes' load already (what the read-back adds).
        end[j] += change[j] * u * ioRow.impulse;
    }
    ioRow.sides[inSide].modal = inModal;
    ioRow.sides[inSide].rows = inOffset;
}

void CoupledContactSolver::AddRow(Row& ioRow)
{
    double diagonal = 0.0;
    for (int side = 0; side < 2; ++side)
    {
        const Side& s = ioRow.sides[side];
        const Frame& frame = mFrames[std::size_t(s.frame)];
        if (frame.dynamic)
            diagonal += mTimeStep * (ioRow.normal.dot(frame.linearFactor.cwiseProduct(ioRow.normal)) +
                                     s.lever.cross(ioRow.normal).dot(s.angularPerImpulse));
        if (s.modal >= 0)
            diagonal += Dot(std::span<const double>(mMotion).subspan(s.rows, mModal[std::size_t(s.modal)].modes),
                            mResponse.data() + s.rows);
    }
    ioRow.diagonal = diagonal;
    if (!(diagonal > 0.0) || !std::isfinite(diagonal))
        ioRow.fixed = true;
    mRows.push_back(ioRow);
}

void CoupledContactSolver::AddContactRows(btDiscreteDynamicsWorld& ioWorld)
{
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
            const Vec3d on[2] = {ToVec3d(point.getPositionWorldOnA()), ToVec3d(point.getPositionWorldOnB())};
            row.distance = row.normal.dot(on[0] - on[1]);
            row.impulse = double(point.m_appliedImpulse);
            if (!std::isfinite(row.distance) || !std::isfinite(row.impulse) || !row.normal.allFinite())
                continue;
            row.target = GapTarget(point, row.distance, info);
            row.fixed = (point.m_contactPointFlags & BT_CONTACT_FLAG_HAS_CONTACT_ERP) != 0;
            for (int side = 0; side < 2; ++side)
            {
                SetUpFrame(row, side, objects[side],
                           on[side] - ToVec3d(objects[side]->getWorldTransform().getOrigin()));
                if (modal[side] < 0)
                    continue;
                const std::uint32_t modes = mModal[std::size_t(modal[side])].modes;
                const std::size_t offset = mMotion.size();
                mMotion.resize(offset + modes);
                mResponse.resize(offset + modes);
                mScratch.resize(modes);
                Vec3d spin;
                if (!ShapeSolver::Of(*shapes[side])
                         .ResponseRows(FeatureOf(point, side, *shapes[side]),
                                       side == 0 ? row.normal : Vec3d(-row.normal), rotations[side],
                                       SideSpin(row, side, spin),
                                       std::span<double>(mMotion).subspan(offset, modes), mScratch))
                {
                    mMotion.resize(offset);
                    mResponse.resize(offset);
                    continue;
                }
                SetUpModes(row, side, modal[side], offset);
            }
            // A point separating faster than the restitution threshold with restitution bounced: Bullet's.
            const double separating =
                row.normal.dot(mFrames[std::size_t(row.sides[0].frame)].linear -
                               mFrames[std::size_t(row.sides[1].frame)].linear);
            if (point.m_combinedRestitution > 0 && separating > double(info.m_restitutionVelocityThreshold))
                row.fixed = true;
            AddRow(row);
        }
    }
}

void CoupledContactSolver::AddAttachmentRows(std::span<SurfaceAttachment* const> inAttachments)
{
    for (SurfaceAttachment* attachment : inAttachments)
    {
        if (!attachment->Solved())
            continue;
        const SurfaceAttachment::SolveSide sides[2] = {attachment->Side(0), attachment->Side(1)};
        int modal[2];
        for (int side = 0; side < 2; ++side)
        {
            const auto it = sides[side].shape != nullptr ? mModalIndex.find(sides[side].shape) : mModalIndex.end();
            modal[side] = it != mModalIndex.end() ? it->second : -1;
        }
        const Vec3d target = attachment->TargetGap();
        const Vec3d distance = sides[0].point - sides[1].point;
        if ((modal[0] < 0 && modal[1] < 0) || !target.allFinite() || !distance.allFinite())
            continue; // Bullet's solve stands
        for (int axis = 0; axis < 3; ++axis)
        {
            Row row;
            row.attachment = attachment;
            row.axis = axis;
            row.normal = Vec3d::Unit(axis);
            row.distance = distance[axis];
            row.target = target[axis];
            row.softness = attachment->Softness();
            row.impulse = attachment->Impulse()[axis];
            for (int side = 0; side < 2; ++side)
            {
                SetUpFrame(row, side, sides[side].body, sides[side].lever);
                if (modal[side] < 0)
                    continue;
                // The side's rows along +axis, turned to its direction (−axis on B).
                const double sign = side == 0 ? 1.0 : -1.0;
                const std::uint32_t modes = mModal[std::size_t(modal[side])].modes;
                const std::span<const double> u = sides[side].motion[axis], w = sides[side].impulse[axis];
                if (u.size() != modes || w.size() != modes)
                    continue;
                const std::size_t offset = mMotion.size();
                mMotion.resize(offset + modes);
                mResponse.resize(offset + modes);
                mScratch.resize(modes);
                for (std::uint32_t j = 0; j < modes; ++j)
                {
                    mMotion[offset + j] = sign * u[j];
                    mScratch[j] = sign * w[j];
                }
                SetUpModes(row, side, modal[side], offset);
            }
            AddRow(row);
        }
    }
}

void CoupledContactSolver::WriteImpulses()
{
    Vec3d attachmentImpulse = Vec3d::Zero();
    for (const Row& row : mRows)
    {
        if (row.point != nullptr)
        {
            row.point->m_appliedImpulse = btScalar(row.impulse);
            continue;
        }
        // An attachment's three rows are consecutive.
        attachmentImpulse[row.axis] = row.impulse;
        if (row.axis == 2)
            row.attachment->SetImpulse(attachmentImpulse);
    }
}

CoupledStats CoupledContactSolver::Solve(btDiscreteDynamicsWorld& ioWorld, std::span<const CoupledBody> inBodies,
                                         std::span<SurfaceAttachment* const> inAttachments, double inTimeStep,
                                         int inMaxSweeps, double inTolerance)
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
    // impulse held over the step; `ShapeSolver::StepBase`); the contacts add K⊙G below.
    for (const CoupledBody& body : inBodies)
    {
        const std::span<const double> base = ShapeSolver::Of(*body.shape).StepBase();
        const std::span<const double> held = ShapeSolver::Of(*body.shape).StepHeldCompliance();
        if (base.empty() || body.baseImpulse.size() != base.size())
            continue;
        mModalIndex.emplace(body.shape, int(mModal.size()));
        mModal.push_back({body.shape, mEnd.size(), std::uint32_t(base.size())});
        const std::span<const double> change = ShapeSolver::Of(*body.shape).StepChangeCompliance();
        const bool fixed = body.fixedImpulse.size() == base.size() && body.fixedInertial.size() == base.size();
        for (std::size_t j = 0; j < base.size(); ++j)
            mEnd.push_back(base[j] + held[j] * body.baseImpulse[j] +
                           (fixed ? change[j] * body.fixedImpulse[j] +
                                        held[j] * (body.fixedInertial[j] - body.fixedImpulse[j])
                                  : 0.0));
    }
    if (mModal.empty())
        return stats;
    AddContactRows(ioWorld);
    AddAttachmentRows(inAttachments);
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
            // g + h·γ·λ = target; contacts push only, attachments both ways.
            const double wanted =
                row.impulse + (row.target - Gap(row) - row.softness * row.impulse) / (row.diagonal + row.softness);
            const double impulse = row.attachment != nullptr ? wanted : std::max(wanted, 0.0);
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
    WriteImpulses();
    WriteBack(inTimeStep);
    return stats;
}

} // namespace bdt::detail
