#pragma once

#include <Eigen/SparseCore>
#include <bdt/bake/VoxelGrid.h>
#include <cstdint>
#include <vector>

namespace bdt
{

/// Isotropic linear-elastic material. SI units.
struct ElasticMaterial
{
    double young = 1.0e6;    ///< Young's modulus E, Pa. > 0.
    double poisson = 0.4;    ///< Poisson's ratio ν, in (−1, 0.5).
    double density = 1000.0; ///< Mass density ρ, kg/m³. > 0.
};

/// Linear elasticity on the solid cells of a `VoxelGrid`: one trilinear hexahedron (8 nodes, 2×2×2 Gauss
/// points) per solid cell, consistent mass. K u = f and M ü give the modes of the bake (`K φ = λ M φ`).
///
/// Why hexahedra on the voxel lattice rather than tetrahedra: every element is the same cube, so one
/// element matrix serves them all (no per-element geometry, no slivers), and a trilinear hexahedron bends far
/// better than the five or six linear tetrahedra that would fill it (a linear tetrahedron has constant strain
/// and locks in bending). Its remaining parasitic shear in bending shrinks with the square of the cells
/// across a member; the default resolution keeps several. The consistent mass makes each frequency an
/// upper bound that falls towards the exact one as the lattice is refined (Rayleigh–Ritz).
///
/// Degrees of freedom: 3 per lattice node used by a solid cell, `3·n + axis` with n the node's rank among the
/// used nodes in lattice order. Metres, kilograms, seconds: lengths are mesh units times `inScale`.
struct VoxelElasticity
{
    std::vector<std::int64_t> nodeOfLattice;  ///< Per lattice node: its rank among the used nodes, or −1.
    std::vector<std::uint32_t> latticeOfNode; ///< Per used node: its lattice node index.
    Eigen::SparseMatrix<double> stiffness;    ///< K, 3n × 3n, N/m, symmetric positive semi-definite.
    Eigen::SparseMatrix<double> mass;         ///< M, 3n × 3n, kg, symmetric positive definite.
    double totalMass = 0.0;                   ///< ρ × solid volume, kg.

    std::size_t NodeCount() const { return latticeOfNode.size(); }
};

/// Throws `bdt::Error` with a one-line message when E ≤ 0, ν is outside (−1, 0.5), ρ ≤ 0 or a value is not
/// finite. O(1).
void CheckElasticMaterial(const ElasticMaterial& inMaterial);

/// Throws `bdt::Error` with a one-line message unless `inScale` (metres per mesh unit) is positive and
/// finite. O(1).
void CheckScale(double inScale);

/// The isotropic elasticity matrix D (stress = D · strain) of Young's modulus `inYoung` (Pa) and Poisson's
/// ratio `inPoisson`, in Voigt order (xx, yy, zz, xy, yz, zx) with engineering shear strains. O(1).
Eigen::Matrix<double, 6, 6> IsotropicElasticity(double inYoung, double inPoisson);

/// Writes the strain-displacement columns of node `inNode` (columns 3·node + axis of B, strain = B · u)
/// for the shape-function gradient `inGradient`, in the Voigt order of `IsotropicElasticity`. O(1).
template <int Columns>
void SetStrainColumns(int inNode, const Vec3d& inGradient, Eigen::Matrix<double, 6, Columns>& ioStrain)
{
    const int c = 3 * inNode;
    ioStrain(0, c + 0) = inGradient.x();
    ioStrain(1, c + 1) = inGradient.y();
    ioStrain(2, c + 2) = inGradient.z();
    ioStrain(3, c + 0) = inGradient.y();
    ioStrain(3, c + 1) = inGradient.x();
    ioStrain(4, c + 1) = inGradient.z();
    ioStrain(4, c + 2) = inGradient.y();
    ioStrain(5, c + 0) = inGradient.z();
    ioStrain(5, c + 2) = inGradient.x();
}

/// The element stiffness of a unit cube of unit Young's modulus and Poisson's ratio `inPoisson` (24×24,
/// rows and columns `3·corner + axis`, corner = dx + 2·dy + 4·dz): a cube of edge h and modulus E has E·h
/// times it. Cost: 8 Gauss points, microseconds.
Eigen::Matrix<double, 24, 24> UnitCubeStiffness(double inPoisson);

/// The consistent mass of a unit cube of unit density, per pair of corners (8×8; times the 3×3 identity
/// per axis): a cube of edge h and density ρ has ρ·h³ times it.
Eigen::Matrix<double, 8, 8> UnitCubeMass();

/// The lattice nodes that solid cells of `inGrid` use (a model has 3 degrees of freedom per node). O(cells).
std::size_t CountLatticeNodes(const VoxelGrid& inGrid);

/// Assembles K and M over the solid cells of `inGrid` (mesh units times `inScale` = metres). Cost O(cells)
/// plus the sparse assembly (about 300 non-zeros per degree of freedom). Throws `bdt::Error` for a
/// material out of range, a non-positive scale or a grid without solid cells.
VoxelElasticity AssembleVoxelElasticity(const VoxelGrid& inGrid, const ElasticMaterial& inMaterial,
                                        double inScale);

} // namespace bdt
