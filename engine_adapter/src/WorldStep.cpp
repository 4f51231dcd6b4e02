// bdt::World's step: the tick callbacks, the state guard, the modal step before Bullet's solve and the
// read-back of the solver's impulses after it (docs/ARCHITECTURE.md, "Inside `World`, step by step").

#include "BodyStateChecks.h"
#include "ContactModes.h"
#include "CoupledContacts.h"
#include "FastBodySweep.h"
#include "PhaseTimer.h"
#include "SolverConvergence.h"
#include "SurfaceAttachment.h"
#include "WorldBody.h"

#include "bullet/ShapeSolver.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseInterface.h>
#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <bdt/adapter/World.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/ParallelDispatcher.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ModalProperties.h>
#include <bdt/core/base/Prefetch.h>
#include <chrono>
#include <cmath>
#include <limits>
#include <span>
#include <thread>
#include <unordered_map>
#include <utility>

namespace bdt
{

namespace
{

using Clock = std::chrono::steady_clock;

// J/kg: below this a sleeping body's vibration is not worth a modal step (an amplitude of about 1e-7 of a
// metre-sized body at 40 Hz); a cut-off for work, not physics.
constexpr double cRingDownFloor = 1e-12;

double Milliseconds(Clock::time_point inStart)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - inStart).count();
}

} // namespace

void World::GuardState(Body& ioBody, double inTimeStep)
{
    btRigidBody& rigid = *ioBody.rigidBody;
    DeformableShape& shape = *ioBody.shape;
    ioBody.simulatedAtPreTick = rigid.getActivationState() != DISABLE_SIMULATION;
    std::uint64_t repairs = 0;
    // Mass properties first: the force and torque limits below use them.
    const btVector3 inverseInertia = rigid.getInvInertiaDiagLocal();
    if (std::isfinite(rigid.getInvMass()) && rigid.getInvMass() >= 0 && IsFinite(inverseInertia) &&
        inverseInertia.x() >= 0 && inverseInertia.y() >= 0 && inverseInertia.z() >= 0)
    {
        ioBody.lastGoodInverseMass = rigid.getInvMass();
        ioBody.lastGoodInverseInertia = inverseInertia;
    }
    else
    {
        auto inverse = [](btScalar inValue) { return inValue > 0 ? 1 / inValue : btScalar(0); };
        const btVector3& good = ioBody.lastGoodInverseInertia;
        rigid.setMassProps(inverse(ioBody.lastGoodInverseMass),
                           btVector3(inverse(good.x()), inverse(good.y()), inverse(good.z())));
        rigid.updateInertiaTensor();
        ++repairs;
    }
    bool proper = false;
    const double basisError = detail::RotationError(rigid.getWorldTransform().getBasis(), proper);
    if (!IsFinite(rigid.getWorldTransform()) || basisError > detail::cBasisRepairLimit || !proper)
    {
        RestoreBody(ioBody);
        mStats.stateRepairs += repairs;
        return;
    }
    if (basisError > detail::cBasisTolerance)
    {
        btTransform transform = rigid.getWorldTransform();
        btQuaternion rotation;
        transform.getBasis().getRotation(rotation);
        transform.setRotation(rotation.normalized());
        PlaceBody(rigid, transform);
        rigid.updateInertiaTensor();
        ++repairs;
    }
    const double linearLimit = mSettings.maxLinearSpeed, angularLimit = mSettings.maxAngularSpeed;
    btVector3 linear = rigid.getLinearVelocity(), angular = rigid.getAngularVelocity();
    if (!IsFinite(linear))
        linear.setZero();
    if (!IsFinite(angular))
        angular.setZero();
    detail::ClampLength(linear, linearLimit);
    detail::ClampLength(angular, angularLimit);
    if (linear != rigid.getLinearVelocity() || angular != rigid.getAngularVelocity())
    {
        rigid.setLinearVelocity(linear);
        rigid.setAngularVelocity(angular);
        ++repairs;
    }
    // Gravity (Bullet added gravity · mass to the total force at the start of stepSimulation) and the total
    // force and torque: what Bullet's integration adds to the velocities before the solve.
    const btVector3 gravity = rigid.getGravity();
    const bool gravityBad = !IsFinite(gravity) || detail::Length(gravity) * inTimeStep > linearLimit;
    btVector3 force = rigid.getTotalForce(), torque = rigid.getTotalTorque();
    bool forcesChanged = false;
    if (gravityBad)
    {
        const btVector3 worldGravity = mWorld.getGravity();
        rigid.setGravity(IsFinite(worldGravity) ? worldGravity : btVector3(0, 0, 0));
        force = rigid.getGravity() / (rigid.getInvMass() > 0 ? rigid.getInvMass() : btScalar(1));
        forcesChanged = true;
    }
    if (!IsFinite(force))
    {
        force.setZero();
        forcesChanged = true;
    }
    if (!IsFinite(torque))
    {
        torque.setZero();
        forcesChanged = true;
    }
    // Within the step, F·h/m and I⁻¹·T·h at most the speed limits.
    if (rigid.getInvMass() > 0)
        forcesChanged |= detail::ClampLength(force, linearLimit / (double(rigid.getInvMass()) * inTimeStep));
    const double angularGain = (ToMat3d(rigid.getInvInertiaTensorWorld()) * ToVec3d(torque)).norm() * inTimeStep;
    if (angularGain > angularLimit)
    {
        torque *= btScalar(angularLimit / angularGain);
        forcesChanged = true;
    }
    if (forcesChanged)
    {
        rigid.clearForces();
        rigid.applyCentralForce(force);
        rigid.applyTorque(torque);
        ++repairs;
    }
    const ModalDynamics& dynamics = shape.Dynamics();
    const auto finite = [](std::span<const double> inValues)
    { return std::all_of(inValues.begin(), inValues.end(), [](double v) { return std::isfinite(v); }); };
    if (!finite(dynamics.QDouble()) || !finite(dynamics.QDot()))
    {
        shape.Dynamics().Reset();
        (void)shape.BeginStep(); // the surface at rest shape too
        ioBody.heldImpulse.clear();
        ioBody.heldInertial.clear();
        ++mStateResets;
    }
    mStats.stateRepairs += repairs;
}

