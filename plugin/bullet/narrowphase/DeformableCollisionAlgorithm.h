#pragma once

// The Bullet collision algorithm of a pair with at least one DeformableShape (and no compound: those go
// through Bullet's btCompoundCollisionAlgorithm, which calls back into the dispatcher per child). Private
// to plugin/bullet.

#include "ContactGeneration.h"
#include "bullet/manifold/ManifoldUpdate.h"
#include "SearchDistance.h"

#include <BulletCollision/BroadphaseCollision/btCollisionAlgorithm.h>
#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <array>
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

/// A pair's contacts for one step grouped into the regions that get manifolds, before any manifold is
/// touched: each kept region's key and its chosen points (at most 4, predicted). Made by
/// `DeformableCollisionAlgorithm::PlanRegions`, on any thread; written into manifolds by Bullet's pass.
struct RegionPlan
{
    std::vector<std::uint32_t> keys;   ///< Kept region keys, ascending.
    std::vector<std::uint32_t> ends;   ///< Region k's points are [ends[k − 1], ends[k]) of `points` (ends[−1] = 0).
    std::vector<PairContact> points;   ///< The chosen points, region by region.
    NarrowphaseStats stats;            ///< The work of finding them, and its stage times.

    void Clear()
    {
        keys.clear();
        ends.clear();
        points.clear();
        stats = {};
    }
};

/// Where the plans of a dispatch's prepared pairs are being made (`ParallelDispatcher`): Bullet's pass asks
/// for each pair's plan as it reaches the pair, while threads may still be making others.
class PreparedPairSchedule
{
public:
    /// Returns once the plan of the pair in slot `inSlot` is made, making plans of pairs no thread has taken
    /// yet while it waits. Rethrows what made a plan fail. Called by Bullet's pass, on the dispatching thread.
    virtual void Await(std::uint32_t inSlot) = 0;

protected:
    ~PreparedPairSchedule() = default;
};

/// A pair with a deformable whose contacts a `ParallelDispatcher` generates ahead of Bullet's pass: what the
/// serial preparation found, then the regions a thread planned. Owned by the dispatcher, reused (so is the
/// plan's storage).
struct PreparedPair
{
    PreparedPairSchedule* schedule = nullptr; ///< Where its plan is made; null when it was made already.
    std::uint32_t slot = 0;                   ///< Its slot in `schedule`.
    DeformableCollisionAlgorithm* algorithm = nullptr;
    const btCollisionObject* objectA = nullptr; ///< The deformable body ("A"; body 0 when both are).
    const btCollisionObject* objectB = nullptr;
    const DeformableShape* shapeA = nullptr;    ///< A's shape.
    const DeformableShape* shapeB = nullptr;    ///< B's shape if deformable, else null.
    double threshold = 0.0; ///< τ, m: the manifolds' contact breaking threshold.
    double search = 0.0;    ///< Distance searched, m (`ContactSearchDistance`).
    SpeculativeFilter filter; ///< Which of the contacts found stay (`SpeculativeFilter`).
    /// Its bodies' root spheres are apart by more than the pair can search (`Prepare`): it has no contact,
    /// and its plan is empty without a descent.
    bool apart = false;
    RegionPlan plan;        ///< Its regions and their points (set by `GeneratePrepared`).
    bool ready = false;     ///< Planned and not yet used.
};

