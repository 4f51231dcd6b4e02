#include "support/QueryOracles.h"
#include "support/TestModels.h"

#include <algorithm>
#include <bdt/core/model/ProceduralShapes.h>
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

// Random q and a random pose of B such that its surface crosses A's.
void Randomise(QueryBody& ioA, QueryBody& ioB, double inAmplitude, std::mt19937& ioRandom)
{
    ASSERT_TRUE(ioA.state->SetQ(test::RandomQ(ioA.tree->ModeCount(), inAmplitude * ioA.Size(), ioRandom)));
    ASSERT_TRUE(ioB.state->SetQ(test::RandomQ(ioB.tree->ModeCount(), inAmplitude * ioB.Size(), ioRandom)));
    ioA.pose.rotation = RandomRotation(ioRandom);
    ioA.pose.translation =
        Vec3d(Uniform(ioRandom, -5, 5), Uniform(ioRandom, -5, 5), Uniform(ioRandom, -5, 5));
    ioB.pose.rotation = RandomRotation(ioRandom);
    const Vec3d restCenterB = ioB.tree->GetModel().RestBounds().center().cast<double>();
    const double distance = Uniform(ioRandom, 0.3, 1.1) * 0.6 * (ioA.Size() + ioB.Size());
    const Vec3d target = ioA.WorldCenter() + distance * RandomDirection(ioRandom);
    ioB.pose.translation = target - ioB.pose.rotation * restCenterB;
}

// ---- Tree vs tree ----

struct PairCase
{
    const char* shapeA;
    std::uint32_t trianglesA;
    std::uint32_t modesA;
    const char* shapeB;
    std::uint32_t trianglesB;
    std::uint32_t modesB;
};

const PairCase cPairCases[] = {
    {"sphere", 600, 4, "torus", 800, 6},
    {"chair", 1500, 10, "box", 300, 3},
    {"torus", 1000, 8, "torus", 1000, 8},
    {"box", 500, 5, "chair", 1200, 7},
};

const double cAmplitudes[] = {1e-4, 1e-2, 0.1, 0.3, 0.5};

TEST(CollideTriangles, TreeVsTreeFindsExactlyTheBruteForcePairs)
{
    std::mt19937 random(21);
    std::uint64_t pairsChecked = 0, configurations = 0, candidatePairs = 0;
    for (const PairCase& c : cPairCases)
    {
        QueryBody a(test::ShapeTree(c.shapeA, c.trianglesA, c.modesA), 3);
        QueryBody b(test::ShapeTree(c.shapeB, c.trianglesB, c.modesB), 100);
        for (double amplitude : cAmplitudes)
        {
            for (int trial = 0; trial < 4; ++trial)
            {
                a.state->SetBound(trial % 2 == 0 ? EBound::Tight : EBound::Paper);
                Randomise(a, b, amplitude, random);
                const auto expected = BruteForcePairs(WorldTriangles(a), WorldTriangles(b));
                std::vector<TrianglePair> found;
                QueryStats stats;
                CollideTriangles(a.Body(), b.Body(), found, stats);
                std::sort(found.begin(), found.end());
                ASSERT_EQ(std::adjacent_find(found.begin(), found.end()), found.end()) << "duplicate pair";
                ASSERT_EQ(found, expected) << c.shapeA << " vs " << c.shapeB << " amplitude " << amplitude;
                EXPECT_EQ(stats.contacts, found.size());
                EXPECT_GE(stats.triangleTests, found.size());
                pairsChecked += expected.size();
                candidatePairs += a.tree->GetModel().TriangleCount() * b.tree->GetModel().TriangleCount();
                ++configurations;
            }
        }
    }
    // Enough intersecting pairs that the comparison means something.
    EXPECT_GT(pairsChecked, 2000u);
    std::cout << "[ info ] " << configurations << " configurations, " << pairsChecked
              << " intersecting pairs, " << candidatePairs << " triangle pairs covered by brute force\n";
}

