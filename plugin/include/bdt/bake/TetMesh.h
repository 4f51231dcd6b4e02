#pragma once

#include <array>
#include <bdt/bake/VoxelGrid.h>
#include <bdt/core/base/Math.h>
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

/// Reads TetGen's `.node` (and its `.ele`; indices from 0 or 1, 10-node tetrahedra cut to 4) or a legacy ASCII
/// VTK grid of tetrahedra (cell type 10); unused nodes are kept. Validates everything: throws `bdt::Error`
/// naming the line (and `.ele` file) of any bad, missing or out-of-range value or zero-volume cell. O(size).
TetMesh LoadTetMesh(const std::string& inPath);

/// Writes a legacy ASCII VTK grid of tetrahedra (`%.17g`), as Bullet's `createFromVtkFile` reads it. Throws
/// `bdt::Error` if the file cannot be written. O(nodes + tets).
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

/// A lattice's solid cells as six tetrahedra each (Kuhn's triangulation), nodes as `inLatticeOfNode` lists
/// them, positions in mesh units times `inScale`: a voxel bake written for Bullet. O(cells).
TetMesh LatticeTets(const VoxelGrid& inGrid, const std::vector<std::int64_t>& inNodeOfLattice,
                    const std::vector<std::uint32_t>& inLatticeOfNode, double inScale);

/// Six times the signed volume of a tetrahedron: (b − a) · ((c − a) × (d − a)). O(1).
double TetSixVolume(const Vec3d& inA, const Vec3d& inB, const Vec3d& inC, const Vec3d& inD);

} // namespace bdt
