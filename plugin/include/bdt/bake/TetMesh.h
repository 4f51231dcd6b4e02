#pragma once

#include <array>
#include <bdt/bake/VoxelGrid.h>
#include <bdt/core/Math.h>
#include <cstdint>
#include <string>
#include <vector>

namespace bdt
{

/// A tetrahedral mesh: the volumetric model of a modal bake given as tetrahedra (`bdt-bake --tets`) or
/// written for Bullet's reduced deformable bodies. Plain arrays; positions in the file's units.
struct TetMesh
{
    std::vector<Vec3d> positions;                   ///< Node positions.
    std::vector<std::array<std::uint32_t, 4>> tets; ///< Node indices of each tetrahedron, either orientation.
};

/// Reads a tetrahedral mesh: TetGen's `.node` (with the `.ele` file of the same name beside it) or a legacy
/// ASCII VTK unstructured grid (`.vtk`, tetrahedra only: cell type 10, as TetGen, Gmsh and Bullet's reduced
/// deformable data write them). TetGen's indices may start at 0 or 1; 10-node tetrahedra keep their 4
/// corners. Validates everything (throws `bdt::Error` with a one-line message naming the line and the
/// problem, and the `.ele` file when the problem is there; the caller names `inPath`): missing or unreadable
/// file, unknown extension, a count larger than the file can hold, a missing or non-numeric value, a
/// non-finite coordinate, an index out of range, a cell that is not a tetrahedron, a tetrahedron of zero
/// volume, no tetrahedron. Nodes used by no tetrahedron are kept (see `RemoveUnusedNodes`). Cost O(file
/// size).
TetMesh LoadTetMesh(const std::string& inPath);

/// Writes a legacy ASCII VTK unstructured grid of tetrahedra (one point per line, `%.17g`), the layout that
/// Bullet's `btReducedDeformableBodyHelpers::createFromVtkFile` reads. Throws `bdt::Error` if the file
/// cannot be written. Cost O(nodes + tets).
void SaveVtkTets(const TetMesh& inMesh, const std::string& inPath);

/// Drops the nodes no tetrahedron uses, renumbering the rest in order. Returns how many were dropped. O(n).
std::size_t RemoveUnusedNodes(TetMesh& ioMesh);

/// The boundary of a tetrahedral mesh as a surface: the faces that belong to exactly one tetrahedron,
/// oriented outwards (counter-clockwise seen from outside, away from the tetrahedron's fourth node).
struct TetBoundary
{
    std::vector<Vec3f> positions;            ///< Surface vertices, in first use by `triangles`.
    std::vector<Triangle> triangles;         ///< In tetrahedron order, then face order.
    std::vector<std::uint32_t> nodeOfVertex; ///< Per surface vertex, its node in the tetrahedral mesh.
};

/// The boundary surface of `inMesh` (deterministic). Throws `bdt::Error` if it has no boundary face.
/// Cost O(tets log tets).
TetBoundary ExtractTetBoundary(const TetMesh& inMesh);

/// The solid cells of a voxel lattice as tetrahedra: each cube split into six along its main diagonal
/// (Kuhn's triangulation, conforming across cube faces), nodes in the lattice's node order (the used
/// nodes, as `VoxelElasticity::latticeOfNode` lists them: `inLatticeOfNode`), positions in mesh units times
/// `inScale`. This is how a voxel bake is written for Bullet. Cost O(cells).
TetMesh LatticeTets(const VoxelGrid& inGrid, const std::vector<std::int64_t>& inNodeOfLattice,
                    const std::vector<std::uint32_t>& inLatticeOfNode, double inScale);

/// Six times the signed volume of a tetrahedron: (b − a) · ((c − a) × (d − a)). O(1).
double TetSixVolume(const Vec3d& inA, const Vec3d& inB, const Vec3d& inC, const Vec3d& inD);

} // namespace bdt
