// Tree vs solid primitive (sphere, half-space, box, capsule), at the proxy level and at the leaves.

#include "TreeQueriesInternal.h"

#include "CoherentQueries.h"

#include "RestFrameOverlap.h"
#include "core/geometry/TriangleGeometry.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

// One machine code per function: never inlined, and for GCC never cloned for some of its callers either.
#if defined(__clang__)
#define BDT_NOINLINE __attribute__((noinline))
#elif defined(__GNUC__)
#define BDT_NOINLINE __attribute__((noinline, noclone))
#else
#define BDT_NOINLINE
#endif

namespace bdt
{

namespace
{

using detail::WorldSphere;

// Each primitive adapter answers: does a node sphere overlap it (with slack), the proxy contact of an
// overlapping sphere (normal from the primitive to the sphere, depth, point midway on the overlap), and the
// exact contact of a triangle (TriangleGeometry.h). All in world.

ProxyContact MakeProxyContact(const Vec3d& inSphereDeepest, const Vec3d& inPrimitiveDeepest,
                              const Vec3d& inNormal, double inDepth)
{
    ProxyContact contact;
    contact.point = 0.5 * (inSphereDeepest + inPrimitiveDeepest);
    contact.normal = inNormal;
    contact.depth = std::max(0.0, inDepth);
    return contact;
}

// The parameters a primitive pair cache's key holds, as an array of doubles.
using PrimitiveParameters = std::array<double, 15>;

struct SphereAdapter
{
    const Sphere& mSphere;

    static constexpr int cKind = 0;
    double Lipschitz() const { return 1.0; }
    // Its frame: at the centre, unturned (a sphere's tests depend on x − c alone).
    Pose Frame() const { return {Mat3d::Identity(), mSphere.center}; }
    PrimitiveParameters Shape() const { return {mSphere.radius}; }
    PrimitiveParameters Placement() const { return {}; }
    double PlacementChange(const PrimitiveParameters&) const { return 0.0; }

    bool Overlaps(const WorldSphere& inNode) const
    {
        return detail::SpheresOverlap(inNode, {mSphere.center, mSphere.radius});
    }
    // How far the node sphere is beyond touching, in the units of `Lipschitz` (≤ 0: overlapping).
    double Gap(const WorldSphere& inNode) const
    {
        return (inNode.center - mSphere.center).norm() - inNode.radius - mSphere.radius;
    }
    ProxyContact Contact(const WorldSphere& inNode) const
    {
        const Vec3d delta = inNode.center - mSphere.center;
        const double distance = delta.norm();
        const Vec3d normal = distance > 0.0 ? Vec3d(delta / distance) : Vec3d(Vec3d::UnitY());
        return MakeProxyContact(inNode.center - inNode.radius * normal,
                                mSphere.center + mSphere.radius * normal, normal,
                                inNode.radius + mSphere.radius - distance);
    }
    std::optional<TriangleContact> Triangle(const Vec3d (&inT)[3]) const
    {
        return TriangleSphereContact(inT, mSphere);
    }
    RestSphereTest InRest(const DeformedBody& inBody) const { return {inBody, mSphere}; }
};

struct PlaneAdapter
{
    const Plane& mPlane;

    static constexpr int cKind = 1;
    // The test's height n·c − d changes by ‖n‖ per unit of centre motion, the radius by 1.
    double Lipschitz() const { return std::max(1.0, mPlane.normal.norm()); }
    // The world frame: a plane that moves is another plane (its list starts again).
    Pose Frame() const { return Pose::Identity(); }
    PrimitiveParameters Shape() const
    {
        return {mPlane.normal.x(), mPlane.normal.y(), mPlane.normal.z(), mPlane.offset};
    }
    PrimitiveParameters Placement() const { return {}; }
    double PlacementChange(const PrimitiveParameters&) const { return 0.0; }