TEST(CollideTriangles, LeavesWithSeveralTrianglesAndTemporalCoherence)
{
    ShapeMesh mesh = MakeShape(*ShapeFromName("torus"), 900);
    BDTreeSettings settings;
    settings.maxLeafTriangles = 4;
    const auto tree = std::make_shared<const BDTree>(
        BDTree::Build(test::SmoothModel(std::move(mesh.positions), std::move(mesh.triangles), 6), settings));
    ASSERT_GT(tree->Node(tree->NodeCount() - 1).triangleCount, 1u);
    QueryBody a(tree, 4);
    QueryBody b(test::ShapeTree("sphere", 500, 5), 4);
    a.state->SetTemporalCoherence(true, 0.05f);
    std::mt19937 random(22);
    std::uint64_t pairsChecked = 0;
    for (double amplitude : cAmplitudes)
    {
        Randomise(a, b, amplitude, random);
        // A small change of q so eq. 11's enlargement is in play for A.
        std::vector<float> q(a.state->Q().begin(), a.state->Q().end());
        for (float& value : q)
            value += static_cast<float>(1e-4 * a.Size());
        ASSERT_TRUE(a.state->SetQ(q));
        const auto expected = BruteForcePairs(WorldTriangles(a), WorldTriangles(b));
        std::vector<TrianglePair> found;
        QueryStats stats;
        CollideTriangles(a.Body(), b.Body(), found, stats);
        std::sort(found.begin(), found.end());
        ASSERT_EQ(found, expected) << "amplitude " << amplitude;
        pairsChecked += expected.size();
    }
    EXPECT_GT(pairsChecked, 100u);
}

TEST(CollideTriangles, ExactlyTouchingBodiesAreFoundWithoutMisses)
{
    // Two copies of one deformed body at one pose: every triangle touches itself (coplanar) and each of its
    // neighbours (shared vertices and edges), all with zero clearance. Then two undeformed boxes whose faces
    // coincide exactly: coplanar overlapping triangles on the common face.
    std::uint64_t pairsChecked = 0;
    std::mt19937 random(30);
    for (const char* shape : {"sphere", "chair"})
    {
        const auto tree = test::ShapeTree(shape, 500, 5);
        QueryBody a(tree, 3);
        QueryBody b(tree, 6);
        const auto q = test::RandomQ(5, 0.05 * a.Size(), random);
        ASSERT_TRUE(a.state->SetQ(q));
        ASSERT_TRUE(b.state->SetQ(q));
        a.pose.rotation = b.pose.rotation = RandomRotation(random);
        a.pose.translation = b.pose.translation = Vec3d(0.3, -1.7, 2.9);
        const auto expected = BruteForcePairs(WorldTriangles(a), WorldTriangles(b));
        ASSERT_GE(expected.size(), 4 * tree->GetModel().TriangleCount()); // itself + at least 3 neighbours
        std::vector<TrianglePair> found;
        QueryStats stats;
        CollideTriangles(a.Body(), b.Body(), found, stats);
        std::sort(found.begin(), found.end());
        ASSERT_EQ(found, expected) << shape;
        pairsChecked += expected.size();
    }
    const auto box = test::ShapeTree("box", 400, 3);
    QueryBody a(box, 4);
    QueryBody b(box, 4);
    const Eigen::AlignedBox3f bounds = box->GetModel().RestBounds();
    b.pose.translation = Vec3d(double(bounds.max().x()) - double(bounds.min().x()), 0, 0);
    const auto expected = BruteForcePairs(WorldTriangles(a), WorldTriangles(b));
    EXPECT_GT(expected.size(), 50u);
    std::vector<TrianglePair> found;
    QueryStats stats;
    CollideTriangles(a.Body(), b.Body(), found, stats);
    std::sort(found.begin(), found.end());
    ASSERT_EQ(found, expected) << "boxes face to face";
    pairsChecked += expected.size();
    std::cout << "[ info ] " << pairsChecked << " exactly touching pairs checked\n";
}

