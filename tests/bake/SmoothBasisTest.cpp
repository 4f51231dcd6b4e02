#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace bdt
{
namespace
{

Vec3d Field(const std::vector<float>& inBasis, std::size_t inVertex, std::uint32_t inMode,
            std::uint32_t inModes)
{
    const float* u = inBasis.data() + (inVertex * inModes + inMode) * 3;
    return {u[0], u[1], u[2]};
}

double LargestExtent(const std::vector<Vec3f>& inPositions)
{
    Eigen::AlignedBox3d box;
    for (const Vec3f& p : inPositions)
        box.extend(p.cast<double>());
    return box.sizes().maxCoeff();
}

// Gram-Schmidt over vectors of 3N doubles (plain loops: GCC 12 warns falsely inside Eigen's dynamic-size
// decompositions under -march=native).
class GramSchmidt
{
public:
    /// The relative residual |r| / |v| of `inVector` against the vectors added so far; adds r if `inAdd`.
    double Residual(std::vector<double> inVector, bool inAdd)
    {
        const double norm = Norm(inVector);
        for (int repeat = 0; repeat < 2; ++repeat)
            for (const std::vector<double>& q : mBasis)
            {
                double dot = 0.0;
                for (std::size_t e = 0; e < q.size(); ++e)
                    dot += q[e] * inVector[e];
                for (std::size_t e = 0; e < q.size(); ++e)
                    inVector[e] -= dot * q[e];
            }
        const double residual = Norm(inVector);
        if (inAdd && residual > 1e-12 * norm)
        {
            for (double& value : inVector)
                value /= residual;
            mBasis.push_back(std::move(inVector));
        }
        return norm > 0.0 ? residual / norm : 0.0;
    }

private:
    static double Norm(const std::vector<double>& inV)
    {
        double sum = 0.0;
        for (const double value : inV)
            sum += value * value;
        return std::sqrt(sum);
    }

    std::vector<std::vector<double>> mBasis;
};

std::vector<double> Column(const std::vector<float>& inBasis, std::size_t inVertices, std::uint32_t inMode,
                           std::uint32_t inModes)
{
    std::vector<double> column(3 * inVertices);
    for (std::size_t i = 0; i < inVertices; ++i)
        for (int k = 0; k < 3; ++k)
            column[3 * i + k] = Field(inBasis, i, inMode, inModes)[k];
    return column;
}

// |f − (t + ω × p)| / |f| for the least-squares rigid motion (t, ω): 0 for a rigid field.
double NonRigidFraction(const std::vector<Vec3f>& inPositions, const std::vector<float>& inBasis,
                        std::uint32_t inMode, std::uint32_t inModes)
{
    GramSchmidt rigid;
    for (int k = 0; k < 6; ++k)
    {
        std::vector<double> motion(3 * inPositions.size());
        for (std::size_t i = 0; i < inPositions.size(); ++i)
        {
            const Vec3d p = inPositions[i].cast<double>();
            const Vec3d m = k < 3 ? Vec3d(Vec3d::Unit(k)) : Vec3d(Vec3d::Unit(k - 3).cross(p));
            for (int e = 0; e < 3; ++e)
                motion[3 * i + e] = m[e];
        }
        rigid.Residual(motion, true);
    }
    return rigid.Residual(Column(inBasis, inPositions.size(), inMode, inModes), false);
}

// The smallest relative residual of each of the first `inCount` fields against the fields before it:
// positive iff they are linearly independent, and a measure of how far they are from dependent.
double SmallestIndependence(const std::vector<float>& inBasis, std::size_t inVertices, std::uint32_t inModes,
                            std::uint32_t inCount)
{
    GramSchmidt span;
    double smallest = 1.0;
    for (std::uint32_t j = 0; j < inCount; ++j)
        smallest = std::min(smallest, span.Residual(Column(inBasis, inVertices, j, inModes), true));
    return smallest;
}

// Largest |U_i − U_k| / |p_i − p_k| over all vertex pairs and fields (brute force).
double LipschitzConstant(const std::vector<Vec3f>& inPositions, const std::vector<float>& inBasis,
                         std::uint32_t inModes)
{
    double largest = 0.0;
    for (std::size_t i = 0; i < inPositions.size(); ++i)
        for (std::size_t k = i + 1; k < inPositions.size(); ++k)
        {
            const double distance = (inPositions[i] - inPositions[k]).cast<double>().norm();
            if (distance == 0.0)
                continue;
            for (std::uint32_t j = 0; j < inModes; ++j)
                largest =
                    std::max(largest, (Field(inBasis, i, j, inModes) - Field(inBasis, k, j, inModes)).norm() /
                                          distance);
        }
    return largest;
}

// Checks the documented properties of a basis of `inModes` fields over `inPositions`.
void CheckBasis(const std::vector<Vec3f>& inPositions, std::uint32_t inModes, double inLipschitzTimesExtent)
{
    const std::vector<float> basis = MakeSmoothBasis(inPositions, inModes);
    ASSERT_EQ(basis.size(), 3 * inPositions.size() * inModes);
    for (std::uint32_t j = 0; j < inModes; ++j)
    {
        double largest = 0.0;
        for (std::size_t i = 0; i < inPositions.size(); ++i)
            largest = std::max(largest, Field(basis, i, j, inModes).norm());
        EXPECT_NEAR(largest, 1.0, 1e-6) << "field " << j;
        // The rigid part is removed entirely, so the field is least-squares orthogonal to rigid motions.
        EXPECT_GT(NonRigidFraction(inPositions, basis, j, inModes), 0.999) << "field " << j;
    }
    EXPECT_GT(SmallestIndependence(basis, inPositions.size(), inModes, inModes), 0.05)
        << "fields are nearly dependent";
    EXPECT_LT(LipschitzConstant(inPositions, basis, inModes),
              inLipschitzTimesExtent / LargestExtent(inPositions));
}

TEST(SmoothBasisTest, SphereFieldsAreNormalisedNonRigidIndependentAndSmooth)
{
    CheckBasis(MakeShape(EShape::Sphere, 800).positions, 20, 40.0);
}

TEST(SmoothBasisTest, SlenderBeam)
{
    CheckBasis(MakeShape(EShape::Beam, 800).positions, 12, 40.0);
}

TEST(SmoothBasisTest, FlatCurtain)
{
    std::vector<Vec3f> positions = MakeShape(EShape::Curtain, 800).positions;
    for (Vec3f& p : positions)
        p.z() = 0.0f; // Exactly planar: a zero bounding-box extent.
    CheckBasis(positions, 30, 40.0);
}

TEST(SmoothBasisTest, ChairWithManyFields)
{
    CheckBasis(MakeShape(EShape::Chair, 2000).positions, 60, 80.0);
}

TEST(SmoothBasisTest, TwoHundredFields)
{
    CheckBasis(MakeShape(EShape::Sphere, 3000).positions, 200, 100.0);
}

TEST(SmoothBasisTest, ZeroFields)
{
    EXPECT_TRUE(MakeSmoothBasis(MakeShape(EShape::Box, 12).positions, 0).empty());
}

TEST(SmoothBasisTest, FewVerticesStillGiveFiniteNormalisedFields)
{
    const std::vector<Vec3f> tetrahedron = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    const std::uint32_t modes = 10; // More than the 3·4 − 6 = 6 non-rigid dimensions.
    const std::vector<float> basis = MakeSmoothBasis(tetrahedron, modes);
    ASSERT_EQ(basis.size(), 3 * 4 * modes);
    for (std::uint32_t j = 0; j < modes; ++j)
    {
        double largest = 0.0;
        for (std::size_t i = 0; i < 4; ++i)
        {
            ASSERT_TRUE(Field(basis, i, j, modes).allFinite());
            largest = std::max(largest, Field(basis, i, j, modes).norm());
        }
        EXPECT_NEAR(largest, 1.0, 1e-6);
    }
    EXPECT_GT(SmallestIndependence(basis, 4, modes, 6), 0.05); // The first six are independent.
}

TEST(SmoothBasisTest, TwoPointsGiveTheStretch)
{
    const std::vector<Vec3f> points = {{0, 0, 0}, {2, 0, 0}};
    const std::vector<float> basis = MakeSmoothBasis(points, 3);
    for (std::uint32_t j = 0; j < 3; ++j)
    {
        const Vec3d relative = Field(basis, 1, j, 3) - Field(basis, 0, j, 3);
        EXPECT_GT(std::abs(relative.x()), 1.0); // Only a change of length is not rigid.
    }
}

TEST(SmoothBasisTest, Deterministic)
{
    const std::vector<Vec3f> positions = MakeShape(EShape::Torus, 1000).positions;
    EXPECT_EQ(MakeSmoothBasis(positions, 16), MakeSmoothBasis(positions, 16));
}

TEST(SmoothBasisTest, ThrowsOnEmptyOrCoincidentPoints)
{
    EXPECT_THROW(MakeSmoothBasis({}, 4), Error);
    const std::vector<Vec3f> same(5, Vec3f(1.0f, 2.0f, 3.0f));
    EXPECT_THROW(MakeSmoothBasis(same, 4), Error);
    EXPECT_TRUE(MakeSmoothBasis(same, 0).empty());
}

// Unit area-weighted vertex normals of the deformed mesh p + U q.
std::vector<Vec3d> Normals(const ShapeMesh& inMesh, const std::vector<float>& inBasis,
                           const std::vector<double>& inQ)
{
    const auto modes = std::uint32_t(inQ.size());
    std::vector<Vec3d> deformed(inMesh.positions.size());
    for (std::size_t i = 0; i < deformed.size(); ++i)
    {
        deformed[i] = inMesh.positions[i].cast<double>();
        for (std::uint32_t j = 0; j < modes; ++j)
            deformed[i] += inQ[j] * Field(inBasis, i, j, modes);
    }
    std::vector<Vec3d> normals(deformed.size(), Vec3d::Zero());
    for (const Triangle& t : inMesh.triangles)
    {
        const Vec3d area = (deformed[t[1]] - deformed[t[0]]).cross(deformed[t[2]] - deformed[t[0]]);
        for (const std::uint32_t v : t)
            normals[v] += area;
    }
    for (Vec3d& n : normals)
        n.normalize();
    return normals;
}

TEST(SmoothBasisTest, NormalBasisMatchesFiniteDifferences)
{
    for (const EShape shape : {EShape::Torus, EShape::Curtain, EShape::Chair})
    {
        const ShapeMesh mesh = MakeShape(shape, 600);
        const std::uint32_t modes = 8;
        const std::vector<float> basis = MakeSmoothBasis(mesh.positions, modes);
        const std::vector<float> normals = MakeNormalBasis(mesh.positions, mesh.triangles, basis, modes);
        ASSERT_EQ(normals.size(), basis.size());
        const double step = 1e-6 * LargestExtent(mesh.positions);
        double worst = 0.0, scale = 0.0;
        for (std::uint32_t j = 0; j < modes; ++j)
        {
            std::vector<double> plus(modes, 0.0), minus(modes, 0.0);
            plus[j] = step;
            minus[j] = -step;
            const std::vector<Vec3d> a = Normals(mesh, basis, plus), b = Normals(mesh, basis, minus);
            for (std::size_t i = 0; i < mesh.positions.size(); ++i)
            {
                const Vec3d difference = (a[i] - b[i]) / (2.0 * step);
                worst = std::max(worst, (difference - Field(normals, i, j, modes)).norm());
                scale = std::max(scale, difference.norm());
            }
        }
        EXPECT_GT(scale, 0.0) << ShapeName(shape);
        EXPECT_LT(worst, 1e-4 * scale) << ShapeName(shape);
    }
}

TEST(SmoothBasisTest, NormalBasisRejectsWrongSizes)
{
    const ShapeMesh mesh = MakeShape(EShape::Box, 12);
    const std::vector<float> basis = MakeSmoothBasis(mesh.positions, 2);
    EXPECT_THROW(MakeNormalBasis(mesh.positions, mesh.triangles, basis, 3), Error);
}

} // namespace
} // namespace bdt

namespace bdt
{
namespace
{

TEST(SmoothBasis, SmoothModelCarriesTheBasisAndItsNormalBasis)
{
    ShapeMesh mesh = MakeShape(EShape::Torus, 400);
    const std::vector<float> basis = MakeSmoothBasis(mesh.positions, 5);
    const std::vector<float> normals = MakeNormalBasis(mesh.positions, mesh.triangles, basis, 5);
    const Model model = MakeSmoothModel(mesh.positions, mesh.triangles, 5);
    EXPECT_EQ(model.ModeCount(), 5u);
    EXPECT_EQ(std::vector<float>(model.Basis().begin(), model.Basis().end()), basis);
    EXPECT_EQ(std::vector<float>(model.NormalBasis().begin(), model.NormalBasis().end()), normals);
    EXPECT_EQ(model.VertexCount(), mesh.positions.size());
    EXPECT_THROW(MakeSmoothModel({}, {}, 3), Error);
}

} // namespace
} // namespace bdt
