// Contacts of a deformable's proxy spheres with the other shape of a pair: the analytic core queries (tree,
// sphere, box, capsule, half-space) here, GJK and triangles in their own files.

#include "ContactGeneration.h"
#include "bullet/ShapeSolver.h"

#include "ConcaveProxyContacts.h"
#include "ConvexProxyContacts.h"
#include "StageTimer.h"
#include "PieceDescent.h"
#include "SurfacePieces.h"
#include "SurfacePatches.h"

#include "core/queries/CoherentQueries.h"
#include "core/queries/RegionTraversal.h"
#include "core/queries/TreeQueriesInternal.h"
#include "core/contacts/SurfaceCache.h"
#include "core/contacts/SurfaceContacts.h"

#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <optional>
#include <type_traits>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/bounds/BDAabbTree.h>
#include <bdt/core/queries/TreeQueries.h>

namespace bdt
{

EOtherShape ClassifyOther(const btCollisionShape* inShape)
{
    if (AsDeformable(inShape) != nullptr)
        return EOtherShape::Deformable;
    switch (inShape->getShapeType())
    {
    case SPHERE_SHAPE_PROXYTYPE:
        return EOtherShape::Sphere;
    case BOX_SHAPE_PROXYTYPE:
        return EOtherShape::Box;
    case CAPSULE_SHAPE_PROXYTYPE:
        return EOtherShape::Capsule;
    case STATIC_PLANE_PROXYTYPE:
        return EOtherShape::Plane;
    default:
        break;
    }
    if (inShape->isCompound())
        return EOtherShape::Compound;
    if (inShape->isConvex())
        return EOtherShape::Convex;
    if (inShape->isConcave())
        return EOtherShape::Concave;
    return EOtherShape::Unsupported;
}

namespace
{

// The core's proxy contacts are measured on the inflated spheres: depth = (inflated overlap) and the point
// midway between the proxy's deepest point and B's surface point along the normal. With A inflated by
// margin + maxDistance (and B, if deformable, by its margin only), B's surface point is point + depth/2 ·
// normal and the distance between the margin-grown surfaces is maxDistance − depth.
void AppendProxyContacts(const std::vector<ProxyContact>& inContacts, double inMaxDistance,
                         bool inOtherDeformable, std::vector<PairContact>& outContacts)
{
    for (const ProxyContact& contact : inContacts)
    {
        PairContact out;
        out.normal = contact.normal.normalized();
        out.pointOnB = contact.point + 0.5 * contact.depth * contact.normal;
        out.distance = inMaxDistance - contact.depth;
        out.feature0.node = contact.nodeA;
        if (inOtherDeformable)
            out.feature1.node = contact.nodeB;
        if (out.distance <= inMaxDistance)
            outContacts.push_back(out);
    }
}

// Puts tree-vs-tree contacts in ascending (A's proxy, B's proxy) order. The descent from the roots and the
// one from the pair's front find the same contacts in different orders, and what follows depends on the
// order (the regions' centroids are sums, `ReduceContacts` breaks ties by position, the solver visits the
// manifold points in turn): one order makes the narrowphase's result independent of the path taken.
// Each pair of proxies appears once, so the order is total. O(k log k) for k contacts, tens to hundreds.
void SortByProxies(std::vector<ProxyContact>& ioContacts)
{
    std::sort(ioContacts.begin(), ioContacts.end(),
              [](const ProxyContact& inX, const ProxyContact& inY)
              { return inX.nodeA != inY.nodeA ? inX.nodeA < inY.nodeA : inX.nodeB < inY.nodeB; });
}

Capsule WorldCapsule(const btCapsuleShape& inCapsule, const btTransform& inTransform)
{
    btVector3 half(0, 0, 0);
    half[inCapsule.getUpAxis()] = inCapsule.getHalfHeight();
    return {ToVec3d(inTransform * -half), ToVec3d(inTransform * half), double(inCapsule.getRadius())};
}

// Calls `inUse` with B, of kind `inKind` (`ClassifyOther`) placed by `inTransform`, as the primitive the core
// tests exactly: a `Sphere`, an `OrientedBox` (margin included), a `Capsule` or the plane's half-space
// (`WorldPlane`). False, without calling it, for any other kind.
template <class Use>
bool UsePrimitive(const btCollisionShape& inShape, EOtherShape inKind, const btTransform& inTransform,
                  const Use& inUse)
{
    switch (inKind)
    {
    case EOtherShape::Sphere:
        inUse(Sphere{ToVec3d(inTransform.getOrigin()),
                     double(static_cast<const btSphereShape&>(inShape).getRadius())});
        return true;
    case EOtherShape::Box:
        inUse(OrientedBox{ToPose(inTransform),
                          ToVec3d(static_cast<const btBoxShape&>(inShape).getHalfExtentsWithMargin())});
        return true;
    case EOtherShape::Capsule:
        inUse(WorldCapsule(static_cast<const btCapsuleShape&>(inShape), inTransform));
        return true;
    case EOtherShape::Plane:
        inUse(WorldPlane(static_cast<const btStaticPlaneShape&>(inShape), inTransform));
        return true;
    default:
        return false;
    }
}

} // namespace

Plane WorldPlane(const btStaticPlaneShape& inPlane, const btTransform& inTransform)
{
    const btVector3 normal = inTransform.getBasis() * inPlane.getPlaneNormal();
    Plane plane;
    plane.normal = ToVec3d(normal).normalized();
    plane.offset = double(inPlane.getPlaneConstant()) + plane.normal.dot(ToVec3d(inTransform.getOrigin()));
    return plane;
}

std::pair<int, int> IdentifiersA(const PairContact& inContact, const DeformableShape& inA)
{
    const ContactFeature& feature = inContact.feature0;
    return {feature.node == cNoIndex ? -1 : int(feature.node),
            feature.OnSurface() ? int(inA.InputTriangle(feature.triangle)) : -1};
}

std::pair<int, int> IdentifiersB(const PairContact& inContact, const DeformableShape* inB)
{
    const ContactFeature& feature = inContact.feature1;
    if (inB != nullptr && feature.node != cNoIndex)
        return {int(feature.node), feature.OnSurface() ? int(inB->InputTriangle(feature.triangle)) : -1};
    return {inContact.partId1, inContact.index1};
}

bool UsesSurface(const DeformableShape& inA, const btCollisionShape* inB)
{
    const auto surface = [](const DeformableShape& inShape)
    {
        return inShape.Settings().contactModel == EContactModel::Surface &&
               ShapeSolver::Of(inShape).Patches() != nullptr;
    };
    const DeformableShape* shapeB = AsDeformable(inB);
    return surface(inA) && (shapeB == nullptr || surface(*shapeB));
}



namespace
{

// How much a proxy's updated radius exceeds its rest radius, in world units: the growth ΔRᵀ|q| (or the tight
// bound's) that keeps the sphere conservative. Computed from the row (`ComputeSphereNow`, the cached sphere's
// bits) rather than read from the body's cache, whose lines the descent no longer brings in.
double RadiusGrowth(const DeformableShape& inShape, std::uint32_t inNode)
{
    const TreeState& state = inShape.State();
    const double rest = double(state.Proxies().Row(inNode)[3]);
    return double(inShape.getLocalScaling().x()) *
           std::max(0.0, double(state.ComputeSphereNow(inNode).radius) - rest);
}

// A proxy contact (from `GenerateSphereContacts`) at its rest radii: the radius growth (eq. 7) bounds how far
// the proxy's triangles spread about its moved centre, which the culling needs, but it grows with |q| whichever
// way the body deforms: pushing against it would lift a resting body on every half-period of its vibration and
// pump energy into it. False when the contact is then beyond `inMaxDistance` (drop it).
bool AtRestRadius(const DeformableShape& inA, const DeformableShape* inB, double inMaxDistance,
                  PairContact& ioContact)
{
    ioContact.distance += RadiusGrowth(inA, ioContact.feature0.node);
    if (inB != nullptr && ioContact.feature1.node != cNoIndex)
    {
        // B's contact point moves back onto B's rest-radius sphere, along the normal (B to A).
        const double growthB = RadiusGrowth(*inB, ioContact.feature1.node);
        ioContact.distance += growthB;
        ioContact.pointOnB -= growthB * ioContact.normal;
    }
    return ioContact.distance <= inMaxDistance;
}

// `AtRestRadius` over `ioContacts` from `inFirst`, keeping those still within `inMaxDistance` in their order.
void AtRestRadii(const DeformableShape& inA, const DeformableShape* inB, double inMaxDistance,
                 std::vector<PairContact>& ioContacts, std::size_t inFirst)
{
    std::size_t kept = inFirst;
    for (std::size_t i = inFirst; i < ioContacts.size(); ++i)
    {
        PairContact contact = ioContacts[i];
        if (AtRestRadius(inA, inB, inMaxDistance, contact))
            ioContacts[kept++] = contact;
    }
    ioContacts.resize(kept);
}

// The world boxes of a body's proxies at the current q (BD-AABB, BD-Tree paper §3.5: each holds every deformed
// vertex of its node's triangles): what the surface model culls a proxy pair by before it deforms the pair's
// patches. 12M flops a box.
class ProxyBoxes
{
public:
    ProxyBoxes(const DeformableShape& inShape, const DeformedBody& inBody)
        : mBody(inBody), mRows(ShapeSolver::Of(inShape).SurfaceBoxes())
    {
        if (mRows == nullptr)
            return;
        const std::span<const float> q = inBody.state->Q();
        mQq.resize(8 * q.size());
        MakeBoxUpdateInput(q, mQq.data());
    }