    bool Overlaps(const WorldSphere& inNode) const
    {
        const double height = mPlane.normal.dot(inNode.center) - mPlane.offset;
        return height <= inNode.radius + detail::Slack(inNode.radius, inNode.center);
    }
    double Gap(const WorldSphere& inNode) const
    {
        return mPlane.normal.dot(inNode.center) - mPlane.offset - inNode.radius;
    }
    ProxyContact Contact(const WorldSphere& inNode) const
    {
        const double height = mPlane.normal.dot(inNode.center) - mPlane.offset;
        return MakeProxyContact(inNode.center - inNode.radius * mPlane.normal,
                                inNode.center - height * mPlane.normal, mPlane.normal,
                                inNode.radius - height);
    }
    std::optional<TriangleContact> Triangle(const Vec3d (&inT)[3]) const
    {
        return TrianglePlaneContact(inT, mPlane);
    }
    RestPlaneTest InRest(const DeformedBody& inBody) const { return {inBody, mPlane}; }
};

struct BoxAdapter
{
    const OrientedBox& mBox;

    static constexpr int cKind = 2;
    // The distance outside the box, in its axes (Rᵀ of a rotation that is orthonormal to rounding).
    double Lipschitz() const
    {
        const Vec3d rows[3] = {mBox.pose.rotation.row(0).transpose(), mBox.pose.rotation.row(1).transpose(),
                               mBox.pose.rotation.row(2).transpose()};
        return std::max(1.0, SpectralNormBound(rows));
    }
    // Its pose: the tests depend on Rᵀ(x − t) alone (`Pose::ApplyInverse`).
    Pose Frame() const { return mBox.pose; }
    PrimitiveParameters Shape() const
    {
        return {mBox.halfExtents.x(), mBox.halfExtents.y(), mBox.halfExtents.z()};
    }
    PrimitiveParameters Placement() const { return {}; }
    double PlacementChange(const PrimitiveParameters&) const { return 0.0; }

    bool Overlaps(const WorldSphere& inNode) const
    {
        const Vec3d local = mBox.pose.ApplyInverse(inNode.center);
        const Vec3d outside = (local.cwiseAbs() - mBox.halfExtents).cwiseMax(0.0);
        const double reach = inNode.radius + detail::Slack(inNode.radius, inNode.center);
        return outside.squaredNorm() <= reach * reach;
    }
    double Gap(const WorldSphere& inNode) const
    {
        const Vec3d local = mBox.pose.ApplyInverse(inNode.center);
        return (local.cwiseAbs() - mBox.halfExtents).cwiseMax(0.0).norm() - inNode.radius;
    }
    ProxyContact Contact(const WorldSphere& inNode) const
    {
        const Vec3d local = mBox.pose.ApplyInverse(inNode.center);
        const Vec3d clamped = local.cwiseMax(-mBox.halfExtents).cwiseMin(mBox.halfExtents);
        const Vec3d delta = local - clamped;
        const double distance = delta.norm();
        Vec3d normal;
        Vec3d surface;
        double depth;
        if (distance > 0.0)
        {
            normal = delta / distance;
            surface = clamped;
            depth = inNode.radius - distance;
        }
        else
        {
            // Centre inside: leave through the nearest face.
            int axis = 0;
            (mBox.halfExtents - local.cwiseAbs()).minCoeff(&axis);
            const double inside = mBox.halfExtents[axis] - std::abs(local[axis]);
            normal = Vec3d::Unit(axis) * (local[axis] >= 0.0 ? 1.0 : -1.0);
            surface = local + inside * normal;
            depth = inNode.radius + inside;
        }
        const Vec3d worldNormal = mBox.pose.rotation * normal;
        return MakeProxyContact(inNode.center - inNode.radius * worldNormal, mBox.pose.Apply(surface),
                                worldNormal, depth);
    }
    std::optional<TriangleContact> Triangle(const Vec3d (&inT)[3]) const
    {
        return TriangleBoxContact(inT, mBox);
    }
    RestBoxTest InRest(const DeformedBody& inBody) const { return {inBody, mBox}; }
};

struct CapsuleAdapter
{
    const Capsule& mCapsule;

    static constexpr int cKind = 3;
    double Lipschitz() const { return 1.0; }
    // Its frame: at end a, unturned; its placement in that frame, the axis b − a. A change of axis moves the
    // segment, and so any point's distance to it, by at most the change (the end b moves by it, a not at
    // all).
    Pose Frame() const { return {Mat3d::Identity(), mCapsule.a}; }
    PrimitiveParameters Shape() const { return {mCapsule.radius}; }
    PrimitiveParameters Placement() const
    {
        const Vec3d axis = mCapsule.b - mCapsule.a;
        return {axis.x(), axis.y(), axis.z()};
    }
    double PlacementChange(const PrimitiveParameters& inThen) const
    {
        return (mCapsule.b - mCapsule.a - Vec3d(inThen[0], inThen[1], inThen[2])).norm();
    }

