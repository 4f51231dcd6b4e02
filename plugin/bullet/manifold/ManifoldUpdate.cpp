#include "ManifoldUpdate.h"

#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionDispatch/btManifoldResult.h>
#include <algorithm>
#include <bdt/bullet/Conversions.h>
#include <cmath>

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

PairMaterial CombineMaterial(const btCollisionObject& inA, const btCollisionObject& inB)
{
    PairMaterial material;
    material.friction =
        Combine(gCalculateCombinedFrictionCallback, &btManifoldResult::calculateCombinedFriction, inA, inB);
    material.restitution = Combine(gCalculateCombinedRestitutionCallback,
                                   &btManifoldResult::calculateCombinedRestitution, inA, inB);
    material.rollingFriction = Combine(gCalculateCombinedRollingFrictionCallback,
                                       &btManifoldResult::calculateCombinedRollingFriction, inA, inB);
    material.spinningFriction = Combine(gCalculateCombinedSpinningFrictionCallback,
                                        &btManifoldResult::calculateCombinedSpinningFriction, inA, inB);
    const int flags = inA.getCollisionFlags() | inB.getCollisionFlags();
    material.stiffnessDamping = (flags & btCollisionObject::CF_HAS_CONTACT_STIFFNESS_DAMPING) != 0;
    if (material.stiffnessDamping)
    {
        material.contactDamping = Combine(gCalculateCombinedContactDampingCallback,
                                          &btManifoldResult::calculateCombinedContactDamping, inA, inB);
        material.contactStiffness = Combine(gCalculateCombinedContactStiffnessCallback,
                                            &btManifoldResult::calculateCombinedContactStiffness, inA, inB);
    }
    material.frictionAnchor = (flags & btCollisionObject::CF_HAS_FRICTION_ANCHOR) != 0;
    return material;
}

btManifoldPoint MakeManifoldPoint(const PairContact& inContact, const PointIds& inIds,
                                  const btCollisionObject& inA, const btCollisionObject& inB,
                                  double inTimeStep)
{
    return MakeManifoldPoint(inContact, inIds, inA, inB, inTimeStep, CombineMaterial(inA, inB));
}

btManifoldPoint MakeManifoldPoint(const PairContact& inContact, const PointIds& inIds,
                                  const btCollisionObject& inA, const btCollisionObject& inB,
                                  double inTimeStep, const PairMaterial& inMaterial)
{
    const btVector3 normal = ToBtVector(inContact.normal);
    const btVector3 pointOnB = ToBtVector(inContact.pointOnB);
    const btVector3 pointOnA = ToBtVector(inContact.pointOnB + inContact.normal * inContact.distance);
    btManifoldPoint point(inA.getWorldTransform().invXform(pointOnA),
                          inB.getWorldTransform().invXform(pointOnB), normal, btScalar(inContact.distance));
    point.m_positionWorldOnA = pointOnA;
    point.m_positionWorldOnB = pointOnB;

    point.m_combinedFriction = inMaterial.friction;
    point.m_combinedRestitution = inMaterial.restitution;
    point.m_combinedRollingFriction = inMaterial.rollingFriction;
    point.m_combinedSpinningFriction = inMaterial.spinningFriction;
    if (inMaterial.stiffnessDamping)
    {
        point.m_combinedContactDamping1 = inMaterial.contactDamping;
        point.m_combinedContactStiffness1 = inMaterial.contactStiffness;
        point.m_contactPointFlags |= BT_CONTACT_FLAG_CONTACT_STIFFNESS_DAMPING;
    }
    if (inContact.compliance > 0.0 && std::isfinite(inContact.compliance))
    {
        // Bullet's solver reads a point's CFM as displacement per impulse (it divides it by h) and adds it to
        // the row's inverse effective mass: the modal give of the surface. A soft contact (stiffness k,
        // damping c) is a compliance 1/(hk + c) with ERP hk/(hk + c) in Bullet's solver; in series with the
        // modes, the compliances add.
        double cfm = inContact.compliance;
        if ((point.m_contactPointFlags & BT_CONTACT_FLAG_CONTACT_STIFFNESS_DAMPING) != 0 && inTimeStep > 0.0)
        {
            const double hk = inTimeStep * double(point.m_combinedContactStiffness1);
            const double denominator =
                std::max(hk + double(point.m_combinedContactDamping1), double(SIMD_EPSILON));
            cfm += 1.0 / denominator;
            point.m_contactERP = btScalar(hk / denominator);
            // btManifoldPoint keeps the CFM and ERP in the stiffness's and damping's storage (a union): the
            // point is now a CFM/ERP point, and says so to contact callbacks too.
            point.m_contactPointFlags &= ~BT_CONTACT_FLAG_CONTACT_STIFFNESS_DAMPING;
            point.m_contactPointFlags |= BT_CONTACT_FLAG_HAS_CONTACT_ERP;
        }
        // Finite as a btScalar whatever the compliance (a float overflows past 3.4e38): softer than that is
        // no contact at all to the solver.
        point.m_contactCFM = btScalar(std::min(cfm, double(BT_LARGE_FLOAT)));
        point.m_contactPointFlags |= BT_CONTACT_FLAG_HAS_CONTACT_CFM;
    }
    if (inMaterial.frictionAnchor)
        point.m_contactPointFlags |= BT_CONTACT_FLAG_FRICTION_ANCHOR;
    btPlaneSpace1(point.m_normalWorldOnB, point.m_lateralFrictionDir1, point.m_lateralFrictionDir2);

    SetSolverGap(point, inContact);
    point.m_partId0 = inIds.partId0;
    point.m_index0 = inIds.index0;
    point.m_partId1 = inIds.partId1;
    point.m_index1 = inIds.index1;
    return point;
}