    bool Available() const { return mRows != nullptr; }

    /// Node `inNode`'s box in world, its half extents grown by `inGrow`.
    WorldBox Box(std::uint32_t inNode, double inGrow) const
    {
        UpdatedBox box;
        UpdateBox(mRows->Row(inNode), mQq.data(), mRows->ModeCount(), box);
        WorldBox world;
        world.center = mBody.pose.Apply(mBody.scale * Vec3d(box.center[0], box.center[1], box.center[2]));
        world.halfExtents =
            (mBody.scale * Vec3d(box.halfExtents[0], box.halfExtents[1], box.halfExtents[2])).array() + inGrow;
        return world;
    }

private:
    const DeformedBody& mBody;
    const BDAabbTree* mRows;
    std::vector<float> mQq;
};

// Whether A's contact pieces collide with the primitive `inOther` (of kind `inKind`): a plane or a box, and a
// sphere no larger than A. A body resting on a larger sphere sits on one point of it, and a piece's one
// contact there rocks where the triangles' fan of contacts around the touch holds it.
bool PiecesAgainst(const DeformableShape& inA, EOtherShape inKind, const btCollisionShape& inOther)
{
    if (inKind == EOtherShape::Plane || inKind == EOtherShape::Box)
        return true;
    if (inKind != EOtherShape::Sphere)
        return false;
    const double size = inA.Asset().BoundingRadius() * double(inA.getLocalScaling().x());
    return double(static_cast<const btSphereShape&>(inOther).getRadius()) <= size;
}

// The sphere contacts of the proxy pairs of a contact cut (`DescendToCut`) whose spheres overlap, as the sphere
// descent gives them: A's sphere inflated by its margin and the band, B's by its margin, in ascending pairs.
void AppendCutProxyContacts(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB,
                            double inMaxDistance, std::span<const std::pair<std::uint32_t, std::uint32_t>> inPairs,
                            std::vector<PairContact>& outContacts, QueryStats& ioStats)
{
    const DeformableShape& shapeA = *AsDeformable(inA.getCollisionShape());
    const DeformableShape& shapeB = *AsDeformable(inB.getCollisionShape());
    const DeformedBody bodyA =
        shapeA.QueryView(inA.getWorldTransform(), double(shapeA.getMargin()) + inMaxDistance);
    const DeformedBody bodyB = shapeB.QueryView(inB.getWorldTransform(), double(shapeB.getMargin()));
    thread_local std::vector<ProxyContact> contacts;
    contacts.clear();
    for (const auto& [a, b] : inPairs)
    {
        const detail::WorldSphere sphereA = detail::PlaceSphere(bodyA, bodyA.state->ComputeSphereNow(a));
        const detail::WorldSphere sphereB = detail::PlaceSphere(bodyB, bodyB.state->ComputeSphereNow(b));
        ++ioStats.overlapTests;
        if (!detail::SpheresOverlap(sphereA, sphereB))
            continue;
        const Vec3d delta = sphereA.center - sphereB.center;
        const double length = delta.norm();
        ProxyContact contact;
        contact.normal = length > 0.0 ? Vec3d(delta / length) : Vec3d(Vec3d::UnitY());
        contact.depth = sphereA.radius + sphereB.radius - length;
        contact.point = 0.5 * (sphereA.center - sphereA.radius * contact.normal + sphereB.center +
                               sphereB.radius * contact.normal);
        contact.nodeA = a;
        contact.nodeB = b;
        contacts.push_back(contact);
        ++ioStats.contacts;
    }
    AppendProxyContacts(contacts, inMaxDistance, true, outContacts);
}

// The lists a `SurfacePass` works in: the thread's own, kept from one pass to the next for their capacity.
struct SurfacePassLists
{
    std::vector<PairContact> found; // the descent's contacts, replaced by the pass
    std::vector<std::pair<std::uint32_t, std::uint32_t>> piecePairs;
    std::vector<SurfaceContact> surface; // one proxy pair's patch contacts
    std::vector<PairContact> quiet;       // a primitive's proxy contacts whose patches made none
    std::vector<std::uint8_t> quietApart; // per quiet contact: its patch's box was apart
    std::vector<PieceContact> pieceContacts; // one piece pair's
    PlacedPatch scratchA, scratchB;
};

SurfacePassLists& ThreadSurfacePassLists()
{
    thread_local SurfacePassLists lists;
    return lists;
}

// The surface model on the proxies a sphere descent found (`ioContacts` from `inFirst`: one per proxy, or per
// proxy pair, of A with a primitive or a deformable B): each replaced by the contacts of the deformed
// triangles under it (`PatchContacts`), or of the contact pieces holding it. A contact of an interrupted
// descent above the proxies stays a sphere contact. One object per call, on the calling thread; its lists are
// the thread's own.
class SurfacePass
{
public:
    SurfacePass(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB, double inMaxDistance,
                double inSurfaceReach, std::vector<PairContact>& ioContacts, QueryStats& ioStats,
                PieceSide& ioPiecesA, PieceSide* ioPiecesB, EPieceNames inPieceNames)
        : mA(inA), mShapeA(*AsDeformable(inA.getCollisionShape())), mShapeB(AsDeformable(inB.getCollisionShape())),
          mMaxDistance(inMaxDistance), mSurfaceReach(inSurfaceReach), mContacts(ioContacts), mStats(ioStats),
          mPiecesA(ioPiecesA), mPiecesB(ioPiecesB), mBodyA(mShapeA.QueryView(inA.getWorldTransform())),
          mBodyB(mShapeB != nullptr ? mShapeB->QueryView(inB.getWorldTransform()) : DeformedBody{}),
          mOther(inB.getCollisionShape()), mKind(ClassifyOther(mOther)), mTransformB(inB.getWorldTransform()),
          mBoxesA(mShapeA, mBodyA),
          mBoxesB(mShapeB != nullptr ? std::optional<ProxyBoxes>(std::in_place, *mShapeB, mBodyB) : std::nullopt),
          mCull(mBoxesA.Available() && (!mBoxesB || mBoxesB->Available())),
          mMarginB(mShapeB != nullptr ? double(mShapeB->getMargin()) : 0.0),
          mReach(inMaxDistance + double(mShapeA.getMargin()) + mMarginB),
          mPiecesOn(ioPiecesA.Available() &&
                    (ioPiecesB ? ioPiecesB->Available() : PiecesAgainst(mShapeA, mKind, *mOther))),
          mPieceNames(inPieceNames),
          mNamer(ioPiecesA.Body(), ioPiecesA.Pieces(), ioPiecesB ? &ioPiecesB->Body() : nullptr,
                 ioPiecesB ? ioPiecesB->Pieces() : nullptr)
    {
        if (mCull && mBoxesB)
            mBoxesOverlap.emplace(mBodyA.pose.rotation, mBodyB.pose.rotation);
    }
    SurfacePass(const SurfacePass&) = delete;
    SurfacePass& operator=(const SurfacePass&) = delete;

