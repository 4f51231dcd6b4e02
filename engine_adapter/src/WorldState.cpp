// bdt::World::SaveState and LoadState: snapshots of the bodies' state (World.h).

#include "WheelPress.h"
#include "WorldBody.h"

#include "bullet/ShapeSolver.h"
#include "core/base/Fnv1a.h"

#include <BulletCollision/BroadphaseCollision/btBroadphaseInterface.h>
#include <BulletCollision/BroadphaseCollision/btOverlappingPairCache.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <algorithm>
#include <bdt/bullet/Conversions.h>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <cstring>
#include <string>

namespace bdt
{

namespace
{

constexpr char cMagic[8] = {'B', 'D', 'T', 'S', 'T', 'A', 'T', 'E'};
// 2: the previous step's transform and q; 3: the attachments; 4: joints; 5: the watched wheels' loads.
constexpr std::uint32_t cVersion = 5;

/// Appends values to a snapshot, native byte order.
class Writer
{
public:
    template <typename T> void Put(const T& inValue)
    {
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(&inValue);
        mBytes.insert(mBytes.end(), bytes, bytes + sizeof(T));
    }
    void Put(const btVector3& inVector)
    {
        for (int k = 0; k < 3; ++k)
            Put(double(inVector[k]));
    }
    void Put(const btTransform& inTransform)
    {
        for (int row = 0; row < 3; ++row)
            Put(inTransform.getBasis()[row]);
        Put(inTransform.getOrigin());
    }
    void Put(std::span<const double> inValues)
    {
        Put(std::uint32_t(inValues.size()));
        for (const double value : inValues)
            Put(value);
    }
    std::vector<std::uint8_t>& Bytes() { return mBytes; }

private:
    std::vector<std::uint8_t> mBytes;
};

/// Reads a snapshot back; throws `bdt::Error` past its end.
class Reader
{
public:
    explicit Reader(std::span<const std::uint8_t> inBytes) : mBytes(inBytes) {}
    template <typename T> T Get()
    {
        if (mBytes.size() - mAt < sizeof(T))
            throw Error("state snapshot: truncated");
        T value;
        std::memcpy(&value, mBytes.data() + mAt, sizeof(T));
        mAt += sizeof(T);
        return value;
    }
    btVector3 GetVector()
    {
        const double x = Get<double>(), y = Get<double>(), z = Get<double>();
        return btVector3(btScalar(x), btScalar(y), btScalar(z));
    }
    btTransform GetTransform()
    {
        btMatrix3x3 basis;
        for (int row = 0; row < 3; ++row)
            basis[row] = GetVector();
        const btVector3 origin = GetVector();
        return btTransform(basis, origin);
    }
    std::vector<double> GetValues(std::size_t inMax)
    {
        const std::uint32_t count = Get<std::uint32_t>();
        if (count > inMax)
            throw Error("state snapshot: a list of " + std::to_string(count) + " values where at most " +
                        std::to_string(inMax) + " fit");
        std::vector<double> values(count);
        for (double& value : values)
            value = Get<double>();
        return values;
    }
    /// The count of a list of `inWhat`, each at least `inItemBytes` long: refused (not allocated) when they could
    /// not fit in what is left.
    std::uint32_t GetCount(std::size_t inItemBytes, const char* inWhat)
    {
        const std::uint32_t count = Get<std::uint32_t>();
        const std::size_t left = mBytes.size() - mAt;
        if (std::uint64_t(count) * inItemBytes > left)
            throw Error("state snapshot: " + std::to_string(count) + " " + inWhat + " where at most " +
                        std::to_string(left / inItemBytes) + " fit");
        return count;
    }
    bool AtEnd() const { return mAt == mBytes.size(); }

private:
    std::span<const std::uint8_t> mBytes;
    std::size_t mAt = 0;
};

/// One body's part of a snapshot, read and checked before anything is applied.
struct BodyState
{
    btTransform transform, interpolationTransform, lastGoodTransform, previousTransform;
    btVector3 linearVelocity, angularVelocity, interpolationLinearVelocity, interpolationAngularVelocity;
    btVector3 totalForce, totalTorque, gravity, inverseInertia, lastGoodInverseInertia;
    btVector3 previousLinearVelocity, previousAngularVelocity;
    btScalar inverseMass = 0, lastGoodInverseMass = 0, deactivationTime = 0;
    std::int32_t activationState = 0;
    bool hasPreviousVelocity = false;
    std::vector<double> heldImpulse, heldInertial, userForce, q, qDot, equilibrium, pending, previousQ;
    ModalGuardStats guard;
};

/// One attachment's part of a snapshot: which bodies and points it holds (to recognise it) and its impulses.
struct AttachmentState
{
    std::int32_t bodies[2] = {-1, -1}; ///< Indices among the World's bodies, −1 for another body.
    std::uint32_t triangles[2] = {0, 0};
    Vec3d held = Vec3d::Zero();
    btVector3 last{0, 0, 0};
};

bool AllFinite(std::span<const double> inValues)
{
    return std::all_of(inValues.begin(), inValues.end(), [](double v) { return std::isfinite(v); });
}

// One body's state as `SaveState` wrote it after the body's asset sizes, for a body of `inModes` modes.
BodyState ReadBodyState(Reader& ioIn, std::uint32_t inModes)
{
    BodyState state;
    state.transform = ioIn.GetTransform();
    state.interpolationTransform = ioIn.GetTransform();
    state.linearVelocity = ioIn.GetVector();
    state.angularVelocity = ioIn.GetVector();
    state.interpolationLinearVelocity = ioIn.GetVector();
    state.interpolationAngularVelocity = ioIn.GetVector();
    state.totalForce = ioIn.GetVector();
    state.totalTorque = ioIn.GetVector();
    state.gravity = ioIn.GetVector();
    state.inverseMass = btScalar(ioIn.Get<double>());
    state.inverseInertia = ioIn.GetVector();
    state.activationState = ioIn.Get<std::int32_t>();
    state.deactivationTime = btScalar(ioIn.Get<double>());
    state.lastGoodTransform = ioIn.GetTransform();
    state.lastGoodInverseMass = btScalar(ioIn.Get<double>());
    state.lastGoodInverseInertia = ioIn.GetVector();
    state.previousLinearVelocity = ioIn.GetVector();
    state.previousAngularVelocity = ioIn.GetVector();
    state.hasPreviousVelocity = ioIn.Get<std::uint8_t>() != 0;
    state.heldImpulse = ioIn.GetValues(inModes);
    state.heldInertial = ioIn.GetValues(inModes);
    state.userForce = ioIn.GetValues(inModes);
    state.q = ioIn.GetValues(inModes);
    state.qDot = ioIn.GetValues(inModes);
    state.equilibrium = ioIn.GetValues(inModes);
    state.pending = ioIn.GetValues(inModes);
    state.guard.clamped = ioIn.Get<std::uint64_t>();
    state.guard.rejectedImpulses = ioIn.Get<std::uint64_t>();
    state.guard.resets = ioIn.Get<std::uint64_t>();
    state.previousTransform = ioIn.GetTransform();
    state.previousQ = ioIn.GetValues(inModes);
    return state;
}

// Whether every value of a read body state is finite and every list and the activation state fit.
bool InRange(const BodyState& inState, std::uint32_t inModes)
{
    const BodyState& s = inState;
    const bool finite = IsFinite(s.transform) && IsFinite(s.interpolationTransform) && IsFinite(s.lastGoodTransform) &&
                        IsFinite(s.linearVelocity) && IsFinite(s.angularVelocity) && IsFinite(s.totalForce) &&
                        IsFinite(s.totalTorque) && IsFinite(s.gravity) && std::isfinite(s.inverseMass) &&
                        IsFinite(s.inverseInertia) && AllFinite(s.q) && AllFinite(s.qDot) &&
                        AllFinite(s.equilibrium) && AllFinite(s.pending) && AllFinite(s.heldImpulse) &&
                        AllFinite(s.heldInertial) && AllFinite(s.userForce) && IsFinite(s.previousTransform) &&
                        AllFinite(s.previousQ);
    return finite && s.q.size() == inModes && s.qDot.size() == inModes && s.equilibrium.size() == inModes &&
           s.pending.size() == inModes && s.previousQ.size() == inModes && s.activationState >= ACTIVE_TAG &&
           s.activationState <= DISABLE_SIMULATION;
}

// Bullet's part of a body's state: mass properties, placement, velocities, forces, activation.
void RestoreRigid(btRigidBody& ioRigid, const BodyState& inState)
{
    if (ioRigid.getInvMass() != inState.inverseMass || ioRigid.getInvInertiaDiagLocal() != inState.inverseInertia)
    {
        auto inverse = [](btScalar inValue) { return inValue > 0 ? 1 / inValue : btScalar(0); };
        ioRigid.setMassProps(inverse(inState.inverseMass),
                             btVector3(inverse(inState.inverseInertia.x()), inverse(inState.inverseInertia.y()),
                                       inverse(inState.inverseInertia.z())));
    }
    World::PlaceBody(ioRigid, inState.transform);
    ioRigid.setInterpolationWorldTransform(inState.interpolationTransform);
    ioRigid.updateInertiaTensor();
    ioRigid.setLinearVelocity(inState.linearVelocity);
    ioRigid.setAngularVelocity(inState.angularVelocity);
    ioRigid.setInterpolationLinearVelocity(inState.interpolationLinearVelocity);
    ioRigid.setInterpolationAngularVelocity(inState.interpolationAngularVelocity);
    ioRigid.setGravity(inState.gravity);
    ioRigid.clearForces();
    ioRigid.applyCentralForce(inState.totalForce);
    ioRigid.applyTorque(inState.totalTorque);
    ioRigid.forceActivationState(inState.activationState);
    ioRigid.setDeactivationTime(inState.deactivationTime);
}

} // namespace

std::vector<std::uint8_t> World::SaveState() const
{
    Writer out;
    for (const char c : cMagic)
        out.Put(c);
    out.Put(cVersion);
    out.Put(std::uint32_t(mBodies.size()));
    for (const std::unique_ptr<Body>& body : mBodies)
    {
        const btRigidBody& rigid = *body->rigidBody;
        const DeformableShape& shape = *body->shape;
        const ModalDynamics& dynamics = shape.Dynamics();
        const Model& model = shape.Asset().GetModel();
        out.Put(std::uint32_t(model.VertexCount()));
        out.Put(std::uint32_t(model.TriangleCount()));
        out.Put(std::uint32_t(dynamics.ModeCount()));
        out.Put(rigid.getWorldTransform());
        out.Put(rigid.getInterpolationWorldTransform());
        out.Put(rigid.getLinearVelocity());
        out.Put(rigid.getAngularVelocity());
        out.Put(rigid.getInterpolationLinearVelocity());
        out.Put(rigid.getInterpolationAngularVelocity());
        out.Put(rigid.getTotalForce());
        out.Put(rigid.getTotalTorque());
        out.Put(rigid.getGravity());
        out.Put(double(rigid.getInvMass()));
        out.Put(rigid.getInvInertiaDiagLocal());
        out.Put(std::int32_t(rigid.getActivationState()));
        out.Put(double(rigid.getDeactivationTime()));
        out.Put(body->lastGoodTransform);
        out.Put(double(body->lastGoodInverseMass));
        out.Put(body->lastGoodInverseInertia);
        out.Put(body->previousLinearVelocity);
        out.Put(body->previousAngularVelocity);
        out.Put(std::uint8_t(body->hasPreviousVelocity));
        out.Put(std::span<const double>(body->heldImpulse));
        out.Put(std::span<const double>(body->heldInertial));
        out.Put(std::span<const double>(body->userForce));
        out.Put(dynamics.QDouble());
        out.Put(dynamics.QDot());
        out.Put(dynamics.Equilibrium());
        out.Put(ShapeSolver::Of(shape).PendingImpulse());
        out.Put(dynamics.GuardStats().clamped);
        out.Put(dynamics.GuardStats().rejectedImpulses);
        out.Put(dynamics.GuardStats().resets);
        out.Put(body->previousTransform);
        const std::vector<double> previousQ(body->previousQ.begin(), body->previousQ.end());
        out.Put(std::span<const double>(previousQ));
    }
    out.Put(std::uint32_t(mAttachments.size()));
    for (const auto& [id, attachment] : mAttachments)
    {
        for (int side = 0; side < 2; ++side)
        {
            const detail::AttachmentSide& held = side == 0 ? attachment->SideA() : attachment->SideB();
            out.Put(BodyIndex(held.body));
            out.Put(held.shape != nullptr ? held.triangle : std::uint32_t(0));
        }
        for (int k = 0; k < 3; ++k)
            out.Put(attachment->HeldImpulse()[k]);
        out.Put(attachment->LastImpulse());
    }
    // The host's joints that hold our bodies: the impulse their next solve starts from (HostJointSolve::Held).
    std::vector<const JointWatch*> joints;
    for (const JointWatch& watch : mJoints)
        if (watch.constraint != nullptr && watch.solve)
            joints.push_back(&watch);
    out.Put(std::uint32_t(joints.size()));
    for (const JointWatch* watch : joints)
    {
        std::int32_t index = -1;
        for (int i = 0; i < mWorld.getNumConstraints() && index < 0; ++i)
            if (mWorld.getConstraint(i) == watch->constraint)
                index = i;
        out.Put(index);
        for (int side = 0; side < 2; ++side)
        {
            out.Put(watch->bodies[side] != nullptr ? BodyIndex(watch->bodies[side]->rigidBody.get()) : -1);
            out.Put(watch->solve->Held(side));
            out.Put(watch->solve->HeldInertial(side));
        }
    }
    // The watched wheels' loads for the next solve (`LoadWheels`) and, a body pressed, the last solve's impulse
    // their change is from (`WheelPress::Held`).
    out.Put(std::uint32_t(mWheelLoads.size()));
    for (const WheelLoad& load : mWheelLoads)
    {
        out.Put(BodyIndex(load.body));
        out.Put(load.point);
        out.Put(load.impulse);
    }
    out.Put(std::uint32_t(mWheelPresses.size()));
    for (const auto& press : mWheelPresses)
    {
        out.Put(BodyIndex(&press->getRigidBodyA()));
        out.Put(press->Held());
        out.Put(press->HeldInertial());
    }
    std::vector<std::uint8_t>& bytes = out.Bytes();
    const std::uint64_t checksum = Fnv1a64::Of(bytes);
    const auto* checksumBytes = reinterpret_cast<const std::uint8_t*>(&checksum);
    bytes.insert(bytes.end(), checksumBytes, checksumBytes + sizeof(checksum));
    return std::move(bytes);
}

/// A snapshot read and checked in full before anything is restored (`World::LoadState`), so that a bad one changes
/// nothing. A member of World, for its bodies, attachments and joints.
struct World::SnapshotLoad
{
    struct JointState
    {
        btTypedConstraint* joint = nullptr;
        std::vector<double> held[2], inertial[2];
    };
    struct PressState
    {
        Body* body = nullptr;
        std::vector<double> held, inertial;
    };

