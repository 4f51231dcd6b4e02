// How far the narrowphase searches a pair's contacts (`ContactSearchDistance`): the surface speed bound of a
// body against the brute-force speed of every deformed vertex, the distance's limits, and the contacts a
// settled body keeps.

#include "../../plugin/bullet/SearchDistance.h"
#include "support/BulletScenes.h"
#include "support/TestModels.h"

#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <bdt/adapter/World.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <memory>
#include <random>
#include <vector>

namespace bdt
{
namespace
{

using namespace test;

constexpr double cStep = 1.0 / 60.0;

Vec3d RandomVector(std::mt19937& ioRandom, double inScale)
{
    std::uniform_real_distribution<double> uniform(-inScale, inScale);
    return Vec3d(uniform(ioRandom), uniform(ioRandom), uniform(ioRandom));
}

// The fastest deformed vertex of `inBody` once its velocities become `inLinear`, `inAngular` (world) and the
// modes' q̇ stays: v + ω × (p − x_com) + s·R·U_i q̇ at every vertex p, in double.
double BruteForceMaxSpeed(btRigidBody& inBody, const Vec3d& inLinear, const Vec3d& inAngular)
{
    const DeformableShape& shape = *World::Shape(&inBody);
    const Model& model = shape.Asset().GetModel();
    const Mat3d rotation = shape.RestToWorld(inBody.getWorldTransform());
    const double scale = double(shape.getLocalScaling().x());
    const Vec3d com = ToVec3d(inBody.getCenterOfMassPosition());
    const auto qDot = shape.Dynamics().QDot();
    double fastest = 0.0;
    for (std::size_t i = 0; i < model.VertexCount(); ++i)
    {
        Vec3d modal = Vec3d::Zero();
        for (std::uint32_t j = 0; j < model.ModeCount(); ++j)
            modal += model.BasisVector(i, j).cast<double>() * qDot[j];
        const Vec3d velocity =
            inLinear + inAngular.cross(DeformedVertexWorld(inBody, i) - com) + scale * (rotation * modal);
        fastest = std::max(fastest, velocity.norm());
    }
    return fastest;
}

struct SpeedScene
{
    explicit SpeedScene(const SampleWorldSettings& inSettings) : world(inSettings) {}
    SampleWorld world;
    btRigidBody* body = nullptr;
};

// A deformed, vibrating, moving and turning chair, scaled, in a world without gravity.
std::unique_ptr<SpeedScene> MakeSpeedScene(std::mt19937& ioRandom, double inScale)
{
    SampleWorldSettings settings;
    settings.gravity = btVector3(0, 0, 0);
    auto scene = std::make_unique<SpeedScene>(settings);
    BodyDesc desc;
    desc.transform = btTransform(RandomQuaternion(ioRandom), ToBtVector(RandomVector(ioRandom, 3.0)));
    desc.mass = 5.0;
    desc.scale = inScale;
    desc.proxyLevel = 6;
    scene->body = scene->world.Deformables().CreateBody(ShapeAsset("chair", 1500, 6), desc);
    DeformableShape& shape = *World::Shape(scene->body);
    const std::vector<float> q = RandomQ(shape.State().ModeCount(), 0.02, ioRandom);
    EXPECT_TRUE(shape.SetQ(q));
    std::vector<double> impulse(shape.State().ModeCount());
    std::normal_distribution<double> normal;
    for (double& g : impulse)
        g = normal(ioRandom);
    shape.Dynamics().ApplyImpulse(impulse);
    scene->body->setLinearVelocity(ToBtVector(RandomVector(ioRandom, 2.0)));
    scene->body->setAngularVelocity(ToBtVector(RandomVector(ioRandom, 4.0)));
    return scene;
}

TEST(SearchDistance, SurfaceSpeedBoundHoldsEveryDeformedVertex)
{
    std::mt19937 random(41);
    for (int trial = 0; trial < 12; ++trial)
    {
        const double scale = trial % 3 == 0 ? 0.5 : (trial % 3 == 1 ? 1.0 : 2.0);
        const auto scene = MakeSpeedScene(random, scale);
        btRigidBody& body = *scene->body;
        body.clearForces();
        const double bound = SurfaceSpeedBound(body, cStep);
        const double fastest = BruteForceMaxSpeed(body, ToVec3d(body.getLinearVelocity()),
                                                  ToVec3d(body.getAngularVelocity()));
        ASSERT_GT(fastest, 0.0);
        EXPECT_GE(bound, fastest) << "trial " << trial;
        // A bound for culling, not a wild one: the reach and the modes' spectral bound are whole-body maxima.
        EXPECT_LE(bound, 4.0 * fastest) << "trial " << trial;
        EXPECT_GT(World::Shape(&body)->ModalSurfaceSpeed(), 0.0);
    }
}

TEST(SearchDistance, SurfaceReachHoldsEveryDeformedVertexAndTheMargin)
{
    std::mt19937 random(47);
    for (int trial = 0; trial < 6; ++trial)
    {
        const auto scene = MakeSpeedScene(random, trial % 2 == 0 ? 0.7 : 1.6);
        btRigidBody& body = *scene->body;
        DeformableShape& shape = *World::Shape(&body);
        shape.setMargin(btScalar(0.01 * trial));
        const Vec3d com = ToVec3d(body.getCenterOfMassPosition());
        double farthest = 0.0;
        for (std::size_t i = 0; i < shape.Asset().GetModel().VertexCount(); ++i)
            farthest = std::max(farthest, (DeformedVertexWorld(body, i) - com).norm());
        const double margin = double(shape.getMargin());
        EXPECT_GE(shape.SurfaceReach(), farthest + margin - 1e-9) << "trial " << trial;
        EXPECT_LE(shape.SurfaceReach(), 2.0 * farthest + margin) << "trial " << trial;
    }
}

TEST(SearchDistance, SurfaceSpeedBoundCoversTheForcesOfTheStep)
{
    std::mt19937 random(43);
    for (int trial = 0; trial < 8; ++trial)
    {
        const auto scene = MakeSpeedScene(random, 1.0);
        btRigidBody& body = *scene->body;
        body.clearForces();
        body.applyCentralForce(ToBtVector(RandomVector(random, 400.0)));
        body.applyTorque(ToBtVector(RandomVector(random, 100.0)));
        const double bound = SurfaceSpeedBound(body, cStep);
        // The velocities the forces give the body over one step (what Bullet's solver adds to them).
        const Vec3d linear =
            ToVec3d(body.getLinearVelocity()) + cStep * double(body.getInvMass()) * ToVec3d(body.getTotalForce());
        const Vec3d angular = ToVec3d(body.getAngularVelocity()) +
                              cStep * (ToMat3d(body.getInvInertiaTensorWorld()) * ToVec3d(body.getTotalTorque()));
        EXPECT_GE(bound, BruteForceMaxSpeed(body, linear, angular)) << "trial " << trial;
        EXPECT_GT(bound, SurfaceSpeedBound(body, 0.0)) << "the forces count";
    }
}

TEST(SearchDistance, SurfaceSpeedBoundOfObjectsThatAreNotDynamicBodies)
{
    btSphereShape sphere(0.5f);
    btCollisionObject fixed;
    fixed.setCollisionShape(&sphere);
    fixed.setCollisionFlags(btCollisionObject::CF_STATIC_OBJECT);
    EXPECT_EQ(SurfaceSpeedBound(fixed, cStep), 0.0);

    // Not static (a plain collision object is, by default), so moved by the user: nothing tells how fast.
    btCollisionObject loose;
    loose.setCollisionShape(&sphere);
    loose.setCollisionFlags(0);
    EXPECT_EQ(SurfaceSpeedBound(loose, cStep), std::numeric_limits<double>::infinity());

    btRigidBody kinematic(0.0, nullptr, &sphere);
    kinematic.setCollisionFlags(kinematic.getCollisionFlags() | btCollisionObject::CF_KINEMATIC_OBJECT);
    EXPECT_EQ(SurfaceSpeedBound(kinematic, cStep), std::numeric_limits<double>::infinity());

    btRigidBody dynamic(1.0, nullptr, &sphere, btVector3(0.1f, 0.1f, 0.1f));
    dynamic.setLinearVelocity(btVector3(3, 4, 0));
    EXPECT_NEAR(SurfaceSpeedBound(dynamic, cStep), 5.0, 1e-6);
    dynamic.setLinearVelocity(btVector3(std::numeric_limits<btScalar>::quiet_NaN(), 0, 0));
    EXPECT_EQ(SurfaceSpeedBound(dynamic, cStep), std::numeric_limits<double>::infinity());
}

TEST(SearchDistance, ContactSearchDistanceStaysBetweenTheFloorAndTheThreshold)
{
    btSphereShape sphere(0.5f);
    btCollisionObject ground;
    ground.setCollisionShape(&sphere);
    ground.setCollisionFlags(btCollisionObject::CF_STATIC_OBJECT);
    btRigidBody body(1.0, nullptr, &sphere, btVector3(0.1f, 0.1f, 0.1f));
    const double threshold = 0.02;

    // At rest: the floor.
    EXPECT_DOUBLE_EQ(ContactSearchDistance(threshold, cStep, body, ground), cSearchFloor * threshold);
    // Closing at 0.1 m/s: twice the step's travel, between the floor and τ.
    body.setLinearVelocity(btVector3(0, -0.1f, 0));
    EXPECT_NEAR(ContactSearchDistance(threshold, cStep, body, ground), 2.0 * cStep * 0.1, 1e-9);
    // Fast: τ, never more.
    body.setLinearVelocity(btVector3(0, -10, 0));
    EXPECT_DOUBLE_EQ(ContactSearchDistance(threshold, cStep, body, ground), threshold);
    // Both sides' speeds add.
    btRigidBody other(1.0, nullptr, &sphere, btVector3(0.1f, 0.1f, 0.1f));
    body.setLinearVelocity(btVector3(0, -0.1f, 0));
    other.setLinearVelocity(btVector3(0, 0.1f, 0));
    EXPECT_NEAR(ContactSearchDistance(threshold, cStep, body, other), 2.0 * cStep * 0.2, 1e-9);
    // No dynamics step (collision detection alone), or an object of unknown motion: τ.
    EXPECT_DOUBLE_EQ(ContactSearchDistance(threshold, 0.0, body, ground), threshold);
    EXPECT_DOUBLE_EQ(ContactSearchDistance(threshold, std::numeric_limits<double>::quiet_NaN(), body, ground),
                     threshold);
    btCollisionObject loose;
    loose.setCollisionShape(&sphere);
    loose.setCollisionFlags(0);
    EXPECT_DOUBLE_EQ(ContactSearchDistance(threshold, cStep, body, loose), threshold);
}

// Every manifold point of the world after one collision detection with the dispatcher's time step `inStep`:
// their distances.
std::vector<double> ContactDistances(SampleWorld& ioWorld, double inStep)
{
    ioWorld.Dynamics().getDispatchInfo().m_timeStep = btScalar(inStep);
    ioWorld.Dynamics().performDiscreteCollisionDetection();
    std::vector<double> distances;
    btDispatcher& dispatcher = *ioWorld.Dynamics().getDispatcher();
    for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
    {
        const btPersistentManifold* manifold = dispatcher.getManifoldByIndexInternal(m);
        for (int i = 0; i < manifold->getNumContacts(); ++i)
            distances.push_back(double(manifold->getContactPoint(i).getDistance()));
    }
    return distances;
}

// A chair held above the ground with its nearest proxy contact at half the contact breaking threshold τ: a
// pair that holds points keeps searching as far as them; one that holds none searches a tenth of τ at rest
// and finds nothing, more when closing, all of τ falling fast or without a dynamics step.
TEST(SearchDistance, TheNarrowphaseSearchesAsFarAsThePairCanCloseOrHolds)
{
    SampleWorldSettings settings;
    settings.gravity = btVector3(0, 0, 0);
    SampleWorld world(settings);
    btRigidBody* ground = world.AddGroundPlane(0.0);
    BodyDesc desc;
    desc.transform.setOrigin(btVector3(0, 2, 0));
    desc.proxyLevel = 6;
    btRigidBody* body = world.Deformables().CreateBody(ShapeAsset("chair", 1500, 6), desc);
    const double threshold =
        std::min(double(body->getCollisionShape()->getContactBreakingThreshold(gContactBreakingThreshold)),
                 double(ground->getCollisionShape()->getContactBreakingThreshold(gContactBreakingThreshold)));
    ASSERT_GT(threshold, 0.0);

    // Lower the chair until its nearest contact, searched over all of τ, is at τ/2.
    const double lowest = LowestVertexHeight(*body);
    body->getWorldTransform().setOrigin(btVector3(0, btScalar(2.0 - lowest + 0.25 * threshold), 0));
    std::vector<double> distances = ContactDistances(world, 0.0);
    ASSERT_FALSE(distances.empty());
    const double nearest = *std::min_element(distances.begin(), distances.end());
    body->getWorldTransform().setOrigin(body->getWorldTransform().getOrigin() +
                                        btVector3(0, btScalar(0.5 * threshold - nearest), 0));
    const btVector3 held = body->getWorldTransform().getOrigin();
    distances = ContactDistances(world, 0.0);
    ASSERT_FALSE(distances.empty());
    EXPECT_NEAR(*std::min_element(distances.begin(), distances.end()), 0.5 * threshold, 1e-4);
    for (double distance : distances)
        EXPECT_LE(distance, threshold + 1e-6);

    // At rest, holding those points: the pair searches as far as its farthest one, and keeps them all.
    std::vector<double> kept = ContactDistances(world, cStep);
    ASSERT_EQ(kept.size(), distances.size());
    EXPECT_NEAR(*std::min_element(kept.begin(), kept.end()), 0.5 * threshold, 1e-4);
    // Lifted out of reach the pair lets them go; back in place at rest it holds none and searches τ/10.
    body->getWorldTransform().setOrigin(held + btVector3(0, 1, 0));
    EXPECT_TRUE(ContactDistances(world, cStep).empty());
    body->getWorldTransform().setOrigin(held);
    EXPECT_TRUE(ContactDistances(world, cStep).empty());
    // Closing slowly, at 0.45·τ/(2h): reach 0.45·τ, just short of the nearest contact.
    body->setLinearVelocity(btVector3(0, btScalar(-0.45 * threshold / (2.0 * cStep)), 0));
    EXPECT_TRUE(ContactDistances(world, cStep).empty());
    // At 0.55·τ/(2h) the nearest is within reach, and only points within the reach are found.
    body->setLinearVelocity(btVector3(0, btScalar(-0.55 * threshold / (2.0 * cStep)), 0));
    const std::vector<double> slow = ContactDistances(world, cStep);
    ASSERT_FALSE(slow.empty());
    for (double distance : slow)
        EXPECT_LE(distance, 0.55 * threshold + 1e-6);
    // Falling at 1 m/s, 2·h·v = 3.3 cm: the whole threshold again, the same points as without a step.
    body->setLinearVelocity(btVector3(0, -1, 0));
    const std::vector<double> falling = ContactDistances(world, cStep);
    EXPECT_EQ(falling.size(), distances.size());
    EXPECT_NEAR(*std::min_element(falling.begin(), falling.end()), 0.5 * threshold, 1e-4);
}

} // namespace
} // namespace bdt
