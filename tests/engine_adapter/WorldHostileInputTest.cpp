// bdt::World under hostile values (docs/ROBUSTNESS.md): non-finite q, transforms and impulses, huge impulses and
// speeds, impossible masses, degenerate meshes, no modes and many modes, one triangle and a million. Each case
// asserts its documented behaviour, and that nothing non-finite reaches another body or leaves the world.
#include "support/BulletScenes.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <bdt/samples/SampleWorld.h>
#include <bdt/adapter/World.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <btBulletDynamicsCommon.h>
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;
constexpr btScalar cNaN = std::numeric_limits<btScalar>::quiet_NaN();
constexpr btScalar cInf = std::numeric_limits<btScalar>::infinity();

std::shared_ptr<const DeformableAsset> MeshAsset(std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles,
                                                 std::uint32_t inModes)
{
    const Model model = MakeSmoothModel(std::move(inPositions), std::move(inTriangles), inModes);
    return DeformableAsset::Create(std::make_shared<const BDTree>(BDTree::Build(model)));
}

btRigidBody* AddBody(SampleWorld& ioWorld, const std::shared_ptr<const DeformableAsset>& inAsset, btVector3 inOrigin,
                     double inMass = 2.0)
{
    BodySettings desc;
    desc.mass = inMass;
    desc.proxyLevel = 8;
    desc.transform.setOrigin(inOrigin);
    return ioWorld.Deformables().CreateBody(inAsset, desc);
}

/// `inCount` boxes (300 triangles, M = 4) stacked 1.1 m apart above the ground plane (added here), every other
/// one moved `inStagger` m along x.
std::vector<btRigidBody*> AddStack(SampleWorld& ioWorld, int inCount, float inStagger = 0.0f)
{
    ioWorld.AddGroundPlane();
    std::vector<btRigidBody*> bodies;
    for (int i = 0; i < inCount; ++i)
        bodies.push_back(AddBody(ioWorld, test::ShapeAsset("box", 300, 4),
                                 btVector3(inStagger * float(i % 2), 0.6f + 1.1f * float(i), 0.0f)));
    return bodies;
}

/// Every value a body carries is finite: transform, velocities, q and q̇.
void ExpectFinite(btRigidBody& inBody, const std::string& inContext)
{
    EXPECT_TRUE(IsFinite(inBody.getWorldTransform())) << inContext;
    EXPECT_TRUE(IsFinite(inBody.getLinearVelocity())) << inContext;
    EXPECT_TRUE(IsFinite(inBody.getAngularVelocity())) << inContext;
    for (double q : World::Shape(&inBody)->Dynamics().QDouble())
        EXPECT_TRUE(std::isfinite(q)) << inContext;
}

/// Steps `inSteps` steps; after each, every body is finite and no deformed vertex is more than `inDepth` below
/// the ground y = 0 (checked every `inEvery` steps: a body through the ground is its own size below).
void StepAndCheck(SampleWorld& ioWorld, int inSteps, double inDepth = 0.05, int inEvery = 1)
{
    for (int step = 0; step < inSteps; ++step)
    {
        ioWorld.Step(1, cStep);
        for (btRigidBody* body : ioWorld.Deformables().Bodies())
        {
            ExpectFinite(*body, "step " + std::to_string(step));
            if (step % inEvery == 0)
            {
                ASSERT_GE(test::LowestVertexHeight(*body), -inDepth) << "step " << step;
            }
        }
    }
}

/// At rest on the ground y = 0: slow, and resting on its contact proxies, spheres (§3.4), so its lowest vertex
/// is at most the largest proxy's radius above the ground.
void ExpectResting(btRigidBody& inBody, const std::string& inContext)
{
    const double proxyRadius = World::Shape(&inBody)->State().Proxies().ProxyRadiusBounds()[0];
    EXPECT_LT(inBody.getLinearVelocity().length(), 0.1f) << inContext;
    EXPECT_GE(test::LowestVertexHeight(inBody), -0.05) << inContext;
    EXPECT_LT(test::LowestVertexHeight(inBody), proxyRadius + 0.02) << inContext;
}

