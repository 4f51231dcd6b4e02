#include "BallTriangles.h"

#include "core/geometry/TriangleGeometry.h"

namespace bdt::bench
{

void TestBallTriangle(const Model& inModel, std::uint32_t inTriangle, std::span<const Vec3f> inVertices,
                      const Sphere& inBall, std::vector<std::uint32_t>& outTriangles, QueryStats& ioStats)
{
    const Triangle& t = inModel.Triangles()[inTriangle];
    const Vec3d corners[3] = {inVertices[t[0]].cast<double>(), inVertices[t[1]].cast<double>(),
                              inVertices[t[2]].cast<double>()};
    ++ioStats.triangleTests;
    if (TriangleSphereContact(corners, inBall))
    {
        outTriangles.push_back(inTriangle);
        ++ioStats.contacts;
    }
}

} // namespace bdt::bench
