// `ParallelDispatcher`: deformable pairs' contacts generated on two threads give the serial dispatcher's
// world bit for bit, with rigid bodies in the scene too.

#include "CollisionTestScenes.h"
#include "support/BulletScenes.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btBvhTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btCompoundShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btTriangleMesh.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <bdt/samples/Scenes.h>
#include <bdt/adapter/World.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/ParallelDispatcher.h>
#include <algorithm>
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
        bodies = test::AddChairPile(*world, 12, 3);
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
    std::size_t prepared = 0, apart = 0, contacts = 0;
    for (int step = 0; step < 240; ++step)
    {
        serial.world->Step(1, cStep);
        parallel.world->Step(1, cStep);
        EXPECT_EQ(DispatcherOf(*serial.world).PreparedPairs(), 0u);
        prepared += DispatcherOf(*parallel.world).PreparedPairs();
        apart += DispatcherOf(*parallel.world).ApartPairs();
        contacts += parallel.ContactPoints();
        ASSERT_EQ(serial.ContactPoints(), parallel.ContactPoints()) << "step " << step;
        const std::vector<double> a = test::RawBodyState(serial.bodies);
        const std::vector<double> b = test::RawBodyState(parallel.bodies);
        ASSERT_EQ(a.size(), b.size());
        ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << "step " << step;
    }
    // The parallel path ran: chair pairs were generated ahead of Bullet's pass, and the pile touched. Some
    // pairs were found apart by their root spheres and skipped (the serial world descends them): the same.
    EXPECT_GT(prepared, 100u);
    EXPECT_GT(apart, 10u);
    EXPECT_LT(apart, prepared);
    EXPECT_GT(contacts, 1000u);
}

// Pairs of a deformable with an analytic primitive are prepared on the threads too: two chairs far apart on
// the ground, each under a rigid capsule, have no chair-chair pair, yet their ground and capsule pairs run
// ahead of Bullet's pass, and the world steps as the serial one does.
TEST(ParallelDispatcher, PrimitivePairsArePreparedToo)
{
    const auto asset = test::ShapeAsset("chair", 3000, 10);
    const auto build = [&](unsigned inThreads, std::vector<btRigidBody*>& outBodies)
    {
        SampleWorldSettings settings;
        settings.narrowphaseThreads = inThreads;
        auto world = std::make_unique<SampleWorld>(settings);
        world->AddGroundPlane();
        for (float x : {-3.0f, 3.0f})
        {
            BodySettings desc;
            desc.mass = 4.0;
            desc.proxyLevel = 7;
            desc.transform.setOrigin(btVector3(x, 1.0f, 0));
            outBodies.push_back(world->Deformables().CreateBody(asset, desc));
            outBodies.push_back(world->AddRigid(std::make_unique<btCapsuleShape>(btScalar(0.1), btScalar(0.3)),
                                                btTransform(btQuaternion::getIdentity(), btVector3(x, 2.5f, 0)),
                                                1.0));
        }
        return world;
    };
    std::vector<btRigidBody*> serialBodies, parallelBodies;
    const auto serial = build(1, serialBodies);
    const auto parallel = build(2, parallelBodies);
    std::size_t mostPrepared = 0;
    for (int step = 0; step < 150; ++step)
    {
        serial->Step(1, cStep);
        parallel->Step(1, cStep);
        mostPrepared = std::max(mostPrepared, DispatcherOf(*parallel).PreparedPairs());
        const std::vector<double> a = test::RawBodyState(serialBodies);
        const std::vector<double> b = test::RawBodyState(parallelBodies);
        ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << "step " << step;
    }
    // Two chair-ground pairs and, once their boxes overlap, two chair-capsule pairs.
    EXPECT_EQ(mostPrepared, 4u);
}

// Chairs falling onto a static triangle-mesh ramp, with a rigid convex hull and a compound of two boxes
// among them: their pairs with the chairs are not prepared (GJK, Bullet's triangle traversal, the compound's
// children), so Bullet's pass generates them on the calling thread while the helpers are still planning the
// chair pairs.
struct MixedScene
{
    std::unique_ptr<btTriangleMesh> ramp; // outlives the world's shape that refers to it
    std::unique_ptr<SampleWorld> world;
    std::vector<btRigidBody*> bodies; // deformables first, then the rigid ones
    std::vector<const btCollisionObject*> others; // the hull, the compound and the ramp

