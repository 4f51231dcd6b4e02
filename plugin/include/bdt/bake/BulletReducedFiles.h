#pragma once

#include <Eigen/Core>
#include <bdt/bake/ModalBasis.h>
#include <bdt/bake/TetMesh.h>
#include <bdt/bake/TetModalBasis.h>
#include <bdt/core/Model.h>
#include <string>
#include <vector>

namespace bdt
{

/// The data files of Bullet's own reduced deformable bodies (`btReducedDeformableBody`, read by
/// `btReducedDeformableBodyHelpers::readReducedDeformableInfoFromFiles` and `createFromVtkFile`), in one
/// folder:
///
/// - `modes.bin`: a uint32 count of doubles (M·3n), then the M modes one after the other, each 3n doubles,
///   node-major (`3·node + axis`); metres per unit reduced coordinate;
/// - `eigenvalues.bin` and `K_r_diag_mat.bin`: a uint32 count (M), then M doubles: λ_j = ω_j², (rad/s)²,
///   the diagonal of the reduced stiffness (Bullet integrates with unit reduced mass and `K_r`);
/// - `M_diag_mat.bin`: a uint32 count (n), then n doubles: each node's lumped mass, kg;
/// - `mesh.vtk`: the tetrahedral mesh, legacy ASCII VTK, metres (`SaveVtkTets`).
///
/// All little-endian. Bullet assumes the modes are orthonormal in the lumped mass (Φᵀ diag(m) Φ = I).
struct BulletReducedFiles
{
    TetMesh mesh;                         ///< n nodes, metres.
    Eigen::MatrixXd modes;                ///< Φ, 3n × M, m per unit q.
    std::vector<double> eigenvalues;      ///< λ_j, M entries, (rad/s)².
    std::vector<double> reducedStiffness; ///< K_r, M entries, (rad/s)² for unit reduced mass.
    std::vector<double> nodeMass;         ///< n entries, kg.
};

/// The files of a voxel bake: the solid cells split into tetrahedra (`LatticeTets`, nodes = the lattice
/// nodes, metres: mesh units times `inScale`), Φ at the nodes, K_r = λ, and each node's lumped mass (the row
/// sums of the consistent mass, `LumpedNodeMass`). The modes are orthonormal in the consistent mass, so in
/// Bullet's lumped mass Φᵀ diag(m) Φ is close to, not exactly, I. Cost O(n·M).
BulletReducedFiles MakeBulletFiles(const LatticeModes& inModes, double inScale);

/// The files of a tetrahedral bake (`ComputeTetModes`): its own tetrahedra, metres, as above.
BulletReducedFiles MakeBulletFiles(const TetModes& inModes, double inScale);

/// The name of the tetrahedral mesh file in a Bullet reduced deformable folder.
inline constexpr const char* cBulletMeshFile = "mesh.vtk";

/// Writes the five files into `inDirectory` (created if missing). Throws `bdt::Error` if the folder cannot
/// be created (the caller names it), naming the file that cannot be written, or if the arrays' sizes
/// disagree. Cost O(n·M).
void SaveBulletReducedFiles(const BulletReducedFiles& inFiles, const std::string& inDirectory);

/// Reads such a folder: the four `.bin` files and its one `.vtk` file (`mesh.vtk`, or the only `.vtk` in
/// the folder). Validates everything, never reading past a file's end (throws `bdt::Error` with a one-line
/// message naming the file and the problem): a missing file, a count that does not match the file's size or
/// the mesh's node count, mode counts that disagree, a non-finite value, a negative mass or eigenvalue.
/// Cost O(n·M).
BulletReducedFiles LoadBulletReducedFiles(const std::string& inDirectory);

/// A model of Bullet reduced deformable data: the surface is the tetrahedra's boundary
/// (`ExtractTetBoundary`, as Bullet renders and collides these bodies), U the modes at its vertices
/// (metres), ω_j = √K_r_j, ζ_j from Rayleigh damping (`inAlpha`, `inBeta`; Bullet keeps them in code, not in
/// the files) and the normal basis. `inModes` keeps the first modes (0: all). Throws `bdt::Error` if
/// `inModes` exceeds what the files hold, and as `Model::Create` does.
Model MakeModelFromBulletFiles(const BulletReducedFiles& inFiles, std::uint32_t inModes, double inAlpha,
                               double inBeta);

} // namespace bdt
