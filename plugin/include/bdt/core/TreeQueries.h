#pragma once

#include <bdt/core/BDAabbTree.h>
#include <bdt/core/Contact.h>
#include <bdt/core/Primitives.h>
#include <bdt/core/TreeState.h>

#include <functional>
#include <optional>
#include <vector>

namespace bdt
{

/// A deformable body as the queries see it: its tree state (q, cached spheres, proxy level), its rigid
/// pose and a uniform scale: a rest-frame point x is at `pose.Apply(scale * x)` in world. The state's
/// spheres are updated lazily as the traversal visits them, so the state is written to (not thread-safe per
/// state). `state` must not be null. The state is not owned.
struct DeformedBody
{
    TreeState* state = nullptr;
    Pose pose;
    double scale = 1.0;   ///< Uniform scale of the rest frame (> 0), e.g. Bullet's local scaling.
    /// World distance added to the radius of every sphere the sphere-level queries test (proxy queries,
    /// `CollectProxies`, ray pruning). Bullet's collision margin and contact threshold: spheres within
    /// `inflate` of the other side count as overlapping. The exact leaf tests ignore it. Default 0.
    double inflate = 0.0;
};

/// A node sphere in world: the updated sphere of a proxy, scaled, posed and inflated.
struct ProxySphere
{
    Vec3d center = Vec3d::Zero();
    double radius = 0.0;
    std::uint32_t node = cNoIndex;
};

// All queries append to their output vector (they do not clear it) and add to `ioStats`. Work is
// output-sensitive: a node is updated (8M flops) only when its parent's sphere overlaps the other side, and
// no deformed vertex is computed under a node whose sphere was rejected.
// Proxy-level queries stop at the state's proxy level L (§3.4) and report sphere contacts; leaf-level
// queries descend to the leaves and test deformed triangles exactly (in double, in world: each deformed
// vertex p + Uq mapped by the pose, then the TriangleGeometry.h tests, so a brute-force loop over
// `DeformedTriangle` + `Pose::Apply` + the same test gives exactly the same answer).
// Sphere tests are inflated by 1e-9 of the radii (plus 1e-13 of the coordinates' magnitude) against the
// rounding of the double tests on float spheres: they never miss a touching contact and may, rarely, let
// through a pair that is apart by less than that slack (the exact leaf tests then reject it).
// Proxy-level depths and points are those of the inflated spheres (`DeformedBody::inflate`).
// Traversals use no recursion. The tree-vs-tree and tree-vs-primitive descents go breadth first, a level of
// overlapping pairs (or nodes) at a time, and report contacts level by level; tree vs tree descends the larger
// sphere of a pair (or the one that is not yet a proxy / leaf), so the pairs tested do not depend on the order.

/// Tree vs tree at the proxy level: every pair of proxy spheres of A and B that overlap, each once. Normal
/// from B's sphere centre to A's (+Y when the centres coincide), depth rA + rB − distance (≥ 0), point
/// midway between the two spheres' deepest points. Complete thanks to the wrapped coarse nodes of
/// `ContactProxies`: no overlapping proxy pair is pruned above the proxies. Both bodies use their own level.
/// The narrowphase answers the same query with temporal coherence (a pair's traversal front, a pair's cached
/// proxy pairs) where the bodies ask for it (`DeformableShapeSettings::frontTracking`, `pairCacheSkin`).
void CollideProxies(DeformedBody inA, DeformedBody inB, std::vector<ProxyContact>& outContacts, QueryStats& ioStats);
/// The interruptible traversal (Mendoza & O'Sullivan 2006): the same breadth-first descent, but it tests at most
/// `inMaxTests` sphere pairs (at least 1, the roots). When the next split would exceed the budget it stops, and
/// each overlapping pair it had not yet split (two nodes above the proxies, the coarsest levels first) becomes an
/// *approximate contact*: the sphere contact of the two nodes' spheres (normal from B's centre to A's, depth
/// their overlap), with those nodes in nodeA and nodeB, counted in `ioStats.approximateContacts`. So the
/// response degrades gracefully, from proxy contacts to contacts of coarser spheres, instead of missing
/// contacts. Every overlapping proxy pair that `CollideProxies` reports is reported too or lies below the two
/// nodes of an approximate contact; with a budget the descent never needs, the contacts are exactly
/// `CollideProxies`'s. Returns true if the budget cut the descent.
bool CollideProxiesBudgeted(DeformedBody inA, DeformedBody inB, std::uint64_t inMaxTests,
                            std::vector<ProxyContact>& outContacts, QueryStats& ioStats);
/// The same contacts as `CollideProxies` (as a set; the order may differ), with BD-AABB boxes (§3.5,
/// `BDAabbTree`) culling beside the spheres: a pair is split only when its spheres overlap and its boxes do too
/// (the separating-axis test of `BoxOverlapTest` on the boxes oriented in world by the poses). Each box is
/// grown by twice the largest proxy radius (plus the inflate), which makes it hold the spheres of the proxies
/// below it (see `TreeTreeQuery.cpp`): no sphere contact is lost, and the contacts are the same bits. The boxes
/// cull slender and flat parts that their spheres do not; a box update is 12M flops and a box test about 10
/// times a sphere test. `overlapTests` counts both kinds of test. With temporal coherence on either body it is
/// `CollideProxies`. `inBoxesA` and `inBoxesB` are the two bodies' trees' box rows (throws `bdt::Error` if not).
void CollideProxiesWithBoxes(DeformedBody inA, DeformedBody inB, const BDAabbTree& inBoxesA, const BDAabbTree& inBoxesB,
                             std::vector<ProxyContact>& outContacts, QueryStats& ioStats);
/// Tree vs tree at the leaves: exactly the pairs of intersecting (or touching) deformed triangles, each pair
/// once, `TrianglesIntersect` on the world triangles. Cost per leaf pair reached: 2 × 18M flops to deform
/// the triangles, about 250 flops for the exact test.
void CollideTriangles(DeformedBody inA, DeformedBody inB, std::vector<TrianglePair>& outPairs, QueryStats& ioStats);

/// Proxies of the body overlapping a world-frame solid sphere / half-space / box / capsule (B = primitive,
/// nodeB = cNoIndex). Normal from the primitive to the proxy sphere (the plane normal for a half-space, the
/// nearest face for a centre inside a box, a fixed perpendicular for a centre on a capsule axis), depth the
/// overlap along it, point midway between the sphere's deepest point and the primitive's surface. Defined for
/// the four `PrimitiveShape`s.
template <PrimitiveShape Primitive>
void CollideProxies(DeformedBody inA, const Primitive& inPrimitive, std::vector<ProxyContact>& outContacts,
                    QueryStats& ioStats);

/// Every proxy (§3.4) whose world sphere (with `inflate`) overlaps the world box `inBox`, each once, with that
/// sphere. The culling step of the narrowphase against shapes the tree has no exact test for (convex hulls,
/// triangle meshes): the caller runs its exact test on the proxies only. Appends to `outProxies`.
void CollectProxies(DeformedBody inA, const Aabb& inBox, std::vector<ProxySphere>& outProxies, QueryStats& ioStats);

/// Deformed triangles intersecting (or touching) a world-frame solid primitive, with their deepest point:
/// the contact of `TriangleSphereContact` / `TrianglePlaneContact` / `TriangleBoxContact` /
/// `TriangleCapsuleContact` on the world triangle, its index filled in. Defined for the four `PrimitiveShape`s.
template <PrimitiveShape Primitive>
void CollideTriangles(DeformedBody inA, const Primitive& inPrimitive, std::vector<TriangleContact>& outContacts,
                      QueryStats& ioStats);

/// Receives a deformed triangle in the body's rest frame (index in tree order, three vertices).
using TriangleCallback = std::function<void(std::uint32_t inTriangle, const Vec3d (&inVertices)[3])>;

/// Every deformed triangle whose bounding box overlaps `inBox` (closed; rest frame of the body), as Bullet's
/// `processAllTriangles` expects; each triangle once, in no particular order. Nodes are pruned by the
/// bounding cube of their sphere (the sphere alone would lose triangles whose box reaches further than they
/// do). `contacts` counts the triangles reported. An empty box reports nothing.
void QueryTriangles(TreeState& ioState, const Aabb& inBox, const TriangleCallback& inCallback, QueryStats& ioStats);
/// The same in the frame the body is placed in: every deformed triangle mapped by the body's scale and pose
/// (with `inflate` the pruning keeps more nodes; the triangle test ignores it) whose box in that frame
/// overlaps `inBox`, reported with its vertices in that frame. What Bullet's `processAllTriangles` needs for
/// a shape whose local frame is not the rest frame.
void QueryTriangles(DeformedBody inA, const Aabb& inBox, const TriangleCallback& inCallback, QueryStats& ioStats);

/// Closest intersection of a world-frame ray with the deformed surface (both faces), or nullopt: the least t
/// of `RayTriangle` over all triangles, the lowest triangle index among equal t. Nearer children are visited
/// first and a sphere is skipped once its entry parameter is beyond the best hit. The normal faces the
/// ray's origin.
std::optional<RayHit> RayCast(DeformedBody inA, const Ray& inRay, QueryStats& ioStats);

/// The point of the deformed surface nearest the world point `inPoint`: the least distance over all triangles
/// (`ClosestPointOnTriangle`), the lowest triangle index among equal distances. Branch and bound on the updated
/// spheres, nearer child first, a node skipped once its sphere is no nearer than the best so far; O(log T) nodes
/// for a point near a smooth surface, up to all for one equidistant from many. Nullopt for a non-finite point.
std::optional<SurfaceProjection> ClosestSurfacePoint(DeformedBody inA, const Vec3d& inPoint, QueryStats& ioStats);

/// The deformed triangle `inTriangle` (tree order) at the state's current q, rest frame, double precision.
/// Cost 18M flops.
void DeformedTriangle(const TreeState& inState, std::uint32_t inTriangle, Vec3d (&outVertices)[3]);

} // namespace bdt