void World::RestoreBody(Body& ioBody)
{
    btRigidBody& rigid = *ioBody.rigidBody;
    PlaceBody(rigid, ioBody.lastGoodTransform);
    rigid.setLinearVelocity(btVector3(0, 0, 0));
    rigid.setAngularVelocity(btVector3(0, 0, 0));
    rigid.updateInertiaTensor();
    // Forces as at the start of a step: gravity only.
    rigid.clearForces();
    if (IsFinite(rigid.getGravity()))
        rigid.applyGravity();
    ioBody.shape->Dynamics().Reset();
    ShapeSolver::Of(*ioBody.shape).ClearImpulses();
    ioBody.heldImpulse.clear();
    ioBody.heldInertial.clear();
    ioBody.userForce.clear();
    ioBody.hasPreviousVelocity = false;
    if (btBroadphaseProxy* proxy = rigid.getBroadphaseHandle())
    {
        // Its manifolds hold the impulses of the bad state, which the solver would warm-start from.
        mWorld.getBroadphase()->getOverlappingPairCache()->cleanProxyFromPairs(proxy, mWorld.getDispatcher());
        mWorld.updateSingleAabb(&rigid);
    }
    // Bullet takes a body whose box overflowed out of the simulation for good (updateSingleAabb).
    if (rigid.getActivationState() == DISABLE_SIMULATION)
        rigid.forceActivationState(ACTIVE_TAG);
    rigid.activate(true);
    ++mStats.transformResets;
}

