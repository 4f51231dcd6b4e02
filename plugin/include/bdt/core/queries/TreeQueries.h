#pragma once

#include <bdt/core/bounds/BDAabbTree.h>
#include <bdt/core/geometry/Contact.h>
#include <bdt/core/geometry/Primitives.h>
#include <bdt/core/bounds/TreeState.h>

#include <functional>
#include <optional>
#include <vector>

namespace bdt
{

/// A deformable body as the queries see it: its tree state (not null, not owned; the queries write its sphere
/// cache, one thread per state), pose and uniform scale. A rest point x is at `pose.Apply(scale * x)` in world.
struct DeformedBody
{
    TreeState* state = nullptr;
    Pose pose;
    double scale = 1.0;   ///< Uniform scale of the rest frame (> 0), e.g. Bullet's local scaling.
    /// World distance added to every sphere radius the sphere-level queries test (Bullet's margin and contact
    /// threshold); the exact leaf tests ignore it.
    double inflate = 0.0;
};

/// A node sphere in world: the updated sphere of a proxy, scaled, posed and inflated.
struct ProxySphere
{
    Vec3d center = Vec3d::Zero();
    double radius = 0.0;
    std::uint32_t node = cNoIndex;
};

// All queries append to their output (never clear it) and add to `ioStats`. A node is updated (8M flops) only
// when its parent's sphere overlaps the other side. Proxy-level queries stop at the proxy level L (§3.4) and
// report sphere contacts (of the inflated spheres); leaf-level queries test the deformed triangles exactly, in
// double and world, as a brute-force loop over `DeformedTriangle` and `Pose::Apply` would. Sphere tests carry a
// slack of 1e-9 of the radii against rounding: they never miss a touching pair. No recursion: the descents go
// breadth first, a level at a time.

/// Tree vs tree at the proxy level (each body's own L): every overlapping pair of proxy spheres, once. Normal
/// from B's centre to A's (+Y if equal), depth rA + rB − distance, point midway between the deepest points.
void CollideProxies(DeformedBody inA, DeformedBody inB, std::vector<ProxyContact>& outContacts, QueryStats& ioStats);
/// `CollideProxies` within `inMaxTests` ≥ 1 sphere tests (Mendoza & O'Sullivan 2006): pairs left unsplit become
/// contacts of their nodes' spheres (`ioStats.approximateContacts`), covering every proxy contact below them.
/// True if the budget cut the descent; with budget to spare, exactly `CollideProxies`'s contacts.
bool CollideProxiesBudgeted(DeformedBody inA, DeformedBody inB, std::uint64_t inMaxTests,
                            std::vector<ProxyContact>& outContacts, QueryStats& ioStats);
/// `CollideProxies`' contacts (as a set) with BD-AABB boxes (§3.5) culling beside the spheres; a box update is
/// 12M flops, a test ~10 sphere tests. `inBoxesA`, `inBoxesB` must be the trees' box rows (else `bdt::Error`).
void CollideProxiesWithBoxes(DeformedBody inA, DeformedBody inB, const BDAabbTree& inBoxesA, const BDAabbTree& inBoxesB,
                             std::vector<ProxyContact>& outContacts, QueryStats& ioStats);
/// Tree vs tree at the leaves: exactly the intersecting (or touching) deformed triangle pairs, each once.
/// Per leaf pair reached, 2 × 18M flops to deform and about 250 for the exact test.
void CollideTriangles(DeformedBody inA, DeformedBody inB, std::vector<TrianglePair>& outPairs, QueryStats& ioStats);

/// Proxies overlapping a world-frame solid `PrimitiveShape` (B, nodeB = cNoIndex): normal from the primitive to
/// the sphere, depth the overlap, point midway between the sphere's deepest point and the primitive's surface.
template <PrimitiveShape Primitive>
void CollideProxies(DeformedBody inA, const Primitive& inPrimitive, std::vector<ProxyContact>& outContacts,
                    QueryStats& ioStats);

/// Every proxy (§3.4) whose world sphere (with `inflate`) overlaps the world box `inBox`, once, with that
/// sphere: the culling for shapes without an exact test here (hulls, meshes).
void CollectProxies(DeformedBody inA, const Aabb& inBox, std::vector<ProxySphere>& outProxies, QueryStats& ioStats);

/// Deformed triangles intersecting (or touching) a world-frame solid `PrimitiveShape`, each with its deepest
/// point (the `Triangle*Contact` of the world triangle).
template <PrimitiveShape Primitive>
void CollideTriangles(DeformedBody inA, const Primitive& inPrimitive, std::vector<TriangleContact>& outContacts,
                      QueryStats& ioStats);

/// Receives a deformed triangle in the body's rest frame (index in tree order, three vertices).
using TriangleCallback = std::function<void(std::uint32_t inTriangle, const Vec3d (&inVertices)[3])>;

/// Every deformed triangle whose bounding box overlaps `inBox` (closed, rest frame), once, in no order, as
/// Bullet's `processAllTriangles` expects; `contacts` counts them. An empty box reports nothing.
void QueryTriangles(TreeState& ioState, const Aabb& inBox, const TriangleCallback& inCallback, QueryStats& ioStats);
/// The same in the frame the body is placed in (by its scale and pose), vertices reported in that frame: for
/// a shape whose local frame is not the rest frame. `inflate` only widens the pruning.
void QueryTriangles(DeformedBody inA, const Aabb& inBox, const TriangleCallback& inCallback, QueryStats& ioStats);

/// Closest hit of a world-frame ray with the deformed surface (both faces; normal facing the origin), or
/// nullopt: the least t, the lowest triangle index among equal t.
std::optional<RayHit> RayCast(DeformedBody inA, const Ray& inRay, QueryStats& ioStats);

/// The point of the deformed surface nearest the world point `inPoint` (lowest triangle index among equals);
/// nullopt for a non-finite point. O(log T) nodes near a smooth surface, up to all when equidistant from many.
std::optional<SurfaceProjection> ClosestSurfacePoint(DeformedBody inA, const Vec3d& inPoint, QueryStats& ioStats);

/// The deformed triangle `inTriangle` (tree order) at the current q, rest frame, double. 18M flops.
void DeformedTriangle(const TreeState& inState, std::uint32_t inTriangle, Vec3d (&outVertices)[3]);

} // namespace bdt