    bool Overlaps(const WorldSphere& inNode) const
    {
        const Vec3d onAxis = ClosestPointOnSegment(inNode.center, mCapsule.a, mCapsule.b);
        return detail::SpheresOverlap(inNode, {onAxis, mCapsule.radius});
    }
    double Gap(const WorldSphere& inNode) const
    {
        const Vec3d onAxis = ClosestPointOnSegment(inNode.center, mCapsule.a, mCapsule.b);
        return (inNode.center - onAxis).norm() - inNode.radius - mCapsule.radius;
    }
    ProxyContact Contact(const WorldSphere& inNode) const
    {
        const Vec3d onAxis = ClosestPointOnSegment(inNode.center, mCapsule.a, mCapsule.b);
        const Vec3d delta = inNode.center - onAxis;
        const double distance = delta.norm();
        Vec3d normal = distance > 0.0 ? Vec3d(delta / distance) : AnyPerpendicular(mCapsule.b - mCapsule.a);
        return MakeProxyContact(inNode.center - inNode.radius * normal, onAxis + mCapsule.radius * normal,
                                normal, inNode.radius + mCapsule.radius - distance);
    }
    std::optional<TriangleContact> Triangle(const Vec3d (&inT)[3]) const
    {
        return TriangleCapsuleContact(inT, mCapsule);
    }
    RestCapsuleTest InRest(const DeformedBody& inBody) const { return {inBody, mCapsule}; }

    // A deterministic unit vector perpendicular to the axis (centre on the axis: any sideways push works).
    static Vec3d AnyPerpendicular(const Vec3d& inAxis)
    {
        const Vec3d x = inAxis.cross(Vec3d::UnitX());
        const Vec3d y = inAxis.cross(Vec3d::UnitY());
        const Vec3d& longer = x.squaredNorm() >= y.squaredNorm() ? x : y;
        const double length = longer.norm();
        return length > 0.0 ? Vec3d(longer / length) : Vec3d(Vec3d::UnitY());
    }
};

// Overlap only (no contact): a sphere against a closed axis-aligned box, by the squared distance from its
// centre to the box.
struct AabbOverlap
{
    const Aabb& mBox;

