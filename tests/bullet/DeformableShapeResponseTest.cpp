// DeformableShape's predicted step response and modal mobility at the contact proxies, against brute force:
// the real next step of the modes, finite differences of the compliance, and the impulse's velocity jump.

#include "bullet/ShapeSolver.h"
#include "support/BulletScenes.h"
#include "support/QueryOracles.h"
#include "support/TestModels.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <bdt/bullet/Conversions.h>
#include <bdt/bullet/DeformableShape.h>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <vector>

namespace bdt
{
namespace
{

using namespace test;

// World centre of proxy `inNode` at the modal coordinates `inQ` (double): c + Σ_j Ū_j q_j from the proxy row,
// then the shape's scale and the placement of `Body` (brute force in double, not the sphere kernel).
Vec3d ProxyCentreAt(const DeformableShape& inShape, std::uint32_t inNode, std::span<const double> inQ,
                    const btTransform& inTransform)
{
    const float* row = inShape.State().Proxies().Row(inNode);
    Vec3d centre(row[0], row[1], row[2]);
    for (std::uint32_t j = 0; j < inShape.State().ModeCount(); ++j)
    {
        const float* u = row + 4 * (j + 1);
        centre += inQ[j] * Vec3d(u[0], u[1], u[2]);
    }
    const DeformedBody body = inShape.QueryView(inTransform);
    return body.pose.Apply(body.scale * centre);
}

// How far proxy `inNode` moves along `inDirection` (world) from modal coordinates `inFrom` to `inTo`.
double MotionAlong(const DeformableShape& inShape, std::uint32_t inNode, const Vec3d& inDirection,
                   std::span<const double> inFrom, std::span<const double> inTo, const btTransform& inTransform)
{
    return inDirection.dot(ProxyCentreAt(inShape, inNode, inTo, inTransform) -
                           ProxyCentreAt(inShape, inNode, inFrom, inTransform));
}

// A shape of a turned chair (principal frame not the rest frame), scaled, with a random state that stays
// well inside the strain limits over a couple of steps, and the force of its last step held in its
// equilibrium: the modes have stepped once under `force`.
struct PredictingShape
{
    explicit PredictingShape(std::mt19937& ioRandom, double inTimeStep)
    {
        DeformableShapeSettings settings;
        settings.mass = 3.0;
        settings.proxyLevel = 4;
        shape = std::make_unique<DeformableShape>(TurnedShapeAsset("chair", 1500, 6), settings);
        shape->setLocalScaling(btVector3(1, 1, 1) * btScalar(1.3));
        transform = btTransform(RandomQuaternion(ioRandom), btVector3(0.5, -1, 2));
        ModalDynamics& dynamics = shape->Dynamics();
        const std::uint32_t modes = dynamics.ModeCount();
        std::vector<double> q(modes), qDot(modes);
        force.resize(modes);
        for (std::uint32_t j = 0; j < modes; ++j)
        {
            const double limit = dynamics.StrainLimit(j);
            const double stiffness = dynamics.ModalMass(j) * dynamics.Frequency(j) * dynamics.Frequency(j);
            q[j] = Uniform(ioRandom, -0.1, 0.1) * limit;
            qDot[j] = Uniform(ioRandom, -0.1, 0.1) * limit * dynamics.Frequency(j);
            force[j] = Uniform(ioRandom, -0.1, 0.1) * limit * stiffness;
        }
        EXPECT_TRUE(dynamics.SetState(q, qDot));
        dynamics.Step(inTimeStep, force);
        EXPECT_TRUE(shape->BeginStep());
        EXPECT_EQ(dynamics.GuardStats().clamped, 0u);
    }

    Mat3d RestToWorld() const { return shape->QueryView(transform).pose.rotation; }

