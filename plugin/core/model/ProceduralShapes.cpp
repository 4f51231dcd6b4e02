#include <bdt/core/base/Error.h>
#include <bdt/core/model/ProceduralShapes.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <string>
#include <unordered_map>

namespace bdt
{

namespace
{

constexpr std::uint32_t cMaxTargetTriangles = 50'000'000;
constexpr double cPi = std::numbers::pi;

struct NamedShape
{
    EShape shape;
    const char* name;
};

constexpr std::array<NamedShape, 8> cShapeNames = {{{EShape::Chair, "chair"},
                                                    {EShape::Curtain, "curtain"},
                                                    {EShape::Beam, "beam"},
                                                    {EShape::Box, "box"},
                                                    {EShape::Sphere, "sphere"},
                                                    {EShape::Torus, "torus"},
                                                    {EShape::Pawn, "pawn"},
                                                    {EShape::Slab, "slab"}}};

// Cell counts of a box surface grid along x, y and z.
using GridCounts = std::array<std::uint32_t, 3>;

std::uint64_t BoxSurfaceTriangles(const GridCounts& inCounts)
{
    const std::uint64_t a = inCounts[0], b = inCounts[1], c = inCounts[2];
    return 4 * (a * b + b * c + c * a);
}

// Cell counts for a box of extents `inSize` whose surface has about `inTarget` triangles with cells as close
// to square as the target allows. The two shorter axes are searched around their ideal counts and the
// longest one is solved from the target, so the count steps by 4·(b + c): within a few percent of any
// target of at least 100 triangles per box.
GridCounts ChooseBoxGrid(const Vec3d& inSize, double inTarget)
{
    std::array<int, 3> order = {0, 1, 2};
    std::sort(order.begin(), order.end(), [&](int inA, int inB) { return inSize[inA] > inSize[inB]; });
    const double pairs = inSize[0] * inSize[1] + inSize[1] * inSize[2] + inSize[2] * inSize[0];
    const double cell = std::sqrt(4.0 * pairs / std::max(inTarget, 12.0));
    GridCounts best = {1, 1, 1};
    double bestScore = std::numeric_limits<double>::max();
    const auto ideal = [&](int inAxis) { return inSize[inAxis] / cell; };
    for (int db = -2; db <= 2; ++db)
        for (int dc = -2; dc <= 2; ++dc)
        {
            const double b = std::max(1.0, std::floor(ideal(order[1])) + db);
            const double c = std::max(1.0, std::floor(ideal(order[2])) + dc);
            const double a = std::max(1.0, std::round((inTarget / 4.0 - b * c) / (b + c)));
            GridCounts counts;
            counts[order[0]] = std::uint32_t(a);
            counts[order[1]] = std::uint32_t(b);
            counts[order[2]] = std::uint32_t(c);
            // Relative count error first; cell anisotropy (log of the cell aspect ratios) breaks near-ties.
            double anisotropy = 0.0;
            for (int axis = 0; axis < 3; ++axis)
                anisotropy += std::abs(std::log(counts[axis] / ideal(axis)));
            const double error = std::abs(double(BoxSurfaceTriangles(counts)) - inTarget) / inTarget;
            const double score = error + 0.01 * anisotropy;
            if (score < bestScore)
            {
                bestScore = score;
                best = counts;
            }
        }
    return best;
}

// Appends the surface of a box lattice with `inCounts` cells, vertices shared between faces. `inMap` maps
// a lattice point, each coordinate in [-1, 1] (uniform per axis), to a position. Triangles are
// counter-clockwise seen from outside the lattice box, so any orientation-preserving map keeps them outward.
void AppendBoxSurface(const GridCounts& inCounts, const std::function<Vec3f(const Vec3d&)>& inMap,
                      ShapeMesh& ioMesh)
{
    std::unordered_map<std::uint64_t, std::uint32_t> index;
    index.reserve(std::size_t(BoxSurfaceTriangles(inCounts) / 2 + 8));
    const auto vertex = [&](std::array<std::uint32_t, 3> inCell) -> std::uint32_t
    {
        const std::uint64_t key =
            (std::uint64_t(inCell[0]) << 42) | (std::uint64_t(inCell[1]) << 21) | inCell[2];
        const auto [it, inserted] = index.try_emplace(key, std::uint32_t(ioMesh.positions.size()));
        if (inserted)
        {
            Vec3d unit;
            for (int axis = 0; axis < 3; ++axis)
                unit[axis] = 2.0 * inCell[axis] / inCounts[axis] - 1.0;
            ioMesh.positions.push_back(inMap(unit));
        }
        return it->second;
    };
    for (int axis = 0; axis < 3; ++axis)
    {
        // Tangent axes u, v with u × v = +axis.
        const int u = (axis + 1) % 3, v = (axis + 2) % 3;
        for (std::uint32_t side = 0; side < 2; ++side)
            for (std::uint32_t i = 0; i < inCounts[u]; ++i)
                for (std::uint32_t j = 0; j < inCounts[v]; ++j)
                {
                    std::array<std::uint32_t, 4> corner;
                    for (std::uint32_t k = 0; k < 4; ++k)
                    {
                        std::array<std::uint32_t, 3> cell;
                        cell[axis] = side * inCounts[axis];
                        cell[u] = i + ((k == 1 || k == 2) ? 1 : 0);
                        cell[v] = j + (k >= 2 ? 1 : 0);
                        corner[k] = vertex(cell);
                    }
                    // Quad (i,j) (i+1,j) (i+1,j+1) (i,j+1) is CCW about +axis; reversed on the low side.
                    if (side == 1)
                    {
                        ioMesh.triangles.push_back({corner[0], corner[1], corner[2]});
                        ioMesh.triangles.push_back({corner[0], corner[2], corner[3]});
                    }
                    else
                    {
                        ioMesh.triangles.push_back({corner[0], corner[2], corner[1]});
                        ioMesh.triangles.push_back({corner[0], corner[3], corner[2]});
                    }
                }
    }
}

// An axis-aligned box of extents `inSize` centred on `inCenter`, about `inTarget` triangles.
void AppendBox(const Vec3d& inCenter, const Vec3d& inSize, double inTarget, ShapeMesh& ioMesh)
{
    const GridCounts counts = ChooseBoxGrid(inSize, inTarget);
    AppendBoxSurface(
        counts,
        [&](const Vec3d& inUnit) -> Vec3f
        { return (inCenter + 0.5 * inUnit.cwiseProduct(inSize)).cast<float>(); },
        ioMesh);
}

ShapeMesh MakeBoxShape(double inTarget)
{
    ShapeMesh mesh;
    AppendBox(Vec3d::Zero(), Vec3d::Ones(), inTarget, mesh);
    return mesh;
}

ShapeMesh MakeBeam(double inTarget)
{
    ShapeMesh mesh;
    AppendBox(Vec3d::Zero(), Vec3d(2.0, 0.2, 0.2), inTarget, mesh);
    return mesh;
}

// A 1 × 0.1 × 1 plate: `ChooseBoxGrid` keeps its cells about square, so y gets about a tenth of x's and z's.
ShapeMesh MakeSlab(double inTarget)
{
    ShapeMesh mesh;
    AppendBox(Vec3d::Zero(), Vec3d(1.0, 0.1, 1.0), inTarget, mesh);
    return mesh;
}

// Cube-sphere of radius 0.5: the cube lattice warped by tan (more even cells) and projected radially.
ShapeMesh MakeSphere(double inTarget)
{
    GridCounts counts = ChooseBoxGrid(Vec3d::Ones(), std::max(inTarget, 48.0));
    for (std::uint32_t& count : counts)
        count = std::max<std::uint32_t>(count, 2);
    ShapeMesh mesh;
    AppendBoxSurface(
        counts,
        [](const Vec3d& inUnit) -> Vec3f
        {
            const Vec3d warped = inUnit.unaryExpr([](double inX) { return std::tan(0.25 * cPi * inX); });
            return (0.5 * warped.normalized()).cast<float>();
        },
        mesh);
    return mesh;
}

// A chair made of `ChairParts`: six closed boxes that overlap slightly where they join, as modelled furniture
// does. The target is shared between the parts in proportion to their surface areas.
ShapeMesh MakeChair(double inTarget)
{
    const std::vector<BoxPart> parts = ChairParts();
    double totalArea = 0.0;
    for (const BoxPart& part : parts)
        totalArea += 2.0 * (part.size.x() * part.size.y() + part.size.y() * part.size.z() +
                            part.size.z() * part.size.x());
    ShapeMesh mesh;
    for (const BoxPart& part : parts)
    {
        const Vec3d& s = part.size;
        const double area = 2.0 * (s.x() * s.y() + s.y() * s.z() + s.z() * s.x());
        AppendBox(part.center, s, inTarget * area / totalArea, mesh);
    }
    return mesh;
}

// A 2 m × 2.5 m cloth in the x-y plane with vertical folds of 3 cm amplitude in z, hanging from y = 1.25.
ShapeMesh MakeCurtain(double inTarget)
{
    constexpr double width = 2.0, height = 2.5, fold = 0.03, folds = 5.0;
    const double quads = std::max(inTarget, 2.0) / 2.0;
    const double idealX = std::sqrt(quads * width / height);
    std::uint32_t bestX = 1, bestY = 1;
    double bestError = std::numeric_limits<double>::max();
    for (int dx = -3; dx <= 3; ++dx)
    {
        const double nx = std::max(1.0, std::round(idealX) + dx);
        const double ny = std::max(1.0, std::round(quads / nx));
        const double error = std::abs(nx * ny - quads) + 1e-3 * std::abs(nx - idealX);
        if (error < bestError)
        {
            bestError = error;
            bestX = std::uint32_t(nx);
            bestY = std::uint32_t(ny);
        }
    }
    ShapeMesh mesh;
    for (std::uint32_t j = 0; j <= bestY; ++j)
        for (std::uint32_t i = 0; i <= bestX; ++i)
        {
            const double x = width * (double(i) / bestX - 0.5);
            const double y = height * (double(j) / bestY - 0.5);
            const double z = fold * std::sin(2.0 * cPi * folds * x / width);
            mesh.positions.push_back(Vec3d(x, y, z).cast<float>());
        }
    const auto at = [&](std::uint32_t inI, std::uint32_t inJ) { return inJ * (bestX + 1) + inI; };
    for (std::uint32_t j = 0; j < bestY; ++j)
        for (std::uint32_t i = 0; i < bestX; ++i)
        {
            // Counter-clockwise seen from +z; the diagonal alternates to keep the folds symmetric.
            if ((i + j) % 2 == 0)
            {
                mesh.triangles.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
                mesh.triangles.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
            }
            else
            {
                mesh.triangles.push_back({at(i, j), at(i + 1, j), at(i, j + 1)});
                mesh.triangles.push_back({at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)});
            }
        }
    return mesh;
}

// Surfaces of revolution about y (torus, pawn) are built from rings joined by bands.

// Appends triangles joining ring `inA` to ring `inB` (each `inSlices` vertices starting at the given index,
// going around +y counter-clockwise seen from above); `inA` is the lower ring on an outward surface.
void AppendBand(std::uint32_t inA, std::uint32_t inB, std::uint32_t inSlices, ShapeMesh& ioMesh)
{
    for (std::uint32_t s = 0; s < inSlices; ++s)
    {
        const std::uint32_t next = (s + 1) % inSlices;
        ioMesh.triangles.push_back({inA + s, inB + s, inA + next});
        ioMesh.triangles.push_back({inA + next, inB + s, inB + next});
    }
}

// A ring of `inSlices` vertices at radius `inRadius` and height `inY` about the y axis.
std::uint32_t AppendRing(double inRadius, double inY, std::uint32_t inSlices, ShapeMesh& ioMesh)
{
    const std::uint32_t first = std::uint32_t(ioMesh.positions.size());
    for (std::uint32_t s = 0; s < inSlices; ++s)
    {
        // Angle increasing from +x towards +z, which makes the band winding above face outward.
        const double angle = 2.0 * cPi * s / inSlices;
        ioMesh.positions.push_back(
            Vec3d(inRadius * std::cos(angle), inY, inRadius * std::sin(angle)).cast<float>());
    }
    return first;
}

// Ring torus about y, major radius 0.5 m, minor radius 0.15 m: 2·U·V triangles.
ShapeMesh MakeTorus(double inTarget)
{
    constexpr double major = 0.5, minor = 0.15;
    const double target = std::max(inTarget, 18.0);
    const std::uint32_t v =
        std::max<std::uint32_t>(3, std::uint32_t(std::lround(std::sqrt(target * minor / (2.0 * major)))));
    const std::uint32_t u = std::max<std::uint32_t>(3, std::uint32_t(std::lround(target / (2.0 * v))));
    ShapeMesh mesh;
    std::vector<std::uint32_t> rings;
    for (std::uint32_t j = 0; j < v; ++j)
    {
        // Around the tube: starting outside, going up over the top, so consecutive rings wind outward.
        const double phi = 2.0 * cPi * j / v;
        rings.push_back(AppendRing(major + minor * std::cos(phi), minor * std::sin(phi), u, mesh));
    }
    for (std::uint32_t j = 0; j < v; ++j)
        AppendBand(rings[j], rings[(j + 1) % v], u, mesh);
    return mesh;
}

// Pawn profile (radius, height) in metres from the bottom pole to the start of the head, then the head as
// a sphere of radius 0.16 m centred 0.80 m up; height 0.96 m before centring.
std::vector<Vec3d> PawnProfile()
{
    std::vector<Vec3d> profile = {{0.0, 0.0, 0.0},   {0.30, 0.0, 0.0},  {0.30, 0.05, 0.0}, {0.27, 0.09, 0.0},
                                  {0.23, 0.11, 0.0}, {0.23, 0.14, 0.0}, {0.18, 0.18, 0.0}, {0.14, 0.30, 0.0},
                                  {0.11, 0.45, 0.0}, {0.10, 0.56, 0.0}, {0.19, 0.59, 0.0}, {0.19, 0.63, 0.0},
                                  {0.09, 0.66, 0.0}};
    constexpr double headY = 0.80, headRadius = 0.16;
    const double start = std::asin((profile.back().y() - headY) / headRadius);
    constexpr int arcPoints = 48;
    for (int k = 1; k <= arcPoints; ++k)
    {
        const double angle = start + (0.5 * cPi - start) * k / arcPoints;
        profile.push_back({headRadius * std::cos(angle), headY + headRadius * std::sin(angle), 0.0});
    }
    profile.back().x() = 0.0; // Exact top pole.
    return profile;
}

// Chess pawn as a surface of revolution about y: `K` rings between two pole vertices, `S` slices,
// 2·S·K triangles. Rings are spaced evenly along the profile's arc length.
ShapeMesh MakePawn(double inTarget)
{
    const std::vector<Vec3d> profile = PawnProfile();
    std::vector<double> arc(1, 0.0);
    for (std::size_t i = 1; i < profile.size(); ++i)
        arc.push_back(arc.back() + (profile[i] - profile[i - 1]).norm());
    // Circumference at the widest point vs profile length sets the slice-to-ring ratio for square cells.
    const double ratio = 2.0 * cPi * 0.3 / arc.back();
    const double target = std::max(inTarget, 48.0);
    const std::uint32_t rings =
        std::max<std::uint32_t>(3, std::uint32_t(std::lround(std::sqrt(target / (2.0 * ratio)))));
    const std::uint32_t slices =
        std::max<std::uint32_t>(4, std::uint32_t(std::lround(target / (2.0 * rings))));
    ShapeMesh mesh;
    mesh.positions.push_back(Vec3f(0.0f, float(-0.48), 0.0f));
    std::size_t segment = 1;
    std::vector<std::uint32_t> ringStart;
    for (std::uint32_t k = 1; k <= rings; ++k)
    {
        const double s = arc.back() * k / (rings + 1);
        while (arc[segment] < s)
            ++segment;
        const double t = (s - arc[segment - 1]) / (arc[segment] - arc[segment - 1]);
        const Vec3d point = profile[segment - 1] + t * (profile[segment] - profile[segment - 1]);
        ringStart.push_back(AppendRing(point.x(), point.y() - 0.48, slices, mesh));
    }
    const std::uint32_t top = std::uint32_t(mesh.positions.size());
    mesh.positions.push_back(Vec3f(0.0f, float(0.96 - 0.48), 0.0f));
    for (std::uint32_t s = 0; s < slices; ++s)
    {
        const std::uint32_t next = (s + 1) % slices;
        mesh.triangles.push_back({0, ringStart.front() + s, ringStart.front() + next});
        mesh.triangles.push_back({ringStart.back() + next, ringStart.back() + s, top});
    }
    for (std::uint32_t k = 0; k + 1 < rings; ++k)
        AppendBand(ringStart[k], ringStart[k + 1], slices, mesh);
    return mesh;
}

} // namespace

