#include "ConvexProxyContacts.h"
#include "bullet/ShapeSolver.h"
#include "SurfacePatches.h"


#include "core/contacts/SurfaceCache.h"
#include "core/contacts/SurfaceContacts.h"

#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionShapes/btConvexShape.h>
#include <BulletCollision/CollisionShapes/btPolyhedralConvexShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btTriangleShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btPointCollector.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>
#include <algorithm>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>

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
        contact.feature0.node = proxy.node;
        outContacts.push_back(contact);
    }
}

namespace
{

// GJK (EPA where they overlap) between `inA` at `inTransformA` and the convex `inB` at `inTransformB`: when
// within `inMaxDistance`, writes the normal (B to A), the distance between their margin-grown surfaces and B's
// point to `outContact` and returns true.
bool ClosestApproach(const btConvexShape& inA, const btTransform& inTransformA, const btConvexShape& inB,
                     const btTransform& inTransformB, double inMaxDistance, btVoronoiSimplexSolver& ioSimplex,
                     btGjkEpaPenetrationDepthSolver& ioPenetration, SurfaceContact& outContact)
{
    btGjkPairDetector detector(&inA, &inB, &ioSimplex, &ioPenetration);
    btGjkPairDetector::ClosestPointInput input;
    input.m_transformA = inTransformA;
    input.m_transformB = inTransformB;
    input.m_maximumDistanceSquared = BT_LARGE_FLOAT;
    btPointCollector result;
    detector.getClosestPoints(input, result, nullptr);
    if (!result.m_hasResult || double(result.m_distance) > inMaxDistance)
        return false;
    const Vec3d normal = ToVec3d(result.m_normalOnBInWorld);
    const double length = normal.norm();
    if (!(length > 0.0))
        return false;
    outContact.normal = normal / length;
    outContact.distance = double(result.m_distance);
    outContact.pointOnB = ToVec3d(result.m_pointInWorld);
    return true;
}

} // namespace

void ConvexSurfaceContacts(const DeformableShape& inShapeA, const btCollisionObjectWrapper& inA,
                           double inMaxDistance, const btCollisionObjectWrapper& inB,
                           std::vector<PairContact>& outContacts, QueryStats& ioStats)
{
    const auto* convex = static_cast<const btConvexShape*>(inB.getCollisionShape());
    const btTransform& transformB = inB.getWorldTransform();
    const double marginA = double(inShapeA.getMargin());
    btVector3 boxMin;
    btVector3 boxMax;
    convex->getAabb(transformB, boxMin, boxMax);
    thread_local std::vector<ProxySphere> proxies;
    proxies.clear();
    CollectProxies(inShapeA.QueryView(inA.getWorldTransform(), marginA + inMaxDistance), ToAabb(boxMin, boxMax),
                   proxies, ioStats);
    if (proxies.empty())
        return;

    // The hull's corners, in world, for a polyhedral convex.
    thread_local std::vector<Vec3d> corners;
    corners.clear();
    if (const auto* polyhedral = dynamic_cast<const btPolyhedralConvexShape*>(convex))
        for (int i = 0; i < polyhedral->getNumVertices(); ++i)
        {
            btVector3 vertex;
            polyhedral->getVertex(i, vertex);
            corners.push_back(ToVec3d(transformB * vertex));
        }

    const DeformedBody bodyA = inShapeA.QueryView(inA.getWorldTransform());
    thread_local PlacedPatch scratch;
    thread_local std::vector<SurfaceContact> surface;
    surface.clear();
    btVoronoiSimplexSolver simplex;
    btGjkEpaPenetrationDepthSolver penetration;
    const btSphereShape vertex{btScalar(marginA)}; // a patch vertex grown by A's margin
    for (const ProxySphere& proxy : proxies)
    {
        const PatchView view = PlaceProxyPatch(inShapeA, bodyA, proxy.node, scratch, &ioStats);
        const ProxyPatches& patches = *ShapeSolver::Of(inShapeA).Patches();
        const auto triangles = patches.Triangles(proxy.node);
        const std::uint32_t own = patches.OwnTriangleCount(proxy.node);
        ioStats.triangleTests += own;
        for (std::uint32_t t = 0; t < own; ++t)
        {
            btTriangleShape triangle(ToBtVector(view.vertices[triangles[t][0]]),
                                     ToBtVector(view.vertices[triangles[t][1]]),
                                     ToBtVector(view.vertices[triangles[t][2]]));
            triangle.setMargin(btScalar(marginA));
            SurfaceContact contact;
            if (!ClosestApproach(triangle, btTransform::getIdentity(), *convex, transformB, inMaxDistance,
                                 simplex, penetration, contact))
                continue;
            // The point on the triangle itself: A's margin-grown surface point, back along the normal.
            const Vec3d onTriangle = contact.pointOnB + (contact.distance + marginA) * contact.normal;
            if (!AcceptsTriangleContact(view, t, onTriangle, -contact.normal, contact.barycentricA))
                continue;
            contact.proxyA = proxy.node;
            contact.triangleA = patches.TreeTriangle(proxy.node, t);
            surface.push_back(contact);
        }
        // The patch's own vertices against the convex, within their cones: where a face of the body lies on
        // a flat face of the convex, a triangle's GJK gives one arbitrary witness of the overlap, which moves
        // from step to step; the vertices are the contact polygon's corners on the body's side (as against
        // a box or a plane), the hull's corners on the convex's.
        const std::uint32_t firstTree = patches.TreeTriangle(proxy.node, 0);
        for (std::uint32_t v = 0; v < patches.OwnedVertexCount(proxy.node); ++v)
        {
            const std::uint32_t local = patches.VertexTriangles(proxy.node)[v] - firstTree;
            if (local >= own)
                continue;
            SurfaceContact contact;
            if (!ClosestApproach(vertex, btTransform(btQuaternion::getIdentity(), ToBtVector(view.vertices[v])),
                                 *convex, transformB, inMaxDistance, simplex, penetration, contact))
                continue;
            if (!AcceptsTriangleContact(view, local, view.vertices[v], -contact.normal, contact.barycentricA))
                continue;
            contact.proxyA = proxy.node;
            contact.triangleA = firstTree + local;
            surface.push_back(contact);
        }
        if (!corners.empty())
            PatchContacts(view, corners, double(convex->getMargin()), inMaxDistance, surface);
    }
    if (surface.empty())
    {
        // A convex wholly inside the body has no surface feature facing it: its proxy contacts push it out (the
        // caller takes them to their rest radii).
        // Its centre: a hull's corners' mean (inside it), else its origin (a cylinder's, a cone's centre).
        Vec3d centre = ToVec3d(transformB.getOrigin());
        if (!corners.empty())
        {
            centre = Vec3d::Zero();
            for (const Vec3d& corner : corners)
                centre += corner;
            centre /= double(corners.size());
        }
        if (InsideSurface(inShapeA, inA.getWorldTransform(), centre, ioStats))
            ConvexProxyContacts(inShapeA.QueryView(inA.getWorldTransform(), marginA + inMaxDistance), marginA,
                                inMaxDistance, inB, outContacts, ioStats);
        return;
    }
    AppendSurface(surface, outContacts);
}

} // namespace bdt
