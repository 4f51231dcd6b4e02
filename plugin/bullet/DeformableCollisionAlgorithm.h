#pragma once

// The Bullet collision algorithm of a pair with at least one DeformableShape (and no compound: those go
// through Bullet's btCompoundCollisionAlgorithm, which calls back into the dispatcher per child). Private
// to plugin/bullet.

#include "ContactGeneration.h"
#include "ManifoldUpdate.h"

#include <BulletCollision/BroadphaseCollision/btCollisionAlgorithm.h>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

class btPersistentManifold;

namespace bdt
{

class DeformableShape;

/// Narrowphase of a deformable against any shape (another deformable, sphere, box, capsule, any convex,
/// static plane, any concave). Either body of the pair may be the deformable; for two deformables the
/// pair's body 0 is "A".
///
/// Contact mode (the dispatcher's contact table): each step regenerates all contacts (`GenerateContacts`
/// within `ContactSearchDistance`: the pair's contact breaking threshold τ, or less when the bodies cannot
/// close that much over the step, but never less than the farthest point the pair holds from the last step;
/// points up to that distance apart are kept as speculative contacts),
/// groups them into regions of A's surface (`ContactRegions.h`), at most `maxManifoldsPerPair` of them,
/// and writes each region's ≤ 4 best points into its own persistent manifold (body 0 = A), warm-started by
/// identifiers (`ManifoldUpdate.h`). A region's manifold is released as soon as the region has no contact:
/// warm starting lives in the points, which an empty manifold no longer holds, so keeping it would only
/// save a pool allocation while lengthening the dispatcher's manifold list that the island manager and
/// solver walk every step.
///
/// Closest-points mode (the closest-points table, used by contactTest / contactPairTest and by a compound's
/// children under them): no manifold is created; every contact within the result's
/// m_closestPointDistanceThreshold is reported through `resultOut->addContactPoint`, unreduced.
///
/// Front tracking (two deformables, both with `DeformableShapeSettings::frontTracking`): the pair keeps its
/// `TraversalFront` across steps, so each step's proxy descent starts where the last one stopped (half the
/// sphere tests for two boxes resting on each other, 6% fewer in the benchmark's chair pile). Allocated on
/// the pair's first such query, dropped when the setting is off; closest-points algorithms (made per query)
/// never keep one. The contacts, and so the manifolds, are the same with or without it (`GenerateContacts`).
///
/// 56 bytes (the manifold list and the front live on the heap), well under Bullet's default pool element
/// of 192.
class DeformableCollisionAlgorithm : public btCollisionAlgorithm
{
public:
    DeformableCollisionAlgorithm(const btCollisionAlgorithmConstructionInfo& inInfo, bool inClosestPoints);
    ~DeformableCollisionAlgorithm() override;

    DeformableCollisionAlgorithm(const DeformableCollisionAlgorithm&) = delete;
    DeformableCollisionAlgorithm& operator=(const DeformableCollisionAlgorithm&) = delete;

    // --- btCollisionAlgorithm ---
    void processCollision(const btCollisionObjectWrapper* body0Wrap,
                          const btCollisionObjectWrapper* body1Wrap, const btDispatcherInfo& dispatchInfo,
                          btManifoldResult* resultOut) override;
    /// No continuous collision for deformables: always 1 (no time of impact before the end of the step).
    btScalar calculateTimeOfImpact(btCollisionObject* body0, btCollisionObject* body1,
                                   const btDispatcherInfo& dispatchInfo,
                                   btManifoldResult* resultOut) override;
    /// Every manifold of this pair that holds contacts.
    void getAllContactManifolds(btManifoldArray& manifoldArray) override;

    /// True when made for the closest-points table.
    bool ClosestPoints() const { return mClosestPoints; }

private:
    struct RegionManifold
    {
        std::uint32_t region = 0;
        btPersistentManifold* manifold = nullptr;
        WrittenPoints written; ///< What this step wrote into the manifold.
    };

    void ReportClosestPoints(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB,
                             std::span<const PairContact> inContacts, std::span<const std::uint32_t> inKeys,
                             double inThreshold, btManifoldResult& ioResult);
    void UpdateManifolds(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB,
                         std::span<const PairContact> inContacts, std::span<const std::uint32_t> inKeys,
                         double inThreshold, std::uint32_t inMaxManifolds, double inTimeStep);
    struct PairFront;

    void ReleaseManifolds();
    /// The farthest distance, m, of the points the pair's manifolds hold from the last step (0 if none).
    double HeldDistance() const;
    /// The front to pass to `GenerateContacts` for deformable A against `inB`, or null (B not deformable,
    /// closest points, or front tracking off on either side). Cleared when the bodies' roles changed.
    TraversalFront* FrontFor(const DeformableShape& inA, const btCollisionShape* inB);

    std::vector<RegionManifold> mManifolds; ///< One per kept region, ascending region keys.
    std::unique_ptr<PairFront> mFront;      ///< Two deformables with front tracking only; else null.
    bool mClosestPoints = false;
};

} // namespace bdt
