// The modes' side of the contacts after Bullet's solve (engine_adapter/src/ContactModes.h, private to the
// adapter): which contacts slide, and the post-solve contact constraint on the modes' normal velocity, on
// manifolds made by hand in a real dispatcher.

#include "../../engine_adapter/src/ContactModes.h"
#include "bullet/ShapeSolver.h"

#include "support/BulletScenes.h"
#include "support/QueryOracles.h"

#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/NarrowPhaseCollision/btPersistentManifold.h>
#include <BulletDynamics/ConstraintSolver/btContactSolverInfo.h>
#include <BulletDynamics/Dynamics/btRigidBody.h>
#include <algorithm>
#include <bdt/bullet/CollisionConfiguration.h>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <cmath>
#include <gtest/gtest.h>
#include <memory>
#include <random>
#include <span>
#include <vector>

namespace bdt
{
namespace
{

// The constraint over every manifold of the dispatcher in turn, as `World`'s post-solve walk applies it: the
// shapes of bodies whose modes are not stepped (no prediction) take no part.
void ConstrainAllManifolds(btDispatcher& ioDispatcher, const btContactSolverInfo& inInfo)
{
    for (int m = 0; m < ioDispatcher.getNumManifolds(); ++m)
    {
        const btPersistentManifold& manifold = *ioDispatcher.getManifoldByIndexInternal(m);
        const btCollisionObject* objects[2] = {manifold.getBody0(), manifold.getBody1()};
        DeformableShape* shapes[2] = {nullptr, nullptr};
        Mat3d rotations[2] = {Mat3d::Identity(), Mat3d::Identity()};
        for (int side = 0; side < 2; ++side)
        {
            DeformableShape* shape = AsDeformable(const_cast<btCollisionShape*>(objects[side]->getCollisionShape()));
            if (shape == nullptr || !ShapeSolver::Of(*shape).Predicting())
                continue;
            shapes[side] = shape;
            rotations[side] = shape->RestToWorld(objects[side]->getWorldTransform());
        }
        detail::ConstrainManifoldModes(manifold, shapes, rotations, inInfo);
    }
}

using namespace test;

// ---- Slides ----

// A contact between two bodies at the world origin, normal +y (B to A), friction directions x and z.
btManifoldPoint SlidingPoint(double inFriction, double inNormalImpulse, double inLateral1, double inLateral2)
{
    btManifoldPoint point(btVector3(0, 0, 0), btVector3(0, 0, 0), btVector3(0, 1, 0), 0);
    point.m_positionWorldOnA = point.m_positionWorldOnB = btVector3(0, 0, 0);
    point.m_combinedFriction = btScalar(inFriction);
    point.m_appliedImpulse = btScalar(inNormalImpulse);
    point.m_lateralFrictionDir1 = btVector3(1, 0, 0);
    point.m_lateralFrictionDir2 = btVector3(0, 0, 1);
    point.m_appliedImpulseLateral1 = btScalar(inLateral1);
    point.m_appliedImpulseLateral2 = btScalar(inLateral2);
    return point;
}

struct RigidBall
{
    explicit RigidBall(const btVector3& inCentre)
        : shape(0.5),
          body(btRigidBody::btRigidBodyConstructionInfo(1, nullptr, &shape, btVector3(0.1f, 0.1f, 0.1f)))
    {
        body.setWorldTransform(btTransform(btQuaternion::getIdentity(), inCentre));
    }
    btSphereShape shape;
    btRigidBody body;
};

TEST(ContactModes, SlidesOnlyWhenFrictionSaturatesTheConeAndTheSurfacesSlip)
{
    btContactSolverInfo info;
    info.m_restitutionVelocityThreshold = btScalar(0.2);
    RigidBall a(btVector3(0, 0.5, 0)); // the contact point is under its centre
    btCollisionObject ground;          // not a rigid body: no velocity
    // μ = 0.5, λ = 2: the cone is 1 N·s.
    a.body.setLinearVelocity(btVector3(1, 0, 0));
    EXPECT_TRUE(detail::Slides(SlidingPoint(0.5, 2, -1.0, 0), a.body, ground, info));
    EXPECT_TRUE(detail::Slides(SlidingPoint(0.5, 2, -0.6, -0.8), a.body, ground, info))
        << "|f| over two dirs";
    EXPECT_TRUE(detail::Slides(SlidingPoint(0.5, 2, -0.9995, 0), a.body, ground, info)) << "within 0.1%";
    EXPECT_FALSE(detail::Slides(SlidingPoint(0.5, 2, -0.99, 0), a.body, ground, info)) << "inside the cone";
    EXPECT_FALSE(detail::Slides(SlidingPoint(0.5, 2, -0.6, -0.79), a.body, ground, info))
        << "inside the cone";
    EXPECT_FALSE(detail::Slides(SlidingPoint(0.5, 0, -1.0, 0), a.body, ground, info)) << "no push";
    EXPECT_FALSE(detail::Slides(SlidingPoint(0.5, -1, -1.0, 0), a.body, ground, info)) << "no push";
    // Either body's order: B sliding under a resting A.
    EXPECT_TRUE(detail::Slides(SlidingPoint(0.5, 2, 1.0, 0), ground, a.body, info));

    // The slip must beat the restitution threshold, tangentially.
    a.body.setLinearVelocity(btVector3(0.1f, 0, 0.1f));
    EXPECT_FALSE(detail::Slides(SlidingPoint(0.5, 2, -1.0, 0), a.body, ground, info)) << "slip 0.14 m/s";
    a.body.setLinearVelocity(btVector3(0.2f, 0, 0.2f));
    EXPECT_TRUE(detail::Slides(SlidingPoint(0.5, 2, -1.0, 0), a.body, ground, info)) << "slip 0.28 m/s";
    a.body.setLinearVelocity(btVector3(0, -5, 0));
    EXPECT_FALSE(detail::Slides(SlidingPoint(0.5, 2, -1.0, 0), a.body, ground, info)) << "normal motion only";

    // The slip is relative, at the contact point: rolling without slipping does not slide, spinning does.
    RigidBall b(btVector3(0, -0.5, 0));
    a.body.setLinearVelocity(btVector3(1, 0, 0));
    b.body.setLinearVelocity(btVector3(1, 0, 0));
    EXPECT_FALSE(detail::Slides(SlidingPoint(0.5, 2, -1.0, 0), a.body, b.body, info)) << "moving together";
    a.body.setLinearVelocity(btVector3(1, 0, 0));
    a.body.setAngularVelocity(btVector3(0, 0, -2)); // ω × r = (0,0,−2) × (0,−0.5,0) = (−1, 0, 0)
    b.body.setLinearVelocity(btVector3(0, 0, 0));
    EXPECT_FALSE(detail::Slides(SlidingPoint(0.5, 2, -1.0, 0), a.body, b.body, info)) << "rolling";
    a.body.setLinearVelocity(btVector3(0, 0, 0));
    EXPECT_TRUE(detail::Slides(SlidingPoint(0.5, 2, -1.0, 0), a.body, b.body, info)) << "spinning in place";
}

// ---- ConstrainContactModes ----

// Manifolds made by hand between deformable and rigid objects, in a real dispatcher.
struct ModalContactScene
{
    ModalContactScene() : dispatcher(&configuration) {}
    ~ModalContactScene()
    {
        while (dispatcher.getNumManifolds() > 0)
            dispatcher.releaseManifold(dispatcher.getManifoldByIndexInternal(0));
    }

