#include "support/QueryOracles.h"

#include "support/TestModels.h"

#include "core/geometry/TriangleGeometry.h"

#include <Eigen/QR>
#include <cmath>

namespace bdt::test
{

double Uniform(std::mt19937& ioRandom, double inLo, double inHi)
{
    return std::uniform_real_distribution<double>(inLo, inHi)(ioRandom);
}

Vec3d RandomPoint(std::mt19937& ioRandom, double inScale)
{
    std::uniform_real_distribution<double> uniform(-inScale, inScale);
    const double x = uniform(ioRandom);
    const double y = uniform(ioRandom);
    return {x, y, uniform(ioRandom)};
}

Tri RandomTriangle(std::mt19937& ioRandom, double inScale)
{
    const Vec3d a = RandomPoint(ioRandom, inScale);
    const Vec3d b = RandomPoint(ioRandom, inScale);
    return {a, b, RandomPoint(ioRandom, inScale)};
}

Vec3d RandomDirection(std::mt19937& ioRandom)
{
    std::normal_distribution<double> normal;
    const double x = normal(ioRandom);
    const double y = normal(ioRandom);
    return Vec3d(x, y, normal(ioRandom)).normalized();
}

Mat3d RandomRotation(std::mt19937& ioRandom)
{
    std::normal_distribution<double> normal;
    const double w = normal(ioRandom);
    const double x = normal(ioRandom);
    const double y = normal(ioRandom);
    const Eigen::Quaterniond q(w, x, y, normal(ioRandom));
    return q.normalized().toRotationMatrix();
}

std::optional<double> OracleSegmentParameter(const Vec3d& inP, const Vec3d& inQ, const Tri& inT)
{
    const Vec3d d = inQ - inP;
    const Vec3d e1 = inT[1] - inT[0];
    const Vec3d e2 = inT[2] - inT[0];
    const Vec3d h = d.cross(e2);
    const double det = e1.dot(h);
    if (std::abs(det) < 1e-300)
        return std::nullopt;
    const Vec3d s = inP - inT[0];
    const double u = s.dot(h) / det;
    const Vec3d qv = s.cross(e1);
    const double v = d.dot(qv) / det;
    const double t = e2.dot(qv) / det;
    if (u < 0 || v < 0 || u + v > 1 || t < 0 || t > 1)
        return std::nullopt;
    return t;
}

bool OnTriangle(const Vec3d& inX, const Tri& inT, double inTolerance)
{
    Eigen::Matrix<double, 3, 2> m;
    m.col(0) = inT[1] - inT[0];
    m.col(1) = inT[2] - inT[0];
    const Eigen::Vector2d uv = m.colPivHouseholderQr().solve(inX - inT[0]);
    const Vec3d w(1 - uv.x() - uv.y(), uv.x(), uv.y());
    const Vec3d back = w.x() * inT[0] + w.y() * inT[1] + w.z() * inT[2];
    return w.minCoeff() >= -inTolerance && (back - inX).norm() <= inTolerance;
}

QueryBody::QueryBody(std::shared_ptr<const BDTree> inTree, std::uint32_t inProxyLevel)
    : tree(std::move(inTree))
{
    state = std::make_unique<TreeState>(std::make_shared<const ContactProxies>(tree, inProxyLevel));
}

void QueryBody::SetLevel(std::uint32_t inLevel)
{
    state->SetProxies(std::make_shared<const ContactProxies>(tree, inLevel));
}

double QueryBody::Size() const
{
    return ModelRadius(tree->GetModel());
}

Vec3d QueryBody::WorldCenter() const
{
    return pose.Apply(tree->GetModel().RestBounds().center().cast<double>());
}

std::vector<Tri> WorldTriangles(const QueryBody& inBody)
{
    std::vector<Tri> triangles(inBody.tree->GetModel().TriangleCount());
    for (std::uint32_t t = 0; t < triangles.size(); ++t)
    {
        Vec3d v[3];
        DeformedTriangle(*inBody.state, t, v);
        triangles[t] = {inBody.pose.Apply(v[0]), inBody.pose.Apply(v[1]), inBody.pose.Apply(v[2])};
    }
    return triangles;
}

std::vector<TrianglePair> BruteForcePairs(const std::vector<Tri>& inA, const std::vector<Tri>& inB)
{
    auto bounds = [](const Tri& inT) -> std::array<Vec3d, 2> {
        return {inT[0].cwiseMin(inT[1]).cwiseMin(inT[2]), inT[0].cwiseMax(inT[1]).cwiseMax(inT[2])};
    };
    std::vector<std::array<Vec3d, 2>> boxesB(inB.size());
    for (std::size_t j = 0; j < inB.size(); ++j)
        boxesB[j] = bounds(inB[j]);
    std::vector<TrianglePair> pairs;
    for (std::uint32_t i = 0; i < inA.size(); ++i)
    {
        const auto box = bounds(inA[i]);
        const Vec3d a[3] = {inA[i][0], inA[i][1], inA[i][2]};
        for (std::uint32_t j = 0; j < inB.size(); ++j)
        {
            if ((box[0].array() > boxesB[j][1].array()).any() ||
                (box[1].array() < boxesB[j][0].array()).any())
                continue;
            const Vec3d b[3] = {inB[j][0], inB[j][1], inB[j][2]};
            if (TrianglesIntersect(a, b))
                pairs.push_back({i, j});
        }
    }
    return pairs;
}

std::uint32_t ProxyOf(const ContactProxies& inProxies, std::uint32_t inTriangle)
{
    const BDTree& tree = inProxies.Tree();
    std::uint32_t node = 0;
    while (!inProxies.IsProxy(node))
    {
        const BDTreeNode& left = tree.Node(tree.Node(node).firstChild);
        const bool inLeft = inTriangle < left.firstTriangle + left.triangleCount;
        node = tree.Node(node).firstChild + (inLeft ? 0 : 1);
    }
    return node;
}

std::vector<std::uint32_t> ProxyNodes(const ContactProxies& inProxies)
{
    std::vector<std::uint32_t> nodes;
    for (std::uint32_t n = 0; n < inProxies.VisitCount(); ++n)
        if (inProxies.IsProxy(n))
            nodes.push_back(n);
    return nodes;
}

Sphere WorldNodeSphere(QueryBody& ioBody, std::uint32_t inNode)
{
    const UpdatedSphere s = ioBody.state->Sphere(inNode);
    return {ioBody.pose.Apply(Vec3d(s.center[0], s.center[1], s.center[2])), double(s.radius)};
}

} // namespace bdt::test
