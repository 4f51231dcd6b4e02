#include "GImpactMesh.h"

#include "reference/BallTriangles.h"

#include <BulletCollision/CollisionShapes/btTriangleIndexVertexArray.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>

namespace bdt::bench
{
namespace
{

btAABB BallBox(const Sphere& inBall)
{
    const btVector3 c(btScalar(inBall.center.x()), btScalar(inBall.center.y()), btScalar(inBall.center.z()));
    const btScalar r = btScalar(inBall.radius * (1.0 + 1e-6));
    btAABB box;
    box.m_min = c - btVector3(r, r, r);
    box.m_max = c + btVector3(r, r, r);
    return box;
}

} // namespace

GImpactMesh::GImpactMesh(const Model& inModel) : mModel(inModel)
{
    for (const Triangle& t : inModel.Triangles())
        for (const std::uint32_t v : t)
            mIndices.push_back(int(v));
    mVertices.resize(3 * inModel.VertexCount());
    mMesh = std::make_unique<btTriangleIndexVertexArray>(int(inModel.TriangleCount()), mIndices.data(),
                                                         int(3 * sizeof(int)), int(inModel.VertexCount()),
                                                         mVertices.data(), int(3 * sizeof(btScalar)));
    mOwned = std::make_unique<btGImpactMeshShape>(mMesh.get());
    mShape = mOwned.get();
    Update(inModel.Positions());
}

GImpactMesh::~GImpactMesh() = default;

std::unique_ptr<btGImpactMeshShape> GImpactMesh::ReleaseShape()
{
    return std::move(mOwned);
}

void GImpactMesh::Update(std::span<const Vec3f> inVertices)
{
    for (std::size_t i = 0; i < inVertices.size(); ++i)
        for (int axis = 0; axis < 3; ++axis)
            mVertices[3 * i + axis] = btScalar(inVertices[i][axis]);
    mShape->postUpdate();
    mShape->updateBound();
}

void GImpactMesh::QueryBall(const Sphere& inBall, std::span<const Vec3f> inVertices,
                            btAlignedObjectArray<int>& ioCandidates, std::vector<std::uint32_t>& outTriangles,
                            QueryStats& ioStats) const
{
    ioCandidates.resize(0);
    mShape->getMeshPart(0)->getBoxSet()->boxQuery(BallBox(inBall), ioCandidates);
    for (int k = 0; k < ioCandidates.size(); ++k)
        TestBallTriangle(mModel, std::uint32_t(ioCandidates[k]), inVertices, inBall, outTriangles, ioStats);
}

std::uint64_t GImpactMesh::CountBallTests(const Sphere& inBall) const
{
    const btGImpactBoxSet& set = *mShape->getMeshPart(0)->getBoxSet();
    const btAABB box = BallBox(inBall);
    std::uint64_t tests = 0;
    for (int node = 0; node < set.getNodeCount();)
    {
        btAABB bound;
        set.getNodeBound(node, bound);
        ++tests;
        const bool overlap = bound.has_collision(box);
        node += overlap || set.isLeafNode(node) ? 1 : set.getEscapeNodeIndex(node);
    }
    return tests;
}

} // namespace bdt::bench
