// "Chairs": the BD-Tree paper's Figure 1 scene, deformable chairs (18k triangles, M = 10, proxies at level L)
// crashing to the ground in a pile; up to 3601 of them. The block falls in waves, one layer of the pile's
// grid at a time, so chairs keep landing on the pile for the first five seconds or so.
#include "app/Sample.h"

#include <algorithm>
#include <bdt/samples/Scenes.h>
#include <bdt/adapter/World.h>
#include <cmath>
#include <imgui.h>
#include <utility>

namespace bdt::demo
{
namespace
{

class ChairsSample final : public Sample
{
public:
    void Build(SampleWorld& ioWorld, const SampleOptions& inOptions) override
    {
        if (!mCountSet)
            mCount = inOptions.count > 0 ? int(inOptions.count) : 100;
        mCountSet = true;
        mAsset = BakeAsset("chair", 18000, inOptions.modes);
        PileSettings pile;
        pile.count = std::uint32_t(mCount);
        // About 9 chairs a wave for small piles; at most cMaxWaves waves.
        pile.layers = std::uint32_t(std::clamp((mCount + 8) / 9, 1, cMaxWaves));
        pile.seed = inOptions.seed;
        pile.dropHeight = cDropHeight;
        mBody.mass = 4.0;
        mBody.proxyLevel = inOptions.proxyLevel;
        pile.body = mBody;
        mTransforms = PileTransforms(*mAsset, pile);
        const std::uint32_t perLayer = (pile.count + pile.layers - 1) / pile.layers;
        mSide = std::max<std::uint32_t>(1, std::uint32_t(std::ceil(std::sqrt(double(perLayer)))));
        // Layer k of the block is spawned at the first layer's height (PileTransforms stacks them).
        mLayerHeight =
            mTransforms.size() > mSide * mSide
                ? double(mTransforms[mSide * mSide].getOrigin().y() - mTransforms[0].getOrigin().y())
                : 0.0;
        mSpawned = 0;
        mNextWave = 0;
        mCellWidth = mTransforms.size() > 1
                         ? std::abs(double(mTransforms[1].getOrigin().x() - mTransforms[0].getOrigin().x()))
                         : 1.0;
        SpawnWave(ioWorld);
    }

    void PreStep(SampleWorld& ioWorld, double inTime) override
    {
        if (mSpawned < mTransforms.size() && inTime >= double(mNextWave) * double(mInterval))
            SpawnWave(ioWorld);
    }

    void DrawControls() override
    {
        ImGui::SliderInt("chairs", &mCount, 1, 3601);
        if (ImGui::IsItemDeactivatedAfterEdit())
            mRebuild = true;
        ImGui::SliderFloat("s between waves", &mInterval, 0.1f, 2.0f, "%.2f");
    }

    bool WantsRebuild() override { return std::exchange(mRebuild, false); }

    CameraStart Camera() const override
    {
        const float side = float(mSide) * float(mCellWidth);
        CameraStart start;
        start.targetY = 0.6f;
        start.distance = 3.0f + 1.1f * side;
        start.pitch = 0.45f;
        return start;
    }

private:
    static constexpr int cMaxWaves = 12;
    static constexpr double cDropHeight = 1.8; // m between the ground and a wave's lowest bounding sphere

    void SpawnWave(SampleWorld& ioWorld)
    {
        const std::size_t perWave = std::size_t(mSide) * mSide;
        const std::size_t end = std::min(mTransforms.size(), mSpawned + perWave);
        for (; mSpawned < end; ++mSpawned)
        {
            btTransform transform = mTransforms[mSpawned];
            transform.getOrigin().setY(transform.getOrigin().y() -
                                       btScalar(double(mNextWave) * mLayerHeight));
            BodySettings desc = mBody;
            desc.transform = MeshFromPrincipal(*mAsset, desc.scale, transform);
            ioWorld.Deformables().CreateBody(mAsset, desc);
        }
        ++mNextWave;
    }

    int mCount = 100;
    bool mCountSet = false;
    bool mRebuild = false;
    float mInterval = 0.45f; // s between waves
    std::shared_ptr<const DeformableAsset> mAsset;
    BodySettings mBody;
    std::vector<btTransform> mTransforms;
    std::uint32_t mSide = 4;
    double mLayerHeight = 0.0, mCellWidth = 1.0;
    std::size_t mSpawned = 0;
    int mNextWave = 0;
};

const bool sRegistered = RegisterSample(
    "chairs", "the paper's Figure 1: deformable chairs crashing onto a pile in waves (up to 3601)",
    [] { return std::make_unique<ChairsSample>(); });

} // namespace
} // namespace bdt::demo
