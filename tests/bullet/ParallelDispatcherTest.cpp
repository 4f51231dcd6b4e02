// `ParallelDispatcher`: deformable pairs' contacts generated on two threads give the serial dispatcher's
// world bit for bit, with rigid bodies in the scene too.

#include "support/BulletScenes.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/adapter/Scenes.h>
#include <bdt/bullet/ParallelDispatcher.h>
#include <cstring>
#include <gtest/gtest.h>
#include <memory>
#include <vector>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;

ParallelDispatcher& DispatcherOf(SampleWorld& ioWorld)
{
    auto* dispatcher = dynamic_cast<ParallelDispatcher*>(ioWorld.Dynamics().getDispatcher());
    EXPECT_NE(dispatcher, nullptr);
    return *dispatcher;
}

// A pile of deformable chairs with a rigid box and sphere dropped among them, on the ground.
struct PileScene
{
    std::unique_ptr<SampleWorld> world;
    std::vector<btRigidBody*> bodies; // deformables first, then the rigid ones

    explicit PileScene(unsigned inThreads)
    {
        SampleWorldSettings settings;
        settings.narrowphaseThreads = inThreads;
        world = std::make_unique<SampleWorld>(settings);
        world->AddGroundPlane();
        PileSettings pile;
        pile.count = 12;
        pile.layers = 3;
        pile.spacing = 0.8;
        pile.body.proxyLevel = 7;
        bodies = AddPile(*world, test::ShapeAsset("chair", 3000, 10), pile);
        bodies.push_back(world->AddRigid(std::make_unique<btBoxShape>(btVector3(0.2f, 0.2f, 0.2f)),
                                         btTransform(btQuaternion::getIdentity(), btVector3(0.3f, 6.0f, 0.1f)),
                                         2.0));
        bodies.push_back(world->AddRigid(std::make_unique<btSphereShape>(btScalar(0.25)),
                                         btTransform(btQuaternion::getIdentity(), btVector3(-0.4f, 7.0f, 0.2f)),
                                         2.0));
    }

    std::size_t ContactPoints() const
    {
        btDispatcher& dispatcher = *world->Dynamics().getDispatcher();
        std::size_t points = 0;
        for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
            points += std::size_t(dispatcher.getManifoldByIndexInternal(m)->getNumContacts());
        return points;
    }
};

TEST(ParallelDispatcher, TwoThreadsStepTheSerialWorldBitForBit)
{
    PileScene serial(1);
    PileScene parallel(2);
    EXPECT_EQ(DispatcherOf(*serial.world).Threads(), 1u);
    EXPECT_EQ(DispatcherOf(*parallel.world).Threads(), 2u);
    std::size_t prepared = 0, contacts = 0;
    for (int step = 0; step < 240; ++step)
    {
        serial.world->Step(1, cStep);
        parallel.world->Step(1, cStep);
        EXPECT_EQ(DispatcherOf(*serial.world).PreparedPairs(), 0u);
        prepared += DispatcherOf(*parallel.world).PreparedPairs();
        contacts += parallel.ContactPoints();
        ASSERT_EQ(serial.ContactPoints(), parallel.ContactPoints()) << "step " << step;
        const std::vector<double> a = test::RawBodyState(serial.bodies);
        const std::vector<double> b = test::RawBodyState(parallel.bodies);
        ASSERT_EQ(a.size(), b.size());
        ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << "step " << step;
    }
    // The parallel path ran: chair pairs were generated ahead of Bullet's pass, and the pile touched.
    EXPECT_GT(prepared, 100u);
    EXPECT_GT(contacts, 1000u);
}

TEST(ParallelDispatcher, ThreadCountZeroMeansTheMachinesAndOneIsSerial)
{
    SampleWorldSettings settings;
    settings.narrowphaseThreads = 0;
    SampleWorld world(settings);
    ParallelDispatcher& dispatcher = DispatcherOf(world);
    EXPECT_GE(dispatcher.Threads(), 1u);
    dispatcher.SetThreads(1);
    EXPECT_EQ(dispatcher.Threads(), 1u);
    dispatcher.SetThreads(3);
    EXPECT_EQ(dispatcher.Threads(), 3u);
}

} // namespace
} // namespace bdt
