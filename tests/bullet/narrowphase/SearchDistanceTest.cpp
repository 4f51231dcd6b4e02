// How far the narrowphase searches a pair's contacts (`ContactSearchDistance`): the surface speed bound of a
// body against the brute-force speed of every deformed vertex, the distance's limits, and the contacts a
// settled body keeps.

#include "bullet/narrowphase/ContactGeneration.h"
#include "bullet/narrowphase/SearchDistance.h"
#include "bullet/ShapeSolver.h"
#include "support/BulletScenes.h"
#include "support/TestModels.h"

#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
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
    BodySettings desc;
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
    int beyondTheVelocitiesAlone = 0;
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
        const double fastest = BruteForceMaxSpeed(body, linear, angular);
        EXPECT_GE(bound, fastest) << "trial " << trial;
        beyondTheVelocitiesAlone += SurfaceSpeedBound(body, 0.0) < fastest ? 1 : 0;
    }
    EXPECT_GT(beyondTheVelocitiesAlone, 0) << "the forces count: without them the bound misses vertices";
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

void ExpectSameMotion(const StepMotion& inCached, const StepMotion& inFresh)
{
    EXPECT_EQ(inCached.linear, inFresh.linear);
    EXPECT_EQ(inCached.angular, inFresh.angular);
    EXPECT_EQ(inCached.centre, inFresh.centre);
    EXPECT_EQ(inCached.reach, inFresh.reach);
    EXPECT_EQ(inCached.modalSpeed, inFresh.modalSpeed);
    EXPECT_EQ(inCached.deformable, inFresh.deformable);
    EXPECT_EQ(inCached.restToWorld, inFresh.restToWorld);
    EXPECT_EQ(inCached.known, inFresh.known);
}

TEST(SearchDistance, StepMotionCacheGivesEachBodysMotionOnceAStep)
{
    std::mt19937 random(17);
    const std::unique_ptr<SpeedScene> scene = MakeSpeedScene(random, 1.5);
    btRigidBody& chair = *scene->body;
    btSphereShape ball(0.25f);
    btRigidBody rigid(2.0, nullptr, &ball, btVector3(0.05f, 0.05f, 0.05f));
    rigid.setLinearVelocity(btVector3(1, 2, 3));
    scene->world.Dynamics().addRigidBody(&rigid);
    btCollisionObject outside; // in no world: its world array index is −1
    outside.setCollisionShape(&ball);
    ASSERT_LT(outside.getWorldArrayIndex(), 0);

    StepMotionCache cache;
    cache.Begin(cStep);
    for (const btCollisionObject* object : {static_cast<btCollisionObject*>(&chair),
                                            static_cast<btCollisionObject*>(&rigid), &outside})
    {
        ExpectSameMotion(cache.MotionOf(*object), PredictStepMotion(*object, cStep));
        EXPECT_EQ(cache.ShapeThresholdOf(*object),
                  double(object->getCollisionShape()->getContactBreakingThreshold(gContactBreakingThreshold)));
    }
    ASSERT_TRUE(cache.MotionOf(chair).deformable != nullptr);
    ASSERT_GT(cache.MotionOf(chair).modalSpeed, 0.0);

    // Within the step the values stay as first made (they are made once a step, not once a pair)...
    const Vec3d before = cache.MotionOf(rigid).linear;
    rigid.setLinearVelocity(btVector3(-4, 0, 0));
    EXPECT_EQ(cache.MotionOf(rigid).linear, before);
    // ...except for an object outside a world, made every time: no longer static, its motion is unknown.
    ASSERT_TRUE(cache.MotionOf(outside).known);
    outside.setCollisionFlags(0);
    EXPECT_FALSE(cache.MotionOf(outside).known);
    // The next step makes them again, with that step's length.
    cache.Begin(2.0 * cStep);
    ExpectSameMotion(cache.MotionOf(rigid), PredictStepMotion(rigid, 2.0 * cStep));
    EXPECT_NE(cache.MotionOf(rigid).linear, before);
    ExpectSameMotion(cache.MotionOf(chair), PredictStepMotion(chair, 2.0 * cStep));
    scene->world.Dynamics().removeRigidBody(&rigid);
}

// A 1 kg ball of 0.5 m and a static ground object of the same shape, a pair's threshold τ of 2 cm.
struct BallOverGround
{
    BallOverGround()
    {
        ground.setCollisionShape(&sphere);
        ground.setCollisionFlags(btCollisionObject::CF_STATIC_OBJECT);
    }

    btSphereShape sphere{0.5f};
    btCollisionObject ground;
    btRigidBody body{1.0, nullptr, &sphere, btVector3(0.1f, 0.1f, 0.1f)};
    static constexpr double threshold = 0.02;
};

