#include "support/ErrorOf.h"
#include "support/TetModels.h"

#include <bdt/bake/TetMesh.h>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <map>

namespace bdt
{
namespace
{

void WriteText(const std::string& inPath, const std::string& inText)
{
    std::ofstream(inPath, std::ios::binary) << inText;
}

// The message of the bdt::Error thrown by loading `inPath`, or "" if it loaded.
std::string LoadError(const std::string& inPath)
{
    return test::ErrorOf([&] { LoadTetMesh(inPath); });
}

TEST(TetMesh, VtkRoundTripIsExact)
{
    TetMesh mesh = test::BoxTets({3, 2, 2}, 0.1);
    mesh.positions[5] += Vec3d(1.0 / 3.0, -1e-7, 2.5e-9); // digits that only %.17g keeps
    const std::string path = test::ScratchFolder("tet_vtk") + "/box.vtk";
    SaveVtkTets(mesh, path);
    const TetMesh loaded = LoadTetMesh(path);
    ASSERT_EQ(loaded.positions.size(), mesh.positions.size());
    ASSERT_EQ(loaded.tets.size(), mesh.tets.size());
    for (std::size_t i = 0; i < mesh.positions.size(); ++i)
        EXPECT_EQ(loaded.positions[i], mesh.positions[i]) << i;
    for (std::size_t t = 0; t < mesh.tets.size(); ++t)
        EXPECT_EQ(loaded.tets[t], mesh.tets[t]) << t;
}

TEST(TetMesh, ReadsTetGenWithOneBasedIndicesAttributesAndQuadraticTets)
{
    const std::string folder = test::ScratchFolder("tet_tetgen");
    // Five nodes (1-based, one attribute, boundary markers), two tetrahedra sharing a face; the second
    // written as a 10-node tetrahedron whose extra nodes are ignored.
    WriteText(folder + "/two.node", "# nodes\n5 3 1 1\n1 0 0 0 7 1\n2 1 0 0 7 1\n3 0 1 0 7 1\n4 0 0 1 7 1\n"
                                    "5 1 1 1 7 1 # last\n");
    WriteText(folder + "/two.ele", "2 10 1\n1 1 2 3 4 1 1 1 1 1 1 3\n2 2 3 4 5 1 1 1 1 1 1 3\n");
    const TetMesh mesh = LoadTetMesh(folder + "/two.node");
    ASSERT_EQ(mesh.positions.size(), 5u);
    EXPECT_EQ(mesh.positions[4], Vec3d(1, 1, 1));
    ASSERT_EQ(mesh.tets.size(), 2u);
    EXPECT_EQ(mesh.tets[0], (std::array<std::uint32_t, 4>{0, 1, 2, 3}));
    EXPECT_EQ(mesh.tets[1], (std::array<std::uint32_t, 4>{1, 2, 3, 4}));
}

TEST(TetMesh, LatticeTetsFillTheCubesConformingly)
{
    const double h = 0.25;
    const TetMesh mesh = test::BoxTets({3, 2, 1}, h);
    EXPECT_EQ(mesh.positions.size(), 4u * 3u * 2u);
    ASSERT_EQ(mesh.tets.size(), 6u * 6u);
    double volume = 0.0;
    std::map<std::array<std::uint32_t, 3>, int> faces;
    for (const auto& t : mesh.tets)
    {
        const double v = std::abs(TetSixVolume(mesh.positions[t[0]], mesh.positions[t[1]],
                                               mesh.positions[t[2]], mesh.positions[t[3]])) /
                         6.0;
        EXPECT_NEAR(v, h * h * h / 6.0, 1e-15);
        volume += v;
        for (int skip = 0; skip < 4; ++skip)
        {
            std::array<std::uint32_t, 3> key{};
            int k = 0;
            for (int i = 0; i < 4; ++i)
                if (i != skip)
                    key[std::size_t(k++)] = t[std::size_t(i)];
            std::sort(key.begin(), key.end());
            ++faces[key];
        }
    }
    EXPECT_NEAR(volume, 6.0 * h * h * h, 1e-14);
    // Conforming: every face is shared by two tetrahedra or lies on the box (two triangles per square).
    int boundary = 0;
    for (const auto& [key, count] : faces)
    {
        EXPECT_LE(count, 2);
        boundary += count == 1 ? 1 : 0;
    }
    EXPECT_EQ(boundary, 2 * 2 * (3 * 2 + 3 * 1 + 2 * 1));
}

TEST(TetMesh, BoundaryIsTheClosedOutwardSurfaceOfTheBox)
{
    const double h = 0.5;
    const TetMesh mesh = test::BoxTets({4, 3, 2}, h);
    const TetBoundary boundary = ExtractTetBoundary(mesh);
    // Brute force: the nodes on the box's faces.
    std::size_t onSurface = 0;
    const Vec3d extent(4 * h, 3 * h, 2 * h);
    for (const Vec3d& p : mesh.positions)
        onSurface += (p.array() == 0.0).any() || (p.array() == extent.array()).any() ? 1 : 0;
    EXPECT_EQ(boundary.positions.size(), onSurface);
    // Closed, outward: the divergence theorem gives the box's volume, the areas its surface.
    double volume = 0.0, area = 0.0;
    std::map<std::pair<std::uint32_t, std::uint32_t>, int> edges;
    for (const Triangle& t : boundary.triangles)
    {
        const Vec3d a = boundary.positions[t[0]].cast<double>(), b = boundary.positions[t[1]].cast<double>(),
                    c = boundary.positions[t[2]].cast<double>();
        volume += a.dot(b.cross(c)) / 6.0;
        area += 0.5 * (b - a).cross(c - a).norm();
        for (int e = 0; e < 3; ++e)
            ++edges[{t[e], t[(e + 1) % 3]}];
    }
    EXPECT_NEAR(volume, extent.prod(), 1e-9);
    EXPECT_NEAR(area, 2.0 * (extent.x() * extent.y() + extent.y() * extent.z() + extent.z() * extent.x()),
                1e-9);
    for (const auto& [edge, count] : edges) // each directed edge once, its reverse once: closed, consistent
    {
        EXPECT_EQ(count, 1);
        EXPECT_EQ(edges.count({edge.second, edge.first}), 1u);
    }
    for (std::size_t v = 0; v < boundary.positions.size(); ++v)
        EXPECT_EQ(boundary.positions[v], mesh.positions[boundary.nodeOfVertex[v]].cast<float>());
}

TEST(TetMesh, RemoveUnusedNodesRenumbers)
{
    TetMesh mesh;
    mesh.positions = {Vec3d(9, 9, 9), Vec3d(0, 0, 0), Vec3d(1, 0, 0), Vec3d(0, 1, 0), Vec3d(0, 0, 1)};
    mesh.tets = {{1, 2, 3, 4}};
    EXPECT_EQ(RemoveUnusedNodes(mesh), 1u);
    EXPECT_EQ(mesh.positions.size(), 4u);
    EXPECT_EQ(mesh.tets[0], (std::array<std::uint32_t, 4>{0, 1, 2, 3}));
    EXPECT_EQ(mesh.positions[0], Vec3d(0, 0, 0));
}

TEST(TetMesh, BadFilesGiveOneLineErrors)
{
    const std::string folder = test::ScratchFolder("tet_bad");
    const std::string header =
        "# vtk DataFile Version 2.0\ntitle POINTS CELLS\nASCII\nDATASET UNSTRUCTURED_GRID\n";
    const std::string points = "POINTS 4 double\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n";
    struct Case
    {
        const char* name;
        std::string text;
        const char* expected;
    };
    WriteText(folder + "/good.vtk", header + points + "CELLS 1 5\n4 0 1 2 3\nCELL_TYPES 1\n10\n");
    EXPECT_EQ(LoadError(folder + "/good.vtk"), ""); // the well-formed file the bad ones are cut from loads
    const Case cases[] = {
        {"truncated.vtk", header + "POINTS 4 double\n0 0 0\n1 0", "is more than the file holds"},
        {"short.vtk", header + points + "CELLS 1 5\n4 0 1 2", "truncated"},
        {"index.vtk", header + points + "CELLS 1 5\n4 0 1 2 4\n", "out of range"},
        {"triangle.vtk", header + points + "CELLS 1 4\n3 0 1 2\n", "only tetrahedra"},
        {"type.vtk", header + points + "CELLS 1 5\n4 0 1 2 3\nCELL_TYPES 1\n9\n", "not a tetrahedron"},
        {"flat.vtk", header + "POINTS 4 double\n0 0 0\n1 0 0\n0 1 0\n1 1 0\nCELLS 1 5\n4 0 1 2 3\n",
         "zero volume"},
        {"nan.vtk", header + "POINTS 4 double\n0 0 0\nnan 0 0\n0 1 0\n0 0 1\n", "non-finite"},
        {"binary.vtk", "# vtk DataFile Version 2.0\nt\nBINARY\n", "only ASCII"},
        {"notvtk.vtk", "hello\n", "not a legacy VTK"},
        {"huge.vtk", header + "POINTS 99999999999 double\n", "more than the file holds"},
        {"nocells.vtk", header + points, "no POINTS or no CELLS"},
        {"word.vtk", header + "POINTS 4 double\n0 0 0\n1 zero 0\n0 1 0\n0 0 1\n", "expected coordinate"},
        {"mesh.obj", "v 0 0 0\n", "unknown tetrahedral mesh format"},
    };
    for (const Case& c : cases)
    {
        WriteText(folder + "/" + c.name, c.text);
        const std::string message = LoadError(folder + "/" + c.name);
        EXPECT_NE(message.find(c.expected), std::string::npos) << c.name << ": " << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << c.name;
    }
    EXPECT_NE(LoadError(folder + "/missing.vtk").find("no such file"), std::string::npos);
    // TetGen: a missing .ele is named; an .ele index beyond the nodes; a node index out of sequence.
    WriteText(folder + "/alone.node", "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n");
    EXPECT_NE(LoadError(folder + "/alone.node").find("alone.ele: no such file"), std::string::npos);
    WriteText(folder + "/far.node", "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n");
    WriteText(folder + "/far.ele", "1 4 0\n0 0 1 2 4\n");
    EXPECT_NE(LoadError(folder + "/far.node").find("far.ele: line 2: node index 4 is out of range"),
              std::string::npos)
        << LoadError(folder + "/far.node");
    WriteText(folder + "/order.node", "4 3 0 0\n0 0 0 0\n2 1 0 0\n1 0 1 0\n3 0 0 1\n");
    EXPECT_NE(LoadError(folder + "/order.node").find("out of sequence"), std::string::npos);
    WriteText(folder + "/dim.node", "4 2 0 0\n0 0 0\n1 1 0\n2 0 1\n3 1 1\n");
    EXPECT_NE(LoadError(folder + "/dim.node").find("dimension 2 is not 3"), std::string::npos);
}

} // namespace
} // namespace bdt