    /// A predicting deformable box (6 modes) placed at random, modes at rest position with random velocities.
    btCollisionObject& AddDeformable(std::mt19937& ioRandom, double inModalSpeed)
    {
        DeformableShapeSettings settings;
        settings.mass = 2.0;
        settings.proxyLevel = 4;
        shapes.push_back(std::make_unique<DeformableShape>(ShapeAsset("box", 800, 6), settings));
        DeformableShape& shape = *shapes.back();
        std::vector<double> qDot(shape.Dynamics().ModeCount());
        for (double& value : qDot)
            value = Uniform(ioRandom, -inModalSpeed, inModalSpeed);
        EXPECT_TRUE(shape.Dynamics().SetState(std::vector<double>(qDot.size(), 0.0), qDot));
        EXPECT_TRUE(shape.BeginStep());
        ShapeSolver::Of(shape).PredictStep({1.0 / 60.0, true, 0.2});
        objects.push_back(std::make_unique<btCollisionObject>());
        objects.back()->setCollisionShape(&shape);
        const Mat3d rotation = RandomRotation(ioRandom);
        objects.back()->setWorldTransform(
            btTransform(ToBtMatrix(rotation), ToBtVector(RandomPoint(ioRandom))));
        return *objects.back();
    }

    btCollisionObject& AddRigid()
    {
        objects.push_back(std::make_unique<btCollisionObject>());
        objects.back()->setCollisionShape(&box);
        return *objects.back();
    }

