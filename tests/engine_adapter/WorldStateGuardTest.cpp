// bdt::World's state guard (docs/ROBUSTNESS.md): a NaN, an infinity or a 1e30 put into a deformable body's state,
// through Bullet's API or the plugin's, never reaches another body, and the poked body moves again after it is
// restored. Every case pokes a deformable that touches plain Bullet bodies: one carrying a rigid crate, and one
// under a second deformable that carries a crate, with the serial and the two-thread dispatcher.
#include "support/BulletScenes.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <bdt/samples/SampleWorld.h>
#include <bdt/adapter/World.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <btBulletDynamicsCommon.h>
#include <functional>
#include <gtest/gtest.h>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace bdt
{
namespace
{

constexpr double cStep = 1.0 / 60.0;
constexpr btScalar cNaN = std::numeric_limits<btScalar>::quiet_NaN();
constexpr btScalar cInf = std::numeric_limits<btScalar>::infinity();
constexpr btScalar cHuge = btScalar(1e30);

/// Two columns on the ground plane: a deformable box carrying a rigid crate (x = 0), and a deformable box under
/// a second deformable box carrying a crate (x = 3). The two bottom boxes are the ones poked.
struct Stacks
{
    std::unique_ptr<SampleWorld> world;
    std::vector<btRigidBody*> poked;  ///< The two bottom deformables.
    std::vector<btRigidBody*> others; ///< Everything else that moves: the middle deformable and both crates.
};

Stacks MakeStacks(unsigned inThreads)
{
    Stacks stacks;
    SampleWorldSettings settings;
    settings.narrowphaseThreads = inThreads;
    stacks.world = std::make_unique<SampleWorld>(settings);
    SampleWorld& world = *stacks.world;
    world.AddGroundPlane();
    const auto box = test::ShapeAsset("box", 300, 4);
    auto deformable = [&](btVector3 inOrigin)
    {
        BodySettings desc;
        desc.mass = 2.0;
        desc.proxyLevel = 8;
        desc.transform.setOrigin(inOrigin);
        return world.Deformables().CreateBody(box, desc);
    };
    auto crate = [&](btVector3 inOrigin)
    {
        btTransform transform = btTransform::getIdentity();
        transform.setOrigin(inOrigin);
        return world.AddRigid(std::make_unique<btBoxShape>(btVector3(0.3f, 0.3f, 0.3f)), transform, 1.0);
    };
    stacks.poked = {deformable({0, 0.6f, 0}), deformable({3, 0.6f, 0})};
    stacks.others = {crate({0, 1.45f, 0}), deformable({3, 1.7f, 0}), crate({3, 2.55f, 0})};
    world.Step(45, cStep);
    return stacks;
}

bool StateIsFinite(const btRigidBody& inBody)
{
    return IsFinite(inBody.getWorldTransform()) && IsFinite(inBody.getLinearVelocity()) &&
           IsFinite(inBody.getAngularVelocity());
}

/// What a careless host does to a body between steps.
struct Poke
{
    const char* name;
    std::function<void(btRigidBody&)> apply;
};

std::vector<Poke> Pokes()
{
    auto transformed = [](btRigidBody& ioBody, auto inChange)
    {
        btTransform transform = ioBody.getWorldTransform();
        inChange(transform);
        ioBody.setWorldTransform(transform);
    };
    return {
        {"linear velocity NaN", [](btRigidBody& b) { b.setLinearVelocity({0, cNaN, 0}); }},
        {"angular velocity NaN", [](btRigidBody& b) { b.setAngularVelocity({cNaN, 0, 0}); }},
        {"angular velocity inf", [](btRigidBody& b) { b.setAngularVelocity({0, 0, cInf}); }},
        {"central impulse NaN", [](btRigidBody& b) { b.applyCentralImpulse({0, cNaN, 0}); }},
        {"impulse at a NaN point", [](btRigidBody& b) { b.applyImpulse({0, 1, 0}, {cNaN, 0, 0}); }},
        {"torque impulse NaN", [](btRigidBody& b) { b.applyTorqueImpulse({0, cNaN, 0}); }},
        {"central force NaN", [](btRigidBody& b) { b.applyCentralForce({cNaN, 0, 0}); }},
        {"torque inf", [](btRigidBody& b) { b.applyTorque({0, cInf, 0}); }},
        {"gravity NaN", [](btRigidBody& b) { b.setGravity({0, cNaN, 0}); }},
        {"origin NaN", [&](btRigidBody& b) { transformed(b, [](btTransform& t) { t.setOrigin({cNaN, 0, 0}); }); }},
        {"origin 1e30", [&](btRigidBody& b) { transformed(b, [](btTransform& t) { t.setOrigin({0, cHuge, 0}); }); }},
        {"basis inf",
         [&](btRigidBody& b) { transformed(b, [](btTransform& t) { t.setBasis({cInf, 0, 0, 0, 1, 0, 0, 0, 1}); }); }},
        {"basis 1e30",
         [&](btRigidBody& b) { transformed(b, [](btTransform& t) { t.setBasis({cHuge, 0, 0, 0, 1, 0, 0, 0, 1}); }); }},
        {"central impulse 1e30", [](btRigidBody& b) { b.applyCentralImpulse({0, cHuge, 0}); }},
        {"angular velocity 1e30", [](btRigidBody& b) { b.setAngularVelocity({cHuge, 0, 0}); }},
        {"linear velocity 1e30 down", [](btRigidBody& b) { b.setLinearVelocity({0, -cHuge, 0}); }},
        {"central force 1e30", [](btRigidBody& b) { b.applyCentralForce({0, cHuge, 0}); }},
        {"torque 1e30", [](btRigidBody& b) { b.applyTorque({cHuge, 0, 0}); }},
        {"gravity 1e30", [](btRigidBody& b) { b.setGravity({0, cHuge, 0}); }},
        {"inverse mass NaN", [](btRigidBody& b) { b.setMassProps(cNaN, btVector3(1, 1, 1)); }},
        {"inertia NaN", [](btRigidBody& b) { b.setMassProps(2, btVector3(cNaN, 1, 1)); }},
        {"negative mass", [](btRigidBody& b) { b.setMassProps(-2, btVector3(1, 1, 1)); }},
        {"modal impulse 1e30",
         [](btRigidBody& b)
         {
             ModalDynamics& dynamics = World::Shape(&b)->Dynamics();
             dynamics.ApplyImpulse(std::vector<double>(dynamics.ModeCount(), 1e30));
         }},
    };
}

/// Pokes both bottom boxes with `inPoke` and steps: what first went wrong, or empty.
std::string PokeAndStep(const Poke& inPoke, unsigned inThreads)
{
    Stacks stacks = MakeStacks(inThreads);
    SampleWorld& world = *stacks.world;
    const StepStats before = world.Deformables().Stats();
    for (btRigidBody* body : stacks.poked)
    {
        inPoke.apply(*body);
        body->activate(true);
    }
    world.Step(1, cStep);
    const StepStats& after = world.Deformables().Stats();
    if (after.transformResets + after.stateRepairs + after.clamped + after.modalResets ==
        before.transformResets + before.stateRepairs + before.clamped + before.modalResets)
        return "no guard counted the poke";
    for (int step = 0; step < 90; ++step)
    {
        world.Step(1, cStep);
        for (btRigidBody* body : stacks.others)
            if (!StateIsFinite(*body))
                return "another body is not finite after step " + std::to_string(step);
        for (btRigidBody* body : stacks.poked)
        {
            if (!StateIsFinite(*body))
                return "the poked body is not finite after step " + std::to_string(step);
            for (double q : World::Shape(body)->Dynamics().QDouble())
                if (!std::isfinite(q))
                    return "the poked body's q is not finite after step " + std::to_string(step);
        }
    }
    for (btRigidBody* body : stacks.poked)
    {
        if (body->getActivationState() == DISABLE_SIMULATION || !(body->getInvMass() > 0))
            return "the poked body is left out of the simulation";
        // 8 m/s up for the body alone: at least 2.6 m/s with the heaviest load the scene can put on it (6 kg),
        // less 0.33 m/s of gravity over the two steps. Some pokes fling the body (the clamped spin meets the
        // ground), so the impulse is judged by the change of velocity it makes, not by the velocity.
        const btScalar height = body->getWorldTransform().getOrigin().y();
        const btScalar speedBefore = body->getLinearVelocity().y();
        body->activate(true);
        body->applyCentralImpulse(btVector3(0, 8, 0) / body->getInvMass());
        world.Step(2, cStep);
        if (!(body->getLinearVelocity().y() - speedBefore > 1.0f))
            return "the restored body does not move: y " + std::to_string(height) + " -> " +
                   std::to_string(body->getWorldTransform().getOrigin().y()) + ", vy " +
                   std::to_string(speedBefore) + " -> " + std::to_string(body->getLinearVelocity().y());
    }
    for (btRigidBody* body : stacks.others)
        if (!StateIsFinite(*body))
            return "another body is not finite after the restored one moved";
    return {};
}

class WorldStateGuard : public testing::TestWithParam<unsigned>
{
};

// Each poke on both bottom boxes: a guard counts it, no other body's transform or velocity is ever non-finite,
// the poked bodies are finite after every step, and afterwards they move again (an upward impulse lifts them).
TEST_P(WorldStateGuard, APokedDeformableNeverSpreadsAndMovesAgain)
{
    for (const Poke& poke : Pokes())
        EXPECT_EQ(PokeAndStep(poke, GetParam()), "") << poke.name;
}

// A body in the air given a NaN origin is put back where it was and falls on: Bullet had taken it out of the
// simulation for its overflowing box, and the restore puts it back in.
TEST_P(WorldStateGuard, ARestoredBodyInTheAirFallsOnAndLands)
{
    SampleWorldSettings settings;
    settings.narrowphaseThreads = GetParam();
    SampleWorld world(settings);
    world.AddGroundPlane();
    BodySettings desc;
    desc.proxyLevel = 8;
    desc.transform.setOrigin(btVector3(0, 3, 0));
    btRigidBody* body = world.Deformables().CreateBody(test::ShapeAsset("box", 300, 4), desc);
    world.Step(5, cStep);
    const btScalar height = body->getWorldTransform().getOrigin().y();
    btTransform bad = body->getWorldTransform();
    bad.setOrigin(btVector3(cNaN, 0, 0));
    body->setWorldTransform(bad);
    world.Step(1, cStep);
    EXPECT_EQ(world.Deformables().Stats().transformResets, 1u);
    // Put back before the solve, then fallen from rest for the one step: g·h².
    EXPECT_NEAR(body->getWorldTransform().getOrigin().y(), height - 9.81 * cStep * cStep, 1e-4);
    world.Step(120, cStep);
    EXPECT_NE(body->getActivationState(), DISABLE_SIMULATION);
    EXPECT_LT(body->getWorldTransform().getOrigin().y(), 0.7f); // on the ground (half a metre high)
    EXPECT_GT(test::LowestVertexHeight(*body), -0.02);
}

// A plain Bullet body the host made non-finite is Bullet's own affair (Bullet lets it go NaN); the deformable it
// rests on is put back after every step it is made non-finite, never left so, and nothing else is touched.
TEST_P(WorldStateGuard, APlainBodyMadeNonFiniteByTheHostIsBulletsAndTheDeformableUnderItIsKept)
{
    Stacks stacks = MakeStacks(GetParam());
    btRigidBody* crate = stacks.others[0];
    crate->setLinearVelocity(btVector3(0, cNaN, 0));
    crate->activate(true);
    for (int step = 0; step < 60; ++step)
    {
        stacks.world->Step(1, cStep);
        for (btRigidBody* body : {stacks.poked[0], stacks.poked[1], stacks.others[1], stacks.others[2]})
            ASSERT_TRUE(StateIsFinite(*body)) << "step " << step;
    }
    EXPECT_FALSE(StateIsFinite(*crate)); // Bullet's behaviour for its own bodies, documented in ROBUSTNESS.md
}

INSTANTIATE_TEST_SUITE_P(Threads, WorldStateGuard, testing::Values(1u, 2u),
                         [](const testing::TestParamInfo<unsigned>& inInfo)
                         { return std::to_string(inInfo.param) + "Threads"; });

} // namespace
} // namespace bdt
