#include "DeformVertices.h"

#include <cassert>

namespace bdt::bench
{

void DeformVertices(const Model& inModel, std::span<const float> inQ, std::span<Vec3f> outVertices)
{
    const std::size_t m = inModel.ModeCount();
    assert(inQ.size() == m && outVertices.size() == inModel.VertexCount());
    const std::span<const Vec3f> rest = inModel.Positions();
    const float* u = inModel.Basis().data();
    for (std::size_t i = 0; i < rest.size(); ++i, u += 3 * m)
    {
        float x = rest[i].x(), y = rest[i].y(), z = rest[i].z();
        for (std::size_t j = 0; j < m; ++j)
        {
            x += u[3 * j] * inQ[j];
            y += u[3 * j + 1] * inQ[j];
            z += u[3 * j + 2] * inQ[j];
        }
        outVertices[i] = Vec3f(x, y, z);
    }
}

} // namespace bdt::bench