    /// A point that pushed `inImpulse` with normal `inNormal` (B to A) at proxies `inNode0` and `inNode1`.
    btManifoldPoint& AddPoint(btCollisionObject& inA, btCollisionObject& inB, const Vec3d& inNormal,
                              int inNode0, int inNode1, double inImpulse, double inRestitution = 0.0)
    {
        btPersistentManifold* manifold = dispatcher.getNewManifold(&inA, &inB);
        btManifoldPoint point(btVector3(0, 0, 0), btVector3(0, 0, 0), ToBtVector(inNormal), 0);
        // Proxy contacts: the proxies in the part ids, no triangles.
        point.m_partId0 = inNode0;
        point.m_partId1 = inNode1;
        point.m_index0 = point.m_index1 = -1;
        point.m_appliedImpulse = btScalar(inImpulse);
        point.m_combinedRestitution = btScalar(inRestitution);
        return manifold->getContactPoint(manifold->addManifoldPoint(point));
    }

    CollisionConfiguration configuration;
    btCollisionDispatcher dispatcher;
    btBoxShape box{btVector3(1, 1, 1)};
    std::vector<std::unique_ptr<DeformableShape>> shapes;
    std::vector<std::unique_ptr<btCollisionObject>> objects;
};

// The normal as the point holds it (btScalar), which the constraint acts along. (Read back from the point:
// GCC 12's SLP vectoriser folds an inlined double-to-float-to-double round trip of a pair of values away.)
Vec3d NormalOf(const btManifoldPoint& inPoint)
{
    return ToVec3d(inPoint.m_normalWorldOnB);
}

DeformableShape& ShapeOf(btCollisionObject& inObject)
{
    return *AsDeformable(inObject.getCollisionShape());
}

Vec3d ModalVelocity(btCollisionObject& inObject, int inNode)
{
    return ShapeOf(inObject).ProxyModalVelocity(std::uint32_t(inNode),
                                                ShapeOf(inObject).RestToWorld(inObject.getWorldTransform()));
}

std::vector<double> QDot(btCollisionObject& inObject)
{
    const std::span<const double> qDot = ShapeOf(inObject).Dynamics().QDot();
    return {qDot.begin(), qDot.end()};
}

int RandomProxy(btCollisionObject& inObject, std::mt19937& ioRandom)
{
    const std::vector<std::uint32_t> nodes = ProxyNodes(ShapeOf(inObject).State().Proxies());
    return int(nodes[ioRandom() % nodes.size()]);
}

// Expects `inAfter` to be the modal velocities of `ioObject` from `inBefore` (q = 0) after the world impulse
// `inImpulse` at proxy `inNode` (`DeformableShape::ApplyImpulse`, the brute force of the jump); leaves the object with
// `inAfter`.
void ExpectJumpOfImpulse(btCollisionObject& ioObject, const std::vector<double>& inBefore, int inNode,
                         const Vec3d& inImpulse, const std::vector<double>& inAfter)
{
    DeformableShape& shape = ShapeOf(ioObject);
    const std::vector<double> rest(inBefore.size(), 0.0);
    ASSERT_TRUE(shape.Dynamics().SetState(rest, inBefore));
    shape.ApplyImpulse(std::uint32_t(inNode), inImpulse, ioObject.getWorldTransform());
    const std::vector<double> expected = QDot(ioObject);
    double largest = 0.0;
    for (std::size_t j = 0; j < inBefore.size(); ++j)
        largest = std::max({largest, std::abs(inBefore[j]), std::abs(expected[j])});
    for (std::size_t j = 0; j < inBefore.size(); ++j)
        EXPECT_NEAR(inAfter[j], expected[j], 1e-9 * largest) << "mode " << j;
    ASSERT_TRUE(shape.Dynamics().SetState(rest, inAfter));
}

TEST(ContactModes, ConstraintStopsTheModesNormalVelocityWithANormalImpulseAndTakesEnergyOut)
{
    std::mt19937 random(51);
    btContactSolverInfo info;
    info.m_restitutionVelocityThreshold = btScalar(0.2);
    int bounced = 0, stopped = 0;
    for (int trial = 0; trial < 40; ++trial)
    {
        ModalContactScene scene;
        btCollisionObject& body = scene.AddDeformable(random, 2.0);
        btCollisionObject& floor = scene.AddRigid();
        const int node = RandomProxy(body, random);
        const double restitution = trial % 2 == 0 ? 0.0 : 0.5;
        const Vec3d normal =
            NormalOf(scene.AddPoint(body, floor, RandomDirection(random), node, -1, 1e3, restitution));

        const double approach = normal.dot(ModalVelocity(body, node));
        const Mat3d mobility = ShapeOf(body).ProxyModalMobility(
            std::uint32_t(node), ShapeOf(body).RestToWorld(body.getWorldTransform()));
        const double energy = ShapeOf(body).Dynamics().KineticEnergy();
        const std::vector<double> before = QDot(body);
        ASSERT_GT(std::abs(approach), 0.01);

        ConstrainAllManifolds(scene.dispatcher, info);

        // Stopped, or bounced back by the restitution when approaching faster than the threshold.
        const bool bounces = approach < -0.2 && restitution > 0.0;
        const double target = bounces ? -restitution * approach : 0.0;
        const double after = normal.dot(ModalVelocity(body, node));
        EXPECT_NEAR(after, target, 1e-9 * std::abs(approach)) << "trial " << trial;
        EXPECT_LE(ShapeOf(body).Dynamics().KineticEnergy(), energy * (1 + 1e-12)) << "trial " << trial;
        (bounces ? bounced : stopped) += 1;

        // The impulse was along the normal: the jump is that of a normal impulse of that size at the proxy.
        const std::vector<double> constrained = QDot(body);
        const double push = (after - approach) / normal.dot(mobility * normal);
        ExpectJumpOfImpulse(body, before, node, push * normal, constrained);
    }
    EXPECT_GT(bounced, 3);
    EXPECT_GT(stopped, 10);
}

TEST(ContactModes, ConstraintNeverPullsMoreThanTheSolverPushed)
{
    std::mt19937 random(52);
    btContactSolverInfo info;
    for (int trial = 0; trial < 20; ++trial)
    {
        ModalContactScene scene;
        btCollisionObject& body = scene.AddDeformable(random, 2.0);
        btCollisionObject& floor = scene.AddRigid();
        const int node = RandomProxy(body, random);
        const Vec3d velocity = ModalVelocity(body, node);
        ASSERT_GT(velocity.norm(), 0.01);
        // The modes separate along the normal: holding them would pull; the solver pushed only a quarter of
        // the impulse that would stop them.
        btManifoldPoint& point = scene.AddPoint(
            body, floor, (velocity + 0.3 * velocity.norm() * RandomDirection(random)).normalized(), node, -1,
            0.0);
        const Vec3d normal = NormalOf(point);
        const double separating = normal.dot(velocity);
        ASSERT_GT(separating, 0.0);
        const Mat3d mobility = ShapeOf(body).ProxyModalMobility(
            std::uint32_t(node), ShapeOf(body).RestToWorld(body.getWorldTransform()));
        const double normalMobility = normal.dot(mobility * normal);
        point.m_appliedImpulse = btScalar(0.25 * separating / normalMobility);
        const double pushed = point.m_appliedImpulse;
        const double energy = ShapeOf(body).Dynamics().KineticEnergy();

        ConstrainAllManifolds(scene.dispatcher, info);
        const double after = normal.dot(ModalVelocity(body, node));
        EXPECT_NEAR(after, separating - normalMobility * pushed, 1e-9 * separating) << "trial " << trial;
        EXPECT_GT(after, 0.0);
        EXPECT_LE(ShapeOf(body).Dynamics().KineticEnergy(), energy * (1 + 1e-12));
    }
}

TEST(ContactModes, ConstraintLeavesBodiesWithoutPredictionAndPointsWithoutPushAlone)
{
    std::mt19937 random(53);
    btContactSolverInfo info;
    ModalContactScene scene;
    btCollisionObject& body = scene.AddDeformable(random, 2.0);
    btCollisionObject& floor = scene.AddRigid();
    const int node = RandomProxy(body, random);
    btManifoldPoint& point =
        scene.AddPoint(body, floor, -ModalVelocity(body, node).normalized(), node, -1, 1e3);
    const Vec3d normal = NormalOf(point); // approaching
    const std::vector<double> before = QDot(body);

    ShapeSolver::Of(ShapeOf(body))
        .ClearPrediction(); // asleep, static or under SetQ: its modes are not stepped
    ConstrainAllManifolds(scene.dispatcher, info);
    EXPECT_EQ(QDot(body), before);

    ShapeSolver::Of(ShapeOf(body)).PredictStep({1.0 / 60.0, true, 0.2});
    point.m_appliedImpulse = 0;
    ConstrainAllManifolds(scene.dispatcher, info);
    EXPECT_EQ(QDot(body), before) << "the solver did not push";

    point.m_appliedImpulse = 1e3;
    point.m_partId0 = -1;
    ConstrainAllManifolds(scene.dispatcher, info);
    EXPECT_EQ(QDot(body), before) << "no proxy";

    point.m_partId0 = node;
    ConstrainAllManifolds(scene.dispatcher, info);
    EXPECT_NE(QDot(body), before) << "the same point, pushing, on a predicting body";
    EXPECT_NEAR(normal.dot(ModalVelocity(body, node)), 0.0, 1e-9);
}

TEST(ContactModes, ConstraintBetweenTwoDeformablesActsOnBothAndOnlyOnPredictingOnes)
{
    std::mt19937 random(54);
    btContactSolverInfo info;
    for (int trial = 0; trial < 20; ++trial)
    {
        ModalContactScene scene;
        btCollisionObject& a = scene.AddDeformable(random, 2.0);
        btCollisionObject& b = scene.AddDeformable(random, 2.0);
        const int nodeA = RandomProxy(a, random), nodeB = RandomProxy(b, random);
        const Vec3d normal = NormalOf(scene.AddPoint(a, b, RandomDirection(random), nodeA, nodeB, 1e3));
        const double energy = ShapeOf(a).Dynamics().KineticEnergy() + ShapeOf(b).Dynamics().KineticEnergy();
        const std::vector<double> beforeA = QDot(a), beforeB = QDot(b);
        const double approach = normal.dot(ModalVelocity(a, nodeA) - ModalVelocity(b, nodeB));
        ASSERT_GT(std::abs(approach), 1e-3);

        ConstrainAllManifolds(scene.dispatcher, info);
        EXPECT_NEAR(normal.dot(ModalVelocity(a, nodeA) - ModalVelocity(b, nodeB)), 0.0,
                    1e-9 * std::abs(approach));
        EXPECT_NE(QDot(a), beforeA);
        EXPECT_NE(QDot(b), beforeB);
        EXPECT_LE(ShapeOf(a).Dynamics().KineticEnergy() + ShapeOf(b).Dynamics().KineticEnergy(),
                  energy * (1 + 1e-12));

        // Equal and opposite impulses p·n on A's proxy and −p·n on B's, p of both sides' mobility.
        const Mat3d mobility = ShapeOf(a).ProxyModalMobility(std::uint32_t(nodeA),
                                                             ShapeOf(a).RestToWorld(a.getWorldTransform())) +
                               ShapeOf(b).ProxyModalMobility(std::uint32_t(nodeB),
                                                             ShapeOf(b).RestToWorld(b.getWorldTransform()));
        const double push = -approach / normal.dot(mobility * normal);
        const std::vector<double> constrainedA = QDot(a), constrainedB = QDot(b);
        ExpectJumpOfImpulse(a, beforeA, nodeA, push * normal, constrainedA);
        ExpectJumpOfImpulse(b, beforeB, nodeB, -push * normal, constrainedB);

        // B without a prediction: only A's modes are held; B's are not touched.
        ASSERT_TRUE(ShapeOf(a).Dynamics().SetState(std::vector<double>(beforeA.size(), 0.0), beforeA));
        ASSERT_TRUE(ShapeOf(b).Dynamics().SetState(std::vector<double>(beforeB.size(), 0.0), beforeB));
        ShapeSolver::Of(ShapeOf(b)).ClearPrediction();
        const double energyA = ShapeOf(a).Dynamics().KineticEnergy();
        ConstrainAllManifolds(scene.dispatcher, info);
        EXPECT_EQ(QDot(b), beforeB);
        EXPECT_NE(QDot(a), beforeA);
        EXPECT_LE(ShapeOf(a).Dynamics().KineticEnergy(), energyA * (1 + 1e-12));
    }
}

TEST(ContactModes, OneSweepOverManyPointsNeverAddsModalEnergy)
{
    std::mt19937 random(55);
    btContactSolverInfo info;
    for (int trial = 0; trial < 30; ++trial)
    {
        ModalContactScene scene;
        btCollisionObject& a = scene.AddDeformable(random, 2.0);
        btCollisionObject& b = scene.AddDeformable(random, 2.0);
        btCollisionObject& floor = scene.AddRigid();
        const int count = 2 + int(random() % 6);
        int lastNode = -1;
        Vec3d lastNormal;
        for (int p = 0; p < count; ++p)
        {
            lastNode = RandomProxy(a, random);
            if (p % 3 == 2)
                lastNormal = NormalOf(scene.AddPoint(a, b, RandomDirection(random), lastNode,
                                                     RandomProxy(b, random), Uniform(random, 0.0, 5.0)));
            else
                lastNormal = NormalOf(scene.AddPoint(a, floor, RandomDirection(random), lastNode, -1,
                                                     Uniform(random, 0.0, 5.0), Uniform(random, 0.0, 1.0)));
        }
        const double energy = ShapeOf(a).Dynamics().KineticEnergy() + ShapeOf(b).Dynamics().KineticEnergy();
        ConstrainAllManifolds(scene.dispatcher, info);
        EXPECT_LE(ShapeOf(a).Dynamics().KineticEnergy() + ShapeOf(b).Dynamics().KineticEnergy(),
                  energy * (1 + 1e-12))
            << "trial " << trial;
        if ((count - 1) % 3 != 2) // the last point was against the floor: it is not approaching afterwards
        {
            EXPECT_GE(lastNormal.dot(ModalVelocity(a, lastNode)), -1e-9) << "trial " << trial;
        }
    }
}

} // namespace
} // namespace bdt
