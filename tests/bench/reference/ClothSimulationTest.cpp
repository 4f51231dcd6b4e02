// The cloth that makes `bdt-bench curtain`'s animation, and the paper-sized curtain mesh it runs on.
#include "reference/ClothSimulation.h"

#include "reference/PaperCurtain.h"
#include "support/ErrorOf.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>

namespace bdt::bench
{
namespace
{

std::vector<std::uint8_t> TopRow(const ShapeMesh& inMesh)
{
    float top = -1e30f;
    for (const Vec3f& p : inMesh.positions)
        top = std::max(top, p.y());
    std::vector<std::uint8_t> pinned;
    for (const Vec3f& p : inMesh.positions)
        pinned.push_back(p.y() >= top - 1e-5f ? 1 : 0);
    return pinned;
}

TEST(PaperCurtainTest, HasThePapersCountsAndIsAnOrientedSheet)
{
    const ShapeMesh mesh = MakePaperCurtain();
    EXPECT_EQ(mesh.positions.size(), 6184u); // BD-Tree paper, Table 1
    EXPECT_EQ(mesh.triangles.size(), 12020u);
    std::map<std::pair<std::uint32_t, std::uint32_t>, int> edgeUses;
    for (const Triangle& t : mesh.triangles)
    {
        const Vec3f normal =
            (mesh.positions[t[1]] - mesh.positions[t[0]]).cross(mesh.positions[t[2]] - mesh.positions[t[0]]);
        ASSERT_GT(normal.z(), 0.0f) << "counter-clockwise seen from +z";
        for (int k = 0; k < 3; ++k)
            ++edgeUses[{std::min(t[k], t[(k + 1) % 3]), std::max(t[k], t[(k + 1) % 3])}];
    }
    std::size_t boundary = 0;
    for (const auto& [edge, uses] : edgeUses)
    {
        ASSERT_LE(uses, 2) << "an edge of a sheet has at most two triangles";
        boundary += uses == 1 ? 1 : 0;
    }
    // A disc: V − E + F = 1.
    EXPECT_EQ(std::int64_t(mesh.positions.size()) - std::int64_t(edgeUses.size()) +
                  std::int64_t(mesh.triangles.size()),
              1);
    EXPECT_GT(boundary, 0u);
}

TEST(ClothSimulationTest, PinnedEdgeHoldsTheClothKeepsItsLengthAndTheWindMovesIt)
{
    const ShapeMesh mesh = MakeShape(EShape::Curtain, 800);
    const std::vector<std::uint8_t> pinned = TopRow(mesh);
    ClothSettings settings;
    settings.frames = 30;
    const auto frames = SimulateCloth(mesh.positions, mesh.triangles, pinned, settings);
    ASSERT_EQ(frames.size(), 30u);
    double edgeError = 0.0, meanZ = 0.0, moved = 0.0;
    for (const std::vector<Vec3f>& frame : frames)
    {
        ASSERT_EQ(frame.size(), mesh.positions.size());
        for (std::size_t i = 0; i < frame.size(); ++i)
        {
            ASSERT_TRUE(frame[i].allFinite());
            if (pinned[i] != 0)
            {
                ASSERT_EQ(frame[i], mesh.positions[i]) << "pinned vertex " << i << " moved";
            }
        }
    }
    for (const Triangle& t : mesh.triangles)
        for (int k = 0; k < 3; ++k)
        {
            const double rest = (mesh.positions[t[k]] - mesh.positions[t[(k + 1) % 3]]).norm();
            const double now = (frames.back()[t[k]] - frames.back()[t[(k + 1) % 3]]).norm();
            edgeError = std::max(edgeError, std::abs(now - rest) / rest);
        }
    for (std::size_t i = 0; i < mesh.positions.size(); ++i)
    {
        meanZ += frames.back()[i].z() / double(mesh.positions.size());
        moved = std::max(moved, double((frames.back()[i] - mesh.positions[i]).norm()));
    }
    EXPECT_LT(edgeError, 0.1) << "edges are inextensible links, up to what a few passes leave";
    EXPECT_GT(meanZ, 0.02) << "the wind blows along +z";
    EXPECT_GT(moved, 0.1) << "the cloth moves";
    // Deterministic.
    EXPECT_EQ(SimulateCloth(mesh.positions, mesh.triangles, pinned, settings).back(), frames.back());
}

TEST(ClothSimulationTest, BadInputIsAnError)
{
    const ShapeMesh mesh = MakeShape(EShape::Curtain, 200);
    const std::vector<std::uint8_t> pinned = TopRow(mesh);
    const std::vector<std::uint8_t> none(mesh.positions.size(), 0);
    EXPECT_NE(test::ErrorOf([&] { SimulateCloth(mesh.positions, mesh.triangles, none); })
                  .find("no vertex is pinned"),
              std::string::npos);
    EXPECT_NE(
        test::ErrorOf([&] { SimulateCloth(mesh.positions, mesh.triangles, std::vector<std::uint8_t>(3, 1)); })
            .find("pinned mask"),
        std::string::npos);
    std::vector<Triangle> bad = mesh.triangles;
    bad[0][1] = std::uint32_t(mesh.positions.size());
    EXPECT_NE(test::ErrorOf([&] { SimulateCloth(mesh.positions, bad, pinned); }).find("out of range"),
              std::string::npos);
    EXPECT_NE(test::ErrorOf([&] { SimulateCloth({}, {}, {}); }).find("empty"), std::string::npos);
    ClothSettings settings;
    settings.framesPerSecond = 0.0;
    EXPECT_NE(test::ErrorOf([&] { SimulateCloth(mesh.positions, mesh.triangles, pinned, settings); }), "");
    settings = {};
    settings.bendStiffness = 2.0;
    EXPECT_NE(test::ErrorOf([&] { SimulateCloth(mesh.positions, mesh.triangles, pinned, settings); }), "");
}

} // namespace
} // namespace bdt::bench