void World::OnPreTick(double inTimeStep)
{
    const Clock::time_point start = Clock::now();
    detail::TakePhaseTimes(); // drop whatever was timed outside our steps
    mConvergence->BeginStep();
    if (!mAttachments.empty())
        for (std::unique_ptr<Body>& body : mBodies)
            body->attachmentModes.Reset(body->shape->Dynamics().ModeCount());
    for (std::unique_ptr<Body>& body : mBodies)
        GuardState(*body, inTimeStep);
    for (std::unique_ptr<Body>& body : mBodies)
    {
        DeformableShape& shape = *body->shape;
        ShapeSolver& solver = ShapeSolver::Of(shape);
        body->stepStart = body->rigidBody->getWorldTransform().getOrigin();
        body->previousTransform = body->rigidBody->getWorldTransform();
        if (mRigid)
        {
            // The rigid reference: q stays 0 and, once it is, no new update stamp, so no sphere is updated.
            const std::span<const float> q = shape.State().Q();
            if (std::any_of(q.begin(), q.end(), [](float v) { return v != 0.0f; }))
            {
                shape.Dynamics().Reset();
                shape.BeginStep();
                body->heldImpulse.clear();
                body->heldInertial.clear();
            }
            solver.ClearPrediction();
        }
        else
        {
            // The modes already took last step's solve (`StepAllModes`, at its end): over this step they move
            // with the force they hold and by their response to this solve's impulses, which an awake body's
            // contacts tell the solver (`PredictContacts`).
            const btRigidBody& rigid = *body->rigidBody;
            const bool awake = rigid.getInvMass() > 0 && shape.Dynamics().ModeCount() > 0 && rigid.isActive();
            if (awake)
            {
                // The force the modal step will hold besides the contacts': the frame's inertial force and the
                // host's `ApplyForce`.
                mForce.assign(body->heldInertial.begin(), body->heldInertial.end());
                if (!body->userForce.empty())
                {
                    mForce.resize(body->userForce.size(), 0.0);
                    for (std::size_t j = 0; j < body->userForce.size(); ++j)
                        mForce[j] += body->userForce[j];
                }
                solver.PredictStep({inTimeStep, mSettings.inertialForcing, double(mWorld.getSolverInfo().m_erp2),
                                    body->heldImpulse, mForce, body->previousQ});
            }
            else
                solver.ClearPrediction();
        }
        solver.ClearImpulses();
        shape.State().ResetCounters();
        shape.ResetStats();
    }
    WatchJoints();
    PushWheelLoads();
    mStats.preTickMs = Milliseconds(start);
}

void World::StepAllModes(double inTimeStep)
{
    // At the step's end, so that what a renderer, a query or a snapshot reads between steps is the surface this
    // solve aimed at (its contacts and attachments predicted the modes over this very step).
    for (std::unique_ptr<Body>& body : mBodies)
    {
        DeformableShape& shape = *body->shape;
        const std::span<const float> q = shape.State().Q();
        body->previousQ.assign(q.begin(), q.end());
        if (mRigid)
            continue; // q held at 0 (`OnPreTick`)
        const btRigidBody& rigid = *body->rigidBody;
        const bool dynamic = rigid.getInvMass() > 0 && shape.Dynamics().ModeCount() > 0;
        if (dynamic && rigid.isActive())
            StepModes(*body, inTimeStep);
        else if (dynamic && shape.Dynamics().VibrationEnergy() > cRingDownFloor * shape.Settings().mass)
        {
            // Asleep: Bullet neither moves the body nor solves its contacts, so its loads are those it held when
            // it fell asleep; its modes ring down about their deflection under them instead of freezing
            // mid-swing.
            shape.Dynamics().StepHeld(inTimeStep);
        }
        if (!shape.BeginStep())
            ++mStateResets;
    }
}

