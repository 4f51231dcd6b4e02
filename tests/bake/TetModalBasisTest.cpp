#include "support/TetModels.h"

#include <bdt/bake/TetModalBasis.h>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <gtest/gtest.h>

namespace bdt
{
namespace
{

ModalBakeSettings Settings(std::uint32_t inModes, const ElasticMaterial& inMaterial = {})
{
    ModalBakeSettings settings;
    settings.modes = inModes;
    settings.material = inMaterial;
    return settings;
}

// A free-free beam 10 cells long per `inCellsAcross` cells across (length / height = 10), 1 m long.
TetModes BeamModes(std::uint32_t inCellsAcross, const ElasticMaterial& inMaterial = {}, double inScale = 1.0)
{
    const double h = 0.1 / double(inCellsAcross);
    ModalBakeSettings settings = Settings(4, inMaterial);
    settings.scale = inScale;
    return ComputeTetModes(test::BoxTets({10 * inCellsAcross, inCellsAcross, inCellsAcross}, h), settings);
}

TEST(TetModalBasis, BeamFrequencyFallsTowardsEulerBernoulliAsTheMeshIsRefined)
{
    const ElasticMaterial material;
    // ω₁ = (β₁L)² √(EI / (ρA L⁴)), β₁L = 4.7300408, I / A = H² / 12; L = 1, H = 0.1.
    const double theory = 4.7300408 * 4.7300408 * std::sqrt(material.young * 0.01 / 12.0 / material.density);
    double previous = std::numeric_limits<double>::infinity();
    for (std::uint32_t across : {1u, 2u, 3u})
    {
        const TetModes modes = BeamModes(across, material);
        const double omega = std::sqrt(modes.eigenvalues[0]);
        // Conforming elements and consistent mass: an upper bound that falls on nested refinement is not
        // guaranteed here (the meshes do not nest), but linear tetrahedra lock, so each lies above theory
        // and the error shrinks with the cells across.
        EXPECT_GT(omega, theory) << across;
        EXPECT_LT(omega, previous) << across;
        previous = omega;
    }
    EXPECT_LT((previous - theory) / theory, 0.5);
}

TEST(TetModalBasis, ModesAreMassOrthonormalAfterSixRigidOnes)
{
    const TetModes modes = BeamModes(2);
    ASSERT_EQ(modes.rigidEigenvalues.size(), 6u);
    const Eigen::MatrixXd gram = modes.shapes.transpose() * (modes.elasticity.mass * modes.shapes);
    EXPECT_LE((gram - Eigen::MatrixXd::Identity(gram.rows(), gram.cols())).cwiseAbs().maxCoeff(), 1e-6);
    // K φ = λ M φ holds for each kept mode (brute-force residual).
    for (Eigen::Index j = 0; j < modes.shapes.cols(); ++j)
    {
        const Eigen::VectorXd residual =
            modes.elasticity.stiffness * modes.shapes.col(j) -
            modes.eigenvalues[std::size_t(j)] * (modes.elasticity.mass * modes.shapes.col(j));
        EXPECT_LE(residual.norm(), 1e-6 * modes.eigenvalues[std::size_t(j)] *
                                       (modes.elasticity.mass * modes.shapes.col(j)).norm());
    }
    // Total mass: ρ × volume.
    EXPECT_NEAR(modes.elasticity.totalMass, 1000.0 * 1.0 * 0.1 * 0.1, 1e-9);
}

TEST(TetModalBasis, FrequenciesScaleWithWaveSpeedAndInverseSize)
{
    const double base = std::sqrt(BeamModes(1).eigenvalues[0]);
    ElasticMaterial stiffer;
    stiffer.young *= 4.0;
    stiffer.density *= 9.0;
    EXPECT_NEAR(std::sqrt(BeamModes(1, stiffer).eigenvalues[0]) / base, 2.0 / 3.0, 1e-6);
    EXPECT_NEAR(std::sqrt(BeamModes(1, {}, 2.5).eigenvalues[0]) / base, 1.0 / 2.5, 1e-6);
}

TEST(TetModalBasis, SurfaceInterpolationIsExactForAffineFields)
{
    // Modes replaced by affine fields of the node positions: the barycentric embedding reproduces them at
    // any point, inside a tetrahedron or outside the mesh (extrapolated).
    TetModes modes;
    modes.mesh = test::BoxTets({3, 2, 2}, 0.5);
    const std::size_t n = modes.mesh.positions.size();
    Eigen::Matrix3d a[2];
    a[0] << 0.3, -0.2, 0.1, 0.5, 0.0, -0.4, 0.2, 0.7, 0.1;
    a[1] << -0.1, 0.4, 0.0, 0.0, 0.2, 0.3, 0.6, -0.5, 0.2;
    const Vec3d b[2] = {Vec3d(0.1, -0.2, 0.3), Vec3d(-0.3, 0.05, 0.0)};
    modes.shapes.resize(Eigen::Index(3 * n), 2);
    for (std::size_t i = 0; i < n; ++i)
        for (int j = 0; j < 2; ++j)
            modes.shapes.block<3, 1>(Eigen::Index(3 * i), j) = a[j] * modes.mesh.positions[i] + b[j];
    const std::vector<Vec3f> points = {Vec3f(0.1f, 0.2f, 0.3f),  Vec3f(1.49f, 0.51f, 0.77f),
                                       Vec3f(0.75f, 0.5f, 1.0f), Vec3f(-0.3f, 0.4f, 0.2f),
                                       Vec3f(2.0f, 1.4f, 1.3f),  Vec3f(0.7f, -0.25f, 0.5f)};
    const double scale = 2.0;
    const std::vector<float> basis = InterpolateTetSurfaceBasis(points, modes, scale);
    for (std::size_t v = 0; v < points.size(); ++v)
        for (int j = 0; j < 2; ++j)
        {
            const Vec3d expected = (a[j] * points[v].cast<double>() + b[j]) / scale;
            for (int axis = 0; axis < 3; ++axis)
                EXPECT_NEAR(basis[(v * 2 + std::size_t(j)) * 3 + std::size_t(axis)], expected[axis], 2e-6)
                    << v << " " << j << " " << axis;
        }
}

TEST(TetModalBasis, OwnBoundaryTakesTheNodalModes)
{
    TetModes modes;
    const Model model = MakeTetModalModel(test::BoxTets({6, 1, 1}, 0.1), {}, {}, Settings(3), {}, &modes);
    const TetBoundary boundary = ExtractTetBoundary(modes.mesh);
    ASSERT_EQ(model.VertexCount(), boundary.positions.size());
    for (std::size_t v = 0; v < model.VertexCount(); ++v)
        for (std::size_t j = 0; j < 3; ++j)
            for (int axis = 0; axis < 3; ++axis)
                EXPECT_EQ(
                    model.BasisVector(v, j)[axis],
                    float(modes.shapes(3 * Eigen::Index(boundary.nodeOfVertex[v]) + axis, Eigen::Index(j))));
    ASSERT_EQ(model.Modes().size(), 3u);
    EXPECT_FLOAT_EQ(model.Modes()[0].frequency, float(std::sqrt(modes.eigenvalues[0])));
    EXPECT_TRUE(model.HasNormalBasis());
}

TEST(TetModalBasis, ImpossibleInputsAreRejected)
{
    ModalBakeSettings settings = Settings(3);
    settings.resolution = 20;
    EXPECT_THROW(ComputeTetModes(test::BoxTets({2, 1, 1}, 0.1), settings), Error);
    // 2 cubes: 12 nodes, 36 degrees of freedom: 29 vibration modes at most.
    EXPECT_THROW(ComputeTetModes(test::BoxTets({2, 1, 1}, 0.1), Settings(30)), Error);
    EXPECT_NO_THROW(ComputeTetModes(test::BoxTets({2, 1, 1}, 0.1), Settings(20)));
    // Two separate boxes: twelve rigid modes.
    TetMesh two = test::BoxTets({2, 1, 1}, 0.1);
    const TetMesh other = test::BoxTets({2, 1, 1}, 0.1);
    const auto offset = std::uint32_t(two.positions.size());
    for (const Vec3d& p : other.positions)
        two.positions.push_back(p + Vec3d(0, 0, 1));
    for (auto t : other.tets)
    {
        for (std::uint32_t& i : t)
            i += offset;
        two.tets.push_back(t);
    }
    try
    {
        ComputeTetModes(two, Settings(3));
        ADD_FAILURE() << "two pieces accepted";
    }
    catch (const Error& error)
    {
        EXPECT_NE(std::string(error.what()).find("not one free solid"), std::string::npos) << error.what();
    }
}

} // namespace
} // namespace bdt