    explicit MixedScene(unsigned inThreads)
    {
        SampleWorldSettings settings;
        settings.narrowphaseThreads = inThreads;
        world = std::make_unique<SampleWorld>(settings);
        world->AddGroundPlane();
        ramp = std::make_unique<btTriangleMesh>();
        const btVector3 corners[4] = {{-2.5f, 0.6f, -2.5f}, {2.5f, 0.1f, -2.5f}, {-2.5f, 0.6f, 2.5f},
                                      {2.5f, 0.1f, 2.5f}};
        ramp->addTriangle(corners[0], corners[1], corners[2]);
        ramp->addTriangle(corners[1], corners[3], corners[2]);
        others.push_back(world->AddStatic(std::make_unique<btBvhTriangleMeshShape>(ramp.get(), true),
                                          btTransform::getIdentity()));
        bodies = test::AddChairPile(*world, 12, 3);
        auto hull = std::make_unique<btConvexHullShape>();
        for (int corner = 0; corner < 8; ++corner)
            hull->addPoint(btVector3((corner & 1) ? 0.25f : -0.25f, (corner & 2) ? 0.15f : -0.15f,
                                     (corner & 4) ? 0.3f : -0.3f));
        bodies.push_back(world->AddRigid(std::move(hull),
                                         btTransform(btQuaternion::getIdentity(), btVector3(0.2f, 6.0f, 0.1f)),
                                         2.0));
        auto compound = std::make_unique<btCompoundShape>();
        compound->addChildShape(btTransform(btQuaternion::getIdentity(), btVector3(-0.2f, 0, 0)),
                                new btBoxShape(btVector3(0.15f, 0.15f, 0.15f)));
        compound->addChildShape(btTransform(btQuaternion::getIdentity(), btVector3(0.2f, 0, 0)),
                                new btBoxShape(btVector3(0.15f, 0.15f, 0.15f)));
        bodies.push_back(world->AddRigid(std::move(compound),
                                         btTransform(btQuaternion::getIdentity(), btVector3(-0.3f, 7.0f, 0.0f)),
                                         2.0));
        others.push_back(bodies[bodies.size() - 2]);
        others.push_back(bodies.back());
    }

    ~MixedScene()
    {
        // The compound's children are ours to delete, once the world no longer uses the compound.
        auto* compound = static_cast<btCompoundShape*>(bodies.back()->getCollisionShape());
        std::vector<btCollisionShape*> children;
        for (int i = 0; i < compound->getNumChildShapes(); ++i)
            children.push_back(compound->getChildShape(i));
        world.reset();
        for (btCollisionShape* child : children)
            delete child;
    }

    /// Contact points between a chair and each of `others`.
    std::vector<std::size_t> OtherContactPoints() const
    {
        btDispatcher& dispatcher = *world->Dynamics().getDispatcher();
        std::vector<std::size_t> points(others.size(), 0);
        for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
        {
            const btPersistentManifold* manifold = dispatcher.getManifoldByIndexInternal(m);
            const bool deformable0 = AsDeformable(manifold->getBody0()->getCollisionShape()) != nullptr;
            const bool deformable1 = AsDeformable(manifold->getBody1()->getCollisionShape()) != nullptr;
            const btCollisionObject* other = deformable0 ? manifold->getBody1() : manifold->getBody0();
            const auto found = std::find(others.begin(), others.end(), other);
            if (deformable0 != deformable1 && found != others.end())
                points[std::size_t(found - others.begin())] += std::size_t(manifold->getNumContacts());
        }
        return points;
    }
};

TEST(ParallelDispatcher, OtherPairsRunOnTheCallingThreadWhilePlansAreMade)
{
    MixedScene serial(1);
    MixedScene two(2);
    MixedScene four(4); // more threads than this machine may have cores: the waits yield
    std::size_t prepared = 0;
    std::vector<std::size_t> otherPoints(3, 0);
    for (int step = 0; step < 200; ++step)
    {
        serial.world->Step(1, cStep);
        two.world->Step(1, cStep);
        four.world->Step(1, cStep);
        prepared += DispatcherOf(*four.world).PreparedPairs();
        const std::vector<std::size_t> points = serial.OtherContactPoints();
        for (std::size_t k = 0; k < points.size(); ++k)
            otherPoints[k] += points[k];
        ASSERT_EQ(points, two.OtherContactPoints()) << "step " << step;
        const std::vector<double> a = test::RawBodyState(serial.bodies);
        for (const MixedScene* parallel : {&two, &four})
        {
            const std::vector<double> b = test::RawBodyState(parallel->bodies);
            ASSERT_EQ(a.size(), b.size());
            ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(double))) << "step " << step;
        }
    }
    EXPECT_GT(prepared, 100u);
    // The ramp, the hull and the compound each touched chairs: their serial pairs ran.
    for (std::size_t k = 0; k < otherPoints.size(); ++k)
        EXPECT_GT(otherPoints[k], 10u) << "other " << k;
}