void World::StepModes(Body& ioBody, double inTimeStep)
{
    DeformableShape& shape = *ioBody.shape;
    btRigidBody& rigid = *ioBody.rigidBody;
    ModalDynamics& dynamics = shape.Dynamics();
    // The generalised force over this step: the contact impulses of the last solve spread over the step (a
    // zero-order hold, so a steady load gives a steady deflection), plus, optionally, the inertial force of
    // the frame's motion over the last step (finite differences of Bullet's velocities). Then the exact
    // modal step.
    const std::size_t modes = dynamics.ModeCount();
    const std::span<const double> impulse = ShapeSolver::Of(shape).PendingImpulse();
    ioBody.heldImpulse.resize(modes, 0.0);
    mForce.assign(modes, 0.0);
    mKick.assign(modes, 0.0);
    for (std::size_t j = 0; j < modes; ++j)
    {
        // The change of the contacts' load since the last step: its kicked share at once, as the frame took it;
        // the rest held over the step with the load it changes (`ModalDynamics::KickedShare`).
        mKick[j] = dynamics.KickedShare(std::uint32_t(j), inTimeStep) * (impulse[j] - ioBody.heldImpulse[j]);
        mForce[j] = (impulse[j] - mKick[j]) / inTimeStep;
    }
    mInertial.assign(modes, 0.0);
    if (mSettings.inertialForcing && ioBody.hasPreviousVelocity)
    {
        FrameInertialForce(ioBody, inTimeStep, mInertial);
        for (std::size_t j = 0; j < modes; ++j)
            mForce[j] += mInertial[j];
    }
    // `ApplyForce`'s, held over this step only.
    for (std::size_t j = 0; j < std::min(modes, ioBody.userForce.size()); ++j)
        mForce[j] += ioBody.userForce[j];
    ioBody.userForce.clear();
    ioBody.previousLinearVelocity = rigid.getLinearVelocity();
    ioBody.previousAngularVelocity = rigid.getAngularVelocity();
    ioBody.hasPreviousVelocity = true;
    dynamics.ApplyImpulse(mKick);
    dynamics.Step(inTimeStep, mForce);
    ioBody.heldImpulse.assign(impulse.begin(), impulse.end());
    ioBody.heldInertial = mInertial;
    // Vibrating bodies stay awake: Bullet judges sleep by the frame's velocities only. The modes' kinetic
    // energy measures the vibration: the elastic energy of a steady load's deflection (a body resting in a
    // pile) is none, and neither is the step-to-step flicker of the load's equilibrium in a jittering pile
    // until it sets the modes moving.
    if (dynamics.KineticEnergy() > mSettings.wakeEnergyPerKg * shape.Settings().mass)
        rigid.activate(true);
}

void World::FrameInertialForce(const Body& inBody, double inTimeStep, std::vector<double>& outForce) const
{
    const DeformableShape& shape = *inBody.shape;
    const btRigidBody& rigid = *inBody.rigidBody;
    const btVector3 linear = rigid.getLinearVelocity();
    const btVector3 angular = rigid.getAngularVelocity();
    const Vec3d acceleration = ToVec3d(linear - inBody.previousLinearVelocity) / inTimeStep;
    const Vec3d angularAcceleration = ToVec3d(angular - inBody.previousAngularVelocity) / inTimeStep;
    const Mat3d restToWorld = shape.RestToWorld(rigid.getWorldTransform());
    outForce.assign(shape.Dynamics().ModeCount(), 0.0);
    InertialForce(shape.Asset().Modal(), shape.Settings().mass, double(shape.getLocalScaling().x()), restToWorld,
                  acceleration, ToVec3d(rigid.getGravity()), ToVec3d(angular), angularAcceleration, outForce);
}

void World::AddFixedImpulses()
{
    // The joints' and wheels' impulses of this solve, settled: the coupled solve holds them fixed. One pass over
    // them, each added to its body's pair (M entries, made at its first), so none is made where none presses.
    if (mJoints.empty() && mWheelPresses.empty())
        return;
    if (mCoupledFixed.size() < mCoupledBodies.size())
        mCoupledFixed.resize(mCoupledBodies.size());
    std::unordered_map<const DeformableShape*, std::size_t> coupled;
    for (std::size_t i = 0; i < mCoupledBodies.size(); ++i)
    {
        coupled.emplace(mCoupledBodies[i].shape, i);
        mCoupledFixed[i].first.clear();
        mCoupledFixed[i].second.clear();
    }
    const auto fixedOf = [&](const DeformableShape* inShape) -> std::pair<std::vector<double>, std::vector<double>>*
    {
        const auto found = inShape != nullptr ? coupled.find(inShape) : coupled.end();
        if (found == coupled.end())
            return nullptr;
        auto& fixed = mCoupledFixed[found->second];
        if (fixed.first.empty())
        {
            fixed.first.assign(inShape->Dynamics().ModeCount(), 0.0);
            fixed.second.assign(inShape->Dynamics().ModeCount(), 0.0);
        }
        return &fixed;
    };
    for (const JointWatch& watch : mJoints)
        for (int side = 0; side < 2 && watch.solve; ++side)
            if (auto* fixed = fixedOf(watch.solve->SolvedShape(side)))
                watch.solve->AddSolved(side, fixed->first, fixed->second);
    for (const auto& press : mWheelPresses)
    {
        auto* fixed = fixedOf(&press->Shape());
        if (fixed == nullptr || press->Solved().size() != fixed->first.size())
            continue;
        for (std::size_t j = 0; j < fixed->first.size(); ++j)
        {
            fixed->first[j] += press->Solved()[j];
            fixed->second[j] += press->SolvedInertial()[j];
        }
    }
    for (std::size_t i = 0; i < mCoupledBodies.size(); ++i)
    {
        mCoupledBodies[i].fixedImpulse = mCoupledFixed[i].first;
        mCoupledBodies[i].fixedInertial = mCoupledFixed[i].second;
    }
}

