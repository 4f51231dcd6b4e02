// "Chairs": the BD-Tree paper's Figure 1 scene, a block of deformable chairs (18k triangles, M = 10, proxies
// at level L) dropped into a pile; up to 3601 of them.
#include "app/Sample.h"

#include <bdt/adapter/Scenes.h>
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
        const auto asset = BakeAsset("chair", 18000, inOptions.modes);
        PileSettings pile;
        pile.count = std::uint32_t(mCount);
        pile.layers = mCount >= 400 ? 4 : 2;
        pile.seed = inOptions.seed;
        pile.body.mass = 4.0;
        pile.body.proxyLevel = inOptions.proxyLevel;
        AddPile(ioWorld, asset, pile);
        // The block's side: about √(count / layers) chairs of ~1.2 m.
        mSide = float(std::sqrt(double(mCount) / double(pile.layers))) * 1.2f;
    }

    void DrawControls() override
    {
        ImGui::SliderInt("chairs", &mCount, 1, 3601);
        if (ImGui::IsItemDeactivatedAfterEdit())
            mRebuild = true;
    }

    bool WantsRebuild() override { return std::exchange(mRebuild, false); }

    CameraStart Camera() const override
    {
        CameraStart start;
        start.targetY = 0.4f;
        start.distance = 2.5f + 1.1f * mSide;
        start.pitch = 0.5f;
        return start;
    }

private:
    int mCount = 100;
    bool mCountSet = false;
    bool mRebuild = false;
    float mSide = 4.0f;
};

const bool sRegistered =
    RegisterSample("chairs", "the paper's Figure 1: a pile of deformable chairs (up to 3601)",
                   [] { return std::make_unique<ChairsSample>(); });

} // namespace
} // namespace bdt::demo
