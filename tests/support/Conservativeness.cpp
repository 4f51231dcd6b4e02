#include "support/Conservativeness.h"

#include "support/TestModels.h"

#include <gtest/gtest.h>

namespace bdt::test
{

NodeVertexTable::NodeVertexTable(const BDTree& inTree)
{
    mVertices.resize(inTree.NodeCount());
    for (std::uint32_t i = 0; i < inTree.NodeCount(); ++i)
        mVertices[i] = NodeVertices(inTree, i);
}

std::uint64_t ExpectSpheresContainVertices(TreeState& ioState, const NodeVertexTable& inVertices,
                                           std::uint32_t inNodeEnd, const std::string& inContext)
{
    const Model& model = ioState.Tree().GetModel();
    const auto q = ioState.Q();
    std::vector<Vec3d> deformed(model.VertexCount());
    for (std::size_t v = 0; v < deformed.size(); ++v)
        deformed[v] = model.DeformedPosition(v, q);
    std::uint64_t checks = 0;
    int failures = 0;
    for (std::uint32_t i = 0; i < inNodeEnd; ++i)
    {
        const UpdatedSphere s = ioState.Sphere(i);
        const Vec3d center(s.center[0], s.center[1], s.center[2]);
        for (std::uint32_t v : inVertices.Of(i))
        {
            ++checks;
            const double distance = (deformed[v] - center).norm();
            if (distance > s.radius && failures++ < 5)
                ADD_FAILURE() << inContext << ": node " << i << " vertex " << v << " lies " << distance - s.radius
                              << " outside its sphere of radius " << s.radius;
        }
    }
    return checks;
}

} // namespace bdt::test
