// Tetrahedral meshes: TetGen and legacy VTK readers, a VTK writer, the boundary surface and the Kuhn split
// of a voxel lattice.

#include <algorithm>
#include <bdt/bake/TetMesh.h>
#include <bdt/core/base/Error.h>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

namespace bdt
{

namespace
{

/// The whole file. `inPrefix` starts the error messages ("" for the file the caller names).
std::string ReadText(const std::string& inPath, const std::string& inPrefix)
{
    std::error_code error;
    if (!std::filesystem::is_regular_file(inPath, error))
        throw Error(inPrefix + "no such file");
    std::ifstream file(inPath, std::ios::binary);
    if (!file)
        throw Error(inPrefix + "cannot be read");
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

/// Whitespace-separated tokens of a text file; `#` starts a comment to the end of the line. Errors name the
/// line, after `inPrefix` ("" for the file the caller names, "OTHER.ele: " for a companion file).
class Tokens
{
public:
    Tokens(std::string inPrefix, std::string inText) : mPrefix(std::move(inPrefix)), mText(std::move(inText))
    {
    }

    bool AtEnd()
    {
        Skip();
        return mAt >= mText.size();
    }

    std::string_view Next(const char* inWhat)
    {
        Skip();
        if (mAt >= mText.size())
            Fail(std::string("truncated: expected ") + inWhat);
        const std::size_t start = mAt;
        while (mAt < mText.size() && !IsSpace(mText[mAt]) && mText[mAt] != '#')
            ++mAt;
        return std::string_view(mText).substr(start, mAt - start);
    }

    double Real(const char* inWhat)
    {
        const std::string_view token = Next(inWhat);
        double value = 0.0;
        const auto [stop, error] = std::from_chars(token.data(), token.data() + token.size(), value);
        if (error != std::errc() || stop != token.data() + token.size())
            Fail(std::string("expected ") + inWhat + ", got '" + std::string(token) + "'");
        if (!std::isfinite(value))
            Fail(std::string("non-finite ") + inWhat);
        return value;
    }

    std::int64_t Integer(const char* inWhat, std::int64_t inMin, std::int64_t inMax)
    {
        const std::string_view token = Next(inWhat);
        std::int64_t value = 0;
        const auto [stop, error] = std::from_chars(token.data(), token.data() + token.size(), value);
        if (error != std::errc() || stop != token.data() + token.size())
            Fail(std::string("expected ") + inWhat + ", got '" + std::string(token) + "'");
        if (value < inMin || value > inMax)
            Fail(std::string(inWhat) + " " + std::to_string(value) + " is out of range [" +
                 std::to_string(inMin) + ", " + std::to_string(inMax) + "]");
        return value;
    }

    /// A count of records of `inTokensEach` tokens each: no more than the rest of the file can hold, so a
    /// corrupt header cannot make the reader allocate.
    std::size_t Count(const char* inWhat, std::size_t inTokensEach)
    {
        const std::int64_t count = Integer(inWhat, 0, std::int64_t(1) << 40);
        if (std::size_t(count) * inTokensEach * 2 > mText.size() - mAt + 1)
            Fail(std::string(inWhat) + " " + std::to_string(count) + " is more than the file holds");
        return std::size_t(count);
    }

    /// Skips the rest of the current line (VTK's header and title lines).
    void SkipLine()
    {
        while (mAt < mText.size() && mText[mAt] != '\n')
            ++mAt;
        if (mAt < mText.size())
            ++mAt;
    }

    [[noreturn]] void Fail(const std::string& inProblem) const
    {
        const auto line = 1 + std::count(mText.begin(), mText.begin() + std::ptrdiff_t(mAt), '\n');
        throw Error(mPrefix + "line " + std::to_string(line) + ": " + inProblem);
    }

    const std::string& Text() const { return mText; }

private:
    static bool IsSpace(char inC) { return inC == ' ' || inC == '\t' || inC == '\n' || inC == '\r'; }

    void Skip()
    {
        while (mAt < mText.size())
        {
            if (IsSpace(mText[mAt]))
                ++mAt;
            else if (mText[mAt] == '#')
                SkipLine();
            else
                break;
        }
    }

    std::string mPrefix;
    std::string mText;
    std::size_t mAt = 0;
};

void CheckTets(const TetMesh& inMesh, const std::string& inPrefix)
{
    if (inMesh.tets.empty())
        throw Error(inPrefix + "no tetrahedron");
    for (std::size_t t = 0; t < inMesh.tets.size(); ++t)
    {
        const auto& tet = inMesh.tets[t];
        const Vec3d& a = inMesh.positions[tet[0]];
        double longest = 0.0;
        for (int i = 0; i < 4; ++i)
            for (int j = i + 1; j < 4; ++j)
                longest = std::max(longest, (inMesh.positions[tet[i]] - inMesh.positions[tet[j]]).norm());
        const double sixVolume =
            TetSixVolume(a, inMesh.positions[tet[1]], inMesh.positions[tet[2]], inMesh.positions[tet[3]]);
        if (!(std::abs(sixVolume) > 1e-12 * longest * longest * longest))
            throw Error(inPrefix + "tetrahedron " + std::to_string(t) + " has zero volume");
    }
}

TetMesh LoadTetGen(const std::string& inNodePath)
{
    TetMesh mesh;
    Tokens node("", ReadText(inNodePath, ""));
    const std::size_t points = node.Count("node count", 4);
    const std::int64_t dimension = node.Integer("dimension", 0, 1 << 20);
    if (dimension != 3)
        node.Fail("dimension " + std::to_string(dimension) + " is not 3");
    const auto attributes = std::size_t(node.Integer("attribute count", 0, 1 << 20));
    const auto markers = std::size_t(node.Integer("boundary marker flag", 0, 1));
    mesh.positions.resize(points);
    std::int64_t base = 0;
    for (std::size_t i = 0; i < points; ++i)
    {
        const std::int64_t index = node.Integer("node index", 0, std::int64_t(points) + 1);
        if (i == 0)
            base = index;
        if (index != std::int64_t(i) + base || base > 1)
            node.Fail("node index " + std::to_string(index) + " out of sequence (expected " +
                      std::to_string(std::int64_t(i) + base) + ")");
        for (int axis = 0; axis < 3; ++axis)
            mesh.positions[i][axis] = node.Real("coordinate");
        for (std::size_t a = 0; a < attributes + markers; ++a)
            node.Real("attribute");
    }

    const std::string elePath = std::filesystem::path(inNodePath).replace_extension(".ele").string();
    const std::string elePrefix = elePath + ": ";
    Tokens ele(elePrefix, ReadText(elePath, elePrefix));
    const std::size_t tets = ele.Count("tetrahedron count", 5);
    const std::int64_t corners = ele.Integer("nodes per tetrahedron", 0, 1 << 20);
    if (corners != 4 && corners != 10)
        ele.Fail("nodes per tetrahedron must be 4 or 10, got " + std::to_string(corners));
    const auto eleAttributes = std::size_t(ele.Integer("attribute count", 0, 1 << 20));
    mesh.tets.resize(tets);
    for (std::size_t t = 0; t < tets; ++t)
    {
        ele.Integer("tetrahedron index", std::numeric_limits<std::int64_t>::min(),
                    std::numeric_limits<std::int64_t>::max());
        for (std::int64_t c = 0; c < corners; ++c)
        {
            const std::int64_t index = ele.Integer("node index", base, std::int64_t(points) - 1 + base);
            if (c < 4)
                mesh.tets[t][std::size_t(c)] = std::uint32_t(index - base);
        }
        for (std::size_t a = 0; a < eleAttributes; ++a)
            ele.Real("attribute");
    }
    CheckTets(mesh, elePrefix);
    return mesh;
}

TetMesh LoadVtk(const std::string& inPath)
{
    TetMesh mesh;
    Tokens vtk("", ReadText(inPath, ""));
    if (vtk.Text().rfind("# vtk DataFile", 0) != 0)
        vtk.Fail("not a legacy VTK file (no '# vtk DataFile' header)");
    vtk.SkipLine(); // header
    vtk.SkipLine(); // title, free text
    const std::string_view format = vtk.Next("ASCII");
    if (format != "ASCII")
        vtk.Fail("only ASCII VTK files are read, this one is " + std::string(format));
    if (vtk.Next("DATASET") != "DATASET" || vtk.Next("UNSTRUCTURED_GRID") != "UNSTRUCTURED_GRID")
        vtk.Fail("only DATASET UNSTRUCTURED_GRID is read");
    bool havePoints = false, haveCells = false, haveTypes = false;
    while (!vtk.AtEnd() && !(havePoints && haveCells && haveTypes))
    {
        const std::string_view keyword = vtk.Next("a section");
        if (keyword == "POINTS")
        {
            const std::size_t points = vtk.Count("point count", 3);
            vtk.Next("point type");
            mesh.positions.resize(points);
            for (Vec3d& p : mesh.positions)
                for (int axis = 0; axis < 3; ++axis)
                    p[axis] = vtk.Real("coordinate");
            havePoints = true;
        }
        else if (keyword == "CELLS")
        {
            if (!havePoints)
                vtk.Fail("CELLS before POINTS");
            const std::size_t cells = vtk.Count("cell count", 5);
            vtk.Integer("cell list size", 0, std::numeric_limits<std::int64_t>::max());
            mesh.tets.resize(cells);
            for (std::size_t c = 0; c < cells; ++c)
            {
                const std::int64_t corners = vtk.Integer("cell size", 0, 1 << 20);
                if (corners != 4)
                    vtk.Fail("cell " + std::to_string(c) + " has " + std::to_string(corners) +
                             " points: only tetrahedra are read");
                for (std::size_t i = 0; i < 4; ++i)
                    mesh.tets[c][i] =
                        std::uint32_t(vtk.Integer("point index", 0, std::int64_t(mesh.positions.size()) - 1));
            }
            haveCells = true;
        }
        else if (keyword == "CELL_TYPES")
        {
            const std::size_t types = vtk.Count("cell type count", 1);
            if (types != mesh.tets.size())
                vtk.Fail("CELL_TYPES lists " + std::to_string(types) + " cells, CELLS " +
                         std::to_string(mesh.tets.size()));
            for (std::size_t c = 0; c < types; ++c)
                if (vtk.Integer("cell type", 0, 1 << 20) != 10)
                    vtk.Fail("cell " + std::to_string(c) + " is not a tetrahedron (VTK type 10)");
            haveTypes = true;
        }
        else if (keyword == "OFFSETS" || keyword == "CONNECTIVITY")
            vtk.Fail("VTK 5 cell arrays (OFFSETS, CONNECTIVITY) are not read; save as legacy VTK 4.2");
        else
            break; // POINT_DATA, CELL_DATA, FIELD, ...: not needed
    }
    if (!havePoints || !haveCells)
        vtk.Fail("no POINTS or no CELLS section");
    CheckTets(mesh, "");
    return mesh;
}

} // namespace

double TetSixVolume(const Vec3d& inA, const Vec3d& inB, const Vec3d& inC, const Vec3d& inD)
{
    return (inB - inA).dot((inC - inA).cross(inD - inA));
}

TetMesh LoadTetMesh(const std::string& inPath)
{
    const std::string extension = std::filesystem::path(inPath).extension().string();
    if (extension == ".node")
        return LoadTetGen(inPath);
    if (extension == ".vtk")
        return LoadVtk(inPath);
    throw Error("unknown tetrahedral mesh format '" + extension +
                "' (TetGen .node with its .ele, or legacy VTK .vtk)");
}

void SaveVtkTets(const TetMesh& inMesh, const std::string& inPath)
{
    std::FILE* file = std::fopen(inPath.c_str(), "wb");
    if (file == nullptr)
        throw Error("cannot open for writing");
    std::fprintf(file,
                 "# vtk DataFile Version 2.0\nbdt volumetric model (tetrahedra)\nASCII\n"
                 "DATASET UNSTRUCTURED_GRID\nPOINTS %zu double\n",
                 inMesh.positions.size());
    for (const Vec3d& p : inMesh.positions)
        std::fprintf(file, "%.17g %.17g %.17g\n", p.x(), p.y(), p.z());
    std::fprintf(file, "CELLS %zu %zu\n", inMesh.tets.size(), 5 * inMesh.tets.size());
    for (const auto& t : inMesh.tets)
        std::fprintf(file, "4 %u %u %u %u\n", t[0], t[1], t[2], t[3]);
    std::fprintf(file, "CELL_TYPES %zu\n", inMesh.tets.size());
    for (std::size_t t = 0; t < inMesh.tets.size(); ++t)
        std::fputs("10\n", file);
    const bool failed = std::ferror(file) != 0;
    if (std::fclose(file) != 0 || failed)
        throw Error("write failed");
}

std::size_t RemoveUnusedNodes(TetMesh& ioMesh)
{
    std::vector<std::int64_t> newIndex(ioMesh.positions.size(), -1);
    for (const auto& tet : ioMesh.tets)
        for (std::uint32_t n : tet)
            newIndex[n] = 0;
    std::vector<Vec3d> kept;
    for (std::size_t n = 0; n < newIndex.size(); ++n)
        if (newIndex[n] == 0)
        {
            newIndex[n] = std::int64_t(kept.size());
            kept.push_back(ioMesh.positions[n]);
        }
    const std::size_t dropped = ioMesh.positions.size() - kept.size();
    for (auto& tet : ioMesh.tets)
        for (std::uint32_t& n : tet)
            n = std::uint32_t(newIndex[n]);
    ioMesh.positions = std::move(kept);
    return dropped;
}

TetBoundary ExtractTetBoundary(const TetMesh& inMesh)
{
    // Each face of each tetrahedron, keyed by its sorted nodes; faces seen once are on the boundary.
    static constexpr int cFaces[4][4] = {
        {1, 2, 3, 0}, {0, 3, 2, 1}, {0, 1, 3, 2}, {0, 2, 1, 3}}; // + opposite
    std::vector<std::array<std::uint32_t, 3>> keys;              // per tetrahedron and face
    keys.reserve(4 * inMesh.tets.size());
    std::map<std::array<std::uint32_t, 3>, std::uint32_t> seen; // key -> count
    for (const auto& tet : inMesh.tets)
        for (const auto& face : cFaces)
        {
            std::array<std::uint32_t, 3> key{tet[face[0]], tet[face[1]], tet[face[2]]};
            std::sort(key.begin(), key.end());
            ++seen[key];
            keys.push_back(key);
        }
    TetBoundary out;
    std::vector<std::int64_t> vertexOfNode(inMesh.positions.size(), -1);
    const auto vertex = [&](std::uint32_t inNode)
    {
        if (vertexOfNode[inNode] < 0)
        {
            vertexOfNode[inNode] = std::int64_t(out.positions.size());
            out.positions.push_back(inMesh.positions[inNode].cast<float>());
            out.nodeOfVertex.push_back(inNode);
        }
        return std::uint32_t(vertexOfNode[inNode]);
    };
    for (std::size_t t = 0; t < inMesh.tets.size(); ++t)
        for (int f = 0; f < 4; ++f)
        {
            if (seen.find(keys[4 * t + std::size_t(f)])->second != 1)
                continue;
            const auto& tet = inMesh.tets[t];
            const int* face = cFaces[f];
            std::uint32_t a = tet[face[0]], b = tet[face[1]], c = tet[face[2]];
            // Outwards: the fourth node must lie behind the face.
            if (TetSixVolume(inMesh.positions[a], inMesh.positions[b], inMesh.positions[c],
                             inMesh.positions[tet[face[3]]]) > 0.0)
                std::swap(b, c);
            out.triangles.push_back({vertex(a), vertex(b), vertex(c)});
        }
    if (out.triangles.empty())
        throw Error("the tetrahedral mesh has no boundary face");
    return out;
}

TetMesh LatticeTets(const VoxelGrid& inGrid, const std::vector<std::int64_t>& inNodeOfLattice,
                    const std::vector<std::uint32_t>& inLatticeOfNode, double inScale)
{
    const std::array<std::uint32_t, 3> n = inGrid.cells;
    TetMesh mesh;
    mesh.positions.reserve(inLatticeOfNode.size());
    for (std::uint32_t lattice : inLatticeOfNode)
    {
        const std::array<std::size_t, 3> l = inGrid.LatticeNodeIndices(lattice);
        const Vec3d ijk = Vec3d(double(l[0]), double(l[1]), double(l[2]));
        mesh.positions.push_back((inGrid.origin + inGrid.cellSize * ijk) * inScale);
    }
    // Kuhn: one tetrahedron per order of the three axes, along the path 0 → e_a → e_a + e_b → (1, 1, 1).
    static constexpr int cOrders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (std::uint32_t k = 0; k < n[2]; ++k)
        for (std::uint32_t j = 0; j < n[1]; ++j)
            for (std::uint32_t i = 0; i < n[0]; ++i)
            {
                if (inGrid.solid[inGrid.CellIndex(i, j, k)] == 0)
                    continue;
                const auto node = [&](int inCorner)
                { return std::uint32_t(inNodeOfLattice[inGrid.CornerNode(i, j, k, inCorner)]); };
                for (const auto& order : cOrders)
                {
                    const int c1 = 1 << order[0], c2 = c1 | (1 << order[1]);
                    mesh.tets.push_back({node(0), node(c1), node(c2), node(7)});
                }
            }
    return mesh;
}

} // namespace bdt