// Checks the proxy contacts of A vs B at the state's current proxy levels against brute force.
void ExpectProxyContactsComplete(QueryBody& ioA, QueryBody& ioB, const std::vector<TrianglePair>& inPairs,
                                 const std::string& inContext, std::uint64_t& ioProxyPairs)
{
    std::vector<ProxyContact> contacts;
    QueryStats stats;
    CollideProxies(ioA.Body(), ioB.Body(), contacts, stats);
    std::set<std::pair<std::uint32_t, std::uint32_t>> reported;
    for (const ProxyContact& contact : contacts)
    {
        ASSERT_TRUE(ioA.state->Proxies().IsProxy(contact.nodeA)) << inContext;
        ASSERT_TRUE(ioB.state->Proxies().IsProxy(contact.nodeB)) << inContext;
        ASSERT_TRUE(reported.insert({contact.nodeA, contact.nodeB}).second) << inContext << ": duplicate";
        EXPECT_NEAR(contact.normal.norm(), 1.0, 1e-12);
        EXPECT_GE(contact.depth, 0.0);
        // Consistent with the spheres: depth = rA + rB − distance, normal from B to A.
        const Sphere sa = WorldNodeSphere(ioA, contact.nodeA);
        const Sphere sb = WorldNodeSphere(ioB, contact.nodeB);
        EXPECT_NEAR(contact.depth, std::max(0.0, sa.radius + sb.radius - (sa.center - sb.center).norm()),
                    1e-9 * (sa.radius + sb.radius));
        EXPECT_GE(contact.normal.dot(sa.center - sb.center), -1e-12);
    }
    EXPECT_EQ(stats.contacts, contacts.size());
    // Every intersecting triangle pair lies under a reported proxy pair.
    for (const TrianglePair& pair : inPairs)
    {
        const auto key = std::make_pair(ProxyOf(ioA.state->Proxies(), pair.triangleA),
                                        ProxyOf(ioB.state->Proxies(), pair.triangleB));
        ASSERT_TRUE(reported.count(key)) << inContext << ": triangles " << pair.triangleA << ", "
                                         << pair.triangleB << " under unreported proxies";
    }
    // Every pair of overlapping proxy spheres (brute force over all proxy pairs, no slack) is reported.
    for (std::uint32_t na : ProxyNodes(ioA.state->Proxies()))
    {
        const Sphere sa = WorldNodeSphere(ioA, na);
        for (std::uint32_t nb : ProxyNodes(ioB.state->Proxies()))
        {
            const Sphere sb = WorldNodeSphere(ioB, nb);
            if ((sa.center - sb.center).norm() <= sa.radius + sb.radius)
            {
                ASSERT_TRUE(reported.count({na, nb})) << inContext << ": proxies " << na << ", " << nb;
                ++ioProxyPairs;
            }
        }
    }
}

TEST(CollideProxies, TreeVsTreeCoversEveryIntersectingPairAndEveryOverlappingProxyPair)
{
    std::mt19937 random(23);
    std::uint64_t proxyPairs = 0, trianglePairs = 0;
    for (const PairCase& c : cPairCases)
    {
        QueryBody a(test::ShapeTree(c.shapeA, c.trianglesA, c.modesA), 2);
        QueryBody b(test::ShapeTree(c.shapeB, c.trianglesB, c.modesB), 2);
        for (double amplitude : cAmplitudes)
        {
            Randomise(a, b, amplitude, random);
            const auto pairs = BruteForcePairs(WorldTriangles(a), WorldTriangles(b));
            trianglePairs += pairs.size();
            for (std::uint32_t level : {2u, 4u, 6u})
            {
                a.SetLevel(level);
                b.SetLevel(level == 4 ? 6 : level); // also mixed levels
                const std::string context = std::string(c.shapeA) + " vs " + c.shapeB +
                                            " L=" + std::to_string(level) + " amplitude " +
                                            std::to_string(amplitude);
                ExpectProxyContactsComplete(a, b, pairs, context, proxyPairs);
            }
        }
    }
    EXPECT_GT(proxyPairs, 500u);
    EXPECT_GT(trianglePairs, 1000u);
    std::cout << "[ info ] " << trianglePairs << " triangle pairs and " << proxyPairs
              << " overlapping proxy pairs checked\n";
}