void SetSolverGap(btManifoldPoint& ioPoint, const PairContact& inContact)
{
    if (!(inContact.predictionErp > 0.0))
        return;
    // What the solver must make zero at the end of the step: the rigid motion h·J·v, the surface's motion
    // with last step's force held (stepMotion), its give to the change of this point's impulse
    // (compliance·(λ − λ°): the solver adds compliance·λ itself, CFM), and the geometric gap, all of it if
    // apart (a speculative contact) and its erp share if penetrating (Baumgarte):
    //     h·J·v + compliance·λ = −target,   target = stepMotion − compliance·λ° + (d > 0 ? d : erp·d).
    // Bullet asks h·J·v + cfm·λ = −distance when distance > 0 and −erp·distance otherwise: the distance
    // handed to it is target or target/erp. The modes' motion is a motion, not an error to correct a fifth
    // at a time: scaled by erp it would be followed late again, and would leave a resting contact
    // penetrating by (1 − erp)/erp × compliance·λ.
    const double erp = (ioPoint.m_contactPointFlags & BT_CONTACT_FLAG_HAS_CONTACT_ERP) != 0
                           ? double(ioPoint.m_contactERP)
                           : inContact.predictionErp;
    if (!(erp > 0.0))
        return;
    const double d = inContact.distance;
    const double target = inContact.stepMotion - inContact.compliance * double(ioPoint.m_appliedImpulse) +
                          (d > 0.0 ? d : erp * d);
    const double distance = target > 0.0 ? target : target / erp;
    if (std::isfinite(btScalar(distance)))
        ioPoint.m_distance1 = btScalar(distance);
}

WrittenPoints RecordWritten(std::span<const btManifoldPoint> inPoints)
{
    WrittenPoints written;
    for (std::size_t i = 0; i < std::min<std::size_t>(inPoints.size(), written.size()); ++i)
        written[i] = {IdsOf(inPoints[i]), inPoints[i].m_localPointA, inPoints[i].m_lifeTime};
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
            btScalar nearest = BT_LARGE_FLOAT;
            for (const WrittenPoint& written : inWritten[m])
                if (written.ids == IdsOf(slot) && written.localA.distance2(slot.m_localPointA) < nearest)
                {
                    nearest = written.localA.distance2(slot.m_localPointA);
                    lifeTime = written.lifeTime;
                }
            mPoints.push_back(slot);
            mLifeTimes.push_back(lifeTime);
            slot.m_userPersistentData = nullptr;
        }
    mUsed.assign(mPoints.size(), false);
}

bool PreviousPoints::WarmStart(btManifoldPoint& ioPoint)
{
    // The nearest unused previous point with the same identifiers (on A, where a triangle has several).
    std::size_t match = mPoints.size();
    btScalar nearest = BT_LARGE_FLOAT;
    const PointIds ids = IdsOf(ioPoint);
    for (std::size_t i = 0; i < mPoints.size(); ++i)
        if (!mUsed[i] && IdsOf(mPoints[i]) == ids)
            if (const btScalar d = mPoints[i].m_localPointA.distance2(ioPoint.m_localPointA); d < nearest)
            {
                nearest = d;
                match = i;
            }
    {
        const std::size_t i = match;
        if (i == mPoints.size())
            return false;
        const btManifoldPoint& old = mPoints[i];
        mUsed[i] = true;
        // A non-finite impulse (a solve gone wrong) is not carried on: the solver would start from it again
        // every step, and the read-back would reject it every step.
        const bool finite = std::isfinite(old.m_appliedImpulse) &&
                            std::isfinite(old.m_appliedImpulseLateral1) &&
                            std::isfinite(old.m_appliedImpulseLateral2) && std::isfinite(old.m_prevRHS);
        ioPoint.m_appliedImpulse = finite ? old.m_appliedImpulse : btScalar(0);
        ioPoint.m_appliedImpulseLateral1 = finite ? old.m_appliedImpulseLateral1 : btScalar(0);
        ioPoint.m_appliedImpulseLateral2 = finite ? old.m_appliedImpulseLateral2 : btScalar(0);
        ioPoint.m_prevRHS = finite ? old.m_prevRHS : btScalar(0);
        ioPoint.m_lifeTime = mLifeTimes[i] + 1;
        ioPoint.m_userPersistentData = old.m_userPersistentData;
        mPoints[i].m_userPersistentData = nullptr;
        if ((old.m_contactPointFlags & BT_CONTACT_FLAG_LATERAL_FRICTION_INITIALIZED) != 0)
        {
            // The old directions, turned into the new point's tangent plane: a normal that turned a little (a
            // box's face contact choosing the other box's face) must not leave friction a share along it,
            // which pushes the bodies sideways step after step.
            const btVector3& normal = ioPoint.m_normalWorldOnB;
            btVector3 first = old.m_lateralFrictionDir1 - normal * normal.dot(old.m_lateralFrictionDir1);
            if (first.length2() > btScalar(0.25))
            {
                first.normalize();
                ioPoint.m_lateralFrictionDir1 = first;
                ioPoint.m_lateralFrictionDir2 = normal.cross(first);
                if (old.m_lateralFrictionDir2.dot(ioPoint.m_lateralFrictionDir2) < 0)
                    ioPoint.m_lateralFrictionDir2 = -ioPoint.m_lateralFrictionDir2;
                ioPoint.m_contactPointFlags |= BT_CONTACT_FLAG_LATERAL_FRICTION_INITIALIZED;
            }
        }
        return true;
    }
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