std::vector<BoxPart> ChairParts()
{
    // 0.45 m wide and deep, seat top at 0.45 m, back top at 0.9 m; built upright, then centred on the chair's
    // half height.
    constexpr double width = 0.45, seatThickness = 0.04, seatTop = 0.45, height = 0.9, leg = 0.04,
                     back = 0.04;
    const Vec3d center(0.0, 0.5 * height, 0.0);
    std::vector<BoxPart> parts;
    parts.push_back({Vec3d(0.0, seatTop - 0.5 * seatThickness, 0.0) - center, {width, seatThickness, width}});
    const double backBottom = seatTop - 0.5 * seatThickness;
    parts.push_back({Vec3d(0.0, 0.5 * (backBottom + height), -0.5 * (width - back)) - center,
                     {width, height - backBottom, back}});
    const double legTop = seatTop - 0.5 * seatThickness; // Legs reach into the middle of the seat.
    for (const double x : {-1.0, 1.0})
        for (const double z : {-1.0, 1.0})
            parts.push_back({Vec3d(x * 0.5 * (width - leg), 0.5 * legTop, z * 0.5 * (width - leg)) - center,
                             {leg, legTop, leg}});
    return parts;
}

std::optional<EShape> ShapeFromName(std::string_view inName)
{
    for (const NamedShape& named : cShapeNames)
        if (inName == named.name)
            return named.shape;
    return std::nullopt;
}

