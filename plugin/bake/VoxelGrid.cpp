// Solid voxelisation of a triangle mesh by axis-aligned ray votes, with a shell fallback for open meshes.

#include "core/geometry/ExactPredicates.h"

#include <algorithm>
#include <bdt/bake/VoxelGrid.h>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <string>
#include <unordered_map>
#include <utility>

namespace bdt
{

std::size_t VoxelGrid::SolidCount() const
{
    return std::size_t(std::count(solid.begin(), solid.end(), std::uint8_t(1)));
}

namespace
{

constexpr double cMaxCells = double(1u << 28);

void CheckMesh(std::span<const Vec3f> inPositions, std::span<const Triangle> inTriangles)
{
    if (inPositions.empty() || inTriangles.empty())
        throw Error("the mesh is empty (" + std::to_string(inPositions.size()) + " vertices, " +
                    std::to_string(inTriangles.size()) + " triangles)");
    for (std::size_t i = 0; i < inPositions.size(); ++i)
        if (!inPositions[i].allFinite())
            throw Error("vertex " + std::to_string(i) + " is not finite");
    for (std::size_t t = 0; t < inTriangles.size(); ++t)
        for (std::uint32_t v : inTriangles[t])
            if (v >= inPositions.size())
                throw Error("triangle " + std::to_string(t) + " has vertex index " + std::to_string(v) +
                            " out of range (" + std::to_string(inPositions.size()) + " vertices)");
}

Vec3d Position(std::span<const Vec3f> inPositions, std::uint32_t inIndex)
{
    return inPositions[inIndex].cast<double>();
}

std::size_t CountBoundaryEdges(std::span<const Triangle> inTriangles)
{
    std::unordered_map<std::uint64_t, std::uint32_t> uses;
    uses.reserve(inTriangles.size() * 3);
    for (const Triangle& t : inTriangles)
        for (int e = 0; e < 3; ++e)
        {
            const std::uint32_t a = t[e], b = t[(e + 1) % 3];
            if (a == b)
                continue;
            ++uses[(std::uint64_t(std::min(a, b)) << 32) | std::max(a, b)];
        }
    return std::size_t(
        std::count_if(uses.begin(), uses.end(), [](const auto& inUse) { return inUse.second == 1; }));
}

// Does the ray through the 2D point `inX` (exactly) pierce the projected triangle `inP`, counter-clockwise?
// Points on an edge belong to the triangle only for edges running "down" (or right, if horizontal): of two
// triangles sharing an edge from opposite sides, exactly one owns it, so a ray through it counts one
// crossing; two sheets folding over the edge from the same side count two or none.
bool PierceCounterClockwise(const Vec2d (&inP)[3], const Vec2d& inX)
{
    for (int e = 0; e < 3; ++e)
    {
        const Vec2d& a = inP[e];
        const Vec2d& b = inP[(e + 1) % 3];
        const int side = Orient2D(a, b, inX);
        if (side < 0)
            return false;
        if (side == 0)
        {
            const Vec2d d = b - a;
            const bool owned = d.y() < 0.0 || (d.y() == 0.0 && d.x() > 0.0);
            if (!owned)
                return false;
        }
    }
    return true;
}

// A crossing of a ray (column) with the surface: the column and the coordinate along the ray's axis.
struct Crossing
{
    std::uint32_t column;
    double along;
    bool operator<(const Crossing& inOther) const
    {
        return column != inOther.column ? column < inOther.column : along < inOther.along;
    }
};

// Votes of the rays along `inAxis`: +1 to each cell a ray puts inside, −1 to each it puts outside; rays with
// an odd number of crossings leave their cells alone. Returns the number of such rays.
std::size_t VoteAlongAxis(std::span<const Vec3f> inPositions, std::span<const Triangle> inTriangles,
                          const VoxelGrid& inGrid, int inAxis, std::vector<std::int8_t>& ioVotes)
{
    const int u = (inAxis + 1) % 3, v = (inAxis + 2) % 3;
    const std::uint32_t nu = inGrid.cells[u], nv = inGrid.cells[v], na = inGrid.cells[inAxis];
    const double h = inGrid.cellSize;
    std::vector<Crossing> crossings;
    for (const Triangle& t : inTriangles)
    {
        Vec3d p[3];
        Vec2d q[3];
        for (int k = 0; k < 3; ++k)
        {
            p[k] = Position(inPositions, t[k]);
            q[k] = Vec2d(p[k][u], p[k][v]);
        }
        const int orientation = Orient2D(q[0], q[1], q[2]);
        if (orientation == 0)
            continue; // edge-on to the rays
        if (orientation < 0)
        {
            std::swap(q[1], q[2]);
            std::swap(p[1], p[2]);
        }
        // Columns whose centres origin + (i + ½)h fall in the triangle's 2D box.
        const auto range = [&](int inDim, double inLow, double inHigh, std::uint32_t inCount)
        {
            const double o = inGrid.origin[inDim];
            const double first = std::ceil((inLow - o) / h - 0.5);
            const double last = std::floor((inHigh - o) / h - 0.5);
            const auto lo = std::uint32_t(std::clamp(first, 0.0, double(inCount)));
            const auto hi = std::uint32_t(std::clamp(last + 1.0, 0.0, double(inCount)));
            return std::pair<std::uint32_t, std::uint32_t>(lo, hi);
        };
        const auto [iu0, iu1] =
            range(u, std::min({q[0].x(), q[1].x(), q[2].x()}), std::max({q[0].x(), q[1].x(), q[2].x()}), nu);
        const auto [iv0, iv1] =
            range(v, std::min({q[0].y(), q[1].y(), q[2].y()}), std::max({q[0].y(), q[1].y(), q[2].y()}), nv);
        const double area = (q[1] - q[0]).x() * (q[2] - q[0]).y() - (q[1] - q[0]).y() * (q[2] - q[0]).x();
        for (std::uint32_t iv = iv0; iv < iv1; ++iv)
            for (std::uint32_t iu = iu0; iu < iu1; ++iu)
            {
                const Vec2d x(inGrid.origin[u] + (iu + 0.5) * h, inGrid.origin[v] + (iv + 0.5) * h);
                if (!PierceCounterClockwise(q, x))
                    continue;
                // Barycentric coordinates (in double; only the crossing's position along the ray needs them).
                const auto cross = [](const Vec2d& inA, const Vec2d& inB)
                { return inA.x() * inB.y() - inA.y() * inB.x(); };
                const double w0 = cross(q[1] - x, q[2] - x) / area;
                const double w1 = cross(q[2] - x, q[0] - x) / area;
                const double w2 = 1.0 - w0 - w1;
                crossings.push_back(
                    {iu + nu * iv, w0 * p[0][inAxis] + w1 * p[1][inAxis] + w2 * p[2][inAxis]});
            }
    }
    std::sort(crossings.begin(), crossings.end());

    std::size_t undecided = 0;
    std::vector<double> along;
    for (std::uint32_t column = 0; column < nu * nv; ++column)
    {
        along.clear();
        const auto first = std::lower_bound(crossings.begin(), crossings.end(), Crossing{column, -INFINITY});
        for (auto it = first; it != crossings.end() && it->column == column; ++it)
            along.push_back(it->along);
        if (along.size() % 2 != 0)
        {
            ++undecided;
            continue;
        }
        const std::uint32_t iu = column % nu, iv = column / nu;
        std::size_t next = 0; // crossings before the current cell's centre
        for (std::uint32_t ia = 0; ia < na; ++ia)
        {
            const double centre = inGrid.origin[inAxis] + (ia + 0.5) * h;
            while (next < along.size() && along[next] < centre)
                ++next;
            std::uint32_t ijk[3];
            ijk[inAxis] = ia;
            ijk[u] = iu;
            ijk[v] = iv;
            ioVotes[inGrid.CellIndex(ijk[0], ijk[1], ijk[2])] += (next % 2 == 1) ? 1 : -1;
        }
    }
    return undecided;
}

// Does the triangle touch the closed cube of half-size `inHalf` centred at the origin? Separating axes: the
// cube's three, the triangle's normal and the nine edge × axis products. Touching counts, so the cells of a
// surface passing through a cell edge or corner all count and the shell stays face-connected.
bool TriangleTouchesCube(const Vec3d (&inV)[3], double inHalf)
{
    for (int d = 0; d < 3; ++d)
        if (std::min({inV[0][d], inV[1][d], inV[2][d]}) > inHalf ||
            std::max({inV[0][d], inV[1][d], inV[2][d]}) < -inHalf)
            return false;
    const Vec3d edges[3] = {inV[1] - inV[0], inV[2] - inV[1], inV[0] - inV[2]};
    const auto separates = [&](const Vec3d& inAxis)
    {
        const double reach = inHalf * inAxis.cwiseAbs().sum();
        const double p0 = inAxis.dot(inV[0]), p1 = inAxis.dot(inV[1]), p2 = inAxis.dot(inV[2]);
        return std::min({p0, p1, p2}) > reach || std::max({p0, p1, p2}) < -reach;
    };
    if (separates(edges[0].cross(edges[1])))
        return false;
    for (const Vec3d& edge : edges)
        for (int d = 0; d < 3; ++d)
            if (separates(edge.cross(Vec3d::Unit(d))))
                return false;
    return true;
}

// The cells each triangle touches (exactly, by separating axes over the cells of its box).
void MarkSurfaceCells(std::span<const Vec3f> inPositions, std::span<const Triangle> inTriangles,
                      const VoxelGrid& inGrid, std::vector<std::uint8_t>& outMask)
{
    outMask.assign(inGrid.CellCount(), 0);
    const double h = inGrid.cellSize;
    for (const Triangle& t : inTriangles)
    {
        const Vec3d v[3] = {Position(inPositions, t[0]), Position(inPositions, t[1]),
                            Position(inPositions, t[2])};
        std::uint32_t lo[3], hi[3];
        for (int d = 0; d < 3; ++d)
        {
            const double low = (std::min({v[0][d], v[1][d], v[2][d]}) - inGrid.origin[d]) / h;
            const double high = (std::max({v[0][d], v[1][d], v[2][d]}) - inGrid.origin[d]) / h;
            lo[d] = std::uint32_t(std::clamp(std::floor(low) - 1.0, 0.0, double(inGrid.cells[d] - 1)));
            hi[d] = std::uint32_t(std::clamp(std::floor(high) + 1.0, 0.0, double(inGrid.cells[d] - 1)));
        }
        for (std::uint32_t k = lo[2]; k <= hi[2]; ++k)
            for (std::uint32_t j = lo[1]; j <= hi[1]; ++j)
                for (std::uint32_t i = lo[0]; i <= hi[0]; ++i)
                {
                    const std::size_t cell = inGrid.CellIndex(i, j, k);
                    if (outMask[cell] != 0)
                        continue;
                    const Vec3d centre = inGrid.origin + h * Vec3d(i + 0.5, j + 0.5, k + 0.5);
                    const Vec3d local[3] = {v[0] - centre, v[1] - centre, v[2] - centre};
                    if (TriangleTouchesCube(local, 0.5 * h))
                        outMask[cell] = 1;
                }
    }
}

// Keeps the largest face-connected piece of solid cells; returns how many solid cells were removed.
std::size_t KeepLargestPiece(VoxelGrid& ioGrid)
{
    const std::size_t count = ioGrid.CellCount();
    std::vector<std::uint32_t> piece(count, 0); // 0: unvisited or empty; else piece number
    std::vector<std::size_t> sizes(1, 0);
    std::vector<std::size_t> stack;
    for (std::size_t seed = 0; seed < count; ++seed)
    {
        if (ioGrid.solid[seed] == 0 || piece[seed] != 0)
            continue;
        const auto label = std::uint32_t(sizes.size());
        sizes.push_back(0);
        piece[seed] = label;
        stack.assign(1, seed);
        while (!stack.empty())
        {
            const std::size_t cell = stack.back();
            stack.pop_back();
            ++sizes[label];
            ioGrid.ForFaceNeighbours(cell,
                                     [&](std::size_t inNeighbour)
                                     {
                                         if (ioGrid.solid[inNeighbour] != 0 && piece[inNeighbour] == 0)
                                         {
                                             piece[inNeighbour] = label;
                                             stack.push_back(inNeighbour);
                                         }
                                     });
        }
    }
    if (sizes.size() <= 2)
        return 0;
    const auto largest = std::uint32_t(std::max_element(sizes.begin() + 1, sizes.end()) - sizes.begin());
    std::size_t dropped = 0;
    for (std::size_t cell = 0; cell < count; ++cell)
        if (ioGrid.solid[cell] != 0 && piece[cell] != largest)
        {
            ioGrid.solid[cell] = 0;
            ++dropped;
        }
    return dropped;
}

} // namespace

double CellSizeForBudget(std::span<const Vec3f> inPositions, std::span<const Triangle> inTriangles,
                         double inTargetCells)
{
    CheckMesh(inPositions, inTriangles);
    if (!(inTargetCells >= 1.0))
        throw Error("the target cell count must be at least 1");
    double volume = 0.0, area = 0.0;
    for (const Triangle& t : inTriangles)
    {
        const Vec3d a = Position(inPositions, t[0]), b = Position(inPositions, t[1]),
                    c = Position(inPositions, t[2]);
        volume += a.dot(b.cross(c)) / 6.0;
        area += 0.5 * (b - a).cross(c - a).norm();
    }
    volume = std::abs(volume);
    Eigen::AlignedBox3d box;
    for (const Vec3f& p : inPositions)
        box.extend(p.cast<double>());
    const double longest = box.sizes().maxCoeff();
    if (!(longest > 0.0))
        throw Error("the mesh has no extent (all vertices coincide)");
    // A closed mesh encloses a volume comparable to its box's; an open one (or one wound inconsistently)
    // encloses next to nothing and is voxelised as a shell.
    const bool closed = CountBoundaryEdges(inTriangles) == 0 && volume > 1e-6 * box.volume();
    const double size = closed ? std::cbrt(volume / inTargetCells) : std::sqrt(area / inTargetCells);
    return size > 0.0 ? size : longest / std::cbrt(inTargetCells);
}

VoxelGrid VoxeliseSolid(std::span<const Vec3f> inPositions, std::span<const Triangle> inTriangles,
                        double inCellSize, VoxelReport* outReport)
{
    CheckMesh(inPositions, inTriangles);
    if (!(inCellSize > 0.0) || !std::isfinite(inCellSize))
        throw Error("the cell size must be positive and finite");
    Eigen::AlignedBox3d box;
    for (const Vec3f& p : inPositions)
        box.extend(p.cast<double>());

    VoxelGrid grid;
    grid.cellSize = inCellSize;
    double total = 1.0;
    Vec3d span;
    for (int d = 0; d < 3; ++d)
    {
        // Whole cells covering the extent (a flat axis gets one), centred on the box.
        // (Less a millionth: a float extent that is a whole number of cells must not gain one.)
        const double cells = std::max(1.0, std::ceil(box.sizes()[d] / inCellSize - 1e-6));
        total *= cells;
        if (total > cMaxCells)
            throw Error("the lattice would have more than 2^28 cells; use a coarser resolution");
        grid.cells[d] = std::uint32_t(cells);
        span[d] = cells * inCellSize;
    }
    grid.origin = box.center() - 0.5 * span;
    grid.solid.assign(grid.CellCount(), 0);

    VoxelReport report;
    std::vector<std::int8_t> votes(grid.CellCount(), 0);
    for (int axis = 0; axis < 3; ++axis)
        report.undecidedRays += VoteAlongAxis(inPositions, inTriangles, grid, axis, votes);
    for (std::size_t cell = 0; cell < votes.size(); ++cell)
        if (votes[cell] > 0)
            grid.solid[cell] = 1;
    report.insideCells = grid.SolidCount();
    report.boundaryEdges = CountBoundaryEdges(inTriangles);
    // A closed body a few cells thick has more cells inside than half the cells its surface passes through;
    // a sheet, or a body too thin for the lattice, has fewer: it becomes (or gains) its shell.
    std::vector<std::uint8_t> shell;
    MarkSurfaceCells(inPositions, inTriangles, grid, shell);
    const auto shellCells = std::size_t(std::count(shell.begin(), shell.end(), std::uint8_t(1)));
    if (2 * report.insideCells < shellCells)
    {
        for (std::size_t cell = 0; cell < shell.size(); ++cell)
            grid.solid[cell] |= shell[cell];
        report.shellFallback = true;
    }
    report.droppedCells = KeepLargestPiece(grid);
    if (grid.SolidCount() == 0)
        throw Error("no solid cell: the mesh encloses no volume at this resolution");
    if (outReport != nullptr)
        *outReport = report;
    return grid;
}

} // namespace bdt