void World::SolveCoupledContacts(double inTimeStep)
{
    // The generalised impulse each predicting body's modes will hold over the modal step besides its contacts'
    // normal impulses: the inertial one, from the frame's motion as Bullet solved it (the coupled solve's w rows
    // carry how its own changes alter it), and the host's `ApplyForce`.
    mCoupledBodies.clear();
    if (mCoupledImpulses.size() < mBodies.size())
        mCoupledImpulses.resize(mBodies.size());
    for (std::size_t b = 0; b < mBodies.size(); ++b)
    {
        const Body& body = *mBodies[b];
        if (!ShapeSolver::Of(*body.shape).Predicting() || !body.rigidBody->isActive())
            continue;
        std::vector<double>& impulse = mCoupledImpulses[b];
        impulse.assign(body.shape->Dynamics().ModeCount(), 0.0);
        if (mSettings.inertialForcing && body.hasPreviousVelocity)
        {
            FrameInertialForce(body, inTimeStep, impulse);
            for (double& value : impulse)
                value *= inTimeStep;
        }
        // `ApplyForce`'s load, which the modal step holds over the step as it holds the inertial force: the
        // contacts and attachments that carry it are solved knowing it bends the body.
        for (std::size_t j = 0; j < std::min(impulse.size(), body.userForce.size()); ++j)
            impulse[j] += body.userForce[j] * inTimeStep;
        mCoupledBodies.push_back({body.shape.get(), impulse, {}, {}});
    }
    AddFixedImpulses();
    // The attachments are solved with the contacts (they share the modes).
    mCoupledAttachments.clear();
    for (auto& [id, attachment] : mAttachments)
        mCoupledAttachments.push_back(attachment.get());
    if (mCoupled == nullptr)
        mCoupled = std::make_unique<detail::CoupledContactSolver>();
    mCoupled->Solve(mWorld, mCoupledBodies, mCoupledAttachments, inTimeStep, mSettings.coupledSweeps,
                    mSettings.coupledTolerance);
}

void World::OnPostTick(double inTimeStep)
{
    const Clock::time_point start = Clock::now();
    const detail::PhaseTimes phases = detail::TakePhaseTimes();
    mConvergence->EndStep();
    mStats.collisionMs = phases.collision;
    mStats.solverMs = phases.solver;
    mStats.narrowphaseMs = phases.narrowphase;
    ++mStats.steps;
    if (!mRigid && mSettings.coupledSweeps > 0)
        SolveCoupledContacts(inTimeStep);
    ReadImpulses();
    ReleaseJoints(inTimeStep); // the host's joints' impulses, likewise
    LoadWheels(inTimeStep);
    // The attachments' impulses reach the modes as the contacts' do: held over the modal step below.
    for (auto& [id, attachment] : mAttachments)
        attachment->AddPendingImpulse();

    mStats.spheresUpdated = 0;
    mStats.overlapTests = 0;
    mStats.narrowphase = {};
    mStats.vibrationEnergy = 0.0;
    std::uint64_t clamped = 0, rejected = 0, resets = 0;
    mSweeps = 0;
    for (std::unique_ptr<Body>& body : mBodies)
    {
        DeformableShape& shape = *body->shape;
        btRigidBody& rigid = *body->rigidBody;
        mStats.spheresUpdated += shape.State().SpheresUpdated();
        mStats.overlapTests += shape.Stats().overlapTests;
        mStats.narrowphase.Add(shape.Narrowphase());
        // A non-finite frame never spreads: back to the last good transform, at rest. So is a body that Bullet
        // took out of the simulation in this step for a box too large (`updateSingleAabb`: a placement so far
        // out, 1e30, that its box's float extent overflows), instead of hanging there for good.
        const btTransform& transform = rigid.getWorldTransform();
        const bool droppedByBullet = body->simulatedAtPreTick && rigid.getActivationState() == DISABLE_SIMULATION;
        if (IsFinite(transform) && IsFinite(rigid.getLinearVelocity()) && IsFinite(rigid.getAngularVelocity()) &&
            !droppedByBullet)
        {
            if (mSettings.sweepFastBodies)
                SweepFastBody(*body, inTimeStep);
            body->lastGoodTransform = rigid.getWorldTransform();
        }
        else
        {
            RestoreBody(*body);
        }
    }
    StepAllModes(inTimeStep);
    for (const std::unique_ptr<Body>& body : mBodies)
    {
        const ModalDynamics& dynamics = body->shape->Dynamics();
        mStats.vibrationEnergy += dynamics.Energy();
        const ModalGuardStats& guard = dynamics.GuardStats();
        clamped += guard.clamped;
        rejected += guard.rejectedImpulses;
        resets += guard.resets;
    }
    mStats.sweeps = mSweeps;
    mStats.clamped = clamped;
    mStats.rejected = rejected;
    mStats.modalResets = resets + mStateResets;
    mStats.postSolveMs = Milliseconds(start);
}

