#include "support/QueryOracles.h"
#include "support/TestModels.h"

#include "core/geometry/TriangleGeometry.h"

#include <algorithm>
#include <bdt/core/queries/TreeQueries.h>
#include <cmath>
#include <gtest/gtest.h>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace bdt
{
namespace
{

using namespace test;

const double cAmplitudes[] = {1e-4, 1e-2, 0.1, 0.3, 0.5};

// ---- Tree vs primitive ----

// Primitives near the deformed surface of a body: around a random deformed vertex, sized relative to the
// body.
Sphere NearSphere(const std::vector<Tri>& inTriangles, double inSize, std::mt19937& ioRandom)
{
    const Tri& t = inTriangles[ioRandom() % inTriangles.size()];
    return {t[0] + Uniform(ioRandom, 0, 0.2) * inSize * RandomDirection(ioRandom),
            Uniform(ioRandom, 0.02, 0.3) * inSize};
}

Plane NearPlane(const std::vector<Tri>& inTriangles, std::mt19937& ioRandom)
{
    const Tri& t = inTriangles[ioRandom() % inTriangles.size()];
    const Vec3d normal = RandomDirection(ioRandom);
    return {normal, normal.dot(t[0])};
}

OrientedBox NearBox(const std::vector<Tri>& inTriangles, double inSize, std::mt19937& ioRandom)
{
    const Tri& t = inTriangles[ioRandom() % inTriangles.size()];
    OrientedBox box;
    box.pose.rotation = RandomRotation(ioRandom);
    box.pose.translation = t[1] + Uniform(ioRandom, 0, 0.2) * inSize * RandomDirection(ioRandom);
    box.halfExtents = inSize * Vec3d(Uniform(ioRandom, 0.02, 0.3), Uniform(ioRandom, 0.02, 0.3),
                                     Uniform(ioRandom, 0.02, 0.3));
    return box;
}

Capsule NearCapsule(const std::vector<Tri>& inTriangles, double inSize, std::mt19937& ioRandom)
{
    const Tri& t = inTriangles[ioRandom() % inTriangles.size()];
    const Vec3d axis = Uniform(ioRandom, 0, 0.4) * inSize * RandomDirection(ioRandom);
    return {t[2] - axis, t[2] + axis, Uniform(ioRandom, 0.01, 0.15) * inSize};
}

std::optional<TriangleContact> ContactOf(const Tri& inT, const Sphere& inP)
{
    const Vec3d v[3] = {inT[0], inT[1], inT[2]};
    return TriangleSphereContact(v, inP);
}
std::optional<TriangleContact> ContactOf(const Tri& inT, const Plane& inP)
{
    const Vec3d v[3] = {inT[0], inT[1], inT[2]};
    return TrianglePlaneContact(v, inP);
}
std::optional<TriangleContact> ContactOf(const Tri& inT, const OrientedBox& inP)
{
    const Vec3d v[3] = {inT[0], inT[1], inT[2]};
    return TriangleBoxContact(v, inP);
}
std::optional<TriangleContact> ContactOf(const Tri& inT, const Capsule& inP)
{
    const Vec3d v[3] = {inT[0], inT[1], inT[2]};
    return TriangleCapsuleContact(v, inP);
}

// Leaf level equals brute force over all triangles (same contacts); the proxy levels cover every contact.
template <class Primitive>
std::uint64_t ExpectPrimitiveQueries(QueryBody& ioBody, const std::vector<Tri>& inTriangles,
                                     const Primitive& inPrimitive, const std::string& inContext)
{
    std::vector<TriangleContact> expected;
    for (std::uint32_t t = 0; t < inTriangles.size(); ++t)
        if (auto contact = ContactOf(inTriangles[t], inPrimitive))
        {
            contact->triangle = t;
            expected.push_back(*contact);
        }
    std::vector<TriangleContact> found;
    QueryStats stats;
    CollideTriangles(ioBody.Body(), inPrimitive, found, stats);
    std::sort(found.begin(), found.end(),
              [](const auto& inL, const auto& inR) { return inL.triangle < inR.triangle; });
    EXPECT_EQ(stats.contacts, found.size()) << inContext;
    EXPECT_EQ(found.size(), expected.size()) << inContext;
    if (found.size() != expected.size())
        return 0;
    for (std::size_t k = 0; k < found.size(); ++k)
    {
        EXPECT_EQ(found[k].triangle, expected[k].triangle) << inContext;
        EXPECT_EQ(found[k].point, expected[k].point) << inContext;
        EXPECT_EQ(found[k].normal, expected[k].normal) << inContext;
        EXPECT_EQ(found[k].depth, expected[k].depth) << inContext;
        EXPECT_NEAR(found[k].normal.norm(), 1.0, 1e-12) << inContext;
        EXPECT_GE(found[k].depth, 0.0) << inContext;
    }
    const std::uint32_t levels[] = {2, 4, 6};
    for (std::uint32_t level : levels)
    {
        ioBody.SetLevel(level);
        std::vector<ProxyContact> proxies;
        CollideProxies(ioBody.Body(), inPrimitive, proxies, stats);
        std::set<std::uint32_t> nodes;
        for (const ProxyContact& contact : proxies)
        {
            EXPECT_TRUE(ioBody.state->Proxies().IsProxy(contact.nodeA)) << inContext;
            EXPECT_EQ(contact.nodeB, cNoIndex);
            EXPECT_NEAR(contact.normal.norm(), 1.0, 1e-12) << inContext;
            EXPECT_GE(contact.depth, 0.0) << inContext;
            EXPECT_TRUE(nodes.insert(contact.nodeA).second) << inContext << ": duplicate proxy";
        }
        for (const TriangleContact& contact : expected)
            EXPECT_TRUE(nodes.count(ProxyOf(ioBody.state->Proxies(), contact.triangle)))
                << inContext << " L=" << level << ": triangle " << contact.triangle
                << " not under a proxy contact";
    }
    return expected.size();
}

TEST(CollidePrimitives, LeafLevelEqualsBruteForceAndProxiesCoverIt)
{
    std::mt19937 random(24);
    std::uint64_t contacts[4] = {0, 0, 0, 0};
    for (const char* shape : {"chair", "torus", "sphere"})
    {
        QueryBody body(test::ShapeTree(shape, 1000, 6), 3);
        for (double amplitude : cAmplitudes)
        {
            for (int trial = 0; trial < 3; ++trial)
            {
                ASSERT_TRUE(body.state->SetQ(test::RandomQ(6, amplitude * body.Size(), random)));
                body.pose.rotation = RandomRotation(random);
                body.pose.translation =
                    Vec3d(Uniform(random, -3, 3), Uniform(random, -3, 3), Uniform(random, -3, 3));
                body.SetLevel(100);
                const auto triangles = WorldTriangles(body);
                const double size = body.Size();
                const std::string context = std::string(shape) + " amplitude " + std::to_string(amplitude);
                contacts[0] += ExpectPrimitiveQueries(body, triangles, NearSphere(triangles, size, random),
                                                      context + " sphere");
                contacts[1] +=
                    ExpectPrimitiveQueries(body, triangles, NearPlane(triangles, random), context + " plane");
                contacts[2] += ExpectPrimitiveQueries(body, triangles, NearBox(triangles, size, random),
                                                      context + " box");
                contacts[3] += ExpectPrimitiveQueries(body, triangles, NearCapsule(triangles, size, random),
                                                      context + " capsule");
            }
        }
    }
    for (std::uint64_t count : contacts)
        EXPECT_GT(count, 100u);
    std::cout << "[ info ] triangle contacts checked: sphere " << contacts[0] << ", plane " << contacts[1]
              << ", box " << contacts[2] << ", capsule " << contacts[3] << "\n";
}

TEST(CollidePrimitives, ProxyContactsAreConsistentWithTheirSpheres)
{
    QueryBody body(test::ShapeTree("sphere", 400, 4), 3);
    std::mt19937 random(25);
    ASSERT_TRUE(body.state->SetQ(test::RandomQ(4, 0.05 * body.Size(), random)));
    const Sphere ball{Vec3d(0.8, 0.3, 0.1), 0.5};
    std::vector<ProxyContact> contacts;
    QueryStats stats;
    CollideProxies(body.Body(), ball, contacts, stats);
    ASSERT_FALSE(contacts.empty());
    for (const ProxyContact& contact : contacts)
    {
        const Sphere node = WorldNodeSphere(body, contact.nodeA);
        const double distance = (node.center - ball.center).norm();
        EXPECT_NEAR(contact.depth, std::max(0.0, node.radius + ball.radius - distance), 1e-12);
        EXPECT_NEAR((contact.normal - (node.center - ball.center) / distance).norm(), 0.0, 1e-12);
        // Midway between the deepest points of the two spheres.
        const Vec3d expectedPoint =
            0.5 * (node.center - node.radius * contact.normal + ball.center + ball.radius * contact.normal);
        EXPECT_NEAR((contact.point - expectedPoint).norm(), 0.0, 1e-12);
    }
    // A half-space: the contact point lies midway between the sphere's lowest point and the plane.
    const double low = body.tree->GetModel().RestBounds().min().y();
    const Plane floor{Vec3d::UnitY(), low + 0.1 * body.Size()};
    contacts.clear();
    CollideProxies(body.Body(), floor, contacts, stats);
    ASSERT_FALSE(contacts.empty());
    for (const ProxyContact& contact : contacts)
    {
        const Sphere node = WorldNodeSphere(body, contact.nodeA);
        EXPECT_EQ(contact.normal, Vec3d::UnitY());
        EXPECT_NEAR(contact.depth, std::max(0.0, node.radius - (node.center.y() - floor.offset)), 1e-12);
        EXPECT_NEAR(contact.point.y(), 0.5 * ((node.center.y() - node.radius) + floor.offset), 1e-12);
    }
}

} // namespace
} // namespace bdt
