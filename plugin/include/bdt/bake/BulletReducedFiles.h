#pragma once

#include <Eigen/Core>
#include <bdt/bake/ModalBasis.h>
#include <bdt/bake/TetMesh.h>
#include <bdt/bake/TetModalBasis.h>
#include <bdt/core/model/Model.h>
#include <string>
#include <vector>

namespace bdt
{

/// The files of Bullet's reduced deformable bodies (`btReducedDeformableBodyHelpers`), one folder,
/// little-endian: `modes.bin` (uint32 count M·3n, then M modes of 3n doubles, `3·node + axis`),
/// `eigenvalues.bin` and `K_r_diag_mat.bin` (uint32 M, then M doubles), `M_diag_mat.bin` (uint32 n, then n
/// doubles) and `mesh.vtk` (legacy ASCII VTK, `SaveVtkTets`). Bullet assumes Φᵀ diag(m) Φ = I.
struct BulletReducedFiles
{
    TetMesh mesh;                         ///< n nodes, metres.
    Eigen::MatrixXd modes;                ///< Φ, 3n × M, m per unit q.
    std::vector<double> eigenvalues;      ///< λ_j, M entries, (rad/s)².
    std::vector<double> reducedStiffness; ///< K_r, M entries, (rad/s)² for unit reduced mass.
    std::vector<double> nodeMass;         ///< n entries, kg.
};

/// The files of a voxel bake: its solid cells as tetrahedra (`LatticeTets`, mesh units times `inScale`), Φ,
/// K_r = λ and lumped node masses (`LumpedNodeMass`; Φᵀ diag(m) Φ is then close to, not exactly, I). O(n·M).
BulletReducedFiles MakeBulletFiles(const LatticeModes& inModes, double inScale);

/// The files of a tetrahedral bake (`ComputeTetModes`): its own tetrahedra, metres, as above.
BulletReducedFiles MakeBulletFiles(const TetModes& inModes, double inScale);

/// The name of the tetrahedral mesh file in a Bullet reduced deformable folder.
inline constexpr const char* cBulletMeshFile = "mesh.vtk";

/// Writes the five files into `inDirectory` (created if missing). Throws `bdt::Error` if the folder or a file
/// (named) cannot be written, or the arrays' sizes disagree. O(n·M).
void SaveBulletReducedFiles(const BulletReducedFiles& inFiles, const std::string& inDirectory);

/// Reads such a folder (`mesh.vtk` or its only `.vtk`), validating everything. Throws `bdt::Error` naming the
/// file for a missing file, mismatched counts, a non-finite value, a negative mass or eigenvalue. O(n·M).
BulletReducedFiles LoadBulletReducedFiles(const std::string& inDirectory);

/// A model of Bullet reduced deformable data: the tetrahedra's boundary, U the modes there (metres),
/// ω_j = √K_r_j, ζ_j from Rayleigh `inAlpha`, `inBeta`; the first `inModes` modes (0: all). Throws
/// `bdt::Error` if the files hold fewer, and as `Model::Create` does.
Model MakeModelFromBulletFiles(const BulletReducedFiles& inFiles, std::uint32_t inModes, double inAlpha,
                               double inBeta);

} // namespace bdt