    bool Overlaps(const WorldSphere& inNode) const
    {
        const Vec3d nearest = inNode.center.cwiseMax(mBox.min()).cwiseMin(mBox.max());
        const double reach = inNode.radius + detail::Slack(inNode.radius, inNode.center);
        return (inNode.center - nearest).squaredNorm() <= reach * reach;
    }
    // The same test as an oriented box's with the world's axes.
    RestBoxTest InRest(const DeformedBody& inBody) const
    {
        return {inBody, OrientedBox{Pose{Mat3d::Identity(), mBox.center()}, 0.5 * mBox.sizes()}};
    }
};

// A terminal node against a primitive: every path to a pair's contacts (the descent, the static-primitive
// pair cache's list answers and the making of that list) places and tests its terminal spheres, and measures
// their contacts, with this one machine code per primitive, never inlined, so that they give the same bits
// whatever multiply-adds the compiler would fuse at an inlined site (`PlaceTerminal` does the same for
// tree-vs-tree pairs). Writes the sphere placed in world to `outSphere`; true if it overlaps the primitive.
template <class Adapter>
BDT_NOINLINE bool PlaceAndTestTerminal(const DeformedBody& inBody, const Adapter& inPrimitive,
                                       const UpdatedSphere& inSphere, WorldSphere& outSphere)
{
    outSphere = detail::PlaceSphere(inBody, inSphere);
    return inPrimitive.Overlaps(outSphere);
}

// The contact of a terminal sphere that `PlaceAndTestTerminal` placed and found overlapping (see there).
template <class Adapter>
BDT_NOINLINE ProxyContact TerminalContact(const Adapter& inPrimitive, const WorldSphere& inSphere)
{
    return inPrimitive.Contact(inSphere);
}

// Descends the body's tree against a primitive breadth first (as the tree-vs-tree descent does, and for the
// same reason: a level is one loop of tests whose outcomes only decide what the next level holds, with no
// branch for them to mispredict); a node's children are computed only after its sphere overlapped, both at
// once from the shared rows and q (`ComputeSiblingSpheres`, the bits `Sphere` would give) rather than through
// the body's cache: a pile's narrowphase meets each body's cache cold, and its stamps would be written for
// nothing. Calls inOnTerminal(node, sphere) for each overlapping terminal node, level by level and in order
// within a level, with its updated sphere (rest frame) as a third argument. Inner nodes are tested in the
// body's rest frame (`RestFrameOverlap.h`: the primitive mapped there once), which accepts whatever the world
// test would; terminal nodes are decided by `PlaceAndTestTerminal` only, after that same rest-frame test (so
// it is skipped for those the world test would reject anyway). Whether a node is terminal, and where its
// children are, come from one table (`ContactProxies::ChildrenBelow`; a leaf-level descent reads the node).
// Testing inner nodes in the rest frame saves placing each node in world (`bdt-bench scaling` measures it);
// the contacts and sphere tests are the same either way.
template <class Adapter, class OnTerminal>
void DescendPrimitive(const DeformedBody& inA, const Adapter& inPrimitive, bool inToLeaves,
                      QueryStats& ioStats, OnTerminal&& inOnTerminal)
{
    TreeState& state = *inA.state;
    struct Entry
    {
        std::uint32_t children; ///< The node's first child (the second is the next index).
        UpdatedSphere sphere;
    };
    // Overlapping inner nodes to split, and the next level as it is made (per thread, kept between calls).
    thread_local std::vector<Entry> level, made;
    std::uint64_t tests = 0, updates = 0;
    // Where the descent goes below a node: its first child, or 0 where it stops (a leaf, or a proxy: one load
    // from `ContactProxies::ChildrenBelow`'s 4 bytes a node rather than the node's 16).
    const std::uint32_t* const proxyChildren = inToLeaves ? nullptr : &state.Proxies().ChildrenBelow(0);
    const BDTree& tree = state.Tree();
    const auto rest = inPrimitive.InRest(inA);
    // Tests a node; keeps it at ioKept[ioCount] if it overlaps and is not terminal, reports it if it overlaps
    // and is. (Whether a node is terminal goes with its level: the branch is taken alike along a level.)
    const auto consider =
        [&](std::uint32_t inNode, const UpdatedSphere& inSphere, Entry* ioKept, std::size_t& ioCount)
    {
        const std::uint32_t children =
            proxyChildren != nullptr ? proxyChildren[inNode] : tree.Node(inNode).firstChild;
        if (children == 0)
        {
            WorldSphere sphere;
            if (rest.MayOverlap(inSphere) && PlaceAndTestTerminal(inA, inPrimitive, inSphere, sphere))
                inOnTerminal(inNode, sphere, inSphere);
            return;
        }
        Entry& slot = ioKept[ioCount];
        slot.children = children;
        slot.sphere = inSphere;
        ioCount += std::size_t(rest.MayOverlap(inSphere));
    };
    if (level.empty())
        level.resize(1);
    std::size_t levelCount = 0;
    consider(0, state.Sphere(0), level.data(), levelCount);
    ++tests;
    UpdatedSphere siblings[2];
    while (levelCount != 0)
    {
        if (made.size() < 2 * levelCount)
            made.resize(2 * levelCount);
        std::size_t madeCount = 0;
        for (std::size_t i = 0; i < levelCount; ++i)
        {
            const std::uint32_t child = level[i].children;
            updates += state.ComputeSiblingSpheres(child, siblings);
            consider(child, siblings[0], made.data(), madeCount);
            consider(child + 1, siblings[1], made.data(), madeCount);
        }
        tests += 2 * levelCount;
        level.swap(made);
        levelCount = madeCount;
    }
    ioStats.overlapTests += tests;
    state.CountUpdates(updates);
}

template <class Adapter>
void CollideProxiesWith(const DeformedBody& inA, const Adapter& inPrimitive,
                        std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
{
    DescendPrimitive(inA, inPrimitive, false, ioStats,
                     [&](std::uint32_t inNode, const WorldSphere& inSphere, const UpdatedSphere&)
                     {
                         ProxyContact contact = TerminalContact(inPrimitive, inSphere);
                         contact.nodeA = inNode;
                         contact.nodeB = cNoIndex;
                         outContacts.push_back(contact);
                         ++ioStats.contacts;
                     });
}

} // namespace

/// Grants the queries access to a primitive pair cache's state.
struct PrimitivePairCacheAccess
{
    // The body's frame seen from the primitive's (`Adapter::Frame`, P): M = R_Pᵀ R_A and u = R_Pᵀ(t_A − t_P),
    // so that a proxy centre c (rest frame) sits at s M c + u, where the primitive's tests look at it. A
    // static primitive's frame is fixed and this is the body's own frame moved; a moving one's motion is the
    // body's relative to it.
    static void RelativeFrame(const DeformedBody& inA, const Pose& inPrimitive, Mat3d& outMap,
                              Vec3d& outShift)
    {
        const Mat3d toPrimitive = inPrimitive.rotation.transpose();
        outMap = toPrimitive * inA.pose.rotation;
        outShift = toPrimitive * (inA.pose.translation - inPrimitive.translation);
    }

