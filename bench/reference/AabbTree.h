#pragma once

#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/geometry/Contact.h>
#include <memory>
#include <span>
#include <vector>

namespace bdt::bench
{

/// The AABB tree of van den Bergen (1997), "Efficient Collision Detection of Complex Deformable Models
/// using AABB Trees": a box per node refitted bottom-up after every vertex is deformed (a leaf's box bounds
/// its triangle, an inner box the union of its children's). It uses a BD-Tree's topology, so it is compared
/// node for node with the BD-Tree and the layered sphere tree. Boxes are float (min, max), 24 bytes. Holds a
/// pointer to the tree (shared ownership).
class AabbTree
{
public:
    explicit AabbTree(std::shared_ptr<const BDTree> inTree);

    /// Refits every node from the deformed vertices (N of them, the tree's model's vertex order): leaves,
    /// then each level from the deepest up. Cost O(nodes), about 12 compares a node.
    void Refit(std::span<const Vec3f> inVertices);

    /// Appends every triangle (tree order) that intersects or touches the solid ball, found by descending
    /// the boxes (exact sphere-box distance) and testing the leaves' triangles exactly
    /// (`TriangleSphereContact`). Counts box tests, triangle tests and triangles found in `ioStats`.
    void Query(const Sphere& inBall, std::span<const Vec3f> inVertices,
               std::vector<std::uint32_t>& outTriangles, QueryStats& ioStats) const;

    /// Node `inNode`'s refitted box: min in [0..2], max in [3..5].
    std::span<const float, 6> NodeBox(std::uint32_t inNode) const
    {
        return std::span<const float, 6>(mBoxes.data() + 6 * std::size_t(inNode), 6);
    }

    /// Bytes of one bounding volume.
    static constexpr std::size_t cBytesPerVolume = 24;

private:
    std::shared_ptr<const BDTree> mTree;
    std::vector<float> mBoxes; ///< 6 floats a node.
};

} // namespace bdt::bench
