// bdt::World and the host's Bullet raycast vehicles (issue 55): btRaycastVehicle pushes its chassis with each
// wheel's suspension force and friction and gives the ground nothing (its wheels' ground object is Bullet's fixed
// body). On a body of this World the wheel presses the ground back, frame and modes, where it touches.

#include "WheelPress.h"
#include "WorldBody.h"


#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Vehicle/btRaycastVehicle.h>
#include <bdt/core/base/Error.h>
#include <algorithm>

namespace bdt
{

namespace
{

// The nearest body a ray meets, the vehicle's chassis left out.
struct GroundRay final : btCollisionWorld::ClosestRayResultCallback
{
    GroundRay(const btVector3& inFrom, const btVector3& inTo, const btCollisionObject* inChassis)
        : ClosestRayResultCallback(inFrom, inTo), chassis(inChassis)
    {
    }
    bool needsCollision(btBroadphaseProxy* inProxy) const override
    {
        return inProxy->m_clientObject != chassis && ClosestRayResultCallback::needsCollision(inProxy);
    }
    const btCollisionObject* chassis;
};

// btRaycastVehicle keeps the friction its last update gave each wheel's contact in private arrays (m_forwardWS,
// m_axle, m_forwardImpulse, m_sideImpulse: the chassis took forward · forward impulse + axle · side impulse, after
// any skid's scaling). They are read through pointers to those members, named where C++ checks no access: in the
// arguments of an explicit template instantiation.
template <typename Tag, typename Tag::Member Pointer> struct ExposeMember
{
    friend typename Tag::Member MemberOf(Tag) { return Pointer; }
};
struct ForwardAxes
{
    using Member = btAlignedObjectArray<btVector3> btRaycastVehicle::*;
    friend Member MemberOf(ForwardAxes);
};
struct SideAxes
{
    using Member = btAlignedObjectArray<btVector3> btRaycastVehicle::*;
    friend Member MemberOf(SideAxes);
};
struct ForwardImpulses
{
    using Member = btAlignedObjectArray<btScalar> btRaycastVehicle::*;
    friend Member MemberOf(ForwardImpulses);
};
struct SideImpulses
{
    using Member = btAlignedObjectArray<btScalar> btRaycastVehicle::*;
    friend Member MemberOf(SideImpulses);
};
template struct ExposeMember<ForwardAxes, &btRaycastVehicle::m_forwardWS>;
template struct ExposeMember<SideAxes, &btRaycastVehicle::m_axle>;
template struct ExposeMember<ForwardImpulses, &btRaycastVehicle::m_forwardImpulse>;
template struct ExposeMember<SideImpulses, &btRaycastVehicle::m_sideImpulse>;

// The friction impulse (N·s, world) the vehicle's last update gave its chassis at wheel `inWheel`; zero before
// its first update.
btVector3 WheelFriction(const btRaycastVehicle& inVehicle, int inWheel)
{
    const btAlignedObjectArray<btVector3>& forward = inVehicle.*MemberOf(ForwardAxes{});
    const btAlignedObjectArray<btVector3>& side = inVehicle.*MemberOf(SideAxes{});
    const btAlignedObjectArray<btScalar>& forwardImpulse = inVehicle.*MemberOf(ForwardImpulses{});
    const btAlignedObjectArray<btScalar>& sideImpulse = inVehicle.*MemberOf(SideImpulses{});
    if (inWheel >= std::min({forward.size(), side.size(), forwardImpulse.size(), sideImpulse.size()}))
        return btVector3(0, 0, 0);
    return forward[inWheel] * forwardImpulse[inWheel] + side[inWheel] * sideImpulse[inWheel];
}

} // namespace

void World::WatchVehicle(btRaycastVehicle* inVehicle)
{
    if (inVehicle == nullptr)
        throw Error("World::WatchVehicle: null vehicle");
    if (std::find(mVehicles.begin(), mVehicles.end(), inVehicle) == mVehicles.end())
        mVehicles.push_back(inVehicle);
}

bool World::UnwatchVehicle(btRaycastVehicle* inVehicle)
{
    const auto found = std::find(mVehicles.begin(), mVehicles.end(), inVehicle);
    if (found == mVehicles.end())
        return false;
    mVehicles.erase(found);
    return true;
}

void World::PushWheelLoads()
{
    // The last step's wheel loads, a press a body: this solve gives them to the frames and the modes' coming
    // motion, as a contact's impulse; a body no longer pressed forgets its press.
    for (const auto& press : mWheelPresses)
        mWorld.removeConstraint(press.get()); // a step whose post-tick did not run left them in (else a no-op)
    std::vector<std::unique_ptr<detail::WheelPress>> presses;
    for (const WheelLoad& load : mWheelLoads)
    {
        const auto pressing = [&](const auto& inPress) { return inPress && &inPress->getRigidBodyA() == load.body; };
        auto found = std::find_if(presses.begin(), presses.end(), pressing);
        if (found == presses.end())
        {
            Body* body = FindBody(load.body);
            if (body == nullptr)
                continue; // destroyed since
            const auto kept = std::find_if(mWheelPresses.begin(), mWheelPresses.end(), pressing);
            presses.push_back(kept != mWheelPresses.end() && *kept
                                  ? std::move(*kept)
                                  : std::make_unique<detail::WheelPress>(*load.body, *body->shape,
                                                                         body->attachmentModes));
            presses.back()->ClearLoads();
            if (mAttachments.empty() && mJoints.empty()) // else reset already
                body->attachmentModes.Reset(body->shape->Dynamics().ModeCount());
            found = presses.end() - 1;
        }
        (*found)->AddLoad(load.point, load.impulse);
    }
    for (const auto& press : presses)
        mWorld.addConstraint(press.get(), false);
    mWheelPresses.swap(presses);
    mWheelLoads.clear();
}

void World::LoadWheels(double inTimeStep)
{
    // The loads the frames took in this solve, into the modes.
    for (const auto& press : mWheelPresses)
    {
        mWorld.removeConstraint(press.get());
        if (inTimeStep > 0.0)
            press->Finish();
    }
    mWheelLoads.clear();
    if (mVehicles.empty() || !(inTimeStep > 0.0))
        return;
    for (btRaycastVehicle* vehicle : mVehicles)
        for (int i = 0; i < vehicle->getNumWheels(); ++i)
        {
            const btWheelInfo& wheel = vehicle->getWheelInfo(i);
            const btWheelInfo::RaycastInfo& contact = wheel.m_raycastInfo;
            if (!contact.m_isInContact || !(wheel.m_wheelsSuspensionForce > 0))
                continue;
            // The vehicle keeps the body its ray met to itself: the same ray again, a centimetre past the contact.
            const btVector3 past = contact.m_contactPointWS + contact.m_wheelDirectionWS * btScalar(0.01);
            GroundRay ray(contact.m_hardPointWS, past, vehicle->getRigidBody());
            mWorld.rayTest(contact.m_hardPointWS, past, ray);
            Body* body = ray.hasHit() ? FindBody(btRigidBody::upcast(ray.m_collisionObject)) : nullptr;
            if (body == nullptr || !body->rigidBody->isActive() || body->rigidBody->getInvMass() == 0)
                continue;
            // The chassis took the suspension force (as Bullet caps it) along the ground's normal and the wheel's
            // friction; the ground takes both back.
            const btScalar suspension = std::min(wheel.m_wheelsSuspensionForce, wheel.m_maxSuspensionForce);
            const btVector3 impulse =
                -contact.m_contactNormalWS * (suspension * btScalar(inTimeStep)) - WheelFriction(*vehicle, i);
            mWheelLoads.push_back({body->rigidBody.get(), contact.m_contactPointWS, impulse});
        }
}

} // namespace bdt