    World& world;
    std::uint32_t version = 0;
    std::vector<BodyState> bodies;
    std::vector<AttachmentState> attachments;
    std::vector<JointState> joints;
    std::vector<WheelLoad> wheelLoads;
    std::vector<PressState> presses;

    void ReadBodies(Reader& ioIn);
    void ReadAttachments(Reader& ioIn);
    void ReadJoints(Reader& ioIn);
    void ReadWheels(Reader& ioIn);
    void RestoreBodies();
    void RestoreConstraints();
    /// Our body `inIndex`, for `inWhat` `inItem` of the snapshot; throws out of range.
    Body& BodyAt(std::int32_t inIndex, const char* inWhat, std::size_t inItem) const;
};

void World::SnapshotLoad::ReadBodies(Reader& ioIn)
{
    const std::uint32_t count = ioIn.Get<std::uint32_t>();
    if (count != world.mBodies.size())
        throw Error("state snapshot: of a world with " + std::to_string(count) + " bodies, this one has " +
                    std::to_string(world.mBodies.size()));
    bodies.resize(count);
    for (std::uint32_t b = 0; b < count; ++b)
    {
        const Body& body = *world.mBodies[b];
        const Model& model = body.shape->Asset().GetModel();
        const std::uint32_t modes = body.shape->Dynamics().ModeCount();
        const std::uint32_t vertices = ioIn.Get<std::uint32_t>(), triangles = ioIn.Get<std::uint32_t>(),
                            savedModes = ioIn.Get<std::uint32_t>();
        if (vertices != model.VertexCount() || triangles != model.TriangleCount() || savedModes != modes)
            throw Error("state snapshot: body " + std::to_string(b) + " is of another asset (" +
                        std::to_string(vertices) + " vertices, " + std::to_string(triangles) + " triangles, " +
                        std::to_string(savedModes) + " modes)");
        bodies[b] = ReadBodyState(ioIn, modes);
        if (!InRange(bodies[b], modes))
            throw Error("state snapshot: body " + std::to_string(b) + " holds values out of range");
    }
}

void World::SnapshotLoad::ReadAttachments(Reader& ioIn)
{
    const std::uint32_t count = ioIn.Get<std::uint32_t>();
    if (count != world.mAttachments.size())
        throw Error("state snapshot: of a world with " + std::to_string(count) + " attachments, this one has " +
                    std::to_string(world.mAttachments.size()));
    attachments.resize(count);
    for (std::uint32_t a = 0; a < count; ++a)
    {
        AttachmentState& state = attachments[a];
        const detail::SurfaceAttachment& attachment = *world.mAttachments[a].second;
        bool same = true;
        for (int side = 0; side < 2; ++side)
        {
            const detail::AttachmentSide& held = side == 0 ? attachment.SideA() : attachment.SideB();
            state.bodies[side] = ioIn.Get<std::int32_t>();
            state.triangles[side] = ioIn.Get<std::uint32_t>();
            same = same && state.bodies[side] == world.BodyIndex(held.body) &&
                   state.triangles[side] == (held.shape != nullptr ? held.triangle : 0u);
        }
        for (int k = 0; k < 3; ++k)
            state.held[k] = ioIn.Get<double>();
        state.last = ioIn.GetVector();
        if (!same)
            throw Error("state snapshot: attachment " + std::to_string(a) + " holds other bodies or points");
        if (!state.held.allFinite() || !IsFinite(state.last))
            throw Error("state snapshot: attachment " + std::to_string(a) + " holds values out of range");
    }
}

void World::SnapshotLoad::ReadJoints(Reader& ioIn)
{
    // Version 3 has no joints: they start from no held impulse. A joint: its index, then per side a body and two
    // lists' counts (bytes, at the least).
    joints.resize(version >= 4 ? ioIn.GetCount(4 + 2 * 12, "joints") : 0u);
    btDiscreteDynamicsWorld& bullet = world.mWorld;
    for (std::size_t j = 0; j < joints.size(); ++j)
    {
        const std::int32_t index = ioIn.Get<std::int32_t>();
        if (index < 0 || index >= bullet.getNumConstraints())
            throw Error("state snapshot: joint " + std::to_string(j) + " is constraint " + std::to_string(index) +
                        ", this world has " + std::to_string(bullet.getNumConstraints()));
        btTypedConstraint* joint = bullet.getConstraint(index);
        bool same = true;
        for (int side = 0; side < 2; ++side)
        {
            const std::int32_t body = ioIn.Get<std::int32_t>();
            const btRigidBody& held = side == 0 ? joint->getRigidBodyA() : joint->getRigidBodyB();
            const std::uint32_t modes = body >= 0 && std::size_t(body) < world.mBodies.size()
                                            ? world.mBodies[body]->shape->Dynamics().ModeCount()
                                            : 0;
            joints[j].held[side] = ioIn.GetValues(modes);
            joints[j].inertial[side] = ioIn.GetValues(modes);
            same = same && (body < 0 || world.BodyIndex(&held) == body);
            if (!AllFinite(joints[j].held[side]) || !AllFinite(joints[j].inertial[side]) ||
                (joints[j].held[side].size() != 0 && joints[j].held[side].size() != modes) ||
                joints[j].held[side].size() != joints[j].inertial[side].size())
                throw Error("state snapshot: joint " + std::to_string(j) + " holds values out of range");
        }
        if (!same)
            throw Error("state snapshot: joint " + std::to_string(j) + " is not this world's (constraint " +
                        std::to_string(index) + ")");
        joints[j].joint = joint;
    }
}

World::Body& World::SnapshotLoad::BodyAt(std::int32_t inIndex, const char* inWhat, std::size_t inItem) const
{
    if (inIndex < 0 || std::size_t(inIndex) >= world.mBodies.size())
        throw Error(std::string("state snapshot: ") + inWhat + " " + std::to_string(inItem) + " presses body " +
                    std::to_string(inIndex) + ", this world has " + std::to_string(world.mBodies.size()));
    return *world.mBodies[std::size_t(inIndex)];
}

void World::SnapshotLoad::ReadWheels(Reader& ioIn)
{
    // Version 4 and older have no wheels' loads: none pressed. A wheel load: a body and two vectors; a press: a
    // body and two lists' counts (bytes, at the least).
    wheelLoads.resize(version >= 5 ? ioIn.GetCount(4 + 6 * 8, "wheel loads") : 0u);
    for (std::size_t w = 0; w < wheelLoads.size(); ++w)
    {
        wheelLoads[w].body = BodyAt(ioIn.Get<std::int32_t>(), "wheel load", w).rigidBody.get();
        wheelLoads[w].point = ioIn.GetVector();
        wheelLoads[w].impulse = ioIn.GetVector();
        if (!IsFinite(wheelLoads[w].point) || !IsFinite(wheelLoads[w].impulse))
            throw Error("state snapshot: wheel load " + std::to_string(w) + " holds values out of range");
    }
    presses.resize(version >= 5 ? ioIn.GetCount(4 + 2 * 4, "wheel presses") : 0u);
    for (std::size_t p = 0; p < presses.size(); ++p)
    {
        PressState& press = presses[p];
        press.body = &BodyAt(ioIn.Get<std::int32_t>(), "wheel press", p);
        const std::uint32_t modes = press.body->shape->Dynamics().ModeCount();
        press.held = ioIn.GetValues(modes);
        press.inertial = ioIn.GetValues(modes);
        if (!AllFinite(press.held) || !AllFinite(press.inertial) || press.held.size() != press.inertial.size() ||
            (!press.held.empty() && press.held.size() != modes))
            throw Error("state snapshot: wheel press " + std::to_string(p) + " holds values out of range");
    }
}

void World::SnapshotLoad::RestoreBodies()
{
    for (std::size_t b = 0; b < bodies.size(); ++b)
    {
        Body& body = *world.mBodies[b];
        const BodyState& state = bodies[b];
        btRigidBody& rigid = *body.rigidBody;
        RestoreRigid(rigid, state);
        body.lastGoodTransform = state.lastGoodTransform;
        body.lastGoodInverseMass = state.lastGoodInverseMass;
        body.lastGoodInverseInertia = state.lastGoodInverseInertia;
        body.previousLinearVelocity = state.previousLinearVelocity;
        body.previousAngularVelocity = state.previousAngularVelocity;
        body.hasPreviousVelocity = state.hasPreviousVelocity;
        body.heldImpulse = state.heldImpulse;
        body.heldInertial = state.heldInertial;
        body.userForce = state.userForce;
        body.previousTransform = state.previousTransform;
        body.previousQ.assign(state.previousQ.begin(), state.previousQ.end());
        ModalDynamics& dynamics = body.shape->Dynamics();
        const bool restored = dynamics.SetState(state.q, state.qDot) &&
                              dynamics.SetEquilibrium(state.equilibrium) &&
                              ShapeSolver::Of(*body.shape).SetPendingImpulse(state.pending);
        (void)restored; // checked when read: sizes and finiteness
        dynamics.ContinueGuardStats(state.guard);
        ShapeSolver::Of(*body.shape).ForgetPieceUse();
        body.shape->BeginStep();
        if (btBroadphaseProxy* proxy = rigid.getBroadphaseHandle())
        {
            world.mWorld.getBroadphase()->getOverlappingPairCache()->cleanProxyFromPairs(proxy,
                                                                                         world.mWorld.getDispatcher());
            world.mWorld.updateSingleAabb(&rigid);
        }
    }
}

void World::SnapshotLoad::RestoreConstraints()
{
    for (std::size_t a = 0; a < attachments.size(); ++a)
        world.mAttachments[a].second->RestoreImpulses(attachments[a].held, attachments[a].last);
    world.ReleaseJoints(0.0);
    world.mJoints.clear();
    for (JointState& state : joints)
    {
        JointWatch watch;
        if (!world.MakeWatch(*state.joint, nullptr, watch))
            continue;
        for (int side = 0; side < 2; ++side)
            watch.solve->SetHeld(side, state.held[side], state.inertial[side]);
        world.mJoints.push_back(std::move(watch));
    }
    for (const auto& press : world.mWheelPresses)
        world.mWorld.removeConstraint(press.get()); // a step whose post-tick did not run left them in (else a no-op)
    world.mWheelPresses.clear();
    for (const PressState& state : presses)
    {
        world.mWheelPresses.push_back(std::make_unique<detail::WheelPress>(
            *state.body->rigidBody, *state.body->shape, state.body->attachmentModes));
        world.mWheelPresses.back()->SetHeld(state.held, state.inertial);
    }
    world.mWheelLoads = std::move(wheelLoads);
}

void World::LoadState(std::span<const std::uint8_t> inSnapshot)
{
    constexpr std::size_t cChecksumBytes = sizeof(std::uint64_t);
    if (inSnapshot.size() < sizeof(cMagic) + cChecksumBytes || !std::equal(cMagic, cMagic + 8, inSnapshot.begin()))
        throw Error("state snapshot: not a bdt::World snapshot");
    const std::span<const std::uint8_t> payload = inSnapshot.first(inSnapshot.size() - cChecksumBytes);
    std::uint64_t checksum = 0;
    std::memcpy(&checksum, inSnapshot.data() + payload.size(), cChecksumBytes);
    if (checksum != Fnv1a64::Of(payload))
        throw Error("state snapshot: checksum mismatch (corrupt or truncated)");
    Reader in(payload.subspan(sizeof(cMagic)));
    SnapshotLoad load{*this};
    load.version = in.Get<std::uint32_t>();
    if (load.version < 3 || load.version > cVersion)
        throw Error("state snapshot: version " + std::to_string(load.version) + ", this build reads " +
                    std::to_string(cVersion));
    // Everything read and checked first: a bad snapshot changes nothing.
    load.ReadBodies(in);
    load.ReadAttachments(in);
    load.ReadJoints(in);
    load.ReadWheels(in);
    if (!in.AtEnd())
        throw Error("state snapshot: bytes after the last wheel press");
    load.RestoreBodies();
    load.RestoreConstraints();
}

std::int32_t World::BodyIndex(const btRigidBody* inBody) const
{
    for (std::size_t b = 0; b < mBodies.size(); ++b)
        if (mBodies[b]->rigidBody.get() == inBody)
            return std::int32_t(b);
    return -1;
}

} // namespace bdt
