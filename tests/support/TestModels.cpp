#include "support/TestModels.h"

#include <bdt/bake/MeshImport.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/model/ProceduralShapes.h>

#include <algorithm>
#include <stdexcept>

namespace bdt::test
{

std::vector<float> RandomQ(std::uint32_t inModes, double inAmplitude, std::mt19937& ioRandom)
{
    std::uniform_real_distribution<double> uniform(-inAmplitude, inAmplitude);
    std::vector<float> q(inModes);
    for (float& value : q)
        value = static_cast<float>(uniform(ioRandom));
    return q;
}

Model SmoothModel(std::vector<Vec3f> inPositions, std::vector<Triangle> inTriangles, std::uint32_t inModes)
{
    return MakeSmoothModel(std::move(inPositions), std::move(inTriangles), inModes);
}

std::shared_ptr<const BDTree> ShapeTree(const char* inShape, std::uint32_t inTriangles, std::uint32_t inModes)
{
    const auto shape = ShapeFromName(inShape);
    if (!shape)
        throw std::invalid_argument(std::string("unknown shape ") + inShape);
    ShapeMesh mesh = MakeShape(*shape, inTriangles);
    return std::make_shared<const BDTree>(
        BDTree::Build(SmoothModel(std::move(mesh.positions), std::move(mesh.triangles), inModes)));
}

std::shared_ptr<const BDTree> AssimpTree(const std::string& inRelativePath, std::uint32_t inModes)
{
    ImportedMesh mesh = ImportMesh(std::string(BDT_ASSIMP_MODELS) + "/" + inRelativePath);
    return std::make_shared<const BDTree>(
        BDTree::Build(SmoothModel(std::move(mesh.positions), std::move(mesh.triangles), inModes)));
}

double ModelRadius(const Model& inModel) { return 0.5 * double(inModel.RestBounds().diagonal().norm()); }

std::vector<std::uint32_t> NodeVertices(const BDTree& inTree, std::uint32_t inNode)
{
    const BDTreeNode& node = inTree.Node(inNode);
    std::vector<std::uint32_t> vertices;
    const auto triangles = inTree.GetModel().Triangles();
    for (std::uint32_t t = node.firstTriangle; t < node.firstTriangle + node.triangleCount; ++t)
        vertices.insert(vertices.end(), triangles[t].begin(), triangles[t].end());
    std::sort(vertices.begin(), vertices.end());
    vertices.erase(std::unique(vertices.begin(), vertices.end()), vertices.end());
    return vertices;
}

} // namespace bdt::test