    // Replaces the contacts from `inFirst` on, adds the piece pairs' contacts, then withdraws or keeps the
    // crossing fallbacks and, against a primitive, falls back to the proxies it meets if nothing else did.
    void Run(std::size_t inFirst, std::span<const std::pair<std::uint32_t, std::uint32_t>> inPiecePairs,
             double& ioPlaceMs)
    {
        mLists.found.assign(mContacts.begin() + std::ptrdiff_t(inFirst), mContacts.end());
        mContacts.resize(inFirst);
        mLists.quiet.clear();
        mLists.quietApart.clear();
        mLists.surface.clear();
        // Contact pieces: proxy pairs whose proxies both lie in pieces within their tolerance (or, against a
        // plane, sphere or box, A's) collide as the pieces' boxes, each pair of pieces once.
        mLists.piecePairs.assign(inPiecePairs.begin(), inPiecePairs.end());
        for (const PairContact& contact : mLists.found)
            ProxyPair(contact, ioPlaceMs);
        CollidePiecePairs();
        WithdrawOrKeepFallbacks(inFirst);
        FallBackToProxiesMet();
    }

private:
    // Each proxy pair's boxes first: a pair whose boxes are further apart than any feature pair could count
    // (the band and the margins, or the patches' depth limits for features behind faces) makes no surface
    // contact and none of the counts below, so its patches are not deformed.
    bool Apart(std::uint32_t inNodeA, std::uint32_t inNodeB)
    {
        if (!mCull)
            return false;
        if (inNodeA != mBoxedA)
        {
            mBoxA = mBoxesA.Box(inNodeA, 0.0);
            mBoxedA = inNodeA;
        }
        ++mStats.overlapTests;
        if (mBoxesB)
            return !(*mBoxesOverlap)(mBoxA, mBoxesB->Box(inNodeB, mReach));
        bool isApart = false;
        UsePrimitive(*mOther, mKind, mTransformB, [&](const auto& inPrimitive)
                     { isApart = BoxApart(mBoxA, mBodyA.pose.rotation, inPrimitive, mReach); });
        return isApart;
    }

