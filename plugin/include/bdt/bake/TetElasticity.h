#pragma once

#include <Eigen/SparseCore>
#include <bdt/bake/TetMesh.h>
#include <bdt/bake/VoxelElasticity.h>

namespace bdt
{

/// Linear elasticity on a tetrahedral mesh: one linear (constant-strain) tetrahedron per element,
/// consistent mass. Degrees of freedom `3·node + axis`, metres, kilograms, seconds: lengths are the mesh's
/// units times `inScale`. Linear tetrahedra are stiffer in bending than the lattice's trilinear hexahedra
/// (they lock), so a tetrahedral model needs a finer mesh for the same accuracy; they fit any shape exactly.
struct TetElasticity
{
    Eigen::SparseMatrix<double> stiffness; ///< K, 3n × 3n, N/m, symmetric positive semi-definite.
    Eigen::SparseMatrix<double> mass; ///< M, 3n × 3n, kg, symmetric positive definite if every node is used.
    double totalMass = 0.0;           ///< ρ × volume, kg.
    double shortestEdge = 0.0;        ///< Of all tetrahedra, metres.
};

/// Assembles K and M over the tetrahedra of `inMesh`. Every node must be used by a tetrahedron
/// (`RemoveUnusedNodes`). Throws `bdt::Error` for a material out of range, a non-positive scale, an unused
/// node or a flat tetrahedron. Cost O(tets) plus the sparse assembly (144 stiffness entries per tetrahedron).
TetElasticity AssembleTetElasticity(const TetMesh& inMesh, const ElasticMaterial& inMaterial, double inScale);

} // namespace bdt
