#include <bdt/bake/ModalBasis.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <cmath>
#include <gtest/gtest.h>
#include <vector>

namespace bdt
{
namespace
{

// The procedural beam: 2 × 0.2 × 0.2 m along x (length / height = 10).
constexpr double cBeamLength = 2.0, cBeamHeight = 0.2;

// Euler–Bernoulli: the first bending frequency of a free-free beam, ω₁ = (β₁L)² √(EI / (ρA L⁴)), with
// β₁L = 4.7300408 (the first root of cos βL cosh βL = 1) and I / A = H² / 12 for a square section.
double EulerBernoulliFirstBending(const ElasticMaterial& inMaterial, double inScale)
{
    const double length = cBeamLength * inScale, height = cBeamHeight * inScale;
    const double betaL = 4.7300408;
    return betaL * betaL *
           std::sqrt(inMaterial.young * height * height / 12.0 /
                     (inMaterial.density * std::pow(length, 4.0)));
}

LatticeModes BeamModes(std::uint32_t inResolution, const ElasticMaterial& inMaterial = {},
                       double inScale = 1.0, std::uint32_t inModes = 4)
{
    const ShapeMesh beam = MakeShape(EShape::Beam, 2000);
    ModalBakeSettings settings;
    settings.modes = inModes;
    settings.resolution = inResolution;
    settings.material = inMaterial;
    settings.scale = inScale;
    return ComputeLatticeModes(beam.positions, beam.triangles, settings);
}

double RelativeError(double inValue, double inReference)
{
    return std::abs(inValue - inReference) / inReference;
}

TEST(ModalBasis, SlenderBeamBendsAtTheEulerBernoulliFrequency)
{
    const ElasticMaterial material;
    const double theory = EulerBernoulliFirstBending(material, 1.0);
    // Default resolution: within 10%.
    const LatticeModes defaults = BeamModes(0);
    EXPECT_LT(RelativeError(std::sqrt(defaults.eigenvalues[0]), theory), 0.10)
        << "ω₁ " << std::sqrt(defaults.eigenvalues[0]) << " theory " << theory;
    // The square section bends alike about both axes: the first two modes share the frequency.
    EXPECT_NEAR(defaults.eigenvalues[1] / defaults.eigenvalues[0], 1.0, 1e-6);

    // Refining the lattice (2, 4 and 8 cells across the height; each lattice nests in the next) lowers the
    // frequency (Rayleigh–Ritz on nested spaces) by steps that shrink about fourfold (second order): the
    // discretisation error shrinks. The limit is 3D elasticity, which at length / height 10 sits a few
    // percent below Euler–Bernoulli (shear deformation and rotary inertia, as Timoshenko's theory has it).
    std::vector<double> omega;
    for (std::uint32_t resolution : {20u, 40u, 80u})
        omega.push_back(std::sqrt(BeamModes(resolution).eigenvalues[0]));
    EXPECT_LT(omega[1], omega[0]);
    EXPECT_LT(omega[2], omega[1]);
    EXPECT_LT(omega[1] - omega[2], 0.5 * (omega[0] - omega[1]));
    EXPECT_LT(RelativeError(omega[2], theory), 0.05);
    // Extrapolated to zero cell size (Richardson, second order), within 5% too and below the theory.
    const double limit = omega[2] - (omega[1] - omega[2]) / 3.0;
    EXPECT_LT(RelativeError(limit, theory), 0.05);
    EXPECT_LT(limit, theory);
}

TEST(ModalBasis, ReproducibleAndFastFactorisationsFindTheSameModes)
{
    // The same frequencies, and each mode of one bake lies in the span of the other's (the M-projection keeps
    // its whole M-norm): only signs and turns within nearly equal frequencies may differ. The chair has such
    // pairs (its symmetric legs).
    const ShapeMesh mesh = MakeShape(EShape::Chair, 3000);
    ModalBakeSettings settings;
    settings.modes = 10;
    settings.resolution = 24;
    const LatticeModes fast = ComputeLatticeModes(mesh.positions, mesh.triangles, settings);
    settings.factorisation = EFactorisation::Reproducible;
    const LatticeModes reproducible = ComputeLatticeModes(mesh.positions, mesh.triangles, settings);
    ASSERT_EQ(fast.eigenvalues.size(), reproducible.eigenvalues.size());
    for (std::size_t j = 0; j < fast.eigenvalues.size(); ++j)
        EXPECT_LT(RelativeError(reproducible.eigenvalues[j], fast.eigenvalues[j]), 1e-8) << "mode " << j;
    const Eigen::MatrixXd overlap = reproducible.shapes.transpose() * (fast.elasticity.mass * fast.shapes);
    for (Eigen::Index j = 0; j < overlap.cols(); ++j)
        EXPECT_GT(overlap.col(j).squaredNorm(), 1.0 - 1e-6) << "mode " << j;
}

TEST(ModalBasis, ModesAreMassOrthonormalAndSixRigidModesAreSkipped)
{
    for (EShape shape : {EShape::Beam, EShape::Torus, EShape::Chair})
    {
        const ShapeMesh mesh = MakeShape(shape, 3000);
        ModalBakeSettings settings;
        settings.modes = 10;
        settings.resolution = 24;
        const LatticeModes modes = ComputeLatticeModes(mesh.positions, mesh.triangles, settings);
        ASSERT_EQ(modes.shapes.cols(), 10);
        const Eigen::MatrixXd gram = modes.shapes.transpose() * (modes.elasticity.mass * modes.shapes);
        EXPECT_LE((gram - Eigen::MatrixXd::Identity(10, 10)).cwiseAbs().maxCoeff(), 1e-6) << ShapeName(shape);
        // Six rigid modes, orders of magnitude below the first vibration.
        ASSERT_EQ(modes.rigidEigenvalues.size(), 6u);
        for (double lambda : modes.rigidEigenvalues)
            EXPECT_LT(std::abs(lambda), 1e-6 * modes.eigenvalues[0]) << ShapeName(shape);
        // Kept modes ascend and are elastic: K φ = λ M φ with a small residual.
        for (std::size_t j = 0; j < modes.eigenvalues.size(); ++j)
        {
            if (j > 0)
            {
                EXPECT_GE(modes.eigenvalues[j], modes.eigenvalues[j - 1]);
            }
            const Eigen::VectorXd phi = modes.shapes.col(Eigen::Index(j));
            const Eigen::VectorXd kphi = modes.elasticity.stiffness * phi;
            const Eigen::VectorXd mphi = modes.elasticity.mass * phi;
            EXPECT_LT((kphi - modes.eigenvalues[j] * mphi).norm(), 1e-6 * kphi.norm()) << ShapeName(shape);
        }
        // No kept mode moves the body rigidly: each is M-orthogonal to the translations.
        for (int axis = 0; axis < 3; ++axis)
        {
            Eigen::VectorXd translation = Eigen::VectorXd::Zero(modes.shapes.rows());
            for (Eigen::Index n = axis; n < translation.size(); n += 3)
                translation[n] = 1.0;
            const Eigen::VectorXd mt = modes.elasticity.mass * translation;
            for (Eigen::Index j = 0; j < 10; ++j)
                EXPECT_LT(std::abs(modes.shapes.col(j).dot(mt)), 1e-6 * std::sqrt(modes.totalMass));
        }
    }
}

TEST(ModalBasis, FrequenciesScaleWithWaveSpeedAndInverseSize)
{
    const ElasticMaterial base;
    const LatticeModes reference = BeamModes(20, base);
    ElasticMaterial stiffer = base;
    stiffer.young *= 4.0;
    ElasticMaterial denser = base;
    denser.density *= 9.0;
    const LatticeModes stiff = BeamModes(20, stiffer);
    const LatticeModes dense = BeamModes(20, denser);
    const LatticeModes large = BeamModes(20, base, 2.5);
    for (std::size_t j = 0; j < reference.eigenvalues.size(); ++j)
    {
        const double omega = std::sqrt(reference.eigenvalues[j]);
        EXPECT_NEAR(std::sqrt(stiff.eigenvalues[j]) / omega, 2.0, 1e-6);       // √(E/ρ)
        EXPECT_NEAR(std::sqrt(dense.eigenvalues[j]) / omega, 1.0 / 3.0, 1e-6); // √(E/ρ)
        EXPECT_NEAR(std::sqrt(large.eigenvalues[j]) / omega, 1.0 / 2.5, 1e-6); // 1 / size
    }
}

TEST(ModalBasis, TheSurfaceBasisInterpolatesTheLatticeModes)
{
    // On 0.1 m cells the beam's lattice starts at its corner, so every beam vertex lies on a cell face
    // and the 8 box corners are lattice nodes: there U is Φ at the node, over the scale.
    const ShapeMesh beam = MakeShape(EShape::Beam, 2000);
    ModalBakeSettings settings;
    settings.modes = 6;
    settings.resolution = 20;
    settings.scale = 0.5; // mesh units are half metres: U in mesh units is twice Φ in metres
    LatticeModes modes;
    const Model model = MakeModalModel(beam.positions, beam.triangles, settings, {}, &modes);
    ASSERT_EQ(model.ModeCount(), 6u);
    std::size_t corners = 0;
    const std::size_t nx = modes.grid.cells[0] + 1, ny = modes.grid.cells[1] + 1;
    for (std::size_t v = 0; v < beam.positions.size(); ++v)
    {
        const Vec3d g = (beam.positions[v].cast<double>() - modes.grid.origin) / modes.grid.cellSize;
        const Vec3d r = g.array().round();
        if ((g - r).cwiseAbs().maxCoeff() > 1e-5)
            continue;
        const std::size_t lattice = std::size_t(r.x()) + nx * (std::size_t(r.y()) + ny * std::size_t(r.z()));
        const std::int64_t node = modes.elasticity.nodeOfLattice[lattice];
        ASSERT_GE(node, 0);
        for (std::uint32_t j = 0; j < 6; ++j)
            for (int axis = 0; axis < 3; ++axis)
                EXPECT_NEAR(model.BasisVector(v, j)[axis], modes.shapes(3 * node + axis, j) / 0.5,
                            1e-5 * modes.shapes.col(j).cwiseAbs().maxCoeff());
        ++corners;
    }
    EXPECT_GE(corners, 8u);
    // Frequencies and Rayleigh damping are stored per mode.
    for (std::uint32_t j = 0; j < 6; ++j)
        EXPECT_NEAR(model.Modes()[j].frequency, std::sqrt(modes.eigenvalues[j]),
                    1e-4 * std::sqrt(modes.eigenvalues[j]));
    EXPECT_TRUE(model.HasNormalBasis());
}

TEST(ModalBasis, RayleighDampingGivesEachModeItsRatio)
{
    const ShapeMesh beam = MakeShape(EShape::Beam, 2000);
    ModalBakeSettings settings;
    settings.modes = 4;
    settings.resolution = 20;
    settings.rayleighAlpha = 2.0;
    settings.rayleighBeta = 1e-4;
    const Model model = MakeModalModel(beam.positions, beam.triangles, settings);
    for (const ModeInfo& mode : model.Modes())
        EXPECT_NEAR(mode.damping, 2.0 / (2.0 * mode.frequency) + 0.5e-4 * mode.frequency, 1e-6);
}

TEST(ModalBasis, ImpossibleParametersAreRejected)
{
    const ShapeMesh beam = MakeShape(EShape::Beam, 2000);
    const auto bake = [&](auto inChange)
    {
        ModalBakeSettings settings;
        settings.modes = 4;
        settings.resolution = 20;
        inChange(settings);
        return ComputeLatticeModes(beam.positions, beam.triangles, settings);
    };
    EXPECT_THROW(bake([](ModalBakeSettings& s) { s.material.poisson = 0.5; }), Error);
    EXPECT_THROW(bake([](ModalBakeSettings& s) { s.material.poisson = -1.0; }), Error);
    EXPECT_THROW(bake([](ModalBakeSettings& s) { s.material.young = 0.0; }), Error);
    EXPECT_THROW(bake([](ModalBakeSettings& s) { s.material.young = std::nan(""); }), Error);
    EXPECT_THROW(bake([](ModalBakeSettings& s) { s.material.density = -1.0; }), Error);
    EXPECT_THROW(bake([](ModalBakeSettings& s) { s.scale = 0.0; }), Error);
    EXPECT_THROW(bake([](ModalBakeSettings& s) { s.modes = 0; }), Error);
    EXPECT_THROW(bake([](ModalBakeSettings& s) { s.rayleighAlpha = -1.0; }), Error);
    // A 2-cell lattice along the beam has 3·(3·2·2) = 36 degrees of freedom: 29 vibration modes at most.
    EXPECT_THROW(bake(
                     [](ModalBakeSettings& s)
                     {
                         s.resolution = 2;
                         s.modes = 40;
                     }),
                 Error);
    EXPECT_NO_THROW(bake(
        [](ModalBakeSettings& s)
        {
            s.resolution = 2;
            s.modes = 20;
        }));
}

} // namespace
} // namespace bdt