    // How far any proxy sphere can have come closer to the primitive since the list was made
    // (`PrimitivePairCache`): the list answers if it is within the skin, and then only proxies of the bands
    // it is within can be within reach (`SkinBandForBound`). Infinite when the frame's shift alone is too
    // far. A proxy's centre moved, in the primitive's frame, by s(M − M₀)c + s M₀Δc + (u − u₀).
    static double Bound(const PrimitivePairCache& inCache, const DeformedBody& inA, const Pose& inPrimitive,
                        double inPlacementChange, double inLipschitz)
    {
        const TreeState& state = *inA.state;
        Mat3d map;
        Vec3d relative;
        RelativeFrame(inA, inPrimitive, map, relative);
        // The frame's shift (and the primitive's change of placement in its frame) alone, first: a body
        // falling or sliding is out at once.
        const double shift = (relative - inCache.mTranslation).norm() + inPlacementChange;
        if (!(shift * inLipschitz <= inCache.mSkin))
            return std::numeric_limits<double>::infinity();
        const double rounding = inA.scale * detail::ProxyRounding(state);
        const Mat3d turn = map - inCache.mRotation;
        const Vec3d columns[3] = {turn.col(0), turn.col(1), turn.col(2)};
        const double centre = inA.scale * double(state.CentreBound());
        const double moved = SpectralNormBound(columns) * centre +
                             inCache.mMapNorm * inA.scale * detail::ProxyDrift(state, inCache.mQ) + shift;
        // The tests' own slack moves with the spheres' sizes and places: a bound on its change, with room
        // (the mapping into the primitive's frame rounds at the magnitudes of both translations).
        const double extent = centre + inA.scale * detail::LargestProxyRadius(state);
        const double place = inA.pose.translation.cwiseAbs().maxCoeff() +
                             inPrimitive.translation.cwiseAbs().maxCoeff() + relative.cwiseAbs().maxCoeff();
        const double slack = 4.0 * (detail::cRelativeSlack * (inA.inflate + inCache.mSkin + extent) +
                                    detail::cPositionSlack * (place + extent));
        return moved * inLipschitz * (1.0 + 1e-9) + (inA.inflate - inCache.mReach) + rounding +
               inCache.mRounding + slack;
    }

    template <class Adapter>
    static void AppendContact(const Adapter& inPrimitive, std::uint32_t inNode, const WorldSphere& inSphere,
                              std::vector<ProxyContact>& outContacts)
    {
        ProxyContact contact = TerminalContact(inPrimitive, inSphere);
        contact.nodeA = inNode;
        contact.nodeB = cNoIndex;
        outContacts.push_back(contact);
    }

