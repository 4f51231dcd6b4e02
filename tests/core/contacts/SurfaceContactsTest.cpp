// The surface contact model's feature pairs against brute force over the fully deformed mesh: every contact
// lies on both surfaces with its distance and normal, the closest approach of every placement is found
// exactly, and every triangle within the contact distance has a contact at least as close near it.

#include "support/QueryOracles.h"
#include "support/TestModels.h"

#include "core/contacts/SurfaceCache.h"
#include "core/contacts/SurfaceContacts.h"
#include "core/geometry/TriangleGeometry.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <limits>
#include <variant>

namespace bdt
{
namespace
{

using test::Tri;
constexpr double cInfinity = std::numeric_limits<double>::infinity();

// ---- Independent oracles: signed distance of a point to a primitive, distance of a triangle to it ----

double BoxDistance(const OrientedBox& inBox, const Vec3d& inPoint)
{
    const Vec3d local = inBox.pose.ApplyInverse(inPoint);
    const Vec3d outside = (local.cwiseAbs() - inBox.halfExtents).cwiseMax(0.0);
    const double inside = std::min(0.0, (local.cwiseAbs() - inBox.halfExtents).maxCoeff());
    return outside.norm() + inside;
}

// Whether the segment [inP, inQ] meets the closed box (slab clipping in the box's frame).
bool SegmentMeetsBox(const OrientedBox& inBox, const Vec3d& inP, const Vec3d& inQ)
{
    const Vec3d p = inBox.pose.ApplyInverse(inP), d = inBox.pose.ApplyInverse(inQ) - p;
    double low = 0.0, high = 1.0;
    for (int k = 0; k < 3; ++k)
    {
        if (d[k] == 0.0)
        {
            if (std::abs(p[k]) > inBox.halfExtents[k])
                return false;
            continue;
        }
        double t0 = (-inBox.halfExtents[k] - p[k]) / d[k], t1 = (inBox.halfExtents[k] - p[k]) / d[k];
        if (t0 > t1)
            std::swap(t0, t1);
        low = std::max(low, t0);
        high = std::min(high, t1);
    }
    return low <= high;
}

using Primitive = std::variant<Plane, Sphere, Capsule, OrientedBox>;

double PointDistance(const Primitive& inPrimitive, const Vec3d& inPoint)
{
    if (const auto* plane = std::get_if<Plane>(&inPrimitive))
        return plane->normal.dot(inPoint) - plane->offset;
    if (const auto* sphere = std::get_if<Sphere>(&inPrimitive))
        return (inPoint - sphere->center).norm() - sphere->radius;
    if (const auto* capsule = std::get_if<Capsule>(&inPrimitive))
        return (inPoint - ClosestPointOnSegment(inPoint, capsule->a, capsule->b)).norm() - capsule->radius;
    return BoxDistance(std::get<OrientedBox>(inPrimitive), inPoint);
}

std::vector<std::array<Vec3d, 2>> BoxEdges(const OrientedBox& inBox)
{
    std::vector<std::array<Vec3d, 2>> edges;
    for (int k = 0; k < 3; ++k)
        for (int quadrant = 0; quadrant < 4; ++quadrant)
        {
            Vec3d low = Vec3d::Zero();
            low[(k + 1) % 3] =
                (quadrant & 1) ? inBox.halfExtents[(k + 1) % 3] : -inBox.halfExtents[(k + 1) % 3];
            low[(k + 2) % 3] =
                (quadrant & 2) ? inBox.halfExtents[(k + 2) % 3] : -inBox.halfExtents[(k + 2) % 3];
            Vec3d high = low;
            low[k] = -inBox.halfExtents[k];
            high[k] = inBox.halfExtents[k];
            edges.push_back({inBox.pose.Apply(low), inBox.pose.Apply(high)});
        }
    return edges;
}

// The distance between a triangle and a primitive they do not overlap (≤ 0 when they do), and the triangle's
// closest point: over the triangle's vertices, the primitive's corners or centre against the triangle, and
// its edges or axis against the triangle (TriangleGeometry's exact helpers).
double TriangleDistance(const Primitive& inPrimitive, const Tri& inT, Vec3d& outOnTriangle)
{
    const Vec3d(&t)[3] = reinterpret_cast<const Vec3d(&)[3]>(inT);
    double best = cInfinity;
    const auto consider = [&](double inDistance, const Vec3d& inOnTriangle)
    {
        if (inDistance < best)
        {
            best = inDistance;
            outOnTriangle = inOnTriangle;
        }
    };
    for (const Vec3d& v : inT)
        consider(PointDistance(inPrimitive, v), v);
    Vec3d onSegment, onTriangle;
    if (const auto* sphere = std::get_if<Sphere>(&inPrimitive))
    {
        const Vec3d closest = ClosestPointOnTriangle(sphere->center, t);
        consider((closest - sphere->center).norm() - sphere->radius, closest);
    }
    else if (const auto* capsule = std::get_if<Capsule>(&inPrimitive))
    {
        const double distance =
            ClosestPointsSegmentTriangle(capsule->a, capsule->b, t, onSegment, onTriangle);
        consider(distance - capsule->radius, onTriangle);
    }
    else if (const auto* box = std::get_if<OrientedBox>(&inPrimitive))
    {
        for (int corner = 0; corner < 8; ++corner)
        {
            const Vec3d signs((corner & 1) ? 1.0 : -1.0, (corner & 2) ? 1.0 : -1.0,
                              (corner & 4) ? 1.0 : -1.0);
            const Vec3d point = box->pose.Apply(signs.cwiseProduct(box->halfExtents));
            const Vec3d closest = ClosestPointOnTriangle(point, t);
            consider((closest - point).norm(), closest);
        }
        for (const auto& edge : BoxEdges(*box))
            consider(ClosestPointsSegmentTriangle(edge[0], edge[1], t, onSegment, onTriangle), onTriangle);
        // A triangle edge through the box, its ends outside: they overlap.
        for (int k = 0; k < 3; ++k)
            if (SegmentMeetsBox(*box, t[k], t[(k + 1) % 3]))
                consider(0.0, t[k]);
    }
    return best;
}

// The distance between two triangles (0 when they meet) and the first one's closest point.
double TrianglesDistance(const Tri& inA, const Tri& inB, Vec3d& outOnA)
{
    const Vec3d(&a)[3] = reinterpret_cast<const Vec3d(&)[3]>(inA);
    const Vec3d(&b)[3] = reinterpret_cast<const Vec3d(&)[3]>(inB);
    double best = cInfinity;
    Vec3d onSegment, onTriangle;
    for (int k = 0; k < 3; ++k)
    {
        double distance = ClosestPointsSegmentTriangle(a[k], a[(k + 1) % 3], b, onSegment, onTriangle);
        if (distance < best)
        {
            best = distance;
            outOnA = onSegment;
        }
        distance = ClosestPointsSegmentTriangle(b[k], b[(k + 1) % 3], a, onSegment, onTriangle);
        if (distance < best)
        {
            best = distance;
            outOnA = onTriangle;
        }
    }
    return best;
}

// ---- Fixtures ----

// A body with every proxy's patch placed (margin 0), and its deformed triangles in world by brute force.
struct PlacedBody
{
    test::QueryBody body;
    std::shared_ptr<const ProxyPatches> patches;
    SurfaceCache cache;
    std::vector<PlacedPatch> scratch;
    std::vector<PatchView> views;
    std::vector<Tri> triangles; // world, tree order
    double size = 0.0;
    double longestEdge = 0.0;