    // One proxy contact of the descent: kept at its rest radius (an interrupted descent's coarse pair, or
    // proxies still apart), passed to the piece pairs, or replaced by its patches' contacts.
    void ProxyPair(const PairContact& inContact, double& ioPlaceMs)
    {
        const std::uint32_t nodeA = inContact.feature0.node, nodeB = inContact.feature1.node;
        if (!mShapeA.State().Proxies().IsProxy(nodeA) ||
            (mShapeB != nullptr && !mShapeB->State().Proxies().IsProxy(nodeB)) ||
            (mShapeB != nullptr && inContact.distance > mSurfaceReach))
        {
            // An interrupted descent's coarse pair, or proxies still apart (`GenerateContacts`).
            mStats.speculativePairs += mShapeB != nullptr && inContact.distance > mSurfaceReach ? 1 : 0;
            PairContact atRest = inContact;
            if (AtRestRadius(mShapeA, mShapeB, mMaxDistance, atRest))
                mContacts.push_back(atRest);
            return;
        }
        if (Apart(nodeA, nodeB))
        {
            if (mShapeB == nullptr)
            {
                mLists.quiet.push_back(inContact);
                mLists.quietApart.push_back(1);
            }
            return;
        }
        if (mPiecesOn)
        {
            if (mPiecesA.Inside(nodeA) || (mPiecesB && mPiecesB->Inside(nodeB)))
                return; // nothing but the body's inside under it
            const std::span<const std::uint32_t> listA = mPiecesA.PiecesOf(nodeA);
            const std::span<const std::uint32_t> listB =
                mPiecesB ? mPiecesB->PiecesOf(nodeB) : std::span<const std::uint32_t>(&cNoIndex, 1);
            if (!listA.empty() && !listB.empty())
            {
                for (const std::uint32_t pieceA : listA)
                    for (const std::uint32_t pieceB : listB)
                        mLists.piecePairs.emplace_back(pieceA, pieceB);
                return;
            }
        }
        PatchPair(inContact, nodeA, nodeB, ioPlaceMs);
    }

