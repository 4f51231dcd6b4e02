#include "support/QueryOracles.h"

#include <bdt/core/base/Error.h>
#include <bdt/core/model/ModalProperties.h>

#include <gtest/gtest.h>

#include <Eigen/LU>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace bdt
{
namespace
{

using test::RandomPoint;
using test::RandomRotation;
using test::Uniform;

// Random points, random triangles (one degenerate), one vertex used by no triangle, a random basis.
Model RandomModel(std::uint32_t inVertices, std::uint32_t inTriangles, std::uint32_t inModes,
                  std::mt19937& ioRandom)
{
    ModelData data;
    for (std::uint32_t i = 0; i < inVertices; ++i)
        data.positions.push_back((Vec3d(0.3, -1.0, 2.0) + RandomPoint(ioRandom)).cast<float>());
    for (std::uint32_t t = 0; t < inTriangles; ++t)
    {
        Triangle tri;
        do
        {
            for (std::uint32_t& v : tri)
                v = ioRandom() % (inVertices - 1); // the last vertex is in no triangle
        } while (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2]);
        data.triangles.push_back(tri);
    }
    data.triangles.push_back({0, 0, 1});
    data.modeCount = inModes;
    for (std::size_t k = 0; k < 3 * std::size_t(inVertices) * inModes; ++k)
        data.basis.push_back(static_cast<float>(Uniform(ioRandom, -1.0, 1.0)));
    return Model::Create(std::move(data));
}

// Brute force w_i, straight from the definition.
std::vector<double> Weights(const Model& inModel)
{
    const auto p = inModel.Positions();
    std::vector<double> w(inModel.VertexCount(), 0.0);
    double total = 0.0;
    for (const Triangle& t : inModel.Triangles())
    {
        const double area = 0.5 * (p[t[1]].cast<double>() - p[t[0]].cast<double>())
                                      .cross(p[t[2]].cast<double>() - p[t[0]].cast<double>())
                                      .norm();
        total += area;
        for (std::uint32_t v : t)
            w[v] += area / 3.0;
    }
    for (double& value : w)
        value = total > 0.0 ? value / total : 1.0 / double(w.size());
    return w;
}

Vec3d U(const Model& inModel, std::size_t inVertex, std::size_t inMode)
{
    return inModel.BasisVector(inVertex, inMode).cast<double>();
}

TEST(ModalProperties, EqualBruteForceSums)
{
    std::mt19937 random(7);
    for (std::uint32_t modes : {0u, 1u, 5u, 12u})
    {
        const Model model = RandomModel(60, 90, modes, random);
        const Vec3d center = RandomPoint(random);
        const ModalProperties properties = ComputeModalProperties(model, center);
        const std::vector<double> w = Weights(model);
        ASSERT_EQ(properties.modalMass.size(), modes);
        ASSERT_EQ(properties.meanDisplacement.size(), modes);
        ASSERT_EQ(properties.firstMoment.size(), modes);
        ASSERT_EQ(properties.maxDisplacement.size(), modes);
        for (std::uint32_t j = 0; j < modes; ++j)
        {
            double mass = 0.0, largest = 0.0;
            Vec3d mean = Vec3d::Zero();
            Mat3d moment = Mat3d::Zero();
            for (std::size_t i = 0; i < model.VertexCount(); ++i)
            {
                const Vec3d u = U(model, i, j);
                const Vec3d r = model.Positions()[i].cast<double>() - center;
                mass += w[i] * u.squaredNorm();
                mean += w[i] * u;
                moment += w[i] * u * r.transpose();
                largest = std::max(largest, u.norm());
            }
            const std::string context = "M=" + std::to_string(modes) + " j=" + std::to_string(j);
            EXPECT_NEAR(properties.modalMass[j], mass, 1e-13 * mass) << context;
            EXPECT_LT((properties.meanDisplacement[j] - mean).norm(), 1e-13) << context;
            EXPECT_LT((properties.firstMoment[j] - moment).norm(), 1e-12 * moment.norm()) << context;
            EXPECT_NEAR(properties.maxDisplacement[j], largest, 1e-14 * largest) << context;
            EXPECT_GT(properties.modalMass[j], 0.0) << context;
        }
    }
}

// RemoveRigidCoupling gives the integrals of the basis with each mode's nearest rigid motion taken out: the
// oracle fits t, ω per mode by weighted least squares over the vertices (the 6×6 normal equations), subtracts
// them vertex by vertex and sums again.
TEST(ModalProperties, RemoveRigidCouplingEqualsTheIntegralsOfTheProjectedBasis)
{
    std::mt19937 random(11);
    for (std::uint32_t modes : {1u, 4u, 9u})
    {
        const Model model = RandomModel(50, 80, modes, random);
        const Vec3d center = RandomPoint(random);
        ModalProperties properties = ComputeModalProperties(model, center);
        const ModalProperties before = properties;
        RemoveRigidCoupling(properties, model, center);
        const std::vector<double> w = Weights(model);
        for (std::uint32_t j = 0; j < modes; ++j)
        {
            // Σ w |U − t − ω × r|² is least where Σ w Jᵀ(U − J x) = 0, J = [I  −[r]×], x = (t, ω).
            Eigen::Matrix<double, 6, 6> normal = Eigen::Matrix<double, 6, 6>::Zero();
            Eigen::Matrix<double, 6, 1> right = Eigen::Matrix<double, 6, 1>::Zero();
            for (std::size_t i = 0; i < model.VertexCount(); ++i)
            {
                const Vec3d r = model.Positions()[i].cast<double>() - center;
                Eigen::Matrix<double, 3, 6> jacobian;
                Mat3d cross;
                cross << 0.0, -r.z(), r.y(), r.z(), 0.0, -r.x(), -r.y(), r.x(), 0.0;
                jacobian << Mat3d::Identity(), -cross;
                normal += w[i] * jacobian.transpose() * jacobian;
                right += w[i] * jacobian.transpose() * U(model, i, j);
            }
            const Eigen::Matrix<double, 6, 1> rigid = normal.fullPivLu().solve(right);
            Vec3d mean = Vec3d::Zero();
            Mat3d moment = Mat3d::Zero();
            for (std::size_t i = 0; i < model.VertexCount(); ++i)
            {
                const Vec3d r = model.Positions()[i].cast<double>() - center;
                const Vec3d u = U(model, i, j) - rigid.head<3>() - Vec3d(rigid.tail<3>()).cross(r);
                mean += w[i] * u;
                moment += w[i] * u * r.transpose();
            }
            const std::string context = "M=" + std::to_string(modes) + " j=" + std::to_string(j);
            EXPECT_LT(mean.norm(), 1e-12) << context;
            EXPECT_EQ(properties.meanDisplacement[j], Vec3d::Zero()) << context;
            EXPECT_LT((properties.firstMoment[j] - moment).norm(), 1e-9 * before.firstMoment[j].norm()) << context;
            EXPECT_LT((properties.firstMoment[j] - properties.firstMoment[j].transpose()).norm(),
                      1e-12 * before.firstMoment[j].norm())
                << context << ": no coupling to the frame's angular acceleration is left";
            // A random basis is far from rigid: what is left is not nothing.
            EXPECT_GT(properties.firstMoment[j].norm(), 1e-3 * before.firstMoment[j].norm()) << context;
            EXPECT_EQ(properties.modalMass[j], before.modalMass[j]) << context;
            EXPECT_EQ(properties.maxDisplacement[j], before.maxDisplacement[j]) << context;
        }
    }
    // A basis that is a rigid motion keeps nothing, and properties of another M are refused.
    ModelData data;
    data.positions = {Vec3f(0, 0, 0), Vec3f(1, 0, 0), Vec3f(0, 1, 0), Vec3f(0, 0, 1)};
    data.triangles = {Triangle{0, 2, 1}, Triangle{0, 1, 3}, Triangle{0, 3, 2}, Triangle{1, 2, 3}};
    data.modeCount = 1;
    const Vec3d omega(0.2, -0.5, 0.7), t(0.1, 0.3, -0.2), center(0.25, 0.25, 0.25);
    for (const Vec3f& p : data.positions)
    {
        const Vec3d u = t + omega.cross(p.cast<double>() - center);
        data.basis.insert(data.basis.end(), {float(u.x()), float(u.y()), float(u.z())});
    }
    const Model rigidModel = Model::Create(std::move(data));
    ModalProperties rigidProperties = ComputeModalProperties(rigidModel, center);
    RemoveRigidCoupling(rigidProperties, rigidModel, center);
    EXPECT_LT(rigidProperties.firstMoment[0].norm(), 1e-6);
    ModalProperties wrong = ComputeModalProperties(RandomModel(10, 12, 2, random), center);
    EXPECT_THROW(RemoveRigidCoupling(wrong, rigidModel, center), Error);
}

TEST(ModalProperties, WeightsSumToOneAndFollowTheArea)
{
    // A translation field (U_ij = v for all i): s = v and μ/m = |v|² exactly when Σ w_i = 1.
    ModelData data;
    data.positions = {Vec3f(0, 0, 0), Vec3f(2, 0, 0), Vec3f(0, 1, 0), Vec3f(5, 5, 5)};
    data.triangles = {Triangle{0, 1, 2}, Triangle{1, 1, 2}};
    data.modeCount = 2;
    const Vec3f v(0.5f, -2.0f, 1.0f);
    for (int i = 0; i < 4; ++i)
    {
        // Mode 0 translates; mode 1 moves only vertex 0, whose weight is 1/3 (vertex 3 is in no triangle).
        data.basis.insert(data.basis.end(), {v.x(), v.y(), v.z()});
        data.basis.insert(data.basis.end(), {i == 0 ? 1.0f : 0.0f, 0.0f, i == 3 ? 7.0f : 0.0f});
    }
    const Model model = Model::Create(std::move(data));
    const ModalProperties properties = ComputeModalProperties(model, Vec3d(2.0 / 3.0, 1.0 / 3.0, 0.0));
    EXPECT_LT((properties.meanDisplacement[0] - v.cast<double>()).norm(), 1e-15);
    EXPECT_NEAR(properties.modalMass[0], v.cast<double>().squaredNorm(), 1e-14);
    // The centre of the lumped mass is the centroid: a translation does not couple to rotations.
    EXPECT_LT(properties.firstMoment[0].norm(), 1e-15);
    EXPECT_NEAR(properties.modalMass[1], 1.0 / 3.0, 1e-15);
    EXPECT_LT((properties.meanDisplacement[1] - Vec3d(1.0 / 3.0, 0, 0)).norm(), 1e-15);
    EXPECT_EQ(properties.maxDisplacement[1], 7.0); // the unweighted vertex still counts for the max
}

TEST(ModalProperties, ZeroAreaModelUsesUniformWeights)
{
    ModelData data;
    data.positions = {Vec3f(0, 0, 0), Vec3f(1, 0, 0), Vec3f(3, 0, 0)};
    data.triangles = {Triangle{0, 1, 2}};
    data.modeCount = 1;
    data.basis = {1, 0, 0, 0, 2, 0, 0, 0, 3};
    const ModalProperties properties = ComputeModalProperties(Model::Create(std::move(data)), Vec3d::Zero());
    EXPECT_NEAR(properties.modalMass[0], (1.0 + 4.0 + 9.0) / 3.0, 1e-15);
    EXPECT_LT((properties.meanDisplacement[0] - Vec3d(1, 2, 3) / 3.0).norm(), 1e-15);
    // A_0 = Σ w_i U_i r_iᵀ: only vertices 1 (r = x̂) and 2 (r = 3x̂) have r ≠ 0.
    Mat3d expected = Mat3d::Zero();
    expected(1, 0) = 2.0 / 3.0;
    expected(2, 0) = 9.0 / 3.0;
    EXPECT_LT((properties.firstMoment[0] - expected).norm(), 1e-15);
}

// −m·s·Σ_i w_i U_ijᵀ Rᵀ(a_i − g), a_i = a + α × x_i + ω × (ω × x_i), x_i = s·R·r_i: the force on each lumped
// vertex mass in the accelerating frame, projected on the mode's displacement (scaled to world).
std::vector<double> BruteForceInertialForce(const Model& inModel, const Vec3d& inCenter, double inMass,
                                            double inScale, const Mat3d& inR, const Vec3d& inA,
                                            const Vec3d& inG, const Vec3d& inOmega, const Vec3d& inAlpha)
{
    const std::vector<double> w = Weights(inModel);
    std::vector<double> force(inModel.ModeCount(), 0.0);
    for (std::size_t i = 0; i < inModel.VertexCount(); ++i)
    {
        const Vec3d x = inScale * inR * (inModel.Positions()[i].cast<double>() - inCenter);
        const Vec3d acceleration = inA + inAlpha.cross(x) + inOmega.cross(inOmega.cross(x));
        const Vec3d body = inR.transpose() * (acceleration - inG);
        for (std::uint32_t j = 0; j < inModel.ModeCount(); ++j)
            force[j] -= inMass * inScale * w[i] * U(inModel, i, j).dot(body);
    }
    return force;
}

TEST(ModalProperties, InertialForceEqualsPerVertexSum)
{
    std::mt19937 random(9);
    for (int trial = 0; trial < 20; ++trial)
    {
        const std::uint32_t modes = 1 + trial % 7;
        const Model model = RandomModel(40, 60, modes, random);
        const Vec3d center = model.RestBounds().center().cast<double>() + 0.1 * RandomPoint(random);
        const ModalProperties properties = ComputeModalProperties(model, center);
        const double mass = Uniform(random, 0.1, 50.0);
        const double scale = Uniform(random, 0.2, 3.0);
        const Mat3d rotation = RandomRotation(random);
        const Vec3d a = 10.0 * RandomPoint(random), g(0.0, -9.81, 0.0);
        const Vec3d omega = 5.0 * RandomPoint(random), alpha = 20.0 * RandomPoint(random);
        std::vector<double> force(modes);
        InertialForce(properties, mass, scale, rotation, a, g, omega, alpha, force);
        const std::vector<double> expected =
            BruteForceInertialForce(model, center, mass, scale, rotation, a, g, omega, alpha);
        double magnitude = 0.0;
        for (double f : expected)
            magnitude = std::max(magnitude, std::abs(f));
        ASSERT_GT(magnitude, 1.0);
        for (std::uint32_t j = 0; j < modes; ++j)
            EXPECT_NEAR(force[j], expected[j], 1e-12 * magnitude) << "trial " << trial << " mode " << j;
    }
}

TEST(ModalProperties, InertialForceVanishesInFreeFallAndChecksItsOutput)
{
    std::mt19937 random(10);
    const Model model = RandomModel(30, 40, 3, random);
    const ModalProperties properties = ComputeModalProperties(model, Vec3d::Zero());
    // Falling freely without rotating: every point feels g − a = 0.
    const Vec3d g(0.0, -9.81, 0.0);
    std::vector<double> force(3, 1.0);
    InertialForce(properties, 2.0, 1.5, RandomRotation(random), g, g, Vec3d::Zero(), Vec3d::Zero(), force);
    for (double f : force)
        EXPECT_EQ(f, 0.0);
    std::vector<double> wrong(2);
    EXPECT_THROW(InertialForce(properties, 2.0, 1.0, Mat3d::Identity(), g, g, g, g, wrong), Error);
    // A rigid body (M = 0) has nothing to force.
    const Model rigid = RandomModel(10, 10, 0, random);
    InertialForce(ComputeModalProperties(rigid, Vec3d::Zero()), 1.0, 1.0, Mat3d::Identity(), g, -g, g, g, {});
}

} // namespace
} // namespace bdt
