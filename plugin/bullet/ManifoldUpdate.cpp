#include "ManifoldUpdate.h"

#include <bdt/bullet/Conversions.h>

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionDispatch/btManifoldResult.h>
#include <algorithm>

namespace bdt
{

namespace
{

btScalar Combine(CalculateCombinedCallback inCallback,
                 btScalar (*inDefault)(const btCollisionObject*, const btCollisionObject*),
                 const btCollisionObject& inA, const btCollisionObject& inB)
{
    return inCallback != nullptr ? inCallback(&inA, &inB) : inDefault(&inA, &inB);
}

} // namespace

btManifoldPoint MakeManifoldPoint(const PairContact& inContact, std::uint32_t inRegion,
                                  const btCollisionObject& inA, const btCollisionObject& inB)
{
    const btVector3 normal = ToBtVector(inContact.normal);
    const btVector3 pointOnB = ToBtVector(inContact.pointOnB);
    const btVector3 pointOnA = ToBtVector(inContact.pointOnB + inContact.normal * inContact.distance);
    btManifoldPoint point(inA.getWorldTransform().invXform(pointOnA),
                          inB.getWorldTransform().invXform(pointOnB), normal, btScalar(inContact.distance));
    point.m_positionWorldOnA = pointOnA;
    point.m_positionWorldOnB = pointOnB;

    point.m_combinedFriction =
        Combine(gCalculateCombinedFrictionCallback, &btManifoldResult::calculateCombinedFriction, inA, inB);
    point.m_combinedRestitution = Combine(gCalculateCombinedRestitutionCallback,
                                          &btManifoldResult::calculateCombinedRestitution, inA, inB);
    point.m_combinedRollingFriction = Combine(gCalculateCombinedRollingFrictionCallback,
                                              &btManifoldResult::calculateCombinedRollingFriction, inA, inB);
    point.m_combinedSpinningFriction =
        Combine(gCalculateCombinedSpinningFrictionCallback,
                &btManifoldResult::calculateCombinedSpinningFriction, inA, inB);
    if (((inA.getCollisionFlags() | inB.getCollisionFlags()) &
         btCollisionObject::CF_HAS_CONTACT_STIFFNESS_DAMPING) != 0)
    {
        point.m_combinedContactDamping1 =
            Combine(gCalculateCombinedContactDampingCallback,
                    &btManifoldResult::calculateCombinedContactDamping, inA, inB);
        point.m_combinedContactStiffness1 =
            Combine(gCalculateCombinedContactStiffnessCallback,
                    &btManifoldResult::calculateCombinedContactStiffness, inA, inB);
        point.m_contactPointFlags |= BT_CONTACT_FLAG_CONTACT_STIFFNESS_DAMPING;
    }
    if (((inA.getCollisionFlags() | inB.getCollisionFlags()) & btCollisionObject::CF_HAS_FRICTION_ANCHOR) !=
        0)
        point.m_contactPointFlags |= BT_CONTACT_FLAG_FRICTION_ANCHOR;
    btPlaneSpace1(point.m_normalWorldOnB, point.m_lateralFrictionDir1, point.m_lateralFrictionDir2);

    point.m_partId0 = int(inRegion);
    point.m_index0 = int(inContact.node0);
    point.m_partId1 = inContact.partId1;
    point.m_index1 = inContact.index1;
    return point;
}

WrittenPoints RecordWritten(std::span<const btManifoldPoint> inPoints)
{
    WrittenPoints written;
    for (std::size_t i = 0; i < std::min<std::size_t>(inPoints.size(), written.size()); ++i)
        written[i] = {inPoints[i].m_index0, inPoints[i].m_index1, inPoints[i].m_partId1,
                      inPoints[i].m_lifeTime};
    return written;
}

void PreviousPoints::Capture(std::span<btPersistentManifold* const> inManifolds,
                             std::span<const WrittenPoints> inWritten)
{
    mPoints.clear();
    mLifeTimes.clear();
    for (std::size_t m = 0; m < inManifolds.size(); ++m)
        for (int i = 0; i < inManifolds[m]->getNumContacts(); ++i)
        {
            btManifoldPoint& slot = inManifolds[m]->getContactPoint(i);
            int lifeTime = slot.m_lifeTime;
            for (const WrittenPoint& written : inWritten[m])
                if (written.index0 == slot.m_index0 && written.index1 == slot.m_index1 &&
                    written.partId1 == slot.m_partId1)
                    lifeTime = written.lifeTime;
            mPoints.push_back(slot);
            mLifeTimes.push_back(lifeTime);
            slot.m_userPersistentData = nullptr;
        }
    mUsed.assign(mPoints.size(), false);
}

bool PreviousPoints::WarmStart(btManifoldPoint& ioPoint)
{
    for (std::size_t i = 0; i < mPoints.size(); ++i)
    {
        const btManifoldPoint& old = mPoints[i];
        if (mUsed[i] || old.m_index0 != ioPoint.m_index0 || old.m_index1 != ioPoint.m_index1 ||
            old.m_partId1 != ioPoint.m_partId1)
            continue;
        mUsed[i] = true;
        ioPoint.m_appliedImpulse = old.m_appliedImpulse;
        ioPoint.m_appliedImpulseLateral1 = old.m_appliedImpulseLateral1;
        ioPoint.m_appliedImpulseLateral2 = old.m_appliedImpulseLateral2;
        ioPoint.m_prevRHS = old.m_prevRHS;
        ioPoint.m_lifeTime = mLifeTimes[i] + 1;
        ioPoint.m_userPersistentData = old.m_userPersistentData;
        mPoints[i].m_userPersistentData = nullptr;
        if ((old.m_contactPointFlags & BT_CONTACT_FLAG_LATERAL_FRICTION_INITIALIZED) != 0)
        {
            ioPoint.m_lateralFrictionDir1 = old.m_lateralFrictionDir1;
            ioPoint.m_lateralFrictionDir2 = old.m_lateralFrictionDir2;
            ioPoint.m_contactPointFlags |= BT_CONTACT_FLAG_LATERAL_FRICTION_INITIALIZED;
        }
        return true;
    }
    return false;
}

void PreviousPoints::Finish()
{
    // What btPersistentManifold::clearUserCache does for a point that leaves a manifold.
    for (btManifoldPoint& point : mPoints)
        if (point.m_userPersistentData != nullptr && gContactDestroyedCallback != nullptr)
        {
            gContactDestroyedCallback(point.m_userPersistentData);
            point.m_userPersistentData = nullptr;
        }
    mPoints.clear();
    mLifeTimes.clear();
    mUsed.clear();
}

void WriteManifold(btPersistentManifold& ioManifold, std::span<const btManifoldPoint> inPoints,
                   const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB)
{
    const int oldCount = ioManifold.getNumContacts();
    const int newCount = int(std::min<std::size_t>(inPoints.size(), MANIFOLD_CACHE_SIZE));
    // Slots are written through getContactPoint, which checks the index against the count: set it first.
    ioManifold.setNumContacts(newCount);
    for (int i = 0; i < newCount; ++i)
        ioManifold.getContactPoint(i) = inPoints[std::size_t(i)];

    const btCollisionObject* objectA = inA.getCollisionObject();
    const btCollisionObject* objectB = inB.getCollisionObject();
    const bool customMaterial = ((objectA->getCollisionFlags() | objectB->getCollisionFlags()) &
                                 btCollisionObject::CF_CUSTOM_MATERIAL_CALLBACK) != 0;
    for (int i = 0; i < newCount; ++i)
    {
        btManifoldPoint& point = ioManifold.getContactPoint(i);
        if (gContactAddedCallback != nullptr && customMaterial)
            gContactAddedCallback(point, &inA, point.m_partId0, point.m_index0, &inB, point.m_partId1,
                                  point.m_index1);
        // Bullet calls this from refreshContactPoints for every point it keeps; ours are never refreshed.
        if (gContactProcessedCallback != nullptr)
            gContactProcessedCallback(point, const_cast<btCollisionObject*>(objectA),
                                      const_cast<btCollisionObject*>(objectB));
    }
    if (oldCount == 0 && newCount > 0 && gContactStartedCallback != nullptr)
        gContactStartedCallback(&ioManifold);
    if (oldCount > 0 && newCount == 0 && gContactEndedCallback != nullptr)
        gContactEndedCallback(&ioManifold);
}

} // namespace bdt