void World::SweepFastBody(Body& ioBody, double inTimeStep)
{
    btRigidBody& rigid = *ioBody.rigidBody;
    if (rigid.getInvMass() == 0 || !rigid.hasContactResponse() || rigid.getBroadphaseHandle() == nullptr)
        return;
    const btVector3 from = ioBody.stepStart;
    const btVector3 to = rigid.getWorldTransform().getOrigin();
    const double travel = double((to - from).length());
    const double threshold = mSettings.sweepTravelFraction * ioBody.shape->Asset().BoundingRadius() *
                             double(ioBody.shape->getLocalScaling().x());
    if (!(travel > threshold) || !std::isfinite(travel))
        return;
    ++mSweeps;
    // The sphere about the centre of mass that holds the whole deformed surface: where it first touches
    // something, no part of the body is in it yet.
    const double reach = ioBody.shape->SurfaceReach();
    const detail::SweepHit hit = detail::SweepSphere(mWorld, rigid, from, to, btScalar(reach), btScalar(inTimeStep),
                                                     btScalar(threshold));
    if (hit.object == nullptr)
        return;
    btTransform stopped = rigid.getWorldTransform();
    stopped.setOrigin(from.lerp(to, hit.fraction));
    PlaceBody(rigid, stopped);
    // The impact the step skipped, as an impulse along the hit's normal through the centres of mass, with the
    // contact's restitution (Bullet's product of the two): the approach along the normal stops (or bounces)
    // here, momentum is kept, and what is left reaches the contact slowly enough for the next steps' contacts.
    btRigidBody* other = btRigidBody::upcast(const_cast<btCollisionObject*>(hit.object));
    const btScalar otherInvMass = other != nullptr ? other->getInvMass() : btScalar(0);
    const btVector3 otherVelocity = other != nullptr ? other->getLinearVelocity() : btVector3(0, 0, 0);
    const btScalar approach = (rigid.getLinearVelocity() - otherVelocity).dot(hit.normal);
    if (approach < 0 && IsFinite(hit.normal))
    {
        const btScalar restitution = rigid.getRestitution() * hit.object->getRestitution();
        const btScalar impulse = -(1 + restitution) * approach / (rigid.getInvMass() + otherInvMass);
        rigid.setLinearVelocity(rigid.getLinearVelocity() + hit.normal * (impulse * rigid.getInvMass()));
        if (other != nullptr && otherInvMass > 0)
        {
            other->setLinearVelocity(otherVelocity - hit.normal * (impulse * otherInvMass));
            other->activate(true);
        }
    }
    ++mStats.sweepStops;
}

