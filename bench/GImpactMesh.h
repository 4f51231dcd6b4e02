#pragma once

#include <LinearMath/btAlignedObjectArray.h>
#include <LinearMath/btScalar.h>
#include <bdt/core/geometry/Contact.h>
#include <bdt/core/model/Model.h>
#include <memory>
#include <span>
#include <vector>

class btGImpactMeshShape;
class btTriangleIndexVertexArray;

namespace bdt::bench
{

/// What a Bullet user has today for a deforming triangle mesh: a `btGImpactMeshShape` over a vertex buffer
/// that is rewritten with every deformed vertex, its tree refitted by `postUpdate()` and `updateBound()`, as
/// Bullet documents for deforming meshes. The mesh is a model's rest mesh (its triangles in its order, so
/// GImpact's primitive k is the model's triangle k). Owns the buffers; owns the shape until `ReleaseShape`;
/// refers to the model, which must outlive it.
class GImpactMesh
{
public:
    explicit GImpactMesh(const Model& inModel);
    ~GImpactMesh();
    GImpactMesh(const GImpactMesh&) = delete;
    GImpactMesh& operator=(const GImpactMesh&) = delete;

    /// The shape (valid while this object lives, whoever owns it).
    btGImpactMeshShape& Shape() { return *mShape; }
    /// Hands the shape's ownership over (to a world's body); `Update` and the queries keep working.
    std::unique_ptr<btGImpactMeshShape> ReleaseShape();

    /// Rewrites the vertex buffer with `inVertices` (N of them, the model's order) and refits the tree.
    /// Cost O(N + T).
    void Update(std::span<const Vec3f> inVertices);

    /// The triangles the solid ball touches: GImpact's own box query with the ball's box, then the exact test
    /// (`TestBallTriangle`) on its candidates, with `inVertices` (those of the last `Update`).
    /// `ioCandidates` is scratch.
    void QueryBall(const Sphere& inBall, std::span<const Vec3f> inVertices,
                   btAlignedObjectArray<int>& ioCandidates, std::vector<std::uint32_t>& outTriangles,
                   QueryStats& ioStats) const;

    /// The box tests that `QueryBall`'s box query makes: GImpact's tree walked in its own stackless order (a
    /// missed node's subtree skipped through its escape index).
    std::uint64_t CountBallTests(const Sphere& inBall) const;

private:
    const Model& mModel;
    std::vector<int> mIndices;
    std::vector<btScalar> mVertices;
    std::unique_ptr<btTriangleIndexVertexArray> mMesh;
    std::unique_ptr<btGImpactMeshShape> mOwned;
    btGImpactMeshShape* mShape = nullptr;
};

} // namespace bdt::bench