    // The contacts of the deformed triangles of A's proxy `inNodeA` and of B's `inNodeB` (or B's primitive),
    // or the proxy contact `inContact` as a fallback where they cross or lie deep and touch nowhere.
    void PatchPair(const PairContact& inContact, std::uint32_t inNodeA, std::uint32_t inNodeB, double& ioPlaceMs)
    {
        std::vector<SurfaceContact>& surface = mLists.surface;
        StageTimer place;
        if (inNodeA != mPlacedA)
        {
            mViewA = PlaceProxyPatch(mShapeA, mBodyA, inNodeA, mLists.scratchA, &mStats);
            mViewA.bodyCentre = ToVec3d(mA.getWorldTransform().getOrigin());
            mPlacedA = inNodeA;
            mStats.triangleTests += ShapeSolver::Of(mShapeA).Patches()->OwnTriangleCount(inNodeA);
        }
        // Feature pairs too deep to make a contact, and (two deformables) vertices behind faces they do not face.
        std::size_t deep = 0, crossings = 0;
        if (mKind == EOtherShape::Deformable)
        {
            // One shape on both sides (two objects sharing it): B's patch apart, A's view refers into the cache.
            const PatchView viewB =
                PlaceProxyPatch(*mShapeB, mBodyB, inNodeB, mLists.scratchB, &mStats,
                                mShapeB == &mShapeA ? EPatchStorage::Scratch : EPatchStorage::Cache);
            ioPlaceMs += place.Lap();
            mStats.triangleTests += ShapeSolver::Of(*mShapeB).Patches()->OwnTriangleCount(inNodeB);
            deep = PatchContacts(mViewA, viewB, mMaxDistance, surface, &crossings);
        }
        else
        {
            ioPlaceMs += place.Lap();
            UsePrimitive(*mOther, mKind, mTransformB,
                         [&](const auto& inPrimitive) { deep = PatchContacts(mViewA, inPrimitive, mMaxDistance, surface); });
        }
        // Patches deep inside each other or in a primitive (spawned so, pressed through, a ball whose centre went
        // into the body) make no surface contact: their proxy contact pushes them out. So do two patches whose
        // surfaces cross, and a primitive's deep patches, if the pair makes no surface contact anywhere
        // (below): a ball pressed a few millimetres into a finely meshed face has vertices inside it that face
        // away from its centre in the patches round the one it touches, and their proxy contacts, whose normals
        // point from the proxies' centres, would kick it sideways. (A plane's proxy contact pushes along its
        // normal: a patch deep under it keeps it.)
        if (surface.empty() && (deep > 0 || crossings > 0))
        {
            ++mStats.fallbacks;
            PairContact fallback = inContact;
            fallback.withdrawable = deep == 0 || (mShapeB == nullptr && mKind != EOtherShape::Plane);
            if (AtRestRadius(mShapeA, mShapeB, mMaxDistance, fallback))
                mContacts.push_back(fallback);
            else
                ++mStats.fallbacksApart;
        }
        else if (surface.empty() && mShapeB == nullptr)
        {
            mLists.quiet.push_back(inContact);
            mLists.quietApart.push_back(0);
        }
        mMadeSurface = mMadeSurface || !surface.empty();
        // In the order of the proxy pairs, as the fallbacks above.
        AppendSurface(surface, mContacts);
        surface.clear();
    }

    // Each pair of pieces once, in ascending order: their boxes' contacts, each at the deformed surfaces' own
    // distance.
    void CollidePiecePairs()
    {
        std::vector<std::pair<std::uint32_t, std::uint32_t>>& piecePairs = mLists.piecePairs;
        if (piecePairs.empty())
            return;
        std::sort(piecePairs.begin(), piecePairs.end());
        piecePairs.erase(std::unique(piecePairs.begin(), piecePairs.end()), piecePairs.end());
        const double pieceReach = mReach + mPiecesA.Tolerance() + (mPiecesB ? mPiecesB->Tolerance() : 0.0);
        std::vector<PieceContact>& pieceContacts = mLists.pieceContacts;
        for (const auto& [pieceA, pieceB] : piecePairs)
        {
            pieceContacts.clear();
            const PlacedPiece placedPieceA = mPiecesA.Place(pieceA);
            if (mPiecesB)
                CollidePieces(placedPieceA, mPiecesB->Place(pieceB), pieceReach, pieceContacts);
            else
                UsePrimitive(*mOther, mKind, mTransformB,
                             [&](const auto& inPrimitive)
                             {
                                 using Primitive = std::decay_t<decltype(inPrimitive)>;
                                 if constexpr (std::is_same_v<Primitive, OrientedBox>)
                                     CollidePieces(placedPieceA, mPiecesA.Body().pose.translation, inPrimitive,
                                                   pieceReach, pieceContacts);
                                 else if constexpr (!std::is_same_v<Primitive, Capsule>)
                                     CollidePieces(placedPieceA, inPrimitive, pieceReach, pieceContacts);
                             });
            ++mStats.piecePairs;
            mStats.pieceContacts += pieceContacts.size();
            for (const PieceContact& piece : pieceContacts)
                AddPieceContact(pieceA, pieceB, piece);
            if (!pieceContacts.empty())
            {
                mPiecesA.MadeContact(pieceA);
                if (mPiecesB)
                    mPiecesB->MadeContact(pieceB);
            }
        }
    }

    // A contact of pieces `inPieceA` and `inPieceB` (cNoIndex: the primitive), named by the triangles under its
    // points. The boxes' distance at the points' own deformation (each side's away from the other along the
    // normal): the deformed surfaces' distance there, along the face's normal. The same as the triangles give
    // it, so that a piece and its triangles taking turns (its growth about the tolerance) move no contact.
    void AddPieceContact(std::uint32_t inPieceA, std::uint32_t inPieceB, const PieceContact& inPiece)
    {
        PairContact out;
        out.normal = inPiece.normal;
        const UnnamedPoint pointA = mPiecesA.Unnamed(inPieceA, inPiece.pointOnB + inPiece.distance * inPiece.normal);
        const UnnamedPoint pointB = mPiecesB ? mPiecesB->Unnamed(inPieceB, inPiece.pointOnB) : UnnamedPoint{};
        // Named if kept (`PieceNamer`); till then as near as the pieces' growth lets the surfaces be.
        out.unnamed = {pointA, pointB};
        out.unnamedSlack = mPiecesA.Growth(inPieceA) + (mPiecesB ? mPiecesB->Growth(inPieceB) : 0.0);
        out.feature0.node = mPiecesA.NodeOf(inPieceA);
        if (mPiecesB)
            out.feature1.node = mPiecesB->NodeOf(inPieceB);
        out.distance = inPiece.distance - out.unnamedSlack - mReach + mMaxDistance;
        out.pointOnB = inPiece.pointOnB + mMarginB * inPiece.normal;
        if (mPieceNames == EPieceNames::Now)
            mNamer.Name(out);
        if (out.distance <= mMaxDistance)
        {
            mContacts.push_back(out);
            mMadeSurface = true;
        }
    }

