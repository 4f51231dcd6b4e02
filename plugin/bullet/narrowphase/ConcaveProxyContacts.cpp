#include "ConcaveProxyContacts.h"
#include "bullet/ShapeSolver.h"
#include "SurfacePatches.h"

#include "core/contacts/SurfaceCache.h"
#include "core/contacts/SurfaceContacts.h"
#include "core/geometry/TriangleGeometry.h"

#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionShapes/btConcaveShape.h>
#include <BulletCollision/CollisionShapes/btTriangleCallback.h>
#include <algorithm>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <cmath>
#include <limits>

namespace bdt
{

namespace
{

// Keeps the triangle nearest to one point (the proxy centre in the concave's frame).
class NearestTriangle : public btTriangleCallback
{
public:
    explicit NearestTriangle(const Vec3d& inCenter) : mCenter(inCenter) {}

    void processTriangle(btVector3* inTriangle, int inPartId, int inTriangleIndex) override
    {
        const Vec3d vertices[3] = {ToVec3d(inTriangle[0]), ToVec3d(inTriangle[1]), ToVec3d(inTriangle[2])};
        const Vec3d closest = ClosestPointOnTriangle(mCenter, vertices);
        const double squared = (mCenter - closest).squaredNorm();
        const bool better =
            squared < mSquaredDistance ||
            (squared == mSquaredDistance &&
             (inPartId < mPartId || (inPartId == mPartId && inTriangleIndex < mTriangleIndex)));
        if (!better)
            return;
        mSquaredDistance = squared;
        mClosest = closest;
        mFaceNormal = (vertices[1] - vertices[0]).cross(vertices[2] - vertices[0]);
        mPartId = inPartId;
        mTriangleIndex = inTriangleIndex;
        mFound = true;
    }

    bool Found() const { return mFound; }
    const Vec3d& Closest() const { return mClosest; }
    double Distance() const { return std::sqrt(mSquaredDistance); }
    int PartId() const { return mPartId; }
    int TriangleIndex() const { return mTriangleIndex; }

    /// Unit direction from the triangle to the centre; the face normal when the centre is on the triangle.
    Vec3d Normal() const
    {
        const Vec3d delta = mCenter - mClosest;
        const double length = delta.norm();
        if (length > 0.0)
            return delta / length;
        const double faceLength = mFaceNormal.norm();
        return faceLength > 0.0 ? Vec3d(mFaceNormal / faceLength) : Vec3d(Vec3d::UnitY());
    }

private:
    Vec3d mCenter;
    Vec3d mClosest = Vec3d::Zero();
    Vec3d mFaceNormal = Vec3d::UnitY();
    double mSquaredDistance = std::numeric_limits<double>::infinity();
    int mPartId = -1;
    int mTriangleIndex = -1;
    bool mFound = false;
};

// The proxies model's contact of one proxy (its sphere inflated by `inInflate`) with the concave of `inB`: on
// its nearest triangle, kept within `inMaxDistance`.
void ConcaveProxyContact(const ProxySphere& inProxy, double inInflate, double inMarginA, double inMaxDistance,
                         const btCollisionObjectWrapper& inB, std::vector<PairContact>& outContacts)
{
    const auto* concave = static_cast<const btConcaveShape*>(inB.getCollisionShape());
    const double marginB = concave->getMargin();
    const Pose poseB = ToPose(inB.getWorldTransform());
    const double radius = std::max(inProxy.radius - inInflate, 0.0);
    const Vec3d center = poseB.ApplyInverse(inProxy.center);
    // Triangles within reach: the inflated proxy sphere plus B's margin, as a box in B's frame.
    const double reach = inProxy.radius + marginB;
    NearestTriangle nearest(center);
    concave->processAllTriangles(&nearest, ToBtVector(center - Vec3d::Constant(reach)),
                                 ToBtVector(center + Vec3d::Constant(reach)));
    if (!nearest.Found())
        return;
    PairContact contact;
    contact.distance = nearest.Distance() - radius - marginB - inMarginA;
    if (contact.distance > inMaxDistance)
        return;
    const Vec3d normal = nearest.Normal();
    contact.normal = (poseB.rotation * normal).normalized();
    contact.pointOnB = poseB.Apply(nearest.Closest() + marginB * normal);
    contact.feature0.node = inProxy.node;
    contact.index1 = nearest.TriangleIndex();
    contact.partId1 = nearest.PartId();
    outContacts.push_back(contact);
}

// Collects the triangles a concave reports, placed in world, with their ids.
class TriangleCollector : public btTriangleCallback
{
public:
    TriangleCollector(const btTransform& inTransform, std::vector<SoupTriangle>& outTriangles,
                      std::vector<std::pair<int, int>>& outIds)
        : mTransform(inTransform), mTriangles(outTriangles), mIds(outIds)
    {
    }