    PlacedBody(const char* inShape, std::uint32_t inLevel, double inAmplitude, std::mt19937& ioRandom,
               std::uint32_t inTriangles = 1200)
        : body(test::ShapeTree(inShape, inTriangles, 6), inLevel)
    {
        size = body.Size();
        EXPECT_TRUE(body.state->SetQ(test::RandomQ(6, inAmplitude * size, ioRandom)));
        body.pose.rotation = test::RandomRotation(ioRandom);
        body.pose.translation = test::RandomPoint(ioRandom, 2.0);
        Place();
    }

    // Places every patch and the world triangles for the body's current pose.
    void Place()
    {
        patches = std::make_shared<const ProxyPatches>(body.state->ProxiesPtr());
        views.clear();
        cache = SurfaceCache();
        const std::vector<std::uint32_t> proxies = test::ProxyNodes(body.state->Proxies());
        scratch.resize(proxies.size());
        for (std::size_t i = 0; i < proxies.size(); ++i)
            views.push_back(
                PlacePatch(body.Body(), *patches, proxies[i], cache, 0.0, 0.02 * size, scratch[i]));
        triangles = test::WorldTriangles(body);
        for (const Tri& t : triangles)
            for (int k = 0; k < 3; ++k)
                longestEdge = std::max(longestEdge, (t[k] - t[(k + 1) % 3]).norm());
    }

