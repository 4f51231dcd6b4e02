#pragma once

#include <bdt/core/base/Math.h>
#include <bdt/core/model/Model.h>
#include <cstdint>
#include <span>
#include <vector>

namespace bdt
{

/// An affine transform x ↦ A x + t of one simulation node or bone (Steinemann, Otaduy & Gross 2008, eq. 3).
struct AffineTransform
{
    Mat3d linear = Mat3d::Identity(); ///< A: for meshless nodes, I + ∇uᵀ; for a rigid bone, its rotation.
    Vec3d translation = Vec3d::Zero(); ///< t: for meshless nodes, u − ∇uᵀ x.

    Vec3d Apply(const Vec3d& inPoint) const { return linear * inPoint + translation; }
    bool IsFinite() const { return linear.allFinite() && translation.allFinite(); }
};

/// The weight with which node `node` moves a vertex.
struct BlendWeight
{
    std::uint32_t node = 0;
    float weight = 0.0f;
};

/// Everything needed to make a `BlendedMesh`, as plain arrays.
struct BlendedMeshData
{
    std::vector<Vec3f> positions; ///< Rest positions v_k⁰ (model units; the frame the transforms act in).
    std::vector<Triangle> triangles; ///< Vertex indices.
    std::uint32_t nodeCount = 0;     ///< n, the simulation nodes (or bones).
    /// Vertex k's weights are `weights[weightStart[k] .. weightStart[k + 1])`; N + 1 entries.
    std::vector<std::uint32_t> weightStart;
    std::vector<BlendWeight> weights;
};

/// A surface whose vertices are convex combinations of affine transforms of their rest positions,
///
///     v_k = Σ_j w_kj T_j v_k⁰,  w_kj ≥ 0,  Σ_j w_kj = 1      (Steinemann et al. 2008, eq. 3)
///
/// which covers meshless (MLS) deformation fields carried to the surface (eq. 1) and linear blend skinning.
/// Immutable; share it between bodies.
///
/// Validation on creation (throws `bdt::Error` with a one-line message): at least one vertex, triangle and
/// node; every index in range; finite positions; every vertex with at least one weight, no weight negative or
/// non-finite, each node at most once per vertex, and weights summing to 1 within 1e-3 (they are then scaled
/// to sum to 1 in double before being stored).
class BlendedMesh
{
public:
    static BlendedMesh Create(BlendedMeshData inData);

    std::size_t VertexCount() const { return mData.positions.size(); }
    std::size_t TriangleCount() const { return mData.triangles.size(); }
    std::uint32_t NodeCount() const { return mData.nodeCount; }
    std::span<const Vec3f> Positions() const { return mData.positions; }
    std::span<const Triangle> Triangles() const { return mData.triangles; }
    /// Vertex `inVertex`'s weights.
    std::span<const BlendWeight> Weights(std::size_t inVertex) const
    {
        return std::span<const BlendWeight>(mData.weights)
            .subspan(mData.weightStart[inVertex],
                     mData.weightStart[inVertex + 1] - mData.weightStart[inVertex]);
    }

    /// Vertex `inVertex` deformed by `inTransforms` (n of them), in double: the brute-force reference.
    Vec3d DeformedPosition(std::size_t inVertex, std::span<const AffineTransform> inTransforms) const;

    /// The same surface as a reduced model p + U q with M = 12n, q the entries of A_j − I (row-major) and t_j
    /// per node (`ReducedCoordinates`), for the GPU deformer and the BD-Tree. O(N·n) memory.
    Model ToReducedModel() const;
    /// The q of `ToReducedModel` for `inTransforms` (n of them): 12n values.
    std::vector<float> ReducedCoordinates(std::span<const AffineTransform> inTransforms) const;

    const BlendedMeshData& Data() const { return mData; }

private:
    BlendedMesh() = default;
    BlendedMeshData mData;
};

} // namespace bdt
