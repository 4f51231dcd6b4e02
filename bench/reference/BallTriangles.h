#pragma once

#include <bdt/core/geometry/Contact.h>
#include <bdt/core/model/Model.h>
#include <span>
#include <vector>

namespace bdt::bench
{

/// The exact leaf test of the refitted baselines: whether triangle `inTriangle` of `inModel`, with the
/// deformed float vertices `inVertices` (converted to double), touches the solid ball
/// (`TriangleSphereContact`). Appends it to `outTriangles` if it does; counts a triangle test and, if found,
/// a contact in `ioStats`. Cost about 250 flops.
void TestBallTriangle(const Model& inModel, std::uint32_t inTriangle, std::span<const Vec3f> inVertices,
                      const Sphere& inBall, std::vector<std::uint32_t>& outTriangles, QueryStats& ioStats);

} // namespace bdt::bench