    // Crossing surfaces fall back to their proxy contacts only where nothing else holds the bodies apart: a
    // chair's leg in a slab's dent crosses it at the rim while its foot rests on it. The fallbacks are found by
    // their flag, not by where they were put: a filter may have moved or dropped any contact since.
    void WithdrawOrKeepFallbacks(std::size_t inFirst)
    {
        const auto firstMade = mContacts.begin() + std::ptrdiff_t(inFirst);
        if (mMadeSurface)
        {
            const auto withdrawn = std::remove_if(firstMade, mContacts.end(),
                                                  [](const PairContact& inContact) { return inContact.withdrawable; });
            mStats.fallbacksWithdrawn += std::uint64_t(mContacts.end() - withdrawn);
            mContacts.erase(withdrawn, mContacts.end());
        }
        else
            std::for_each(firstMade, mContacts.end(), [](PairContact& ioContact) { ioContact.withdrawable = false; });
    }

    // Where a primitive meets the body and no feature pair faces across (it cuts through faces between their
    // vertices, or lies wholly inside the closed surface), the pair has no surface contact: the proxy contacts
    // of the patches it meets, or of all if it is inside, push it out, as in the proxies model. (A plane has
    // no inside to lie in, and a body below it is deep under it, which its vertices count.)
    void FallBackToProxiesMet()
    {
        const std::vector<PairContact>& quiet = mLists.quiet;
        if (mMadeSurface || quiet.empty() || mKind == EOtherShape::Plane)
            return;
        const std::size_t first = mContacts.size();
        for (std::size_t i = 0; i < quiet.size(); ++i)
        {
            const PairContact& contact = quiet[i];
            if (mLists.quietApart[i] != 0)
                continue; // its box is apart from the primitive: no triangle of it meets the primitive
            const PatchView view = PlaceProxyPatch(mShapeA, mBodyA, contact.feature0.node, mLists.scratchA);
            bool meets = false;
            UsePrimitive(*mOther, mKind, mTransformB,
                         [&](const auto& inPrimitive)
                         {
                             if constexpr (!std::is_same_v<std::decay_t<decltype(inPrimitive)>, Plane>)
                                 meets = PatchMeets(view, inPrimitive);
                         });
            if (meets)
                mContacts.push_back(contact);
        }
        if (mContacts.size() == first &&
            InsideSurface(mShapeA, mA.getWorldTransform(), ToVec3d(mTransformB.getOrigin()), mStats))
            mContacts.insert(mContacts.end(), quiet.begin(), quiet.end());
        AtRestRadii(mShapeA, mShapeB, mMaxDistance, mContacts, first);
    }

