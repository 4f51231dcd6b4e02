// Regions, the four-point reduction, warm starting and the manifolds' lifetime, in a real btCollisionWorld.

#include "bullet/manifold/ContactRegions.h"
#include "bullet/manifold/ManifoldUpdate.h"
#include "bullet/CollisionTestScenes.h"
#include "support/QueryOracles.h"

#include <BulletCollision/BroadphaseCollision/btCollisionAlgorithm.h>
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>
#include <BulletCollision/CollisionDispatch/btManifoldResult.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/ConstraintSolver/btContactSolverInfo.h>
#include <BulletDynamics/ConstraintSolver/btSequentialImpulseConstraintSolver.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <array>
#include <bdt/bullet/CollisionConfiguration.h>
#include <bdt/bullet/CollisionRegistration.h>
#include <bdt/bullet/Conversions.h>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <tuple>

namespace bdt::test::collision
{
namespace
{

struct World
{
    World() : dispatcher(&configuration), world(&dispatcher, &broadphase, &configuration) {}

    std::vector<btPersistentManifold*> Manifolds()
    {
        std::vector<btPersistentManifold*> manifolds;
        for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
            manifolds.push_back(dispatcher.getManifoldByIndexInternal(m));
        return manifolds;
    }

    CollisionConfiguration configuration;
    btCollisionDispatcher dispatcher;
    btDbvtBroadphase broadphase;
    btCollisionWorld world;
};

using PointKey = std::tuple<int, int, int, int>; // (m_partId0, m_index0, m_partId1, m_index1)

PointKey KeyOf(const btManifoldPoint& inPoint)
{
    return {inPoint.m_partId0, inPoint.m_index0, inPoint.m_partId1, inPoint.m_index1};
}

// Area of the convex hull of points in the xz plane (gift wrapping; a handful of points).
double HullArea(std::vector<Vec3d> inPoints)
{
    std::sort(inPoints.begin(), inPoints.end(),
              [](const Vec3d& inA, const Vec3d& inB)
              { return std::tie(inA.x(), inA.z()) < std::tie(inB.x(), inB.z()); });
    const auto cross = [](const Vec3d& inO, const Vec3d& inA, const Vec3d& inB)
    { return (inA.x() - inO.x()) * (inB.z() - inO.z()) - (inA.z() - inO.z()) * (inB.x() - inO.x()); };
    std::vector<Vec3d> hull;
    for (int pass = 0; pass < 2; ++pass)
    {
        const std::size_t start = hull.size();
        for (const Vec3d& p : inPoints)
        {
            while (hull.size() >= start + 2 && cross(hull[hull.size() - 2], hull.back(), p) <= 0.0)
                hull.pop_back();
            hull.push_back(p);
        }
        hull.pop_back();
        std::reverse(inPoints.begin(), inPoints.end());
    }
    double area = 0.0;
    for (std::size_t i = 0; i < hull.size(); ++i)
    {
        const Vec3d& a = hull[i];
        const Vec3d& b = hull[(i + 1) % hull.size()];
        area += a.x() * b.z() - b.x() * a.z();
    }
    return 0.5 * std::abs(area);
}

TEST(ContactRegions, RegionIsTheAncestorRegionDepthLevelsAboveTheProxies)
{
    const BDTree& tree = BoxAsset()->Tree();
    for (const std::uint32_t proxyLevel : {3u, 5u, 7u})
    {
        const ContactProxies& proxies = *BoxAsset()->Proxies(proxyLevel);
        for (const std::uint32_t depth : {0u, 1u, 3u, 10u})
        {
            const std::uint32_t regionLevel = RegionLevel(proxies.Level(), depth);
            EXPECT_EQ(regionLevel, proxies.Level() > depth ? proxies.Level() - depth : 0u);
            std::set<std::uint32_t> regions;
            for (const std::uint32_t node : ProxyNodes(proxies))
            {
                const std::uint32_t region = RegionOf(tree, node, regionLevel);
                regions.insert(region);
                const BDTreeNode& n = tree.Node(node);
                const BDTreeNode& r = tree.Node(region);
                EXPECT_EQ(r.level, std::min<std::uint32_t>(n.level, regionLevel));
                // An ancestor (or the node itself) covers the node's triangles.
                EXPECT_LE(r.firstTriangle, n.firstTriangle);
                EXPECT_GE(r.firstTriangle + r.triangleCount, n.firstTriangle + n.triangleCount);
                if (depth == 0)
                {
                    EXPECT_EQ(region, node);
                }
            }
            EXPECT_LE(regions.size(), std::size_t(1) << regionLevel);
        }
    }
}

TEST(ContactRegions, InRegionAgreesWithRegionOf)
{
    // Brute force: every proxy against every region `RegionOf` gives at that level.
    const BDTree& tree = BoxAsset()->Tree();
    int inside = 0;
    for (const std::uint32_t proxyLevel : {3u, 5u, 7u})
    {
        const ContactProxies& proxies = *BoxAsset()->Proxies(proxyLevel);
        for (const std::uint32_t depth : {0u, 1u, 3u, 10u})
        {
            const std::uint32_t regionLevel = RegionLevel(proxies.Level(), depth);
            std::set<std::uint32_t> regions;
            for (const std::uint32_t node : ProxyNodes(proxies))
                regions.insert(RegionOf(tree, node, regionLevel));
            for (const std::uint32_t node : ProxyNodes(proxies))
                for (const std::uint32_t region : regions)
                {
                    const bool expected =
                        tree.Node(node).level > regionLevel && RegionOf(tree, node, regionLevel) == region;
                    ASSERT_EQ(InRegion(tree, node, region, regionLevel), expected)
                        << "level " << proxyLevel << " depth " << depth << " node " << node << " region "
                        << region;
                    inside += expected ? 1 : 0;
                }
        }
    }
    EXPECT_GT(inside, 100);
}

TEST(ContactRegions, OneRegionTakesEveryContact)
{
    std::vector<PairContact> contacts(5);
    for (std::size_t i = 0; i < contacts.size(); ++i)
        contacts[i].distance = -0.01 * double(i);
    const std::vector<std::uint32_t> keys(contacts.size(), 42);
    RegionAssignment assignment;
    assignment.keys = {7, 8};
    for (const std::uint32_t cap : {1u, 3u})
        for (const std::vector<std::uint32_t>& previous :
             {std::vector<std::uint32_t>{}, std::vector<std::uint32_t>{41, 42}})
        {
            AssignRegions(contacts, keys, previous, cap, assignment);
            EXPECT_EQ(assignment.keys, (std::vector<std::uint32_t>{42}));
            EXPECT_EQ(assignment.ofContact, std::vector<std::uint32_t>(contacts.size(), 0u));
        }
}

TEST(ContactRegions, ReductionKeepsTheDeepestAndMostOfTheBestSpread)
{
    std::mt19937 random(5);
    for (int trial = 0; trial < 200; ++trial)
    {
        const int count = 5 + int(random() % 20);
        std::vector<PairContact> contacts(static_cast<std::size_t>(count));
        std::vector<std::uint32_t> candidates;
        for (int i = 0; i < count; ++i)
        {
            contacts[std::size_t(i)].pointOnB =
                Vec3d(Uniform(random, -1, 1), Uniform(random, -0.01, 0.01), Uniform(random, -1, 1));
            contacts[std::size_t(i)].normal = Vec3d::UnitY();
            contacts[std::size_t(i)].distance = Uniform(random, -0.1, 0.02);
            candidates.push_back(std::uint32_t(i));
        }
        std::vector<std::uint32_t> chosen;
        ReduceContacts(contacts, candidates, chosen);
        ASSERT_EQ(chosen.size(), 4u);
        EXPECT_EQ(std::set<std::uint32_t>(chosen.begin(), chosen.end()).size(), 4u);
        const auto deepest = std::min_element(contacts.begin(), contacts.end(),
                                              [](const PairContact& inA, const PairContact& inB)
                                              { return inA.distance < inB.distance; }) -
                             contacts.begin();
        EXPECT_NE(std::find(chosen.begin(), chosen.end(), std::uint32_t(deepest)), chosen.end());

        // Brute force: the largest hull area of four points that include the deepest.
        double best = 0.0;
        for (int a = 0; a < count; ++a)
            for (int b = a + 1; b < count; ++b)
                for (int c = b + 1; c < count; ++c)
                {
                    if (a == deepest || b == deepest || c == deepest)
                        continue;
                    best = std::max(
                        best,
                        HullArea({contacts[std::size_t(deepest)].pointOnB, contacts[std::size_t(a)].pointOnB,
                                  contacts[std::size_t(b)].pointOnB, contacts[std::size_t(c)].pointOnB}));
                }
        std::vector<Vec3d> points;
        for (std::uint32_t index : chosen)
            points.push_back(contacts[index].pointOnB);
        // (The least ratio over 5000 such trials was 0.75.)
        EXPECT_GE(HullArea(points), 0.7 * best) << "trial " << trial;
    }
    // Four or fewer: all of them.
    std::vector<PairContact> few(3);
    std::vector<std::uint32_t> chosen;
    ReduceContacts(few, std::vector<std::uint32_t>{0, 1, 2}, chosen);
    EXPECT_EQ(chosen, (std::vector<std::uint32_t>{0, 1, 2}));
}

TEST(ContactRegions, ReductionTakesDistinctCandidatesWhenNoDistanceCompares)
{
    // NaN and +inf distances never beat the search's start: the reduction takes the earliest candidates left
    // (reading no index outside the list; the sanitizer build checks that), distinct, whatever else is there.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<std::vector<double>> cases = {
        {nan, nan, nan, nan, nan, nan},       // no distance at all
        {-0.01, nan, nan, nan, nan, nan},     // one deepest, then nothing (the points coincide)
        {inf, inf, nan, inf, nan, inf, inf}}; // never closer than +inf
    for (const std::vector<double>& distances : cases)
    {
        std::vector<PairContact> contacts(distances.size());
        std::vector<std::uint32_t> candidates;
        for (std::size_t i = 0; i < distances.size(); ++i)
        {
            contacts[i].distance = distances[i]; // every point at the origin: no spread to choose by
            candidates.push_back(std::uint32_t(i));
        }
        for (const std::vector<std::uint8_t>& kept :
             {std::vector<std::uint8_t>{}, std::vector<std::uint8_t>(distances.size(), 1)})
        {
            std::vector<std::uint32_t> chosen;
            ReduceContacts(contacts, candidates, chosen, kept, 0.01, 0.1);
            ASSERT_EQ(chosen.size(), 4u);
            EXPECT_EQ(std::set<std::uint32_t>(chosen.begin(), chosen.end()).size(), 4u);
            for (const std::uint32_t index : chosen)
            {
                EXPECT_LT(index, contacts.size());
            }
            if (distances[0] == -0.01)
            {
                EXPECT_EQ(chosen[0], 0u); // the one that compares is still the deepest
            }
        }
    }
}

TEST(ContactRegions, MergedRegionsGoToTheNearestKeptRegionAndPersistentOnesAreKeptWhenTheyCoverAsWell)
{
    // Five regions along x; the cap keeps three.
    std::vector<PairContact> contacts;
    std::vector<std::uint32_t> keys;
    const double depths[5] = {-0.05, -0.01, -0.04, -0.02, -0.03};
    for (std::uint32_t region = 0; region < 5; ++region)
        for (int i = 0; i < 2; ++i)
        {
            PairContact contact;
            contact.pointOnB = Vec3d(double(region), 0.0, 0.1 * i);
            contact.distance = depths[region] + 0.001 * i;
            contacts.push_back(contact);
            keys.push_back(10 + region);
        }
    RegionAssignment assignment;
    AssignRegions(contacts, keys, std::vector<std::uint32_t>{}, 3, assignment);
    // The deepest region (0), the one farthest from it (4), the one farthest from both (2): keys 10, 14, 12.
    EXPECT_EQ(assignment.keys, (std::vector<std::uint32_t>{10, 12, 14}));
    for (std::size_t i = 0; i < contacts.size(); ++i)
    {
        const std::uint32_t key = assignment.keys[assignment.ofContact[i]];
        const std::uint32_t region = keys[i] - 10;
        if (region == 1)
        {
            EXPECT_TRUE(key == 10 || key == 12); // equidistant from regions 0 and 2
        }
        else if (region == 3)
        {
            EXPECT_TRUE(key == 12 || key == 14);
        }
        else
        {
            EXPECT_EQ(key, keys[i]);
        }
    }
    // Last step's region 11 covers clearly less than region 12 (1 from the kept ones against 2): dropped.
    AssignRegions(contacts, keys, std::vector<std::uint32_t>{11}, 3, assignment);
    EXPECT_EQ(assignment.keys, (std::vector<std::uint32_t>{10, 12, 14}));
    // Within the depth tolerance of the deepest region, last step's region is the first choice; the others
    // follow by coverage (from x = 1: region 4 at 3, then region 0 at 1, deeper than regions 2 and 3 at 1).
    AssignRegions(contacts, keys, std::vector<std::uint32_t>{11}, 3, assignment, 0.05);
    EXPECT_EQ(assignment.keys, (std::vector<std::uint32_t>{10, 11, 14}));
    // Region 1 moved to x = 1.6: 1.6 from the kept ones, within cCoverageSlack of region 2's 2: kept in its
    // place when it had a manifold last step, not otherwise.
    for (std::size_t i = 0; i < contacts.size(); ++i)
        if (keys[i] == 11)
            contacts[i].pointOnB.x() = 1.6;
    AssignRegions(contacts, keys, std::vector<std::uint32_t>{11}, 3, assignment);
    EXPECT_EQ(assignment.keys, (std::vector<std::uint32_t>{10, 11, 14}));
    AssignRegions(contacts, keys, std::vector<std::uint32_t>{}, 3, assignment);
    EXPECT_EQ(assignment.keys, (std::vector<std::uint32_t>{10, 12, 14}));
}

// Brute force over every choice of kept regions: the kept ones cover the contacts' regions within twice the
// least possible covering radius (the k-centre bound of farthest-point sampling), within 2 / (1 − slack) of it
// when last step's regions are favoured, and every merged region goes to its nearest kept one.
TEST(ContactRegions, KeptRegionsCoverTheContactAreaAsBruteForceBounds)
{
    std::mt19937 random(11);
    for (int trial = 0; trial < 300; ++trial)
    {
        const std::uint32_t regionCount = 2 + std::uint32_t(random() % 8);
        const std::uint32_t cap = 1 + std::uint32_t(random() % regionCount);
        std::vector<PairContact> contacts;
        std::vector<std::uint32_t> keys;
        std::vector<Vec3d> centroids(regionCount, Vec3d::Zero());
        for (std::uint32_t region = 0; region < regionCount; ++region)
        {
            const Vec3d centre(Uniform(random, -1, 1), Uniform(random, -0.1, 0.1), Uniform(random, -1, 1));
            const int count = 1 + int(random() % 4);
            for (int i = 0; i < count; ++i)
            {
                PairContact contact;
                contact.pointOnB = centre + Vec3d(Uniform(random, -0.05, 0.05), 0, Uniform(random, -0.05, 0.05));
                contact.distance = Uniform(random, -0.02, 0.01);
                contacts.push_back(contact);
                keys.push_back(100 + 3 * region); // keys need not be contiguous
                centroids[region] += contact.pointOnB / double(count);
            }
        }
        std::vector<std::uint32_t> previous;
        if (trial % 2 == 1)
            for (std::uint32_t region = 0; region < regionCount; ++region)
                if (random() % 3 == 0)
                    previous.push_back(100 + 3 * region);
        RegionAssignment assignment;
        AssignRegions(contacts, keys, previous, cap, assignment, 0.005);
        ASSERT_EQ(assignment.keys.size(), std::min(cap, regionCount));
        ASSERT_TRUE(std::is_sorted(assignment.keys.begin(), assignment.keys.end()));

        const auto coverRadius = [&](const std::vector<std::uint32_t>& inKept)
        {
            double radius = 0.0;
            for (std::uint32_t region = 0; region < regionCount; ++region)
            {
                double nearest = std::numeric_limits<double>::infinity();
                for (std::uint32_t kept : inKept)
                    nearest = std::min(nearest, (centroids[region] - centroids[kept]).norm());
                radius = std::max(radius, nearest);
            }
            return radius;
        };
        std::vector<std::uint32_t> kept;
        for (std::uint32_t key : assignment.keys)
            kept.push_back((key - 100) / 3);
        // The least covering radius over every subset of `cap` regions.
        double optimum = std::numeric_limits<double>::infinity();
        for (std::uint32_t mask = 0; mask < (1u << regionCount); ++mask)
        {
            if (std::uint32_t(__builtin_popcount(mask)) != std::min(cap, regionCount))
                continue;
            std::vector<std::uint32_t> subset;
            for (std::uint32_t region = 0; region < regionCount; ++region)
                if ((mask >> region) & 1u)
                    subset.push_back(region);
            optimum = std::min(optimum, coverRadius(subset));
        }
        const double factor = previous.empty() ? 2.0 : 2.0 / (1.0 - cCoverageSlack);
        EXPECT_LE(coverRadius(kept), factor * optimum + 1e-12) << "trial " << trial;

        for (std::size_t i = 0; i < contacts.size(); ++i)
        {
            const std::uint32_t region = (keys[i] - 100) / 3;
            const std::uint32_t target = (assignment.keys[assignment.ofContact[i]] - 100) / 3;
            if (std::find(kept.begin(), kept.end(), region) != kept.end())
            {
                EXPECT_EQ(target, region);
                continue;
            }
            for (std::uint32_t other : kept)
                EXPECT_LE((centroids[region] - centroids[target]).norm(),
                          (centroids[region] - centroids[other]).norm() + 1e-12)
                    << "trial " << trial;
        }
    }
}

// Brute force over every pair of points: no two survivors are near (closer than the separation with normals
// within cMergeCos), every merged point is near a survivor at least as deep, and the deepest point survives.
TEST(ContactRegions, MergedPointsAreNearADeeperSurvivorAndSurvivorsAreApart)
{
    std::mt19937 random(17);
    for (int trial = 0; trial < 200; ++trial)
    {
        const int count = 1 + int(random() % 100); // both sides of the direct merge's limit
        const double separation = Uniform(random, 0.01, 0.3);
        std::vector<PairContact> contacts(static_cast<std::size_t>(count));
        std::vector<std::uint32_t> points;
        for (int i = 0; i < count; ++i)
        {
            PairContact& contact = contacts[std::size_t(i)];
            contact.pointOnB = Vec3d(Uniform(random, -0.5, 0.5), Uniform(random, -0.05, 0.05), Uniform(random, -0.5, 0.5));
            // Mostly up, some tilted past the merge angle.
            const double tilt = random() % 4 == 0 ? Uniform(random, 0.5, 1.5) : Uniform(random, 0.0, 0.2);
            contact.normal = Vec3d(std::sin(tilt), std::cos(tilt), 0.0);
            contact.distance = Uniform(random, -0.02, 0.01);
            points.push_back(std::uint32_t(i));
        }
        std::vector<std::uint8_t> survives;
        MergeNearPoints(contacts, points, separation, survives);
        ASSERT_EQ(survives.size(), points.size());
        const auto near = [&](std::size_t inA, std::size_t inB)
        {
            return (contacts[inA].pointOnB - contacts[inB].pointOnB).norm() < separation &&
                   contacts[inA].normal.dot(contacts[inB].normal) > cMergeCos;
        };
        std::size_t deepest = 0;
        for (std::size_t i = 0; i < contacts.size(); ++i)
            if (contacts[i].distance < contacts[deepest].distance)
                deepest = i;
        EXPECT_EQ(survives[deepest], 1) << "trial " << trial;
        for (std::size_t i = 0; i < contacts.size(); ++i)
        {
            bool coveredByDeeper = false;
            for (std::size_t j = 0; j < contacts.size(); ++j)
            {
                if (j == i)
                    continue;
                if (survives[i] != 0 && survives[j] != 0)
                {
                    EXPECT_FALSE(near(i, j)) << "trial " << trial << ": survivors " << i << ", " << j;
                }
                if (survives[j] != 0 && near(i, j) && contacts[j].distance <= contacts[i].distance)
                    coveredByDeeper = true;
            }
            if (survives[i] == 0)
            {
                EXPECT_TRUE(coveredByDeeper) << "trial " << trial << ": point " << i;
            }
        }
    }
    // No separation: all survive.
    std::vector<PairContact> two(2);
    std::vector<std::uint8_t> survives;
    MergeNearPoints(two, std::vector<std::uint32_t>{0, 1}, 0.0, survives);
    EXPECT_EQ(survives, (std::vector<std::uint8_t>{1, 1}));
}

TEST(ContactManifolds, CappedPerPairReducedToFourAndAllReturnedByTheAlgorithm)
{
    for (const std::uint32_t cap : {1u, 3u, 64u})
    {
        World world;
        DeformableObject body(0.0, 0, cap); // one region per proxy
        btStaticPlaneShape planeShape(btVector3(0, 1, 0), 0);
        btCollisionObject plane;
        plane.setCollisionShape(&planeShape);
        world.world.addCollisionObject(&body.object);
        world.world.addCollisionObject(&plane);
        btTransform transform;
        transform.setIdentity();
        transform.setOrigin(btVector3(0, 0.3, 0)); // the lower part of the unit box sinks 0.2 into the floor
        body.object.setWorldTransform(transform);
        world.world.performDiscreteCollisionDetection();

        const std::vector<WorldProxy> proxies = WorldProxies(*body.shape, transform);
        const double threshold = body.shape->getContactBreakingThreshold(gContactBreakingThreshold);
        std::size_t within = 0;
        double deepest = std::numeric_limits<double>::infinity();
        for (const WorldProxy& proxy : proxies)
        {
            const double distance = proxy.center.y() - proxy.radius;
            deepest = std::min(deepest, distance);
            if (distance <= threshold)
                ++within;
        }
        ASSERT_GT(within, 8u);

        const std::vector<btPersistentManifold*> manifolds = world.Manifolds();
        EXPECT_EQ(manifolds.size(), std::min<std::size_t>(cap, within)) << "cap " << cap;
        double least = std::numeric_limits<double>::infinity();
        std::size_t points = 0;
        for (const btPersistentManifold* manifold : manifolds)
        {
            EXPECT_GE(manifold->getNumContacts(), 1);
            EXPECT_LE(manifold->getNumContacts(), 4);
            points += std::size_t(manifold->getNumContacts());
            for (int i = 0; i < manifold->getNumContacts(); ++i)
                least = std::min(least, double(manifold->getContactPoint(i).getDistance()));
        }
        // Each manifold holds its region's points up to 4: a kept region far out (the coverage keeps the
        // corners) may gather fewer than 4.
        EXPECT_LE(points, std::min<std::size_t>(within, 4 * manifolds.size()));
        EXPECT_GE(points, std::min<std::size_t>(within, 3 * manifolds.size()));
        EXPECT_NEAR(least, deepest, 1e-5);

        btBroadphasePair* pair = world.world.getPairCache()->findPair(body.object.getBroadphaseHandle(),
                                                                      plane.getBroadphaseHandle());
        ASSERT_NE(pair, nullptr);
        btManifoldArray returned;
        pair->m_algorithm->getAllContactManifolds(returned);
        std::set<btPersistentManifold*> listed;
        for (int m = 0; m < returned.size(); ++m)
            listed.insert(returned[m]);
        EXPECT_EQ(listed, std::set<btPersistentManifold*>(manifolds.begin(), manifolds.end()));

        // Lifted clear of the floor: every manifold goes back to the dispatcher.
        transform.setOrigin(btVector3(0, 2, 0));
        body.object.setWorldTransform(transform);
        world.world.performDiscreteCollisionDetection();
        EXPECT_EQ(world.dispatcher.getNumManifolds(), 0);
        // And removing a touching body releases them too.
        transform.setOrigin(btVector3(0, 0.3, 0));
        body.object.setWorldTransform(transform);
        world.world.performDiscreteCollisionDetection();
        EXPECT_GT(world.dispatcher.getNumManifolds(), 0);
        world.world.removeCollisionObject(&body.object);
        EXPECT_EQ(world.dispatcher.getNumManifolds(), 0);
    }
}

int gDestroyed = 0;
bool CountDestroyed(void*)
{
    ++gDestroyed;
    return true;
}

TEST(ContactManifolds, WarmStartIsCarriedOverWhereIdentifiersPersist)
{
    World world;
    DeformableObject body(0.005);
    btBoxShape boxShape(btVector3(2, 0.5, 2));
    btCollisionObject box;
    box.setCollisionShape(&boxShape);
    btTransform boxTransform;
    boxTransform.setIdentity();
    boxTransform.setOrigin(btVector3(0, -0.5, 0));
    box.setWorldTransform(boxTransform);
    world.world.addCollisionObject(&box);
    world.world.addCollisionObject(&body.object);
    btTransform transform;
    transform.setIdentity();
    transform.setOrigin(btVector3(0, 0.45, 0));
    body.object.setWorldTransform(transform);
    world.world.performDiscreteCollisionDetection();

    // Stamp every point as the solver would, keyed by its identifiers.
    std::map<PointKey, int> stamped;
    static int sTokens[256];
    int next = 0;
    for (btPersistentManifold* manifold : world.Manifolds())
        for (int i = 0; i < manifold->getNumContacts(); ++i)
        {
            btManifoldPoint& point = manifold->getContactPoint(i);
            EXPECT_EQ(point.m_lifeTime, 0);
            EXPECT_EQ(point.m_partId1, -1);
            EXPECT_EQ(point.m_index1, -1);
            point.m_appliedImpulse = btScalar(1 + next);
            point.m_appliedImpulseLateral1 = btScalar(0.5 + next);
            point.m_appliedImpulseLateral2 = btScalar(0.25 + next);
            point.m_lateralFrictionDir1 = btVector3(0, 0, 1);
            point.m_lateralFrictionDir2 = btVector3(1, 0, 0);
            point.m_contactPointFlags |= BT_CONTACT_FLAG_LATERAL_FRICTION_INITIALIZED;
            point.m_userPersistentData = &sTokens[next];
            stamped[KeyOf(point)] = next++;
        }
    ASSERT_GT(next, 4);

    // A small slide and a little deformation: most proxies keep touching.
    gDestroyed = 0;
    const ContactDestroyedCallback savedCallback = gContactDestroyedCallback;
    gContactDestroyedCallback = &CountDestroyed;
    std::mt19937 random(3);
    body.RandomQ(random, 0.002);
    transform.setOrigin(btVector3(0.01, 0.45, 0));
    body.object.setWorldTransform(transform);
    world.world.performDiscreteCollisionDetection();

    int carried = 0;
    int fresh = 0;
    std::set<int> taken;
    for (btPersistentManifold* manifold : world.Manifolds())
        for (int i = 0; i < manifold->getNumContacts(); ++i)
        {
            const btManifoldPoint& point = manifold->getContactPoint(i);
            const auto found = stamped.find(KeyOf(point));
            if (found == stamped.end())
            {
                ++fresh;
                EXPECT_EQ(point.m_appliedImpulse, 0);
                EXPECT_EQ(point.m_lifeTime, 0);
                EXPECT_EQ(point.m_userPersistentData, nullptr);
                EXPECT_EQ(point.m_contactPointFlags & BT_CONTACT_FLAG_LATERAL_FRICTION_INITIALIZED, 0);
                continue;
            }
            ++carried;
            const int stamp = found->second;
            taken.insert(stamp);
            EXPECT_EQ(point.m_appliedImpulse, btScalar(1 + stamp));
            EXPECT_EQ(point.m_appliedImpulseLateral1, btScalar(0.5 + stamp));
            EXPECT_EQ(point.m_appliedImpulseLateral2, btScalar(0.25 + stamp));
            EXPECT_EQ(point.m_lifeTime, 1);
            EXPECT_EQ(point.m_userPersistentData, &sTokens[stamp]);
            EXPECT_NE(point.m_contactPointFlags & BT_CONTACT_FLAG_LATERAL_FRICTION_INITIALIZED, 0);
            EXPECT_EQ(point.m_lateralFrictionDir1, btVector3(0, 0, 1));
            EXPECT_EQ(point.m_lateralFrictionDir2, btVector3(1, 0, 0));
        }
    EXPECT_GT(carried, 0);
    // Every stamped point not carried over had its user data destroyed, once.
    EXPECT_EQ(gDestroyed, next - int(taken.size()));
    (void)fresh;

    // Gone entirely: the rest are destroyed with their manifolds.
    transform.setOrigin(btVector3(0, 3, 0));
    body.object.setWorldTransform(transform);
    world.world.performDiscreteCollisionDetection();
    EXPECT_EQ(gDestroyed, next);
    gContactDestroyedCallback = savedCallback;
}

TEST(ContactManifolds, PointsAgainstACompoundChildSurviveBulletsCompoundRefresh)
{
    // btCompoundCollisionAlgorithm calls refreshContactPoints on its children's manifolds every step, with
    // the collision objects' transforms: the local points must be relative to those (not to the child's).
    World world;
    DeformableObject body(0.005);
    OtherShape compound = MakeOtherShape("compound");
    btCollisionObject other;
    other.setCollisionShape(compound.shape.get());
    btTransform otherTransform(btQuaternion(btVector3(0, 1, 0), btScalar(0.3)), btVector3(0.1, 0.62, 0.05));
    other.setWorldTransform(otherTransform);
    world.world.addCollisionObject(&body.object);
    world.world.addCollisionObject(&other);
    int points = 0;
    for (int step = 0; step < 3; ++step)
    {
        world.world.performDiscreteCollisionDetection();
        points = 0;
        for (btPersistentManifold* manifold : world.Manifolds())
            for (int i = 0; i < manifold->getNumContacts(); ++i)
            {
                const btManifoldPoint& point = manifold->getContactPoint(i);
                EXPECT_EQ(point.m_lifeTime, step);
                EXPECT_TRUE(point.m_index1 == 0 || point.m_index1 == 1); // the child
                ++points;
            }
    }
    EXPECT_GT(points, 1);
}

// ---- Persistence in the four-point reduction ----

// Contacts on the floor y = 0 (normal up) at (x, z) with distance d.
std::vector<PairContact> FloorContacts(const std::vector<std::array<double, 3>>& inXZD)
{
    std::vector<PairContact> contacts;
    for (const auto& [x, z, d] : inXZD)
    {
        PairContact contact;
        contact.pointOnB = Vec3d(x, 0.0, z);
        contact.normal = Vec3d::UnitY();
        contact.distance = d;
        contacts.push_back(contact);
    }
    return contacts;
}

// `inCount` contacts under a face about the plane y = 0: points in [-1, 1]² across it and within ±`inHeight`
// of it, normals +y tilted by up to `inTilt`, distances in [-0.1, 0.02].
std::vector<PairContact> RandomFaceContacts(std::mt19937& ioRandom, std::size_t inCount, double inHeight,
                                            double inTilt)
{
    std::vector<PairContact> contacts(inCount);
    for (PairContact& contact : contacts)
    {
        contact.pointOnB =
            Vec3d(Uniform(ioRandom, -1, 1), inHeight > 0.0 ? Uniform(ioRandom, -inHeight, inHeight) : 0.0,
                  Uniform(ioRandom, -1, 1));
        contact.normal = inTilt > 0.0 ? Vec3d((Vec3d::UnitY() + inTilt * RandomUnit(ioRandom)).normalized())
                                      : Vec3d::UnitY();
        contact.distance = Uniform(ioRandom, -0.1, 0.02);
    }
    return contacts;
}

std::vector<std::uint32_t> AllCandidates(std::size_t inCount)
{
    std::vector<std::uint32_t> candidates(inCount);
    for (std::uint32_t i = 0; i < candidates.size(); ++i)
        candidates[i] = i;
    return candidates;
}

TEST(ContactRegions, AKeptPointWithinTheDepthToleranceIsChosenBeforeASlightlyDeeperNewOne)
{
    // 0 is the deepest by 1e-4; 1 was kept last step.
    const std::vector<PairContact> contacts = FloorContacts({{{0.0, 0.0, -0.0100},
                                                              {0.1, 0.0, -0.0099},
                                                              {2.0, 0.0, 0.0},
                                                              {0.0, 2.0, 0.0},
                                                              {-2.0, -2.0, 0.0},
                                                              {1.0, 1.0, 0.0}}});
    const std::vector<std::uint32_t> candidates = AllCandidates(contacts.size());
    const std::vector<std::uint8_t> kept = {0, 1, 0, 0, 0, 0};
    std::vector<std::uint32_t> chosen;
    ReduceContacts(contacts, candidates, chosen);
    ASSERT_EQ(chosen.size(), 4u);
    EXPECT_EQ(chosen[0], 0u) << "without persistence, the deepest";
    ReduceContacts(contacts, candidates, chosen, kept, 2e-4, 0.0);
    ASSERT_EQ(chosen.size(), 4u);
    EXPECT_EQ(chosen[0], 1u) << "the kept point, within 2e-4 of the deepest";
    ReduceContacts(contacts, candidates, chosen, kept, 5e-5, 0.0);
    ASSERT_EQ(chosen.size(), 4u);
    EXPECT_EQ(chosen[0], 0u) << "deeper by more than the tolerance";

    // Two kept points within the tolerance: the deeper of them.
    std::vector<PairContact> two = contacts;
    two[2].distance = -0.00995;
    two[3].distance = -0.0099;
    ReduceContacts(two, candidates, chosen, std::vector<std::uint8_t>{0, 0, 1, 1, 0, 0}, 2e-4, 0.0);
    ASSERT_EQ(chosen.size(), 4u);
    EXPECT_EQ(chosen[0], 2u) << "the deepest kept point";
}

TEST(ContactRegions, AKeptPointWithinTheSpreadToleranceIsChosenBeforeASlightlyBetterNewOne)
{
    struct Case
    {
        const char* stage;
        std::vector<std::array<double, 3>> contacts; // 0 the deepest; `better` and `kept` near-tied
        std::size_t position;                        // where in the choice order they compete
        std::uint32_t better, kept;
        double ratio; // kept's score over better's
    };
    const std::vector<Case> cases = {
        // Farthest from the deepest: 1 at 1.0, 2 (kept) at 0.98.
        {"second",
         {{0, 0, -0.05}, {1, 0, 0}, {0, 0.98, 0}, {0.1, 0.1, 0}, {0.2, -0.1, 0}, {-0.1, 0.2, 0}},
         1,
         1,
         2,
         0.98},
        // Largest triangle with 0 and 1 (4 away): 2 spans 4·1.0, 3 (kept) 4·0.97.
        {"third",
         {{0, 0, -0.05}, {4, 0, 0}, {0, 1, 0}, {1, -0.97, 0}, {0.5, 0.2, 0}, {2, 0.1, 0}},
         2,
         2,
         3,
         0.97},
        // Most area outside the triangle (0, 1, 2): 3 adds 4·1.0 across edge 0–1, 4 (kept) 4·0.97.
        {"fourth",
         {{0, 0, -0.05}, {4, 0, 0}, {2, 3, 0}, {2, -1, 0}, {2.5, -0.97, 0}, {2, 1, 0}},
         3,
         3,
         4,
         0.97},
    };
    for (const Case& scenario : cases)
    {
        const std::vector<PairContact> contacts = FloorContacts(scenario.contacts);
        const std::vector<std::uint32_t> candidates = AllCandidates(contacts.size());
        std::vector<std::uint8_t> kept(contacts.size(), 0);
        kept[scenario.kept] = 1;
        std::vector<std::uint32_t> chosen;
        ReduceContacts(contacts, candidates, chosen);
        ASSERT_EQ(chosen.size(), 4u);
        EXPECT_EQ(chosen[scenario.position], scenario.better) << scenario.stage << " without persistence";
        const double slack = 1.0 - scenario.ratio;
        ReduceContacts(contacts, candidates, chosen, kept, 0.0, slack + 0.01);
        ASSERT_EQ(chosen.size(), 4u);
        EXPECT_EQ(chosen[scenario.position], scenario.kept) << scenario.stage << " within the tolerance";
        ReduceContacts(contacts, candidates, chosen, kept, 0.0, slack - 0.01);
        ASSERT_EQ(chosen.size(), 4u);
        EXPECT_EQ(chosen[scenario.position], scenario.better)
            << scenario.stage << " better by more than the tolerance";
    }
}

TEST(ContactRegions, PersistenceChangesNothingWithoutKeptFlagsOrWithAllOrNone)
{
    std::mt19937 random(41);
    for (int trial = 0; trial < 300; ++trial)
    {
        const std::size_t count = 5 + random() % 20;
        const std::vector<PairContact> contacts = RandomFaceContacts(random, count, 0.01, 0.05);
        // A shuffled subset of the contacts as candidates (indices into them, not 0..n-1).
        std::vector<std::uint32_t> candidates = AllCandidates(count);
        std::shuffle(candidates.begin(), candidates.end(), random);
        candidates.resize(std::max<std::size_t>(5, count - random() % 3));
        std::vector<std::uint32_t> plain, chosen;
        ReduceContacts(contacts, candidates, plain);

        std::vector<std::uint8_t> flags(candidates.size());
        for (std::uint8_t& flag : flags)
            flag = std::uint8_t(random() % 2);
        const double tolerance = 1e9;
        // Empty or the wrong size: ignored, whatever the tolerances.
        ReduceContacts(contacts, candidates, chosen, {}, tolerance, tolerance);
        EXPECT_EQ(chosen, plain) << "trial " << trial;
        std::vector<std::uint8_t> shorter(flags.begin(), flags.end() - 1);
        ReduceContacts(contacts, candidates, chosen, shorter, tolerance, tolerance);
        EXPECT_EQ(chosen, plain) << "trial " << trial;
        std::vector<std::uint8_t> longer = flags;
        longer.push_back(1);
        ReduceContacts(contacts, candidates, chosen, longer, tolerance, tolerance);
        EXPECT_EQ(chosen, plain) << "trial " << trial;
        // All kept or none kept: no candidate is favoured.
        ReduceContacts(contacts, candidates, chosen, std::vector<std::uint8_t>(candidates.size(), 0),
                       tolerance, tolerance);
        EXPECT_EQ(chosen, plain) << "trial " << trial;
        ReduceContacts(contacts, candidates, chosen, std::vector<std::uint8_t>(candidates.size(), 1),
                       tolerance, tolerance);
        EXPECT_EQ(chosen, plain) << "trial " << trial;
        // Zero tolerances: only an exact tie could go to a kept point (none in random data).
        ReduceContacts(contacts, candidates, chosen, flags, 0.0, 0.0);
        EXPECT_EQ(chosen, plain) << "trial " << trial;
    }
}

TEST(ContactRegions, WithUnboundedTolerancesTheFourKeptPointsAreKept)
{
    std::mt19937 random(42);
    for (int trial = 0; trial < 300; ++trial)
    {
        const std::size_t count = 6 + random() % 20;
        const std::vector<PairContact> contacts = RandomFaceContacts(random, count, 0.0, 0.0);
        const std::vector<std::uint32_t> candidates = AllCandidates(count);
        std::vector<std::uint32_t> order = candidates;
        std::shuffle(order.begin(), order.end(), random);
        std::vector<std::uint8_t> kept(count, 0);
        for (int i = 0; i < 4; ++i)
            kept[order[std::size_t(i)]] = 1;
        std::vector<std::uint32_t> chosen;
        // A spread tolerance of 1 (all of the best score) admits any kept point that adds spread at all.
        ReduceContacts(contacts, candidates, chosen, kept, 1e9, 1.0);
        ASSERT_EQ(chosen.size(), 4u);
        for (const std::uint32_t index : chosen)
            EXPECT_TRUE(kept[index]) << "trial " << trial << " chose " << index;
    }
}

// ---- Manifold points of predicted contacts: CFM, ERP and the solver's gap ----

PairContact PredictedContact(double inDistance, double inStepMotion, double inCompliance, double inErp)
{
    PairContact contact;
    contact.pointOnB = Vec3d(0.1, -0.2, 0.3);
    contact.normal = Vec3d(0.2, 1.0, -0.1).normalized();
    contact.distance = inDistance;
    contact.stepMotion = inStepMotion;
    contact.compliance = inCompliance;
    contact.predictionErp = inErp;
    contact.feature0.node = 7;
    contact.index1 = 3;
    contact.partId1 = 2;
    return contact;
}

TEST(ContactManifolds, ModalComplianceIsThePointsCfmInSeriesWithContactStiffnessAndDamping)
{
    btSphereShape sphere(0.5);
    btCollisionObject a, b;
    a.setCollisionShape(&sphere);
    b.setCollisionShape(&sphere);
    a.setWorldTransform(btTransform(btQuaternion(btVector3(1, 0, 0), 0.3), btVector3(0.1, 0.5, 0)));
    b.setWorldTransform(btTransform(btQuaternion(btVector3(0, 1, 0), -0.2), btVector3(0, -0.5, 0.2)));
    const double h = 1.0 / 60.0;
    const int cfmFlags = BT_CONTACT_FLAG_HAS_CONTACT_CFM | BT_CONTACT_FLAG_HAS_CONTACT_ERP;

    // Rigid surfaces: no CFM of their own; identifiers and points as btManifoldResult makes them.
    PairContact contact = PredictedContact(-0.01, 0.0, 0.0, 0.0);
    btManifoldPoint point = MakeManifoldPoint(contact, PointIds{7, 5, 2, 3}, a, b, h);
    EXPECT_EQ(point.m_contactPointFlags & cfmFlags, 0);
    EXPECT_EQ(point.m_distance1, btScalar(-0.01));
    EXPECT_EQ(point.m_partId0, 7);
    EXPECT_EQ(point.m_index0, 5);
    EXPECT_EQ(point.m_partId1, 2);
    EXPECT_EQ(point.m_index1, 3);
    EXPECT_LT((ToVec3d(point.getPositionWorldOnA()) - (contact.pointOnB + contact.normal * contact.distance))
                  .norm(),
              1e-6);
    EXPECT_LT(
        (ToVec3d(a.getWorldTransform() * point.m_localPointA) - ToVec3d(point.getPositionWorldOnA())).norm(),
        1e-6);
    EXPECT_LT((ToVec3d(b.getWorldTransform() * point.m_localPointB) - contact.pointOnB).norm(), 1e-6);

    // A compliant surface: m_contactCFM is the compliance, no ERP of its own.
    for (const double compliance : {1e-6, 0.003, 2.0})
    {
        point = MakeManifoldPoint(PredictedContact(-0.01, 0.0, compliance, 0.2), PointIds{}, a, b, h);
        EXPECT_EQ(point.m_contactPointFlags & cfmFlags, BT_CONTACT_FLAG_HAS_CONTACT_CFM) << compliance;
        EXPECT_EQ(point.m_contactCFM, btScalar(compliance));
    }
    for (const double bad :
         {-0.003, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()})
    {
        point = MakeManifoldPoint(PredictedContact(-0.01, 0.0, bad, 0.2), PointIds{}, a, b, h);
        EXPECT_EQ(point.m_contactPointFlags & cfmFlags, 0) << bad;
    }

    // Contact stiffness k and damping c (combined as Bullet does: in series, and summed). Without compliance
    // they are left to Bullet, which converts them itself.
    a.setContactStiffnessAndDamping(2e4, 30);
    b.setContactStiffnessAndDamping(6e4, 10);
    const double k = 1.0 / (1.0 / double(a.getContactStiffness()) + 1.0 / double(b.getContactStiffness()));
    const double c = double(a.getContactDamping()) + double(b.getContactDamping());
    point = MakeManifoldPoint(PredictedContact(-0.01, 0.0, 0.0, 0.2), PointIds{}, a, b, h);
    EXPECT_NE(point.m_contactPointFlags & BT_CONTACT_FLAG_CONTACT_STIFFNESS_DAMPING, 0);
    EXPECT_EQ(point.m_contactPointFlags & cfmFlags, 0);
    EXPECT_NEAR(point.m_combinedContactStiffness1, k, 1e-4 * k);
    EXPECT_NEAR(point.m_combinedContactDamping1, c, 1e-4 * c);
    // With compliance: Bullet's soft contact is the compliance 1/(hk + c) with ERP hk/(hk + c), in series
    // with the modes' compliance. (btManifoldPoint keeps the CFM and ERP in the stiffness's and damping's
    // storage, a union: the point no longer claims stiffness and damping.)
    for (const double step : {1.0 / 60.0, 1.0 / 240.0})
    {
        point = MakeManifoldPoint(PredictedContact(-0.01, 0.0, 0.003, 0.2), PointIds{}, a, b, step);
        EXPECT_EQ(point.m_contactPointFlags & cfmFlags, cfmFlags);
        EXPECT_EQ(point.m_contactPointFlags & BT_CONTACT_FLAG_CONTACT_STIFFNESS_DAMPING, 0);
        const double cfm = 0.003 + 1.0 / (step * k + c);
        EXPECT_NEAR(point.m_contactCFM, cfm, 1e-6 * cfm);
        EXPECT_NEAR(point.m_contactERP, step * k / (step * k + c), 1e-6);
    }
}

TEST(ContactManifolds, PairMaterialIsBulletsCombinationOfTheTwoObjects)
{
    btSphereShape sphere(0.5);
    btCollisionObject a, b;
    a.setCollisionShape(&sphere);
    b.setCollisionShape(&sphere);
    a.setFriction(0.3);
    b.setFriction(0.8);
    a.setRestitution(0.5);
    b.setRestitution(0.2);
    a.setRollingFriction(0.01);
    b.setRollingFriction(0.04);
    a.setSpinningFriction(0.02);
    b.setSpinningFriction(0.05);
    const double h = 1.0 / 60.0;
    for (const bool soft : {false, true})
    {
        if (soft)
        {
            a.setContactStiffnessAndDamping(2e4, 30);
            b.setCollisionFlags(b.getCollisionFlags() | btCollisionObject::CF_HAS_FRICTION_ANCHOR);
        }
        const PairMaterial material = CombineMaterial(a, b);
        EXPECT_EQ(material.friction, btManifoldResult::calculateCombinedFriction(&a, &b));
        EXPECT_EQ(material.restitution, btManifoldResult::calculateCombinedRestitution(&a, &b));
        EXPECT_EQ(material.rollingFriction, btManifoldResult::calculateCombinedRollingFriction(&a, &b));
        EXPECT_EQ(material.spinningFriction, btManifoldResult::calculateCombinedSpinningFriction(&a, &b));
        EXPECT_EQ(material.stiffnessDamping, soft);
        EXPECT_EQ(material.frictionAnchor, soft);
        if (soft)
        {
            EXPECT_EQ(material.contactStiffness, btManifoldResult::calculateCombinedContactStiffness(&a, &b));
            EXPECT_EQ(material.contactDamping, btManifoldResult::calculateCombinedContactDamping(&a, &b));
        }
        // A point made with the pair's material is the point made without it.
        for (const double compliance : {0.0, 0.003})
        {
            const PairContact contact = PredictedContact(-0.01, 0.002, compliance, 0.2);
            const btManifoldPoint once = MakeManifoldPoint(contact, PointIds{}, a, b, h, material);
            const btManifoldPoint each = MakeManifoldPoint(contact, PointIds{}, a, b, h);
            EXPECT_EQ(once.m_combinedFriction, each.m_combinedFriction);
            EXPECT_EQ(once.m_combinedRestitution, each.m_combinedRestitution);
            EXPECT_EQ(once.m_combinedRollingFriction, each.m_combinedRollingFriction);
            EXPECT_EQ(once.m_combinedSpinningFriction, each.m_combinedSpinningFriction);
            EXPECT_EQ(once.m_contactPointFlags, each.m_contactPointFlags);
            EXPECT_EQ(once.m_contactCFM, each.m_contactCFM);
            EXPECT_EQ(once.m_contactERP, each.m_contactERP);
            EXPECT_EQ(once.m_distance1, each.m_distance1);
            EXPECT_EQ((once.m_contactPointFlags & BT_CONTACT_FLAG_FRICTION_ANCHOR) != 0, soft);
        }
    }
}

TEST(ContactManifolds, SolverGapIsWhatBulletNeedsToCloseThePredictedGap)
{
    // Bullet drives h·J·v + cfm·λ to −distance (distance > 0) or −erp·distance; SetSolverGap must make that
    // −target, target = stepMotion − compliance·λ° + (d > 0 ? d : erp·d).
    int checked = 0;
    for (const double d : {0.02, 0.001, 0.0, -0.004, -0.03})
        for (const double motion : {0.0, 0.004, -0.006})
            for (const double compliance : {0.0, 0.002})
                for (const double warm : {0.0, 1.5})
                    for (const double erp : {0.2, 0.8})
                        for (const bool ownErp : {false, true})
                        {
                            const PairContact contact = PredictedContact(d, motion, compliance, erp);
                            btManifoldPoint point;
                            point.m_distance1 = btScalar(d);
                            point.m_appliedImpulse = btScalar(warm);
                            if (ownErp)
                            {
                                point.m_contactERP = btScalar(0.5);
                                point.m_contactPointFlags |= BT_CONTACT_FLAG_HAS_CONTACT_ERP;
                            }
                            SetSolverGap(point, contact);
                            const double e = ownErp ? 0.5 : erp;
                            const double target = motion - compliance * warm + (d > 0.0 ? d : e * d);
                            const double distance = double(point.m_distance1);
                            const double asked = distance > 0.0 ? distance : e * distance;
                            EXPECT_NEAR(asked, target, 1e-7)
                                << "d " << d << " motion " << motion << " compliance " << compliance
                                << " warm " << warm << " erp " << e;
                            ++checked;
                        }
    EXPECT_EQ(checked, 240);

    // No prediction: the distance is left as it was.
    for (const double noErp : {0.0, -0.2, std::numeric_limits<double>::quiet_NaN()})
    {
        btManifoldPoint point;
        point.m_distance1 = btScalar(0.125);
        point.m_appliedImpulse = btScalar(2);
        SetSolverGap(point, PredictedContact(-0.01, 0.004, 0.002, noErp));
        EXPECT_EQ(point.m_distance1, btScalar(0.125));
    }
}

TEST(ContactManifolds, BulletsSolverClosesThePredictedGapThroughTheCompliance)
{
    // One point under a 2 kg ball on static ground, solved by Bullet: h·v·n + compliance·λ = −target.
    const double h = 1.0 / 60.0, mass = 2.0, erp = 0.2;
    struct Case
    {
        double distance, motion, compliance, warm, velocity;
    };
    for (const Case& scenario : {Case{-0.01, 0.002, 0.004, 0.0, -1.0}, Case{0.005, -0.001, 0.002, 0.5, -1.0},
                                 Case{-0.02, -0.001, 0.003, 1.0, -0.5}, Case{0.003, -0.01, 0.001, 0.0, 0.0},
                                 Case{-0.005, 0.0, 0.0, 0.0, -0.3}})
    {
        btSphereShape ballShape(0.5);
        btVector3 inertia;
        ballShape.calculateLocalInertia(btScalar(mass), inertia);
        btRigidBody ball(
            btRigidBody::btRigidBodyConstructionInfo(btScalar(mass), nullptr, &ballShape, inertia));
        btStaticPlaneShape groundShape(btVector3(0, 1, 0), 0);
        btRigidBody ground(btRigidBody::btRigidBodyConstructionInfo(0, nullptr, &groundShape));
        ball.setWorldTransform(
            btTransform(btQuaternion::getIdentity(), btVector3(0, btScalar(0.5 + scenario.distance), 0)));
        ball.setLinearVelocity(btVector3(0, btScalar(scenario.velocity), 0));

        PairContact contact;
        contact.pointOnB = Vec3d::Zero();
        contact.normal = Vec3d::UnitY();
        contact.distance = scenario.distance;
        contact.stepMotion = scenario.motion;
        contact.compliance = scenario.compliance;
        contact.predictionErp = erp;
        contact.feature0.node = 0;
        btManifoldPoint point = MakeManifoldPoint(contact, PointIds{0, -1, -1, -1}, ball, ground, h);
        point.m_appliedImpulse = btScalar(scenario.warm); // the warm start, then the gap that accounts for it
        SetSolverGap(point, contact);
        btPersistentManifold manifold(&ball, &ground, 0, 1, 1);
        manifold.addManifoldPoint(point);

        btContactSolverInfo info;
        info.m_timeStep = btScalar(h);
        info.m_erp2 = btScalar(erp);
        info.m_splitImpulse = false; // all of the gap in the velocities
        info.m_numIterations = 20;
        btSequentialImpulseConstraintSolver solver;
        btCollisionObject* bodies[2] = {&ball, &ground};
        btPersistentManifold* manifolds[1] = {&manifold};
        solver.solveGroup(bodies, 2, manifolds, 1, nullptr, 0, info, nullptr, nullptr);

        const double impulse = manifold.getContactPoint(0).m_appliedImpulse;
        const double velocity = ball.getLinearVelocity().y();
        ASSERT_GT(impulse, 0.0) << "the contact pushes";
        EXPECT_NEAR(impulse, mass * (velocity - scenario.velocity), 1e-4);
        const double target = scenario.motion - scenario.compliance * scenario.warm +
                              (scenario.distance > 0.0 ? scenario.distance : erp * scenario.distance);
        EXPECT_NEAR(h * velocity + scenario.compliance * impulse, -target, 1e-6)
            << "d " << scenario.distance << " motion " << scenario.motion;
    }
}

} // namespace
} // namespace bdt::test::collision