void World::ReadImpulses()
{
    // Every manifold that touches a deformable body: its points' impulses, as the solver left them, are
    // applied at the proxies they came from: the normal impulse, and the friction impulse where the contact
    // slides (`detail::Slides`; a sticking contact's friction is statically indeterminate for the rigid solve
    // and would load the modes with whatever self-balanced share the solver's iterations left, step after
    // step). The narrowphase stores the proxy of body0 in m_index0 and, when body1 is deformable too, its
    // proxy in m_index1. Then, with `modalContactConstraint`, each point's contact constraint on the modes
    // (`detail::ConstrainPointModes`). Both work along the point's normal through one coupling a side
    // (`ShapeSolver::ProxyCoupling`): the normal impulse adds λ times it (`AccumulateImpulse`), a
    // sliding point's friction is projected on its own; points without impulse are skipped. The impulses go
    // to the pending impulse, and the constraint reads and changes q̇ only: the two are independent, each
    // walking the manifolds in the dispatcher's order. With a `ParallelDispatcher` of two threads or more
    // they walk at once, one on a helper thread (their results are those of one walk doing both, bit for
    // bit); otherwise one walk does both, touching each manifold once.
    const bool constrain = !mRigid && mSettings.modalContactConstraint;
    if (!constrain || mWorld.getDispatcher()->getNumManifolds() < mSettings.parallelReadBackManifolds ||
        !HasHelperThreads())
    {
        WalkManifolds(constrain ? EWalk::Both : EWalk::Impulses, nullptr);
        return;
    }
    // Both walks read the bodies' rest-to-world fits: made now, once a body (every deformable in the world,
    // ours or not), so that they only read them.
    const btCollisionObjectArray& objects = mWorld.getCollisionObjectArray();
    for (int i = 0; i < objects.size(); ++i)
        if (const DeformableShape* shape = AsDeformable(objects[i]->getCollisionShape()))
            shape->RestToWorld(objects[i]->getWorldTransform());
    // A non-finite impulse is counted by the body's guard, which the constraint's walk may count in too:
    // those are given to their bodies after the join (they change nothing but that count).
    std::vector<DeferredImpulse> deferred;
    {
        std::jthread constraints([this] { WalkManifolds(EWalk::Constraints, nullptr); });
        WalkManifolds(EWalk::Impulses, &deferred);
    } // joined
    for (const DeferredImpulse& impulse : deferred)
        ShapeSolver::Of(*impulse.shape)
            .AccumulateImpulse(impulse.feature, impulse.impulse, Mat3d::Identity());
}

bool World::HasHelperThreads() const
{
    const auto* dispatcher = dynamic_cast<const ParallelDispatcher*>(mWorld.getDispatcher());
    return dispatcher != nullptr && dispatcher->Threads() >= 2;
}

