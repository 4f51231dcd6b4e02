#pragma once

#include <bdt/core/Math.h>

#include <cstdint>
#include <limits>

namespace bdt
{

/// Marks "no node" or "no triangle" in query results (e.g. the primitive side of a contact).
inline constexpr std::uint32_t cNoIndex = std::numeric_limits<std::uint32_t>::max();

/// A contact between two proxy spheres, or a proxy sphere and a primitive, in world coordinates.
struct ProxyContact
{
    Vec3d point = Vec3d::Zero();  ///< Midpoint of the overlap along the normal.
    Vec3d normal = Vec3d::UnitY(); ///< Unit, pointing from B to A (push A along +normal to separate).
    double depth = 0.0;           ///< Penetration depth (≥ 0 when touching), model units.
    std::uint32_t nodeA = cNoIndex; ///< Proxy node of body A.
    std::uint32_t nodeB = cNoIndex; ///< Proxy node of body B, or cNoIndex for a primitive.
};

/// A pair of intersecting deformed triangles (indices in each tree's triangle order).
struct TrianglePair
{
    std::uint32_t triangleA = cNoIndex;
    std::uint32_t triangleB = cNoIndex;
    bool operator==(const TrianglePair&) const = default;
    auto operator<=>(const TrianglePair&) const = default;
};

/// A deformed triangle touching a primitive, in world coordinates.
struct TriangleContact
{
    std::uint32_t triangle = cNoIndex; ///< Index in the tree's triangle order.
    Vec3d point = Vec3d::Zero();       ///< Deepest point of the triangle inside the primitive (on the triangle).
    Vec3d normal = Vec3d::UnitY();     ///< Unit, pointing from the primitive to the triangle.
    double depth = 0.0;                ///< Penetration depth along the normal.
};

/// The point of the deformed surface nearest a given point (`ClosestSurfacePoint`), world coordinates.
struct SurfaceProjection
{
    Vec3d point = Vec3d::Zero();          ///< On the surface.
    double distance = 0.0;                ///< From the given point (world units).
    std::uint32_t triangle = cNoIndex;    ///< Index in the tree's triangle order.
    Vec3d barycentric = Vec3d::Zero();    ///< Of `point` on that triangle (each in [0, 1], sum 1).
};

/// The closest hit of a ray with the deformed surface.
struct RayHit
{
    double t = 0.0;                    ///< Ray parameter of the hit.
    Vec3d point = Vec3d::Zero();       ///< World point.
    Vec3d normal = Vec3d::UnitY();     ///< Unit geometric normal of the triangle, facing the ray origin.
    std::uint32_t triangle = cNoIndex; ///< Index in the tree's triangle order.
};

/// Work counters of queries, accumulated across calls until reset.
struct QueryStats
{
    std::uint64_t overlapTests = 0;  ///< Bounding-volume overlap tests (sphere-sphere, sphere-primitive).
    std::uint64_t triangleTests = 0; ///< Exact triangle tests at the leaves.
    std::uint64_t contacts = 0;      ///< Contacts or pairs reported.
    /// Of `contacts`, those an interrupted traversal made from pairs above the proxies that it had no budget
    /// left to refine (`CollideProxiesBudgeted`).
    std::uint64_t approximateContacts = 0;
};

} // namespace bdt