// The descent culls in float in A's frame (B mapped by the relative scale and pose, inflates folded in): with
// unequal scales, inflates and bodies far from the world origin, the contacts are still exactly the proxy
// pairs whose world spheres overlap, brute force in double: none missing, none apart by more than rounding.
TEST(CollideProxies, ScaledInflatedAndFarFromTheOriginEqualsBruteForce)
{
    std::mt19937 random(31);
    std::uint64_t proxyPairs = 0;
    QueryBody a(test::ShapeTree("chair", 1500, 10), 6);
    QueryBody b(test::ShapeTree("torus", 1000, 8), 7);
    for (const Vec3d& offset : {Vec3d(0, 0, 0), Vec3d(1.0e4, -3.0e3, 5.0e2)})
    {
        for (double amplitude : {1e-3, 0.1, 0.4})
        {
            Randomise(a, b, amplitude, random);
            a.pose.translation += offset;
            b.pose.translation += offset;
            DeformedBody bodyA = a.Body();
            DeformedBody bodyB = b.Body();
            bodyA.scale = 0.7;
            bodyB.scale = 1.9;
            // Scaled about each body's origin: B is put back near A so they still cross.
            b.pose.translation = bodyA.pose.Apply(bodyA.scale * a.tree->GetModel().RestBounds().center().cast<double>()) -
                                 b.pose.rotation * (bodyB.scale * b.tree->GetModel().RestBounds().center().cast<double>()) +
                                 0.4 * a.Size() * bodyA.scale * RandomDirection(random);
            bodyB.pose = b.pose;
            bodyA.inflate = 0.01 * a.Size();
            bodyB.inflate = 0.003 * a.Size();
            std::vector<ProxyContact> contacts;
            QueryStats stats;
            CollideProxies(bodyA, bodyB, contacts, stats);
            std::set<std::pair<std::uint32_t, std::uint32_t>> reported;
            for (const ProxyContact& contact : contacts)
                ASSERT_TRUE(reported.insert({contact.nodeA, contact.nodeB}).second);
            const auto worldSphere = [](const DeformedBody& inBody, std::uint32_t inNode)
            {
                const UpdatedSphere s = inBody.state->Sphere(inNode);
                return Sphere{inBody.pose.Apply(inBody.scale * Vec3d(s.center[0], s.center[1], s.center[2])),
                              inBody.scale * s.radius + inBody.inflate};
            };
            std::size_t overlapping = 0;
            for (std::uint32_t na : ProxyNodes(a.state->Proxies()))
            {
                const Sphere sa = worldSphere(bodyA, na);
                for (std::uint32_t nb : ProxyNodes(b.state->Proxies()))
                {
                    const Sphere sb = worldSphere(bodyB, nb);
                    const double distance = (sa.center - sb.center).norm();
                    const double reach = sa.radius + sb.radius;
                    if (distance <= reach)
                    {
                        ++overlapping;
                        ASSERT_TRUE(reported.count({na, nb})) << "offset " << offset.x() << ": proxies " << na
                                                              << ", " << nb << " overlap but were not reported";
                    }
                    else if (reported.count({na, nb}) != 0)
                    {
                        ASSERT_LE(distance, reach + 1e-8 * (reach + offset.norm()))
                            << "reported proxies " << na << ", " << nb << " are apart";
                    }
                }
            }
            EXPECT_GE(reported.size(), overlapping);
            proxyPairs += overlapping;
        }
    }
    EXPECT_GT(proxyPairs, 200u);
    std::cout << "[ info ] " << proxyPairs << " overlapping proxy pairs checked\n";
}

} // namespace
} // namespace bdt

namespace bdt
{
namespace
{

using namespace test;

// True when `inAncestor` is `inNode` or above it in `inTree`.
bool Covers(const BDTree& inTree, std::uint32_t inAncestor, std::uint32_t inNode)
{
    const BDTreeNode& a = inTree.Node(inAncestor);
    const BDTreeNode& n = inTree.Node(inNode);
    return a.level <= n.level && n.firstTriangle >= a.firstTriangle &&
           n.firstTriangle + n.triangleCount <= a.firstTriangle + a.triangleCount;
}

// The interruptible traversal (Mendoza & O'Sullivan): with a budget it never needs, exactly the contacts of the
// full descent; with any budget, never more tests than the budget, and every proxy pair the full descent
// reports is reported too or lies under the two nodes of an approximate contact.
TEST(CollideProxies, InterruptibleTraversalKeepsItsBudgetAndCoversEveryContact)
{
    std::mt19937 random(31);
    std::uint64_t covered = 0, interruptions = 0, approximate = 0;
    for (const PairCase& c : cPairCases)
    {
        QueryBody a(test::ShapeTree(c.shapeA, c.trianglesA, c.modesA), 6);
        QueryBody b(test::ShapeTree(c.shapeB, c.trianglesB, c.modesB), 5);
        for (double amplitude : cAmplitudes)
        {
            Randomise(a, b, amplitude, random);
            std::vector<ProxyContact> full;
            QueryStats fullStats;
            CollideProxies(a.Body(), b.Body(), full, fullStats);
            const auto key = [](const ProxyContact& inContact) { return std::make_pair(inContact.nodeA, inContact.nodeB); };

            // Unlimited in effect: the same contacts, bit for bit, and the same tests.
            std::vector<ProxyContact> unlimited;
            QueryStats unlimitedStats;
            EXPECT_FALSE(CollideProxiesBudgeted(a.Body(), b.Body(), fullStats.overlapTests, unlimited, unlimitedStats));
            ASSERT_EQ(unlimited.size(), full.size());
            for (std::size_t k = 0; k < full.size(); ++k)
            {
                EXPECT_EQ(key(unlimited[k]), key(full[k]));
                EXPECT_EQ(unlimited[k].depth, full[k].depth);
                EXPECT_EQ(unlimited[k].point, full[k].point);
            }
            EXPECT_EQ(unlimitedStats.overlapTests, fullStats.overlapTests);
            EXPECT_EQ(unlimitedStats.approximateContacts, 0u);

            for (std::uint64_t budget : {1ull, 3ull, 10ull, 40ull, 150ull, 600ull})
            {
                std::vector<ProxyContact> cut;
                QueryStats stats;
                const bool interrupted = CollideProxiesBudgeted(a.Body(), b.Body(), budget, cut, stats);
                EXPECT_LE(stats.overlapTests, budget);
                EXPECT_EQ(interrupted, stats.overlapTests < fullStats.overlapTests && budget < fullStats.overlapTests)
                    << "budget " << budget;
                interruptions += interrupted ? 1 : 0;
                approximate += stats.approximateContacts;
                for (const ProxyContact& contact : full)
                {
                    const bool found = std::any_of(cut.begin(), cut.end(), [&](const ProxyContact& inCut) {
                        return Covers(a.state->Tree(), inCut.nodeA, contact.nodeA) &&
                               Covers(b.state->Tree(), inCut.nodeB, contact.nodeB);
                    });
                    EXPECT_TRUE(found) << c.shapeA << " vs " << c.shapeB << " budget " << budget << ": proxies "
                                       << contact.nodeA << ", " << contact.nodeB << " are under no reported pair";
                    ++covered;
                }
                for (const ProxyContact& contact : cut)
                {
                    EXPECT_GE(contact.depth, 0.0);
                    EXPECT_NEAR(contact.normal.norm(), 1.0, 1e-12);
                }
            }
        }
    }
    EXPECT_GT(covered, 1000u);
    EXPECT_GT(interruptions, 50u);
    EXPECT_GT(approximate, 100u);
}

} // namespace
} // namespace bdt

