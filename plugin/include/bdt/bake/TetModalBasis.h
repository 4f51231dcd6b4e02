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

/// Six rigid and M vibration modes of the tetrahedra (`inSettings.resolution` must be 0). Stages "assemble",
/// "factorise", "eigensolve". Throws `bdt::Error` for bad settings, more modes than 3·nodes − 6, a mesh in
/// several pieces, or no convergence.
TetModes ComputeTetModes(TetMesh inMesh, const ModalBakeSettings& inSettings,
                         const ProgressCallback& inProgress = {});

/// The surface basis of tetrahedral modes, Φ / scale in `ModelData::basis` layout: barycentric in each vertex's
/// tetrahedron ("rigid links", interruptible-cd-deformables.md), or extrapolated from the least-outside one.
/// O(N·M + tets).
std::vector<float> InterpolateTetSurfaceBasis(std::span<const Vec3f> inPositions, const TetModes& inModes,
                                              double inScale);

/// The surface basis of vertices that are nodes (`inNodeOfVertex`): the first `inModes` columns of Φ there,
/// divided by `inScale` (metres per model unit), `ModelData::basis` layout. O(N·M).
std::vector<float> NodalSurfaceBasis(const Eigen::MatrixXd& inShapes, std::uint32_t inModes,
                                     std::span<const std::uint32_t> inNodeOfVertex, double inScale);

/// A model with the tetrahedral modal basis, its surface `inPositions`/`inTriangles` (moved in) or, if empty,
/// the tetrahedra's boundary; `outModes`, if given, gets the modes. Throws as `ComputeTetModes` does.
Model MakeTetModalModel(TetMesh inMesh, std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles,
                        const ModalBakeSettings& inSettings, const ProgressCallback& inProgress = {},
                        TetModes* outModes = nullptr);

} // namespace bdt
