#pragma once

#include <Eigen/Core>
#include <bdt/bake/VibrationModes.h>
#include <bdt/bake/VoxelElasticity.h>
#include <bdt/bake/VoxelGrid.h>
#include <bdt/core/BDTree.h>
#include <bdt/core/Model.h>
#include <cstdint>
#include <vector>

namespace bdt
{

/// Settings of a modal bake (`bdt-bake --basis modal`).
struct ModalBakeSettings
{
    std::uint32_t modes = 10; ///< M, the vibration modes kept (the six rigid ones are found and skipped).
    /// Cells along the mesh's longest side; 0 chooses them: about `cDefaultCells` solid cells (the mesh's
    /// volume over `CellSizeForBudget`, then corrected by the solid cells the lattice really holds), so a
    /// mostly thin mesh gets a finer lattice and several cells across its thin parts; clamped to [16, 160]
    /// along the longest side. The bake's cost follows the solid cells: about 3 s for 8000.
    std::uint32_t resolution = 0;
    ElasticMaterial material;   ///< E, ν, ρ (SI).
    double rayleighAlpha = 0.0; ///< Mass-proportional Rayleigh damping α, 1/s: ζ_j += α / (2ω_j).
    double rayleighBeta = 0.0;  ///< Stiffness-proportional Rayleigh damping β, s: ζ_j += β ω_j / 2.
    double scale = 1.0;         ///< Mesh units to metres.
    /// Fast (the default): on the system BLAS, rounding that depends on the CPU; Reproducible: the same bytes
    /// on every CPU, a slower factorisation.
    EFactorisation factorisation = EFactorisation::Fast;

    static constexpr double cDefaultCells = 8000.0;
    static constexpr std::uint32_t cMinResolution = 16, cMaxResolution = 160;
};

/// The lattice modes of a modal bake (the vibration modes of the voxel model, Φ over its used lattice nodes)
/// and what was found on the way.
struct LatticeModes : VibrationModes
{
    VoxelGrid grid;
    VoxelReport voxels;
    std::size_t nodes = 0;      ///< Lattice nodes used by solid cells (3 degrees of freedom each).
    double totalMass = 0.0;     ///< kg.
    VoxelElasticity elasticity; ///< K and M of the lattice.
};

/// Throws `bdt::Error` with a one-line message when the settings are impossible: E ≤ 0, ν outside
/// (−1, 0.5), ρ ≤ 0, scale ≤ 0, negative Rayleigh coefficients, a non-finite value, or no mode. O(1).
void CheckModalBakeSettings(const ModalBakeSettings& inSettings);

/// Voxelises the mesh (`VoxeliseSolid`), assembles linear elasticity on the lattice (`VoxelElasticity`)
/// and solves K φ = λ M φ for six rigid and M vibration modes (`SolveVibrationModes`: shift-and-invert
/// Lanczos on a sparse Cholesky factorisation, no dense matrices, Φᵀ M Φ = I to rounding).
///
/// Progress stages: "voxelise", "assemble", "factorise", "eigensolve". Throws `bdt::Error` with a one-line
/// message for a bad mesh, impossible parameters (E ≤ 0, ν outside (−1, 0.5), ρ ≤ 0, scale ≤ 0), more
/// modes than the lattice has (3·nodes − 6), no convergence, or a rigid-mode count other than six.
LatticeModes ComputeLatticeModes(std::span<const Vec3f> inPositions, std::span<const Triangle> inTriangles,
                                 const ModalBakeSettings& inSettings,
                                 const ProgressCallback& inProgress = {});

/// The surface basis of lattice modes: each vertex's displacement interpolated trilinearly from the 8 nodes
/// of its cell (the embedding weights are the "rigid links" of the bi-resolution model in
/// interruptible-cd-deformables.md); a vertex outside every solid cell takes the nearest solid cell's
/// weights, extrapolated (exact for affine fields). `ModelData::basis` layout, model (mesh) units per unit
/// q_j: Φ / scale. Cost O(N·M + cells).
std::vector<float> InterpolateSurfaceBasis(std::span<const Vec3f> inPositions, const LatticeModes& inModes,
                                           double inScale);

/// A model of a surface (moved in) and its modal basis U (`ModelData::basis` layout, moved in, M = the
/// eigenvalues' count): adds the normal basis (`MakeNormalBasis`) and per mode ω_j, ζ_j (`MakeModeInfos` with
/// Rayleigh damping `inAlpha`, `inBeta`). Throws as `Model::Create` does. Cost O(T·M).
Model FinishModalModel(std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles,
                       std::vector<float> inBasis, std::span<const double> inEigenvalues, double inAlpha,
                       double inBeta);

/// A model of the mesh (moved in) with the modal basis: U from `InterpolateSurfaceBasis`, the normal basis
/// (`MakeNormalBasis`), and per mode ω_j = √λ_j and ζ_j from Rayleigh damping. `outModes`, if given, receives
/// the lattice modes. Throws as `ComputeLatticeModes` and `Model::Create` do.
Model MakeModalModel(std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles,
                     const ModalBakeSettings& inSettings, const ProgressCallback& inProgress = {},
                     LatticeModes* outModes = nullptr);

} // namespace bdt