namespace bdt
{
namespace
{

using namespace test;

// Box culling (BD-AABB, §3.5) beside the spheres: exactly the sphere descent's contacts (the same bits), so every
// brute-force intersecting triangle pair lies under a reported proxy pair.
TEST(CollideProxies, BoxCulledDescentCoversEveryIntersectingPair)
{
    std::mt19937 random(37);
    std::uint64_t trianglePairs = 0, boxTests = 0, sphereTests = 0;
    for (const PairCase& c : cPairCases)
    {
        QueryBody a(test::ShapeTree(c.shapeA, c.trianglesA, c.modesA), 5);
        QueryBody b(test::ShapeTree(c.shapeB, c.trianglesB, c.modesB), 4);
        const BDAabbTree boxesA = BDAabbTree::Build(a.tree);
        const BDAabbTree boxesB = BDAabbTree::Build(b.tree);
        for (double amplitude : cAmplitudes)
        {
            Randomise(a, b, amplitude, random);
            std::vector<ProxyContact> spheres, boxes;
            QueryStats sphereStats, boxStats;
            CollideProxies(a.Body(), b.Body(), spheres, sphereStats);
            CollideProxiesWithBoxes(a.Body(), b.Body(), boxesA, boxesB, boxes, boxStats);
            sphereTests += sphereStats.overlapTests;
            boxTests += boxStats.overlapTests;
            std::set<std::pair<std::uint32_t, std::uint32_t>> reported;
            for (const ProxyContact& contact : boxes)
            {
                EXPECT_TRUE(reported.insert({contact.nodeA, contact.nodeB}).second) << "reported twice";
                const auto same = std::find_if(spheres.begin(), spheres.end(), [&](const ProxyContact& inSphere) {
                    return inSphere.nodeA == contact.nodeA && inSphere.nodeB == contact.nodeB;
                });
                ASSERT_NE(same, spheres.end()) << "a box-culled contact the sphere descent does not report";
                EXPECT_EQ(same->depth, contact.depth);
                EXPECT_EQ(same->point, contact.point);
                EXPECT_EQ(same->normal, contact.normal);
            }
            EXPECT_EQ(boxes.size(), spheres.size()) << c.shapeA << " vs " << c.shapeB << ": a sphere contact was culled";
            for (const TrianglePair& pair : BruteForcePairs(WorldTriangles(a), WorldTriangles(b)))
            {
                ++trianglePairs;
                EXPECT_TRUE(reported.count({ProxyOf(a.state->Proxies(), pair.triangleA), ProxyOf(b.state->Proxies(), pair.triangleB)}))
                    << c.shapeA << " vs " << c.shapeB << ": triangles " << pair.triangleA << ", " << pair.triangleB
                    << " lie under no reported proxy pair";
            }
        }
    }
    EXPECT_GT(trianglePairs, 500u);
    std::cout << "[ info ] " << trianglePairs << " triangle pairs covered; box tests " << boxTests << ", sphere tests "
              << sphereTests << "\n";
}

} // namespace
} // namespace bdt