    std::unique_ptr<DeformableShape> shape;
    btTransform transform;
    std::vector<double> force; // the generalised force of the last step
};

// The modes stepped over h from the shape's current state under `inForce`, after the generalised impulse
// `inKick` at the step's start: their q after the step.
std::vector<double> SteppedQ(const DeformableShape& inShape, double inTimeStep,
                             std::span<const double> inForce, std::span<const double> inKick = {})
{
    ModalDynamics dynamics = inShape.Dynamics();
    if (!inKick.empty())
        dynamics.ApplyImpulse(inKick);
    dynamics.Step(inTimeStep, inForce);
    EXPECT_EQ(dynamics.GuardStats().clamped, inShape.Dynamics().GuardStats().clamped) << "strain limit hit";
    return {dynamics.QDouble().begin(), dynamics.QDouble().end()};
}

TEST(DeformableShape, ProxyResponseDisplacementIsTheProxysMotionOverTheNextStepUnderTheHeldLoad)
{
    std::mt19937 random(31);
    for (const double h : {1.0 / 240.0, 1.0 / 60.0, 0.1})
    {
        PredictingShape fixture(random, h);
        DeformableShape& shape = *fixture.shape;
        // The step holds a contact impulse and another force (the inertial one): the prediction's motion is the
        // step's under both, whatever the last step held (the fixture's force).
        const std::uint32_t modes = shape.Dynamics().ModeCount();
        std::vector<double> heldImpulse(modes), heldForce(modes), force(modes);
        for (std::uint32_t j = 0; j < modes; ++j)
        {
            heldImpulse[j] = Uniform(random, -1.0, 1.0) * fixture.force[j] * h;
            heldForce[j] = Uniform(random, -1.0, 1.0) * fixture.force[j];
            force[j] = heldImpulse[j] / h + heldForce[j];
        }
        ShapeSolver::Of(shape).PredictStep({h, false, 0.2, heldImpulse, heldForce});
        ASSERT_TRUE(ShapeSolver::Of(shape).Predicting());
        const std::vector<double> before(shape.Dynamics().QDouble().begin(),
                                         shape.Dynamics().QDouble().end());
        const std::vector<double> after = SteppedQ(shape, h, force);
        const Mat3d restToWorld = fixture.RestToWorld();

        double largest = 0.0;
        const std::vector<std::uint32_t> nodes = ProxyNodes(shape.State().Proxies());
        for (int trial = 0; trial < 20; ++trial)
        {
            const std::uint32_t node = nodes[random() % nodes.size()];
            const Vec3d direction = RandomDirection(random);
            const double moved = MotionAlong(shape, node, direction, before, after, fixture.transform);
            largest = std::max(largest, std::abs(moved));
            const ProxyStepResponse response =
                ShapeSolver::Of(shape).ProxyResponse(node, direction, restToWorld);
            EXPECT_NEAR(response.displacement, moved, 1e-9 * ModelRadius(shape.Asset().GetModel()))
                << "h " << h << " node " << node;
        }
        EXPECT_GT(largest, 1e-4) << "the proxies move: the comparison means something";

        // The helper's proxy centre is the tree state's updated sphere centre (float) at the current q.
        for (const std::uint32_t node : {nodes.front(), nodes.back()})
        {
            const UpdatedSphere sphere = shape.State().Sphere(node);
            const DeformedBody body = shape.QueryView(fixture.transform);
            const Vec3d stateCentre =
                body.pose.Apply(body.scale * Vec3d(sphere.center[0], sphere.center[1], sphere.center[2]));
            EXPECT_LT((stateCentre - ProxyCentreAt(shape, node, before, fixture.transform)).norm(), 1e-5);
        }
    }
}

TEST(DeformableShape, ProxyResponseComplianceIsTheExtraMotionPerUnitImpulseOverTheStep)
{
    std::mt19937 random(32);
    for (const double h : {1.0 / 240.0, 1.0 / 60.0, 0.1})
    {
        PredictingShape fixture(random, h);
        DeformableShape& shape = *fixture.shape;
        const Mat3d restToWorld = fixture.RestToWorld();
        const double mass = shape.Settings().mass;
        const double scale = double(shape.getLocalScaling().x());
        const std::uint32_t modes = shape.Dynamics().ModeCount();
        const std::vector<double> held = SteppedQ(shape, h, fixture.force);
        btVector3 localInertia;
        shape.calculateLocalInertia(btScalar(mass), localInertia);
        const Mat3d basis = ToMat3d(fixture.transform.getBasis());
        const Mat3d inverseInertia =
            basis * ToVec3d(localInertia).cwiseInverse().asDiagonal() * basis.transpose();

        const std::vector<std::uint32_t> nodes = ProxyNodes(shape.State().Proxies());
        for (int trial = 0; trial < 12; ++trial)
        {
            const std::uint32_t node = nodes[random() % nodes.size()];
            const Vec3d direction = RandomDirection(random);
            const Vec3d lever = ProxyCentreAt(shape, node, shape.Dynamics().QDouble(), fixture.transform) -
                                ToVec3d(fixture.transform.getOrigin());
            const Vec3d angularPerImpulse = inverseInertia * lever.cross(direction);
            const double impulse = 0.01; // N·s, small enough to keep the modes off their strain limits

            // The step as bdt::World takes it: the impulse's generalised impulse, its kicked share at the step's
            // start (`ModalDynamics::KickedShare`) and the rest held over it as a force, plus (optionally) the
            // inertial force of the frame acceleration it causes (`InertialForce`, the brute-force oracle).
            const auto extraMotion = [&](bool inInertial, const Vec3d* inAngular)
            {
                ShapeSolver::Of(shape).AccumulateImpulse(node, ToBtVector(Vec3d(impulse * direction)),
                                                         restToWorld);
                std::vector<double> force = fixture.force, kick(modes);
                for (std::uint32_t j = 0; j < modes; ++j)
                {
                    kick[j] = shape.Dynamics().KickedShare(j, h) * ShapeSolver::Of(shape).PendingImpulse()[j];
                    force[j] += (ShapeSolver::Of(shape).PendingImpulse()[j] - kick[j]) / h;
                }
                ShapeSolver::Of(shape).ClearImpulses();
                if (inInertial)
                {
                    std::vector<double> inertial(modes);
                    const Vec3d angular =
                        inAngular != nullptr ? Vec3d(impulse * *inAngular / h) : Vec3d::Zero();
                    InertialForce(shape.Asset().Modal(), mass, scale, restToWorld,
                                  impulse * direction / (mass * h), Vec3d::Zero(), Vec3d::Zero(), angular,
                                  inertial);
                    for (std::uint32_t j = 0; j < modes; ++j)
                        force[j] += inertial[j];
                }
                const std::vector<double> pushed = SteppedQ(shape, h, force, kick);
                return MotionAlong(shape, node, direction, held, pushed, fixture.transform) /
                       impulse;
            };

            ShapeSolver::Of(shape).PredictStep({h, false, 0.2, {}, fixture.force});
            const double plain = extraMotion(false, nullptr);
            ASSERT_GT(plain, 0.0) << "Σ K_j u_j² of a moving proxy";
            const double tolerance = 1e-6 * plain;
            EXPECT_NEAR(ShapeSolver::Of(shape).ProxyResponse(node, direction, restToWorld).compliance, plain,
                        tolerance);
            // Without inertial forcing the frame term is ignored.
            EXPECT_NEAR(ShapeSolver::Of(shape)
                            .ProxyResponse(node, direction, restToWorld, &angularPerImpulse)
                            .compliance,
                        plain, tolerance);

            ShapeSolver::Of(shape).PredictStep({h, true, 0.2, {}, fixture.force});
            const double linear = extraMotion(true, nullptr);
            EXPECT_NEAR(ShapeSolver::Of(shape).ProxyResponse(node, direction, restToWorld).compliance,
                        std::max(linear, 0.0), tolerance)
                << "h " << h << " node " << node;
            const double full = extraMotion(true, &angularPerImpulse);
            EXPECT_NEAR(ShapeSolver::Of(shape)
                            .ProxyResponse(node, direction, restToWorld, &angularPerImpulse)
                            .compliance,
                        std::max(full, 0.0), tolerance)
                << "h " << h << " node " << node;

            // The asset's modes carry no rigid part in their coupling to the frame (`RemoveRigidCoupling`): the
            // frame's acceleration the impulse causes, linear or angular, loads them with nothing.
            EXPECT_NEAR(linear, plain, tolerance) << "h " << h << " node " << node;
            EXPECT_NEAR(full, plain, tolerance) << "h " << h << " node " << node;
        }
    }
}

// Modes held at their strain limit by a steady load (at the limit before and after the last modal step) that
// the held load presses further out: `ModalDynamics::Step` keeps them there, and so does the prediction. The
// proxies' predicted motion is the clamped step's, and their compliance that of the modes still free (a small
// change of the impulse leaves the others at the limit), against the real clamped step. A mode only now carried
// to its limit (an impact's load, mostly gone in the coming solve) keeps the linear prediction.
TEST(DeformableShape, ProxyResponseKeepsAModeASteadyLoadHoldsAtItsStrainLimitThere)
{
    std::mt19937 random(34);
    const double h = 1.0 / 60.0;
    PredictingShape fixture(random, h);
    DeformableShape& shape = *fixture.shape;
    ModalDynamics& dynamics = shape.Dynamics();
    const std::uint32_t modes = dynamics.ModeCount();
    std::vector<double> q(dynamics.QDouble().begin(), dynamics.QDouble().end());
    std::vector<double> qDot(dynamics.QDot().begin(), dynamics.QDot().end());
    std::vector<double> force = fixture.force;
    for (const std::uint32_t j : {0u, 2u})
    {
        const double side = j == 0 ? 1.0 : -1.0;
        const double stiffness = dynamics.ModalMass(j) * dynamics.Frequency(j) * dynamics.Frequency(j);
        q[j] = side * dynamics.StrainLimit(j);
        qDot[j] = 0.0;
        force[j] = side * 3.0 * dynamics.StrainLimit(j) * stiffness;
    }
    ASSERT_TRUE(dynamics.SetState(q, qDot));
    ASSERT_TRUE(shape.BeginStep());
    const std::vector<float> steady(shape.State().Q().begin(), shape.State().Q().end());
    // The clamped step, after a kick g at its start (its kicked share; the rest held over the step).
    const auto stepped = [&](std::span<const double> inImpulse)
    {
        ModalDynamics copy = dynamics;
        std::vector<double> kick(modes, 0.0), load = force;
        for (std::uint32_t j = 0; j < modes && !inImpulse.empty(); ++j)
        {
            kick[j] = copy.KickedShare(j, h) * inImpulse[j];
            load[j] += (inImpulse[j] - kick[j]) / h;
        }
        copy.ApplyImpulse(kick);
        copy.Step(h, load);
        EXPECT_GT(copy.GuardStats().clamped, dynamics.GuardStats().clamped) << "the load reaches the limit";
        return std::vector<double>(copy.QDouble().begin(), copy.QDouble().end());
    };
    ShapeSolver::Of(shape).PredictStep({h, false, 0.2, {}, force, steady});
    ASSERT_TRUE(ShapeSolver::Of(shape).Predicting());
    const std::vector<double> after = stepped({});
    const Mat3d restToWorld = fixture.RestToWorld();
    const std::vector<std::uint32_t> nodes = ProxyNodes(shape.State().Proxies());
    const double radius = ModelRadius(shape.Asset().GetModel());
    double largest = 0.0;
    for (int trial = 0; trial < 12; ++trial)
    {
        const std::uint32_t node = nodes[random() % nodes.size()];
        const Vec3d direction = RandomDirection(random);
        const double moved = MotionAlong(shape, node, direction, q, after, fixture.transform);
        largest = std::max(largest, std::abs(moved));
        const ProxyStepResponse response = ShapeSolver::Of(shape).ProxyResponse(node, direction, restToWorld);
        EXPECT_NEAR(response.displacement, moved, 1e-9 * radius) << "node " << node;

        const double impulse = 0.01; // N·s
        ShapeSolver::Of(shape).AccumulateImpulse(node, ToBtVector(Vec3d(impulse * direction)), restToWorld);
        const std::vector<double> generalised = test::PendingImpulse(shape);
        ShapeSolver::Of(shape).ClearImpulses();
        const double extra = MotionAlong(shape, node, direction, after, stepped(generalised), fixture.transform) /
                             impulse;
        EXPECT_NEAR(response.compliance, extra, 1e-6 * std::abs(extra) + 1e-12) << "node " << node;

        // Just carried there (q short of the limit before the last step): the unclamped step's motion.
        std::vector<float> carried = steady;
        carried[0] *= 0.5f;
        carried[2] *= 0.5f;
        ShapeSolver::Of(shape).PredictStep({h, false, 0.2, {}, force, carried});
        std::vector<double> free(modes), held(modes), kicked(modes), unclamped = q;
        dynamics.StepParts(h, free, held, kicked);
        for (std::uint32_t j = 0; j < modes; ++j)
            unclamped[j] += free[j] + held[j] * force[j] * h;
        EXPECT_NEAR(ShapeSolver::Of(shape).ProxyResponse(node, direction, restToWorld).displacement,
                    MotionAlong(shape, node, direction, q, unclamped, fixture.transform), 1e-9 * radius)
            << "node " << node;
        ShapeSolver::Of(shape).PredictStep({h, false, 0.2, {}, force, steady});
    }
    EXPECT_GT(largest, 1e-3 * radius) << "the proxies move: the comparison means something";
}

TEST(DeformableShape, ProxyModalMobilityIsTheVelocityJumpPerUnitImpulseSymmetricAndPositive)
{
    std::mt19937 random(33);
    PredictingShape fixture(random, 1.0 / 60.0);
    DeformableShape& shape = *fixture.shape;
    const btTransform& transform = fixture.transform;
    const std::uint32_t modes = shape.Dynamics().ModeCount();
    const std::vector<double> q(shape.Dynamics().QDouble().begin(), shape.Dynamics().QDouble().end());
    const std::vector<double> qDot(shape.Dynamics().QDot().begin(), shape.Dynamics().QDot().end());

    const std::vector<std::uint32_t> nodes = ProxyNodes(shape.State().Proxies());
    for (int trial = 0; trial < 10; ++trial)
    {
        const std::uint32_t node = nodes[random() % nodes.size()];
        ASSERT_TRUE(shape.Dynamics().SetState(q, qDot));

        // The modal velocity is the derivative of the proxy centre along q̇ (linear in q: one difference).
        std::vector<double> ahead(modes);
        for (std::uint32_t j = 0; j < modes; ++j)
            ahead[j] = q[j] + qDot[j];
        const Vec3d velocity = shape.ProxyModalVelocity(node, shape.RestToWorld(transform));
        const Vec3d expected =
            ProxyCentreAt(shape, node, ahead, transform) - ProxyCentreAt(shape, node, q, transform);
        EXPECT_LT((velocity - expected).norm(), 1e-9 * expected.norm() + 1e-12);

        // Columns by brute force: the velocity jump of a unit impulse along each world axis.
        const Mat3d mobility = shape.ProxyModalMobility(node, shape.RestToWorld(transform));
        Mat3d measured;
        for (int axis = 0; axis < 3; ++axis)
        {
            ASSERT_TRUE(shape.Dynamics().SetState(q, qDot));
            const double impulse = 0.5;
            shape.ApplyImpulse(node, impulse * Vec3d::Unit(axis), transform);
            measured.col(axis) =
                (shape.ProxyModalVelocity(node, shape.RestToWorld(transform)) - velocity) / impulse;
        }
        ASSERT_GT(mobility.norm(), 0.0);
        EXPECT_LT((mobility - measured).norm(), 1e-9 * mobility.norm()) << "node " << node;
        EXPECT_LT((mobility - mobility.transpose()).norm(), 1e-12 * mobility.norm());
        const Eigen::SelfAdjointEigenSolver<Mat3d> eigen(0.5 * (mobility + mobility.transpose()));
        EXPECT_GE(eigen.eigenvalues().minCoeff(), -1e-12 * mobility.norm());

        // And it is the kinetic energy's quadratic form: ΔT = J·v + ½ JᵀMJ for any impulse J.
        ASSERT_TRUE(shape.Dynamics().SetState(q, qDot));
        const Vec3d impulse = Uniform(random, 0.1, 2.0) * RandomDirection(random);
        const double before = shape.Dynamics().KineticEnergy();
        shape.ApplyImpulse(node, impulse, transform);
        const double gained = impulse.dot(velocity) + 0.5 * impulse.dot(mobility * impulse);
        EXPECT_NEAR(shape.Dynamics().KineticEnergy() - before, gained, 1e-9 * (before + std::abs(gained)));
    }

    // A node outside the tree: no velocity, no mobility, no response, and an impulse there does nothing.
    ASSERT_TRUE(shape.Dynamics().SetState(q, qDot));
    ShapeSolver::Of(shape).PredictStep({1.0 / 60.0, true, 0.2});
    const std::uint32_t outside = shape.State().Tree().NodeCount();
    EXPECT_TRUE(shape.ProxyModalVelocity(outside, shape.RestToWorld(transform)).isZero(0.0));
    EXPECT_TRUE(shape.ProxyModalMobility(outside, shape.RestToWorld(transform)).isZero(0.0));
    const ProxyStepResponse response =
        ShapeSolver::Of(shape).ProxyResponse(outside, Vec3d::UnitX(), fixture.RestToWorld());
    EXPECT_EQ(response.displacement, 0.0);
    EXPECT_EQ(response.compliance, 0.0);
    shape.ApplyImpulse(outside, Vec3d(1, 2, 3), transform);
    EXPECT_TRUE(std::equal(qDot.begin(), qDot.end(), shape.Dynamics().QDot().begin()));
}

TEST(DeformableShape, PredictionIsMadeOnlyForAValidStepAndForgottenWhenTheBodyChanges)
{
    std::mt19937 random(34);
    PredictingShape fixture(random, 1.0 / 60.0);
    DeformableShape& shape = *fixture.shape;
    const Mat3d restToWorld = fixture.RestToWorld();
    const std::uint32_t node = ProxyNodes(shape.State().Proxies()).back();
    const Vec3d direction = Vec3d(1, 2, -1).normalized();
    const auto responds = [&]
    {
        const ProxyStepResponse response = ShapeSolver::Of(shape).ProxyResponse(node, direction, restToWorld);
        return response.displacement != 0.0 || response.compliance != 0.0;
    };

    // Never predicted: the surface is rigid to the solver, whatever the modes do.
    EXPECT_FALSE(ShapeSolver::Of(shape).Predicting());
    EXPECT_FALSE(responds());

    const StepPrediction valid{1.0 / 120.0, false, 0.3};
    ShapeSolver::Of(shape).PredictStep(valid);
    ASSERT_TRUE(ShapeSolver::Of(shape).Predicting());
    EXPECT_EQ(ShapeSolver::Of(shape).Prediction().timeStep, valid.timeStep);
    EXPECT_EQ(ShapeSolver::Of(shape).Prediction().inertialForcing, valid.inertialForcing);
    EXPECT_EQ(ShapeSolver::Of(shape).Prediction().contactErp, valid.contactErp);
    EXPECT_TRUE(responds());
    ShapeSolver::Of(shape).PredictStep({1.0 / 60.0, true, 1.0}); // erp 1 is in range
    EXPECT_TRUE(ShapeSolver::Of(shape).Predicting());

    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (const StepPrediction& bad :
         {StepPrediction{0.0, true, 0.2}, StepPrediction{-0.01, true, 0.2}, StepPrediction{nan, true, 0.2},
          StepPrediction{inf, true, 0.2}, StepPrediction{0.01, true, 0.0}, StepPrediction{0.01, true, 1.5},
          StepPrediction{0.01, true, nan}, StepPrediction{0.01, true, -0.2}})
    {
        ShapeSolver::Of(shape).PredictStep(valid);
        ASSERT_TRUE(ShapeSolver::Of(shape).Predicting());
        ShapeSolver::Of(shape).PredictStep(bad);
        EXPECT_FALSE(ShapeSolver::Of(shape).Predicting()) << bad.timeStep << " " << bad.contactErp;
        EXPECT_FALSE(responds());
    }

    ShapeSolver::Of(shape).PredictStep(valid);
    ShapeSolver::Of(shape).ClearPrediction();
    EXPECT_FALSE(ShapeSolver::Of(shape).Predicting());

    ShapeSolver::Of(shape).PredictStep(valid);
    const std::vector<float> q(shape.Dynamics().Q().begin(), shape.Dynamics().Q().end());
    ASSERT_TRUE(shape.SetQ(q));
    EXPECT_FALSE(ShapeSolver::Of(shape).Predicting()) << "SetQ";

    ShapeSolver::Of(shape).PredictStep(valid);
    DeformableShapeSettings settings = shape.Settings();
    settings.modal.stiffnessScale = 2.0f;
    shape.SetSettings(settings);
    EXPECT_FALSE(ShapeSolver::Of(shape).Predicting()) << "SetSettings";

    ShapeSolver::Of(shape).PredictStep(valid);
    shape.setLocalScaling(btVector3(2, 2, 2));
    EXPECT_FALSE(ShapeSolver::Of(shape).Predicting()) << "setLocalScaling";

    // A refused SetQ or scaling changes nothing, the prediction included.
    ShapeSolver::Of(shape).PredictStep(valid);
    EXPECT_FALSE(shape.SetQ(std::vector<float>(q.size() + 1, 0.0f)));
    EXPECT_THROW(shape.setLocalScaling(btVector3(1, 2, 1)), Error);
    EXPECT_TRUE(ShapeSolver::Of(shape).Predicting());
}

} // namespace
} // namespace bdt
