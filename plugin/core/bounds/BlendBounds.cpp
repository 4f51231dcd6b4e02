#include "BlendBounds.h"
#include "core/geometry/TriangleGeometry.h"

#include <algorithm>
#include <bdt/core/base/Error.h>
#include <cmath>
#include <functional>
#include <limits>

namespace bdt
{

const std::array<Vec3d, 7>& DopAxes()
{
    static const std::array<Vec3d, 7> axes = {Vec3d(1, 0, 0),  Vec3d(0, 1, 0),  Vec3d(0, 0, 1),
                                              Vec3d(1, 1, 1),  Vec3d(1, 1, -1), Vec3d(1, -1, 1),
                                              Vec3d(1, -1, -1)};
    return axes;
}

BlendBoundsTree BlendBoundsTree::Build(std::shared_ptr<const BlendedMesh> inMesh)
{
    if (!inMesh)
        throw Error("BlendBoundsTree::Build: no mesh given");
    BlendBoundsTree tree;
    tree.mMesh = std::move(inMesh);
    const BlendedMesh& mesh = *tree.mMesh;
    ModelData rest;
    rest.positions.assign(mesh.Positions().begin(), mesh.Positions().end());
    rest.triangles.assign(mesh.Triangles().begin(), mesh.Triangles().end());
    tree.mTopology = std::make_shared<const BDTree>(BDTree::Build(Model::Create(std::move(rest))));
    const BDTree& topology = *tree.mTopology;
    const std::uint32_t count = topology.NodeCount();
    tree.mRestCentre.resize(count);
    tree.mRestHalf.resize(count);
    tree.mLowSum.resize(count);
    tree.mInfluenceStart.assign(1, 0);
    tree.mVertexStart.assign(1, 0);
    // Per simulation node: the least and largest weight over the node's vertices, and how many named it.
    std::vector<float> low(mesh.NodeCount()), high(mesh.NodeCount(), 0.0f);
    std::vector<std::uint32_t> named(mesh.NodeCount(), 0);
    std::vector<std::uint32_t> touched;
    ForEachNodeVertices(topology.GetModel(), topology.Nodes(),
                        [&](std::uint32_t inNode, std::span<const std::uint32_t> inVertices)
                        {
                            Vec3d lo = Vec3d::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
                            touched.clear();
                            for (std::uint32_t v : inVertices)
                            {
                                const Vec3d p = mesh.Positions()[v].cast<double>();
                                lo = lo.cwiseMin(p);
                                hi = hi.cwiseMax(p);
                                for (const BlendWeight& w : mesh.Weights(v))
                                {
                                    if (named[w.node] == 0)
                                    {
                                        touched.push_back(w.node);
                                        low[w.node] = w.weight;
                                        high[w.node] = w.weight;
                                    }
                                    low[w.node] = std::min(low[w.node], w.weight);
                                    high[w.node] = std::max(high[w.node], w.weight);
                                    ++named[w.node];
                                }
                            }
                            tree.mRestCentre[inNode] = 0.5 * (lo + hi);
                            tree.mRestHalf[inNode] = 0.5 * (hi - lo);
                            std::sort(touched.begin(), touched.end());
                            double lowSum = 0.0;
                            for (std::uint32_t j : touched)
                            {
                                // A node not named by every vertex has weight 0 at some of them.
                                const float l = named[j] == inVertices.size() ? low[j] : 0.0f;
                                tree.mInfluences.push_back({j, l, high[j]});
                                lowSum += l;
                                named[j] = 0;
                            }
                            tree.mLowSum[inNode] = lowSum;
                            tree.mInfluenceStart.push_back(std::uint32_t(tree.mInfluences.size()));
                            tree.mVertices.insert(tree.mVertices.end(), inVertices.begin(), inVertices.end());
                            tree.mVertexStart.push_back(std::uint32_t(tree.mVertices.size()));
                        });
    return tree;
}

std::size_t BlendBoundsTree::MemoryBytes() const
{
    return mRestCentre.size() * 2 * sizeof(Vec3d) + mLowSum.size() * sizeof(double) +
           mInfluences.size() * sizeof(Influence) +
           (mInfluenceStart.size() + mVertices.size() + mVertexStart.size()) * sizeof(std::uint32_t);
}

// Why eq. 12 bounds the maximum of Σ_j w_j b_j over {l ≤ w ≤ h, Σ w = 1} (Steinemann et al., Appendix A, in
// our words): let b_{j1} ≥ b_{j2} ≥ every other b_j and w any admissible vector. With δ_j = w_j − l_j ≥ 0 for
// j ≠ j1, Σ_j w_j b_j ≤ w_{j1} b_{j1} + Σ_{j≠j1} l_j b_j + (Σ_{j≠j1} δ_j) b_{j2}, and Σ_{j≠j1} δ_j =
// 1 − w_{j1} − Σ_{j≠j1} l_j. That is linear in w_{j1} with slope b_{j1} − b_{j2} ≥ 0, so at most its value at
// w_{j1} = h_{j1}, which is eq. 12. With one influencing node, w = 1 and the bound is b_{j1}.
Dop RefitDop(const BlendBoundsTree& inTree, std::uint32_t inNode,
             std::span<const AffineTransform> inTransforms, EDop inKind)
{
    const int axes = AxisCount(inKind);
    const int directions = 2 * axes; // +a then −a for each axis
    const Vec3d& c0 = inTree.RestCentre(inNode);
    const Vec3d& h0 = inTree.RestHalf(inNode);
    const auto influences = inTree.Influences(inNode);
    // Per direction: the two largest b_j (value and its node's l, h), Σ l_j b_j, and the largest |b_j|.
    std::array<double, 14> best, second, bestLow, bestHigh, secondLow, lowDot, magnitude;
    best.fill(-std::numeric_limits<double>::infinity());
    second = best;
    bestLow.fill(0.0);
    bestHigh.fill(0.0);
    secondLow.fill(0.0);
    lowDot.fill(0.0);
    magnitude.fill(0.0);
    for (const BlendBoundsTree::Influence& influence : influences)
    {
        const AffineTransform& t = inTransforms[influence.node];
        const Vec3d centre = t.Apply(c0);
        for (int a = 0; a < axes; ++a)
        {
            const Vec3d& d = DopAxes()[a];
            const Vec3d row = t.linear.transpose() * d; // d·A e_i for each i
            const double p = d.dot(centre);
            const double r = row.cwiseAbs().dot(h0);
            const double b[2] = {p + r, -p + r};
            for (int s = 0; s < 2; ++s)
            {
                const int k = 2 * a + s;
                lowDot[k] += double(influence.low) * b[s];
                magnitude[k] = std::max(magnitude[k], std::abs(b[s]));
                if (b[s] > best[k])
                {
                    second[k] = best[k];
                    secondLow[k] = bestLow[k];
                    best[k] = b[s];
                    bestLow[k] = influence.low;
                    bestHigh[k] = influence.high;
                }
                else if (b[s] > second[k])
                {
                    second[k] = b[s];
                    secondLow[k] = influence.low;
                }
            }
        }
    }
    Dop dop;
    for (int k = 0; k < directions; ++k)
    {
        double extreme = best[k];
        if (influences.size() > 1)
        {
            const double othersLow = inTree.LowSum(inNode) - bestLow[k] - secondLow[k];
            const double othersDot = lowDot[k] - bestLow[k] * best[k] - secondLow[k] * second[k];
            extreme = bestHigh[k] * best[k] + (1.0 - bestHigh[k] - othersLow) * second[k] + othersDot;
        }
        // Float weights sum to 1 within a few 1e-7, and the sums above round: both covered by 1e-5 of the
        // largest |b_j| (and a whisker for coordinates near 0).
        extreme += 1e-5 * magnitude[k] + 1e-12;
        const int a = k / 2;
        if (k % 2 == 0)
            dop.hi[a] = extreme;
        else
            dop.lo[a] = -extreme;
    }
    return dop;
}

namespace
{

// The k-DOP of the node's vertices at the positions `inPositionOf(v)` gives, raised by 1e-12 of the values.
template <class PositionOf>
Dop DopOfVertices(const BlendBoundsTree& inTree, std::uint32_t inNode, EDop inKind, PositionOf&& inPositionOf)
{
    const int axes = AxisCount(inKind);
    Dop dop;
    dop.lo.fill(std::numeric_limits<double>::infinity());
    dop.hi.fill(-std::numeric_limits<double>::infinity());
    for (std::uint32_t v : inTree.NodeVertices(inNode))
    {
        const Vec3d& p = inPositionOf(v);
        for (int a = 0; a < axes; ++a)
        {
            const double x = DopAxes()[a].dot(p);
            dop.lo[a] = std::min(dop.lo[a], x);
            dop.hi[a] = std::max(dop.hi[a], x);
        }
    }
    for (int a = 0; a < axes; ++a)
    {
        const double slack = 1e-12 * (std::abs(dop.lo[a]) + std::abs(dop.hi[a])) + 1e-300;
        dop.lo[a] -= slack;
        dop.hi[a] += slack;
    }
    return dop;
}

} // namespace

Dop ExactDop(const BlendBoundsTree& inTree, std::uint32_t inNode,
             std::span<const AffineTransform> inTransforms, EDop inKind)
{
    return DopOfVertices(inTree, inNode, inKind,
                         [&](std::uint32_t inVertex)
                         { return inTree.Mesh().DeformedPosition(inVertex, inTransforms); });
}

double DopRadius(const Dop& inDop)
{
    return 0.5 *
           Vec3d(inDop.hi[0] - inDop.lo[0], inDop.hi[1] - inDop.lo[1], inDop.hi[2] - inDop.lo[2]).norm();
}

bool DopsOverlap(const Dop& inA, const Dop& inB, EDop inKind)
{
    for (int a = 0; a < AxisCount(inKind); ++a)
        if (inA.hi[a] < inB.lo[a] || inB.hi[a] < inA.lo[a])
            return false;
    return true;
}

BlendBoundsState::BlendBoundsState(std::shared_ptr<const BlendBoundsTree> inTree, EDop inKind)
    : mTree(std::move(inTree)), mKind(inKind)
{
    if (!mTree)
        throw Error("BlendBoundsState: no tree given");
    const std::uint32_t count = mTree->Topology().NodeCount();
    mTransforms.assign(mTree->Mesh().NodeCount(), AffineTransform());
    mBounds.resize(count);
    mStamp.assign(count, 0);
    mVisited.assign(count, 0);
    mVertices.resize(mTree->Mesh().VertexCount());
    mVertexStamp.assign(mVertices.size(), 0);
}

const Vec3d& BlendBoundsState::Vertex(std::uint32_t inVertex)
{
    if (mVertexStamp[inVertex] != mEpoch)
    {
        mVertices[inVertex] = mTree->Mesh().DeformedPosition(inVertex, mTransforms);
        mVertexStamp[inVertex] = mEpoch;
    }
    return mVertices[inVertex];
}

bool BlendBoundsState::SetTransforms(std::span<const AffineTransform> inTransforms)
{
    if (inTransforms.size() != mTransforms.size())
        return false;
    for (const AffineTransform& t : inTransforms)
        if (!t.IsFinite())
            return false;
    std::copy(inTransforms.begin(), inTransforms.end(), mTransforms.begin());
    if (++mEpoch == 0)
    {
        std::fill(mStamp.begin(), mStamp.end(), 0u);
        std::fill(mVisited.begin(), mVisited.end(), 0u);
        std::fill(mVertexStamp.begin(), mVertexStamp.end(), 0u);
        mEpoch = 2;
    }
    if (mFrontTracking)
        RefitFront();
    else
        mVisitedList.clear();
    return true;
}

void BlendBoundsState::RefitFront()
{
    // Last step's visited nodes form a subtree from the root in which an inner node was split with both its
    // children or not at all (the descent tests both). Its bottom nodes are refitted by eq. 12 (exactly at
    // leaves) and every node above them bounds its two children: nodes are stored breadth first, so children
    // come after their parent, and a walk from the last index up meets children first.
    const BDTree& topology = mTree->Topology();
    std::sort(mVisitedList.begin(), mVisitedList.end(), std::greater<std::uint32_t>());
    for (const std::uint32_t node : mVisitedList)
    {
        const BDTreeNode& n = topology.Node(node);
        if (!n.IsLeaf() && mStamp[n.firstChild] == mEpoch && mStamp[n.firstChild + 1] == mEpoch)
        {
            const Dop& left = mBounds[n.firstChild];
            const Dop& right = mBounds[n.firstChild + 1];
            Dop& dop = mBounds[node];
            for (int a = 0; a < AxisCount(mKind); ++a)
            {
                dop.lo[a] = std::min(left.lo[a], right.lo[a]);
                dop.hi[a] = std::max(left.hi[a], right.hi[a]);
            }
            ++mChildUnions;
        }
        else
            mBounds[node] = Compute(node);
        mStamp[node] = mEpoch;
    }
    mVisitedList.clear();
}

Dop BlendBoundsState::Compute(std::uint32_t inNode)
{
    if (mTree->Topology().Node(inNode).IsLeaf())
    {
        ++mExactFits;
        return DopOfVertices(*mTree, inNode, mKind,
                             [this](std::uint32_t inVertex) -> const Vec3d& { return Vertex(inVertex); });
    }
    ++mRefits;
    return RefitDop(*mTree, inNode, mTransforms, mKind);
}

const Dop& BlendBoundsState::Bound(std::uint32_t inNode)
{
    if (mVisited[inNode] != mEpoch)
    {
        mVisited[inNode] = mEpoch;
        mVisitedList.push_back(inNode);
    }
    if (mStamp[inNode] != mEpoch)
    {
        mBounds[inNode] = Compute(inNode);
        mStamp[inNode] = mEpoch;
    }
    return mBounds[inNode];
}

void CollideBlended(BlendBoundsState& ioA, BlendBoundsState& ioB, std::vector<TrianglePair>& outPairs,
                    QueryStats& ioStats)
{
    const BDTree& treeA = ioA.Tree().Topology();
    const BDTree& treeB = ioB.Tree().Topology();
    const EDop kind = ioA.Kind() == EDop::Box6 || ioB.Kind() == EDop::Box6 ? EDop::Box6 : EDop::Dop14;
    const auto worldTriangle = [](BlendBoundsState& inState, std::uint32_t inTriangle, Vec3d(&outVertices)[3])
    {
        const Triangle& t = inState.Tree().TreeTriangle(inTriangle);
        for (int k = 0; k < 3; ++k)
            outVertices[k] = inState.Vertex(t[k]);
    };
    std::vector<std::pair<std::uint32_t, std::uint32_t>> stack{{0, 0}};
    while (!stack.empty())
    {
        const auto [nodeA, nodeB] = stack.back();
        stack.pop_back();
        const Dop& a = ioA.Bound(nodeA);
        const Dop& b = ioB.Bound(nodeB);
        ++ioStats.overlapTests;
        if (!DopsOverlap(a, b, kind))
            continue;
        const BDTreeNode& na = treeA.Node(nodeA);
        const BDTreeNode& nb = treeB.Node(nodeB);
        if (na.IsLeaf() && nb.IsLeaf())
        {
            for (std::uint32_t ta = na.firstTriangle; ta < na.firstTriangle + na.triangleCount; ++ta)
            {
                Vec3d va[3];
                worldTriangle(ioA, ta, va);
                for (std::uint32_t tb = nb.firstTriangle; tb < nb.firstTriangle + nb.triangleCount; ++tb)
                {
                    Vec3d vb[3];
                    worldTriangle(ioB, tb, vb);
                    ++ioStats.triangleTests;
                    if (TrianglesIntersect(va, vb))
                    {
                        outPairs.push_back({ta, tb});
                        ++ioStats.contacts;
                    }
                }
            }
            continue;
        }
        if (!na.IsLeaf() && (nb.IsLeaf() || DopRadius(a) >= DopRadius(b)))
        {
            stack.push_back({na.firstChild + 1, nodeB});
            stack.push_back({na.firstChild, nodeB});
        }
        else
        {
            stack.push_back({nodeA, nb.firstChild + 1});
            stack.push_back({nodeA, nb.firstChild});
        }
    }
}

} // namespace bdt
