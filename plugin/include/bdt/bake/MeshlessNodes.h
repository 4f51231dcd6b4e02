#pragma once

#include <bdt/core/BlendedMesh.h>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace bdt
{

/// A surface mesh carried by simulation nodes (Steinemann et al. 2008, §3.1): the `BlendedMesh` data and the
/// nodes' reference positions x_j.
struct MeshlessNodes
{
    BlendedMeshData mesh;
    std::vector<Vec3d> nodePositions; ///< x_j, the mesh's frame and units.
};

/// Samples `inNodes` simulation nodes among the vertices by farthest-point sampling (deterministic, from the
/// vertex nearest the centre of the rest box), and weights each vertex by its `inNeighbours` nearest nodes
/// with a smooth kernel (1 − (d/ρ)²)³, ρ just beyond the farthest of them (the poly6 kernel of MLS
/// simulations), normalised to sum to 1. Cost O(N·n). Throws `bdt::Error` for an empty mesh, no nodes, more
/// nodes than vertices, or no neighbours.
MeshlessNodes SampleMeshlessNodes(std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles,
                                  std::uint32_t inNodes, std::uint32_t inNeighbours = 4);

/// A deformation map x ↦ φ(x) (the reference configuration to the deformed one).
using DeformationMap = std::function<Vec3d(const Vec3d&)>;

/// The node transforms of a deformation map, as a meshless simulation gives them (eq. 1–3): A_j the Jacobian
/// of φ at x_j (central differences of step `inStep`, model units), t_j = φ(x_j) − A_j x_j, so each node's
/// transform is φ's first-order expansion about it. Cost 7 evaluations of φ per node.
std::vector<AffineTransform> TransformsOfMap(const DeformationMap& inMap, std::span<const Vec3d> inNodes,
                                             double inStep);

} // namespace bdt