TEST(WorldHostileInput, NonFiniteOrHugeQIsRejectedAndTheShapeKept)
{
    SampleWorld world;
    world.AddGroundPlane();
    btRigidBody* body = AddBody(world, test::ShapeAsset("box", 300, 4), btVector3(0, 1, 0));
    DeformableShape& shape = *World::Shape(body);
    world.Step(5, cStep);
    const std::vector<float> before(shape.State().Q().begin(), shape.State().Q().end());
    for (const float bad : {float(cNaN), float(cInf), -float(cInf), 1e30f})
    {
        const std::vector<float> q = {0.0f, bad, 0.0f, 0.0f};
        EXPECT_FALSE(shape.SetQ(q)) << bad;
        EXPECT_TRUE(std::equal(before.begin(), before.end(), shape.State().Q().begin())) << bad;
    }
    EXPECT_FALSE(shape.SetQ(std::vector<float>(3, 0.0f))) << "a q of the wrong length";
    StepAndCheck(world, 60);
}

TEST(WorldHostileInput, NonFiniteTransformsVelocitiesAndImpulsesAreUndoneNotSpread)
{
    SampleWorld world;
    const std::vector<btRigidBody*> bodies = AddStack(world, 4);
    // Settled first: the depth bound of StepAndCheck is then about what the guard does, not about the impacts of
    // the stack's own collapse (which reach 3 to 6 cm, depending on where the bodies are when poked).
    world.Step(90, cStep);
    btTransform nanOrigin = bodies[0]->getWorldTransform();
    nanOrigin.setOrigin(btVector3(cNaN, 0, 0));
    bodies[0]->setWorldTransform(nanOrigin);
    btTransform infBasis = bodies[1]->getWorldTransform();
    infBasis.setBasis(btMatrix3x3(cInf, 0, 0, 0, 1, 0, 0, 0, 1));
    bodies[1]->setWorldTransform(infBasis);
    bodies[2]->applyCentralImpulse(btVector3(0, cNaN, 0));
    bodies[3]->applyTorqueImpulse(btVector3(cInf, 0, 0));
    world.Step(1, cStep);
    // The transforms put back; the velocities the impulses made non-finite zeroed where the bodies are.
    EXPECT_EQ(world.Deformables().Stats().transformResets, 2u);
    EXPECT_EQ(world.Deformables().Stats().stateRepairs, 2u);
    StepAndCheck(world, 120);
    for (btRigidBody* body : bodies)
        EXPECT_GT(body->getWorldTransform().getOrigin().y(), 0.0f);
}

TEST(WorldHostileInput, NonFiniteContactImpulsesOnTheModesAreIgnoredAndCounted)
{
    SampleWorld world;
    world.AddGroundPlane();
    btRigidBody* body = AddBody(world, test::ShapeAsset("box", 300, 4), btVector3(0, 0.6f, 0));
    world.Step(10, cStep);
    ModalDynamics& dynamics = World::Shape(body)->Dynamics();
    const std::uint64_t before = dynamics.GuardStats().rejectedImpulses;
    std::vector<double> impulse(dynamics.ModeCount(), 0.0);
    impulse[1] = std::numeric_limits<double>::quiet_NaN();
    dynamics.ApplyImpulse(impulse);
    impulse[1] = std::numeric_limits<double>::infinity();
    dynamics.ApplyImpulse(impulse);
    EXPECT_EQ(dynamics.GuardStats().rejectedImpulses, before + 2);
    StepAndCheck(world, 30);
}

// Impulses of 10^4 to 10^30 kg·m/s in random directions, every 10 steps, on a small pile: the bodies leave at
// up to 10^30 m/s, stay finite (or are brought back where a value overflows) and above the ground; q stays
// within the strain limit.
TEST(WorldHostileInput, HugeImpulsesLeaveEveryValueFiniteAndNothingUnderTheGround)
{
    SampleWorld world;
    const std::vector<btRigidBody*> bodies = AddStack(world, 6, 0.3f);
    std::mt19937 random(7);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    for (int round = 0; round < 12; ++round)
    {
        for (std::size_t i = 0; i < bodies.size(); ++i)
        {
            const float magnitude = std::pow(10.0f, 4.0f + float((round * 7 + int(i) * 5) % 27));
            bodies[i]->activate(true);
            bodies[i]->applyCentralImpulse(magnitude * btVector3(unit(random), unit(random), unit(random)));
            bodies[i]->applyTorqueImpulse(magnitude * btVector3(unit(random), unit(random), unit(random)));
        }
        StepAndCheck(world, 10, 0.5);
    }
    for (btRigidBody* body : bodies)
    {
        const DeformableShape& shape = *World::Shape(body);
        const ModalDynamics& dynamics = shape.Dynamics();
        for (std::uint32_t j = 0; j < dynamics.ModeCount(); ++j)
            EXPECT_LE(std::abs(dynamics.QDouble()[j]), dynamics.StrainLimit(j) * (1.0 + 1e-6)) << j;
    }
}