// Two deformable chairs, the second turned to face the first with the proxy that reaches farthest out of its
// root sphere, both those proxies on the line between the root centres, the root spheres apart by a gap swept
// from overlapping to well beyond the pair's reach; no gravity, the second chair closing at 1 m/s (so the pair
// searches as far as its contact breaking threshold). The pairs the threads skip as apart
// (`ParallelDispatcher::ApartPairs`) have no contact in the serial world, and the world steps as the serial
// one does at every gap, in both contact models; with proxy contacts, which the root sphere wraps closely,
// contacts begin within a few millimetres of where skipping does (the surface stands further inside).
void CheckApartPairs(EContactModel inModel)
{
    const auto asset = test::ShapeAsset("chair", 3000, 10);
    std::size_t apart = 0;
    double widestTouching = -1.0, narrowestSkipped = 1.0;
    for (int tenths = -100; tenths <= 400; tenths += 5) // tenths of a millimetre
    {
        const double gap = 1e-4 * tenths;
        const auto build = [&](unsigned inThreads, std::vector<btRigidBody*>& outBodies)
        {
            SampleWorldSettings settings;
            settings.narrowphaseThreads = inThreads;
            settings.gravity = btVector3(0, 0, 0);
            auto world = std::make_unique<SampleWorld>(settings);
            BodySettings desc;
            desc.mass = 2.0;
            desc.proxyLevel = 8;
            desc.contactModel = inModel;
            btRigidBody* a = world->Deformables().CreateBody(asset, desc);
            const DeformableShape& shape = *World::Shape(a);
            btVector3 centre;
            btScalar radius;
            shape.getBoundingSphere(centre, radius); // local frame
            const double root = double(radius) - double(shape.getMargin());
            const Vec3d c = ToVec3d(centre);
            Vec3d out = Vec3d::UnitX();
            double farthest = -1.0;
            for (const test::collision::WorldProxy& proxy : test::collision::WorldProxies(shape, btTransform::getIdentity()))
                if (const double reach = (proxy.center - c).norm() + proxy.radius; reach > farthest)
                {
                    farthest = reach;
                    out = (proxy.center - c).normalized();
                }
            // A turned so that its farthest proxy points along the diagonal from its root centre (at the origin):
            // the bounding boxes, around the root spheres, still overlap far beyond the spheres that way. B is A
            // turned half round an axis across the diagonal (its farthest proxy points back at A), its root
            // centre `gap` beyond the root spheres' touching point.
            const Vec3d diagonal = Vec3d::Ones().normalized();
            const Eigen::Quaterniond toDiagonal = Eigen::Quaterniond::FromTwoVectors(out, diagonal);
            const Eigen::Quaterniond turnB =
                Eigen::Quaterniond(Eigen::AngleAxisd(3.14159265358979323846, diagonal.unitOrthogonal())) * toDiagonal;
            const auto place = [&](const Eigen::Quaterniond& inTurn, const Vec3d& inRootCentre)
            {
                const btQuaternion turn(btScalar(inTurn.x()), btScalar(inTurn.y()), btScalar(inTurn.z()),
                                        btScalar(inTurn.w()));
                return btTransform(turn, ToBtVector(inRootCentre) - quatRotate(turn, centre));
            };
            a->setWorldTransform(place(toDiagonal, Vec3d::Zero()));
            desc.transform = MeshFromPrincipal(*asset, desc.scale, place(turnB, (2.0 * root + gap) * diagonal));
            btRigidBody* b = world->Deformables().CreateBody(asset, desc);
            b->setLinearVelocity(ToBtVector(-diagonal));
            // Far below both: its pairs are apart at every gap (and a dispatch of one pair would be serial).
            world->AddGroundPlane(-10.0);
            outBodies = {a, b};
            return world;
        };
        std::vector<btRigidBody*> serialBodies, parallelBodies;
        const auto serial = build(1, serialBodies);
        const auto parallel = build(2, parallelBodies);
        serial->Step(1, cStep);
        parallel->Step(1, cStep);
        ASSERT_EQ(DispatcherOf(*parallel).PreparedPairs(), 3u);
        ASSERT_GE(DispatcherOf(*parallel).ApartPairs(), 2u); // the ground's pairs
        const std::size_t skipped = DispatcherOf(*parallel).ApartPairs() - 2; // the chairs' pair
        apart += skipped;
        btDispatcher& dispatcher = *serial->Dynamics().getDispatcher();
        std::size_t points = 0;
        for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
            points += std::size_t(dispatcher.getManifoldByIndexInternal(m)->getNumContacts());
        if (points > 0)
        {
            widestTouching = std::max(widestTouching, gap);
            EXPECT_EQ(skipped, 0u) << "gap " << gap;
        }
        if (skipped > 0)
            narrowestSkipped = std::min(narrowestSkipped, gap);
        const std::vector<double> x = test::RawBodyState(serialBodies);
        const std::vector<double> y = test::RawBodyState(parallelBodies);
        ASSERT_EQ(0, std::memcmp(x.data(), y.data(), x.size() * sizeof(double))) << "gap " << gap;
    }
    EXPECT_GT(narrowestSkipped, widestTouching);
    // A surface pair closing at 1 m/s searches 2h·|v| (33 mm) beyond the proxies' reach (`SpeculativeReach`):
    // it is skipped from a wider gap on.
    EXPECT_GT(apart, inModel == EContactModel::Surface ? 10u : 20u);
    if (inModel == EContactModel::Surface)
        return;
    // Speculative contacts with the root spheres apart (up to 13 mm when written, the contact threshold), and
    // skipping from the next gap on: no room to spare between them.
    EXPECT_GT(widestTouching, 0.005);
    EXPECT_LT(narrowestSkipped - widestTouching, 0.0015);
}

TEST(ParallelDispatcher, PairsSkippedAsApartHaveNoContact)
{
    CheckApartPairs(EContactModel::Proxies);
    CheckApartPairs(EContactModel::Surface);
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