    // Where a contact's barycentric coordinates put its point on A's named triangle.
    Vec3d PointOn(std::uint32_t inTriangle, const Vec3d& inBary) const
    {
        const Tri& t = triangles[inTriangle];
        return inBary.x() * t[0] + inBary.y() * t[1] + inBary.z() * t[2];
    }
};

// What every contact must satisfy: barycentric coordinates on its triangle that give A's point, B's point on
// B's surface (`inOnB` its signed distance to B, within `inRoundSlack` more for a rounded end accepted within
// the cone slack), a unit normal, a distance in the band.
void ExpectSound(const PlacedBody& inA, const SurfaceContact& inContact, double inMaxDistance,
                 const std::function<double(const SurfaceContact&)>& inOnB, double inRoundSlack = 0.0)
{
    const double tolerance = 1e-8 * (inA.size + inContact.pointOnB.norm());
    ASSERT_LT(inContact.triangleA, inA.triangles.size());
    EXPECT_NEAR(inContact.barycentricA.sum(), 1.0, 1e-9);
    EXPECT_GE(inContact.barycentricA.minCoeff(), -1e-9);
    const Vec3d onA = inContact.pointOnB + inContact.distance * inContact.normal;
    EXPECT_LT((inA.PointOn(inContact.triangleA, inContact.barycentricA) - onA).norm(), tolerance);
    EXPECT_NEAR(inContact.normal.norm(), 1.0, 1e-12);
    EXPECT_LE(inContact.distance, inMaxDistance + tolerance);
    EXPECT_LT(std::abs(inOnB(inContact)), tolerance + inRoundSlack);
}

// The triangles within reach must each have a contact at least as close near their closest point: within the
// contact's reach over the surface (the primitive's size, the band and a few triangles).
void ExpectComplete(const PlacedBody& inA, const std::vector<SurfaceContact>& inContacts,
                    const std::vector<double>& inDistances, const std::vector<Vec3d>& inClosest,
                    double inMaxDistance, double inReach, const char* inWhat)
{
    int failures = 0;
    for (std::size_t t = 0; t < inDistances.size(); ++t)
    {
        if (!(inDistances[t] <= inMaxDistance && inDistances[t] > 0.0))
            continue;
        bool covered = false;
        for (const SurfaceContact& contact : inContacts)
        {
            const Vec3d onA = contact.pointOnB + contact.distance * contact.normal;
            if (contact.distance <= inDistances[t] + 1e-9 * inA.size &&
                (onA - inClosest[t]).norm() <= inReach)
            {
                covered = true;
                break;
            }
        }
        if (!covered && failures++ < 3)
            ADD_FAILURE() << inWhat << ": triangle " << t << " at " << inDistances[t]
                          << " has no contact as close";
    }
}

// Contacts of every patch of `ioA` with `inPrimitive` (no culling: the features' ownership is under test).
std::vector<SurfaceContact> AllPatchContacts(const PlacedBody& inA, const Primitive& inPrimitive,
                                             double inMaxDistance)
{
    std::vector<SurfaceContact> contacts;
    for (const PatchView& view : inA.views)
        std::visit([&](const auto& inShape) { PatchContacts(view, inShape, inMaxDistance, contacts); },
                   inPrimitive);
    return contacts;
}

// A primitive near the surface of `inA`: a random kind and size (a fraction of the body's size), placed
// `inGap` outside a random vertex along the vertex's direction from the body's centre.
Primitive NearPrimitive(const PlacedBody& inA, int inKind, double inGap, std::mt19937& ioRandom)
{
    const Tri& t = inA.triangles[std::size_t(test::Uniform(ioRandom, 0.0, double(inA.triangles.size())))];
    const Vec3d anchor = t[0];
    Vec3d outward = (t[1] - t[0]).cross(t[2] - t[0]);
    outward = outward.norm() > 0.0 ? Vec3d(outward.normalized()) : test::RandomDirection(ioRandom);
    const double r = inA.size * test::Uniform(ioRandom, 0.03, 0.2);
    switch (inKind)
    {
    case 0:
        return Plane{-outward, -outward.dot(anchor + inGap * outward)};
    case 1:
        return Sphere{anchor + (r + inGap) * outward, r};
    case 2:
    {
        const Vec3d along = test::RandomDirection(ioRandom).cross(outward).normalized();
        const Vec3d centre = anchor + (r + inGap) * outward;
        return Capsule{centre - 1.5 * r * along, centre + 1.5 * r * along, r};
    }
    default:
    {
        OrientedBox box;
        box.pose.rotation = test::RandomRotation(ioRandom);
        box.halfExtents = Vec3d(r, 0.6 * r, 1.3 * r);
        box.pose.translation = anchor + (1.5 * r + inGap) * outward;
        return box;
    }
    }
}

const char* KindName(int inKind)
{
    static const char* const cNames[] = {"plane", "sphere", "capsule", "box"};
    return cNames[inKind];
}

TEST(SurfaceContacts, PrimitivesFindTheExactClosestApproachAndCoverEveryTriangleWithinReach)
{
    std::mt19937 random(41);
    int placements = 0, contactsSeen = 0;
    for (const char* shape : {"box", "torus", "chair"})
        for (const double amplitude : {0.0, 0.05, 0.25})
            for (const std::uint32_t level : {3u, 7u})
            {
                PlacedBody a(shape, level, amplitude, random);
                for (int trial = 0; trial < 12; ++trial)
                {
                    const int kind = trial % 4;
                    const double maxDistance = 0.05 * a.size;
                    const Primitive primitive =
                        NearPrimitive(a, kind, test::Uniform(random, 0.0, 0.04) * a.size, random);
                    SCOPED_TRACE(std::string(shape) + ", " + KindName(kind) + ", amplitude " +
                                 std::to_string(amplitude) + ", level " + std::to_string(level));
                    const std::vector<SurfaceContact> contacts = AllPatchContacts(a, primitive, maxDistance);
                    std::vector<double> distances(a.triangles.size());
                    std::vector<Vec3d> closest(a.triangles.size());
                    double least = cInfinity;
                    for (std::size_t t = 0; t < a.triangles.size(); ++t)
                    {
                        distances[t] = TriangleDistance(primitive, a.triangles[t], closest[t]);
                        least = std::min(least, distances[t]);
                    }
                    // A capsule's end just past its cap (nearly parallel to a face) is measured from the
                    // end's ball: up to r(1 − cos θ) inside, θ the slack's angle.
                    const double roundSlack =
                        kind == 2 ? std::get<Capsule>(primitive).radius * cConeSlack * cConeSlack : 0.0;
                    for (const SurfaceContact& contact : contacts)
                        ExpectSound(
                            a, contact, maxDistance,
                            [&](const SurfaceContact& inContact)
                            { return PointDistance(primitive, inContact.pointOnB); },
                            roundSlack);
                    if (least <= 0.0)
                        continue; // overlapping: depths are the features', no closest approach to compare
                    double found = cInfinity;
                    for (const SurfaceContact& contact : contacts)
                        found = std::min(found, contact.distance);
                    if (least <= maxDistance)
                    {
                        EXPECT_NEAR(found, least, 1e-9 * a.size);
                        ++placements;
                    }
                    else
                        EXPECT_TRUE(contacts.empty());
                    const double reach = (kind == 0 ? cInfinity : 0.5 * a.size) + 2.0 * a.longestEdge;
                    ExpectComplete(a, contacts, distances, closest, maxDistance, reach, KindName(kind));
                    contactsSeen += int(contacts.size());
                }
            }
    EXPECT_GT(placements, 100);
    EXPECT_GT(contactsSeen, 500);
}

// ---- Two meshes ----

// The closest approach of every triangle of `inA` to the triangles of `inB` within `inReach` (boxes grown by
// it first), and its closest point on A's triangle; +∞ beyond the reach.
void TriangleApproaches(const std::vector<Tri>& inA, const std::vector<Tri>& inB, double inReach,
                        std::vector<double>& outDistances, std::vector<Vec3d>& outClosest)
{
    outDistances.assign(inA.size(), cInfinity);
    outClosest.assign(inA.size(), Vec3d::Zero());
    const auto box = [](const Tri& inT)
    { return std::pair(inT[0].cwiseMin(inT[1]).cwiseMin(inT[2]), inT[0].cwiseMax(inT[1]).cwiseMax(inT[2])); };
    std::vector<std::pair<Vec3d, Vec3d>> boxesB;
    for (const Tri& t : inB)
        boxesB.push_back(box(t));
    for (std::size_t i = 0; i < inA.size(); ++i)
    {
        const auto [low, high] = box(inA[i]);
        for (std::size_t j = 0; j < inB.size(); ++j)
        {
            if (((low.array() - inReach) > boxesB[j].second.array()).any() ||
                ((boxesB[j].first.array() - inReach) > high.array()).any())
                continue;
            Vec3d onA;
            const double distance = TrianglesDistance(inA[i], inB[j], onA);
            if (distance < outDistances[i])
            {
                outDistances[i] = distance;
                outClosest[i] = onA;
            }
        }
    }
}

double Least(const std::vector<double>& inValues)
{
    return inValues.empty() ? cInfinity : *std::min_element(inValues.begin(), inValues.end());
}

// Moves body B along `inDirection` until its closest approach to A is `inGap` (bisection on the offset).
void PlaceAtGap(const PlacedBody& inA, PlacedBody& ioB, const Vec3d& inDirection, double inGap)
{
    const Vec3d start = inA.body.WorldCenter();
    double near = 0.0, far = 4.0 * (inA.size + ioB.size);
    std::vector<double> distances;
    std::vector<Vec3d> closest;
    for (int step = 0; step < 40; ++step)
    {
        const double offset = 0.5 * (near + far);
        ioB.body.pose.translation =
            start + offset * inDirection -
            ioB.body.pose.rotation * ioB.body.tree->GetModel().RestBounds().center().cast<double>();
        ioB.triangles = test::WorldTriangles(ioB.body);
        TriangleApproaches(inA.triangles, ioB.triangles, inGap, distances, closest);
        (Least(distances) < inGap ? near : far) = offset;
    }
    ioB.body.pose.translation =
        start + far * inDirection -
        ioB.body.pose.rotation * ioB.body.tree->GetModel().RestBounds().center().cast<double>();
    ioB.Place();
}

// The contacts of every pair of patches of A and B whose bounds come within the reach (what the culling hands
// over).
std::vector<SurfaceContact> AllPatchPairContacts(const PlacedBody& inA, const PlacedBody& inB,
                                                 double inMaxDistance)
{
    std::vector<SurfaceContact> contacts;
    for (const PatchView& a : inA.views)
        for (const PatchView& b : inB.views)
        {
            if ((a.bound.center - b.bound.center).norm() <= a.bound.radius + b.bound.radius + inMaxDistance)
                PatchContacts(a, b, inMaxDistance, contacts);
        }
    return contacts;
}

// A body pressed past the middle of a thin box (a floor) is nearer the box's far face, which its bottom does not
// face: told where the body's centre is, the box pushes its bottom back out through the near face, however
// deep, with the exact depth below that face; never out through the far face.
TEST(SurfaceContacts, ABodyDeepInAThinBoxLeavesOnItsOwnSide)
{
    std::mt19937 random(5);
    PlacedBody a("box", 4, 0.0, random, 600);
    a.body.pose.rotation = Mat3d::Identity();
    a.body.pose.translation = Vec3d::Zero();
    a.Place();
    double low = cInfinity;
    Vec3d centre = Vec3d::Zero();
    for (const Tri& t : a.triangles)
        for (const Vec3d& v : t)
        {
            low = std::min(low, v.y());
            centre += v / (3.0 * double(a.triangles.size()));
        }
    const double thickness = 0.1 * a.size;
    OrientedBox floor;
    floor.halfExtents = Vec3d(10.0 * a.size, 0.5 * thickness, 10.0 * a.size);
    const double top = low + 0.7 * thickness; // the body's bottom 0.7 of the thickness below the top face
    floor.pose.translation = Vec3d(0.0, top - 0.5 * thickness, 0.0);
    for (const bool known : {false, true})
    {
        std::vector<SurfaceContact> contacts;
        for (PatchView view : a.views)
        {
            if (known)
                view.bodyCentre = centre;
            PatchContacts(view, floor, 0.01 * a.size, contacts);
        }
        int bottom = 0;
        for (const SurfaceContact& contact : contacts)
        {
            EXPECT_GT(contact.normal.y(), 0.999) << "pushed out through the far face";
            const Vec3d onA = contact.pointOnB + contact.distance * contact.normal;
            EXPECT_NEAR(contact.distance, onA.y() - top, 1e-9 * a.size) << "the depth below the near face";
            bottom += std::abs(onA.y() - low) < 1e-9 * a.size ? 1 : 0;
        }
        if (known)
        {
            EXPECT_GT(bottom, 3) << "the bottom face's vertices are pushed back up";
        }
        else
        {
            EXPECT_EQ(bottom, 0) << "nearer the far face, which they do not face: no contact";
        }
    }
}

TEST(SurfaceContacts, TwoDeformedMeshesFindTheExactClosestApproachAndCoverEveryTriangleWithinReach)
{
    std::mt19937 random(43);
    int placements = 0;
    for (const char* shapeB : {"box", "torus", "chair"})
        for (const double amplitude : {0.0, 0.1, 0.25})
        {
            PlacedBody a("torus", 5, amplitude, random, 500);
            PlacedBody b(shapeB, 4, amplitude, random, 500);
            for (int trial = 0; trial < 4; ++trial)
            {
                SCOPED_TRACE(std::string("torus against ") + shapeB + ", amplitude " +
                             std::to_string(amplitude));
                const double maxDistance = 0.05 * a.size;
                b.body.pose.rotation = test::RandomRotation(random);
                PlaceAtGap(a, b, test::RandomDirection(random),
                           test::Uniform(random, 0.1, 0.9) * maxDistance);
                const std::vector<SurfaceContact> contacts = AllPatchPairContacts(a, b, maxDistance);
                for (const SurfaceContact& contact : contacts)
                {
                    ExpectSound(a, contact, maxDistance,
                                [&](const SurfaceContact& inContact)
                                {
                                    return inContact.triangleB < b.triangles.size()
                                               ? (b.PointOn(inContact.triangleB, inContact.barycentricB) -
                                                  inContact.pointOnB)
                                                     .norm()
                                               : cInfinity;
                                });
                    EXPECT_GT(contact.distance, 0.0); // the bodies are apart
                }
                std::vector<double> distances;
                std::vector<Vec3d> closest;
                TriangleApproaches(a.triangles, b.triangles, maxDistance, distances, closest);
                double found = cInfinity;
                for (const SurfaceContact& contact : contacts)
                    found = std::min(found, contact.distance);
                EXPECT_NEAR(found, Least(distances), 1e-9 * a.size);
                ExpectComplete(a, contacts, distances, closest, maxDistance,
                               2.0 * (maxDistance + a.longestEdge + b.longestEdge), shapeB);
                ++placements;
            }
        }
    EXPECT_EQ(placements, 36);
}

TEST(SurfaceContacts, StaticTrianglesFindTheExactClosestApproachAndCoverEveryTriangleWithinReach)
{
    std::mt19937 random(47);
    for (const char* shapeA : {"box", "torus", "chair"})
        for (const double amplitude : {0.0, 0.1})
        {
            PlacedBody a(shapeA, 5, amplitude, random, 500);
            // The static mesh: a deformed curtain (an open sheet, as a level's floor or wall is).
            PlacedBody floor("curtain", 4, 0.1, random, 400);
            for (int trial = 0; trial < 4; ++trial)
            {
                SCOPED_TRACE(std::string(shapeA) + " against a static sheet, amplitude " +
                             std::to_string(amplitude));
                const double maxDistance = 0.05 * a.size;
                floor.body.pose.rotation = test::RandomRotation(random);
                PlaceAtGap(a, floor, test::RandomDirection(random),
                           test::Uniform(random, 0.1, 0.9) * maxDistance);
                std::vector<SoupTriangle> soup;
                for (const Tri& t : floor.triangles)
                    soup.push_back({{t[0], t[1], t[2]}});
                std::vector<SurfaceContact> contacts;
                for (const PatchView& view : a.views)
                    PatchContacts(view, soup, 0.0, maxDistance, contacts);
                for (const SurfaceContact& contact : contacts)
                    ExpectSound(a, contact, maxDistance,
                                [&](const SurfaceContact& inContact)
                                {
                                    return inContact.triangleB < floor.triangles.size()
                                               ? (floor.PointOn(inContact.triangleB, inContact.barycentricB) -
                                                  inContact.pointOnB)
                                                     .norm()
                                               : cInfinity;
                                });
                std::vector<double> distances;
                std::vector<Vec3d> closest;
                TriangleApproaches(a.triangles, floor.triangles, maxDistance, distances, closest);
                double found = cInfinity;
                for (const SurfaceContact& contact : contacts)
                    found = std::min(found, contact.distance);
                EXPECT_NEAR(found, Least(distances), 1e-9 * a.size);
                ExpectComplete(a, contacts, distances, closest, maxDistance,
                               2.0 * (maxDistance + a.longestEdge + floor.longestEdge), shapeA);
            }
        }
}

} // namespace
} // namespace bdt
