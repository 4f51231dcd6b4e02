#pragma once

#include <bdt/bake/ModalBasis.h>
#include <bdt/bake/TetElasticity.h>
#include <bdt/bake/TetMesh.h>
#include <bdt/bake/VibrationModes.h>

namespace bdt
{

/// The vibration modes of a tetrahedral model (`bdt-bake --tets`), Φ over its nodes.
struct TetModes : VibrationModes
{
    TetMesh mesh;                ///< The model's tetrahedra, unused nodes removed, mesh units.
    std::size_t unusedNodes = 0; ///< Nodes of the input that no tetrahedron used (dropped).
    TetElasticity elasticity;    ///< K and M.
};

/// Assembles linear elasticity on the tetrahedra (`AssembleTetElasticity`) and solves K φ = λ M φ for six
/// rigid and M vibration modes (`SolveVibrationModes`). `inSettings.resolution` must be 0 (it is the voxel
/// lattice's). Progress stages "assemble", "factorise", "eigensolve". Throws `bdt::Error` with a one-line
/// message for impossible settings, more modes than the mesh has (3·nodes − 6), a mesh in several pieces
/// (more than six rigid modes) or no convergence.
TetModes ComputeTetModes(TetMesh inMesh, const ModalBakeSettings& inSettings,
                         const ProgressCallback& inProgress = {});

/// The surface basis of tetrahedral modes: each vertex's displacement interpolated linearly (barycentric
/// weights) in the tetrahedron that contains it; a vertex outside every tetrahedron takes the least-outside
/// tetrahedron near it (largest smallest barycentric weight), extrapolated (exact for affine fields). These
/// weights are the "rigid links" of the bi-resolution model (interruptible-cd-deformables.md).
/// `ModelData::basis` layout, mesh units per unit q_j: Φ / scale. Cost O(N·M) plus a uniform grid over the
/// tetrahedra (O(tets)).
std::vector<float> InterpolateTetSurfaceBasis(std::span<const Vec3f> inPositions, const TetModes& inModes,
                                              double inScale);

/// The surface basis of surface vertices that are nodes (`inNodeOfVertex`, e.g. a tetrahedral mesh's
/// boundary): U is Φ at those nodes exactly, its first `inModes` columns, divided by `inScale` (metres per
/// model unit). `ModelData::basis` layout. Cost O(N·M).
std::vector<float> NodalSurfaceBasis(const Eigen::MatrixXd& inShapes, std::uint32_t inModes,
                                     std::span<const std::uint32_t> inNodeOfVertex, double inScale);

/// A model with the tetrahedral modal basis. The surface is `inPositions`/`inTriangles` (moved in) embedded
/// in the tetrahedra, or, when `inPositions` is empty, the tetrahedra's own boundary (`ExtractTetBoundary`,
/// whose vertices are nodes: U is then Φ at those nodes exactly). Normal basis and ω_j, ζ_j as
/// `MakeModalModel`. `outModes`, if given, receives the modes. Throws as `ComputeTetModes` and
/// `Model::Create` do.
Model MakeTetModalModel(TetMesh inMesh, std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles,
                        const ModalBakeSettings& inSettings, const ProgressCallback& inProgress = {},
                        TetModes* outModes = nullptr);

} // namespace bdt