    SurfacePassLists& mLists = ThreadSurfacePassLists();
    const btCollisionObjectWrapper& mA;
    const DeformableShape& mShapeA;
    const DeformableShape* mShapeB;
    const double mMaxDistance, mSurfaceReach;
    std::vector<PairContact>& mContacts;
    QueryStats& mStats;
    PieceSide& mPiecesA;
    PieceSide* mPiecesB;
    const DeformedBody mBodyA, mBodyB;
    const btCollisionShape* mOther;
    const EOtherShape mKind;
    const btTransform& mTransformB;
    const ProxyBoxes mBoxesA;
    const std::optional<ProxyBoxes> mBoxesB;
    const bool mCull;
    const double mMarginB, mReach;
    const bool mPiecesOn;
    const EPieceNames mPieceNames;
    const PieceNamer mNamer;
    std::optional<BoxOverlapTest> mBoxesOverlap;
    std::uint32_t mBoxedA = cNoIndex; // A's node whose box `mBoxA` holds
    WorldBox mBoxA;
    std::uint32_t mPlacedA = cNoIndex; // A's proxy whose patch `mViewA` shows
    PatchView mViewA;
    bool mMadeSurface = false;
};

} // namespace


void GenerateContacts(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB,
                      double inMaxDistance, std::vector<PairContact>& outContacts, QueryStats& ioStats,
                      TraversalFront* ioFront, ProxyPairCache* ioCache, PrimitivePairCache* ioPrimitiveCache,
                      double inSurfaceReach, NarrowphaseStats* ioStages, EPieceNames inPieceNames)
{
    NarrowphaseStats unused;
    NarrowphaseStats& stages = ioStages != nullptr ? *ioStages : unused;
    StageTimer timer;
    const std::size_t first = outContacts.size();
    const DeformableShape& shapeA = *AsDeformable(inA.getCollisionShape());
    const DeformableShape* shapeB = AsDeformable(inB.getCollisionShape());
    const bool surface = UsesSurface(shapeA, inB.getCollisionShape());
    const EOtherShape kind = ClassifyOther(inB.getCollisionShape());
    if (surface && kind == EOtherShape::Convex)
    {
        ConvexSurfaceContacts(shapeA, inA, inMaxDistance, inB, outContacts, ioStats);
        // Proxy contacts only where the convex is inside the body: at their rest radii, as the proxies model's.
        if (outContacts.size() > first && !outContacts[first].feature0.OnSurface())
            AtRestRadii(shapeA, shapeB, inMaxDistance, outContacts, first);
        stages.featuresMs += timer.Lap();
        return;
    }
    if (surface && kind == EOtherShape::Concave)
    {
        ConcaveSurfaceContacts(shapeA, inA, inMaxDistance, inB, outContacts, ioStats);
        stages.featuresMs += timer.Lap();
        return;
    }
    if (!surface)
    {
        GenerateSphereContacts(inA, inB, inMaxDistance, outContacts, ioStats, ioFront, ioCache, ioPrimitiveCache);
        stages.descentMs += timer.Lap();
        AtRestRadii(shapeA, shapeB, inMaxDistance, outContacts, first);
        return;
    }
    // The surface model: two deformables with pieces descend to their contact cut by boxes; anything else
    // descends to the proxies by spheres. Then the proxies' triangles and the pieces' boxes make the contacts.
    thread_local PieceScratch scratchA, scratchB;
    const DeformedBody bodyA = shapeA.QueryView(inA.getWorldTransform());
    PieceSide piecesA(shapeA, bodyA, scratchA);
    std::optional<PieceSide> piecesB;
    if (shapeB != nullptr)
        piecesB.emplace(*shapeB, shapeB->QueryView(inB.getWorldTransform()), scratchB);
    thread_local CutPairs cut;
    cut.Clear();
    // A traversal budget bounds the pair's sphere descent; it takes precedence over the cut descent, which has
    // no bound on its work.
    const bool budgeted = shapeB != nullptr && (shapeA.Settings().traversalBudget != 0 ||
                                                shapeB->Settings().traversalBudget != 0);
    if (piecesB && !budgeted && piecesA.Available() && piecesB->Available())
    {
        const double gap = inMaxDistance + double(shapeA.getMargin()) + double(shapeB->getMargin()) +
                           piecesA.Tolerance() + piecesB->Tolerance();
        DescendToCut(piecesA, *piecesB, gap, cut, ioStats);
        AppendCutProxyContacts(inA, inB, inMaxDistance, cut.proxies, outContacts, ioStats);
    }
    else if (!piecesB && piecesA.Available() && PiecesAgainst(shapeA, kind, *inB.getCollisionShape()))
    {
        const double gap = inMaxDistance + double(shapeA.getMargin()) + piecesA.Tolerance();
        const DeformedBody inflated =
            shapeA.QueryView(inA.getWorldTransform(), double(shapeA.getMargin()) + inMaxDistance);
        thread_local std::vector<ProxyContact> proxyContacts;
        proxyContacts.clear();
        UsePrimitive(*inB.getCollisionShape(), kind, inB.getWorldTransform(),
                     [&](const auto& inPrimitive)
                     {
                         if constexpr (!std::is_same_v<std::decay_t<decltype(inPrimitive)>, Capsule>)
                         {
                             DescendToCut(piecesA, inPrimitive, gap, cut, ioStats);
                             for (const auto& [proxy, none] : cut.proxies)
                                 if (const std::optional<ProxyContact> contact =
                                         ProxyContactWith(inflated, proxy, inPrimitive))
                                 {
                                     proxyContacts.push_back(*contact);
                                     ++ioStats.contacts;
                                 }
                         }
                     });
        AppendProxyContacts(proxyContacts, inMaxDistance, false, outContacts);
    }
    else
        GenerateSphereContacts(inA, inB, inMaxDistance, outContacts, ioStats, ioFront, ioCache, ioPrimitiveCache);
    stages.descentMs += timer.Lap();
    double placeMs = 0.0;
    SurfacePass(inA, inB, inMaxDistance, inSurfaceReach, outContacts, ioStats, piecesA,
                piecesB ? &*piecesB : nullptr, inPieceNames)
        .Run(first, cut.pieces, placeMs);
    stages.placeMs += placeMs;
    stages.featuresMs += timer.Lap() - placeMs;
}

namespace
{

// I⁻¹(r × d): the rigid body's angular velocity change per unit impulse along d at `inPoint` (world), or
// null if the object is not a body the solver moves.
const Vec3d* FrameAngularPerImpulse(const btCollisionObject* inObject, const Vec3d& inPoint,
                                    const Vec3d& inDirection, Vec3d& outAngular)
{
    const btRigidBody* body = btRigidBody::upcast(inObject);
    if (body == nullptr || !(body->getInvMass() > 0))
        return nullptr;
    const Vec3d lever = inPoint - ToVec3d(body->getCenterOfMassPosition());
    outAngular = ToMat3d(body->getInvInertiaTensorWorld()) * lever.cross(inDirection);
    return &outAngular;
}

} // namespace

PairPrediction PreparePrediction(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB)
{
    PairPrediction prediction;
    const DeformableShape* shapeA = AsDeformable(inA.getCollisionShape());
    const DeformableShape* shapeB = AsDeformable(inB.getCollisionShape());
    prediction.predictA = shapeA != nullptr && ShapeSolver::Of(*shapeA).Predicting();
    prediction.predictB = shapeB != nullptr && ShapeSolver::Of(*shapeB).Predicting();
    if (prediction.predictA)
    {
        prediction.erp = ShapeSolver::Of(*shapeA).Prediction().contactErp;
        prediction.rotationA = shapeA->RestToWorld(inA.getWorldTransform());
    }
    if (prediction.predictB)
    {
        if (!prediction.predictA)
            prediction.erp = ShapeSolver::Of(*shapeB).Prediction().contactErp;
        prediction.rotationB = shapeB->RestToWorld(inB.getWorldTransform());
    }
    return prediction;
}

void PredictContacts(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB,
                     const PairPrediction& inPrediction, std::span<PairContact> ioContacts)
{
    // The solver makes the rigid bodies' end-of-step gap g + h·J·v zero (speculative contacts) or reduces it
    // by Baumgarte's erp (penetration). The deformable surface moves over the same step by its modes: Δq if
    // they keep last step's force, plus c·(λ − λ°) for the change of this contact's impulse (its response
    // held as a constant force over the next modal step, exact for the exact modal step,
    // `ModalDynamics::StepResponse`). Telling the solver both, as a distance shift and a constraint-force-
    // mixing compliance (`MakeManifoldPoint`, `SetSolverGap`: −c·λ° is taken off the shift once λ° is known,
    // at the warm start), makes the contact implicit in the modes too: the gap the solver drives to zero is
    // the one the surface will really have. Without them the solver sees a surface one step behind the modes,
    // and the impulse's dependence on the gap (a stiffness ~ m/h²) feeds the modes back a step late: negative
    // damping, worse for smaller steps.
    if (!inPrediction.predictA && !inPrediction.predictB)
        return;
    const DeformableShape* shapeA = AsDeformable(inA.getCollisionShape());
    const DeformableShape* shapeB = AsDeformable(inB.getCollisionShape());
    const bool predictA = inPrediction.predictA;
    const bool predictB = inPrediction.predictB;
    const double erp = inPrediction.erp;
    const Mat3d& rotationA = inPrediction.rotationA;
    const Mat3d& rotationB = inPrediction.rotationB;
    for (PairContact& contact : ioContacts)
    {
        contact.predictionErp = erp;
        // The normal points from B to A; the impulse pushes A along +n and B along −n. Each side's proxy
        // moving along its push opens the gap.
        Vec3d angular;
        if (predictA)
        {
            const Vec3d pointOnA = contact.pointOnB + contact.distance * contact.normal;
            const ProxyStepResponse a = ShapeSolver::Of(*shapeA).Response(
                contact.feature0, contact.normal, rotationA,
                FrameAngularPerImpulse(inA.getCollisionObject(), pointOnA, contact.normal, angular));
            contact.stepMotion += a.displacement;
            contact.compliance += a.compliance;
        }
        if (predictB && contact.feature1.node != cNoIndex)
        {
            const ProxyStepResponse b = ShapeSolver::Of(*shapeB).Response(
                contact.feature1, -contact.normal, rotationB,
                FrameAngularPerImpulse(inB.getCollisionObject(), contact.pointOnB, -contact.normal, angular));
            contact.stepMotion += b.displacement;
            contact.compliance += b.compliance;
        }
    }
}

void GenerateSphereContacts(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB,
                            double inMaxDistance, std::vector<PairContact>& outContacts, QueryStats& ioStats,
                            TraversalFront* ioFront, ProxyPairCache* ioCache,
                            PrimitivePairCache* ioPrimitiveCache)
{
    const DeformableShape* shapeA = AsDeformable(inA.getCollisionShape());
    if (shapeA == nullptr)
        return;
    const double marginA = shapeA->getMargin();
    const DeformedBody bodyA = shapeA->QueryView(inA.getWorldTransform(), marginA + inMaxDistance);
    const btCollisionShape* shapeB = inB.getCollisionShape();
    const btTransform& transformB = inB.getWorldTransform();

    // Thread-local scratch: the algorithm object stays small and a step allocates nothing once warm.
    thread_local std::vector<ProxyContact> proxyContacts;
    proxyContacts.clear();
    const auto collidePrimitive = [&](const auto& inPrimitive)
    {
        if (ioPrimitiveCache != nullptr)
            CollideProxiesCached(bodyA, inPrimitive, *ioPrimitiveCache, proxyContacts, ioStats);
        else
            CollideProxies(bodyA, inPrimitive, proxyContacts, ioStats);
    };

    const EOtherShape kind = ClassifyOther(shapeB);
    switch (kind)
    {
    case EOtherShape::Deformable:
    {
        const DeformableShape* deformableB = AsDeformable(shapeB);
        const DeformedBody bodyB = deformableB->QueryView(transformB, deformableB->getMargin());
        const std::uint32_t budgetA = shapeA->Settings().traversalBudget;
        const std::uint32_t budgetB = deformableB->Settings().traversalBudget;
        const std::uint32_t budget = budgetA == 0   ? budgetB
                                     : budgetB == 0 ? budgetA
                                                    : std::min(budgetA, budgetB);
        if (budget != 0)
            CollideProxiesBudgeted(bodyA, bodyB, std::uint64_t(budget), proxyContacts, ioStats);
        else if (shapeA->Settings().boxCulling && deformableB->Settings().boxCulling)
            CollideProxiesWithBoxes(bodyA, bodyB, *shapeA->Asset().Boxes(), *deformableB->Asset().Boxes(),
                                    proxyContacts, ioStats);
        else if (ioFront != nullptr)
            CollideProxiesFromFront(bodyA, bodyB, *ioFront, proxyContacts, ioStats);
        else if (ioCache != nullptr)
            CollideProxiesCached(bodyA, bodyB, *ioCache, proxyContacts, ioStats);
        else
            CollideProxies(bodyA, bodyB, proxyContacts, ioStats);
        SortByProxies(proxyContacts);
        AppendProxyContacts(proxyContacts, inMaxDistance, true, outContacts);
        return;
    }
    case EOtherShape::Sphere:
    case EOtherShape::Box:
    case EOtherShape::Capsule:
    case EOtherShape::Plane:
        UsePrimitive(*shapeB, kind, transformB, collidePrimitive);
        break;
    case EOtherShape::Convex:
        ConvexProxyContacts(bodyA, marginA, inMaxDistance, inB, outContacts, ioStats);
        return;
    case EOtherShape::Concave:
        ConcaveProxyContacts(bodyA, marginA, inMaxDistance, inB, outContacts, ioStats);
        return;
    case EOtherShape::Compound:
    case EOtherShape::Unsupported:
        return;
    }
    AppendProxyContacts(proxyContacts, inMaxDistance, false, outContacts);
}

} // namespace bdt
