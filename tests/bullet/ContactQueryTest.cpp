// The closest-points path: btCollisionWorld::contactTest and contactPairTest against a deformable report
// points through the result callback and create no manifold.

#include "CollisionTestScenes.h"

#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btCollisionObjectWrapper.h>
#include <BulletCollision/CollisionDispatch/btCollisionWorld.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/CollisionConfiguration.h>
#include <gtest/gtest.h>
#include <map>
#include <set>

namespace bdt::test::collision
{
namespace
{

struct Recorded
{
    btManifoldPoint point;
    const btCollisionObject* object0;
    const btCollisionObject* object1;
    int partId0, index0, partId1, index1;
};

struct Recorder : public btCollisionWorld::ContactResultCallback
{
    btScalar addSingleResult(btManifoldPoint& cp, const btCollisionObjectWrapper* colObj0Wrap, int partId0,
                             int index0, const btCollisionObjectWrapper* colObj1Wrap, int partId1,
                             int index1) override
    {
        points.push_back({cp, colObj0Wrap->getCollisionObject(), colObj1Wrap->getCollisionObject(), partId0,
                          index0, partId1, index1});
        return 0;
    }
    std::vector<Recorded> points;
};

struct QueryWorld
{
    QueryWorld() : dispatcher(&configuration), world(&dispatcher, &broadphase, &configuration) {}
    CollisionConfiguration configuration;
    btCollisionDispatcher dispatcher;
    btDbvtBroadphase broadphase;
    btCollisionWorld world;
};

// Checks the recorded points of the deformable against a world sphere: every proxy within inThreshold of it
// is reported once, in the deformable-first order, with Bullet's point relations.
void CheckSpherePoints(const Recorder& inRecorder, const DeformableObject& inBody,
                       const btCollisionObject& inSphere, double inRadius, double inThreshold)
{
    const std::vector<WorldProxy> proxies = WorldProxies(*inBody.shape, inBody.object.getWorldTransform());
    const Vec3d center = ToVec3d(inSphere.getWorldTransform().getOrigin());
    std::map<std::uint32_t, const WorldProxy*> byNode;
    std::set<std::uint32_t> expected;
    for (const WorldProxy& proxy : proxies)
    {
        byNode[proxy.node] = &proxy;
        if ((proxy.center - center).norm() - proxy.radius - inRadius <= inThreshold - 1e-5)
            expected.insert(proxy.node);
    }
    ASSERT_FALSE(expected.empty());
    std::set<std::uint32_t> reported;
    for (const Recorded& recorded : inRecorder.points)
    {
        // The bridged result hands the points over in the manifold's order: the deformable first.
        EXPECT_EQ(recorded.object0, &inBody.object);
        EXPECT_EQ(recorded.object1, &inSphere);
        const btManifoldPoint& point = recorded.point;
        EXPECT_EQ(recorded.index0, point.m_index0);
        EXPECT_EQ(point.m_index0, -1); // a proxy contact: no triangle
        ASSERT_TRUE(byNode.count(std::uint32_t(point.m_partId0)));
        EXPECT_TRUE(reported.insert(std::uint32_t(point.m_partId0)).second);
        EXPECT_EQ(point.m_index1, -1);
        const WorldProxy& proxy = *byNode.at(std::uint32_t(point.m_partId0));
        const double distance = (proxy.center - center).norm() - proxy.radius - inRadius;
        EXPECT_LE(point.getDistance(), btScalar(inThreshold + 1e-6));
        EXPECT_NEAR(point.getDistance(), distance, 1e-4);
        const Vec3d a = ToVec3d(point.getPositionWorldOnA());
        const Vec3d b = ToVec3d(point.getPositionWorldOnB());
        EXPECT_NEAR((b - center).norm(), inRadius, 1e-4); // B is the sphere
        EXPECT_NEAR((a - proxy.center).norm(), proxy.radius, 1e-4);
        EXPECT_LT((a - b - ToVec3d(point.m_normalWorldOnB) * double(point.getDistance())).norm(), 1e-5);
    }
    EXPECT_EQ(reported, expected);
}

TEST(ContactQueries, ContactTestWithASphereReportsEveryTouchingProxyAndCreatesNoManifold)
{
    QueryWorld world;
    DeformableObject body;
    world.world.addCollisionObject(&body.object);
    btSphereShape sphereShape(0.3);
    btCollisionObject sphere;
    sphere.setCollisionShape(&sphereShape);
    btTransform transform;
    transform.setIdentity();
    transform.setOrigin(btVector3(0.6, 0.2, 0.1)); // into the box's +x face
    sphere.setWorldTransform(transform);

    // The sphere as the query (body 0 of the result, the deformable is body 1), threshold 0.
    Recorder recorder;
    world.world.contactTest(&sphere, recorder);
    EXPECT_EQ(world.dispatcher.getNumManifolds(), 0);
    CheckSpherePoints(recorder, body, sphere, 0.3, 0.0);

    // The deformable as the query.
    world.world.addCollisionObject(&sphere);
    Recorder fromBody;
    world.world.contactTest(&body.object, fromBody);
    EXPECT_EQ(world.dispatcher.getNumManifolds(), 0);
    CheckSpherePoints(fromBody, body, sphere, 0.3, 0.0);

    // A pair test with a distance threshold reports the speculative points too.
    Recorder pairRecorder;
    pairRecorder.m_closestDistanceThreshold = btScalar(0.05);
    world.world.contactPairTest(&sphere, &body.object, pairRecorder);
    EXPECT_EQ(world.dispatcher.getNumManifolds(), 0);
    CheckSpherePoints(pairRecorder, body, sphere, 0.3, 0.05);
    EXPECT_GT(pairRecorder.points.size(), recorder.points.size());
}

TEST(ContactQueries, AQueryFromInsideAQuerysCallbackLeavesTheOuterReportWhole)
{
    // A host's callback may query the world again (a contactTest from addSingleResult, on the same thread): the
    // inner query's contacts must not take the place of the outer query's, nor free the list it reads.
    QueryWorld world;
    DeformableObject body;
    world.world.addCollisionObject(&body.object);
    btSphereShape bigShape(0.3), smallShape(0.1);
    btCollisionObject big, small;
    big.setCollisionShape(&bigShape);
    small.setCollisionShape(&smallShape);
    btTransform transform;
    transform.setIdentity();
    transform.setOrigin(btVector3(0.6, 0.2, 0.1)); // into the box's +x face: many proxies
    big.setWorldTransform(transform);
    transform.setOrigin(btVector3(0.0, 0.55, 0.0)); // on its top face: a few
    small.setWorldTransform(transform);

    Recorder alone;
    world.world.contactTest(&big, alone);
    Recorder inner;
    struct Nesting : Recorder
    {
        btCollisionWorld* world = nullptr;
        btCollisionObject* query = nullptr;
        Recorder* inner = nullptr;
        btScalar addSingleResult(btManifoldPoint& cp, const btCollisionObjectWrapper* colObj0Wrap, int partId0,
                                 int index0, const btCollisionObjectWrapper* colObj1Wrap, int partId1,
                                 int index1) override
        {
            if (points.empty())
                world->contactTest(query, *inner);
            return Recorder::addSingleResult(cp, colObj0Wrap, partId0, index0, colObj1Wrap, partId1, index1);
        }
    } nesting;
    nesting.world = &world.world;
    nesting.query = &small;
    nesting.inner = &inner;
    world.world.contactTest(&big, nesting);

    ASSERT_GT(alone.points.size(), inner.points.size());
    ASSERT_FALSE(inner.points.empty());
    ASSERT_EQ(nesting.points.size(), alone.points.size());
    for (std::size_t i = 0; i < alone.points.size(); ++i)
    {
        EXPECT_EQ(nesting.points[i].point.m_partId0, alone.points[i].point.m_partId0);
        EXPECT_EQ(nesting.points[i].point.getDistance(), alone.points[i].point.getDistance());
        EXPECT_EQ(nesting.points[i].point.getPositionWorldOnB(), alone.points[i].point.getPositionWorldOnB());
    }
}

TEST(ContactQueries, ContactTestAgainstACompoundGoesThroughItsChildrenWithoutManifolds)
{
    QueryWorld world;
    DeformableObject body;
    world.world.addCollisionObject(&body.object);
    OtherShape compound = MakeOtherShape("compound");
    btCollisionObject other;
    other.setCollisionShape(compound.shape.get());
    btTransform transform;
    transform.setIdentity();
    transform.setOrigin(btVector3(0.1, 0.6, 0.0)); // on the box's top face
    other.setWorldTransform(transform);

    for (const double threshold : {0.0, 0.03})
    {
        Recorder recorder;
        recorder.m_closestDistanceThreshold = btScalar(threshold);
        world.world.contactPairTest(&other, &body.object, recorder);
        EXPECT_EQ(world.dispatcher.getNumManifolds(), 0);
        ASSERT_FALSE(recorder.points.empty()) << threshold;
        const std::vector<WorldProxy> proxies = WorldProxies(*body.shape, body.object.getWorldTransform());
        std::set<int> children;
        for (const Recorded& recorded : recorder.points)
        {
            EXPECT_EQ(recorded.object0, &body.object);
            EXPECT_EQ(recorded.object1, &other);
            EXPECT_LE(recorded.point.getDistance(), btScalar(threshold + 1e-6));
            const Vec3d b = ToVec3d(recorded.point.getPositionWorldOnB());
            EXPECT_NEAR(compound.Distance(transform, b), 0.0, 1e-4);
            // B's identifiers name the compound's child, as Bullet's own algorithms report them.
            EXPECT_EQ(recorded.point.m_partId1, -1);
            children.insert(recorded.point.m_index1);
        }
        for (int child : children)
            EXPECT_TRUE(child == 0 || child == 1) << child;
    }
}

} // namespace
} // namespace bdt::test::collision
