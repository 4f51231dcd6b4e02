#pragma once

// Brute-force oracles and fixtures shared by the geometry and BD-Tree query tests.

#include <array>
#include <bdt/core/geometry/Contact.h>
#include <bdt/core/queries/TreeQueries.h>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <vector>

namespace bdt::test
{

/// A triangle by value (three vertices, any frame).
using Tri = std::array<Vec3d, 3>;

/// Uniform in [inLo, inHi).
double Uniform(std::mt19937& ioRandom, double inLo, double inHi);
/// Uniform in the cube [−inScale, inScale]³.
Vec3d RandomPoint(std::mt19937& ioRandom, double inScale = 1.0);
/// Three independent `RandomPoint`s.
Tri RandomTriangle(std::mt19937& ioRandom, double inScale = 1.0);
/// Uniform unit vector.
Vec3d RandomDirection(std::mt19937& ioRandom);
/// Uniform rotation (normalised Gaussian quaternion).
Mat3d RandomRotation(std::mt19937& ioRandom);

/// Segment [inP, inQ] vs closed triangle in plain doubles (Möller–Trumbore): the segment parameter in [0, 1]
/// of the crossing, or nullopt. Independent of the library's exact tests; valid away from borderline cases.
std::optional<double> OracleSegmentParameter(const Vec3d& inP, const Vec3d& inQ, const Tri& inT);

/// True when inX lies on the triangle within inTolerance (barycentric coordinates and distance to the plane).
bool OnTriangle(const Vec3d& inX, const Tri& inT, double inTolerance);

/// A deformable body for the query tests: shared tree, its own state at some proxy level, a pose.
struct QueryBody
{
    std::shared_ptr<const BDTree> tree;
    std::unique_ptr<TreeState> state;
    Pose pose;

    QueryBody(std::shared_ptr<const BDTree> inTree, std::uint32_t inProxyLevel);
    DeformedBody Body() const { return {state.get(), pose}; }
    /// Switches the state to proxy level inLevel (clamped to the deepest level).
    void SetLevel(std::uint32_t inLevel);
    /// `ModelRadius` of the tree's model.
    double Size() const;
    /// Centre of the rest bounding box, in world.
    Vec3d WorldCenter() const;
};

/// Every deformed triangle of the body in world, computed as the queries do (`DeformedTriangle`, then
/// `Pose::Apply` on each vertex).
std::vector<Tri> WorldTriangles(const QueryBody& inBody);

/// All pairs (i, j) with `TrianglesIntersect(inA[i], inB[j])`, sorted. An exact box rejection (closed boxes
/// of the same doubles) skips pairs that cannot intersect; it changes no answer.
std::vector<TrianglePair> BruteForcePairs(const std::vector<Tri>& inA, const std::vector<Tri>& inB);

/// The proxy node above triangle inTriangle (tree order).
std::uint32_t ProxyOf(const ContactProxies& inProxies, std::uint32_t inTriangle);
/// Every proxy node of the level.
std::vector<std::uint32_t> ProxyNodes(const ContactProxies& inProxies);
/// The updated sphere of a node, centre in world.
Sphere WorldNodeSphere(QueryBody& ioBody, std::uint32_t inNode);

} // namespace bdt::test