// A body thrown at a floor slab 2 cm thick at 200 m/s (3.3 m a step) stops on it, and one thrown at a wall as
// thin at 300 m/s stops at the wall; without the sweep both go through.
TEST(WorldHostileInput, FastBodiesAreSweptAndStopAtThinFloorsAndWalls)
{
    for (const bool sweep : {true, false})
    {
        SampleWorldSettings settings;
        settings.deformables.sweepFastBodies = sweep;
        SampleWorld world(settings);
        world.AddStatic(std::make_unique<btBoxShape>(btVector3(20.0f, 0.01f, 20.0f)),
                        btTransform(btQuaternion::getIdentity(), btVector3(0.0f, -0.01f, 0.0f)));
        world.AddStatic(std::make_unique<btBoxShape>(btVector3(0.01f, 2.0f, 2.0f)),
                        btTransform(btQuaternion::getIdentity(), btVector3(3.0f, 2.0f, 0.0f)));
        const auto asset = test::ShapeAsset("box", 300, 4);
        btRigidBody* down = AddBody(world, asset, btVector3(0.0f, 2.0f, -1.5f));
        btRigidBody* across = AddBody(world, asset, btVector3(0.0f, 1.0f, 1.0f));
        down->setLinearVelocity(btVector3(0, -200, 0));
        across->setLinearVelocity(btVector3(300, 0, 0));
        double lowest = 1e30;
        for (int step = 0; step < 60; ++step)
        {
            world.Step(1, cStep);
            lowest = std::min(lowest, test::LowestVertexHeight(*down));
        }
        if (sweep)
        {
            EXPECT_GE(lowest, -0.05) << "through the floor's top";
            EXPECT_GT(down->getWorldTransform().getOrigin().y(), 0.0f);
            EXPECT_LT(across->getWorldTransform().getOrigin().x(), 3.0f);
            EXPECT_GE(world.Deformables().Stats().sweepStops, 2u);
        }
        else
        {
            EXPECT_LT(down->getWorldTransform().getOrigin().y(), -1.0f) << "the test no longer needs the sweep";
            EXPECT_GT(across->getWorldTransform().getOrigin().x(), 3.0f) << "the test no longer needs the sweep";
            EXPECT_EQ(world.Deformables().Stats().sweepStops, 0u);
        }
    }
}

TEST(WorldHostileInput, ZeroMassIsStaticAndNegativeOrNonFiniteMassThrows)
{
    SampleWorld world;
    world.AddGroundPlane();
    const auto asset = test::ShapeAsset("box", 300, 4);
    btRigidBody* fixed = AddBody(world, asset, btVector3(0, 3, 0), 0.0);
    EXPECT_TRUE(fixed->isStaticObject());
    const btTransform placed = fixed->getWorldTransform();
    for (const double mass : {-1.0, -1e-30, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()})
    {
        BodySettings desc;
        desc.mass = mass;
        EXPECT_THROW(world.Deformables().CreateBody(asset, desc), Error) << mass;
    }
    StepAndCheck(world, 30);
    EXPECT_EQ(fixed->getWorldTransform().getOrigin(), placed.getOrigin());
    EXPECT_EQ(fixed->getWorldTransform().getRotation(), placed.getRotation());
    EXPECT_LT((world.Deformables().MeshTransform(fixed).getOrigin() - btVector3(0, 3, 0)).length(), 1e-5f);
}