const char* ShapeName(EShape inShape)
{
    for (const NamedShape& named : cShapeNames)
        if (named.shape == inShape)
            return named.name;
    return "unknown";
}

std::vector<EShape> AllShapes()
{
    std::vector<EShape> shapes;
    for (const NamedShape& named : cShapeNames)
        shapes.push_back(named.shape);
    return shapes;
}

ShapeMesh MakeShape(EShape inShape, std::uint32_t inTargetTriangles)
{
    if (inTargetTriangles > cMaxTargetTriangles)
        throw Error("shape target of " + std::to_string(inTargetTriangles) +
                    " triangles is above the limit of " + std::to_string(cMaxTargetTriangles));
    const double target = std::max(double(inTargetTriangles), 1.0);
    switch (inShape)
    {
    case EShape::Chair:
        return MakeChair(target);
    case EShape::Curtain:
        return MakeCurtain(target);
    case EShape::Beam:
        return MakeBeam(target);
    case EShape::Box:
        return MakeBoxShape(target);
    case EShape::Sphere:
        return MakeSphere(target);
    case EShape::Torus:
        return MakeTorus(target);
    case EShape::Pawn:
        return MakePawn(target);
    case EShape::Slab:
        return MakeSlab(target);
    }
    throw Error("unknown shape");
}

} // namespace bdt
