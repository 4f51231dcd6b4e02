#include "support/QueryOracles.h"

#include <bdt/core/base/Error.h>
#include <bdt/core/dynamics/ModalDynamics.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace bdt
{
namespace
{

constexpr double cNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double cInf = std::numeric_limits<double>::infinity();

// A tetrahedron with M random displacement fields and the given per-mode data (empty: no physical modes).
Model TetraModel(std::uint32_t inModes, std::vector<ModeInfo> inInfo, std::uint32_t inSeed = 1)
{
    std::mt19937 random(inSeed);
    ModelData data;
    data.positions = {Vec3f(0, 0, 0), Vec3f(1, 0, 0), Vec3f(0, 1, 0), Vec3f(0, 0, 1)};
    data.triangles = {Triangle{0, 2, 1}, Triangle{0, 1, 3}, Triangle{0, 3, 2}, Triangle{1, 2, 3}};
    data.modeCount = inModes;
    for (std::size_t k = 0; k < 12 * std::size_t(inModes); ++k)
        data.basis.push_back(static_cast<float>(test::Uniform(random, -1.0, 1.0)));
    data.modes = std::move(inInfo);
    return Model::Create(std::move(data));
}

// Settings with strain limits far away, so that they do not interfere with the integration tests, and no
// fallback damping, so that modes with ζ = 0 in the model are undamped.
ModalSettings FreeSettings()
{
    ModalSettings settings;
    settings.strainLimit = 1e6f;
    settings.fallbackDamping = 0.0f;
    return settings;
}

constexpr double cMass = 2.5;
constexpr double cScale = 1.5;
constexpr double cRadius = 0.8;

struct Oscillator
{
    double q = 0.0, v = 0.0;
};

// μ(q̈ + 2ζω q̇ + ω² q) = f with classical RK4 at `inSubsteps` steps over `inTime`: the reference.
Oscillator ReferenceRK4(Oscillator inStart, double inOmega, double inZeta, double inMu, double inForce,
                        double inTime, int inSubsteps)
{
    const auto acceleration = [&](double inQ, double inV)
    { return inForce / inMu - 2.0 * inZeta * inOmega * inV - inOmega * inOmega * inQ; };
    const double h = inTime / inSubsteps;
    Oscillator y = inStart;
    for (int k = 0; k < inSubsteps; ++k)
    {
        const double k1q = y.v, k1v = acceleration(y.q, y.v);
        const double k2q = y.v + 0.5 * h * k1v, k2v = acceleration(y.q + 0.5 * h * k1q, y.v + 0.5 * h * k1v);
        const double k3q = y.v + 0.5 * h * k2v, k3v = acceleration(y.q + 0.5 * h * k2q, y.v + 0.5 * h * k2v);
        const double k4q = y.v + h * k3v, k4v = acceleration(y.q + h * k3q, y.v + h * k3v);
        y.q += h / 6.0 * (k1q + 2.0 * k2q + 2.0 * k3q + k4q);
        y.v += h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    }
    return y;
}

TEST(ModalDynamics, StepIsExactForConstantForceInEveryDampingRegime)
{
    // Under-, critically and over-damped modes, and both sides of critical closely (where a naive formula
    // loses digits).
    const std::vector<ModeInfo> info = {{20.0f, 0.0f},      {20.0f, 0.1f},      {15.0f, 1.0f},
                                        {15.0f, 0.999999f}, {15.0f, 1.000001f}, {10.0f, 3.0f}};
    const std::uint32_t m = static_cast<std::uint32_t>(info.size());
    const Model model = TetraModel(m, info);
    const ModalProperties properties = ComputeModalProperties(model, Vec3d(0.25, 0.25, 0.25));
    ModalDynamics dynamics(model, properties, cRadius, cMass, cScale, FreeSettings());
    ASSERT_EQ(dynamics.ModeCount(), m);

    std::vector<double> q(m), v(m), force(m);
    for (std::uint32_t j = 0; j < m; ++j)
    {
        EXPECT_NEAR(dynamics.Frequency(j), info[j].frequency, 1e-12 * info[j].frequency) << j;
        EXPECT_NEAR(dynamics.Damping(j), info[j].damping, 1e-12) << j;
        EXPECT_NEAR(dynamics.ModalMass(j), cMass * cScale * cScale * properties.modalMass[j],
                    1e-12 * dynamics.ModalMass(j))
            << j;
        q[j] = 0.01 * (1.0 + j);
        v[j] = -0.3 + 0.1 * j;
        force[j] = 3.0 - 1.1 * j;
    }
    ASSERT_TRUE(dynamics.SetState(q, v));
    std::vector<Oscillator> reference(m);
    for (std::uint32_t j = 0; j < m; ++j)
        reference[j] = {q[j], v[j]};
    // Changing step lengths: a cached transition must not be reused for another h.
    for (double h : {0.05, 0.05, 0.013, 0.2, 0.05})
    {
        dynamics.Step(h, force);
        for (std::uint32_t j = 0; j < m; ++j)
        {
            reference[j] = ReferenceRK4(reference[j], info[j].frequency, info[j].damping,
                                        dynamics.ModalMass(j), force[j], h, 4000);
            const std::string context = "mode " + std::to_string(j) + " h " + std::to_string(h);
            const double size = std::abs(reference[j].q) + std::abs(reference[j].v) / info[j].frequency;
            EXPECT_NEAR(dynamics.QDouble()[j], reference[j].q, 1e-9 * size) << context;
            EXPECT_NEAR(dynamics.QDot()[j], reference[j].v, 1e-9 * size * info[j].frequency) << context;
            EXPECT_EQ(dynamics.Q()[j], static_cast<float>(dynamics.QDouble()[j])) << context;
        }
    }
    EXPECT_EQ(dynamics.GuardStats().clamped, 0u);
    EXPECT_EQ(dynamics.GuardStats().rejectedImpulses, 0u);
    EXPECT_EQ(dynamics.GuardStats().resets, 0u);
}

TEST(ModalDynamics, ConstantForceSettlesAtTheStaticDeflection)
{
    const std::vector<ModeInfo> info = {{30.0f, 0.5f}, {12.0f, 2.0f}};
    const Model model = TetraModel(2, info, 3);
    ModalDynamics dynamics(model, ComputeModalProperties(model, Vec3d::Zero()), cRadius, cMass, cScale,
                           FreeSettings());
    const double force[] = {4.0, -2.0};
    for (int k = 0; k < 100; ++k)
        dynamics.Step(1.0, force); // ω·h ≫ 1: exact integration still lands on q = f/(μω²)
    for (std::uint32_t j = 0; j < 2; ++j)
    {
        const double omega = dynamics.Frequency(j);
        const double deflection = force[j] / (dynamics.ModalMass(j) * omega * omega);
        EXPECT_NEAR(dynamics.QDouble()[j], deflection, 1e-12 * std::abs(deflection)) << j;
        EXPECT_NEAR(dynamics.QDot()[j], 0.0, 1e-12 * std::abs(deflection) * omega) << j;
    }
}

TEST(ModalDynamics, FreeEnergyNeverIncreases)
{
    // Stiff and soft, undamped to overdamped, for tiny to enormous ω·h (up to 1e6 and beyond).
    const std::vector<ModeInfo> info = {{1e4f, 0.0f}, {1e4f, 0.02f}, {500.0f, 1.0f}, {3.0f, 0.3f},
                                        {2e5f, 5.0f}, {1.0f, 0.0f},  {50.0f, 0.999f}};
    const std::uint32_t m = static_cast<std::uint32_t>(info.size());
    const Model model = TetraModel(m, info, 5);
    ModalDynamics dynamics(model, ComputeModalProperties(model, Vec3d::Zero()), cRadius, cMass, cScale,
                           FreeSettings());
    std::mt19937 random(11);
    int steps = 0;
    for (double h : {1e-7, 1e-4, 0.016, 0.5, 100.0, 1e4, 3.3e5})
    {
        std::vector<double> q(m), v(m);
        for (std::uint32_t j = 0; j < m; ++j)
        {
            q[j] = test::Uniform(random, -0.1, 0.1);
            v[j] = test::Uniform(random, -0.1, 0.1) * info[j].frequency;
        }
        ASSERT_TRUE(dynamics.SetState(q, v));
        double energy = dynamics.Energy();
        for (int k = 0; k < 20; ++k, ++steps)
        {
            dynamics.Step(h);
            const double after = dynamics.Energy();
            ASSERT_TRUE(std::isfinite(after));
            ASSERT_LE(after, energy * (1.0 + 1e-12)) << "h " << h << " step " << k;
            energy = after;
        }
    }
    EXPECT_EQ(steps, 140);
    EXPECT_EQ(dynamics.GuardStats().resets, 0u);
}

TEST(ModalDynamics, UndampedModeKeepsItsEnergy)
{
    const Model model = TetraModel(1, {{1e3f, 0.0f}}, 6);
    ModalDynamics dynamics(model, ComputeModalProperties(model, Vec3d::Zero()), cRadius, cMass, cScale,
                           FreeSettings());
    const double q[] = {0.02}, v[] = {-15.0};
    ASSERT_TRUE(dynamics.SetState(q, v));
    const double energy = dynamics.Energy();
    const double mu = dynamics.ModalMass(0);
    EXPECT_NEAR(energy, 0.5 * mu * (v[0] * v[0] + 1e6 * q[0] * q[0]), 1e-12 * energy);
    for (double h : {1e-3, 7.7, 1e3})
    {
        for (int k = 0; k < 10; ++k)
            dynamics.Step(h);
        EXPECT_NEAR(dynamics.Energy(), energy, 1e-9 * energy) << "h " << h;
    }
}

TEST(ModalDynamics, ImpulseJumpsTheVelocity)
{
    const std::vector<ModeInfo> info = {{40.0f, 0.1f}, {60.0f, 0.1f}, {80.0f, 0.1f}};
    const Model model = TetraModel(3, info, 7);
    ModalDynamics dynamics(model, ComputeModalProperties(model, Vec3d::Zero()), cRadius, cMass, cScale,
                           FreeSettings());
    const double q[] = {0.01, -0.02, 0.0}, v[] = {0.5, 0.0, -1.0};
    ASSERT_TRUE(dynamics.SetState(q, v));
    const double impulse[] = {0.3, -1.2, 0.0};
    dynamics.ApplyImpulse(impulse);
    for (std::uint32_t j = 0; j < 3; ++j)
    {
        EXPECT_EQ(dynamics.QDouble()[j], q[j]) << "an impulse does not move q";
        EXPECT_NEAR(dynamics.QDot()[j], v[j] + impulse[j] / dynamics.ModalMass(j), 1e-14) << j;
    }
    EXPECT_EQ(dynamics.GuardStats().rejectedImpulses, 0u);
}

// An impulse p along a coupling u is the generalised impulse p·u (to rounding: it multiplies by 1/μ_j), and
// it is all or nothing like `ApplyImpulse`: a non-finite p or u_j, an overflowing velocity or a wrong size
// changes no velocity and is counted.
TEST(ModalDynamics, ImpulseAlongACouplingIsThatGeneralisedImpulse)
{
    const std::vector<ModeInfo> info = {{40.0f, 0.1f}, {60.0f, 0.1f}, {80.0f, 0.1f}};
    const Model model = TetraModel(3, info, 7);
    const ModalProperties properties = ComputeModalProperties(model, Vec3d::Zero());
    ModalDynamics along(model, properties, cRadius, cMass, cScale, FreeSettings());
    ModalDynamics generalised(model, properties, cRadius, cMass, cScale, FreeSettings());
    const double q[] = {0.01, -0.02, 0.0}, v[] = {0.5, 0.0, -1.0};
    ASSERT_TRUE(along.SetState(q, v));
    ASSERT_TRUE(generalised.SetState(q, v));
    const double coupling[] = {0.3, -1.2, 0.05};
    const double p = 2.5;
    const double impulse[] = {p * coupling[0], p * coupling[1], p * coupling[2]};
    along.ApplyImpulseAlong(coupling, p);
    generalised.ApplyImpulse(impulse);
    for (std::uint32_t j = 0; j < 3; ++j)
    {
        EXPECT_EQ(along.QDouble()[j], q[j]);
        EXPECT_NEAR(along.QDot()[j], generalised.QDot()[j], 1e-14 * std::abs(generalised.QDot()[j])) << j;
        EXPECT_NE(along.QDot()[j], v[j]) << j;
        EXPECT_EQ(along.InverseModalMasses()[j], 1.0 / along.ModalMass(j)) << j;
    }
    EXPECT_EQ(along.GuardStats().rejectedImpulses, 0u);

    const std::vector<double> before(along.QDot().begin(), along.QDot().end());
    const double nanCoupling[] = {0.3, cNaN, 0.0}, shortCoupling[] = {0.3, -1.2};
    along.ApplyImpulseAlong(coupling, cNaN);
    along.ApplyImpulseAlong(coupling, cInf);
    along.ApplyImpulseAlong(nanCoupling, 1.0);
    along.ApplyImpulseAlong(shortCoupling, 1.0);
    EXPECT_EQ(along.GuardStats().rejectedImpulses, 4u);
    for (std::uint32_t j = 0; j < 3; ++j)
        EXPECT_EQ(along.QDot()[j], before[j]) << "not even the finite entries are applied, mode " << j;

    // A huge finite impulse again and again: each taken up to the speed limits (`VelocitiesStayWithinTheSpeedLimits`),
    // or rejected whole where p·u_j/μ_j itself overflows; never a non-finite or unbounded velocity.
    for (int k = 0; k < 40; ++k)
    {
        along.ApplyImpulseAlong(coupling, k % 2 == 0 ? 1e308 : 1e30);
        for (std::uint32_t j = 0; j < 3; ++j)
        {
            ASSERT_TRUE(std::isfinite(along.QDot()[j])) << k;
            ASSERT_LE(std::abs(along.QDot()[j]), along.SpeedLimit(j)) << k;
        }
    }
    EXPECT_GT(along.GuardStats().clamped, 0u);
}

TEST(ModalDynamics, NonFiniteImpulsesAndForcesAreIgnoredAndCounted)
{
    const std::vector<ModeInfo> info = {{40.0f, 0.1f}, {60.0f, 0.2f}};
    const Model model = TetraModel(2, info, 8);
    const ModalProperties properties = ComputeModalProperties(model, Vec3d::Zero());
    ModalDynamics dynamics(model, properties, cRadius, cMass, cScale, FreeSettings());
    ModalDynamics twin(model, properties, cRadius, cMass, cScale, FreeSettings());
    const double q[] = {0.01, -0.02}, v[] = {0.5, 0.1};
    ASSERT_TRUE(dynamics.SetState(q, v));
    ASSERT_TRUE(twin.SetState(q, v));

    const double nan[] = {1.0, cNaN}, inf[] = {-cInf, 0.0};
    dynamics.ApplyImpulse(nan);
    dynamics.ApplyImpulse(inf);
    EXPECT_EQ(dynamics.GuardStats().rejectedImpulses, 2u);
    for (std::uint32_t j = 0; j < 2; ++j)
    {
        EXPECT_EQ(dynamics.QDouble()[j], q[j]);
        EXPECT_EQ(dynamics.QDot()[j], v[j]) << "not even the finite entries are applied";
    }
    // A non-finite force: the step runs as if there were no force.
    dynamics.Step(0.01, nan);
    twin.Step(0.01);
    EXPECT_EQ(dynamics.GuardStats().rejectedImpulses, 3u);
    for (std::uint32_t j = 0; j < 2; ++j)
    {
        EXPECT_EQ(dynamics.QDouble()[j], twin.QDouble()[j]) << j;
        EXPECT_EQ(dynamics.QDot()[j], twin.QDot()[j]) << j;
    }
    EXPECT_EQ(dynamics.GuardStats().resets, 0u);
}

TEST(ModalDynamics, OverflowingImpulseEndsAtRest)
{
    const Model model = TetraModel(1, {{40.0f, 0.1f}}, 9);
    ModalDynamics dynamics(model, ComputeModalProperties(model, Vec3d::Zero()), cRadius, 1e-3, 1e-2,
                           FreeSettings());
    // A finite impulse whose g/μ overflows to q̇ = ∞. Either guard of the contract brings the body back to rest:
    // the impulse refused (the body never moved) or the non-finite state reset to rest at the next step.
    // Clamping ∞ to the strain limit is neither: the state was non-finite and must not survive as a deflection.
    const double huge[] = {1e308};
    dynamics.ApplyImpulse(huge);
    dynamics.Step(0.01);
    const ModalGuardStats& guard = dynamics.GuardStats();
    EXPECT_EQ(guard.resets + guard.rejectedImpulses, 1u)
        << "resets " << guard.resets << ", rejected " << guard.rejectedImpulses << ", clamped " << guard.clamped;
    EXPECT_EQ(dynamics.QDouble()[0], 0.0);
    EXPECT_EQ(dynamics.QDot()[0], 0.0);
    EXPECT_EQ(dynamics.Energy(), 0.0);
    // A finite state that the next steps handle normally.
    dynamics.Step(0.01);
    EXPECT_TRUE(std::isfinite(dynamics.Energy()));
}

TEST(ModalDynamics, StrainLimitClampsAndStopsOutwardMotion)
{
    const std::vector<ModeInfo> info = {{20.0f, 0.05f}, {25.0f, 0.05f}, {30.0f, 0.05f}};
    const Model model = TetraModel(3, info, 10);
    const ModalProperties properties = ComputeModalProperties(model, Vec3d::Zero());
    ModalSettings settings;
    settings.strainLimit = 0.04f;
    ModalDynamics dynamics(model, properties, cRadius, cMass, cScale, settings);
    for (std::uint32_t j = 0; j < 3; ++j)
        EXPECT_NEAR(dynamics.StrainLimit(j), 0.04f * cRadius / properties.maxDisplacement[j],
                    1e-6 * dynamics.StrainLimit(j))
            << j;
    // Modes 0 and 2 are kicked outward (at their speed limits) hard enough to cross their strain limits within
    // one short step; mode 1 stays.
    const double limit0 = dynamics.StrainLimit(0), limit2 = dynamics.StrainLimit(2);
    const double q[] = {0.9 * limit0, 0.0, -0.9 * limit2};
    const double v[] = {dynamics.SpeedLimit(0), 0.1 * dynamics.StrainLimit(1), -dynamics.SpeedLimit(2)};
    ASSERT_TRUE(dynamics.SetState(q, v));
    dynamics.Step(0.004);
    EXPECT_EQ(dynamics.QDouble()[0], limit0);
    EXPECT_EQ(dynamics.QDot()[0], 0.0);
    EXPECT_EQ(dynamics.QDouble()[2], -limit2);
    EXPECT_EQ(dynamics.QDot()[2], 0.0);
    EXPECT_LT(std::abs(dynamics.QDouble()[1]), dynamics.StrainLimit(1));
    EXPECT_GT(dynamics.QDot()[1], 0.0);
    EXPECT_EQ(dynamics.GuardStats().clamped, 2u);
    // Within the limits nothing is clamped: the modes swing back inside.
    for (int k = 0; k < 50; ++k)
    {
        dynamics.Step(0.002);
        for (std::uint32_t j = 0; j < 3; ++j)
            ASSERT_LE(std::abs(dynamics.QDouble()[j]), dynamics.StrainLimit(j));
    }
    EXPECT_EQ(dynamics.GuardStats().clamped, 2u);
    // A large constant force holds a mode at its limit: clamped every step, never beyond.
    const double push[] = {1e6, 0.0, 0.0};
    for (int k = 0; k < 5; ++k)
    {
        dynamics.Step(0.01, push);
        EXPECT_EQ(dynamics.QDouble()[0], limit0);
        EXPECT_LE(dynamics.QDot()[0] * dynamics.QDouble()[0], 0.0) << "no outward velocity at the limit";
    }
    EXPECT_EQ(dynamics.GuardStats().clamped, 7u);
}

// A huge finite impulse (1e30), a huge velocity given to SetState, or a huge force leave every |q̇_j| within its
// speed limit 2·ω_j·(strain limit): the modes never hand the contacts a surface speed that overflows a float.
TEST(ModalDynamics, VelocitiesStayWithinTheSpeedLimits)
{
    const std::vector<ModeInfo> info = {{20.0f, 0.05f}, {25.0f, 2.0f}, {300.0f, 0.01f}};
    const Model model = TetraModel(3, info, 10);
    ModalDynamics dynamics(model, ComputeModalProperties(model, Vec3d::Zero()), cRadius, cMass, cScale);
    auto expectWithin = [&](const char* inContext)
    {
        for (std::uint32_t j = 0; j < 3; ++j)
        {
            EXPECT_NEAR(dynamics.SpeedLimit(j), 2.0 * dynamics.Frequency(j) * dynamics.StrainLimit(j),
                        1e-12 * dynamics.SpeedLimit(j));
            EXPECT_LE(std::abs(dynamics.QDot()[j]), dynamics.SpeedLimit(j)) << inContext << ", mode " << j;
        }
    };
    const double huge[] = {1e30, -1e30, 1e30};
    dynamics.ApplyImpulse(huge);
    expectWithin("impulse");
    EXPECT_EQ(dynamics.QDot()[0], dynamics.SpeedLimit(0));
    EXPECT_EQ(dynamics.QDot()[1], -dynamics.SpeedLimit(1));
    EXPECT_EQ(dynamics.GuardStats().clamped, 3u);
    EXPECT_EQ(dynamics.GuardStats().rejectedImpulses, 0u);
    const double coupling[] = {1.0, 1.0, -1.0};
    dynamics.ApplyImpulseAlong(coupling, -1e30);
    expectWithin("impulse along a coupling");
    const double q[] = {0.0, 0.0, 0.0};
    ASSERT_TRUE(dynamics.SetState(q, huge));
    expectWithin("SetState");
    for (int k = 0; k < 20; ++k)
    {
        dynamics.Step(1.0 / 60.0, huge);
        expectWithin("step under a huge force");
    }
    EXPECT_EQ(dynamics.GuardStats().resets, 0u);
}

TEST(ModalDynamics, SetStateRejectsBadInputAndChangesNothing)
{
    const Model model = TetraModel(2, {{40.0f, 0.1f}, {50.0f, 0.1f}}, 11);
    ModalSettings settings;
    settings.strainLimit = 0.05f;
    ModalDynamics dynamics(model, ComputeModalProperties(model, Vec3d::Zero()), cRadius, cMass, cScale,
                           settings);
    const double q[] = {0.001, -0.002}, v[] = {0.3, -0.4};
    ASSERT_TRUE(dynamics.SetState(q, v));
    EXPECT_EQ(dynamics.QDouble()[0], q[0]);
    EXPECT_EQ(dynamics.QDot()[1], v[1]);
    EXPECT_EQ(dynamics.Q()[1], static_cast<float>(q[1]));

    const double shortQ[] = {0.0}, badQ[] = {cNaN, 0.0}, badV[] = {0.0, cInf}, threeQ[] = {0, 0, 0};
    EXPECT_FALSE(dynamics.SetState(shortQ, v));
    EXPECT_FALSE(dynamics.SetState(q, shortQ));
    EXPECT_FALSE(dynamics.SetState(threeQ, v));
    EXPECT_FALSE(dynamics.SetState(badQ, v));
    EXPECT_FALSE(dynamics.SetState(q, badV));
    for (std::uint32_t j = 0; j < 2; ++j)
    {
        EXPECT_EQ(dynamics.QDouble()[j], q[j]);
        EXPECT_EQ(dynamics.QDot()[j], v[j]);
    }
    // Beyond the strain limit: accepted, clamped.
    const double far[] = {1e3, -1e3};
    ASSERT_TRUE(dynamics.SetState(far, v));
    EXPECT_EQ(dynamics.QDouble()[0], dynamics.StrainLimit(0));
    EXPECT_EQ(dynamics.QDouble()[1], -dynamics.StrainLimit(1));

    dynamics.Reset();
    EXPECT_EQ(dynamics.QDouble()[0], 0.0);
    EXPECT_EQ(dynamics.QDot()[1], 0.0);
    EXPECT_EQ(dynamics.Q()[0], 0.0f);
    EXPECT_EQ(dynamics.Energy(), 0.0);
}

TEST(ModalDynamics, SettingsScaleFrequencyAndDamping)
{
    const std::vector<ModeInfo> info = {{40.0f, 0.1f}, {90.0f, 0.3f}};
    const Model model = TetraModel(2, info, 12);
    const ModalProperties properties = ComputeModalProperties(model, Vec3d::Zero());
    ModalSettings settings = FreeSettings();
    settings.stiffnessScale = 2.0f;
    settings.dampingScale = 0.5f;
    ModalDynamics dynamics(model, properties, cRadius, cMass, cScale, settings);
    for (std::uint32_t j = 0; j < 2; ++j)
    {
        EXPECT_NEAR(dynamics.Frequency(j), std::sqrt(2.0) * info[j].frequency, 1e-12 * dynamics.Frequency(j));
        EXPECT_NEAR(dynamics.Damping(j), 0.5 * info[j].damping, 1e-9);
    }
    // SetSettings keeps the state and changes the dynamics.
    const double q[] = {0.01, 0.02}, v[] = {0.1, 0.2};
    ASSERT_TRUE(dynamics.SetState(q, v));
    settings.stiffnessScale = 9.0f;
    settings.dampingScale = 1.0f;
    dynamics.SetSettings(settings);
    EXPECT_EQ(dynamics.Settings().stiffnessScale, 9.0f);
    for (std::uint32_t j = 0; j < 2; ++j)
    {
        EXPECT_EQ(dynamics.QDouble()[j], q[j]);
        EXPECT_EQ(dynamics.QDot()[j], v[j]);
        EXPECT_NEAR(dynamics.Frequency(j), 3.0 * info[j].frequency, 1e-12 * dynamics.Frequency(j));
        EXPECT_NEAR(dynamics.Damping(j), info[j].damping, 1e-9);
    }
    const double mu = dynamics.ModalMass(0), omega = dynamics.Frequency(0);
    const double expectedEnergy =
        0.5 * mu * (v[0] * v[0] + omega * omega * q[0] * q[0]) +
        0.5 * dynamics.ModalMass(1) *
            (v[1] * v[1] + dynamics.Frequency(1) * dynamics.Frequency(1) * q[1] * q[1]);
    EXPECT_NEAR(dynamics.Energy(), expectedEnergy, 1e-12 * expectedEnergy);
    // A stiffer body with the same start follows the same exact solution at the new ω.
    dynamics.Step(0.01);
    const Oscillator expected = ReferenceRK4({q[0], v[0]}, omega, info[0].damping, mu, 0.0, 0.01, 2000);
    EXPECT_NEAR(dynamics.QDouble()[0], expected.q, 1e-10);
    settings.strainLimit = 0.0f;
    EXPECT_THROW(dynamics.SetSettings(settings), Error);
}

TEST(ModalDynamics, FallbackFrequencyAndDampingForBasesWithoutModes)
{
    const Model noInfo = TetraModel(5, {}, 13);
    ModalSettings settings = FreeSettings();
    settings.fallbackFrequency = 25.0f;
    settings.fallbackDamping = 0.07f;
    const ModalDynamics dynamics(noInfo, ComputeModalProperties(noInfo, Vec3d::Zero()), cRadius, cMass,
                                 cScale, settings);
    for (std::uint32_t j = 0; j < 5; ++j)
    {
        EXPECT_NEAR(dynamics.Frequency(j), 25.0 * std::sqrt(1.0 + j), 1e-5) << j;
        EXPECT_NEAR(dynamics.Damping(j), 0.07, 1e-7) << j;
    }
    // Mixed: a physical mode keeps its data, modes with 0 fall back (by their own index j).
    const Model mixed = TetraModel(3, {{0.0f, 0.0f}, {70.0f, 0.2f}, {0.0f, 0.4f}}, 14);
    const ModalDynamics partly(mixed, ComputeModalProperties(mixed, Vec3d::Zero()), cRadius, cMass, cScale,
                               settings);
    EXPECT_NEAR(partly.Frequency(0), 25.0, 1e-5);
    EXPECT_NEAR(partly.Frequency(1), 70.0, 1e-5);
    EXPECT_NEAR(partly.Frequency(2), 25.0 * std::sqrt(3.0), 1e-5);
    EXPECT_NEAR(partly.Damping(0), 0.07, 1e-7);
    EXPECT_NEAR(partly.Damping(1), 0.2, 1e-7);
    EXPECT_NEAR(partly.Damping(2), 0.4, 1e-7);
}

TEST(ModalDynamics, ConstructorRejectsBadParameters)
{
    const Model model = TetraModel(2, {{40.0f, 0.1f}, {50.0f, 0.1f}}, 15);
    const ModalProperties properties = ComputeModalProperties(model, Vec3d::Zero());
    const auto make = [&](double inRadius, double inMass, double inScale, const ModalSettings& inSettings)
    { ModalDynamics dynamics(model, properties, inRadius, inMass, inScale, inSettings); };
    EXPECT_NO_THROW(make(cRadius, cMass, cScale, {}));
    for (double bad : {0.0, -1.0, cNaN, cInf})
    {
        EXPECT_THROW(make(bad, cMass, cScale, {}), Error) << bad;
        EXPECT_THROW(make(cRadius, bad, cScale, {}), Error) << bad;
        EXPECT_THROW(make(cRadius, cMass, bad, {}), Error) << bad;
    }
    const auto badSettings = [&](auto inChange)
    {
        ModalSettings settings;
        inChange(settings);
        return settings;
    };
    EXPECT_THROW(make(cRadius, cMass, cScale, badSettings([](ModalSettings& s) { s.stiffnessScale = 0.0f; })),
                 Error);
    EXPECT_THROW(make(cRadius, cMass, cScale, badSettings([](ModalSettings& s) { s.dampingScale = -0.1f; })),
                 Error);
    EXPECT_THROW(
        make(cRadius, cMass, cScale, badSettings([](ModalSettings& s) { s.fallbackFrequency = 0.0f; })),
        Error);
    EXPECT_THROW(
        make(cRadius, cMass, cScale, badSettings([](ModalSettings& s) { s.fallbackDamping = -1.0f; })),
        Error);
    EXPECT_THROW(make(cRadius, cMass, cScale, badSettings([](ModalSettings& s) { s.strainLimit = 0.0f; })),
                 Error);
    EXPECT_THROW(make(cRadius, cMass, cScale,
                      badSettings([](ModalSettings& s)
                                  { s.stiffnessScale = std::numeric_limits<float>::quiet_NaN(); })),
                 Error);
    // Properties of a model with another M.
    const Model other = TetraModel(3, {}, 16);
    EXPECT_THROW(ModalDynamics(model, ComputeModalProperties(other, Vec3d::Zero()), cRadius, cMass, cScale),
                 Error);
}

// StepParts splits the next step exactly: the free motion, plus the held compliance times the impulse held
// as a force over the step, plus the kicked compliance times the impulse applied at its start; for stiff
// (ωh ≫ 1), critical and soft modes, with and without damping.
TEST(ModalDynamics, StepPartsPredictTheNextStepExactly)
{
    const std::vector<ModeInfo> info = {{3.0f, 0.0f}, {250.0f, 0.05f}, {900.0f, 1.0f}, {40.0f, 3.0f}};
    const std::uint32_t m = std::uint32_t(info.size());
    const Model model = TetraModel(m, info, 21);
    std::mt19937 random(21);
    for (double h : {1.0 / 240.0, 1.0 / 60.0, 0.5})
        for (int trial = 0; trial < 20; ++trial)
        {
            ModalDynamics dynamics(model, ComputeModalProperties(model, Vec3d::Zero()), cRadius, cMass,
                                   cScale, FreeSettings());
            std::vector<double> q(m), v(m), last(m), held(m), kick(m);
            for (std::uint32_t j = 0; j < m; ++j)
            {
                q[j] = test::Uniform(random, -0.01, 0.01);
                v[j] = test::Uniform(random, -0.01, 0.01) * info[j].frequency;
                last[j] = test::Uniform(random, -5.0, 5.0);
                held[j] = test::Uniform(random, -5.0, 5.0);
                kick[j] = test::Uniform(random, -0.1, 0.1);
            }
            ASSERT_TRUE(dynamics.SetState(q, v));
            dynamics.Step(h, last); // some force held over the last step: the parts do not depend on it
            std::vector<double> free(m), heldCompliance(m), kickedCompliance(m);
            dynamics.StepParts(h, free, heldCompliance, kickedCompliance); // with the transition `Step` kept
            // The same bits from a transition made afresh: a copy whose settings, set again, drop it.
            ModalDynamics afresh = dynamics;
            afresh.SetSettings(afresh.Settings());
            std::vector<double> freeAfresh(m), heldAfresh(m), kickedAfresh(m);
            afresh.StepParts(h, freeAfresh, heldAfresh, kickedAfresh);
            EXPECT_EQ(freeAfresh, free);
            EXPECT_EQ(heldAfresh, heldCompliance);
            EXPECT_EQ(kickedAfresh, kickedCompliance);
            const std::vector<double> before(dynamics.QDouble().begin(), dynamics.QDouble().end());
            dynamics.ApplyImpulse(kick);
            dynamics.Step(h, held);
            for (std::uint32_t j = 0; j < m; ++j)
            {
                const double predicted =
                    before[j] + free[j] + heldCompliance[j] * held[j] * h + kickedCompliance[j] * kick[j];
                const double scale = std::abs(before[j]) + std::abs(dynamics.QDouble()[j]) + 1e-12;
                EXPECT_NEAR(dynamics.QDouble()[j], predicted, 1e-9 * scale) << "h " << h << " mode " << j;
                EXPECT_GE(heldCompliance[j], 0.0);
            }
        }
}

// Under a steady force the modes ring down about its deflection: the vibration energy about the equilibrium
// goes to 0 while the modal energy keeps the elastic energy of the deflection; holding the force again steps
// exactly as that force would.
TEST(ModalDynamics, VibrationEnergyIsMeasuredAboutTheHeldLoad)
{
    const std::vector<ModeInfo> info = {{250.0f, 0.05f}, {400.0f, 0.05f}};
    const Model model = TetraModel(2, info, 4);
    ModalDynamics dynamics(model, ComputeModalProperties(model, Vec3d::Zero()), cRadius, cMass, cScale,
                           FreeSettings());
    const std::vector<double> force = {3.0, -2.0};
    dynamics.Step(1.0 / 60.0, force);
    EXPECT_GT(dynamics.VibrationEnergy(), 0.0);
    for (std::uint32_t j = 0; j < 2; ++j)
        EXPECT_NEAR(dynamics.Equilibrium()[j],
                    force[j] / (dynamics.ModalMass(j) * info[j].frequency * info[j].frequency), 1e-12);
    ModalDynamics twin = dynamics;
    for (int k = 0; k < 120; ++k)
    {
        dynamics.StepHeld(1.0 / 60.0);
        twin.Step(1.0 / 60.0, force);
    }
    for (std::uint32_t j = 0; j < 2; ++j)
        EXPECT_NEAR(dynamics.QDouble()[j], twin.QDouble()[j], 1e-12 * std::abs(twin.QDouble()[j]));
    double elastic = 0.0;
    for (std::uint32_t j = 0; j < 2; ++j)
        elastic +=
            0.5 * force[j] * force[j] / (dynamics.ModalMass(j) * info[j].frequency * info[j].frequency);
    EXPECT_LT(dynamics.VibrationEnergy(), 1e-12 * elastic);
    EXPECT_LT(dynamics.KineticEnergy(), 1e-12 * elastic);
    EXPECT_NEAR(dynamics.Energy(), elastic, 1e-9 * elastic);
    dynamics.Reset();
    EXPECT_EQ(dynamics.Equilibrium()[0], 0.0);
    EXPECT_EQ(dynamics.VibrationEnergy(), 0.0);
}

} // namespace
} // namespace bdt