TEST(WorldHostileInput, DestroyingABodyWhoseShapeAnotherObjectHoldsThrows)
{
    // A plain Bullet box given a deformable's shape (as Bullet lets shapes be shared), a plank resting across
    // both: destroying the deformable would free the shape the box still collides with.
    SampleWorld world;
    world.AddGroundPlane();
    btRigidBody* deformable = AddBody(world, test::ShapeAsset("box", 300, 4), btVector3(-1.5f, 0.6f, 0.0f));
    btRigidBody* box = world.AddRigid(std::make_unique<btBoxShape>(btVector3(0.5f, 0.5f, 0.5f)),
                                      btTransform(btQuaternion::getIdentity(), btVector3(1.5f, 0.6f, 0.0f)), 2.0);
    btRigidBody* plank = world.AddRigid(std::make_unique<btBoxShape>(btVector3(2.5f, 0.05f, 0.5f)),
                                        btTransform(btQuaternion::getIdentity(), btVector3(0.0f, 1.25f, 0.0f)), 1.0);
    btCollisionShape* ownShape = box->getCollisionShape();
    const auto giveShape = [&](btCollisionShape* inShape)
    {
        world.Dynamics().removeRigidBody(box);
        box->setCollisionShape(inShape);
        world.Dynamics().addRigidBody(box);
    };
    giveShape(World::Shape(deformable));
    StepAndCheck(world, 30);
    try
    {
        world.Deformables().DestroyBody(deformable);
        ADD_FAILURE() << "DestroyBody did not throw";
    }
    catch (const Error& error)
    {
        EXPECT_NE(std::string(error.what()).find("still holds this body's DeformableShape"), std::string::npos)
            << error.what();
    }
    ASSERT_EQ(world.Deformables().Bodies().size(), 1u);
    EXPECT_EQ(world.Deformables().Bodies()[0], deformable);
    StepAndCheck(world, 30);

    // Given back its own shape, the box lets the deformable go; the plank stays finite and on the box.
    giveShape(ownShape);
    EXPECT_TRUE(world.Deformables().DestroyBody(deformable));
    EXPECT_TRUE(world.Deformables().Bodies().empty());
    for (int step = 0; step < 60; ++step)
        world.Step(1, cStep);
    for (const btRigidBody* body : {box, plank})
    {
        EXPECT_TRUE(IsFinite(body->getWorldTransform()));
        EXPECT_GT(body->getWorldTransform().getOrigin().y(), 0.0f);
    }
}

TEST(WorldHostileInput, MassesTooSmallForTheSolversFloatsThrow)
{
    SampleWorld world;
    world.AddGroundPlane();
    const auto asset = test::ShapeAsset("box", 300, 4);
    for (const double mass : {1e-45, 1e-30, 0.9 * cMinMass})
    {
        BodySettings desc;
        desc.mass = mass;
        EXPECT_THROW(world.Deformables().CreateBody(asset, desc), Error) << mass;
        DeformableShapeSettings settings;
        settings.mass = mass;
        EXPECT_THROW(DeformableShape(asset, settings), Error) << mass;
    }
    // The least mass is accepted, and a crate resting on the body stays finite.
    btRigidBody* light = AddBody(world, asset, btVector3(0, 1.0f, 0), cMinMass);
    btRigidBody* crate = world.AddRigid(std::make_unique<btBoxShape>(btVector3(0.1f, 0.1f, 0.1f)),
                                        btTransform(btQuaternion::getIdentity(), btVector3(0, 1.9f, 0)), 1e-6);
    StepAndCheck(world, 60);
    EXPECT_TRUE(std::isfinite(crate->getWorldTransform().getOrigin().length()));
    EXPECT_TRUE(std::isfinite(light->getWorldTransform().getOrigin().length()));
    // The crate fell onto the body and stays on it.
    EXPECT_LT(crate->getWorldTransform().getOrigin().y(), 1.85f);
    EXPECT_GT(crate->getWorldTransform().getOrigin().y(), light->getWorldTransform().getOrigin().y());
}

TEST(WorldHostileInput, RestitutionOutsideZeroToOneAndNonRotationBasesThrow)
{
    SampleWorld world;
    const auto asset = test::ShapeAsset("box", 300, 4);
    for (const float restitution : {-0.1f, 1.5f, std::numeric_limits<float>::quiet_NaN()})
    {
        BodySettings desc;
        desc.material.restitution = restitution;
        EXPECT_THROW(world.Deformables().CreateBody(asset, desc), Error) << restitution;
    }
    BodySettings bouncy;
    bouncy.material.restitution = 1.0f;
    EXPECT_NE(world.Deformables().CreateBody(asset, bouncy), nullptr);

    const btMatrix3x3 bad[] = {
        btMatrix3x3(2, 0, 0, 0, 2, 0, 0, 0, 2),   // scaled
        btMatrix3x3(1, 0.3f, 0, 0, 1, 0, 0, 0, 1), // sheared
        btMatrix3x3(-1, 0, 0, 0, 1, 0, 0, 0, 1),   // a mirror
        btMatrix3x3(0, 0, 0, 0, 0, 0, 0, 0, 0),    // degenerate
    };
    for (const btMatrix3x3& basis : bad)
    {
        BodySettings desc;
        desc.transform.setBasis(basis);
        EXPECT_THROW(world.Deformables().CreateBody(asset, desc), Error);
    }
    BodySettings turned;
    turned.transform.setRotation(btQuaternion(btVector3(1, 2, 3).normalized(), 0.7f));
    EXPECT_NE(world.Deformables().CreateBody(asset, turned), nullptr);
}

