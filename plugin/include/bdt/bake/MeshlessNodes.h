#pragma once

#include <bdt/core/model/BlendedMesh.h>
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

/// Samples `inNodes` nodes among the vertices (farthest-point, deterministic) and weights each vertex by its
/// `inNeighbours` nearest with the poly6 kernel (1 − (d/ρ)²)³, normalised. O(N·n). Throws `bdt::Error` for an
/// empty mesh, no nodes, more nodes than vertices, or no neighbours.
MeshlessNodes SampleMeshlessNodes(std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles,
                                  std::uint32_t inNodes, std::uint32_t inNeighbours = 4);

/// A deformation map x ↦ φ(x) (the reference configuration to the deformed one).
using DeformationMap = std::function<Vec3d(const Vec3d&)>;

/// The node transforms of a deformation map (eq. 1–3): A_j the Jacobian of φ at x_j (central differences of
/// `inStep`, model units), t_j = φ(x_j) − A_j x_j. 7 evaluations of φ per node.
std::vector<AffineTransform> TransformsOfMap(const DeformationMap& inMap, std::span<const Vec3d> inNodes,
                                             double inStep);

} // namespace bdt
