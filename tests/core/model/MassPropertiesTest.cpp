#include "support/QueryOracles.h"

#include <bdt/core/base/Error.h>
#include <bdt/core/model/MassProperties.h>
#include <bdt/core/model/ProceduralShapes.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>

namespace bdt
{
namespace
{

using test::RandomRotation;
using test::Uniform;

Model RigidModel(std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles)
{
    ModelData data;
    data.positions = std::move(inPositions);
    data.triangles = std::move(inTriangles);
    return Model::Create(std::move(data));
}

Model ShapeModel(EShape inShape, std::uint32_t inTriangles)
{
    ShapeMesh mesh = MakeShape(inShape, inTriangles);
    return RigidModel(std::move(mesh.positions), std::move(mesh.triangles));
}

// The procedural unit box scaled to `inSize`, rotated by `inPose.rotation` and moved to `inPose.translation`.
Model BoxModel(const Vec3d& inSize, const Pose& inPose, std::uint32_t inTriangles = 300)
{
    ShapeMesh mesh = MakeShape(EShape::Box, inTriangles);
    for (Vec3f& p : mesh.positions)
        p = inPose.Apply(p.cast<double>().cwiseProduct(inSize)).cast<float>();
    return RigidModel(std::move(mesh.positions), std::move(mesh.triangles));
}

// Same mesh, every triangle wound the other way.
Model Reversed(const Model& inModel)
{
    std::vector<Triangle> triangles(inModel.Triangles().begin(), inModel.Triangles().end());
    for (Triangle& t : triangles)
        std::swap(t[1], t[2]);
    return RigidModel({inModel.Positions().begin(), inModel.Positions().end()}, std::move(triangles));
}

// Brute-force thin shell: every triangle cut into k² equal sub-triangles, each lumped at its centroid.
// Converges as O(h²/k²) to the exact uniform surface-density moments; shares no code with the library.
struct ShellOracle
{
    double area = 0.0;
    Vec3d centerOfMass = Vec3d::Zero();
    Mat3d inertia = Mat3d::Zero(); // per unit mass, about the centre of mass
};

ShellOracle BruteForceShell(const Model& inModel, int inK)
{
    const auto positions = inModel.Positions();
    double area = 0.0;
    Vec3d first = Vec3d::Zero();
    Mat3d second = Mat3d::Zero();
    const auto lump = [&](const Vec3d& inA, const Vec3d& inB, const Vec3d& inC)
    {
        const double a = 0.5 * (inB - inA).cross(inC - inA).norm();
        const Vec3d g = (inA + inB + inC) / 3.0;
        area += a;
        first += a * g;
        second += a * g * g.transpose();
    };
    for (const Triangle& t : inModel.Triangles())
    {
        const Vec3d a = positions[t[0]].cast<double>();
        const Vec3d e1 = positions[t[1]].cast<double>() - a;
        const Vec3d e2 = positions[t[2]].cast<double>() - a;
        const auto point = [&](int inI, int inJ) -> Vec3d
        { return a + (double(inI) * e1 + double(inJ) * e2) / inK; };
        for (int i = 0; i < inK; ++i)
            for (int j = 0; i + j < inK; ++j)
            {
                lump(point(i, j), point(i + 1, j), point(i, j + 1));
                if (i + j + 1 < inK)
                    lump(point(i + 1, j), point(i + 1, j + 1), point(i, j + 1));
            }
    }
    ShellOracle oracle;
    oracle.area = area;
    oracle.centerOfMass = first / area;
    const Mat3d covariance = second / area - oracle.centerOfMass * oracle.centerOfMass.transpose();
    oracle.inertia = covariance.trace() * Mat3d::Identity() - covariance;
    return oracle;
}

// Facts every result must satisfy: orthonormal right-handed axes sorted by increasing moments that
// diagonalise the inertia tensor, moments clamped at 1e-3 of the largest, and a consistent ToPrincipal().
void ExpectConsistentFrame(const MassProperties& inMass, const std::string& inContext)
{
    const Mat3d& axes = inMass.principalAxes;
    EXPECT_LT((axes.transpose() * axes - Mat3d::Identity()).norm(), 1e-12) << inContext;
    EXPECT_NEAR(axes.determinant(), 1.0, 1e-12) << inContext;
    const Mat3d diagonal = axes.transpose() * inMass.inertia * axes;
    const double largest = inMass.principalInertia[2];
    for (int k = 0; k < 3; ++k)
    {
        EXPECT_NEAR(inMass.principalInertia[k], std::max(diagonal(k, k), 1e-3 * largest), 1e-12 * largest)
            << inContext << " axis " << k;
        for (int l = 0; l < 3; ++l)
        {
            if (l != k)
            {
                EXPECT_NEAR(diagonal(k, l), 0.0, 1e-12 * largest) << inContext;
            }
        }
    }
    EXPECT_LE(inMass.principalInertia[0], inMass.principalInertia[1]) << inContext;
    EXPECT_LE(inMass.principalInertia[1], inMass.principalInertia[2]) << inContext;
    EXPECT_GE(inMass.principalInertia[0], 1e-3 * largest * (1.0 - 1e-15)) << inContext;
    EXPECT_LT(inMass.ToPrincipal().Apply(inMass.centerOfMass).norm(), 1e-12) << inContext;
}

TEST(MassProperties, BoxMatchesAnalyticSolid)
{
    const Vec3d size(1.0, 0.6, 0.3);
    const MassProperties mass = ComputeMassProperties(BoxModel(size, Pose::Identity()));
    EXPECT_TRUE(mass.solid);
    EXPECT_NEAR(mass.volume, size.prod(), 1e-7);
    EXPECT_NEAR(mass.area, 2.0 * (size.x() * size.y() + size.y() * size.z() + size.z() * size.x()), 1e-6);
    EXPECT_LT(mass.centerOfMass.norm(), 1e-7);
    const Vec3d s2 = size.cwiseProduct(size);
    const Vec3d expected = Vec3d(s2.y() + s2.z(), s2.x() + s2.z(), s2.x() + s2.y()) / 12.0;
    EXPECT_LT((mass.inertia - Mat3d(expected.asDiagonal())).norm(), 1e-7);
    EXPECT_LT((mass.principalInertia - expected).norm(), 1e-7); // already in increasing order
    ExpectConsistentFrame(mass, "box");
}

TEST(MassProperties, MovedBoxKeepsItsMomentsAndFindsItsFrame)
{
    const Vec3d size(1.2, 0.7, 0.25);
    const Vec3d s2 = size.cwiseProduct(size);
    const Vec3d expected = Vec3d(s2.y() + s2.z(), s2.x() + s2.z(), s2.x() + s2.y()) / 12.0; // increasing
    std::mt19937 random(41);
    for (int trial = 0; trial < 8; ++trial)
    {
        Pose pose;
        pose.rotation = RandomRotation(random);
        pose.translation = test::RandomPoint(random, trial < 4 ? 3.0 : 40.0);
        const Model model = BoxModel(size, pose);
        const MassProperties mass = ComputeMassProperties(model);
        const std::string context = "trial " + std::to_string(trial);
        // Float positions carry ~6e-8 relative rounding of |translation|.
        const double tolerance = 2e-6 * (1.0 + pose.translation.norm());
        EXPECT_TRUE(mass.solid) << context;
        EXPECT_NEAR(mass.volume, size.prod(), tolerance) << context;
        EXPECT_LT((mass.centerOfMass - pose.translation).norm(), tolerance) << context;
        EXPECT_LT((mass.principalInertia - expected).norm(), tolerance) << context;
        // The principal axes are the box's axes, up to sign, in the order of the moments.
        for (int k = 0; k < 3; ++k)
            EXPECT_NEAR(std::abs(mass.principalAxes.col(k).dot(pose.rotation.col(k))), 1.0, 1e-6) << context;
        ExpectConsistentFrame(mass, context);
        // ToPrincipal maps the box into its own extents centred on the origin.
        const Pose toPrincipal = mass.ToPrincipal();
        Vec3d reach = Vec3d::Zero();
        for (const Vec3f& p : model.Positions())
            reach = reach.cwiseMax(toPrincipal.Apply(p.cast<double>()).cwiseAbs());
        EXPECT_LT((reach - 0.5 * size).norm(), 1e-5 * (1.0 + pose.translation.norm())) << context;
    }
}

TEST(MassProperties, CubeSphereWithinItsTessellationBounds)
{
    const Model model = ShapeModel(EShape::Sphere, 3000);
    // The star-shaped polyhedron lies between the ball through its nearest face plane (radius r) and the
    // ball through its farthest vertex (radius R), so every set integral lies between the two balls'.
    double bigR = 0.0, smallR = std::numeric_limits<double>::max();
    for (const Vec3f& p : model.Positions())
        bigR = std::max(bigR, p.cast<double>().norm());
    for (const Triangle& t : model.Triangles())
    {
        const Vec3d a = model.Positions()[t[0]].cast<double>();
        const Vec3d n = (model.Positions()[t[1]].cast<double>() - a)
                            .cross(model.Positions()[t[2]].cast<double>() - a)
                            .normalized();
        ASSERT_GT(n.dot(a), 0.0) << "faces must look away from the centre";
        smallR = std::min(smallR, n.dot(a));
    }
    ASSERT_LT(bigR - smallR, 0.01 * bigR) << "the bounds should be tight enough to mean something";
    const MassProperties mass = ComputeMassProperties(model);
    EXPECT_TRUE(mass.solid);
    const double pi = std::numbers::pi;
    EXPECT_GE(mass.volume, 4.0 / 3.0 * pi * std::pow(smallR, 3));
    EXPECT_LE(mass.volume, 4.0 / 3.0 * pi * std::pow(bigR, 3));
    EXPECT_LE(mass.area, 4.0 * pi * bigR * bigR);
    // ∫(y² + z²) dV between (8π/15)·r⁵ and (8π/15)·R⁵; per unit mass, divided by V.
    for (int k = 0; k < 3; ++k)
    {
        EXPECT_GE(mass.principalInertia[k], 0.4 * std::pow(smallR, 5) / std::pow(bigR, 3)) << k;
        EXPECT_LE(mass.principalInertia[k], 0.4 * std::pow(bigR, 5) / std::pow(smallR, 3)) << k;
    }
    EXPECT_LT(mass.centerOfMass.norm(), 1e-6);
    EXPECT_LT(mass.principalInertia[2] - mass.principalInertia[0], 1e-3 * mass.principalInertia[2]);
    ExpectConsistentFrame(mass, "sphere");
}

TEST(MassProperties, InwardWindingGivesTheSameSolid)
{
    for (EShape shape : {EShape::Pawn, EShape::Torus, EShape::Chair, EShape::Beam})
    {
        const Model outward = ShapeModel(shape, 1500);
        const MassProperties a = ComputeMassProperties(outward);
        const MassProperties b = ComputeMassProperties(Reversed(outward));
        const std::string context = ShapeName(shape);
        EXPECT_TRUE(a.solid) << context;
        EXPECT_TRUE(b.solid) << context;
        EXPECT_GT(a.volume, 0.0) << context;
        EXPECT_NEAR(a.volume, b.volume, 1e-12 * a.volume) << context;
        EXPECT_NEAR(a.area, b.area, 1e-12 * a.area) << context;
        EXPECT_LT((a.centerOfMass - b.centerOfMass).norm(), 1e-12) << context;
        EXPECT_LT((a.inertia - b.inertia).norm(), 1e-12 * a.inertia.norm()) << context;
        ExpectConsistentFrame(a, context);
    }
}

TEST(MassProperties, SplitVerticesStillCountAsClosed)
{
    // Every triangle with its own three vertices (flat shading): closed once equal positions are merged.
    const Model shared = BoxModel(Vec3d(0.5, 1.0, 2.0), Pose::Identity());
    std::vector<Vec3f> positions;
    std::vector<Triangle> triangles;
    for (const Triangle& t : shared.Triangles())
    {
        const std::uint32_t base = static_cast<std::uint32_t>(positions.size());
        for (std::uint32_t v : t)
            positions.push_back(shared.Positions()[v]);
        triangles.push_back({base, base + 1, base + 2});
    }
    const MassProperties split =
        ComputeMassProperties(RigidModel(std::move(positions), std::move(triangles)));
    const MassProperties reference = ComputeMassProperties(shared);
    EXPECT_TRUE(split.solid);
    EXPECT_NEAR(split.volume, 1.0, 1e-6);
    EXPECT_LT((split.inertia - reference.inertia).norm(), 1e-12);
}

TEST(MassProperties, OpenMeshUsesTheShellAndMatchesBruteForce)
{
    const Model curtain = ShapeModel(EShape::Curtain, 800);
    Model holed = ShapeModel(EShape::Pawn, 800);
    {
        // The pawn with one triangle removed: open.
        std::vector<Triangle> triangles(holed.Triangles().begin() + 1, holed.Triangles().end());
        holed = RigidModel({holed.Positions().begin(), holed.Positions().end()}, std::move(triangles));
    }
    for (const Model* model : {&curtain, const_cast<const Model*>(&holed)})
    {
        const MassProperties mass = ComputeMassProperties(*model);
        const ShellOracle oracle = BruteForceShell(*model, 8);
        EXPECT_FALSE(mass.solid);
        EXPECT_EQ(mass.volume, 0.0);
        EXPECT_NEAR(mass.area, oracle.area, 1e-9 * oracle.area);
        const double scale = oracle.inertia.norm();
        EXPECT_LT((mass.centerOfMass - oracle.centerOfMass).norm(), 1e-9);
        // The centroid rule misses each sub-triangle's own spread, O((h/k)²).
        EXPECT_LT((mass.inertia - oracle.inertia).norm(), 1e-4 * scale);
        ExpectConsistentFrame(mass, "shell");
    }
    // A flat sheet's moments obey the perpendicular axis theorem, roughly (the curtain folds 3 cm in z).
    const MassProperties sheet = ComputeMassProperties(curtain);
    EXPECT_NEAR(sheet.principalInertia[2], sheet.principalInertia[0] + sheet.principalInertia[1],
                0.01 * sheet.principalInertia[2]);
}

TEST(MassProperties, ClosedSheetOfZeroVolumeUsesTheShell)
{
    // The curtain plus its reversed copy: every edge used twice in opposite directions, but no volume.
    const Model curtain = ShapeModel(EShape::Curtain, 400);
    std::vector<Triangle> triangles(curtain.Triangles().begin(), curtain.Triangles().end());
    for (const Triangle& t : curtain.Triangles())
        triangles.push_back({t[0], t[2], t[1]});
    const MassProperties doubled = ComputeMassProperties(
        RigidModel({curtain.Positions().begin(), curtain.Positions().end()}, triangles));
    const MassProperties single = ComputeMassProperties(curtain);
    EXPECT_FALSE(doubled.solid);
    EXPECT_EQ(doubled.volume, 0.0);
    EXPECT_NEAR(doubled.area, 2.0 * single.area, 1e-12 * single.area);
    EXPECT_LT((doubled.inertia - single.inertia).norm(), 1e-12 * single.inertia.norm());
}

TEST(MassProperties, InconsistentWindingUsesTheShell)
{
    const Model box = ShapeModel(EShape::Box, 200);
    std::vector<Triangle> triangles(box.Triangles().begin(), box.Triangles().end());
    std::swap(triangles[7][1], triangles[7][2]); // one triangle flipped: its edges now repeat directions
    const Model flipped = RigidModel({box.Positions().begin(), box.Positions().end()}, std::move(triangles));
    const MassProperties mass = ComputeMassProperties(flipped);
    EXPECT_FALSE(mass.solid);
    EXPECT_NEAR(mass.area, 6.0, 1e-6);
    // A unit cube shell: I = 5/18 about every axis through its centre (faces at ±1/2).
    EXPECT_LT((mass.inertia - 5.0 / 18.0 * Mat3d::Identity()).norm(), 1e-6);
    // Degenerate triangles are ignored by the closedness test: the intact box with extra slivers is solid.
    std::vector<Triangle> extra(box.Triangles().begin(), box.Triangles().end());
    extra.push_back({0, 0, 1});
    extra.push_back({1, 2, 1});
    EXPECT_TRUE(
        ComputeMassProperties(RigidModel({box.Positions().begin(), box.Positions().end()}, extra)).solid);
    // A far small box turned inside out next to the unit box: closed, positive signed volume, but a second
    // moment that is negative along the line between them, so not a solid.
    std::vector<Vec3f> twoPositions(box.Positions().begin(), box.Positions().end());
    std::vector<Triangle> twoTriangles(box.Triangles().begin(), box.Triangles().end());
    const std::uint32_t offset = static_cast<std::uint32_t>(twoPositions.size());
    for (const Vec3f& p : box.Positions())
        twoPositions.push_back(0.1f * p + Vec3f(10.0f, 0.0f, 0.0f));
    for (const Triangle& t : box.Triangles())
        twoTriangles.push_back({t[0] + offset, t[2] + offset, t[1] + offset});
    const MassProperties two = ComputeMassProperties(RigidModel(std::move(twoPositions), std::move(twoTriangles)));
    EXPECT_FALSE(two.solid);
    EXPECT_NEAR(two.area, 6.06, 1e-5);
}

TEST(MassProperties, NeedleMomentsAreClamped)
{
    const Vec3d size(2.0, 0.01, 0.01);
    const MassProperties mass = ComputeMassProperties(BoxModel(size, Pose::Identity(), 600));
    EXPECT_TRUE(mass.solid);
    const double axial = (size.y() * size.y() + size.z() * size.z()) / 12.0;
    const double transverse = (size.x() * size.x() + size.y() * size.y()) / 12.0;
    EXPECT_NEAR(mass.inertia(0, 0), axial, 1e-6 * axial); // the tensor itself is exact
    EXPECT_LT(axial, 1e-3 * transverse);
    EXPECT_NEAR(mass.principalInertia[2], transverse, 1e-6 * transverse);
    EXPECT_DOUBLE_EQ(mass.principalInertia[0], 1e-3 * mass.principalInertia[2]);
    ExpectConsistentFrame(mass, "needle");
}

TEST(MassProperties, ZeroAreaThrows)
{
    // Collinear points and a repeated index: triangles, but no area.
    const Model flat =
        RigidModel({Vec3f(0, 0, 0), Vec3f(1, 0, 0), Vec3f(2, 0, 0)}, {Triangle{0, 1, 2}, Triangle{0, 0, 1}});
    EXPECT_THROW(ComputeMassProperties(flat), Error);
}

} // namespace
} // namespace bdt
