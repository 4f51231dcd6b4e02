#pragma once

#include <bdt/core/Contact.h>
#include <bdt/core/Primitives.h>
#include <bdt/core/TreeState.h>

#include <functional>
#include <optional>
#include <vector>

namespace bdt
{

/// A deformable body as the queries see it: its tree state (q, cached spheres, proxy level) and its rigid
/// pose (body to world). The state's spheres are updated lazily as the traversal visits them.
struct DeformedBody
{
    TreeState* state = nullptr;
    Pose pose;
};

// All queries append to their output vector (they do not clear it) and add to `ioStats`. Work is
// output-sensitive: a node is updated (8M flops) only when its parent's sphere overlaps the other side.
// Proxy-level queries stop at the state's proxy level L (§3.4) and report sphere contacts; leaf-level
// queries descend to the leaves and test deformed triangles exactly (in double).

/// Tree vs tree at the proxy level: every pair of proxy spheres of A and B that overlap.
void CollideProxies(DeformedBody inA, DeformedBody inB, std::vector<ProxyContact>& outContacts, QueryStats& ioStats);
/// Tree vs tree at the leaves: exactly the pairs of intersecting deformed triangles (each pair once).
void CollideTriangles(DeformedBody inA, DeformedBody inB, std::vector<TrianglePair>& outPairs, QueryStats& ioStats);

/// Proxies of the body overlapping a world-frame solid sphere / half-space / box / capsule (B = primitive).
void CollideProxies(DeformedBody inA, const Sphere& inSphere, std::vector<ProxyContact>& outContacts, QueryStats& ioStats);
void CollideProxies(DeformedBody inA, const Plane& inPlane, std::vector<ProxyContact>& outContacts, QueryStats& ioStats);
void CollideProxies(DeformedBody inA, const OrientedBox& inBox, std::vector<ProxyContact>& outContacts, QueryStats& ioStats);
void CollideProxies(DeformedBody inA, const Capsule& inCapsule, std::vector<ProxyContact>& outContacts, QueryStats& ioStats);

/// Deformed triangles intersecting a world-frame solid primitive, with their deepest point.
void CollideTriangles(DeformedBody inA, const Sphere& inSphere, std::vector<TriangleContact>& outContacts, QueryStats& ioStats);
void CollideTriangles(DeformedBody inA, const Plane& inPlane, std::vector<TriangleContact>& outContacts, QueryStats& ioStats);
void CollideTriangles(DeformedBody inA, const OrientedBox& inBox, std::vector<TriangleContact>& outContacts, QueryStats& ioStats);
void CollideTriangles(DeformedBody inA, const Capsule& inCapsule, std::vector<TriangleContact>& outContacts, QueryStats& ioStats);

/// Receives a deformed triangle in the body's rest frame (index in tree order, three vertices).
using TriangleCallback = std::function<void(std::uint32_t inTriangle, const Vec3d (&inVertices)[3])>;

/// Every deformed triangle whose bounding box overlaps `inBox` (rest frame of the body), as Bullet's
/// `processAllTriangles` expects; each triangle once.
void QueryTriangles(TreeState& ioState, const Aabb& inBox, const TriangleCallback& inCallback, QueryStats& ioStats);

/// Closest intersection of a world-frame ray with the deformed surface (both faces), or nullopt.
std::optional<RayHit> RayCast(DeformedBody inA, const Ray& inRay, QueryStats& ioStats);

/// The deformed triangle `inTriangle` (tree order) at the state's current q, rest frame, double precision.
/// Cost 18M flops.
void DeformedTriangle(const TreeState& inState, std::uint32_t inTriangle, Vec3d (&outVertices)[3]);

} // namespace bdt
