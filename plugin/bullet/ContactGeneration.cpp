// Contacts of a deformable's proxy spheres with the other shape of a pair: the analytic core queries (tree,
// sphere, box, capsule, half-space) here, GJK and triangles in their own files.

#include "ContactGeneration.h"

#include "ConcaveProxyContacts.h"
#include "ConvexProxyContacts.h"

#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <algorithm>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/TreeQueries.h>

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
        out.node0 = contact.nodeA;
        out.index1 = inOtherDeformable ? int(contact.nodeB) : -1;
        out.partId1 = -1;
        if (out.distance <= inMaxDistance)
            outContacts.push_back(out);
    }
}

Capsule WorldCapsule(const btCapsuleShape& inCapsule, const btTransform& inTransform)
{
    btVector3 half(0, 0, 0);
    half[inCapsule.getUpAxis()] = inCapsule.getHalfHeight();
    return {ToVec3d(inTransform * -half), ToVec3d(inTransform * half), double(inCapsule.getRadius())};
}

Plane WorldPlane(const btStaticPlaneShape& inPlane, const btTransform& inTransform)
{
    const btVector3 normal = inTransform.getBasis() * inPlane.getPlaneNormal();
    Plane plane;
    plane.normal = ToVec3d(normal).normalized();
    plane.offset = double(inPlane.getPlaneConstant()) + plane.normal.dot(ToVec3d(inTransform.getOrigin()));
    return plane;
}

} // namespace

namespace
{

// How much a proxy's updated radius exceeds its rest radius, in world units: the growth ΔRᵀ|q| (or the tight
// bound's) that keeps the sphere conservative.
double RadiusGrowth(const DeformableShape& inShape, std::uint32_t inNode)
{
    TreeState& state = inShape.State();
    const double rest = double(state.Proxies().Row(inNode)[3]);
    return double(inShape.getLocalScaling().x()) * std::max(0.0, double(state.Sphere(inNode).radius) - rest);
}

} // namespace

void GenerateContacts(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB,
                      double inMaxDistance, std::vector<PairContact>& outContacts, QueryStats& ioStats)
{
    const std::size_t first = outContacts.size();
    GenerateSphereContacts(inA, inB, inMaxDistance, outContacts, ioStats);
    // Contact geometry: a proxy pushes with its sphere moved by the proxy's mean displacement (c' = c + Ū q,
    // eq. 5) at its rest radius. The radius growth (eq. 7) bounds how far the proxy's triangles spread about
    // that centre, which the culling needs, but it grows with |q| whichever way the body deforms: pushing
    // against it would lift a resting body on every half-period of its vibration and pump energy into it.
    const DeformableShape& shapeA = *AsDeformable(inA.getCollisionShape());
    const DeformableShape* shapeB = AsDeformable(inB.getCollisionShape());
    std::size_t kept = first;
    for (std::size_t i = first; i < outContacts.size(); ++i)
    {
        PairContact contact = outContacts[i];
        contact.distance += RadiusGrowth(shapeA, contact.node0);
        if (shapeB != nullptr && contact.index1 >= 0)
        {
            // B's contact point moves back onto B's rest-radius sphere, along the normal (B to A).
            const double growthB = RadiusGrowth(*shapeB, std::uint32_t(contact.index1));
            contact.distance += growthB;
            contact.pointOnB -= growthB * contact.normal;
        }
        if (contact.distance <= inMaxDistance)
            outContacts[kept++] = contact;
    }
    outContacts.resize(kept);
}

void GenerateSphereContacts(const btCollisionObjectWrapper& inA, const btCollisionObjectWrapper& inB,
                            double inMaxDistance, std::vector<PairContact>& outContacts, QueryStats& ioStats)
{
    const DeformableShape* shapeA = AsDeformable(inA.getCollisionShape());
    if (shapeA == nullptr)
        return;
    const double marginA = shapeA->getMargin();
    const DeformedBody bodyA = shapeA->Body(inA.getWorldTransform(), marginA + inMaxDistance);
    const btCollisionShape* shapeB = inB.getCollisionShape();
    const btTransform& transformB = inB.getWorldTransform();

    // Thread-local scratch: the algorithm object stays small and a step allocates nothing once warm.
    thread_local std::vector<ProxyContact> proxyContacts;
    proxyContacts.clear();

    switch (ClassifyOther(shapeB))
    {
    case EOtherShape::Deformable:
    {
        const DeformableShape* deformableB = AsDeformable(shapeB);
        const DeformedBody bodyB = deformableB->Body(transformB, deformableB->getMargin());
        CollideProxies(bodyA, bodyB, proxyContacts, ioStats);
        AppendProxyContacts(proxyContacts, inMaxDistance, true, outContacts);
        return;
    }
    case EOtherShape::Sphere:
    {
        const auto& sphere = static_cast<const btSphereShape&>(*shapeB);
        CollideProxies(bodyA, Sphere{ToVec3d(transformB.getOrigin()), double(sphere.getRadius())},
                       proxyContacts, ioStats);
        break;
    }
    case EOtherShape::Box:
    {
        const auto& box = static_cast<const btBoxShape&>(*shapeB);
        CollideProxies(bodyA, OrientedBox{ToPose(transformB), ToVec3d(box.getHalfExtentsWithMargin())},
                       proxyContacts, ioStats);
        break;
    }
    case EOtherShape::Capsule:
        CollideProxies(bodyA, WorldCapsule(static_cast<const btCapsuleShape&>(*shapeB), transformB),
                       proxyContacts, ioStats);
        break;
    case EOtherShape::Plane:
        CollideProxies(bodyA, WorldPlane(static_cast<const btStaticPlaneShape&>(*shapeB), transformB),
                       proxyContacts, ioStats);
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
