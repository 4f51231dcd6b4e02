#include "DeformableCollisionAlgorithm.h"
#include "bullet/ShapeSolver.h"

#include "ContactGeneration.h"
#include "bullet/manifold/ContactRegions.h"
#include "SurfacePieces.h"
#include "bullet/manifold/ManifoldUpdate.h"
#include "SearchDistance.h"
#include "StageTimer.h"

#include "core/queries/PrimitivePairCache.h"
#include "core/queries/ProxyPairCache.h"
#include "core/queries/TraversalFront.h"

#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btCollisionObject.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionDispatch/btManifoldResult.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <algorithm>
#include <array>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/base/Prefetch.h>
#include <optional>
#include <utility>

namespace bdt
{

// Bullet's pool elements are 192 bytes by default; per-pair data lives on the heap.
static_assert(sizeof(DeformableCollisionAlgorithm) <= 64, "DeformableCollisionAlgorithm is kept small");

/// The temporal coherence of a pair of deformables, and the shapes it was made for, A's and B's. The core
/// queries already start afresh when the trees or proxy levels (front) or states (cache) differ from what
/// they were made with; the shapes catch a swap of roles between two bodies of one asset, which the front's
/// key cannot see. (Even such a front would give the right contacts, any front being a complete cut of the
/// pair's proxy pairs; it would only start the descent in the wrong places.)
struct DeformableCollisionAlgorithm::PairCoherence
{
    TraversalFront front;
    ProxyPairCache cache;
    PrimitivePairCache primitive; ///< B an analytic primitive.
    const DeformableShape* shapeA = nullptr;
    const DeformableShape* shapeB = nullptr;
};

namespace
{

// The contact breaking threshold τ that btCollisionDispatcher::getNewManifold gives the pair's manifolds:
// relative to the shapes' angular motion discs (the default dispatcher flag), or the global constant.
// With `ioMotions`, each shape's threshold is the step's cached one (`StepMotionCache::ShapeThresholdOf`).
double ContactBreakingThreshold(const btDispatcher* inDispatcher, const btCollisionObject& inA,
                                const btCollisionObject& inB, StepMotionCache* ioMotions = nullptr)
{
    const auto* dispatcher = dynamic_cast<const btCollisionDispatcher*>(inDispatcher);
    const bool relative =
        dispatcher == nullptr || (dispatcher->getDispatcherFlags() &
                                  btCollisionDispatcher::CD_USE_RELATIVE_CONTACT_BREAKING_THRESHOLD) != 0;
    if (!relative)
        return double(gContactBreakingThreshold);
    if (ioMotions != nullptr)
        return std::min(ioMotions->ShapeThresholdOf(inA), ioMotions->ShapeThresholdOf(inB));
    return double(std::min(inA.getCollisionShape()->getContactBreakingThreshold(gContactBreakingThreshold),
                           inB.getCollisionShape()->getContactBreakingThreshold(gContactBreakingThreshold)));
}

// The distance a contact-mode pair searches this step and the filter of what it finds: both from the
// bodies' `StepMotion` (`ContactSearchDistance`, `SpeculativeFilter`). `inA`, `inB` in the pair's roles.
// Serial (reads the bodies).
// A surface pair searches beyond τ as far as its frames close over `inFarSteps` steps (`SpeculativeReach`,
// `DeformableCollisionAlgorithm::SpeculativeSteps`); 0 for none.
void ReachOf(double inThreshold, double inTimeStep, const StepMotion& inA, const StepMotion& inB,
             double inFarSteps, double& outSearch, SpeculativeFilter& outFilter)
{
    outSearch = inFarSteps > 0.0 ? ContactSearchDistance(inThreshold, inTimeStep, inA, inB,
                                                         SpeculativeReach(inA, inB), inFarSteps)
                                 : ContactSearchDistance(inThreshold, inTimeStep, inA, inB);
    outFilter = SpeculativeFilter(inThreshold, inTimeStep, inA, inB);
}

void ReachOf(double inThreshold, double inTimeStep, const btCollisionObject& inA,
             const btCollisionObject& inB, double inFarSteps, double& outSearch, SpeculativeFilter& outFilter)
{
    ReachOf(inThreshold, inTimeStep, PredictStepMotion(inA, inTimeStep), PredictStepMotion(inB, inTimeStep),
            inFarSteps, outSearch, outFilter);
}

// Whether the first test of a pair's contact generation, A's root sphere against B's (a deformable's root
// sphere, or a static plane), fails for every distance searched up to `inSearch`, by more than the rounding
// of the spheres' placement and of the tests (relative 1e-6 of the coordinates, where those are at most
// 1e-9): then no proxy pair is within reach and the pair has no contact. A's root sphere nests every proxy's,
// in the narrowphase's own placement (`StepMotion::rootCentre`). False when it cannot tell (other shapes,
// NaN).
bool RootsApart(const StepMotion& inA, double inMarginA, const btCollisionObject& inB,
                const StepMotion& inMotionB, double inSearch)
{
    constexpr double cTolerance = 1e-6;
    if (!(inA.rootRadius >= 0.0))
        return false;
    const double reachA = inA.rootRadius + inMarginA + inSearch; // the descent's inflate on A
    const btCollisionShape* shapeB = inB.getCollisionShape();
    if (const DeformableShape* deformableB = AsDeformable(shapeB))
    {
        if (!(inMotionB.rootRadius >= 0.0))
            return false;
        const double reach = reachA + inMotionB.rootRadius + double(deformableB->getMargin());
        const double tolerance = cTolerance * (reach + inA.rootCentre.cwiseAbs().maxCoeff() +
                                               inMotionB.rootCentre.cwiseAbs().maxCoeff());
        return (inA.rootCentre - inMotionB.rootCentre).norm() > reach + tolerance;
    }
    if (shapeB->getShapeType() == STATIC_PLANE_PROXYTYPE)
    {
        const Plane plane =
            WorldPlane(static_cast<const btStaticPlaneShape&>(*shapeB), inB.getWorldTransform());
        const double height = plane.normal.dot(inA.rootCentre) - plane.offset;
        const double tolerance =
            cTolerance * (reachA + inA.rootCentre.cwiseAbs().maxCoeff() + std::abs(plane.offset));
        return height > reachA + tolerance;
    }
    return false;
}

void AddStats(QueryStats& ioTotal, const QueryStats& inStats)
{
    ioTotal.overlapTests += inStats.overlapTests;
    ioTotal.triangleTests += inStats.triangleTests;
    ioTotal.contacts += inStats.contacts;
}

// The filter's and the region planning's share of a pair's stage stats, `inFound` contacts before the filter
// and `inKept` after it.
void CountFiltered(NarrowphaseStats& ioStats, std::size_t inFound, std::size_t inKept)
{
    ioStats.contactsFound += inFound;
    ioStats.contactsFiltered += inFound - inKept;
}

// A contact's identifiers in the manifold: A's (proxy, triangle), B's own (a deformable's proxy and triangle,
// a concave's part and triangle), else the wrapper's, which for a compound's child are (-1, child index) as
// Bullet's own algorithms report them.
PointIds IdsOf(const PairContact& inContact, const btCollisionObjectWrapper& inA,
               const btCollisionObjectWrapper& inB)
{
    const auto [partA, indexA] = IdentifiersA(inContact, *AsDeformable(inA.getCollisionShape()));
    auto [partB, indexB] = IdentifiersB(inContact, AsDeformable(inB.getCollisionShape()));
    if (partB < 0 && indexB < 0)
    {
        partB = inB.m_partId;
        indexB = inB.m_index;
    }
    return {partA, indexA, partB, indexB};
}

// Flags the candidates `inMembers` (into `inContacts`) that a region's manifold held last step (`inWritten`):
// a named contact by its identifiers (only where the region has more than the reduction keeps); an unnamed one
// (`PairContact::Unnamed`), which has none yet, when it is the nearest on A to a held point, within `inNear`
// (world units; the held point's local point moved with A). An unnamed one flagged gets the held point's
// triangles (tree order) in `ioHints` (per contact), to be named by first.
void FlagKept(std::span<const PairContact> inContacts, std::span<const std::uint32_t> inMembers,
              const WrittenPoints& inWritten, const btCollisionObjectWrapper& inA,
              const btCollisionObjectWrapper& inB, double inNear, std::vector<std::uint8_t>& ioFlags,
              std::vector<std::array<std::uint32_t, 2>>& ioHints)
{
    bool unnamed = false;
    for (std::size_t c = 0; c < inMembers.size(); ++c)
    {
        const PairContact& contact = inContacts[inMembers[c]];
        if (contact.Unnamed())
        {
            unnamed = true;
            continue;
        }
        if (inMembers.size() <= cReducedPointCount)
            continue;
        const PointIds ids = IdsOf(contact, inA, inB);
        for (const WrittenPoint& point : inWritten)
            if (point.ids == ids)
                ioFlags[c] = 1;
    }
    if (!unnamed)
        return;
    const auto treeTriangle = [](const btCollisionShape* inShape, int inInput)
    {
        const DeformableShape* shape = AsDeformable(inShape);
        return shape != nullptr && inInput >= 0 ? shape->TreeTriangle(std::uint32_t(inInput)) : cNoIndex;
    };
    const btTransform& worldFromA = inA.getWorldTransform();
    for (const WrittenPoint& point : inWritten)
    {
        if (point.ids.partId0 < 0 && point.ids.index0 < 0)
            continue; // an empty slot
        const Vec3d held = ToVec3d(worldFromA * point.localA);
        std::size_t nearest = inMembers.size();
        double best = inNear * inNear;
        for (std::size_t c = 0; c < inMembers.size(); ++c)
        {
            const PairContact& contact = inContacts[inMembers[c]];
            if (!contact.Unnamed())
                continue;
            const double d2 = (contact.pointOnB + contact.distance * contact.normal - held).squaredNorm();
            if (d2 <= best)
            {
                best = d2;
                nearest = c;
            }
        }
        if (nearest == inMembers.size())
            continue;
        ioFlags[nearest] = 1;
        ioHints[inMembers[nearest]] = {treeTriangle(inA.getCollisionShape(), point.ids.index0),
                                       treeTriangle(inB.getCollisionShape(), point.ids.index1)};
    }
}

} // namespace

DeformableCollisionAlgorithm::DeformableCollisionAlgorithm(const btCollisionAlgorithmConstructionInfo& inInfo,
                                                           bool inClosestPoints)
    : btCollisionAlgorithm(inInfo), mClosestPoints(inClosestPoints)
{
}

DeformableCollisionAlgorithm::~DeformableCollisionAlgorithm()
{
    ReleaseManifolds();
}

DeformableCollisionAlgorithm::Coherence
DeformableCollisionAlgorithm::CoherenceFor(const DeformableShape& inA, const btCollisionObject& inB)
{
    const btCollisionShape* otherShape = inB.getCollisionShape();
    const DeformableShape* shapeB = AsDeformable(otherShape);
    const bool front = shapeB != nullptr && inA.Settings().frontTracking && shapeB->Settings().frontTracking;
    // The skin in world units, from each body's rest bounding radius (stable across steps, so the list is
    // not dropped for a change of skin).
    const auto skinOf = [](const DeformableShape& inShape)
    {
        return inShape.Settings().pairCacheSkin * double(inShape.State().Proxies().Row(0)[3]) *
               double(inShape.getLocalScaling().x());
    };
    // An analytic primitive keeps a list too, static (the ground) or moving (a ball or crate resting on the
    // body): the list follows the body relative to it, and one that moves too fast for the skin soon stops
    // making lists (`SkinListHistory`).
    const bool analyticPrimitive = shapeB == nullptr && IsAnalyticPrimitive(ClassifyOther(otherShape));
    const double skin = shapeB != nullptr && !front ? std::min(skinOf(inA), skinOf(*shapeB))
                        : analyticPrimitive         ? skinOf(inA)
                                                    : 0.0;
    if (mClosestPoints || (!front && !(skin > 0.0)))
    {
        mCoherence.reset();
        return {};
    }
    if (!mCoherence)
        mCoherence = std::make_unique<PairCoherence>();
    if (mCoherence->shapeA != &inA || mCoherence->shapeB != shapeB)
    {
        mCoherence->front.Clear();
        mCoherence->cache.Clear();
        mCoherence->primitive.Clear();
        mCoherence->shapeA = &inA;
        mCoherence->shapeB = shapeB;
    }
    if (analyticPrimitive)
    {
        mCoherence->primitive.SetSkin(skin);
        return {nullptr, nullptr, &mCoherence->primitive};
    }
    if (front)
    {
        mCoherence->cache.Clear();
        return {&mCoherence->front, nullptr};
    }
    mCoherence->front.Clear();
    mCoherence->cache.SetSkin(skin);
    return {nullptr, &mCoherence->cache};
}

double DeformableCollisionAlgorithm::GatherSupports(std::vector<SupportId>& outSupports) const
{
    outSupports.clear();
    double held = 0.0;
    for (const RegionManifold& region : mManifolds)
        for (int i = 0; i < region.manifold->getNumContacts(); ++i)
            if (const btManifoldPoint& point = region.manifold->getContactPoint(i);
                point.m_appliedImpulse > 0)
            {
                outSupports.push_back({IdsOf(point), point.m_localPointA});
                held = std::max(held, double(point.getDistance()));
            }
    return held;
}

void DeformableCollisionAlgorithm::DropUnreachable(const SpeculativeFilter& inFilter,
                                                   const btCollisionObjectWrapper& inA,
                                                   const btCollisionObjectWrapper& inB,
                                                   std::span<const SupportId> inSupports, double inNear,
                                                   std::vector<PairContact>& ioContacts)
{
    // Where the supports are now on A, to find the unnamed contacts that may be one of them.
    thread_local std::vector<Vec3d> supportsOnA;
    supportsOnA.clear();
    for (const SupportId& support : inSupports)
        supportsOnA.push_back(ToVec3d(inA.getWorldTransform() * support.localA));
    const auto nearSupport = [&](const PairContact& inContact)
    {
        const Vec3d onA = inContact.pointOnB + inContact.distance * inContact.normal;
        return std::any_of(supportsOnA.begin(), supportsOnA.end(),
                           [&](const Vec3d& inSupport) { return (inSupport - onA).squaredNorm() <= inNear * inNear; });
    };
    using EVerdict = SpeculativeFilter::EVerdict;
    std::optional<PieceNamer> namer;
    std::size_t kept = 0;
    for (PairContact& contact : ioContacts)
    {
        EVerdict verdict = inFilter.Judge(contact);
        if (verdict == EVerdict::NeedsName ||
            (verdict == EVerdict::Drops && contact.Unnamed() && nearSupport(contact)))
        {
            if (!namer)
                namer.emplace(PieceNamer::ForPair(inA, inB));
            namer->Name(contact);
            verdict = inFilter.Judge(contact);
        }
        const auto isSupport = [&]
        {
            const PointIds key = IdsOf(contact, inA, inB);
            return std::any_of(inSupports.begin(), inSupports.end(),
                               [&](const SupportId& inSupport) { return inSupport.ids == key; });
        };
        if (verdict != EVerdict::Drops || (!contact.Unnamed() && !inSupports.empty() && isSupport()))
            ioContacts[kept++] = contact;
    }
    ioContacts.resize(kept);
}

double DeformableCollisionAlgorithm::SpeculativeSteps(const DeformableShape& inA,
                                                      const btCollisionShape* inB) const
{
    if (!UsesSurface(inA, inB))
        return 0.0;
    // A pair closing in for its first contact, or a body against a primitive, looks as far as its frames close
    // over two steps. Two deformables in contact already look one step ahead: a pile's proxy pairs grow with the
    // cube of the search, and a resting pile's frames barely move, so it searches τ. Not τ alone: a body falling
    // faster than τ a step onto one it already touches elsewhere would pass the search and go in within the step,
    // where two thin pieces may lock. (Proxy pairs beyond τ stay sphere contacts, `GenerateContacts`.)
    return AsDeformable(inB) == nullptr || mManifolds.empty() ? 2.0 : 1.0;
}

void DeformableCollisionAlgorithm::ReleaseManifolds()
{
    for (const RegionManifold& region : mManifolds)
        m_dispatcher->releaseManifold(region.manifold);
    mManifolds.clear();
}

btScalar DeformableCollisionAlgorithm::calculateTimeOfImpact(btCollisionObject*, btCollisionObject*,
                                                             const btDispatcherInfo&, btManifoldResult*)
{
    return btScalar(1);
}

void DeformableCollisionAlgorithm::getAllContactManifolds(btManifoldArray& manifoldArray)
{
    for (const RegionManifold& region : mManifolds)
        if (region.manifold->getNumContacts() > 0)
            manifoldArray.push_back(region.manifold);
}

bool DeformableCollisionAlgorithm::Preparable(const btCollisionShape* inShape0,
                                              const btCollisionShape* inShape1)
{
    const bool deformable0 = AsDeformable(inShape0) != nullptr;
    const btCollisionShape* other = deformable0 ? inShape1 : inShape0;
    if (!deformable0 && AsDeformable(inShape1) == nullptr)
        return false;
    // GJK and Bullet's triangle traversals keep global counters: serial only.
    const EOtherShape kind = ClassifyOther(other);
    return kind == EOtherShape::Deformable || IsAnalyticPrimitive(kind);
}

bool DeformableCollisionAlgorithm::Prepare(const btCollisionObject& inBody0, const btCollisionObject& inBody1,
                                           const btDispatcherInfo& inInfo, StepMotionCache& ioMotions,
                                           PreparedPair& ioPair)
{
    if (mClosestPoints || !Preparable(inBody0.getCollisionShape(), inBody1.getCollisionShape()))
        return false;
    // A is the deformable one, body 0 when both are (as `processCollision` takes them).
    const bool swap = AsDeformable(inBody0.getCollisionShape()) == nullptr;
    const btCollisionObject& objectA = swap ? inBody1 : inBody0;
    const btCollisionObject& objectB = swap ? inBody0 : inBody1;
    ioPair.algorithm = this;
    ioPair.objectA = &objectA;
    ioPair.objectB = &objectB;
    ioPair.shapeA = AsDeformable(objectA.getCollisionShape());
    ioPair.shapeB = AsDeformable(objectB.getCollisionShape());
    ioPair.threshold = ContactBreakingThreshold(m_dispatcher, objectA, objectB, &ioMotions);
    const StepMotion motionA = ioMotions.MotionOf(objectA);
    const StepMotion motionB = ioMotions.MotionOf(objectB);
    ReachOf(ioPair.threshold, double(inInfo.m_timeStep), motionA, motionB,
            SpeculativeSteps(*ioPair.shapeA, objectB.getCollisionShape()), ioPair.search, ioPair.filter);
    // Held supports may widen the search up to τ (`GatherSupports`).
    const double widest = mManifolds.empty() ? ioPair.search : std::max(ioPair.search, ioPair.threshold);
    ioPair.apart = RootsApart(motionA, double(ioPair.shapeA->getMargin()), objectB, motionB, widest);
    ioPair.plan.Clear();
    ioPair.ready = false;
    // The fits `DeformableShape::QueryView` and the prediction read: made here (a compare of 9 scalars once made),
    // only read by the threads.
    for (const btCollisionObject* object : {&objectA, &objectB})
        if (const DeformableShape* shape = AsDeformable(object->getCollisionShape()))
            shape->RestToWorld(object->getWorldTransform());
    return true;
}

void DeformableCollisionAlgorithm::PrefetchObjects(const PreparedPair& inPair)
{
    PrefetchBytes(inPair.objectA, sizeof(btCollisionObject));
    PrefetchBytes(inPair.objectB, sizeof(btCollisionObject));
    PrefetchBytes(inPair.shapeA, sizeof(DeformableShape));
    if (inPair.shapeB != nullptr)
        PrefetchBytes(inPair.shapeB, sizeof(DeformableShape));
    PrefetchBytes(inPair.algorithm, sizeof(DeformableCollisionAlgorithm));
}

void DeformableCollisionAlgorithm::PrefetchState(const PreparedPair& inPair) const
{
    ShapeSolver::Of(*inPair.shapeA).Prefetch();
    if (inPair.shapeB != nullptr)
        ShapeSolver::Of(*inPair.shapeB).Prefetch();
    PrefetchBytes(mManifolds.data(), mManifolds.size() * sizeof(RegionManifold));
}

void DeformableCollisionAlgorithm::GeneratePrepared(PreparedPair& ioPair, std::vector<PairContact>& ioScratch)
{
    const btCollisionObjectWrapper a = TopLevelWrapper(*ioPair.objectA);
    const btCollisionObjectWrapper b = TopLevelWrapper(*ioPair.objectB);
    ioScratch.clear();
    if (ioPair.apart)
    {
        // What the descent would find, without touching the bodies' states: nothing (and no test counted).
        ioPair.plan.Clear();
        ioPair.plan.stats.pairs = 1;
        ioPair.plan.stats.pairsApart = 1;
        ioPair.ready = true;
        return;
    }
    NarrowphaseStats stats;
    stats.pairs = 1;
    const Coherence coherence = CoherenceFor(*AsDeformable(a.getCollisionShape()), *b.getCollisionObject());
    // Supports stay found and kept (`DropUnreachable`); read here, on the thread, not in the serial
    // `Prepare`.
    thread_local std::vector<SupportId> supports;
    const double search = std::max(ioPair.search, std::min(ioPair.threshold, GatherSupports(supports)));
    GenerateContacts(a, b, search, ioScratch, stats.work, coherence.front, coherence.cache, coherence.primitive,
                     ioPair.threshold, &stats, EPieceNames::Later);
    StageTimer regions;
    const std::size_t found = ioScratch.size();
    DropUnreachable(ioPair.filter, a, b, supports, cMergeSeparation * ioPair.threshold, ioScratch);
    CountFiltered(stats, found, ioScratch.size());
    PlanRegions(a, b, ioScratch, ioPair.threshold, ioPair.plan);
    stats.regionsMs += regions.Lap();
    ioPair.plan.stats = stats;
    ioPair.ready = true;
}

void DeformableCollisionAlgorithm::processCollision(const btCollisionObjectWrapper* body0Wrap,
                                                    const btCollisionObjectWrapper* body1Wrap,
                                                    const btDispatcherInfo& dispatchInfo,
                                                    btManifoldResult* resultOut)
{
    const DeformableShape* shape0 = AsDeformable(body0Wrap->getCollisionShape());
    const btCollisionObjectWrapper& a = shape0 != nullptr ? *body0Wrap : *body1Wrap;
    const btCollisionObjectWrapper& b = shape0 != nullptr ? *body1Wrap : *body0Wrap;
    const DeformableShape* shapeA = AsDeformable(a.getCollisionShape());
    // The plan a `ParallelDispatcher` made for exactly this pair in this dispatch, used once.
    PreparedPair* prepared = std::exchange(mPrepared, nullptr);
    if (prepared != nullptr && prepared->schedule != nullptr)
        prepared->schedule->Await(prepared->slot);
    // (Top-level wrappers only: a compound's child carries its own transform.)
    if (prepared != nullptr &&
        (!prepared->ready || mClosestPoints || prepared->objectA != a.getCollisionObject() ||
         prepared->objectB != b.getCollisionObject() ||
         &a.getWorldTransform() != &a.getCollisionObject()->getWorldTransform() ||
         &b.getWorldTransform() != &b.getCollisionObject()->getWorldTransform()))
        prepared = nullptr;
    if (shapeA == nullptr)
        return;

    if (prepared != nullptr)
    {
        prepared->ready = false;
        CommitRegions(a, b, prepared->plan, prepared->threshold, double(dispatchInfo.m_timeStep));
        return;
    }

    // τ, which the manifolds keep, and the distance searched (`SearchDistance`). Closest-point queries
    // search their whole threshold.
    double threshold = 0.0;
    double search = 0.0;
    SpeculativeFilter filter; // keeps everything
    thread_local std::vector<SupportId> supports;
    supports.clear();
    if (mClosestPoints)
    {
        if (resultOut == nullptr)
            return;
        threshold = std::max(0.0, double(resultOut->m_closestPointDistanceThreshold));
        search = threshold;
    }
    else
    {
        threshold = ContactBreakingThreshold(m_dispatcher, *a.getCollisionObject(), *b.getCollisionObject());
        ReachOf(threshold, double(dispatchInfo.m_timeStep), *a.getCollisionObject(), *b.getCollisionObject(),
                SpeculativeSteps(*shapeA, b.getCollisionShape()), search, filter);
        search = std::max(search, std::min(threshold, GatherSupports(supports)));
        // Pairs through GJK or Bullet's triangle traversals keep every contact: a convex hull resting on a
        // static deformable box crept at 1.2 cm/s with the filter (double precision).
        if (!Preparable(a.getCollisionShape(), b.getCollisionShape()))
            filter = SpeculativeFilter();
    }
    thread_local std::vector<PairContact> generated;
    generated.clear();
    NarrowphaseStats stats;
    stats.pairs = 1;
    const Coherence coherence = CoherenceFor(*shapeA, *b.getCollisionObject());
    GenerateContacts(a, b, search, generated, stats.work, coherence.front, coherence.cache, coherence.primitive,
                     mClosestPoints ? std::numeric_limits<double>::infinity() : threshold, &stats,
                     mClosestPoints ? EPieceNames::Now : EPieceNames::Later);

    if (mClosestPoints)
    {
        AddStats(ShapeSolver::Of(*shapeA).WorkStats(), stats.work);
        if (const DeformableShape* shapeB = AsDeformable(b.getCollisionShape());
            shapeB != nullptr && shapeB != shapeA)
            AddStats(ShapeSolver::Of(*shapeB).WorkStats(), stats.work);
        // The report runs the host's callbacks, which may query again on this thread (a contactTest from
        // addSingleResult) and refill `generated`: it reads a list of this call's own.
        const std::vector<PairContact> reported = std::move(generated);
        generated = {};
        ReportClosestPoints(a, b, reported, threshold, *resultOut);
        return;
    }
    StageTimer regions;
    const std::size_t found = generated.size();
    DropUnreachable(filter, a, b, supports, cMergeSeparation * threshold, generated);
    CountFiltered(stats, found, generated.size());
    thread_local RegionPlan plan;
    PlanRegions(a, b, generated, threshold, plan);
    stats.regionsMs += regions.Lap();
    plan.stats = stats;
    CommitRegions(a, b, plan, threshold, double(dispatchInfo.m_timeStep));
}

void DeformableCollisionAlgorithm::ReportClosestPoints(const btCollisionObjectWrapper& inA,
                                                       const btCollisionObjectWrapper& inB,
                                                       std::span<const PairContact> inContacts,
                                                       double inThreshold, btManifoldResult& ioResult)
{
    // btManifoldResult::addContactPoint (and contactTest's bridged result) take the normal and point in the
    // order of the result's manifold, and compare its body 0 with their own to swap local points and
    // identifiers: a manifold carrying (A, B) is all they need. It is never registered with the dispatcher.
    const btCollisionObject* objectA = inA.getCollisionObject();
    const btCollisionObject* objectB = inB.getCollisionObject();
    btPersistentManifold carrier(objectA, objectB, 0, BT_LARGE_FLOAT, BT_LARGE_FLOAT);
    btPersistentManifold* saved = ioResult.getPersistentManifold();
    ioResult.setPersistentManifold(&carrier);
    const bool aIsResultBody0 = ioResult.getBody0Internal() == objectA;
    for (const PairContact& contact : inContacts)
    {
        if (contact.distance > inThreshold)
            continue;
        const PointIds ids = IdsOf(contact, inA, inB);
        if (aIsResultBody0)
        {
            ioResult.setShapeIdentifiersA(ids.partId0, ids.index0);
            ioResult.setShapeIdentifiersB(ids.partId1, ids.index1);
        }
        else
        {
            ioResult.setShapeIdentifiersA(ids.partId1, ids.index1);
            ioResult.setShapeIdentifiersB(ids.partId0, ids.index0);
        }
        ioResult.addContactPoint(ToBtVector(contact.normal), ToBtVector(contact.pointOnB),
                                 btScalar(contact.distance));
    }
    ioResult.setPersistentManifold(saved);
}

void DeformableCollisionAlgorithm::PlanRegions(const btCollisionObjectWrapper& inA,
                                               const btCollisionObjectWrapper& inB,
                                               std::span<const PairContact> inContacts, double inThreshold,
                                               RegionPlan& outPlan) const
{
    outPlan.Clear();
    const DeformableShape& shapeA = *AsDeformable(inA.getCollisionShape());
    const DeformableShapeSettings& settings = shapeA.Settings();
    const std::uint32_t regionLevel = RegionLevel(shapeA.State().Proxies().Level(), settings.regionDepth);
    thread_local std::vector<std::uint32_t> keys;
    keys.resize(inContacts.size());
    const BDTree& tree = shapeA.State().Tree();
    std::uint32_t lastRegion = cNoIndex;
    for (std::size_t i = 0; i < inContacts.size(); ++i)
    {
        // A pair's contacts are mostly neighbours: one in the last one's region is found without descending.
        const std::uint32_t node = inContacts[i].feature0.node;
        if (lastRegion != cNoIndex && InRegion(tree, node, lastRegion, regionLevel))
            keys[i] = lastRegion;
        else
            keys[i] = lastRegion = RegionOf(tree, node, regionLevel);
    }

    thread_local std::vector<std::uint32_t> previousKeys;
    previousKeys.clear();
    for (const RegionManifold& region : mManifolds)
        previousKeys.push_back(region.region);
    thread_local RegionAssignment assignment;
    AssignRegions(inContacts, keys, previousKeys, settings.maxManifoldsPerPair, assignment, 0.1 * inThreshold);

    thread_local std::vector<std::vector<std::uint32_t>> members;
    if (members.size() < assignment.keys.size())
        members.resize(assignment.keys.size());
    for (std::size_t k = 0; k < assignment.keys.size(); ++k)
        members[k].clear();
    for (std::size_t i = 0; i < inContacts.size(); ++i)
        members[assignment.ofContact[i]].push_back(std::uint32_t(i));

    thread_local std::vector<std::uint32_t> chosen;
    thread_local std::vector<std::uint8_t> keptFlags;
    thread_local std::vector<std::array<std::uint32_t, 2>> hints; // per contact (`FlagKept`)
    hints.assign(inContacts.size(), {cNoIndex, cNoIndex});
    // Each region reduced to its ≤ 4 points (`ReduceContacts`), then near-coincident points among all of the
    // pair's chosen ones merged (`MergeNearPoints`): a ball under a face touches it at one point, found on
    // several triangles, often where regions meet. Only the chosen points are merged: a region of a large
    // resting face may hold thousands of candidates, which its reduction already spreads.
    thread_local std::vector<std::uint32_t> chosenAll;
    thread_local std::vector<std::uint32_t> chosenEnds;
    chosenAll.clear();
    chosenEnds.clear();
    const double mergeSeparation = cMergeSeparation * inThreshold;
    thread_local std::vector<std::uint8_t> survives;
    for (std::size_t k = 0; k < assignment.keys.size(); ++k)
    {
        const std::uint32_t key = assignment.keys[k];
        // Last step's points of this region keep their place unless clearly beaten (`ReduceContacts`): by
        // more than a tenth of the contact breaking threshold in depth (Bullet's own scale for a point's
        // persistence) or a tenth in spread. (A region of at most `cReducedPointCount` contacts keeps them
        // all; its unnamed contacts still learn the triangles their held points had.)
        keptFlags.assign(members[k].size(), 0);
        const auto previousRegion = std::find_if(mManifolds.begin(), mManifolds.end(),
                                                 [key](const RegionManifold& inRegion) { return inRegion.region == key; });
        if (previousRegion != mManifolds.end())
            FlagKept(inContacts, members[k], previousRegion->written, inA, inB, 0.1 * inThreshold, keptFlags,
                     hints);
        ReduceContacts(inContacts, members[k], chosen, keptFlags, 0.1 * inThreshold, 0.1);
        chosenAll.insert(chosenAll.end(), chosen.begin(), chosen.end());
        chosenEnds.push_back(std::uint32_t(chosenAll.size()));
    }
    MergeNearPoints(inContacts, chosenAll, mergeSeparation, survives);

    const PairPrediction prediction = PreparePrediction(inA, inB);
    std::optional<PieceNamer> namer;
    std::uint32_t begin = 0;
    for (std::size_t k = 0; k < assignment.keys.size(); ++k)
    {
        // The solver's view of a vibrating surface, for the points it gets: where the modes will carry it
        // over the step and how they give way (closest-point queries report the geometry as it is). The
        // points kept of piece contacts are named here, and only they.
        const std::size_t first = outPlan.points.size();
        for (std::uint32_t i = begin; i < chosenEnds[k]; ++i)
            if (survives[i] != 0)
            {
                outPlan.points.push_back(inContacts[chosenAll[i]]);
                if (outPlan.points.back().Unnamed())
                {
                    if (!namer)
                        namer.emplace(PieceNamer::ForPair(inA, inB));
                    namer->Name(outPlan.points.back(), hints[chosenAll[i]]);
                }
            }
        begin = chosenEnds[k];
        if (outPlan.points.size() == first)
            continue; // all its points merged into other regions'
        PredictContacts(inA, inB, prediction, std::span<PairContact>(outPlan.points).subspan(first));
        outPlan.keys.push_back(assignment.keys[k]);
        outPlan.ends.push_back(std::uint32_t(outPlan.points.size()));
    }
}

void DeformableCollisionAlgorithm::CommitRegions(const btCollisionObjectWrapper& inA,
                                                 const btCollisionObjectWrapper& inB,
                                                 const RegionPlan& inPlan, double inThreshold,
                                                 double inTimeStep)
{
    const DeformableShape* shapeA = AsDeformable(inA.getCollisionShape());
    AddStats(ShapeSolver::Of(*shapeA).WorkStats(), inPlan.stats.work);
    if (const DeformableShape* shapeB = AsDeformable(inB.getCollisionShape());
        shapeB != nullptr && shapeB != shapeA)
        AddStats(ShapeSolver::Of(*shapeB).WorkStats(), inPlan.stats.work);
    NarrowphaseStats& stages = ShapeSolver::Of(*shapeA).NarrowphaseWork();
    stages.Add(inPlan.stats);
    stages.pointsKept += inPlan.points.size();
    // Most of a pile's pairs only have their bounding boxes overlap: nothing held, nothing to write.
    if (inPlan.keys.empty() && mManifolds.empty())
        return;
    StageTimer commit;

    // Last step's points, for warm starting; from here on they own their user persistent data.
    thread_local std::vector<btPersistentManifold*> manifolds;
    thread_local std::vector<WrittenPoints> written;
    manifolds.clear();
    written.clear();
    for (const RegionManifold& region : mManifolds)
    {
        manifolds.push_back(region.manifold);
        written.push_back(region.written);
    }
    thread_local PreviousPoints previous;
    previous.Capture(manifolds, written);

    // Regions without contacts this step give their manifolds back.
    for (const RegionManifold& region : mManifolds)
        if (!std::binary_search(inPlan.keys.begin(), inPlan.keys.end(), region.region))
            m_dispatcher->releaseManifold(region.manifold);

    const btCollisionObject& objectA = *inA.getCollisionObject();
    const btCollisionObject& objectB = *inB.getCollisionObject();
    thread_local std::vector<RegionManifold> next; // copied into mManifolds, whose capacity stays
    thread_local std::vector<btManifoldPoint> points;
    next.clear();
    std::uint32_t begin = 0;
    const PairMaterial material = CombineMaterial(objectA, objectB);
    for (std::size_t k = 0; k < inPlan.keys.size(); ++k)
    {
        const std::uint32_t key = inPlan.keys[k];
        const std::uint32_t end = inPlan.ends[k];
        points.clear();
        for (std::uint32_t i = begin; i < end; ++i)
        {
            const PairContact& contact = inPlan.points[i];
            btManifoldPoint point =
                MakeManifoldPoint(contact, IdsOf(contact, inA, inB), objectA, objectB, inTimeStep, material);
            // The solver's gap of a vibrating surface depends on the warm-start impulse (`SetSolverGap`).
            if (previous.WarmStart(point))
                SetSolverGap(point, contact);
            points.push_back(point);
        }
        begin = end;

        const auto previousRegion =
            std::find_if(mManifolds.begin(), mManifolds.end(),
                         [key](const RegionManifold& inRegion) { return inRegion.region == key; });
        btPersistentManifold* manifold =
            previousRegion != mManifolds.end() ? previousRegion->manifold : nullptr;
        if (manifold == nullptr)
            manifold = m_dispatcher->getNewManifold(&objectA, &objectB);
        if (manifold == nullptr) // pool exhausted with dynamic allocation disabled
        {
            for (btManifoldPoint& point : points)
                if (point.m_userPersistentData != nullptr && gContactDestroyedCallback != nullptr)
                    gContactDestroyedCallback(point.m_userPersistentData);
            continue;
        }
        manifold->setContactBreakingThreshold(btScalar(inThreshold));
        WriteManifold(*manifold, points, inA, inB);
        next.push_back({key, manifold, RecordWritten(points)});
    }
    previous.Finish();
    mManifolds.assign(next.begin(), next.end());
    stages.commitMs += commit.Lap();
}

} // namespace bdt