TEST(SearchDistance, ContactSearchDistanceStaysBetweenTheFloorAndTheThreshold)
{
    BallOverGround scene;
    auto& [sphere, ground, body] = scene;
    const double threshold = BallOverGround::threshold;

    // At rest: the floor.
    EXPECT_DOUBLE_EQ(ContactSearchDistance(threshold, cStep, body, ground), cSearchFloor * threshold);
    // Closing at 0.1 m/s: twice the step's travel, between the floor and τ.
    body.setLinearVelocity(btVector3(0, -0.1f, 0));
    EXPECT_NEAR(ContactSearchDistance(threshold, cStep, body, ground), 2.0 * cStep * 0.1, 1e-9);
    // Fast: τ, never more.
    body.setLinearVelocity(btVector3(0, -10, 0));
    EXPECT_DOUBLE_EQ(ContactSearchDistance(threshold, cStep, body, ground), threshold);
    // Two bodies close at their relative speed: opposite velocities add, equal ones cancel.
    btRigidBody other(1.0, nullptr, &sphere, btVector3(0.1f, 0.1f, 0.1f));
    body.setLinearVelocity(btVector3(0, -0.1f, 0));
    other.setLinearVelocity(btVector3(0, 0.1f, 0));
    EXPECT_NEAR(ContactSearchDistance(threshold, cStep, body, other), 2.0 * cStep * 0.2, 1e-9);
    other.setLinearVelocity(btVector3(0, -0.1f, 0));
    EXPECT_DOUBLE_EQ(ContactSearchDistance(threshold, cStep, body, other), cSearchFloor * threshold);
    // Turning adds the angular speed times the reach (Bullet's angular motion disc).
    other.setLinearVelocity(btVector3(0, 0, 0));
    body.setLinearVelocity(btVector3(0, 0, 0));
    body.setAngularVelocity(btVector3(0, 0, 0.2f));
    EXPECT_NEAR(ContactSearchDistance(threshold, cStep, body, other),
                2.0 * cStep * 0.2 * double(sphere.getAngularMotionDisc()), 1e-7);
    body.setAngularVelocity(btVector3(0, 0, 0));
    // No dynamics step (collision detection alone), or an object of unknown motion: τ.
    EXPECT_DOUBLE_EQ(ContactSearchDistance(threshold, 0.0, body, ground), threshold);
    EXPECT_DOUBLE_EQ(ContactSearchDistance(threshold, std::numeric_limits<double>::quiet_NaN(), body, ground),
                     threshold);
    btCollisionObject loose;
    loose.setCollisionShape(&sphere);
    loose.setCollisionFlags(0);
    EXPECT_DOUBLE_EQ(ContactSearchDistance(threshold, cStep, body, loose), threshold);
}

// Beyond τ, up to the cap, a pair searches as far as its frames close along their line over the steps asked
// for: two before a pair's first contact, one once two deformables touch (`SpeculativeSteps`).
TEST(SearchDistance, SpeculativeSearchReachesTheStepsOfLinearClosing)
{
    BallOverGround scene;
    auto& [sphere, ground, body] = scene;
    const double threshold = BallOverGround::threshold;
    const double cap = 0.5;
    body.setLinearVelocity(btVector3(0, -5, 0));
    const StepMotion motion = PredictStepMotion(body, cStep);
    const StepMotion still = PredictStepMotion(ground, cStep);
    const double closing = (motion.linear - still.linear).norm(); // gravity's step included
    EXPECT_NEAR(ContactSearchDistance(threshold, cStep, motion, still, cap), 2.0 * cStep * closing, 1e-12);
    EXPECT_NEAR(ContactSearchDistance(threshold, cStep, motion, still, cap, 1.0), cStep * closing, 1e-12);
    // Never beyond the cap; never below the search within τ.
    EXPECT_DOUBLE_EQ(ContactSearchDistance(threshold, cStep, motion, still, 0.05, 1.0), 0.05);
    body.setLinearVelocity(btVector3(0, -0.5f, 0));
    const StepMotion slow = PredictStepMotion(body, cStep);
    EXPECT_DOUBLE_EQ(ContactSearchDistance(threshold, cStep, slow, still, cap, 1.0),
                     ContactSearchDistance(threshold, cStep, slow, still));
}

// Every manifold point of the world after one collision detection with the dispatcher's time step `inStep`.
std::vector<btManifoldPoint> ContactPoints(SampleWorld& ioWorld, double inStep)
{
    ioWorld.Dynamics().getDispatchInfo().m_timeStep = btScalar(inStep);
    ioWorld.Dynamics().performDiscreteCollisionDetection();
    std::vector<btManifoldPoint> points;
    btDispatcher& dispatcher = *ioWorld.Dynamics().getDispatcher();
    for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
    {
        const btPersistentManifold* manifold = dispatcher.getManifoldByIndexInternal(m);
        for (int i = 0; i < manifold->getNumContacts(); ++i)
            points.push_back(manifold->getContactPoint(i));
    }
    return points;
}

