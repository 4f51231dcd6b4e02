#pragma once

#include <Eigen/Core>
#include <bdt/bake/VibrationModes.h>
#include <bdt/bake/VoxelElasticity.h>
#include <bdt/bake/VoxelGrid.h>
#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/model/Model.h>
#include <cstdint>
#include <vector>

namespace bdt
{

/// Settings of a modal bake (`bdt-bake --basis modal`). Tuning: docs/TUNING.md#modalbakesettings.
struct ModalBakeSettings
{
    std::uint32_t modes = 10; ///< M, the vibration modes kept (the six rigid ones are found and skipped).
    /// Cells along the mesh's longest side, or 0 for about `cDefaultCells` solid cells, clamped to [16, 160].
    /// The bake's cost follows the solid cells: about 3 s for 8000.
    std::uint32_t resolution = 0;
    ElasticMaterial material;   ///< E, ν, ρ (SI).
    double rayleighAlpha = 0.0; ///< Mass-proportional Rayleigh damping α, 1/s: ζ_j += α / (2ω_j).
    double rayleighBeta = 0.0;  ///< Stiffness-proportional Rayleigh damping β, s: ζ_j += β ω_j / 2.
    double scale = 1.0;         ///< Mesh units to metres.
    /// Fast: CPU-dependent rounding; Reproducible: the same bytes on every CPU, slower (`EFactorisation`).
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

/// Voxelises the mesh, assembles lattice elasticity and solves for six rigid and M vibration modes
/// (`SolveVibrationModes`). Stages "voxelise", "assemble", "factorise", "eigensolve". Throws `bdt::Error` for a
/// bad mesh or settings, more modes than 3·nodes − 6, no convergence, or not six rigid modes.
LatticeModes ComputeLatticeModes(std::span<const Vec3f> inPositions, std::span<const Triangle> inTriangles,
                                 const ModalBakeSettings& inSettings,
                                 const ProgressCallback& inProgress = {});

/// The surface basis of lattice modes, Φ / scale in `ModelData::basis` layout: trilinear in each vertex's cell
/// (the bi-resolution model's "rigid links", interruptible-cd-deformables.md), or extrapolated from the
/// nearest solid cell (exact for affine fields). O(N·M + cells).
std::vector<float> InterpolateSurfaceBasis(std::span<const Vec3f> inPositions, const LatticeModes& inModes,
                                           double inScale);

/// A model of a surface and its modal basis U (all moved in; M = the eigenvalues' count), with the normal
/// basis and ω_j, ζ_j (`MakeModeInfos`). Throws as `Model::Create` does. O(T·M).
Model FinishModalModel(std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles,
                       std::vector<float> inBasis, std::span<const double> inEigenvalues, double inAlpha,
                       double inBeta);

/// A model of the mesh (moved in) with its modal basis (`InterpolateSurfaceBasis`, `FinishModalModel`);
/// `outModes`, if given, receives the lattice modes. Throws as `ComputeLatticeModes` and `Model::Create` do.
Model MakeModalModel(std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles,
                     const ModalBakeSettings& inSettings, const ProgressCallback& inProgress = {},
                     LatticeModes* outModes = nullptr);

} // namespace bdt
