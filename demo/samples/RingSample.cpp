// "Ring": the scene of Steinemann, Otaduy & Gross 2008 (Fig. 6). Six pawns carried by simulation nodes (a
// meshless deformation: each vertex a convex combination of its nearest nodes' affine transforms) hang from a
// ring that turns back and forth; they swing and twist, more the lower a point is, and collide. Every step
// the six are collided down to their intersecting triangles with k-DOP trees refitted from the node
// transforms alone (eq. 12), optionally with front tracking; the intersecting triangles are outlined, and the
// panel shows the work. The meshes are drawn by the GPU deformer like every body: a blended mesh is a reduced
// model with M = 12n (`BlendedMesh::ToReducedModel`).
#include "app/Sample.h"

#include "core/bounds/BlendBounds.h"

#include <array>
#include <bdt/bake/MeshlessNodes.h>
#include <bdt/bake/SmoothBasis.h>
#include <bdt/core/model/ProceduralShapes.h>
#include <chrono>
#include <cmath>
#include <imgui.h>

namespace bdt::demo
{
namespace
{

constexpr std::uint32_t cModels = 6;
constexpr std::uint32_t cNodes = 24;
constexpr double cRingRadius = 0.62; // m: the pawns' bases (0.6 m) clear each other at rest
constexpr double cRingHeight = 1.98; // m: the pawns' tops hang here

// Model `inModel`'s deformation at time `inTime`: turned with the ring, swinging along the ring's tangent and
// twisting about its axis, both growing from the top (held by the ring) down.
DeformationMap Hanging(std::uint32_t inModel, double inTime, double inSwing)
{
    const double ringAngle = 0.6 * std::sin(2.0 * M_PI * inTime / 3.0) + 2.0 * M_PI * inModel / cModels;
    const double swing = inSwing * std::sin(2.0 * M_PI * inTime / 1.5 + 0.7 * inModel);
    const double twist = 0.6 * std::sin(2.0 * M_PI * inTime / 2.0 + inModel);
    return [=](const Vec3d& inX)
    {
        const double below = 0.48 - inX.y();
        const double c = std::cos(twist * below), s = std::sin(twist * below);
        const double bend = swing * below;
        const Vec3d local(c * inX.x() - s * inX.z() + 0.5 * bend * below,
                          inX.y() - 0.1 * std::abs(bend) * below, s * inX.x() + c * inX.z());
        return Vec3d(Eigen::AngleAxisd(ringAngle, Vec3d::UnitY()) *
                     (local + Vec3d(0.0, cRingHeight - 0.48, cRingRadius)));
    };
}

class RingSample final : public Sample
{
public:
    void Build(SampleWorld&, const SampleOptions&) override
    {
        ShapeMesh shape = MakeShape(EShape::Pawn, 6000);
        MeshlessNodes sampled =
            SampleMeshlessNodes(std::move(shape.positions), std::move(shape.triangles), cNodes, 4);
        mNodes = std::move(sampled.nodePositions);
        mMesh = std::make_shared<const BlendedMesh>(BlendedMesh::Create(std::move(sampled.mesh)));
        mTree = std::make_shared<const BlendBoundsTree>(BlendBoundsTree::Build(mMesh));
        ModelData data = mMesh->ToReducedModel().Data();
        data.normalBasis = MakeNormalBasis(data.positions, data.triangles, data.basis, data.modeCount);
        mModel = std::make_shared<const Model>(Model::Create(std::move(data)));
        MakeStates();
        mTransforms.assign(cModels, {});
        mPairs.assign(cModels * (cModels - 1) / 2, {});
    }