// Their distances.
std::vector<double> ContactDistances(SampleWorld& ioWorld, double inStep)
{
    std::vector<double> distances;
    for (const btManifoldPoint& point : ContactPoints(ioWorld, inStep))
        distances.push_back(double(point.getDistance()));
    return distances;
}

// Their proxy nodes (A's, `m_partId0`).
std::vector<int> ContactNodes(SampleWorld& ioWorld, double inStep)
{
    std::vector<int> nodes;
    for (const btManifoldPoint& point : ContactPoints(ioWorld, inStep))
        nodes.push_back(point.m_partId0);
    return nodes;
}

// A chair held above the ground with its nearest proxy contact at half the contact breaking threshold τ:
// at rest the pair searches a tenth of τ and finds nothing, more when closing, all of τ falling fast or
// without a dynamics step; and of what it finds it keeps only the points the chair can close on over the
// step (`SpeculativeFilter`), so sliding or spinning past the ground at speed finds nothing either.
TEST(SearchDistance, TheNarrowphaseKeepsWhatThePairCanClose)
{
    SampleWorldSettings settings;
    settings.gravity = btVector3(0, 0, 0);
    SampleWorld world(settings);
    btRigidBody* ground = world.AddGroundPlane(0.0);
    BodySettings desc;
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
    distances = ContactDistances(world, 0.0);
    ASSERT_FALSE(distances.empty());
    EXPECT_NEAR(*std::min_element(distances.begin(), distances.end()), 0.5 * threshold, 1e-4);
    for (double distance : distances)
        EXPECT_LE(distance, threshold + 1e-6);

    // At rest, even holding those points from the query above, the pair lets them go: they cannot close.
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
    // Sliding along the ground at 1 m/s, or spinning about the vertical at 3 rad/s: the pair searches all
    // of τ, but no point approaches the ground, so none is kept.
    body->setLinearVelocity(btVector3(1, 0, 0));
    EXPECT_DOUBLE_EQ(ContactSearchDistance(threshold, cStep, *body, *ground), threshold);
    EXPECT_TRUE(ContactDistances(world, cStep).empty());
    body->setLinearVelocity(btVector3(0, 0, 0));
    body->setAngularVelocity(btVector3(0, 3, 0));
    EXPECT_DOUBLE_EQ(ContactSearchDistance(threshold, cStep, *body, *ground), threshold);
    EXPECT_TRUE(ContactDistances(world, cStep).empty());
    // Turning about a horizontal axis (z) at 3 rad/s either way round: the points of the chair's low side that
    // come down (ω_z·(x − x_c) < 0) are kept, those going up are not.
    const double centreX = double(body->getCenterOfMassPosition().x());
    for (const double spin : {3.0, -3.0})
    {
        body->setAngularVelocity(btVector3(0, 0, btScalar(spin)));
        const std::vector<btManifoldPoint> kept = ContactPoints(world, cStep);
        EXPECT_FALSE(kept.empty()) << "spin " << spin;
        for (const btManifoldPoint& point : kept)
            EXPECT_LT(spin * (double(point.getPositionWorldOnA().x()) - centreX), 0.0)
                << "spin " << spin << ": a point going up was kept";
    }
    body->setAngularVelocity(btVector3(0, 0, 0));
    // The frame at rest, the modes moving the nearest proxy down at 1 m/s: its contact is kept; moving it
    // up at 1 m/s: not.
    DeformableShape& shape = *World::Shape(body);
    const std::vector<int> nodes = ContactNodes(world, 0.0);
    ASSERT_FALSE(nodes.empty());
    const auto nearestPoint = std::min_element(distances.begin(), distances.end()) - distances.begin();
    const std::uint32_t nearestNode = std::uint32_t(nodes[std::size_t(nearestPoint)]);
    const Mat3d rotation = shape.RestToWorld(body->getWorldTransform());
    for (const double sign : {-1.0, 1.0})
    {
        shape.Dynamics().Reset();
        shape.ApplyImpulse(nearestNode, Vec3d(0, sign, 0), rotation);
        const double speed = shape.ProxyModalVelocity(nearestNode, rotation).y();
        ASSERT_GT(sign * speed, 0.0) << "an impulse moves its proxy its way";
        shape.Dynamics().Reset();
        shape.ApplyImpulse(nearestNode, Vec3d(0, sign / std::abs(speed), 0), rotation);
        const std::vector<int> moving = ContactNodes(world, cStep);
        const bool found = std::find(moving.begin(), moving.end(), int(nearestNode)) != moving.end();
        EXPECT_EQ(found, sign < 0.0) << "modal speed " << shape.ProxyModalVelocity(nearestNode, rotation).y();
    }
    shape.Dynamics().Reset();
    // Falling at 1 m/s, 2·h·v = 3.3 cm: the whole threshold again, the same points as without a step.
    body->setLinearVelocity(btVector3(0, -1, 0));
    const std::vector<double> falling = ContactDistances(world, cStep);
    EXPECT_EQ(falling.size(), distances.size());
    EXPECT_NEAR(*std::min_element(falling.begin(), falling.end()), 0.5 * threshold, 1e-4);
}

