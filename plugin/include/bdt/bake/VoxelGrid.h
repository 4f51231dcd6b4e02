#pragma once

#include <array>
#include <bdt/core/base/Math.h>
#include <bdt/core/model/Model.h>
#include <cstdint>
#include <span>
#include <vector>

namespace bdt
{

/// A lattice of cubic cells over a mesh, each solid or empty, mesh units: cell (i, j, k) spans
/// `origin + cellSize·([i, i+1] × [j, j+1] × [k, k+1])`; cells, and the (nx+1)(ny+1)(nz+1) lattice nodes
/// (corners), are numbered x fastest.
struct VoxelGrid
{
    Vec3d origin = Vec3d::Zero();         ///< Min corner of cell (0, 0, 0), mesh units.
    double cellSize = 0.0;                ///< Edge length of every cell, mesh units.
    std::array<std::uint32_t, 3> cells{}; ///< Cells along x, y and z.
    std::vector<std::uint8_t> solid;      ///< Per cell: 1 solid, 0 empty.

    std::size_t CellCount() const { return std::size_t(cells[0]) * cells[1] * cells[2]; }
    std::size_t CellIndex(std::uint32_t inI, std::uint32_t inJ, std::uint32_t inK) const
    {
        return inI + std::size_t(cells[0]) * (inJ + std::size_t(cells[1]) * inK);
    }
    /// Lattice nodes (cell corners), (nx+1)·(ny+1)·(nz+1).
    std::size_t LatticeNodeCount() const
    {
        return std::size_t(cells[0] + 1) * std::size_t(cells[1] + 1) * std::size_t(cells[2] + 1);
    }
    /// The index of lattice node (i, j, k), numbered x fastest like the cells.
    std::size_t LatticeNode(std::size_t inI, std::size_t inJ, std::size_t inK) const
    {
        return inI + std::size_t(cells[0] + 1) * (inJ + std::size_t(cells[1] + 1) * inK);
    }
    /// The (i, j, k) of lattice node `inNode`, the inverse of `LatticeNode`.
    std::array<std::size_t, 3> LatticeNodeIndices(std::size_t inNode) const
    {
        const std::size_t nx = cells[0] + 1, ny = cells[1] + 1;
        return {inNode % nx, (inNode / nx) % ny, inNode / (nx * ny)};
    }
    /// The lattice node at corner `inCorner` = dx + 2·dy + 4·dz (each 0 or 1) of cell (i, j, k).
    std::size_t CornerNode(std::size_t inI, std::size_t inJ, std::size_t inK, int inCorner) const
    {
        return LatticeNode(inI + std::size_t(inCorner & 1), inJ + std::size_t((inCorner >> 1) & 1),
                           inK + std::size_t((inCorner >> 2) & 1));
    }
    /// Number of solid cells. O(cells).
    std::size_t SolidCount() const;

    /// Calls `inVisit(neighbour)` with the index of each of the up to six cells sharing a face with `inCell`.
    template <class Visit> void ForFaceNeighbours(std::size_t inCell, Visit&& inVisit) const
    {
        const std::size_t layer = std::size_t(cells[0]) * cells[1];
        const std::size_t i = inCell % cells[0], j = (inCell / cells[0]) % cells[1], k = inCell / layer;
        if (i > 0)
            inVisit(inCell - 1);
        if (i + 1 < cells[0])
            inVisit(inCell + 1);
        if (j > 0)
            inVisit(inCell - cells[0]);
        if (j + 1 < cells[1])
            inVisit(inCell + cells[0]);
        if (k > 0)
            inVisit(inCell - layer);
        if (k + 1 < cells[2])
            inVisit(inCell + layer);
    }
};

/// What `VoxeliseSolid` found.
struct VoxelReport
{
    std::size_t insideCells = 0;   ///< Cells whose centre the ray votes put inside the mesh.
    std::size_t undecidedRays = 0; ///< Axis-aligned rays that crossed the surface an odd number of times.
    std::size_t boundaryEdges = 0; ///< Mesh edges with one triangle (0 for a closed mesh).
    bool shellFallback = false;    ///< The surface cells were added (a sheet, or too thin for the cells).
    std::size_t droppedCells = 0;  ///< Solid cells outside the largest face-connected piece, removed.
};

/// The cell size (mesh units) for about `inTargetCells` solid cells: (volume / target)^(1/3), or
/// √(area / target) for an open mesh. Throws `bdt::Error` for an empty mesh.
double CellSizeForBudget(std::span<const Vec3f> inPositions, std::span<const Triangle> inTriangles,
                         double inTargetCells);

/// Solid cells of `inCellSize` (mesh units) over the mesh's box: a majority vote of three exact axis rays per
/// cell centre; a sheet or a too-thin body gets its surface cells (`shellFallback`); the largest face-connected
/// piece is kept. O(T + cells). Throws `bdt::Error` for an empty mesh, a non-finite position, an index out of
/// range, a cell size not finite and > 0, more than 2^28 cells, or no solid cell.
VoxelGrid VoxeliseSolid(std::span<const Vec3f> inPositions, std::span<const Triangle> inTriangles,
                        double inCellSize, VoxelReport* outReport = nullptr);

} // namespace bdt