    template <class Adapter>
    static void Query(const DeformedBody& inA, const Adapter& inPrimitive, PrimitivePairCache& ioCache,
                      std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
    {
        PrimitivePairCache& cache = ioCache;
        TreeState& state = *inA.state;
        const PrimitivePairCache::Key key{inA.state, &state.Proxies(), int(state.Bound()),
                                          inA.scale, Adapter::cKind,   inPrimitive.Shape()};
        // A list of another key answers nothing (and counts as dropped).
        const auto bandNow = [&]
        {
            return cache.mKey == key ? SkinBandForBound(cache.mSkin, Bound(cache, inA, inPrimitive.Frame(),
                                                                           inPrimitive.PlacementChange(cache.mPlacement),
                                                                           inPrimitive.Lipschitz()))
                                     : 0u;
        };
        const auto answer = [&](std::uint32_t inBand)
        {
            // Each kept proxy of bands 1..band tested as the descent tests a terminal node, in the descent's
            // order; the others cannot be within reach.
            std::uint64_t contacts = 0, tested = 0;
            for (std::size_t i = 0; i < cache.mNodes.size(); ++i)
            {
                if (cache.mBands[i] > inBand)
                    continue;
                ++tested;
                const std::uint32_t node = cache.mNodes[i];
                WorldSphere sphere;
                if (!PlaceAndTestTerminal(inA, inPrimitive, state.ComputeSphereNow(node), sphere))
                    continue;
                AppendContact(inPrimitive, node, sphere, outContacts);
                ++contacts;
            }
            ioStats.overlapTests += tested;
            ioStats.contacts += contacts;
            state.CountUpdates(state.RestShape() ? 0 : tested);
        };
        const auto descend = [&] { CollideProxiesWith(inA, inPrimitive, outContacts, ioStats); };
        const auto makeList = [&]
        {
            // The descent with the reach widened by the skin: every proxy within reach + skin is kept, and those
            // within the reach give contacts, tested as the descent without the skin would (the same sphere). A
            // kept proxy's band: 1 if it is within the reach, else the first widening that covers its gap, low by a
            // margin far above the gap's rounding (`SkinBandOfGap`).
            DeformedBody wide = inA;
            wide.inflate += cache.mSkin;
            cache.mNodes.clear();
            cache.mBands.clear();
            std::uint64_t contacts = 0;
            DescendPrimitive(wide, inPrimitive, false, ioStats,
                             [&](std::uint32_t inNode, const WorldSphere&, const UpdatedSphere& inSphere)
                             {
                                 cache.mNodes.push_back(inNode);
                                 WorldSphere sphere;
                                 if (!PlaceAndTestTerminal(inA, inPrimitive, inSphere, sphere))
                                 {
                                     const double margin = 1e-6 * (sphere.radius + cache.mSkin) +
                                                           1e-12 * sphere.center.cwiseAbs().maxCoeff();
                                     cache.mBands.push_back(
                                         std::uint8_t(SkinBandOfGap(cache.mSkin, inPrimitive.Gap(sphere), margin)));
                                     return;
                                 }
                                 cache.mBands.push_back(1);
                                 AppendContact(inPrimitive, inNode, sphere, outContacts);
                                 ++contacts;
                             });
            ioStats.contacts += contacts;
            cache.mQ.assign(state.Q().begin(), state.Q().end());
            RelativeFrame(inA, inPrimitive.Frame(), cache.mRotation, cache.mTranslation);
            const Vec3d columns[3] = {cache.mRotation.col(0), cache.mRotation.col(1), cache.mRotation.col(2)};
            cache.mMapNorm = std::max(1.0, SpectralNormBound(columns));
            cache.mPlacement = inPrimitive.Placement();
            cache.mReach = inA.inflate;
            cache.mRounding = inA.scale * detail::ProxyRounding(state);
            cache.mKey = key;
        };
        cache.Answer(cache.mSkin > 0.0 && !state.TemporalCoherence(), true, bandNow, answer, descend, makeList);
    }
};

namespace
{

template <class Adapter>
void CollideTrianglesWith(const DeformedBody& inA, const Adapter& inPrimitive,
                          std::vector<TriangleContact>& outContacts, QueryStats& ioStats)
{
    DescendPrimitive(inA, inPrimitive, true, ioStats,
                     [&](std::uint32_t inNode, const WorldSphere&, const UpdatedSphere&)
                     {
                         const BDTreeNode& leaf = inA.state->Tree().Node(inNode);
                         for (std::uint32_t t = leaf.firstTriangle;
                              t < leaf.firstTriangle + leaf.triangleCount; ++t)
                         {
                             Vec3d vertices[3];
                             detail::WorldTriangle(inA, t, vertices);
                             ++ioStats.triangleTests;
                             if (std::optional<TriangleContact> contact = inPrimitive.Triangle(vertices))
                             {
                                 contact->triangle = t;
                                 outContacts.push_back(*contact);
                                 ++ioStats.contacts;
                             }
                         }
                     });
}

// The adapter of each primitive shape.
SphereAdapter AdapterOf(const Sphere& inSphere) { return SphereAdapter{inSphere}; }
PlaneAdapter AdapterOf(const Plane& inPlane) { return PlaneAdapter{inPlane}; }
BoxAdapter AdapterOf(const OrientedBox& inBox) { return BoxAdapter{inBox}; }
CapsuleAdapter AdapterOf(const Capsule& inCapsule) { return CapsuleAdapter{inCapsule}; }

} // namespace

void CollectProxies(DeformedBody inA, const Aabb& inBox, std::vector<ProxySphere>& outProxies, QueryStats& ioStats)
{
    if (inBox.isEmpty())
        return;
    DescendPrimitive(inA, AabbOverlap{inBox}, false, ioStats,
                     [&](std::uint32_t inNode, const WorldSphere& inSphere, const UpdatedSphere&)
                     {
                         outProxies.push_back({inSphere.center, inSphere.radius, inNode});
                         ++ioStats.contacts;
                     });
}

template <PrimitiveShape Primitive>
void CollideProxies(DeformedBody inA, const Primitive& inPrimitive, std::vector<ProxyContact>& outContacts,
                    QueryStats& ioStats)
{
    CollideProxiesWith(inA, AdapterOf(inPrimitive), outContacts, ioStats);
}

template <PrimitiveShape Primitive>
void CollideProxiesCached(DeformedBody inA, const Primitive& inPrimitive, PrimitivePairCache& ioCache,
                          std::vector<ProxyContact>& outContacts, QueryStats& ioStats)
{
    PrimitivePairCacheAccess::Query(inA, AdapterOf(inPrimitive), ioCache, outContacts, ioStats);
}

template <PrimitiveShape Primitive>
void CollideTriangles(DeformedBody inA, const Primitive& inPrimitive, std::vector<TriangleContact>& outContacts,
                      QueryStats& ioStats)
{
    CollideTrianglesWith(inA, AdapterOf(inPrimitive), outContacts, ioStats);
}

template <PrimitiveShape Primitive>
std::optional<ProxyContact> ProxyContactWith(const DeformedBody& inA, std::uint32_t inProxy,
                                             const Primitive& inPrimitive)
{
    const auto adapter = AdapterOf(inPrimitive);
    const WorldSphere sphere = detail::PlaceSphere(inA, inA.state->ComputeSphereNow(inProxy));
    if (!adapter.Overlaps(sphere))
        return std::nullopt;
    ProxyContact contact = adapter.Contact(sphere);
    contact.nodeA = inProxy;
    return contact;
}

// The primitive queries' definitions for each `PrimitiveShape`.
#define BDT_PRIMITIVE_QUERIES(Primitive)                                                                      \
    template void CollideProxies<Primitive>(DeformedBody, const Primitive&, std::vector<ProxyContact>&,        \
                                            QueryStats&);                                                     \
    template void CollideProxiesCached<Primitive>(DeformedBody, const Primitive&, PrimitivePairCache&,         \
                                                  std::vector<ProxyContact>&, QueryStats&);                   \
    template void CollideTriangles<Primitive>(DeformedBody, const Primitive&, std::vector<TriangleContact>&,   \
                                              QueryStats&);                                                   \
    template std::optional<ProxyContact> ProxyContactWith<Primitive>(const DeformedBody&, std::uint32_t,       \
                                                                     const Primitive&);
BDT_PRIMITIVE_QUERIES(Sphere)
BDT_PRIMITIVE_QUERIES(Plane)
BDT_PRIMITIVE_QUERIES(OrientedBox)
BDT_PRIMITIVE_QUERIES(Capsule)
#undef BDT_PRIMITIVE_QUERIES

} // namespace bdt