// The filter's promise, against Bullet's own integration: a contact it drops does not close over the step
// when the solver leaves the bodies alone. Two rigid bodies with random velocities, forces and torques
// (their collisions off), random contacts between material points of the two (on B, and at the distance
// along the normal on A, the normal turning with B); after Bullet's step every dropped contact's gap along
// its normal is still at least a third of what it was (the filter's factor 2 leaves half, less the
// turn's second-order part).
TEST(SearchDistance, DroppedContactsDoNotCloseOverTheStep)
{
    std::mt19937 random(7);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    btSphereShape sphere(0.5f);
    int dropped = 0, kept = 0;
    for (int trial = 0; trial < 40; ++trial)
    {
        SampleWorldSettings settings;
        settings.gravity = btVector3(0, -9.81f, 0);
        SampleWorld world(settings);
        btRigidBody* bodies[2] = {};
        for (btRigidBody*& body : bodies)
        {
            body = world.AddRigid(std::make_unique<btSphereShape>(0.5f),
                                  btTransform(RandomQuaternion(random), ToBtVector(RandomVector(random, 2.0))),
                                  1.0 + 4.0 * unit(random));
            body->setCollisionFlags(body->getCollisionFlags() | btCollisionObject::CF_NO_CONTACT_RESPONSE);
            body->setActivationState(DISABLE_DEACTIVATION);
            body->setLinearVelocity(ToBtVector(RandomVector(random, 1.0)));
            body->setAngularVelocity(ToBtVector(RandomVector(random, 2.0)));
        }
        const double threshold = 0.05;
        // The step's forces as Bullet accumulates them before collision detection.
        world.Dynamics().applyGravity();
        for (btRigidBody* body : bodies)
        {
            body->applyCentralForce(ToBtVector(RandomVector(random, 20.0)));
            body->applyTorque(ToBtVector(RandomVector(random, 5.0)));
        }
        const StepMotion motionA = PredictStepMotion(*bodies[0], cStep);
        const StepMotion motionB = PredictStepMotion(*bodies[1], cStep);
        const SpeculativeFilter filter(threshold, cStep, motionA, motionB);

        struct Probe
        {
            Vec3d onA, onB, normal; // in the bodies' own frames
            double distance;
            bool keep;
        };
        std::vector<Probe> probes;
        const btTransform fromA = bodies[0]->getWorldTransform(), fromB = bodies[1]->getWorldTransform();
        for (int i = 0; i < 200; ++i)
        {
            PairContact contact;
            contact.pointOnB = ToVec3d(fromB.getOrigin()) + RandomVector(random, 0.5);
            contact.normal = RandomVector(random, 1.0).normalized();
            contact.distance = threshold * unit(random);
            const Vec3d onA = contact.pointOnB + contact.normal * contact.distance;
            probes.push_back({ToVec3d(fromA.inverse() * ToBtVector(onA)),
                              ToVec3d(fromB.inverse() * ToBtVector(contact.pointOnB)),
                              ToVec3d(fromB.getBasis().transpose() * ToBtVector(contact.normal)), contact.distance,
                              filter.Keeps(contact)});
        }
        world.Dynamics().stepSimulation(btScalar(cStep), 0, btScalar(cStep));
        const btTransform toA = bodies[0]->getWorldTransform(), toB = bodies[1]->getWorldTransform();
        for (const Probe& probe : probes)
        {
            if (probe.keep)
            {
                ++kept;
                continue;
            }
            ++dropped;
            const Vec3d onA = ToVec3d(toA * ToBtVector(probe.onA));
            const Vec3d onB = ToVec3d(toB * ToBtVector(probe.onB));
            const Vec3d normal = ToVec3d(toB.getBasis() * ToBtVector(probe.normal));
            EXPECT_GE((onA - onB).dot(normal), probe.distance / 3.0) << "trial " << trial;
        }
    }
    // Neither vacuous nor everything: both kinds occur.
    EXPECT_GT(dropped, 1000);
    EXPECT_GT(kept, 1000);
}

} // namespace
} // namespace bdt
