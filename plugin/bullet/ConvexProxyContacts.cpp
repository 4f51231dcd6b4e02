#include "ConvexProxyContacts.h"

#include <bdt/bullet/Conversions.h>

#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionShapes/btConvexShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btPointCollector.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>
#include <algorithm>

namespace bdt
{

void ConvexProxyContacts(const DeformedBody& inA, double inMarginA, double inMaxDistance,
                         const btCollisionObjectWrapper& inB, std::vector<PairContact>& outContacts,
                         QueryStats& ioStats)
{
    const auto* convex = static_cast<const btConvexShape*>(inB.getCollisionShape());
    const btTransform& transformB = inB.getWorldTransform();
    btVector3 boxMin;
    btVector3 boxMax;
    convex->getAabb(transformB, boxMin, boxMax);

    thread_local std::vector<ProxySphere> proxies;
    proxies.clear();
    CollectProxies(inA, ToAabb(boxMin, boxMax), proxies, ioStats);

    btVoronoiSimplexSolver simplex;
    btGjkEpaPenetrationDepthSolver penetration;
    btSphereShape sphere(1);
    for (const ProxySphere& proxy : proxies)
    {
        // The proxy sphere itself, without the inflation the culling used. Its radius is its GJK margin.
        const double radius = std::max(proxy.radius - inA.inflate, 0.0);
        sphere.setUnscaledRadius(btScalar(std::max(radius, 1e-9)));

        btGjkPairDetector detector(&sphere, convex, &simplex, &penetration);
        btGjkPairDetector::ClosestPointInput input;
        input.m_transformA.setIdentity();
        input.m_transformA.setOrigin(ToBtVector(proxy.center));
        input.m_transformB = transformB;
        input.m_maximumDistanceSquared = BT_LARGE_FLOAT;
        btPointCollector result;
        detector.getClosestPoints(input, result, nullptr);
        if (!result.m_hasResult)
            continue;

        PairContact contact;
        contact.distance = double(result.m_distance) - inMarginA;
        if (contact.distance > inMaxDistance)
            continue;
        const Vec3d normal = ToVec3d(result.m_normalOnBInWorld);
        const double length = normal.norm();
        contact.normal = length > 0.0 ? Vec3d(normal / length) : Vec3d(Vec3d::UnitY());
        // B's point: the centre projected along the normal by its signed distance. For separated shapes this
        // is GJK's own witness point; when they overlap, EPA's witness may slide along B's face (its depth
        // and normal are right), and the projection puts A's and B's points on the normal through the centre.
        contact.pointOnB = proxy.center - contact.normal * (double(result.m_distance) + radius);
        contact.node0 = proxy.node;
        outContacts.push_back(contact);
    }
}

} // namespace bdt
