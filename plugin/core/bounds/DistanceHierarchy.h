#pragma once

#include <bdt/core/bounds/BDTree.h>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace bdt
{

/// One region of a Distance Hierarchy: a central vertex (a mesh vertex, so it moves with the mesh) and
/// the region's rest radius about it. 8 bytes, the paper's "an integer and a float".
struct DistanceRegion
{
    std::uint32_t centralVertex = 0; ///< Vertex index into the tree's model.
    float restRadius = 0.0f; ///< max ‖v − v_central‖ over the region's rest vertices (model units).
};
static_assert(sizeof(DistanceRegion) == 8, "DistanceRegion is the paper's 8 bytes");

/// A Distance Hierarchy (Madera, Day & Laycock 2007, §3.1) for meshes deformed vertex by vertex (by any
/// simulation, not only p + Uq): each region is a ball centred on its *central vertex*, the region vertex
/// closest to the vertices' centroid, with radius the largest distance from it to a region vertex. The centre
/// moves with the mesh for free; only the radius is recomputed after a deformation, one distance per region
/// vertex (§3.2.2), where a sphere refit needs two passes and a box refit 6 comparisons a vertex.
///
/// The regions are the nodes of a `BDTree` (the same subdivision as the BD-Tree and BD-AABB, as the paper
/// compares the three on one subdivision), each with its unique vertex list for the radius update. A region's
/// ball contains its vertices and so, being convex, its triangles: a traversal that prunes on the balls is
/// conservative.
///
/// Immutable after `Build`; share it between bodies.
class DistanceHierarchy
{
public:
    /// Regions for every node of `inTree` (not null). Cost O(Σ_nodes |Λ|). Throws `bdt::Error` if `inTree`
    /// is null.
    static DistanceHierarchy Build(std::shared_ptr<const BDTree> inTree);

    const BDTree& Tree() const { return *mTree; }
    const std::shared_ptr<const BDTree>& TreePtr() const { return mTree; }

    const DistanceRegion& Region(std::uint32_t inNode) const { return mRegions[inNode]; }
    /// The unique vertices of node `inNode` (indices into the tree's model).
    std::span<const std::uint32_t> RegionVertices(std::uint32_t inNode) const
    {
        return {mVertices.data() + mVertexStart[inNode], mVertices.data() + mVertexStart[inNode + 1]};
    }

    /// The radius of region `inNode` for the vertex positions `inPositions` (one per model vertex, any frame
    /// the positions share): max ‖v − v_central‖ over the region's vertices, computed in float and raised by
    /// 16 units of float rounding, so the ball contains every vertex. Cost one float distance per region
    /// vertex. `inPositions` must have the model's vertex count (not checked here: `DistanceRegions` checks
    /// it once a step).
    float Radius(std::uint32_t inNode, std::span<const Vec3f> inPositions) const;

    /// Bytes of the regions (8 a node) and of the vertex lists the radius update reads.
    std::size_t RegionBytes() const { return mRegions.size() * sizeof(DistanceRegion); }
    std::size_t VertexListBytes() const
    {
        return (mVertices.size() + mVertexStart.size()) * sizeof(std::uint32_t);
    }

private:
    DistanceHierarchy() = default;

    std::shared_ptr<const BDTree> mTree;
    std::vector<DistanceRegion> mRegions;
    std::vector<std::uint32_t> mVertices; ///< Every node's unique vertices, node after node.
    std::vector<std::uint32_t>
        mVertexStart; ///< Node i's vertices are [mVertexStart[i], mVertexStart[i + 1]).
};

} // namespace bdt