TEST(WorldHostileInput, DegenerateMeshesThrowOrBehave)
{
    // A single point, repeated, or a mesh whose triangles all have zero area: no surface to collide with.
    EXPECT_THROW(MeshAsset({Vec3f(1, 2, 3), Vec3f(1, 2, 3), Vec3f(1, 2, 3)}, {{0, 1, 2}}, 2), Error);
    EXPECT_THROW(MeshAsset({Vec3f(0, 0, 0), Vec3f(1, 0, 0), Vec3f(2, 0, 0)}, {{0, 1, 2}}, 2), Error);
    // Out-of-range indices and non-finite positions.
    EXPECT_THROW(MeshAsset({Vec3f(0, 0, 0), Vec3f(1, 0, 0), Vec3f(0, 1, 0)}, {{0, 1, 3}}, 2), Error);
    EXPECT_THROW(MeshAsset({Vec3f(0, 0, 0), Vec3f(float(cNaN), 0, 0), Vec3f(0, 1, 0)}, {{0, 1, 2}}, 2), Error);

    // Zero volume (a flat square, both sides) and a single triangle: dynamic bodies that fall and rest.
    SampleWorld world;
    world.AddGroundPlane();
    btRigidBody* square = AddBody(
        world,
        MeshAsset({Vec3f(-0.5f, 0, -0.5f), Vec3f(0.5f, 0, -0.5f), Vec3f(0.5f, 0, 0.5f), Vec3f(-0.5f, 0, 0.5f)},
                  {{0, 1, 2}, {0, 2, 3}, {0, 2, 1}, {0, 3, 2}}, 3),
        btVector3(0, 1, 0));
    btRigidBody* triangle = AddBody(world, MeshAsset({Vec3f(0, 0, 0), Vec3f(0.6f, 0, 0), Vec3f(0, 0, 0.6f)}, {{0, 2, 1}}, 3),
                                    btVector3(2, 1, 0));
    StepAndCheck(world, 240);
    ExpectResting(*square, "flat square");
    ExpectResting(*triangle, "one triangle");
}

// M = 0 (rigid) and M = 200 fields: both fall on the ground, the first keeps its rest shape exactly.
TEST(WorldHostileInput, NoModesAndTwoHundredModes)
{
    SampleWorld world;
    world.AddGroundPlane();
    btRigidBody* rigid = AddBody(world, test::ShapeAsset("box", 300, 0), btVector3(0, 1, 0));
    btRigidBody* many = AddBody(world, test::ShapeAsset("sphere", 2000, 200), btVector3(2, 1, 0));
    ASSERT_EQ(World::Shape(many)->Dynamics().ModeCount(), 200u);
    StepAndCheck(world, 180, 0.05, 10);
    EXPECT_TRUE(World::Shape(rigid)->State().Q().empty());
    ExpectResting(*rigid, "M = 0");
    ExpectResting(*many, "M = 200");
}

// A million triangles, two fields: built, dropped and resting like any body.
TEST(WorldHostileInput, AMillionTriangles)
{
    SampleWorld world;
    world.AddGroundPlane();
    const auto asset = test::ShapeAsset("box", 1'000'000, 2);
    ASSERT_GE(asset->Tree().GetModel().TriangleCount(), 990'000u);
    btRigidBody* body = AddBody(world, asset, btVector3(0, 0.7f, 0), 5.0);
    for (int step = 0; step < 120; ++step)
    {
        world.Step(1, cStep);
        ExpectFinite(*body, "step " + std::to_string(step));
    }
    ExpectResting(*body, "a million triangles");
}

} // namespace
} // namespace bdt
