#pragma once

// The Bullet collision algorithm of a pair with at least one DeformableShape (and no compound: those go
// through Bullet's btCompoundCollisionAlgorithm, which calls back into the dispatcher per child). Private
// to plugin/bullet.

#include "ContactGeneration.h"
#include "ManifoldUpdate.h"

#include <BulletCollision/BroadphaseCollision/btCollisionAlgorithm.h>
#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

class btPersistentManifold;
struct btDispatcherInfo;

namespace bdt
{

class DeformableShape;
class DeformableCollisionAlgorithm;

/// The wrapper Bullet's near callback gives a top-level object: its own shape and world transform, no
/// parent, no part or index.
inline btCollisionObjectWrapper TopLevelWrapper(const btCollisionObject& inObject)
{
    return btCollisionObjectWrapper(nullptr, inObject.getCollisionShape(), &inObject, inObject.getWorldTransform(),
                                    -1, -1);
}

/// A pair of deformables whose contacts a `ParallelDispatcher` generates ahead of Bullet's pass: what the
/// serial preparation found, then where the contacts a thread generated are. Owned by the dispatcher, reused.
struct PreparedPair
{
    DeformableCollisionAlgorithm* algorithm = nullptr;
    const btCollisionObject* objectA = nullptr; ///< The pair's body 0 ("A").
    const btCollisionObject* objectB = nullptr;
    double threshold = 0.0; ///< τ, m: the manifolds' contact breaking threshold.
    double search = 0.0;    ///< Distance searched, m (`ContactSearchDistance`, or the held points').
    std::size_t first = 0;  ///< Where its contacts start in the generating thread's buffer.
    std::span<const PairContact> contacts; ///< Its contacts, in that buffer (set once all threads are done).
    QueryStats stats;
    bool ready = false; ///< Contacts generated and not yet used.
};

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
/// Under a `ParallelDispatcher` a pair of two deformables is split in three: `Prepare` (serial: τ, the
/// search distance, the shapes' rotation fits), `GeneratePrepared` (on any thread: the contacts), then
/// `processCollision` in Bullet's pass uses those contacts instead of generating them, and goes on as above.
///
/// 64 bytes (the manifold list and the front live on the heap), well under Bullet's default pool element
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

    /// Serial (calls into Bullet): readies `ioPair` for `GeneratePrepared` with the pair's bodies in Bullet's
    /// order, as `processCollision` would search them (τ, search distance, the held points), and warms the
    /// shapes' rotation fits that contact generation reads. False, leaving `ioPair` unusable, unless both
    /// bodies are deformable and this is a contact-mode algorithm.
    bool Prepare(const btCollisionObject& inBody0, const btCollisionObject& inBody1,
                 const btDispatcherInfo& inInfo, PreparedPair& ioPair);
    /// Appends `ioPair`'s contacts to `ioBuffer` (the thread's own) from `ioPair.first` on. Calls nothing of
    /// Bullet's and touches no other algorithm: threads may run it on distinct algorithms at once, each
    /// inside a `TreeState::ConcurrentScope`.
    void GeneratePrepared(PreparedPair& ioPair, std::vector<PairContact>& ioBuffer);
    /// The pair `processCollision` uses instead of generating contacts, once; null for none.
    void SetPrepared(PreparedPair* inPair) { mPrepared = inPair; }

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
    /// The distance the pair's contacts are searched within this step: `ContactSearchDistance`, but at least
    /// `HeldDistance` (capped at τ = `inThreshold`). `inA`, `inB` in the pair's A, B roles.
    double SearchDistance(double inThreshold, double inTimeStep, const btCollisionObject& inA,
                          const btCollisionObject& inB) const;
    /// The front to pass to `GenerateContacts` for deformable A against `inB`, or null (B not deformable,
    /// closest points, or front tracking off on either side). Cleared when the bodies' roles changed.
    TraversalFront* FrontFor(const DeformableShape& inA, const btCollisionShape* inB);

    std::vector<RegionManifold> mManifolds; ///< One per kept region, ascending region keys.
    std::unique_ptr<PairFront> mFront;      ///< Two deformables with front tracking only; else null.
    PreparedPair* mPrepared = nullptr;      ///< Set by a `ParallelDispatcher` for one dispatch.
    bool mClosestPoints = false;
};

} // namespace bdt
