// Regions, the four-point reduction, warm starting and the manifolds' lifetime, in a real btCollisionWorld.

#include "../../plugin/bullet/ContactRegions.h"
#include "CollisionTestScenes.h"
#include "support/QueryOracles.h"

#include <BulletCollision/BroadphaseCollision/btCollisionAlgorithm.h>
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <algorithm>
#include <bdt/bullet/CollisionConfiguration.h>
#include <bdt/bullet/CollisionRegistration.h>
#include <gtest/gtest.h>
#include <limits>
#include <map>
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

using PointKey = std::tuple<int, int, int>; // (m_index0, m_index1, m_partId1)

PointKey KeyOf(const btManifoldPoint& inPoint)
{
    return {inPoint.m_index0, inPoint.m_index1, inPoint.m_partId1};
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
        const ProxyLevel& proxies = *BoxAsset()->Proxies(proxyLevel);
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

TEST(ContactRegions, MergedRegionsGoToTheNearestKeptRegionAndPersistentOnesAreKept)
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
    // Deepest three: regions 0, 2, 4 (keys 10, 12, 14).
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
    // A region that had a manifold last step is kept before a deeper new one.
    AssignRegions(contacts, keys, std::vector<std::uint32_t>{11}, 3, assignment);
    EXPECT_EQ(assignment.keys, (std::vector<std::uint32_t>{10, 11, 12}));
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
        EXPECT_EQ(points, std::min<std::size_t>(within, 4 * manifolds.size()));
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

} // namespace
} // namespace bdt::test::collision
