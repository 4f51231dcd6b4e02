#pragma once

#include <bdt/core/bounds/BDTree.h>
#include <bdt/core/geometry/Contact.h>
#include <memory>
#include <span>
#include <vector>

namespace bdt::bench
{

/// The baseline of the BD-Tree paper's Table 2: a *layered* sphere tree (§3.1, Figure 3: each sphere
/// encloses its children's spheres, not the geometry) refitted bottom-up after every vertex is deformed
/// ([Brown et al. 2001]'s hierarchical linear-time refit). It uses a BD-Tree's topology (the same nodes,
/// the same triangle ranges), so the two are compared node for node.
///
/// A leaf's sphere is the minimal sphere of its triangle; an inner node's is the smallest sphere enclosing
/// its two children's spheres. Spheres are float, 16 bytes, inflated by a relative 4·10⁻⁷ against the float
/// rounding of the refit, so they contain their vertices. Holds a pointer to the tree (shared ownership).
class LayeredSphereTree
{
public:
    explicit LayeredSphereTree(std::shared_ptr<const BDTree> inTree);

    /// Refits every node from the deformed vertices (N of them, the tree's model's vertex order, rest
    /// frame): leaves first, then each level from the deepest up. Cost O(nodes), about 30 flops a node.
    void Refit(std::span<const Vec3f> inVertices);

    /// Appends every triangle (tree order) that intersects or touches the solid ball (same frame as the
    /// vertices), found by descending the refitted spheres and testing the leaves' triangles exactly
    /// (`TriangleSphereContact`, on the vertices converted to double). Counts sphere tests, triangle tests
    /// and triangles found in `ioStats`. Call `Refit` with the same vertices first.
    void Query(const Sphere& inBall, std::span<const Vec3f> inVertices,
               std::vector<std::uint32_t>& outTriangles, QueryStats& ioStats) const;

    /// Node `inNode`'s refitted sphere.
    Sphere NodeSphere(std::uint32_t inNode) const;

    /// Bytes of one bounding volume.
    static constexpr std::size_t cBytesPerVolume = 16;

private:
    std::shared_ptr<const BDTree> mTree;
    std::vector<float> mSpheres; ///< 4 floats a node: centre, radius.
};

} // namespace bdt::bench