/// Narrowphase of a deformable against any shape (another deformable, sphere, box, capsule, any convex,
/// static plane, any concave). Either body of the pair may be the deformable; for two deformables the
/// pair's body 0 is "A".
///
/// Contact mode (the dispatcher's contact table): each step regenerates all contacts (`GenerateContacts`
/// within `ContactSearchDistance`: the pair's contact breaking threshold τ, or less when the bodies cannot
/// close that much over the step, or as far as its supports), keeps those the bodies' motion can close
/// within the step (`SpeculativeFilter`; points apart are the solver's speculative contacts) and the
/// supports (points that carried an impulse in the last solve; pairs through GJK or triangle traversals
/// keep every contact), groups them into regions of A's surface (`ContactRegions.h`), at most
/// `maxManifoldsPerPair` of them, and writes each region's ≤ 4 best points into its own persistent manifold
/// (body 0 = A), warm-started by identifiers (`ManifoldUpdate.h`). A region's manifold is released as soon as the region has no contact:
/// warm starting lives in the points, which an empty manifold no longer holds, so keeping it would only
/// save a pool allocation while lengthening the dispatcher's manifold list that the island manager and
/// solver walk every step.
///
/// Closest-points mode (the closest-points table, used by contactTest / contactPairTest and by a compound's
/// children under them): no manifold is created; every contact within the result's
/// m_closestPointDistanceThreshold is reported through `resultOut->addContactPoint`, unreduced.
///
/// Front tracking (two deformables, both with `DeformableShapeSettings::frontTracking`): the pair keeps its
/// `TraversalFront` across steps, so each step's proxy descent starts where the last one stopped (it pays most
/// for bodies resting on each other, least in a pile still in motion). Allocated on
/// the pair's first such query, dropped when the setting is off; closest-points algorithms (made per query)
/// never keep one. The contacts, and so the manifolds, are the same with or without it (`GenerateContacts`).
/// Likewise the pair caches (`DeformableShapeSettings::pairCacheSkin`): `ProxyPairCache` for two deformables
/// without fronts, `PrimitivePairCache` for a deformable and a static sphere, box, capsule or plane.
///
/// Each step is done in two stages: the contacts and their regions and points are planned (`PlanRegions`:
/// this plugin's code only, no manifold touched), then the plan is written into the manifolds
/// (`CommitRegions`: Bullet's manifolds and callbacks). Under a `ParallelDispatcher` a pair of a deformable
/// with a deformable or an analytic primitive (sphere, box, capsule, plane) is split in three: `Prepare`
/// (serial: τ, the search distance, the shapes' rotation fits), `GeneratePrepared` (on any thread: the
/// contacts and the plan), then `processCollision` in Bullet's pass waits for that plan
/// (`PreparedPairSchedule::Await`) and commits it instead of making one.
/// Either way the manifolds get the same points.
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

    /// Whether pairs of `inShape0` and `inShape1` can be prepared: one is deformable, the other deformable
    /// or an analytic primitive (sphere, box, capsule, static plane), whose contacts are this plugin's code.
    static bool Preparable(const btCollisionShape* inShape0, const btCollisionShape* inShape1);
    /// Serial (calls into Bullet): readies `ioPair` for `GeneratePrepared`, A the deformable body (body 0 if
    /// both are), as `processCollision` would search them (τ, search distance, filter), and warms
    /// the shapes' rotation fits that contact generation reads. The bodies' motions and shape thresholds
    /// come from `ioMotions`, begun for this step: each body's once a step, not once a pair. False, leaving `ioPair` unusable, unless the shapes are `Preparable` and this is a
    /// contact-mode algorithm.
    bool Prepare(const btCollisionObject& inBody0, const btCollisionObject& inBody1,
                 const btDispatcherInfo& inInfo, StepMotionCache& ioMotions, PreparedPair& ioPair);
    /// Generates `ioPair`'s contacts (into `ioScratch`, the thread's own) and plans its regions into
    /// `ioPair.plan`. Calls nothing of Bullet's, writes no manifold and touches no other algorithm: threads
    /// may run it on distinct algorithms at once, each inside a `TreeState::ConcurrentScope`.
    void GeneratePrepared(PreparedPair& ioPair, std::vector<PairContact>& ioScratch);
    /// Asks the processor to bring what `GeneratePrepared(inPair, …)` reads first into its cache, in two
    /// stages a pair or two apart, each touching only what the stage before brought in: the bodies, their
    /// shapes and this algorithm (stage 0, from `inPair`'s pointers alone), then the shapes' states and this
    /// algorithm's manifolds (stage 1). A hint: no effect on any result.
    static void PrefetchObjects(const PreparedPair& inPair);
    void PrefetchState(const PreparedPair& inPair) const;
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
                             std::span<const PairContact> inContacts, double inThreshold,
                             btManifoldResult& ioResult);
    /// The regions of this step's `inContacts` (A's, in the pair's roles) and their points: region keys,
    /// `AssignRegions` (regions covering the contact area, last step's kept unless clearly beaten),
    /// `ReduceContacts` (last step's points kept unless clearly beaten), `MergeNearPoints` (over all the
    /// regions' points), `PredictContacts`. Reads the pair's manifolds (what they held) and the shapes, writes only
    /// `outPlan`.
    void PlanRegions(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB,
                     std::span<const PairContact> inContacts, double inThreshold, RegionPlan& outPlan) const;
    /// Writes `inPlan` into the pair's manifolds (serial: Bullet's manifolds and callbacks): regions without
    /// points give theirs back, each planned region's points are warm-started from last step's and written.
    void CommitRegions(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB,
                       const RegionPlan& inPlan, double inThreshold, double inTimeStep);
    struct PairCoherence;
    struct Coherence
    {
        TraversalFront* front = nullptr;
        ProxyPairCache* cache = nullptr;
        PrimitivePairCache* primitive = nullptr;
    };

    void ReleaseManifolds();
    /// Over how many steps of its frames' closing the pair searches its speculative contacts beyond τ
    /// (`SpeculativeReach`): 0 outside the surface model; 2 against a primitive or until two deformables hold
    /// contacts, then 1.
    double SpeculativeSteps(const DeformableShape& inA, const btCollisionShape* inB) const;
    /// A point the pair's manifolds hold that carried an impulse in the last solve: its identifiers, and where
    /// it was on A (A's local frame).
    struct SupportId
    {
        PointIds ids;
        btVector3 localA{0, 0, 0};
    };
    /// The pair's supports into `outSupports`; returns their farthest distance, m (0 if none). The search
    /// reaches at least that far (capped at τ). Reads the manifolds only: safe on the narrowphase threads.
    double GatherSupports(std::vector<SupportId>& outSupports) const;
    /// Drops the contacts `inFilter` does not keep, unless they are among `inSupports` (same identifiers): a
    /// resting body whose supports come and go rocks and creeps. Keeps the others' order. An unnamed piece
    /// contact is named first where the filter needs its features, or where it would drop it within `inNear`
    /// (world units) of a support on A, to be compared with it.
    static void DropUnreachable(const SpeculativeFilter& inFilter, const btCollisionObjectWrapper& inA,
                                const btCollisionObjectWrapper& inB, std::span<const SupportId> inSupports,
                                double inNear, std::vector<PairContact>& ioContacts);
    /// The front or the pair cache to pass to `GenerateContacts` for deformable A against `inB`, or none
    /// (closest points, both off, or B neither deformable nor an analytic primitive): for two deformables the
    /// front when both bodies track fronts, else the pair cache when both have a skin
    /// (`DeformableShapeSettings::pairCacheSkin`); for a sphere, box, capsule or plane B, static or moving,
    /// the primitive cache with A's skin. Cleared when the bodies' roles changed.
    Coherence CoherenceFor(const DeformableShape& inA, const btCollisionObject& inB);

    std::vector<RegionManifold> mManifolds; ///< One per kept region, ascending region keys.
    std::unique_ptr<PairCoherence> mCoherence; ///< Two deformables with a front or a skin only; else null.
    PreparedPair* mPrepared = nullptr;      ///< Set by a `ParallelDispatcher` for one dispatch.
    bool mClosestPoints = false;
};

} // namespace bdt
