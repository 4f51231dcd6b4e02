#pragma once

#include <Eigen/SparseCore>
#include <bdt/bake/TetMesh.h>
#include <bdt/bake/VoxelElasticity.h>

namespace bdt
{

/// Linear elasticity on a tetrahedral mesh (constant-strain tetrahedra, consistent mass), dofs
/// `3·node + axis`, SI units (mesh units times `inScale`). Stiffer in bending than the lattice: mesh finer.
struct TetElasticity
{
    Eigen::SparseMatrix<double> stiffness; ///< K, 3n × 3n, N/m, symmetric positive semi-definite.
    Eigen::SparseMatrix<double> mass; ///< M, 3n × 3n, kg, symmetric positive definite if every node is used.
    double totalMass = 0.0;           ///< ρ × volume, kg.
    double shortestEdge = 0.0;        ///< Of all tetrahedra, metres.
};

/// Assembles K and M over `inMesh`, every node used (`RemoveUnusedNodes`). Throws `bdt::Error` for a bad
/// material, a scale ≤ 0, an unused node or a flat tetrahedron. O(tets), 144 stiffness entries each.
TetElasticity AssembleTetElasticity(const TetMesh& inMesh, const ElasticMaterial& inMaterial, double inScale);

} // namespace bdt