void World::WalkManifolds(EWalk inWalk, std::vector<DeferredImpulse>* outDeferred)
{
    const bool impulses = inWalk != EWalk::Constraints;
    const bool constrain = inWalk != EWalk::Impulses;
    const btContactSolverInfo& info = mWorld.getSolverInfo();
    btDispatcher& dispatcher = *mWorld.getDispatcher();
    std::uint64_t contacts = 0, manifolds = 0;
    const int count = dispatcher.getNumManifolds();
    thread_local std::vector<double> coupling[2]; // a point's couplings, one a side
    // A pile's manifolds, bodies and shapes are scattered over tens of megabytes, and each is a chain of
    // loads (manifold → body → shape): fetched ahead in three stages, the walk waits on one miss at a time
    // instead of three in a row.
    const auto manifoldAt = [&](int inIndex) { return dispatcher.getManifoldByIndexInternal(inIndex); };
    for (int m = 0; m < count; ++m)
    {
        if (m + 8 < count)
            PrefetchBytes(manifoldAt(m + 8), sizeof(btPersistentManifold));
        if (m + 4 < count)
            for (const btCollisionObject* object : {manifoldAt(m + 4)->getBody0(), manifoldAt(m + 4)->getBody1()})
                PrefetchBytes(object, sizeof(btCollisionObject));
        if (m + 2 < count)
            for (const btCollisionObject* object : {manifoldAt(m + 2)->getBody0(), manifoldAt(m + 2)->getBody1()})
                PrefetchBytes(object->getCollisionShape(), 64);
        const btPersistentManifold* manifold = manifoldAt(m);
        const btCollisionObject* object0 = manifold->getBody0();
        const btCollisionObject* object1 = manifold->getBody1();
        DeformableShape* shape0 = AsDeformable(const_cast<btCollisionShape*>(object0->getCollisionShape()));
        DeformableShape* shape1 = AsDeformable(const_cast<btCollisionShape*>(object1->getCollisionShape()));
        if (shape0 == nullptr && shape1 == nullptr)
            continue;
        ++manifolds;
        const int points = manifold->getNumContacts();
        contacts += std::uint64_t(points);
        if (mRigid || points == 0)
            continue;
        // Each body's rest-to-world rotation once per manifold, not once per point.
        const Mat3d rotation0 =
            shape0 != nullptr ? shape0->RestToWorld(object0->getWorldTransform()) : Mat3d::Identity();
        const Mat3d rotation1 =
            shape1 != nullptr ? shape1->RestToWorld(object1->getWorldTransform()) : Mat3d::Identity();
        // Modes not stepped this step (static, asleep) take no part in the constraint.
        DeformableShape* const shapes[2] = {shape0, shape1};
        const bool predicting[2] = {constrain && shape0 != nullptr && ShapeSolver::Of(*shape0).Predicting(),
                                    constrain && shape1 != nullptr && ShapeSolver::Of(*shape1).Predicting()};
        const Mat3d* const rotations[2] = {&rotation0, &rotation1};
        for (int p = 0; p < points; ++p)
        {
            const btManifoldPoint& point = manifold->getContactPoint(p);
            const bool slides = impulses && detail::Slides(point, *object0, *object1, info);
            const btVector3 friction = slides
                                           ? point.m_lateralFrictionDir1 * point.m_appliedImpulseLateral1 +
                                                 point.m_lateralFrictionDir2 * point.m_appliedImpulseLateral2
                                           : btVector3(0, 0, 0);
            btVector3 impulse = point.m_normalWorldOnB * point.m_appliedImpulse;
            if (slides)
                impulse += friction;
            // A point the solver left without impulse (a speculative contact that did not close) loads
            // nothing and is not constrained.
            if (impulse == btVector3(0, 0, 0))
                continue;
            const bool finite = IsFinite(impulse);
            // Where each side's impulse acts: its proxy, and in the surface model the point of its surface.
            ContactFeature features[2];
            for (int side = 0; side < 2; ++side)
                if (shapes[side] != nullptr)
                    features[side] = FeatureOf(point, side, *shapes[side]);
            // Each side's coupling along the normal, made once for both parts: the normal impulse's
            // generalised impulse is λ times it, and the constraint works along it. (A split read-back's two
            // walks make the same couplings: their results are those of one walk, bit for bit.)
            std::span<const double> couplings[2];
            const Vec3d normal = ToVec3d(point.m_normalWorldOnB);
            for (int side = 0; side < 2; ++side)
            {
                const bool needed = (impulses && finite) || (predicting[side] && point.m_appliedImpulse > 0);
                if (shapes[side] == nullptr || features[side].node == cNoIndex || !needed)
                    continue;
                coupling[side].resize(shapes[side]->Dynamics().ModeCount());
                if (ShapeSolver::Of(*shapes[side])
                        .Coupling(features[side], normal, *rotations[side], coupling[side]))
                    couplings[side] = coupling[side];
            }
            for (int side = 0; impulses && side < 2; ++side)
            {
                if (shapes[side] == nullptr || features[side].node == cNoIndex)
                    continue;
                const btScalar sign = side == 0 ? btScalar(1) : btScalar(-1);
                ShapeSolver& solver = ShapeSolver::Of(*shapes[side]);
                if (!finite)
                {
                    // Counted by the body's guard, now or (a split read-back) after the join.
                    if (outDeferred != nullptr)
                        outDeferred->push_back({shapes[side], features[side], sign * impulse});
                    else
                        solver.AccumulateImpulse(features[side], sign * impulse, *rotations[side]);
                    continue;
                }
                if (couplings[side].empty())
                    continue; // a node outside the body's tree takes nothing
                solver.AccumulateImpulse(couplings[side], double(sign * point.m_appliedImpulse));
                if (slides)
                    solver.AccumulateImpulse(features[side], sign * friction, *rotations[side]);
            }
            if (constrain)
            {
                const std::span<const double> constrained[2] = {
                    predicting[0] ? couplings[0] : std::span<const double>(),
                    predicting[1] ? couplings[1] : std::span<const double>()};
                detail::ConstrainPointModes(point, shapes, constrained, info);
            }
        }
    }
    if (impulses)
    {
        mStats.contacts = contacts;
        mStats.manifolds = manifolds;
    }
}

} // namespace bdt