    void PreStep(SampleWorld&, double inTime) override
    {
        using Clock = std::chrono::steady_clock;
        if (mBuiltKind != mKind || mBuiltFront != mFront)
            MakeStates();
        for (std::uint32_t m = 0; m < cModels; ++m)
            mTransforms[m] = TransformsOfMap(Hanging(m, inTime, double(mSwing)), mNodes, 1e-4);
        const auto start = Clock::now();
        const std::uint64_t refitsBefore = Sum(&BlendBoundsState::Refits),
                            exactBefore = Sum(&BlendBoundsState::ExactFits),
                            unionsBefore = Sum(&BlendBoundsState::ChildUnions);
        QueryStats stats;
        for (std::uint32_t m = 0; m < cModels; ++m)
            (void)mStates[m].SetTransforms(mTransforms[m]);
        std::size_t pair = 0;
        for (std::uint32_t a = 0; a < cModels; ++a)
            for (std::uint32_t b = a + 1; b < cModels; ++b)
            {
                mPairs[pair].clear();
                CollideBlended(mStates[a], mStates[b], mPairs[pair], stats);
                ++pair;
            }
        mStep.microseconds = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
        mStep.boxTests = stats.overlapTests;
        mStep.trianglePairs = stats.contacts;
        mStep.refits = Sum(&BlendBoundsState::Refits) - refitsBefore;
        mStep.exactFits = Sum(&BlendBoundsState::ExactFits) - exactBefore;
        mStep.unions = Sum(&BlendBoundsState::ChildUnions) - unionsBefore;
        mTotalPairs += stats.contacts;
    }

    void Decorate(SceneDecoration& ioDecoration) const override
    {
        if (mTransforms.empty() || mTransforms[0].empty())
            return;
        static const std::array<Eigen::Vector4f, 3> colours = {Eigen::Vector4f(0.55f, 0.25f, 0.15f, 1.0f),
                                                               Eigen::Vector4f(0.20f, 0.35f, 0.55f, 1.0f),
                                                               Eigen::Vector4f(0.55f, 0.50f, 0.30f, 1.0f)};
        for (std::uint32_t m = 0; m < cModels; ++m)
            ioDecoration.meshes.push_back(
                {mModel, Pose::Identity(), mMesh->ReducedCoordinates(mTransforms[m]), colours[m % 3]});
        // The ring.
        const Eigen::Vector4f grey(0.2f, 0.2f, 0.2f, 1.0f);
        for (int k = 0; k < 48; ++k)
        {
            const float a0 = float(2.0 * M_PI * k / 48), a1 = float(2.0 * M_PI * (k + 1) / 48);
            const float r = float(cRingRadius), h = float(cRingHeight);
            ioDecoration.lines.push_back(
                {{r * std::sin(a0), h, r * std::cos(a0)}, {r * std::sin(a1), h, r * std::cos(a1)}, grey});
        }
        // The intersecting triangles, outlined in yellow.
        const Eigen::Vector4f yellow(1.0f, 0.85f, 0.1f, 1.0f);
        std::size_t pair = 0;
        for (std::uint32_t a = 0; a < cModels; ++a)
            for (std::uint32_t b = a + 1; b < cModels; ++b, ++pair)
                for (const TrianglePair& hit : mPairs[pair])
                    for (const auto& [model, triangle] :
                         {std::pair(a, hit.triangleA), std::pair(b, hit.triangleB)})
                    {
                        const Triangle& t = mTree->TreeTriangle(triangle);
                        Eigen::Vector3f v[3];
                        for (int k = 0; k < 3; ++k)
                            v[k] = mMesh->DeformedPosition(t[k], mTransforms[model]).cast<float>();
                        for (int k = 0; k < 3; ++k)
                            ioDecoration.lines.push_back({v[k], v[(k + 1) % 3], yellow});
                    }
        // The k-DOP boxes of one level of the first model, as refitted this step.
        if (mShowLevel >= 0)
            for (std::uint32_t node = 0; node < mTree->Topology().NodeCount(); ++node)
                if (mTree->Topology().Node(node).level == std::uint32_t(mShowLevel))
                    AddBox(RefitDop(*mTree, node, mTransforms[0], EDop::Box6), ioDecoration);
    }

