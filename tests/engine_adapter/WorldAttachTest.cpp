// bdt::World attaching to a host world: callback chaining, guards against bad input and non-finite state.
#include "support/BulletScenes.h"

#include <bdt/adapter/World.h>
#include <bdt/bullet/CollisionConfiguration.h>
#include <bdt/bullet/CollisionRegistration.h>
#include <bdt/core/base/Error.h>
#include <btBulletDynamicsCommon.h>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <memory>
#include <new>
#include <vector>

namespace bdt
{
namespace
{

int sHostPre = 0, sHostPost = 0;
void HostPre(btDynamicsWorld*, btScalar)
{
    ++sHostPre;
}
void HostPost(btDynamicsWorld*, btScalar)
{
    ++sHostPost;
}

struct HostWorld
{
    CollisionConfiguration configuration;
    btCollisionDispatcher dispatcher{&configuration};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &configuration};
};

TEST(WorldAttach, ChainsTheHostsTickCallbacksAndRestoresThem)
{
    HostWorld host;
    int userInfo = 42;
    host.world.setInternalTickCallback(&HostPost, &userInfo, false);
    host.world.setInternalTickCallback(&HostPre, &userInfo, true);
    sHostPre = sHostPost = 0;
    {
        World world(host.world);
        EXPECT_THROW(World second(host.world), Error);
        for (int i = 0; i < 3; ++i)
            host.world.stepSimulation(btScalar(1.0 / 60.0), 0);
        EXPECT_EQ(sHostPre, 3);
        EXPECT_EQ(sHostPost, 3);
        EXPECT_EQ(world.Stats().steps, 3u);
        EXPECT_EQ(host.world.getWorldUserInfo(), &userInfo);
    }
    host.world.stepSimulation(btScalar(1.0 / 60.0), 0);
    EXPECT_EQ(sHostPre, 4);
    EXPECT_EQ(sHostPost, 4);
    EXPECT_EQ(host.world.getWorldUserInfo(), &userInfo);
}

TEST(WorldAttach, DetachingLeavesAHostCallbackSetAfterAttaching)
{
    HostWorld host;
    sHostPre = sHostPost = 0;
    {
        World world(host.world);
        host.world.setInternalTickCallback(&HostPost, nullptr, false); // the host's, after ours
    }
    host.world.stepSimulation(btScalar(1.0 / 60.0), 0);
    EXPECT_EQ(sHostPost, 1); // still the host's
    EXPECT_EQ(sHostPre, 0);  // the pre-tick slot held nothing of the host's before the attach
}

// A host that sets its own tick callbacks after attaching (both, or one, or none to clear its own): the plugin
// puts its own back in the same step, chaining the host's, and keeps stepping; the host keeps its callbacks
// after the World goes.
TEST(WorldAttach, AHostReplacingTheTickCallbacksAfterAttachingIsChained)
{
    HostWorld host;
    sHostPre = sHostPost = 0;
    {
        World world(host.world);
        BodySettings desc;
        desc.transform.setOrigin(btVector3(0, 10, 0));
        btRigidBody* body = world.CreateBody(test::ShapeAsset("box", 300, 4), desc);
        for (int i = 0; i < 2; ++i)
            host.world.stepSimulation(btScalar(1.0 / 60.0), 0);
        host.world.setInternalTickCallback(&HostPre, nullptr, true);
        host.world.setInternalTickCallback(&HostPost, nullptr, false);
        for (int i = 0; i < 5; ++i)
            host.world.stepSimulation(btScalar(1.0 / 60.0), 0);
        EXPECT_EQ(world.Stats().steps, 7u);        // no post-tick missed
        EXPECT_EQ(world.Stats().callbackRepairs, 2u);
        EXPECT_EQ(sHostPre, 5);  // the replacing step's own (Bullet called it instead of ours), then chained
        EXPECT_EQ(sHostPost, 5); // chained from the replacing step on
        // Only the post-tick, to nothing: repaired again, and the host's pre-tick still chained.
        host.world.setInternalTickCallback(nullptr, nullptr, false);
        host.world.stepSimulation(btScalar(1.0 / 60.0), 0);
        EXPECT_EQ(world.Stats().steps, 8u);
        EXPECT_EQ(world.Stats().callbackRepairs, 3u);
        EXPECT_EQ(sHostPre, 6);
        EXPECT_EQ(sHostPost, 5);
        EXPECT_LT(body->getWorldTransform().getOrigin().y(), 10.0f);
        host.world.setInternalTickCallback(&HostPost, nullptr, false);
    }
    host.world.stepSimulation(btScalar(1.0 / 60.0), 0);
    EXPECT_EQ(sHostPre, 7); // the host's, given back
    EXPECT_EQ(sHostPost, 6);
}

// The Bullet world destroyed before the World that holds bodies in it: ~World writes nothing into the dead world
// (its memory is poisoned here and compared after; the sanitizer build also catches any read), and still frees
// its bodies. And a host that removed the World's bodies from a live world itself gets its callbacks back.
TEST(WorldAttach, DestroyingTheBulletWorldFirstLeavesItAlone)
{
    CollisionConfiguration configuration;
    btCollisionDispatcher dispatcher{&configuration};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    alignas(btDiscreteDynamicsWorld) unsigned char storage[sizeof(btDiscreteDynamicsWorld)];
    auto* host = new (storage) btDiscreteDynamicsWorld(&dispatcher, &broadphase, &solver, &configuration);
    auto world = std::make_unique<World>(*host);
    const auto asset = test::ShapeAsset("box", 300, 4);
    for (int i = 0; i < 3; ++i)
    {
        BodySettings desc;
        desc.transform.setOrigin(btVector3(0, 1.2f * float(i) + 0.6f, 0));
        world->CreateBody(asset, desc);
    }
    host->stepSimulation(btScalar(1.0 / 60.0), 0);
    host->~btDiscreteDynamicsWorld();
    std::memset(storage, 0xA5, sizeof(storage));
    world.reset();
    for (unsigned char byte : storage)
        ASSERT_EQ(byte, 0xA5);
}

TEST(WorldAttach, AHostRemovingTheBodiesItselfStillGetsItsCallbacksBack)
{
    HostWorld host;
    sHostPre = 0;
    host.world.setInternalTickCallback(&HostPre, nullptr, true);
    {
        World world(host.world);
        btRigidBody* body = world.CreateBody(test::ShapeAsset("box", 300, 4), BodySettings{});
        host.world.stepSimulation(btScalar(1.0 / 60.0), 0);
        host.world.removeRigidBody(body);
    }
    EXPECT_EQ(host.world.getNumCollisionObjects(), 0);
    host.world.stepSimulation(btScalar(1.0 / 60.0), 0);
    EXPECT_EQ(sHostPre, 2);
}

TEST(WorldAttach, SettingsOutOfRangeThrow)
{
    HostWorld host;
    for (double bad : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()})
    {
        WorldSettings settings;
        settings.maxLinearSpeed = bad;
        EXPECT_THROW(World refused(host.world, settings), Error) << bad;
        settings = {};
        settings.maxAngularSpeed = bad;
        EXPECT_THROW(World refused(host.world, settings), Error) << bad;
        settings = {};
        settings.sweepTravelFraction = bad;
        EXPECT_THROW(World refused(host.world, settings), Error) << bad;
    }
    World world(host.world);
    WorldSettings settings;
    settings.coupledSweeps = -1;
    EXPECT_THROW(world.SetSettings(settings), Error);
    EXPECT_EQ(world.Settings().coupledSweeps, WorldSettings{}.coupledSweeps);
}

