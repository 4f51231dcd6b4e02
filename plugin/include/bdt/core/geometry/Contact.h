#pragma once

#include <bdt/core/base/Math.h>

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
    /// Of `contacts`, those made above the proxies by an interrupted traversal (`CollideProxiesBudgeted`).
    std::uint64_t approximateContacts = 0;
    /// Surface model: patch pairs tested feature by feature, exact feature tests, their contacts.
    std::uint64_t patchPairs = 0, featureTests = 0, surfaceContacts = 0;
    std::uint64_t patchesMade = 0, patchesReused = 0; ///< Surface model: patches deformed now, or cached.
    /// Deformable proxy pairs beyond the contact breaking threshold, kept as sphere contacts (speculative).
    std::uint64_t speculativePairs = 0;
    /// Surface model: contact pieces collided as boxes (`DeformableShapeSettings::pieceTolerance`), contacts.
    std::uint64_t piecePairs = 0, pieceContacts = 0;
    /// Surface model: proxy pairs whose patches cross or lie deep and make no surface contact, so that their
    /// proxy contact stands in (a fallback); of those, the ones apart at the proxy's rest radius (none made), and
    /// the ones withdrawn because the pair made surface contacts elsewhere.
    std::uint64_t fallbacks = 0, fallbacksApart = 0, fallbacksWithdrawn = 0;

    /// Adds every counter of `inOther`.
    void Add(const QueryStats& inOther)
    {
        overlapTests += inOther.overlapTests;
        triangleTests += inOther.triangleTests;
        contacts += inOther.contacts;
        approximateContacts += inOther.approximateContacts;
        patchPairs += inOther.patchPairs;
        featureTests += inOther.featureTests;
        surfaceContacts += inOther.surfaceContacts;
        patchesMade += inOther.patchesMade;
        patchesReused += inOther.patchesReused;
        speculativePairs += inOther.speculativePairs;
        piecePairs += inOther.piecePairs;
        pieceContacts += inOther.pieceContacts;
        fallbacks += inOther.fallbacks;
        fallbacksApart += inOther.fallbacksApart;
        fallbacksWithdrawn += inOther.fallbacksWithdrawn;
    }
};

/// A step's narrowphase work, stage by stage, for this plugin's pairs: counts, and processor milliseconds
/// summed over threads (more than the step with two). `World` sums them into `StepStats::narrowphase`.
struct NarrowphaseStats
{
    QueryStats work; ///< The queries' counters: sphere tests, patch pairs, feature tests, patches placed.
    std::uint64_t pairs = 0;         ///< Pairs collided by the plugin's algorithm (contact mode).
    std::uint64_t pairsApart = 0;    ///< Of those, pairs whose root spheres were apart: no descent.
    std::uint64_t contactsFound = 0; ///< Contacts generated (sphere and surface) before the speculative filter.
    std::uint64_t contactsFiltered = 0; ///< Of those, dropped as unable to close within the step.
    std::uint64_t pointsKept = 0;       ///< Points written into manifolds after region reduction.
    double descentMs = 0.0;  ///< The sphere descents (BD-Tree §3.4) and their sphere contacts.
    double placeMs = 0.0;    ///< Surface model: deforming and placing patches.
    /// Surface model: the exact feature tests and the pieces' box tests.
    double featuresMs = 0.0;
    /// The speculative filter, region planning, point reduction, the triangle under each piece point kept
    /// (surface model), and prediction.
    double regionsMs = 0.0;
    double commitMs = 0.0;   ///< Writing the points into Bullet's manifolds (warm starts, callbacks).

    /// The sum of the stage times, ms.
    double TotalMs() const { return descentMs + placeMs + featuresMs + regionsMs + commitMs; }

    /// Adds every counter and time of `inOther`.
    void Add(const NarrowphaseStats& inOther)
    {
        work.Add(inOther.work);
        pairs += inOther.pairs;
        pairsApart += inOther.pairsApart;
        contactsFound += inOther.contactsFound;
        contactsFiltered += inOther.contactsFiltered;
        pointsKept += inOther.pointsKept;
        descentMs += inOther.descentMs;
        placeMs += inOther.placeMs;
        featuresMs += inOther.featuresMs;
        regionsMs += inOther.regionsMs;
        commitMs += inOther.commitMs;
    }
};

} // namespace bdt