    void DrawControls() override
    {
        ImGui::Combo("k-DOP", &mKind,
                     "AABB (6-DOP)\0"
                     "14-DOP\0");
        ImGui::Checkbox("front tracking (§4.2)", &mFront);
        ImGui::SliderFloat("swing", &mSwing, 0.0f, 1.0f, "%.2f");
        ImGui::SliderInt("boxes of level (-1 off)", &mShowLevel, -1, 12);
        ImGui::Text("%u nodes a pawn, %zu vertices; step %.0f us", cNodes, mMesh ? mMesh->VertexCount() : 0,
                    mStep.microseconds);
        ImGui::Text(
            "box tests %llu, eq. 12 refits %llu, exact leaves %llu, child unions %llu",
            static_cast<unsigned long long>(mStep.boxTests), static_cast<unsigned long long>(mStep.refits),
            static_cast<unsigned long long>(mStep.exactFits), static_cast<unsigned long long>(mStep.unions));
        ImGui::Text("intersecting triangle pairs %llu", static_cast<unsigned long long>(mStep.trianglePairs));
    }

    void AddStats(nlohmann::json& ioStats) const override
    {
        ioStats["ring_scene"] = {
            {"box_tests", mStep.boxTests},           {"refits", mStep.refits},
            {"exact_fits", mStep.exactFits},         {"child_unions", mStep.unions},
            {"triangle_pairs", mStep.trianglePairs}, {"triangle_pairs_total", mTotalPairs},
            {"microseconds", mStep.microseconds}};
    }

    CameraStart Camera() const override
    {
        CameraStart start;
        start.targetY = 1.3f;
        start.distance = 4.0f;
        start.pitch = 0.25f;
        return start;
    }

private:
    struct StepWork
    {
        std::uint64_t boxTests = 0, refits = 0, exactFits = 0, unions = 0, trianglePairs = 0;
        double microseconds = 0.0;
    };

    void MakeStates()
    {
        mStates.clear();
        for (std::uint32_t m = 0; m < cModels; ++m)
        {
            mStates.emplace_back(mTree, mKind == 0 ? EDop::Box6 : EDop::Dop14);
            mStates.back().SetFrontTracking(mFront);
        }
        mBuiltKind = mKind;
        mBuiltFront = mFront;
    }

    static void AddBox(const Dop& inDop, SceneDecoration& ioDecoration)
    {
        const Eigen::Vector4f green(0.2f, 0.8f, 0.3f, 1.0f);
        for (int axis = 0; axis < 3; ++axis)
            for (int k = 0; k < 4; ++k)
            {
                Eigen::Vector3f from, to;
                from[axis] = float(inDop.lo[axis]);
                to[axis] = float(inDop.hi[axis]);
                for (int side = 1; side <= 2; ++side)
                {
                    const int other = (axis + side) % 3;
                    const bool high = (k >> (side - 1)) & 1;
                    from[other] = to[other] = float(high ? inDop.hi[other] : inDop.lo[other]);
                }
                ioDecoration.lines.push_back({from, to, green});
            }
    }

    /// A work counter of `BlendBoundsState` summed over the six pawns.
    std::uint64_t Sum(std::uint64_t (BlendBoundsState::*inCounter)() const) const
    {
        std::uint64_t n = 0;
        for (const BlendBoundsState& state : mStates)
            n += (state.*inCounter)();
        return n;
    }

    std::shared_ptr<const BlendedMesh> mMesh;
    std::shared_ptr<const BlendBoundsTree> mTree;
    std::shared_ptr<const Model> mModel;
    std::vector<Vec3d> mNodes;
    std::vector<BlendBoundsState> mStates;
    std::vector<std::vector<AffineTransform>> mTransforms;
    std::vector<std::vector<TrianglePair>> mPairs;
    StepWork mStep;
    std::uint64_t mTotalPairs = 0;
    int mKind = 0, mBuiltKind = 0;
    bool mFront = true, mBuiltFront = true;
    float mSwing = 0.5f;
    int mShowLevel = -1;
};

const bool sRegistered = RegisterSample(
    "ring",
    "Steinemann et al.'s Fig. 6: meshless pawns hanging from a turning ring, bounds from node transforms",
    [] { return std::make_unique<RingSample>(); });

} // namespace
} // namespace bdt::demo