    void processTriangle(btVector3* inTriangle, int inPartId, int inTriangleIndex) override
    {
        SoupTriangle triangle;
        for (int k = 0; k < 3; ++k)
            triangle.vertices[k] = ToVec3d(mTransform * inTriangle[k]);
        mTriangles.push_back(triangle);
        mIds.emplace_back(inPartId, inTriangleIndex);
    }

private:
    const btTransform& mTransform;
    std::vector<SoupTriangle>& mTriangles;
    std::vector<std::pair<int, int>>& mIds;
};

} // namespace

void ConcaveSurfaceContacts(const DeformableShape& inShapeA, const btCollisionObjectWrapper& inA,
                            double inMaxDistance, const btCollisionObjectWrapper& inB,
                            std::vector<PairContact>& outContacts, QueryStats& ioStats)
{
    const auto* concave = static_cast<const btConcaveShape*>(inB.getCollisionShape());
    const btTransform& transformB = inB.getWorldTransform();
    const double marginA = double(inShapeA.getMargin());
    const double marginB = concave->getMargin();
    btVector3 boxMin;
    btVector3 boxMax;
    concave->getAabb(transformB, boxMin, boxMax);
    thread_local std::vector<ProxySphere> proxies;
    proxies.clear();
    const Vec3d grow = Vec3d::Constant(marginB);
    CollectProxies(inShapeA.QueryView(inA.getWorldTransform(), marginA + inMaxDistance),
                   Aabb(ToVec3d(boxMin) - grow, ToVec3d(boxMax) + grow), proxies, ioStats);
    if (proxies.empty())
        return;

    const DeformedBody bodyA = inShapeA.QueryView(inA.getWorldTransform());
    const Pose poseB = ToPose(transformB);
    thread_local PlacedPatch scratch;
    thread_local std::vector<SoupTriangle> soup;
    thread_local std::vector<std::pair<int, int>> ids;
    thread_local std::vector<SurfaceContact> surface;
    // Proxy contacts of patches that cross the mesh and made no contact are flagged `withdrawable`: kept only
    // where no surface contact supports the body.
    const std::size_t firstMade = outContacts.size();
    bool supported = false;
    for (const ProxySphere& proxy : proxies)
    {
        // B's triangles within reach of the proxy's sphere: its box in B's frame (a sphere's box is the same
        // after any rotation).
        const Vec3d centre = poseB.ApplyInverse(proxy.center);
        const double reach = proxy.radius + marginB;
        soup.clear();
        ids.clear();
        TriangleCollector collector(transformB, soup, ids);
        concave->processAllTriangles(&collector, ToBtVector(centre - Vec3d::Constant(reach)),
                                     ToBtVector(centre + Vec3d::Constant(reach)));
        if (soup.empty())
            continue;
        const PatchView view = PlaceProxyPatch(inShapeA, bodyA, proxy.node, scratch, &ioStats);
        ioStats.triangleTests +=
            ShapeSolver::Of(inShapeA).Patches()->OwnTriangleCount(proxy.node) + soup.size();
        surface.clear();
        const std::size_t deep = PatchContacts(view, soup, marginB, inMaxDistance, surface);
        if (surface.empty() && (deep > 0 || PatchCrossesSoup(view, soup)))
        {
            // Deep in the static mesh (pressed or spawned through it), or cut by it: the proxy's
            // nearest-triangle contact pushes it out.
            ++ioStats.fallbacks;
            const std::size_t before = outContacts.size();
            ConcaveProxyContact(proxy, marginA + inMaxDistance, marginA, inMaxDistance, inB, outContacts);
            if (outContacts.size() > before)
                outContacts.back().withdrawable = deep == 0;
            else
                ++ioStats.fallbacksApart;
            continue;
        }
        // Supported: a contact within the skins (touching, or pressed in). Speculative contacts further out
        // hold nothing up, and a body cut by the mesh would fall on through it with them alone.
        for (const SurfaceContact& contact : surface)
            supported = supported || contact.distance <= marginA + marginB;
        const std::size_t first = outContacts.size();
        AppendSurface(surface, outContacts);
        for (std::size_t i = 0; i < surface.size(); ++i)
        {
            PairContact& contact = outContacts[first + i];
            const std::uint32_t soupIndex = surface[i].triangleB;
            contact.feature1 = {};
            if (soupIndex < ids.size())
            {
                contact.partId1 = ids[soupIndex].first;
                contact.index1 = ids[soupIndex].second;
            }
        }
    }
    // A body resting on the mesh may cross it at a rim (a sharp ridge through a patch beside the one it rests
    // on): its resting contacts hold it, and the crossing patch's proxy contact would lift it off the surface.
    const auto made = outContacts.begin() + std::ptrdiff_t(firstMade);
    if (supported)
    {
        const auto withdrawn = std::remove_if(made, outContacts.end(),
                                              [](const PairContact& inContact) { return inContact.withdrawable; });
        ioStats.fallbacksWithdrawn += std::uint64_t(outContacts.end() - withdrawn);
        outContacts.erase(withdrawn, outContacts.end());
    }
    else
        std::for_each(made, outContacts.end(), [](PairContact& ioContact) { ioContact.withdrawable = false; });
}

void ConcaveProxyContacts(const DeformedBody& inA, double inMarginA, double inMaxDistance,
                          const btCollisionObjectWrapper& inB, std::vector<PairContact>& outContacts,
                          QueryStats& ioStats)
{
    const auto* concave = static_cast<const btConcaveShape*>(inB.getCollisionShape());
    const btTransform& transformB = inB.getWorldTransform();
    const double marginB = concave->getMargin();
    btVector3 boxMin;
    btVector3 boxMax;
    concave->getAabb(transformB, boxMin, boxMax);

    thread_local std::vector<ProxySphere> proxies;
    proxies.clear();
    // Bullet's concave boxes include the margin; inflate once more so a proxy just outside still counts.
    const Vec3d grow = Vec3d::Constant(marginB);
    CollectProxies(inA, Aabb(ToVec3d(boxMin) - grow, ToVec3d(boxMax) + grow), proxies, ioStats);

    for (const ProxySphere& proxy : proxies)
        ConcaveProxyContact(proxy, inA.inflate, inMarginA, inMaxDistance, inB, outContacts);
}

} // namespace bdt
