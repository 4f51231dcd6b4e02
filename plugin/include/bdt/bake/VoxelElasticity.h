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

/// Linear elasticity on a `VoxelGrid`'s solid cells: a trilinear hexahedron (2×2×2 Gauss points) per cell,
/// consistent mass, dofs `3·n + axis` (n: the node's rank among the used nodes), SI units (mesh units times
/// `inScale`). Frequencies fall towards the exact ones as the lattice is refined.
struct VoxelElasticity
{
    std::vector<std::int64_t> nodeOfLattice;  ///< Per lattice node: its rank among the used nodes, or −1.
    std::vector<std::uint32_t> latticeOfNode; ///< Per used node: its lattice node index.
    Eigen::SparseMatrix<double> stiffness;    ///< K, 3n × 3n, N/m, symmetric positive semi-definite.
    Eigen::SparseMatrix<double> mass;         ///< M, 3n × 3n, kg, symmetric positive definite.
    double totalMass = 0.0;                   ///< ρ × solid volume, kg.

    std::size_t NodeCount() const { return latticeOfNode.size(); }
};

/// Throws `bdt::Error` when E ≤ 0, ν is outside (−1, 0.5), ρ ≤ 0 or a value is not finite. O(1).
void CheckElasticMaterial(const ElasticMaterial& inMaterial);

/// Throws `bdt::Error` unless `inScale` (metres per mesh unit) is finite and > 0. O(1).
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

/// The 24×24 stiffness (`3·corner + axis`, corner = dx + 2·dy + 4·dz) of a unit cube, E = 1, ν = `inPoisson`:
/// a cube of edge h and modulus E has E·h times it. Microseconds.
Eigen::Matrix<double, 24, 24> UnitCubeStiffness(double inPoisson);

/// The consistent mass of a unit cube of unit density, per pair of corners (8×8; times the 3×3 identity
/// per axis): a cube of edge h and density ρ has ρ·h³ times it.
Eigen::Matrix<double, 8, 8> UnitCubeMass();

/// The lattice nodes that solid cells of `inGrid` use (a model has 3 degrees of freedom per node). O(cells).
std::size_t CountLatticeNodes(const VoxelGrid& inGrid);

/// Assembles K and M over `inGrid`'s solid cells (metres: mesh units times `inScale`), about 300 non-zeros a
/// dof. Throws `bdt::Error` for a bad material, a scale ≤ 0 or no solid cell.
VoxelElasticity AssembleVoxelElasticity(const VoxelGrid& inGrid, const ElasticMaterial& inMaterial,
                                        double inScale);

} // namespace bdt