TEST(WorldAttach, ADispatcherWithoutTheAlgorithmsIsRefused)
{
    // Bullet's own configuration, nothing registered: Bullet would take a DeformableShape for an SDF.
    btDefaultCollisionConstructionInfo info;
    info.m_customCollisionAlgorithmMaxElementSize = int(CollisionAlgorithmSize());
    btDefaultCollisionConfiguration configuration(info);
    btCollisionDispatcher dispatcher(&configuration);
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld host(&dispatcher, &broadphase, &solver, &configuration);
    EXPECT_FALSE(HasCollisionAlgorithms(dispatcher));
    EXPECT_THROW(World refused(host), Error);
    // Refused without a trace: the host's callbacks are untouched and a later attach is not "already attached".
    registerCollisionAlgorithms(dispatcher);
    EXPECT_TRUE(HasCollisionAlgorithms(dispatcher));
    World world(host);
    host.stepSimulation(btScalar(1.0 / 60.0), 0);
    EXPECT_EQ(world.Stats().steps, 1u);
}

TEST(WorldAttach, CreateBodyRejectsBadInput)
{
    HostWorld host;
    World world(host.world);
    const auto asset = test::ShapeAsset("box", 300, 4);
    BodySettings desc;
    EXPECT_THROW(world.CreateBody(std::shared_ptr<const DeformableAsset>(), desc), Error);
    desc.mass = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(world.CreateBody(asset, desc), Error);
    desc = {};
    desc.scale = 0.0;
    EXPECT_THROW(world.CreateBody(asset, desc), Error);
    desc = {};
    desc.material.margin = -1.0f;
    EXPECT_THROW(world.CreateBody(asset, desc), Error);
    desc.material.margin = 1e12f;
    EXPECT_THROW(world.CreateBody(asset, desc), Error);
    desc = {};
    desc.transform.setOrigin(btVector3(std::numeric_limits<btScalar>::infinity(), 0, 0));
    EXPECT_THROW(world.CreateBody(asset, desc), Error);
    try
    {
        world.CreateBody("/nonexistent/chair.bdt", BodySettings{});
        ADD_FAILURE() << "loading a missing asset did not throw";
    }
    catch (const Error& error)
    {
        EXPECT_NE(std::string(error.what()).find("/nonexistent/chair.bdt"), std::string::npos)
            << error.what();
    }
    EXPECT_TRUE(world.Bodies().empty());
    EXPECT_EQ(host.world.getNumCollisionObjects(), 0);
}

