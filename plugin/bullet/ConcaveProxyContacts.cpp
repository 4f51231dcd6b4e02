#include "ConcaveProxyContacts.h"


#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionShapes/btConcaveShape.h>
#include <BulletCollision/CollisionShapes/btTriangleCallback.h>
#include <algorithm>
#include <bdt/bullet/Conversions.h>
#include <bdt/core/TriangleGeometry.h>
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

} // namespace

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

    const Pose poseB = ToPose(transformB);
    for (const ProxySphere& proxy : proxies)
    {
        const double radius = std::max(proxy.radius - inA.inflate, 0.0);
        const Vec3d center = poseB.ApplyInverse(proxy.center);
        // Triangles within reach: the inflated proxy sphere plus B's margin, as a box in B's frame.
        const double reach = proxy.radius + marginB;
        const btVector3 queryMin = ToBtVector(center - Vec3d::Constant(reach));
        const btVector3 queryMax = ToBtVector(center + Vec3d::Constant(reach));
        NearestTriangle nearest(center);
        concave->processAllTriangles(&nearest, queryMin, queryMax);
        if (!nearest.Found())
            continue;

        PairContact contact;
        contact.distance = nearest.Distance() - radius - marginB - inMarginA;
        if (contact.distance > inMaxDistance)
            continue;
        const Vec3d normal = nearest.Normal();
        contact.normal = (poseB.rotation * normal).normalized();
        contact.pointOnB = poseB.Apply(nearest.Closest() + marginB * normal);
        contact.node0 = proxy.node;
        contact.index1 = nearest.TriangleIndex();
        contact.partId1 = nearest.PartId();
        outContacts.push_back(contact);
    }
}

} // namespace bdt
