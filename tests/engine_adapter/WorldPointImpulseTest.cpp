// bdt::World::ApplyImpulse and ApplyForce: at a point of a deformable body, the frame takes the impulse exactly
// (momentum and angular momentum about the centre of mass) and the modes its generalised impulse at the nearest
// surface point, compared with a brute-force projection (s·U_iᵀRᵀJ through the vertex's own row); a force is
// held over the next step; bad input changes nothing.
#include "support/BulletScenes.h"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <bdt/samples/SampleWorld.h>
#include <bdt/adapter/World.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <btBulletDynamicsCommon.h>
#include <gtest/gtest.h>
#include <limits>
#include <vector>

namespace bdt
{
namespace
{

constexpr double cMass = 3.0, cScale = 1.2, cStep = 1.0 / 60.0;
constexpr std::size_t cVertex = 123;

/// A turned, scaled chair placed at a tilt in a world without gravity, at rest.
btRigidBody* AddChair(SampleWorld& ioWorld)
{
    BodySettings desc;
    desc.mass = cMass;
    desc.scale = cScale;
    desc.proxyLevel = 6;
    desc.transform.setRotation(btQuaternion(btVector3(1.0f, 0.4f, 0.2f).normalized(), 0.8f));
    desc.transform.setOrigin(btVector3(0.5f, 2.0f, -1.0f));
    return ioWorld.Deformables().CreateBody(test::TurnedShapeAsset("chair", 1500, 6), desc);
}

SampleWorldSettings Weightless()
{
    SampleWorldSettings settings;
    settings.gravity = btVector3(0, 0, 0);
    settings.deformables.inertialForcing = false;
    return settings;
}

/// World position of vertex `inVertex`, deformed.
btVector3 VertexPosition(SampleWorld& ioWorld, btRigidBody* inBody, std::size_t inVertex)
{
    std::vector<float> xyz(3 * World::Shape(inBody)->Asset().GetModel().VertexCount());
    ioWorld.Deformables().DeformedVertices(inBody, xyz);
    return btVector3(xyz[3 * inVertex], xyz[3 * inVertex + 1], xyz[3 * inVertex + 2]);
}

/// Brute force: the generalised impulse of a world impulse `inImpulse` applied at vertex `inVertex`,
/// g_j = s·U_ij·(R_mᵀJ), R_m = R_b·R_pᵀ the rotation of the mesh frame (body rotation, principal axes).
std::vector<double> VertexGeneralizedImpulse(btRigidBody& inBody, std::size_t inVertex, const btVector3& inImpulse)
{
    const DeformableShape& shape = *World::Shape(&inBody);
    const Mat3d mesh = ToMat3d(inBody.getWorldTransform().getBasis()) * shape.Asset().Mass().principalAxes.transpose();
    const Vec3d rest = mesh.transpose() * ToVec3d(inImpulse);
    std::vector<double> g(shape.Dynamics().ModeCount());
    for (std::size_t j = 0; j < g.size(); ++j)
        g[j] = cScale * shape.Asset().GetModel().BasisVector(inVertex, j).cast<double>().dot(rest);
    return g;
}

TEST(WorldPointImpulse, TheFrameTakesTheImpulseExactlyAndTheModesItsGeneralisedImpulse)
{
    SampleWorld world(Weightless());
    btRigidBody* body = AddChair(world);
    world.Step(1, cStep);
    const btVector3 point = VertexPosition(world, body, cVertex);
    const btVector3 impulse(0.8f, -0.5f, 0.3f);
    const btVector3 linearBefore = body->getLinearVelocity(), angularBefore = body->getAngularVelocity();
    const ModalDynamics& dynamics = World::Shape(body)->Dynamics();
    const std::vector<double> qDotBefore(dynamics.QDot().begin(), dynamics.QDot().end());
    const double energyBefore = dynamics.KineticEnergy();
    ASSERT_TRUE(world.Deformables().ApplyImpulse(body, point, impulse));
    // Frame: Δ(m v) = J and Δω = I⁻¹(r × J) about the centre of mass, world inertia R diag(1/I) Rᵀ.
    const Vec3d momentum = cMass * ToVec3d(body->getLinearVelocity() - linearBefore);
    EXPECT_LT((momentum - ToVec3d(impulse)).norm(), 1e-6 * impulse.length());
    const Mat3d rotation = ToMat3d(body->getWorldTransform().getBasis());
    const Vec3d inverseInertia = ToVec3d(body->getInvInertiaDiagLocal());
    const Vec3d arm = ToVec3d(point - body->getCenterOfMassPosition());
    const Vec3d expectedSpin = rotation * inverseInertia.asDiagonal() * rotation.transpose() * arm.cross(ToVec3d(impulse));
    const Vec3d spin = ToVec3d(body->getAngularVelocity() - angularBefore);
    EXPECT_LT((spin - expectedSpin).norm(), 1e-5 * expectedSpin.norm());
    // Modes: Δq̇_j·μ_j = g_j of the vertex's own row.
    const std::vector<double> g = VertexGeneralizedImpulse(*body, cVertex, impulse);
    double largest = 0.0;
    for (double value : g)
        largest = std::max(largest, std::abs(value));
    ASSERT_GT(largest, 0.0);
    for (std::uint32_t j = 0; j < dynamics.ModeCount(); ++j)
        EXPECT_NEAR((dynamics.QDot()[j] - qDotBefore[j]) * dynamics.ModalMass(j), g[j], 1e-4 * largest) << j;
    EXPECT_GT(dynamics.KineticEnergy(), energyBefore);
    // The struck chair rings: the modes hold energy over the next steps.
    world.Step(10, cStep);
    EXPECT_GT(dynamics.Energy(), 0.0);
}

TEST(WorldPointImpulse, AForceIsHeldOverTheNextStep)
{
    SampleWorld world(Weightless());
    btRigidBody* body = AddChair(world);
    world.Step(1, cStep);
    const btVector3 point = VertexPosition(world, body, cVertex);
    const btVector3 force(0.0f, 30.0f, -12.0f);
    ModalDynamics expected = World::Shape(body)->Dynamics();
    const std::vector<double> g = VertexGeneralizedImpulse(*body, cVertex, force); // N·model unit
    ASSERT_TRUE(world.Deformables().ApplyForce(body, point, force));
    const btVector3 velocityBefore = body->getLinearVelocity();
    world.Step(1, cStep);
    EXPECT_LT((cMass * ToVec3d(body->getLinearVelocity() - velocityBefore) - cStep * ToVec3d(force)).norm(),
              1e-5 * force.length());
    // The modes stepped under that generalised force, as a ModalDynamics given it alone.
    expected.Step(cStep, g);
    const ModalDynamics& dynamics = World::Shape(body)->Dynamics();
    for (std::uint32_t j = 0; j < dynamics.ModeCount(); ++j)
        EXPECT_NEAR(dynamics.QDouble()[j], expected.QDouble()[j], 1e-4 * std::abs(expected.QDouble()[j]) + 1e-12) << j;
    EXPECT_GT(dynamics.Energy(), 0.0);
    // Gone after that step: the frame coasts and the modes ring freely.
    const btVector3 coasting = body->getLinearVelocity();
    expected.Step(cStep);
    world.Step(1, cStep);
    EXPECT_LT((body->getLinearVelocity() - coasting).length(), 1e-6f);
    for (std::uint32_t j = 0; j < dynamics.ModeCount(); ++j)
        EXPECT_NEAR(dynamics.QDouble()[j], expected.QDouble()[j], 1e-4 * std::abs(expected.QDouble()[j]) + 1e-12) << j;
}

TEST(WorldPointImpulse, BadInputChangesNothing)
{
    SampleWorld world(Weightless()), other;
    btRigidBody* body = AddChair(world);
    BodySettings fixed;
    fixed.mass = 0.0;
    fixed.transform.setOrigin(btVector3(5, 0, 0));
    btRigidBody* staticBody = world.Deformables().CreateBody(test::ShapeAsset("box", 300, 4), fixed);
    btRigidBody* foreign = other.Deformables().CreateBody(test::ShapeAsset("box", 300, 4), BodySettings{});
    btRigidBody* crate = world.AddRigid(std::make_unique<btBoxShape>(btVector3(1, 1, 1)), btTransform::getIdentity(), 1.0);
    world.Step(1, cStep);
    const btScalar nan = std::numeric_limits<btScalar>::quiet_NaN(), inf = std::numeric_limits<btScalar>::infinity();
    const btVector3 good(0, 1, 0), at = body->getCenterOfMassPosition();
    World& deformables = world.Deformables();
    for (btRigidBody* bad : {static_cast<btRigidBody*>(nullptr), foreign, crate, staticBody})
    {
        EXPECT_FALSE(deformables.ApplyImpulse(bad, at, good));
        EXPECT_FALSE(deformables.ApplyForce(bad, at, good));
    }
    EXPECT_EQ(crate->getLinearVelocity(), btVector3(0, 0, 0));
    EXPECT_EQ(foreign->getLinearVelocity(), btVector3(0, 0, 0));
    for (const btVector3& badPoint : {btVector3(nan, 0, 0), btVector3(0, inf, 0)})
    {
        EXPECT_FALSE(deformables.ApplyImpulse(body, badPoint, good));
        EXPECT_FALSE(deformables.ApplyForce(body, badPoint, good));
    }
    for (const btVector3& badVector : {btVector3(nan, 0, 0), btVector3(0, 0, -inf)})
    {
        EXPECT_FALSE(deformables.ApplyImpulse(body, at, badVector));
        EXPECT_FALSE(deformables.ApplyForce(body, at, badVector));
    }
    EXPECT_EQ(body->getLinearVelocity(), btVector3(0, 0, 0));
    EXPECT_EQ(body->getAngularVelocity(), btVector3(0, 0, 0));
    EXPECT_EQ(body->getTotalForce(), btVector3(0, 0, 0));
    for (double qDot : World::Shape(body)->Dynamics().QDot())
        EXPECT_EQ(qDot, 0.0);
    world.Step(1, cStep);
    EXPECT_EQ(body->getLinearVelocity(), btVector3(0, 0, 0));
}

} // namespace
} // namespace bdt