TEST(WorldAttach, NonFiniteVelocityIsResetNotSpread)
{
    HostWorld host;
    World world(host.world);
    const auto asset = test::ShapeAsset("box", 300, 4);
    BodySettings desc;
    desc.transform.setOrigin(btVector3(0, 2, 0));
    btRigidBody* body = world.CreateBody(asset, desc);
    desc.transform.setOrigin(btVector3(0, 4, 0));
    btRigidBody* other = world.CreateBody(asset, desc);
    host.world.stepSimulation(btScalar(1.0 / 60.0), 0);
    const btTransform good = body->getWorldTransform();
    body->setLinearVelocity(btVector3(std::numeric_limits<btScalar>::quiet_NaN(), 0, 0));
    host.world.stepSimulation(btScalar(1.0 / 60.0), 0);
    // Zeroed before the solve (the body stays where it was and falls from rest), not put back.
    EXPECT_EQ(world.Stats().stateRepairs, 1u);
    EXPECT_EQ(world.Stats().transformResets, 0u);
    EXPECT_EQ(body->getWorldTransform().getOrigin().x(), good.getOrigin().x());
    EXPECT_LE(body->getLinearVelocity().length(), host.world.getGravity().length() / 60.0f * 1.001f);
    for (int i = 0; i < 30; ++i)
        host.world.stepSimulation(btScalar(1.0 / 60.0), 0);
    for (btRigidBody* b : {body, other})
    {
        EXPECT_TRUE(std::isfinite(double(b->getWorldTransform().getOrigin().length2())));
        for (double q : World::Shape(b)->Dynamics().QDouble())
            EXPECT_TRUE(std::isfinite(q));
    }
    EXPECT_TRUE(world.DestroyBody(body));
    EXPECT_FALSE(world.DestroyBody(body));
    EXPECT_EQ(world.Bodies().size(), 1u);
}

TEST(WorldAttach, DestroyingEveryBodyFromACopyOfBodies)
{
    HostWorld host;
    World world(host.world);
    const auto asset = test::ShapeAsset("box", 300, 4);
    for (int i = 0; i < 10; ++i)
    {
        BodySettings desc;
        desc.transform.setOrigin(btVector3(btScalar(2 * i), 3, 0));
        world.CreateBody(asset, desc);
    }
    ASSERT_EQ(world.Bodies().size(), 10u);
    ASSERT_EQ(host.world.getNumCollisionObjects(), 10);
    // The documented way: Bodies() is a view that DestroyBody invalidates.
    const std::vector<btRigidBody*> all(world.Bodies().begin(), world.Bodies().end());
    for (btRigidBody* body : all)
        EXPECT_TRUE(world.DestroyBody(body));
    EXPECT_TRUE(world.Bodies().empty());
    EXPECT_EQ(host.world.getNumCollisionObjects(), 0);
}

} // namespace
} // namespace bdt
