// bdt::World attaching to a host world: callback chaining, guards against bad input and non-finite state.
#include "support/BulletScenes.h"

#include <bdt/adapter/World.h>
#include <bdt/bullet/CollisionConfiguration.h>
#include <bdt/core/Error.h>
#include <btBulletDynamicsCommon.h>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>

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

TEST(WorldAttach, CreateBodyRejectsBadInput)
{
    HostWorld host;
    World world(host.world);
    const auto asset = test::ShapeAsset("box", 300, 4);
    BodyDesc desc;
    EXPECT_THROW(world.CreateBody(std::shared_ptr<const DeformableAsset>(), desc), Error);
    desc.mass = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(world.CreateBody(asset, desc), Error);
    desc = {};
    desc.scale = 0.0;
    EXPECT_THROW(world.CreateBody(asset, desc), Error);
    desc = {};
    desc.material.margin = -1.0f;
    EXPECT_THROW(world.CreateBody(asset, desc), Error);
    desc = {};
    desc.transform.setOrigin(btVector3(std::numeric_limits<btScalar>::infinity(), 0, 0));
    EXPECT_THROW(world.CreateBody(asset, desc), Error);
    try
    {
        world.CreateBody("/nonexistent/chair.bdt", BodyDesc{});
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
    BodyDesc desc;
    desc.transform.setOrigin(btVector3(0, 2, 0));
    btRigidBody* body = world.CreateBody(asset, desc);
    desc.transform.setOrigin(btVector3(0, 4, 0));
    btRigidBody* other = world.CreateBody(asset, desc);
    host.world.stepSimulation(btScalar(1.0 / 60.0), 0);
    const btTransform good = body->getWorldTransform();
    body->setLinearVelocity(btVector3(std::numeric_limits<btScalar>::quiet_NaN(), 0, 0));
    host.world.stepSimulation(btScalar(1.0 / 60.0), 0);
    EXPECT_EQ(world.Stats().transformResets, 1u);
    EXPECT_TRUE(std::isfinite(double(body->getWorldTransform().getOrigin().length2())));
    EXPECT_EQ(body->getWorldTransform().getOrigin(), good.getOrigin());
    EXPECT_EQ(body->getLinearVelocity(), btVector3(0, 0, 0));
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

} // namespace
} // namespace bdt
